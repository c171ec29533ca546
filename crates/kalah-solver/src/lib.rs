//! # kalah-solver
//!
//! Exact and depth-limited Kalah search.
//!
//! * **Exact values**: the value of a position is the final store difference, side to move minus
//!   opponent, with perfect play by both, under the position's [`Rules`](kalah_core::Rules) (every variant of
//!   `kalah-core`: both capture rules, both end rules, the three leftover rules, the majority end,
//!   the pie rule and the Manchester first-move rule). [`Solver::solve`] gives the value, every
//!   best move, a principal variation and statistics; [`Solver::analyze_moves`] and
//!   [`Solver::analyze_turns`] give the value of every legal move or whole turn.
//! * **Search**: negamax with alpha-beta (an extra turn keeps the same player to move: no sign
//!   flip), driven by MTD(f) null-window tests with a first guess from iterative deepening; a
//!   [transposition table](Solver::new) keyed on the houses as the side to move sees them (its
//!   own row first, and its store under the majority end; a position and its mirror image with
//!   the other side to move share an entry) that stores bounds on the **future gain** (value
//!   minus the current store difference) with full-key verification; exact futility bounds (the future gain
//!   lies within ± the seeds still in the houses); move ordering (moves that end the game,
//!   extra-turn moves, captures, history; the table's move orders the principal variation and the
//!   depth-limited search, not the exact search, where it measured worse); enhanced
//!   transposition cut-off; optional endgame databases ([`Solver::with_egdb`]).
//! * **Depth-limited search** ([`Solver::search_depth`], [`Solver::iterative`]) with a heuristic
//!   evaluation, for positions the exact search cannot finish in time.
//! * **Threads**: solvers made by [`Solver::with_shared_table`] share one transposition table
//!   (entries are 64- or 128-bit atomics: a race can lose an entry, never give a wrong value);
//!   [`Solver::solve_parallel`] solves one position on several threads (one MTD(f) each,
//!   sharing the work of each test by simplified ABDADA), [`analyze_moves_parallel`] and
//!   [`analyze_turns_parallel`] share the actions or turns of an analysis out between threads.
//! * **Control**: a stop flag ([`Solver::set_stop_flag`]), time and node [`SearchLimits`], and a
//!   progress callback ([`Solver::set_progress`]) reporting the bounds proven so far.
//!
//! The pie rule: a swap leaves North (the board side) to move, but the person to move changes, so
//! the swapper's value is minus the value of the same position (normal phase) for the side to move.
//!
//! ```
//! use kalah_core::{Position, Rules, Start};
//! use kalah_solver::Solver;
//! let rules = Rules::default();
//! let pos = Position::start(&Start::uniform(4, 3).unwrap(), &Rules { capture: kalah_core::CaptureRule::Empty, ..rules });
//! let mut solver = Solver::new(Rules { capture: kalah_core::CaptureRule::Empty, ..rules }, 4);
//! let sol = solver.solve(&pos).unwrap();
//! assert_eq!(sol.value, 8); // Irving, Donkers & Uiterwijk (2000), Kalah(4,3)
//! ```
//!
//! Stopping a long search from another thread (a Ctrl-C handler, a "move now" button): the
//! search returns [`SolveError::Stopped`] with the bounds it has proven, which always hold the
//! value.
//!
//! ```
//! use std::sync::atomic::{AtomicBool, Ordering};
//! use std::sync::Arc;
//! use std::time::Duration;
//! use kalah_core::{Position, Rules, Start};
//! use kalah_solver::{SolveError, Solver};
//!
//! let rules = Rules::default();
//! let start = Position::start(&Start::uniform(6, 6).unwrap(), &rules); // open for decades
//! let mut solver = Solver::new(rules, 16);
//! let stop = Arc::new(AtomicBool::new(false));
//! solver.set_stop_flag(stop.clone());
//! let timer = std::thread::spawn(move || {
//!     std::thread::sleep(Duration::from_millis(200));
//!     stop.store(true, Ordering::Relaxed);
//! });
//! match solver.value(&start) {
//!     Err(SolveError::Stopped { lower, upper, stats }) => {
//!         assert!(lower <= upper);
//!         println!("between {lower:+} and {upper:+} after {} nodes", stats.nodes);
//!     }
//!     Ok(v) => unreachable!("Kalah(6,6) solved in 200 ms: {v}"),
//! }
//! timer.join().unwrap();
//! ```

#![warn(missing_docs)]

mod parallel;
pub mod review;
mod search;
mod table_size;
mod tt;

pub use parallel::{
    analyze_moves_parallel, analyze_moves_parallel_partial, analyze_turns_parallel,
    analyze_turns_parallel_partial, search_jobs, ParallelOptions, ParallelProgress,
    ParallelProgressFn,
};

pub use table_size::{default_table_mib, egdb_reaches, memory_mib, EGDB_REACH, EGDB_TT_MIB};
pub use tt::entry_bytes;

pub use search::{
    seed_bounds, DepthResult, MoveScore, PartialAnalysis, Progress, Proof, SearchLimits, Solution,
    SolveError, Solver, Stats, TurnScore, MAX_DEPTH, MAX_THREADS,
};

/// Default transposition table size in MiB.
pub const DEFAULT_TT_MIB: usize = 64;

/// The README's Rust examples, run as doctests so that they keep compiling.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;
