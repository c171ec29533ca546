//! Per-action and per-turn analysis on several threads: one [`Solver`] per thread (their
//! transposition table shared or not, see [`Solver::with_shared_table`]), a shared work queue of
//! the positions to solve. The exact solve of one position on several threads is
//! [`Solver::solve_parallel`].
//!
//! [`analyze_moves_parallel`] and [`analyze_turns_parallel`] give the same results, in the same
//! order, as [`Solver::analyze_moves`] and [`Solver::analyze_turns`]; only the work is shared
//! out. Each position after an action (or a whole turn) is one job, solved exactly with
//! [`Solver::value`] by whichever thread is free; the jobs are handed out most expensive first
//! by a cheap estimate (see [`analyze_turns_parallel`]) so that no thread is left with a long
//! job at the end while the others idle.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kalah_core::{Move, Position, Rules, Turn};

use crate::search::{child_seed_bounds, guess_budget, GUESS_NODES};
use crate::{
    MoveScore, PartialAnalysis, Progress, SearchLimits, SolveError, Solver, Stats, TurnScore,
};

/// Progress of a parallel analysis, summed over every thread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParallelProgress {
    /// Jobs (actions or turns that need a search) finished.
    pub done: usize,
    /// Jobs in all (actions or turns that end the game need no search and are not counted).
    pub jobs: usize,
    /// Nodes searched so far by every thread (finished jobs and the ones in progress).
    pub nodes: u64,
    /// Wall-clock time since the analysis began.
    pub elapsed: Duration,
    /// `nodes` per second of wall-clock time.
    pub nodes_per_second: f64,
}

/// A progress callback of a parallel analysis; it is called from the worker threads.
pub type ParallelProgressFn = Arc<dyn Fn(&ParallelProgress) + Send + Sync>;

/// Options of [`analyze_moves_parallel`] and [`analyze_turns_parallel`].
#[derive(Clone, Default)]
pub struct ParallelOptions {
    /// A flag that stops every thread when set (e.g. from a Ctrl-C handler). It is installed in
    /// every solver with [`Solver::set_stop_flag`], replacing their own, and the analysis sets it
    /// itself when one thread stops for a limit of its solver, so that the others stop too.
    /// `None`: a fresh flag is used.
    pub stop: Option<Arc<AtomicBool>>,
    /// Called from the worker threads: about twice a second per busy thread during long
    /// searches (and whenever a search's bounds improve), and once after each finished job. It replaces the progress callback of every solver ([`Solver::set_progress`]);
    /// after the analysis the solvers are left with a callback that does nothing. `None`: the
    /// solvers' own callbacks are kept (each then reports the job it is solving).
    pub progress: Option<ParallelProgressFn>,
    /// Set, when given, to the work of the whole analysis when it ends, finished or stopped:
    /// the nodes and table hits of every thread and of the ordering searches, and the
    /// wall-clock time (a finished analysis returns its values alone).
    pub stats: Option<Arc<Mutex<Stats>>>,
}

impl std::fmt::Debug for ParallelOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelOptions")
            .field("stop", &self.stop)
            .field("progress", &self.progress.is_some())
            .field("stats", &self.stats)
            .finish()
    }
}

/// Depth in plies of the search that orders the jobs: on Kalah(6,4) the ten first turns take
/// about 2 ms each and come out in nearly the order of their exact values.
const ORDER_DEPTH: u32 = 8;

/// The most jobs that are ordered by estimate. With more, each job is a small share of the
/// whole and the queue's end stays balanced without an order, while the ordering searches, run
/// one after another before the threads start, would take longer than the jobs: on
/// `6,5,4,3,2,1,0,1,1,1,1,1,1,0 S` (912 turns) they made two threads slower than one.
const ORDER_MAX_JOBS: usize = 64;

/// One position to value: the action's (or turn's) value from the view of the side to move
/// before it is `sign * V(pos)`, `V` the value of `pos` for its own side to move.
#[derive(Clone, Copy, Debug)]
struct Job {
    pos: Position,
    sign: i32,
}

impl Job {
    /// Honest bounds of the job's value (the mover's view) before any search: the value of
    /// `pos` lies within its store difference plus or minus the seeds in the houses; a pie-rule
    /// choice may also swap, which negates the store difference.
    fn futility(&self, rules: &Rules) -> (i32, i32) {
        child_seed_bounds(&self.pos, rules, self.sign > 0)
    }

    /// `lo..=hi` (bounds of `V(pos)`) as bounds of the job's value.
    fn bounds(&self, lo: i32, hi: i32) -> (i32, i32) {
        if self.sign > 0 {
            (lo, hi)
        } else {
            (-hi, -lo)
        }
    }

    /// A cheap estimate of the job's value for the mover: a depth-limited search of
    /// [`ORDER_DEPTH`] plies with `solver` (the store difference after the job if that search is
    /// stopped). Jobs that are bad for the mover are handed out first (see
    /// [`analyze_turns_parallel`]).
    fn estimate(&self, solver: &mut Solver) -> i32 {
        match solver.search_depth(&self.pos, ORDER_DEPTH) {
            Ok(r) => self.sign * r.value,
            Err(_) => self.sign * self.pos.store_diff(self.pos.side()),
        }
    }
}

/// What a slot of the result holds: a value known without search, or the job to solve.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Known(i32),
    Search(Job),
}

/// The outcome of one job in a worker thread.
enum Done {
    Value(i32),
    Stopped { lower: i32, upper: i32 },
}

/// Shared state of the progress reports.
struct Meter {
    jobs: usize,
    done: AtomicUsize,
    finished_nodes: AtomicU64,
    running: Vec<AtomicU64>,
    start: Instant,
    callback: ParallelProgressFn,
}

impl Meter {
    fn report(&self) {
        let nodes = self.finished_nodes.load(Ordering::Relaxed)
            + self
                .running
                .iter()
                .map(|r| r.load(Ordering::Relaxed))
                .sum::<u64>();
        let elapsed = self.start.elapsed();
        let secs = elapsed.as_secs_f64();
        (self.callback)(&ParallelProgress {
            done: self.done.load(Ordering::Relaxed),
            jobs: self.jobs,
            nodes,
            elapsed,
            nodes_per_second: if secs > 0.0 { nodes as f64 / secs } else { 0.0 },
        });
    }
}

/// Solves the `Search` slots of `slots` on `solvers.len()` threads and fills in their values.
fn run(
    solvers: &mut [Solver],
    rules: &Rules,
    slots: &[Slot],
    opts: &ParallelOptions,
) -> Result<Vec<i32>, PartialAnalysis<Option<i32>>> {
    let start = Instant::now();
    let jobs: Vec<(usize, Job)> = slots
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Slot::Search(job) => Some((i, *job)),
            Slot::Known(_) => None,
        })
        .collect();
    let stop = opts
        .stop
        .clone()
        .unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
    for solver in solvers.iter_mut() {
        solver.set_stop_flag(stop.clone());
    }
    let budget = guess_budget(jobs.len(), GUESS_NODES);
    // Each solver's limits as the caller set them: a node limit is spread over the calls a
    // solver makes (every job is a call of its own), and restored at the end.
    let limits: Vec<SearchLimits> = solvers.iter().map(Solver::limits).collect();
    // Sets the limits of a solver that has spent `spent` nodes of the analysis so far.
    let left = |limits: SearchLimits, spent: u64| SearchLimits {
        nodes: limits.nodes.map(|n| n.saturating_sub(spent)),
        ..limits
    };
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    // Work of the ordering searches, counted in the statistics.
    let mut ordering = Stats::default();
    if solvers.len() > 1 && (2..=ORDER_MAX_JOBS).contains(&jobs.len()) {
        // Most expensive first, by the estimate; ties keep the legal order. (One thread keeps
        // the legal order of the sequential analysis, and so its table's history.)
        let estimates: Vec<i32> = jobs
            .iter()
            .map(|(_, job)| {
                // Stopped already (Ctrl-C at the start), or the first solver's limits spent: no
                // more ordering searches (tester 85: each went on for up to 1 024 nodes, 64 of
                // them, far past a small node limit or a deadline).
                let limits = left(limits[0], ordering.nodes);
                let spent =
                    limits.nodes == Some(0) || limits.deadline.is_some_and(|d| Instant::now() >= d);
                if spent || stop.load(Ordering::Relaxed) {
                    return 0;
                }
                solvers[0].set_limits(limits);
                let e = job.estimate(&mut solvers[0]);
                let s = solvers[0].last_stats();
                ordering.nodes += s.nodes;
                ordering.tt_hits += s.tt_hits;
                e
            })
            .collect();
        order.sort_by_key(|&j| (estimates[j], j));
    }
    let meter = opts.progress.as_ref().map(|cb| {
        Arc::new(Meter {
            jobs: jobs.len(),
            done: AtomicUsize::new(0),
            finished_nodes: AtomicU64::new(0),
            running: (0..solvers.len()).map(|_| AtomicU64::new(0)).collect(),
            start,
            callback: cb.clone(),
        })
    });
    if let Some(m) = &meter {
        for (t, solver) in solvers.iter_mut().enumerate() {
            let m = m.clone();
            solver.set_progress(move |p: &Progress| {
                m.running[t].store(p.nodes, Ordering::Relaxed);
                m.report();
            });
        }
    }

    let next = AtomicUsize::new(0);
    let threads = solvers.len().min(jobs.len());
    // Per thread: (job index, outcome) of every job it took, and the work it did.
    let per_thread: Vec<(Vec<(usize, Done)>, Stats)> = std::thread::scope(|scope| {
        let handles: Vec<_> = solvers[..threads]
            .iter_mut()
            .enumerate()
            .map(|(t, solver)| {
                let (jobs, order, next, stop, meter) = (&jobs, &order, &next, &stop, &meter);
                let (limits, left) = (limits[t], &left);
                // The first solver's ordering searches count towards its node limit.
                let before = if t == 0 { ordering.nodes } else { 0 };
                scope.spawn(move || {
                    let mut out = Vec::new();
                    let mut work = Stats::default();
                    loop {
                        // A flag set before a job starts must stop it even if the job is too
                        // small for the solver ever to poll the flag.
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        let k = next.fetch_add(1, Ordering::SeqCst);
                        let Some(&j) = order.get(k) else { break };
                        let job = jobs[j].1;
                        solver.set_limits(left(limits, before + work.nodes));
                        let result = solver.value_with_guess(&job.pos, budget);
                        let stats = match &result {
                            Ok(_) => solver.last_stats(),
                            Err(SolveError::Stopped { stats, .. }) => *stats,
                        };
                        work.nodes += stats.nodes;
                        work.tt_hits += stats.tt_hits;
                        match result {
                            Ok(v) => {
                                out.push((j, Done::Value(job.sign * v)));
                                if let Some(m) = meter {
                                    m.running[t].store(0, Ordering::Relaxed);
                                    m.finished_nodes.fetch_add(stats.nodes, Ordering::Relaxed);
                                    m.done.fetch_add(1, Ordering::Relaxed);
                                    m.report();
                                }
                            }
                            Err(SolveError::Stopped { lower, upper, .. }) => {
                                let (lower, upper) = job.bounds(lower, upper);
                                out.push((j, Done::Stopped { lower, upper }));
                                // A limit of this solver: stop the others too.
                                stop.store(true, Ordering::SeqCst);
                                break;
                            }
                        }
                    }
                    (out, work)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    if meter.is_some() {
        for solver in solvers.iter_mut() {
            solver.set_progress(|_| {});
        }
    }
    for (solver, limits) in solvers.iter_mut().zip(limits) {
        solver.set_limits(limits);
    }

    let mut values: Vec<Option<i32>> = slots
        .iter()
        .map(|s| match s {
            Slot::Known(v) => Some(*v),
            Slot::Search(_) => None,
        })
        .collect();
    let mut bounds: Vec<(i32, i32)> = slots
        .iter()
        .map(|s| match s {
            Slot::Known(v) => (*v, *v),
            Slot::Search(job) => job.futility(rules),
        })
        .collect();
    let mut stats = ordering;
    for (out, work) in per_thread {
        stats.nodes += work.nodes;
        stats.tt_hits += work.tt_hits;
        for (j, done) in out {
            let slot = jobs[j].0;
            match done {
                Done::Value(v) => {
                    values[slot] = Some(v);
                    bounds[slot] = (v, v);
                }
                Done::Stopped { lower, upper } => bounds[slot] = (lower, upper),
            }
        }
    }
    stats.elapsed = start.elapsed();
    if let Some(out) = &opts.stats {
        *out.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = stats;
    }
    if values.iter().all(Option::is_some) {
        return Ok(values.into_iter().flatten().collect());
    }
    // The position's value is the best of its actions' (or turns') values.
    let lower = bounds.iter().map(|b| b.0).max().unwrap_or(0);
    let upper = bounds.iter().map(|b| b.1).max().unwrap_or(0);
    Err(PartialAnalysis {
        found: values,
        error: SolveError::Stopped {
            lower,
            upper,
            stats,
        },
    })
}

/// The slots' items (`items[i]` goes with slot `i`) valued by `values`: all of them, or on a
/// stop those valued before it, in slot order.
fn pair<I, T>(
    items: Vec<I>,
    values: Result<Vec<i32>, PartialAnalysis<Option<i32>>>,
    make: impl Fn(I, i32) -> T,
) -> Result<Vec<T>, PartialAnalysis<T>> {
    match values {
        Ok(values) => Ok(items
            .into_iter()
            .zip(values)
            .map(|(item, v)| make(item, v))
            .collect()),
        Err(p) => Err(PartialAnalysis {
            found: items
                .into_iter()
                .zip(p.found)
                .filter_map(|(item, v)| v.map(|v| make(item, v)))
                .collect(),
            error: p.error,
        }),
    }
}

/// The rules shared by `solvers`, after checking that there is a solver and that they agree.
fn common_rules(solvers: &[Solver]) -> Rules {
    let Some(first) = solvers.first() else {
        panic!("a parallel analysis needs at least one solver");
    };
    let rules = *first.rules();
    assert!(
        solvers.iter().all(|s| *s.rules() == rules),
        "every solver of a parallel analysis must have the same rules"
    );
    rules
}

/// The jobs of a parallel analysis of `pos` ([`analyze_moves_parallel`], or with `turns`
/// [`analyze_turns_parallel`]): its legal actions, or whole turns, that need a search; those
/// that end the game are valued without one. More threads than jobs would idle. 0 if the game
/// is over (after settling `pos`).
pub fn search_jobs(pos: &Position, rules: &Rules, turns: bool) -> usize {
    let mut pos = *pos;
    pos.settle(rules);
    if turns {
        Turn::all(&pos, rules)
            .iter()
            .filter(|(_, end)| !end.is_over())
            .count()
    } else {
        pos.legal_moves(rules)
            .iter()
            .filter(|&&mv| {
                let mut child = pos;
                child.play_unchecked(rules, mv);
                !child.is_over()
            })
            .count()
    }
}

/// The exact value of every legal action of `pos` on `solvers.len()` threads: the same values in
/// the same order as [`Solver::analyze_moves`] (houses in increasing order, then `swap`; each
/// value the final store difference from the view of the side to move in `pos`, with perfect
/// play after the action). Empty if the game is over.
///
/// Each thread uses one of `solvers` (its transposition table, databases and limits); see
/// [`analyze_turns_parallel`] for how the work is shared, and for the stop and limits.
///
/// # Errors
/// [`SolveError::Stopped`] if the stop flag or a limit of any solver ends a search; see
/// [`analyze_turns_parallel`] for the bounds reported.
///
/// # Panics
/// If `solvers` is empty or their rules differ; if a worker thread panics, its panic goes on in
/// the calling thread.
pub fn analyze_moves_parallel(
    solvers: &mut [Solver],
    pos: &Position,
    opts: &ParallelOptions,
) -> Result<Vec<MoveScore>, SolveError> {
    analyze_moves_parallel_partial(solvers, pos, opts).map_err(|p| p.error)
}

/// [`analyze_moves_parallel`], keeping on a stop the actions valued before it (by any thread).
///
/// # Errors
/// [`PartialAnalysis`] if stopped: the actions valued before the stop, in legal-move order,
/// and the error [`analyze_moves_parallel`] gives.
///
/// # Panics
/// As [`analyze_moves_parallel`].
pub fn analyze_moves_parallel_partial(
    solvers: &mut [Solver],
    pos: &Position,
    opts: &ParallelOptions,
) -> Result<Vec<MoveScore>, PartialAnalysis<MoveScore>> {
    let rules = common_rules(solvers);
    let mut pos = *pos;
    pos.settle(&rules);
    if pos.is_over() {
        // No work, as the turns' analysis of a finished game reports it (tester 89: the
        // caller's statistics were left as they were).
        if let Some(out) = &opts.stats {
            *out.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Stats::default();
        }
        return Ok(Vec::new());
    }
    let moves: Vec<Move> = pos.legal_moves(&rules).iter().copied().collect();
    let slots: Vec<Slot> = moves
        .iter()
        .map(|&mv| {
            let mut child = pos;
            let out = child.play_unchecked(&rules, mv);
            // An extra turn keeps the same person to move; any other action (a swap too)
            // hands the move over.
            let sign = if out.extra_turn { 1 } else { -1 };
            if child.is_over() {
                Slot::Known(sign * child.store_diff(child.side()))
            } else {
                Slot::Search(Job { pos: child, sign })
            }
        })
        .collect();
    let values = run(solvers, &rules, &slots, opts);
    pair(moves, values, |mv, value| MoveScore { mv, value })
}

/// The exact value of every whole turn of `pos` (chains of extra turns expanded, as
/// [`Turn::all`] lists them) on `solvers.len()` threads: the same values in the same order as
/// [`Solver::analyze_turns`]. Each value is the final store difference from the view of the side
/// to move in `pos`, with perfect play after the turn; a turn that ends the game is valued by its
/// final store difference without a search. Empty if the game is over.
///
/// Every position after a turn that needs a search is a job, solved by [`Solver::value`] with one
/// of `solvers` per thread. Solvers made with [`Solver::with_shared_table`] share one transposition
/// table, so a position reached after two turns is proven once (solvers with tables of their own
/// work as well, with more work in all). A free thread takes the next job from a shared queue. With
/// two or more solvers the queue is ordered by a cheap estimate of each turn's value, a
/// depth-limited search of 8 plies with the first solver (about 2 ms a turn on Kalah(6,4)), worst
/// for the mover first: on Kalah(6,4) and (6,5) the turns that leave the opponent far ahead took
/// the most nodes (turn `1` of Kalah(6,4), value −14, alone ~40 % of the analysis), so they start
/// first and the small jobs fill in at the end. With one solver the jobs run in [`Turn::all`]
/// order, as in the sequential analysis. At most `min(solvers.len(), jobs)` threads are started.
///
/// A stop flag ([`ParallelOptions::stop`]) or a limit set on any solver
/// ([`Solver::set_limits`]) stops every thread. A node limit counts the nodes each solver
/// spends on the whole analysis (its jobs, and for the first solver the ordering searches), as
/// the one call of the sequential analysis does; a deadline is an instant, so it ends the
/// analysis as a whole. The solvers keep the limits they had.
///
/// # Errors
/// [`SolveError::Stopped`] if any job was not finished. Its bounds are those of the value of
/// `pos` itself, from the view of its side to move: the best of the turns' values, using for each
/// turn its exact value if solved, the bounds its search had proven if it was stopped, and
/// otherwise its futility bounds (store difference plus or minus the seeds in the houses). Its
/// statistics are the nodes and table hits of every thread (and of the ordering searches) and
/// the wall-clock time.
///
/// # Panics
/// If `solvers` is empty or their rules differ; if a worker thread panics, its panic goes on in
/// the calling thread.
pub fn analyze_turns_parallel(
    solvers: &mut [Solver],
    pos: &Position,
    opts: &ParallelOptions,
) -> Result<Vec<TurnScore>, SolveError> {
    analyze_turns_parallel_partial(solvers, pos, opts).map_err(|p| p.error)
}

/// [`analyze_turns_parallel`], keeping on a stop the turns valued before it (by any thread).
///
/// # Errors
/// [`PartialAnalysis`] if stopped: the turns valued before the stop, in [`Turn::all`] order,
/// and the error [`analyze_turns_parallel`] gives.
///
/// # Panics
/// As [`analyze_turns_parallel`].
pub fn analyze_turns_parallel_partial(
    solvers: &mut [Solver],
    pos: &Position,
    opts: &ParallelOptions,
) -> Result<Vec<TurnScore>, PartialAnalysis<TurnScore>> {
    let rules = common_rules(solvers);
    let mut pos = *pos;
    pos.settle(&rules);
    let mover = pos.side();
    let turns = Turn::all(&pos, &rules);
    let slots: Vec<Slot> = turns
        .iter()
        .map(|(_, end)| {
            if end.is_over() {
                Slot::Known(end.store_diff(mover))
            } else {
                // After a whole turn the other person moves (after a swap too).
                Slot::Search(Job {
                    pos: *end,
                    sign: -1,
                })
            }
        })
        .collect();
    let values = run(solvers, &rules, &slots, opts);
    pair(turns, values, |(turn, _), value| TurnScore { turn, value })
}
