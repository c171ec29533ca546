//! The rules on arrangements (the side to move's view, stores left out): sowing, captures, extra
//! turns, the end of the game and the sweep. A fast copy of `kalah_core::Position::sow_unchecked`
//! restricted to what a database needs; the tests check it against `kalah-core` on every move of
//! random positions.

use kalah_core::{CaptureRule, EndRule, LeftoverRule, Rules};

use crate::index::MAX_SLOTS;

/// An arrangement: `x[0..m]` the mover's houses 1..m, `x[m..2m]` the opponent's houses 1..m.
pub(crate) type Arr = [u8; MAX_SLOTS];

/// The board size and the rules that decide values (capture, end, leftovers), with the
/// sowings precomputed.
#[derive(Clone, Debug)]
pub(crate) struct Game<const M: usize> {
    pub empty_capture: bool,
    pub end: EndRule,
    pub leftovers: LeftoverRule,
    /// Largest house content the sowing table covers.
    max_n: usize,
    /// `steps[i * (max_n + 1) + n]`: sowing n seeds from the mover's house i + 1.
    steps: Vec<SowStep>,
}

/// A sowing of n seeds from one house, precomputed on an empty board: what it adds to every
/// house, where its last seed lands, and how many seeds reach the store (before a capture).
#[derive(Clone, Copy, Debug, Default)]
struct SowStep {
    /// Seeds added to each slot (wrapping; the origin house's entry also takes the n seeds
    /// away).
    inc: Arr,
    /// Cycle position of the last seed: 0..m the mover's houses, m his store, m+1..=2m the
    /// opponent's houses.
    last: u8,
    /// Seeds that went into the store.
    gain: u8,
    /// Seeds added to the mover's row.
    da: u8,
    /// Seeds added to the opponent's row.
    db: u8,
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
    /// The rules of `rules` for arrangements of at most `max_seeds` seeds.
    pub fn new(rules: &Rules, max_seeds: u32) -> Self {
        let max_n = max_seeds as usize;
        let mut steps = vec![SowStep::default(); M * (max_n + 1)];
        for i in 0..M {
            for n in 1..=max_n {
                let mut y: Arr = [0; MAX_SLOTS];
                y[i] = n.min(255) as u8;
                let (gain, last) = Self::distribute(&mut y, i);
                let da: usize = y[..M].iter().map(|&v| v as usize).sum();
                let db: usize = y[M..2 * M].iter().map(|&v| v as usize).sum();
                // Emptying the origin is part of the step (no byte store, no stall on the
                // vector add that follows).
                y[i] = y[i].wrapping_sub(n as u8);
                steps[i * (max_n + 1) + n] = SowStep {
                    inc: y,
                    last: last as u8,
                    gain: gain as u8,
                    da: da as u8,
                    db: db as u8,
                };
            }
        }
        Game {
            empty_capture: rules.capture == CaptureRule::Empty,
            end: rules.end,
            leftovers: rules.leftovers,
            max_n,
            steps,
        }
    }

    /// Sows the mover's house `i + 1` (0-based `i`, holding between 1 and the table's
    /// `max_seeds` seeds) in place, from the precomputed table, and updates the row sums `a`
    /// (mover) and `b` (opponent). As `Game::sow` (the seed-by-seed reference the tests keep)
    /// otherwise.
    #[inline(always)]
    pub fn sow_fast(&self, x: &mut Arr, i: usize, a: &mut u32, b: &mut u32) -> Sown {
        let n = x[i] as usize;
        debug_assert!(n > 0 && n <= self.max_n);
        let st = &self.steps[i * (self.max_n + 1) + n];
        for (v, d) in x.iter_mut().zip(&st.inc) {
            *v = v.wrapping_add(*d);
        }
        *a = *a - n as u32 + st.da as u32;
        *b += st.db as u32;
        let last = st.last as usize;
        let mut gain = st.gain;
        if last == M {
            return Sown { gain, extra: true };
        }
        if last < M && x[last] == 1 {
            let opp = 2 * M - 1 - last;
            let o = x[opp];
            if o > 0 || self.empty_capture {
                gain += o + 1;
                x[last] = 0;
                x[opp] = 0;
                *a -= 1;
                *b -= o as u32;
            }
        }
        Sown { gain, extra: false }
    }

    /// Drops the seeds taken from house `i + 1` (already emptied into `x[i]`'s old content,
    /// which must be the only seeds of the origin) one by one: the distribution part of a
    /// sowing, without the capture. Returns (seeds into the store, cycle position of the last).
    fn distribute(x: &mut Arr, i: usize) -> (usize, usize) {
        let m = M;
        let n2 = 2 * m;
        let cycle = n2 + 1;
        let n = x[i] as usize;
        x[i] = 0;
        let laps = n / cycle;
        let rem = n % cycle;
        let mut gain = laps;
        if laps > 0 {
            for v in x[..n2].iter_mut() {
                *v += laps as u8;
            }
        }
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
        (gain, last)
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

    /// Sows the mover's house `i + 1` (0-based `i`, which must hold seeds) in place, seed by
    /// seed: the reference [`Game::sow_fast`] is tested against. The result is from the same
    /// view: on an extra turn it is the mover's next position, otherwise flip it
    /// ([`Game::flip`]) to get the opponent's view.
    #[cfg(test)]
    pub fn sow(&self, x: &mut Arr, i: usize) -> Sown {
        let m = M;
        let n2 = 2 * m;
        debug_assert!(x[i] > 0);
        // Cycle positions: 0..m the mover's houses, m his store, m+1..=2m the opponent's houses.
        let (mut gain, last) = Self::distribute(x, i);
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
        if 2 * M <= 16 {
            // In a register: no narrow stores read back by a wide load (a store-forwarding
            // stall in the build's inner loop).
            let v = u128::from_le_bytes(x[..16].try_into().unwrap());
            let mask = (1u128 << (8 * M)) - 1;
            let w = ((v >> (8 * M)) & mask) | ((v & mask) << (8 * M));
            y[..16].copy_from_slice(&w.to_le_bytes());
        } else {
            y[..m].copy_from_slice(&x[m..2 * m]);
            y[m..2 * m].copy_from_slice(&x[..m]);
        }
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{successor, Indexer};

    /// Every move of every arrangement of up to `k` seeds: the table-driven sowing equals the
    /// seed-by-seed one, row sums included, and the flip swaps the rows.
    fn check<const M: usize>(k: u32) {
        for capture in [CaptureRule::Standard, CaptureRule::Empty] {
            let rules = Rules {
                capture,
                ..Rules::default()
            };
            let g = Game::<M>::new(&rules, k);
            let ix = Indexer::new(M, k).unwrap();
            for seeds in 1..=k {
                let mut x: Arr = [0; MAX_SLOTS];
                ix.unrank(seeds, 0, &mut x[..2 * M]);
                loop {
                    let f = g.flip(&x);
                    assert_eq!(&f[..M], &x[M..2 * M]);
                    assert_eq!(&f[M..2 * M], &x[..M]);
                    assert!(f[2 * M..].iter().all(|&v| v == 0));
                    for i in 0..M {
                        if x[i] == 0 {
                            continue;
                        }
                        let (mut y, mut z) = (x, x);
                        let s = g.sow(&mut y, i);
                        let (mut a, mut b) = g.row_sums(&x);
                        let t = g.sow_fast(&mut z, i, &mut a, &mut b);
                        assert_eq!(y, z, "{x:?} house {i}");
                        assert_eq!((s.gain, s.extra), (t.gain, t.extra), "{x:?} house {i}");
                        assert_eq!((a, b), g.row_sums(&z), "{x:?} house {i}");
                    }
                    if !successor(&mut x[..2 * M]) {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn table_sowing_equals_seed_by_seed() {
        check::<1>(20);
        check::<2>(16);
        check::<3>(12);
        check::<4>(9);
        check::<6>(6);
    }
}
