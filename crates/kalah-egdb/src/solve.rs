//! Solving one arrangement from its children: the retrograde step shared by build and verify.

use std::sync::atomic::{AtomicU8, Ordering};

use crate::game::{Arr, Game};
use crate::index::Indexer;

/// Marks an entry of the layer being built that has no value yet (no value is −128).
pub(crate) const UNKNOWN: u8 = 0x80;

/// Where the values of the layer being solved come from.
pub(crate) trait Current: Sync {
    /// The value of the arrangement of rank `r` in the current layer, which is `y` or, with
    /// `flip`, `y` with its rows exchanged; `solver` may be used to compute it when it is not
    /// known yet.
    fn get<T: Current, const M: usize>(
        &self,
        solver: &Solver<'_, T, M>,
        y: &Arr,
        flip: bool,
        r: u64,
    ) -> i32;
    /// Hints that entry `r` will be read soon.
    fn prefetch(&self, r: u64);
}

/// The layer under construction: unknown entries are solved on demand (memoised recursion).
pub(crate) struct Building<'a>(pub &'a [AtomicU8]);

impl Current for Building<'_> {
    #[inline(always)]
    fn get<T: Current, const M: usize>(
        &self,
        solver: &Solver<'_, T, M>,
        y: &Arr,
        flip: bool,
        r: u64,
    ) -> i32 {
        let cell = &self.0[r as usize];
        let v = cell.load(Ordering::Relaxed);
        if v != UNKNOWN {
            return v as i8 as i32;
        }
        let v = if flip {
            solver.solve(&solver.game.flip(y))
        } else {
            solver.solve(y)
        };
        // Two threads may solve the same entry; both store the same value.
        cell.store(v as i8 as u8, Ordering::Relaxed);
        v
    }
    #[inline(always)]
    fn prefetch(&self, r: u64) {
        prefetch(self.0.as_ptr().wrapping_add(r as usize) as *const u8);
    }
}

/// A finished layer (verify): entries are read as stored.
pub(crate) struct Finished<'a>(pub &'a [u8]);

impl Current for Finished<'_> {
    #[inline(always)]
    fn get<T: Current, const M: usize>(
        &self,
        _: &Solver<'_, T, M>,
        _: &Arr,
        _: bool,
        r: u64,
    ) -> i32 {
        self.0[r as usize] as i8 as i32
    }
    #[inline(always)]
    fn prefetch(&self, r: u64) {
        prefetch(self.0.as_ptr().wrapping_add(r as usize));
    }
}

/// Asks the CPU to load the cache line holding `p` (no effect on other targets).
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching never faults, whatever the address; SSE is baseline on x86_64.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Solves arrangements of layer `k` from layers `0..k` (`lower`) and layer `k` itself (`cur`),
/// for boards of `M` houses a side.
pub(crate) struct Solver<'a, C: Current, const M: usize> {
    pub game: Game<M>,
    pub ix: &'a Indexer,
    pub k: u32,
    pub lower: &'a [&'a [u8]],
    pub cur: C,
}

/// A child whose value must be looked up.
#[derive(Clone, Copy, Default)]
struct Pending {
    layer: u32,
    rank: u64,
    gain: i32,
    extra: bool,
}

/// The children of one arrangement, generated and prefetched but not read yet.
#[derive(Clone, Copy)]
pub(crate) struct Expanded<const M: usize> {
    /// Best value over the children already known (terminal ones); `i32::MIN` if none.
    best: i32,
    /// Set when the arrangement itself is terminal: `best` is its value.
    done: bool,
    np: usize,
    pend: [Pending; M],
    kids: [Arr; M],
}

impl<const M: usize> Default for Expanded<M> {
    fn default() -> Self {
        Expanded {
            best: i32::MIN,
            done: false,
            np: 0,
            pend: [Pending::default(); M],
            kids: [[0; crate::index::MAX_SLOTS]; M],
        }
    }
}

impl<C: Current, const M: usize> Solver<'_, C, M> {
    /// The future gain of the side to move in arrangement `x` (layer `k`): the sweep's value if
    /// the game is over, else the best over the moves of the gain of the move plus the child's
    /// value (extra turn) or minus it (the opponent moves next).
    #[inline]
    pub fn solve(&self, x: &Arr) -> i32 {
        let mut e = Expanded::default();
        self.expand(x, &mut e);
        self.finish(&e)
    }

    /// First half of [`Solver::solve`]: generates the children of `x`, values the terminal ones
    /// and prefetches the table entries of the others, so that the memory accesses of many
    /// moves (and of several arrangements, when the caller expands a batch) overlap.
    #[inline]
    pub fn expand(&self, x: &Arr, e: &mut Expanded<M>) {
        let g = &self.game;
        e.np = 0;
        e.done = false;
        let (a, b) = g.row_sums(x);
        if let Some(t) = g.terminal(a, b) {
            e.best = t;
            e.done = true;
            return;
        }
        let mut best = i32::MIN;
        let mut np = 0;
        for i in 0..M {
            if x[i] == 0 {
                continue;
            }
            let mut y = *x;
            let (mut ya, mut yb) = (a, b);
            let s = g.sow_fast(&mut y, i, &mut ya, &mut yb);
            let gain = s.gain as i32;
            let ky = self.k - s.gain as u32;
            // The child from its mover's view: y itself after an extra turn, else flipped.
            let (ca, cb) = if s.extra { (ya, yb) } else { (yb, ya) };
            if let Some(t) = g.terminal(ca, cb) {
                best = best.max(if s.extra { gain + t } else { gain - t });
                continue;
            }
            let r = if s.extra {
                self.ix.rank_m::<M, false>(&y, ky)
            } else {
                self.ix.rank_m::<M, true>(&y, ky)
            };
            if ky < self.k {
                prefetch(self.lower[ky as usize].as_ptr().wrapping_add(r as usize));
            } else {
                self.cur.prefetch(r);
                e.kids[np] = y;
            }
            e.pend[np] = Pending {
                layer: ky,
                rank: r,
                gain,
                extra: s.extra,
            };
            np += 1;
        }
        e.best = best;
        e.np = np;
    }

    /// Second half of [`Solver::solve`]: reads the children's values (solving same-layer
    /// children not known yet) and returns the best.
    #[inline]
    pub fn finish(&self, e: &Expanded<M>) -> i32 {
        let mut best = e.best;
        if e.done {
            return best;
        }
        for (j, p) in e.pend[..e.np].iter().enumerate() {
            let v = if p.layer < self.k {
                self.lower[p.layer as usize][p.rank as usize] as i8 as i32
            } else {
                self.cur.get(self, &e.kids[j], !p.extra, p.rank)
            };
            best = best.max(if p.extra { p.gain + v } else { p.gain - v });
        }
        best
    }
}
