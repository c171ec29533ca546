//! Exact and depth-limited Kalah search: negamax, MTD(f), transposition table, principal variation.
