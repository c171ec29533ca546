//! Perft: the number of move sequences of a given length, the standard check of a move
//! generator (as in chess programming).
//!
//! One sowing is one ply; an extra turn is another ply by the same player; a pie-rule swap is a
//! ply; a finished game has no moves, so it adds nothing deeper. `perft(p, 0) = 1`.

use std::sync::atomic::{AtomicBool, Ordering};

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

/// Plies left below which [`perft_stoppable`] counts without looking at its stop flag: a
/// subtree of at most 5 plies has at most 13^5 (about 371,000) leaves on the largest board
/// (12 houses and a swap), a millisecond or two of counting, so a stop is seen at once while
/// the flag is read at a tiny share of the nodes.
const STOP_CHECK_PLIES: u32 = 5;

/// [`perft`] that can be stopped: the same count, or `None` if `stop` was set before the count
/// was finished. `stop` is read at the start and at every node with more than a few plies
/// left (every millisecond or two of counting at most), so a stop set by another thread (a
/// Ctrl-C handler) ends the count quickly; the partial count is dropped. As fast as [`perft`]
/// otherwise.
pub fn perft_stoppable(
    pos: &Position,
    rules: &Rules,
    depth: u32,
    stop: &AtomicBool,
) -> Option<u64> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    if depth == 0 {
        return Some(1);
    }
    if !pos.is_over() && pos.end_reason(rules).is_some() {
        return Some(0);
    }
    stoppable_inner(pos, rules, depth, stop)
}

/// The stoppable upper plies of [`perft_stoppable`]: the same walk as `perft_inner`, kept apart
/// so that `perft_inner` stays free of the flag and of `Option` (a unified walk counted
/// Kalah(6,4) perft(10) at 117-132 M moves/s against 184, example `perft_speed 10`, 5 Dec 2026).
fn stoppable_inner(pos: &Position, rules: &Rules, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth <= STOP_CHECK_PLIES {
        return Some(perft_inner(pos, rules, depth));
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut mask = pos.legal_houses();
    let mut nodes = 0;
    while mask != 0 {
        let h = mask.trailing_zeros() as usize + 1;
        mask &= mask - 1;
        let mut child = *pos;
        child.sow_from(pos, rules, h);
        nodes += stoppable_inner(&child, rules, depth - 1, stop)?;
    }
    if pos.can_swap(rules) {
        let mut child = *pos;
        child.play_unchecked(rules, Move::Swap);
        nodes += stoppable_inner(&child, rules, depth - 1, stop)?;
    }
    Some(nodes)
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
