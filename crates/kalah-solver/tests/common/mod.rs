//! Helpers shared by the solver's integration tests.

use kalah_core::{Move, Phase, Position, Rules, Setup, Side};
use rand::rngs::StdRng;
use rand::Rng;

/// A random normal-phase position of `m` houses a side with `seeds` seeds spread over the
/// houses, stores of 0..6 seeds each and a random side to move.
pub fn random_pos(rng: &mut StdRng, m: usize, seeds: u32) -> Position {
    let mut pits = vec![0u8; 2 * m + 2];
    for _ in 0..seeds {
        let mut i = rng.gen_range(0..2 * m);
        if i >= m {
            i += 1;
        }
        pits[i] += 1;
    }
    pits[m] = rng.gen_range(0..6);
    pits[2 * m + 1] = rng.gen_range(0..6);
    let side = if rng.gen_bool(0.5) {
        Side::South
    } else {
        Side::North
    };
    Position::from_setup(&Setup {
        pits,
        to_move: Some(side),
        phase: Phase::Normal,
    })
    .unwrap()
}

/// Replays `pv` from `pos` and returns the final store difference from the view of the person to
/// move in `pos` (who owns the other side after a pie-rule swap).
#[allow(dead_code)] // not every test file replays
pub fn replay(pos: &Position, rules: &Rules, pv: &[Move]) -> i32 {
    let mut p = *pos;
    let mut side = pos.side();
    for &mv in pv {
        if p.play(rules, mv).expect("legal PV move").swapped {
            side = side.opposite();
        }
    }
    assert!(p.is_over(), "the PV of {pos} ends the game");
    p.store_diff(side)
}
