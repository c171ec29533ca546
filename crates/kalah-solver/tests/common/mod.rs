//! Helpers shared by the solver's integration tests.

use kalah_core::{Phase, Position, Setup, Side};
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
