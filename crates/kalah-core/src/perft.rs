//! Perft: the number of move sequences of a given length, the standard check of a move
//! generator (as in chess programming).
//!
//! One sowing is one ply; an extra turn is another ply by the same player; a pie-rule swap is a
//! ply; a finished game has no moves, so it adds nothing deeper. `perft(p, 0) = 1`.

use crate::moves::Move;
use crate::position::Position;
use crate::rules::Rules;

/// Number of legal action sequences of exactly `depth` plies from `pos`.
///
/// `pos` should be settled ([`Position::settle`]); an unsettled finished position is counted as
/// over too.
pub fn perft(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if !pos.is_over() && pos.end_reason(rules).is_some() {
        return 0;
    }
    perft_inner(pos, rules, depth)
}

fn perft_inner(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    let mut mask = pos.legal_houses();
    let swap = pos.can_swap(rules);
    if depth == 1 {
        return mask.count_ones() as u64 + swap as u64;
    }
    let mut nodes = 0;
    while mask != 0 {
        let h = mask.trailing_zeros() as usize + 1;
        mask &= mask - 1;
        let mut child = *pos;
        child.sow_from(pos, rules, h);
        nodes += perft_inner(&child, rules, depth - 1);
    }
    if swap {
        let mut child = *pos;
        child.play_unchecked(rules, Move::Swap);
        nodes += perft_inner(&child, rules, depth - 1);
    }
    nodes
}

/// Perft without bulk counting: every leaf move is played into a child position (kept alive
/// with [`std::hint::black_box`], so the work cannot be optimised away), not just counted. Same
/// result as [`perft`]; slower; used to measure make-move speed honestly.
pub fn perft_full(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if !pos.is_over() && pos.end_reason(rules).is_some() {
        return 0;
    }
    full_inner(pos, rules, depth)
}

fn full_inner(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    let mut mask = pos.legal_houses();
    if depth == 1 {
        // Every leaf move is played; `black_box` keeps the compiler from skipping the work
        // whose result is not otherwise used.
        while mask != 0 {
            let h = mask.trailing_zeros() as usize + 1;
            mask &= mask - 1;
            let mut child = *pos;
            child.sow_from(pos, rules, h);
            std::hint::black_box(&child);
            nodes += 1;
        }
        if pos.can_swap(rules) {
            let mut child = *pos;
            child.play_unchecked(rules, Move::Swap);
            std::hint::black_box(&child);
            nodes += 1;
        }
        return nodes;
    }
    while mask != 0 {
        let h = mask.trailing_zeros() as usize + 1;
        mask &= mask - 1;
        let mut child = *pos;
        child.sow_from(pos, rules, h);
        nodes += full_inner(&child, rules, depth - 1);
    }
    if pos.can_swap(rules) {
        let mut child = *pos;
        child.play_unchecked(rules, Move::Swap);
        nodes += full_inner(&child, rules, depth - 1);
    }
    nodes
}

/// Perft split by first action: `(action, perft(after action, depth-1))` for every legal action
/// in [`Position::legal_moves`] order. The counts add up to `perft(pos, depth)` for depth ≥ 1.
pub fn divide(pos: &Position, rules: &Rules, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves(rules)
        .into_iter()
        .map(|mv| {
            let mut child = *pos;
            child.play_unchecked(rules, mv);
            (mv, perft(&child, rules, depth - 1))
        })
        .collect()
}
