//! Combinatorial indexing of a layer: every arrangement of k seeds over the 2m houses, ranked by
//! stars and bars.
//!
//! An arrangement is a slice `x` of 2m seed counts from the side to move's view: `x[0..m]` are the
//! mover's houses 1..m (sowing order), `x[m..2m]` the opponent's houses 1..m (his sowing order).
//! Arrangements of a layer are ranked in lexicographic order of `x` (all of `x[0]`'s smaller values
//! first): `(0,…,0,k)` has rank 0 and `(k,0,…,0)` the last rank. The rank is
//!
//! rank(x) = Σ_{i<2m-1} [ C(r_i, 2m-i) − C(r_i − x_i, 2m-i) ]
//!
//! where r_i = k − (x_0 + … + x_{i−1}) is the number of seeds still to place and C(s, p) =
//! binomial(s+p−1, p−1) the number of ways to put s seeds into p houses (the hockey-stick identity
//! sums the compositions skipped by every smaller value of x_i).

use crate::EgdbError;

/// Most houses a side (as in `kalah-core`).
const MAX_HOUSES: usize = kalah_core::MAX_HOUSES;
/// Most slots in an arrangement.
pub(crate) const MAX_SLOTS: usize = 2 * MAX_HOUSES;

/// Binomial tables to rank and unrank arrangements of up to `max_seeds` seeds over `2m` houses.
#[derive(Clone, Debug)]
pub struct Indexer {
    houses: usize,
    max_seeds: usize,
    /// `comp[i * (max_seeds + 1) + s]` = ways to place s seeds into the 2m − i slots i..2m.
    comp: Vec<u64>,
    /// `diff[i * (max_seeds + 1) + s]` = comp(i, s) − comp(i − 1, s) (wrapping; row 0 unused):
    /// the rank as a sum over suffix sums, one lookup a slot (see [`Indexer::rank_m`]).
    diff: Vec<u64>,
}

impl Indexer {
    /// Tables for boards of `houses` houses a side and layers of at most `max_seeds` seeds.
    ///
    /// # Errors
    /// [`EgdbError::TooLarge`] if a layer would have 2^63 or more arrangements, if `houses` is
    /// not in 1..=12, or if `max_seeds` is above [`MAX_LAYER_SEEDS`](crate::MAX_LAYER_SEEDS)
    /// (checked first: the tables grow with `max_seeds`).
    pub fn new(houses: usize, max_seeds: u32) -> Result<Indexer, EgdbError> {
        if !(1..=MAX_HOUSES).contains(&houses) || max_seeds > crate::MAX_LAYER_SEEDS {
            return Err(EgdbError::TooLarge {
                houses,
                seeds: max_seeds,
            });
        }
        let n = 2 * houses;
        let ms = max_seeds as usize;
        let w = ms + 1;
        // comp(s, p) for p = 1..=n: comp(s,1) = 1, comp(s,p) = Σ_{v≤s} comp(v, p−1).
        let mut by_p = vec![vec![0u64; w]; n + 1];
        by_p[1].fill(1);
        for p in 2..=n {
            let mut acc: u64 = 0;
            let (done, rest) = by_p.split_at_mut(p);
            for (out, &prev) in rest[0].iter_mut().zip(&done[p - 1]) {
                acc = acc.checked_add(prev).filter(|&a| a < (1u64 << 63)).ok_or(
                    EgdbError::TooLarge {
                        houses,
                        seeds: max_seeds,
                    },
                )?;
                *out = acc;
            }
        }
        let mut comp = vec![0u64; n * w];
        for i in 0..n {
            comp[i * w..(i + 1) * w].copy_from_slice(&by_p[n - i]);
        }
        let mut diff = vec![0u64; n * w];
        for i in 1..n {
            for s in 0..w {
                diff[i * w + s] = comp[i * w + s].wrapping_sub(comp[(i - 1) * w + s]);
            }
        }
        Ok(Indexer {
            houses,
            max_seeds: ms,
            comp,
            diff,
        })
    }

    /// Houses a side.
    pub fn houses(&self) -> usize {
        self.houses
    }

    /// The largest layer these tables serve.
    pub fn max_seeds(&self) -> u32 {
        self.max_seeds as u32
    }

    #[inline(always)]
    fn c(&self, i: usize, s: usize) -> u64 {
        self.comp[i * (self.max_seeds + 1) + s]
    }

    /// Number of arrangements of `seeds` seeds over the 2m houses: binomial(seeds+2m−1, 2m−1).
    ///
    /// # Panics
    /// If `seeds` exceeds the tables' `max_seeds`.
    pub fn layer_size(&self, seeds: u32) -> u64 {
        // The flat table would read the next row's entries past max_seeds.
        assert!(
            seeds as usize <= self.max_seeds,
            "layer {seeds} is past the tables' {} seeds",
            self.max_seeds
        );
        self.c(0, seeds as usize)
    }

    /// The rank (0-based) of arrangement `x` (2m counts, see the module documentation) within the
    /// layer of `seeds` = Σ x seeds.
    ///
    /// # Panics
    /// If `x` does not hold exactly 2m counts, if they do not sum to `seeds`, or if `seeds`
    /// exceeds `max_seeds` (in every build: the checks cost a few comparisons).
    #[inline]
    pub fn rank(&self, x: &[u8], seeds: u32) -> u64 {
        let n = 2 * self.houses;
        assert_eq!(
            x.len(),
            n,
            "an arrangement of {} houses a side has {n} counts",
            self.houses
        );
        assert!(
            seeds as usize <= self.max_seeds,
            "layer {seeds} is past the tables' {} seeds",
            self.max_seeds
        );
        let w = self.max_seeds + 1;
        let mut r = seeds as usize;
        let mut rank = 0u64;
        let mut base = 0;
        for &xi in &x[..n - 1] {
            let left = r
                .checked_sub(xi as usize)
                .unwrap_or_else(|| panic!("the counts {x:?} sum to more than {seeds} seeds"));
            rank += self.comp[base + r] - self.comp[base + left];
            r = left;
            base += w;
        }
        assert_eq!(
            r,
            x[n - 1] as usize,
            "the counts {x:?} do not sum to {seeds} seeds"
        );
        rank
    }

    /// [`Indexer::rank`] for boards of `M` houses (the loop unrolled), on a full-size array;
    /// with `FLIP`, of the arrangement with its two rows exchanged (`x[M..2M]` then `x[..M]`).
    ///
    /// With the suffix sums s_i = z_i + … + z_{2m−1} of the ranked slots z, the rank of the
    /// module documentation telescopes to
    /// C(k, 2m) − C(s_{2m−1}, 2) + Σ_{i=1..2m−2} [C(s_i, 2m−i) − C(s_i, 2m−i+1)],
    /// one table lookup a slot.
    #[inline(always)]
    pub(crate) fn rank_m<const M: usize, const FLIP: bool>(
        &self,
        x: &[u8; MAX_SLOTS],
        seeds: u32,
    ) -> u64 {
        debug_assert_eq!(self.houses, M);
        let n = 2 * M;
        let w = self.max_seeds + 1;
        let comp = &self.comp[..n * w];
        let diff = &self.diff[..n * w];
        let z = |j: usize| {
            if FLIP {
                x[if j < M { j + M } else { j - M }] as usize
            } else {
                x[j] as usize
            }
        };
        // Every suffix sum is at most `seeds`: clamping it to the table keeps the lookups in
        // bounds without a check that could panic (release builds), and changes nothing for a
        // valid arrangement.
        let cap = w - 1;
        debug_assert!((seeds as usize) <= cap);
        let mut s = z(n - 1).min(cap);
        let mut rank = comp[(seeds as usize).min(cap)].wrapping_sub(comp[(n - 2) * w + s]);
        for i in (1..n - 1).rev() {
            s = (s + z(i)).min(cap);
            rank = rank.wrapping_add(diff[i * w + s]);
        }
        rank
    }

    /// The arrangement of rank `rank` in the layer of `seeds` seeds, written into `x[..2m]`.
    ///
    /// # Panics
    /// If `rank` ≥ [`Indexer::layer_size`]`(seeds)` or `x` is shorter than 2m.
    pub fn unrank(&self, seeds: u32, mut rank: u64, x: &mut [u8]) {
        let n = 2 * self.houses;
        assert!(rank < self.layer_size(seeds), "rank out of range");
        let mut r = seeds as usize;
        for (i, xi) in x.iter_mut().enumerate().take(n - 1) {
            // Compositions with x_i = v and the rest free: comp(r − v) over the slots i+1.. .
            let mut v = 0usize;
            loop {
                let count = self.c(i + 1, r - v);
                if rank < count {
                    break;
                }
                rank -= count;
                v += 1;
            }
            *xi = v as u8;
            r -= v;
        }
        x[n - 1] = r as u8;
    }
}

/// Steps `x` (2m counts) to the next arrangement of the same layer in rank order. Returns `false`
/// (and leaves `x` unspecified) after the last one.
#[inline]
pub(crate) fn successor(x: &mut [u8]) -> bool {
    let n = x.len();
    let last = x[n - 1];
    if last > 0 {
        if n < 2 {
            return false;
        }
        x[n - 2] += 1;
        x[n - 1] = last - 1;
        return true;
    }
    // Rightmost nonzero slot j < n−1; move one seed to j−1 and the rest of x_j to the end.
    let mut j = n - 1;
    while j > 0 && x[j] == 0 {
        j -= 1;
    }
    if j == 0 {
        return false;
    }
    let v = x[j];
    x[j] = 0;
    x[j - 1] += 1;
    x[n - 1] = v - 1;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_unrank_inverse_and_successor_order() {
        for m in 1..=4usize {
            let ix = Indexer::new(m, 9).unwrap();
            for k in 0..=9u32 {
                let size = ix.layer_size(k);
                let mut x = vec![0u8; 2 * m];
                x[2 * m - 1] = k as u8;
                let mut y = vec![0u8; 2 * m];
                for r in 0..size {
                    assert_eq!(ix.rank(&x, k), r, "m={m} k={k} x={x:?}");
                    ix.unrank(k, r, &mut y);
                    assert_eq!(x, y);
                    let more = successor(&mut x);
                    assert_eq!(more, r + 1 < size);
                }
            }
        }
    }

    /// `rank`'s documented panics hold in release builds too (they are not debug assertions).
    #[test]
    fn rank_refuses_bad_arrangements() {
        let ix = Indexer::new(2, 5).unwrap();
        assert_eq!(ix.rank(&[0, 0, 0, 5], 5), 0);
        assert_eq!(ix.rank(&[5, 0, 0, 0], 5), ix.layer_size(5) - 1);
        for (x, seeds) in [
            (&[9u8, 0, 0, 0][..], 9), // past max_seeds
            (&[1, 1, 1, 1], 3),       // sums to more
            (&[1, 0, 0, 1], 3),       // sums to less
            (&[3, 0, 0, 0, 0], 3),    // too many counts
            (&[3, 0, 0], 3),          // too few
        ] {
            let r = std::panic::catch_unwind(|| ix.rank(x, seeds));
            assert!(r.is_err(), "rank({x:?}, {seeds}) gave {r:?}");
        }
    }

    /// The one-lookup-a-slot rank equals the plain rank, of the arrangement and of its flip.
    fn check_rank_m<const M: usize>(max: u32) {
        let ix = Indexer::new(M, max).unwrap();
        for k in 0..=max {
            let mut x = [0u8; MAX_SLOTS];
            x[2 * M - 1] = k as u8;
            loop {
                assert_eq!(ix.rank_m::<M, false>(&x, k), ix.rank(&x[..2 * M], k));
                let mut f = [0u8; MAX_SLOTS];
                f[..M].copy_from_slice(&x[M..2 * M]);
                f[M..2 * M].copy_from_slice(&x[..M]);
                assert_eq!(ix.rank_m::<M, true>(&x, k), ix.rank(&f[..2 * M], k));
                if !successor(&mut x[..2 * M]) {
                    break;
                }
            }
        }
    }

    #[test]
    fn table_rank_equals_rank() {
        check_rank_m::<1>(12);
        check_rank_m::<2>(10);
        check_rank_m::<3>(9);
        check_rank_m::<6>(5);
    }

    #[test]
    fn layer_sizes_are_binomials() {
        let ix = Indexer::new(6, 28).unwrap();
        assert_eq!(ix.layer_size(24), 417_225_900);
        let total: u64 = (0..=24).map(|k| ix.layer_size(k)).sum();
        assert_eq!(total, 1_251_677_700);
        let total: u64 = (0..=28).map(|k| ix.layer_size(k)).sum();
        assert_eq!(total, 5_586_853_480);
    }

    #[test]
    fn too_large_is_refused() {
        assert!(Indexer::new(12, 250).is_err());
        // Past the tables: a panic, as documented (it read the next row: 1, 3, 6, ...).
        let ix = Indexer::new(2, 5).unwrap();
        assert_eq!(ix.layer_size(5), 56);
        assert!(std::panic::catch_unwind(|| ix.layer_size(6)).is_err());
        assert!(Indexer::new(0, 4).is_err());
        // Library tester: these allocated tables for 4 billion seeds and aborted the process.
        for (m, k) in [(1, u32::MAX), (12, u32::MAX), (6, 10_000_000), (1, 121)] {
            assert!(matches!(
                Indexer::new(m, k),
                Err(EgdbError::TooLarge { houses, seeds }) if houses == m && seeds == k
            ));
        }
        assert_eq!(Indexer::new(1, 120).unwrap().layer_size(120), 121);
    }
}
