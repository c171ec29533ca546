//! The rules on arrangements (the side to move's view, stores left out): sowing, captures, extra
//! turns, the end of the game and the sweep. A fast copy of `kalah_core::Position::sow_unchecked`
//! restricted to what a database needs; the tests check it against `kalah-core` on every move of
//! random positions.

use kalah_core::{CaptureRule, EndRule, LeftoverRule, Rules};

use crate::index::MAX_SLOTS;

/// An arrangement: `x[0..m]` the mover's houses 1..m, `x[m..2m]` the opponent's houses 1..m.
pub(crate) type Arr = [u8; MAX_SLOTS];

/// The board size and the rules that decide values (capture, end, leftovers).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Game<const M: usize> {
    pub empty_capture: bool,
    pub end: EndRule,
    pub leftovers: LeftoverRule,
}

/// What a sowing did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sown {
    /// Seeds that went into the mover's store (laps, the pass over the store, a capture).
    pub gain: u8,
    /// The last seed landed in the mover's store: he moves again.
    pub extra: bool,
}

impl<const M: usize> Game<M> {
    pub fn new(rules: &Rules) -> Self {
        Game {
            empty_capture: rules.capture == CaptureRule::Empty,
            end: rules.end,
            leftovers: rules.leftovers,
        }
    }

    /// Seeds in the mover's row and in the opponent's row.
    #[inline(always)]
    pub fn row_sums(&self, x: &Arr) -> (u32, u32) {
        let m = M;
        let a: u32 = x[..m].iter().map(|&v| v as u32).sum();
        let b: u32 = x[m..2 * m].iter().map(|&v| v as u32).sum();
        (a, b)
    }

    /// The future gain of an arrangement whose game is over with the mover to move, given the
    /// row sums, or `None` if the game goes on. Mirrors `Position::end_reason` and the sweep.
    #[inline(always)]
    pub fn terminal(&self, a: u32, b: u32) -> Option<i32> {
        let over = match self.end {
            EndRule::RowEmpty => a == 0 || b == 0,
            EndRule::MoverBlocked => a == 0,
        };
        if !over {
            return None;
        }
        Some(match self.leftovers {
            LeftoverRule::Owner => a as i32 - b as i32,
            LeftoverRule::Nobody => 0,
            // The mover's row is checked first: if it is empty he is the emptier.
            LeftoverRule::Emptier => {
                if a == 0 {
                    b as i32
                } else {
                    -(a as i32)
                }
            }
        })
    }

    /// Sows the mover's house `i + 1` (0-based `i`, which must hold seeds) in place. The result
    /// is from the same view: on an extra turn it is the mover's next position, otherwise flip
    /// it ([`Game::flip`]) to get the opponent's view.
    #[inline(always)]
    pub fn sow(&self, x: &mut Arr, i: usize) -> Sown {
        let m = M;
        let n2 = 2 * m;
        let cycle = n2 + 1;
        let n = x[i] as usize;
        debug_assert!(n > 0);
        x[i] = 0;
        let laps = n / cycle;
        let rem = n % cycle;
        let mut gain = laps;
        if laps > 0 {
            for v in x[..n2].iter_mut() {
                *v += laps as u8;
            }
        }
        // Cycle positions: 0..m the mover's houses, m his store, m+1..=2m the opponent's houses.
        let reach = i + rem;
        for v in x[i + 1..=reach.min(m - 1)].iter_mut() {
            *v += 1;
        }
        if reach >= m {
            gain += 1;
            for v in x[m..reach.min(n2)].iter_mut() {
                *v += 1;
            }
            if reach > n2 {
                for v in x[..reach - n2].iter_mut() {
                    *v += 1;
                }
            }
        }
        let last = if reach >= cycle { reach - cycle } else { reach };
        if last == m {
            return Sown {
                gain: gain as u8,
                extra: true,
            };
        }
        if last < m && x[last] == 1 {
            let opp = n2 - 1 - last;
            let o = x[opp];
            if o > 0 || self.empty_capture {
                gain += o as usize + 1;
                x[last] = 0;
                x[opp] = 0;
            }
        }
        Sown {
            gain: gain as u8,
            extra: false,
        }
    }

    /// The same houses from the other side's view (rows exchanged).
    #[inline(always)]
    pub fn flip(&self, x: &Arr) -> Arr {
        let m = M;
        let mut y = [0u8; MAX_SLOTS];
        y[..m].copy_from_slice(&x[m..2 * m]);
        y[m..2 * m].copy_from_slice(&x[..m]);
        y
    }
}
