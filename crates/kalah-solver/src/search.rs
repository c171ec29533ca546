//! Negamax alpha-beta on the future gain, MTD(f), iterative deepening, principal variation.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use kalah_core::{Move, Phase, Position, Rules, Turn};
use kalah_egdb::Egdb;
use serde::Serialize;

use crate::tt::{key_of, Busy, Entry, Key, Table, NO_MOVE};

/// Nodes between two checks of the stop flag, the clock and the node limit. 1024: a search that
/// starts on a fresh table spends its first nodes faulting in zeroed pages (up to ~0.1 ms a
/// node), and a stop must still act within about a tenth of a second; the check costs a few
/// nanoseconds per thousand nodes.
const POLL_MASK: u64 = 0x3FF;

/// Nodes between two looks at the clock when the search has a deadline (on top of the checks
/// above). 64: on a fresh table of gigabytes nearly every node of the first ones faults in a
/// zeroed huge page, about a millisecond each on a slow VM, so 1 024 nodes could overrun a
/// time limit by a second (tester 42: 4 GiB, 100 ms moves took 0.9-1.2 s). Node limits keep
/// the coarser check, so a search with a node limit stops where it always did.
const CLOCK_MASK: u64 = 0x3F;
/// The first nodes of every search look at the stop flags and the clock at each node (see
/// [`Solver::poll_cold`]): this many, plus [`COLD_NODES_PER_PAGE`] for each 2 MiB of table.
/// Until most of a fresh (or just cleared) table's huge pages are touched, nearly every node
/// faults in a zeroed page of 2 MiB (50-100 µs), so even 64 nodes overran a 10 ms limit by up to
/// 90 ms, and a stop took 0.7 s on a gigabyte's table (tester 96). A look costs about 25 ns:
/// 0.1 ms for 4 096 nodes.
const COLD_NODES: u64 = 4096;
/// See [`COLD_NODES`]: the nodes that touch most pages of a table of P huge pages at random,
/// about P ln P, with room.
const COLD_NODES_PER_PAGE: u64 = 12;
/// A table at least this large that a solver lets go of, used (replaced after a change of
/// rules or board size, see `Solver::begin`) or dropped with the solver (see `Drop for
/// Solver`), is freed on a thread of its own if no other solver shares it: freeing the touched
/// pages of 32 MiB took 5.7–8 ms, which every `/api/engine` request spent after its search
/// (tester 100), and gigabytes 3–13 ms before a search's first node (tester 97).
const FREE_ASIDE_BYTES: usize = 4 << 20;
/// Positions with fewer seeds in the houses are searched without the table.
const TT_MIN_SEEDS: i32 = 4;
/// Enhanced transposition cut-off only at nodes with at least this many seeds in the houses.
/// The cut-off probes wait on the children's table entries right after prefetching them, so
/// they pay only where a subtree saved is large: from 26 seeds, Kalah(6,4) takes 7–13 % less
/// time on one thread than from 12 (with 1.8 times the nodes); see docs/BENCHMARKS.md ("Cut-off
/// probes only near the root").
const ETC_MIN_SEEDS: i32 = 26;
/// Seeds in the houses from which the threads of a parallel solve tell each other which
/// positions they are searching (see [`Solver::solve_parallel`]); below, subtrees are too small
/// to be worth the bookkeeping.
const BUSY_MIN_SEEDS: i32 = 16;
/// Swap is encoded in the table's move field with this value (never stored: opening phases are
/// not stored, but used in child lists).
const SWAP: u8 = 12;

/// Counters of one search call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Positions visited (calls of the search function).
    pub nodes: u64,
    /// Transposition table probes that found the position.
    pub tt_hits: u64,
    /// Wall-clock time.
    #[serde(serialize_with = "ser_secs")]
    pub elapsed: Duration,
}

fn ser_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl Stats {
    /// Nodes per second (0 for an instant search).
    pub fn nodes_per_second(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.nodes as f64 / s
        } else {
            0.0
        }
    }
}

/// Progress of a long search: the value proven so far lies in `lower..=upper` (final store
/// difference from the view of the side to move in the searched position).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Proven lower bound of the value.
    pub lower: i32,
    /// Proven upper bound of the value.
    pub upper: i32,
    /// Nodes so far.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// Nodes per second so far.
    pub nodes_per_second: f64,
}

/// Limits on one search call. `None`: no limit.
///
/// The time limit is a deadline, an instant fixed when the limits are made
/// ([`SearchLimits::new`]), not a budget for each call: a solver keeps it for every later call
/// until [`Solver::set_limits`] changes it, and once it has passed, each call stops at once with
/// [`SolveError::Stopped`]. A program that searches once a move sets new limits before each
/// search (as `kalah-engine` does).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop after this many nodes. The count is checked every 1 024 nodes, so a search may go
    /// up to 1 024 nodes past it (a limit of 0 still searches 1 024).
    pub nodes: Option<u64>,
}

impl SearchLimits {
    /// Limits of `time` from now and `nodes` nodes. A time too long to be an instant (e.g.
    /// `Duration::MAX`) is no time limit.
    pub fn new(time: Option<Duration>, nodes: Option<u64>) -> SearchLimits {
        SearchLimits {
            deadline: time.and_then(|t| Instant::now().checked_add(t)),
            nodes,
        }
    }
}

/// Why a search gave no exact answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// Stopped by the stop flag or a limit. The value (final store difference, side to move's
    /// view) is proven to lie in `lower..=upper`.
    #[error("search stopped after {} nodes; the value lies between {lower:+} and {upper:+}", stats.nodes)]
    Stopped {
        /// Proven lower bound.
        lower: i32,
        /// Proven upper bound.
        upper: i32,
        /// Work done.
        stats: Stats,
    },
}

/// An analysis ([`Solver::analyze_moves_partial`], [`Solver::analyze_turns_partial`] and their
/// parallel forms) stopped before its end: what it had found, and the stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartialAnalysis<T> {
    /// The actions (or whole turns) valued before the stop, each exactly as the finished
    /// analysis would give it, in the order the finished analysis lists them (legal-move order;
    /// [`Turn::all`]'s for turns); those left out were not finished. Actions or turns that end
    /// the game are valued without a search and are always among them.
    pub found: Vec<T>,
    /// The stop: [`SolveError::Stopped`] with bounds of the value of the position analysed
    /// (side to move's view) and the work done.
    pub error: SolveError,
}

/// The exact solution of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Final store difference, side to move minus opponent, with perfect play (for a finished
    /// game: the final store difference from the view of the side that would have moved).
    pub value: i32,
    /// Every legal action of the side to move that keeps the value, in legal-move order. Empty for
    /// a finished game; empty for a game not over only when the endgame databases hold wrong
    /// values (damage a probe cannot see, see `Egdb::probe`): the value is then not to be trusted.
    pub best: Vec<Move>,
    /// A principal variation to the end of the game, starting with one of the `best` actions (the
    /// table's first choice); replaying it gives the final store difference `value` for the
    /// person to move now (who owns the other side after a pie-rule swap).
    pub pv: Vec<Move>,
    /// Work done.
    pub stats: Stats,
}

/// The exact value of a position and one principal variation, without the list of every best
/// action: [`Solver::prove`]'s result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// Final store difference, side to move minus opponent, with perfect play (as
    /// [`Solution::value`]).
    pub value: i32,
    /// A principal variation to the end of the game (as [`Solution::pv`]); its first action is a
    /// best action. Empty for a finished game, and for a game not over only when the endgame
    /// databases hold wrong values (see [`Solution::best`]).
    pub pv: Vec<Move>,
    /// Work done.
    pub stats: Stats,
}

impl From<Solution> for Proof {
    fn from(s: Solution) -> Proof {
        Proof {
            value: s.value,
            pv: s.pv,
            stats: s.stats,
        }
    }
}

/// The exact value of one action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MoveScore {
    /// The action.
    #[serde(rename = "move")]
    pub mv: Move,
    /// Final store difference from the view of the side to move **before** the action, with
    /// perfect play after it. For [`Move::Swap`] (the pie rule), the view of the person who
    /// swaps, who then owns South: minus the value of the swapped position for North, the side
    /// to move in it (see the crate documentation).
    pub value: i32,
}

/// The exact value of one whole turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TurnScore {
    /// The turn (a chain of extra-turn moves, `3-6`).
    #[serde(rename = "move")]
    pub turn: Turn,
    /// Final store difference from the view of the side to move before the turn.
    pub value: i32,
}

/// Result of a depth-limited search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepthResult {
    /// Estimated (or, if `exact`, proven) value: final store difference from the view of the side
    /// to move.
    pub value: i32,
    /// Whether `value` is proven: no estimate went into it (every line searched ended at a game
    /// end, a proven table entry, a database value or an exact futility bound, never at the
    /// horizon's evaluation or a heuristic table bound), or the table held the proven value of
    /// the position and a proven bound showing that one action reaches it (that action is then
    /// `best`, and `value` the proven value, even where the search's estimate differed).
    /// `best` is then a best action under perfect play.
    pub exact: bool,
    /// Best action found, `None` for a finished game.
    pub best: Option<Move>,
    /// Expected continuation (from the table), starting with `best`.
    pub pv: Vec<Move>,
    /// Deepest completed iteration, in plies (one sowing = one ply).
    pub depth: u32,
    /// Work done.
    pub stats: Stats,
}

type ProgressFn = Box<dyn FnMut(&Progress) + Send + Sync>;

/// A child of a node, with what the parent needs to turn the child's future gain into its own:
/// `g_parent = sign * g_child + c`.
#[derive(Clone, Copy)]
struct Kid {
    pos: Position,
    /// House index 0..m-1, or [`SWAP`].
    mv: u8,
    sign: i32,
    c: i32,
    over: bool,
    order: i64,
}

/// The children of a node, made in place and never moved: each child is sown straight into its
/// slot of `made` (legal-move order), and the search order is a list of indices into it.
/// Moving a child after its sowing read its freshly written bytes back as wider words, a
/// store-forwarding stall on every child (see docs/BENCHMARKS.md, "Children made in place").
struct Kids {
    /// The children in legal-move order: houses in increasing order, then a swap.
    made: ArrayVec<Kid, 13>,
    /// Indices into `made`, best first for the search.
    order: [u8; 13],
}

impl Kids {
    #[inline(always)]
    fn new() -> Kids {
        Kids {
            made: ArrayVec::new(),
            order: [0; 13],
        }
    }

    /// How many children.
    #[inline(always)]
    fn len(&self) -> usize {
        self.made.len()
    }

    /// The children in search order.
    #[inline(always)]
    fn iter(&self) -> impl Iterator<Item = &Kid> + '_ {
        self.order[..self.made.len()]
            .iter()
            .map(move |&i| &self.made[i as usize])
    }

    /// The children in legal-move order (houses in increasing order, then a swap).
    #[inline(always)]
    fn in_move_order(&self) -> impl Iterator<Item = &Kid> + '_ {
        self.made.iter()
    }
}

/// Lets go of `table`: if this is its last reference and it holds at least
/// [`FREE_ASIDE_BYTES`], frees it on a thread of its own; else drops the reference here. If no
/// thread can be made, the closure, and with it the table, is dropped here.
fn free_aside(table: Arc<Table>) {
    if table.bytes() < FREE_ASIDE_BYTES || Arc::strong_count(&table) > 1 {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("kalah-table-free".into())
        .spawn(move || {
            if let Ok(t) = Arc::try_unwrap(table) {
                t.release();
            }
        });
}

/// A table of the smallest size, never stored to, shared by every solver being dropped (see
/// `Drop for Solver`): it stands in for the table freed aside.
fn stand_in_table() -> Arc<Table> {
    static EMPTY: std::sync::OnceLock<Arc<Table>> = std::sync::OnceLock::new();
    Arc::clone(EMPTY.get_or_init(|| Arc::new(Table::new(0, 1))))
}

/// The search: rules, transposition table, optional endgame databases, limits and counters.
/// Reuse one solver for many positions of the same board size and rules to keep the table.
///
/// Positions are taken as given, under the solver's rules: an unswept finished game is swept
/// first ([`Position::settle`]), and a phase tag is read as those rules read it (an `opening`
/// or `pie` tag means nothing without the pie or Manchester rule, so such a position is solved
/// as a game past its opening). The solver does not refuse a tag its rules lack; front ends
/// that take positions from users check [`Position::phase_tag_problem`] first, as `kalah solve`
/// does.
pub struct Solver {
    rules: Rules,
    /// Shared with the solvers made by [`Solver::with_shared_table`].
    table: Arc<Table>,
    tt_mib: usize,
    egdb: Option<Arc<Egdb>>,
    egdb_max: i32,
    stop: Option<Arc<AtomicBool>>,
    limits: SearchLimits,
    progress: Option<ProgressFn>,
    with_store: bool,
    tt_min: i32,
    etc_min: i32,
    /// Node count at which the heuristic search for a first guess gives up (`aborted`).
    soft_limit: u64,
    /// The nodes of this search that look at the clock and the stop flags at each node (see
    /// [`COLD_NODES`]).
    cold_nodes: u64,
    aborted: bool,
    /// Whether the heuristic search has used an estimate since the flag was last cleared: a
    /// horizon's evaluation, or a table bound from an earlier heuristic search. While it stays
    /// clear, the heuristic search's value is proven.
    estimated: bool,
    /// History heuristic: cut-offs per board side and house, weighted by the seeds in play.
    history: [[u32; 12]; 2],
    c_shift: u32,
    nodes: u64,
    tt_hits: u64,
    stopped: bool,
    start: Instant,
    last_report: Instant,
    /// Root bounds (values) for progress reports.
    root_bounds: (i32, i32),
    /// MTD(f) passes of the last call: (beta, result, nodes); first guesses as (`i32::MIN`,
    /// guess, nodes). For tuning.
    passes: Vec<(i32, i32, u64)>,
    /// Set when another thread of [`Solver::solve_parallel`] has the value: stop like `stop`.
    race: Option<Arc<AtomicBool>>,
    /// The positions the threads of a parallel solve are searching right now: set only during
    /// [`Solver::solve_parallel`].
    busy: Option<Arc<Busy>>,
    /// The nodes of every thread of a [`Solver::solve_parallel`]: each adds its own as it goes
    /// (at each poll), and progress reports show the total.
    team_nodes: Option<Arc<AtomicU64>>,
    /// Nodes of this search already added to `team_nodes`.
    sunk: u64,
    /// The helper threads' nodes and table hits of the last [`Solver::solve_parallel`]: in the
    /// statistics, but not in `nodes`, which a node limit counts (one thread's work).
    helper_nodes: u64,
    helper_hits: u64,
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("rules", &self.rules)
            .field("table", &self.table)
            .field("egdb", &self.egdb.is_some())
            .finish()
    }
}

/// A table of at least 4 MiB that this solver alone holds is freed on a thread of its own
/// (`free_aside`), so that dropping a solver (an engine per web request, per game of a match)
/// does not spend milliseconds handing its pages back.
impl Drop for Solver {
    fn drop(&mut self) {
        free_aside(std::mem::replace(&mut self.table, stand_in_table()));
    }
}

impl Solver {
    /// A solver for `rules` with a transposition table of about `tt_mib` MiB (at least 1). The
    /// table memory is allocated zeroed, so pages are only committed when used. If the system
    /// refuses that much memory, the table is halved until it is granted:
    /// [`Solver::table_bytes`] says what was obtained. The system may grant more address space
    /// than it has memory (Linux lets a 16 GiB table be allocated on a 23 GiB machine whatever
    /// was asked, and overcommits): a table larger than the free memory fills it as the search
    /// goes, until the system runs out. Ask for at most the memory you can spare (`kalah solve`
    /// refuses a `--tt-mb` above the machine's memory).
    ///
    /// # Panics
    /// Aborts (the allocation error handler) only if not even a 512 KiB table can be allocated.
    pub fn new(rules: Rules, tt_mib: usize) -> Solver {
        Solver::new_with_table(rules, tt_mib, Arc::new(Table::new(tt_mib, 6)))
    }

    fn new_with_table(rules: Rules, tt_mib: usize, table: Arc<Table>) -> Solver {
        Solver {
            rules,
            table,
            tt_mib,
            egdb: None,
            egdb_max: -1,
            stop: None,
            limits: SearchLimits::default(),
            progress: None,
            with_store: rules.outcome_depends_on_stores(),
            tt_min: TT_MIN_SEEDS,
            etc_min: ETC_MIN_SEEDS,
            soft_limit: u64::MAX,
            cold_nodes: COLD_NODES,
            aborted: false,
            estimated: false,
            history: [[0; 12]; 2],
            c_shift: 24,
            nodes: 0,
            tt_hits: 0,
            stopped: false,
            start: Instant::now(),
            last_report: Instant::now(),
            root_bounds: (0, 0),
            passes: Vec::new(),
            race: None,
            busy: None,
            team_nodes: None,
            sunk: 0,
            helper_nodes: 0,
            helper_hits: 0,
        }
    }

    /// Tuning knobs for experiments: the fewest seeds in the houses for a table probe and for
    /// an enhanced transposition cut-off.
    #[doc(hidden)]
    pub fn tune(&mut self, tt_min: i32, etc_min: i32, c_shift: u32) {
        self.tt_min = tt_min;
        self.etc_min = etc_min;
        self.c_shift = c_shift;
    }

    /// Uses `egdb` for positions it covers: only when its rules equal the solver's, the rules do
    /// not depend on the stores, the board size matches and the position is in the normal phase.
    pub fn with_egdb(mut self, egdb: Arc<Egdb>) -> Solver {
        self.egdb = Some(egdb);
        self
    }

    /// The endgame databases this solver probes, if any.
    pub fn egdb(&self) -> Option<&Arc<Egdb>> {
        self.egdb.as_ref()
    }

    /// Sets or removes the endgame databases (see [`Solver::with_egdb`]).
    pub fn set_egdb(&mut self, egdb: Option<Arc<Egdb>>) {
        self.egdb = egdb;
    }

    /// The rules searched under.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Changes the rules. The table's entries of the old rules are dropped at the next search
    /// (a table shared with other solvers is left to them and this solver gets a fresh one).
    /// The same happens when a search meets another board size, or, under the majority end,
    /// another total of seeds (the key holds the houses and the mover's store, not the total).
    /// The search then gets a fresh table of the same size (the used one is freed on another
    /// thread), whose pages come as it touches them: with a table of hundreds of MiB or more
    /// (huge pages), each of the first nodes may cost 0.1-0.5 ms, so a search under a limit
    /// of a few milliseconds may stop before it has solved even a small position.
    pub fn set_rules(&mut self, rules: Rules) {
        if rules != self.rules {
            self.rules = rules;
            self.with_store = rules.outcome_depends_on_stores();
        }
    }

    /// A new solver with the same rules, endgame databases and tuning that **shares this
    /// solver's transposition table**, for searching on another thread at the same time (each
    /// solver keeps its own counters, history, limits, stop flag and progress callback: none are
    /// set). What one solver proves, the others find in the table; every entry is a proven bound
    /// of its own position, so sharing can never give a wrong value. A solver that changes its
    /// rules or board size leaves the shared table and continues with a fresh one of the same
    /// size. [`Solver::clear_table`] clears the table for every solver sharing it.
    pub fn with_shared_table(&self) -> Solver {
        let mut s = Solver::new_with_table(self.rules, self.tt_mib, Arc::clone(&self.table));
        s.egdb = self.egdb.clone();
        s.tt_min = self.tt_min;
        s.etc_min = self.etc_min;
        s.c_shift = self.c_shift;
        s
    }

    /// Whether this solver shares its transposition table with another solver.
    pub fn shares_table(&self) -> bool {
        Arc::strong_count(&self.table) > 1
    }

    /// Size of the transposition table in bytes.
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// Empties the transposition table (for every solver sharing it; call it only while none of
    /// them is searching, or their entries survive at random: none would be wrong).
    pub fn clear_table(&mut self) {
        self.table.clear();
    }

    /// A flag that stops the search when set (e.g. from a Ctrl-C handler). The search then
    /// returns [`SolveError::Stopped`] with the bounds proven so far.
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.stop = Some(flag);
    }

    /// Limits for the following calls (until changed). The time limit is the deadline of
    /// `limits` (see [`SearchLimits`]): set new limits before each search that needs a time
    /// budget of its own.
    pub fn set_limits(&mut self, limits: SearchLimits) {
        self.limits = limits;
    }

    /// The limits set by [`Self::set_limits`] (none by default).
    pub fn limits(&self) -> SearchLimits {
        self.limits
    }

    /// A callback called with the bounds proven so far during a search: about twice a second
    /// (the first call half a second after the search began, so a search that ends sooner
    /// makes none), and from the first second on also whenever the root bounds improve. A front
    /// end that shows progress only for long searches checks [`Progress::elapsed`] (`kalah`
    /// shows it from one second on).
    pub fn set_progress(&mut self, f: impl FnMut(&Progress) + Send + Sync + 'static) {
        self.progress = Some(Box::new(f));
    }

    fn begin(&mut self, pos: &Position) {
        // The time of the call includes claiming the table (a fresh one after a change of rules).
        self.start = Instant::now();
        let m = pos.houses();
        let total = pos.total_seeds() as usize;
        if !self.table.claim(&self.rules, m, total) {
            // Entries of other rules or another board size, or keys too long for the slots:
            // a fresh table. An untouched one no one else uses is claimed as it is. A used one
            // is replaced by a new one, whose pages come as the search touches them, and freed
            // on another thread if it is large: freeing gigabytes of pages takes 3-13 ms, which
            // a time limit of a few ms would spend before the first node (tester 97).
            if !self.shares_table() && self.table.fits(m) && !self.table.is_dirty() {
                self.table.reclaim(&self.rules, m, total);
            } else {
                let t = Table::new(self.tt_mib, m);
                t.reclaim(&self.rules, m, total);
                free_aside(std::mem::replace(&mut self.table, Arc::new(t)));
            }
        }
        self.egdb_max = match &self.egdb {
            Some(db) if db.houses() == m && db.serves(&self.rules) => db.max_seeds() as i32,
            _ => -1,
        };
        self.cold_nodes = COLD_NODES + (self.table.bytes() >> 21) as u64 * COLD_NODES_PER_PAGE;
        self.nodes = 0;
        self.sunk = 0;
        self.helper_nodes = 0;
        self.helper_hits = 0;
        self.tt_hits = 0;
        self.passes.clear();
        self.history = [[0; 12]; 2];
        self.stopped = false;
        self.last_report = self.start;
    }
}

/// The sign and offset turning a child's future gain into the parent's (`sign * g + c`), see
/// [`Kid`]. An extra turn keeps the same person to move (sign +1); any other action, including a
/// pie-rule swap, hands the move to the other person (sign -1).
#[inline]
fn relation(parent_diff: i32, child: &Position, extra_turn: bool) -> (i32, i32) {
    let sign = if extra_turn { 1 } else { -1 };
    (sign, sign * child.store_diff(child.side()) - parent_diff)
}

/// Bounds of the value of `pos` (final store difference for the side to move) that the seeds in
/// play alone give, before any search: its store difference `d` plus or minus the `s` seeds in
/// the houses; under the pie rule, before North's choice, a swap may turn `d` around, so
/// `-|d| - s ..= |d| + s`. Bounds a search proves are these or tighter.
pub fn seed_bounds(pos: &Position, rules: &Rules) -> (i32, i32) {
    let d = pos.store_diff(pos.side());
    let s = pos.seeds_in_houses() as i32;
    if rules.pie && pos.phase() != Phase::Normal {
        (-d.abs() - s, d.abs() + s)
    } else {
        (d - s, d + s)
    }
}

/// Bounds of the value of an action or turn that leads to `child`, from the view of the side
/// to move before it (`same_side`: `child`'s mover; else its opponent), from the seeds in play
/// alone ([`seed_bounds`]): how an analysis bounds the actions it has not searched.
pub(crate) fn child_seed_bounds(child: &Position, rules: &Rules, same_side: bool) -> (i32, i32) {
    let (lo, hi) = seed_bounds(child, rules);
    if same_side {
        (lo, hi)
    } else {
        (-hi, -lo)
    }
}

/// The value (final store difference for the side to move) of a position whose future gain is
/// `g`.
#[inline]
fn value_of(pos: &Position, g: i32) -> i32 {
    pos.store_diff(pos.side()) + g
}

impl Solver {
    /// Every 64 nodes: [`Self::poll`] every 1 024, the clock alone between them if there is a
    /// deadline.
    #[inline]
    fn poll_often(&mut self) {
        if self.nodes & POLL_MASK == 0 {
            self.poll();
        } else if self.past_deadline(Instant::now()) {
            self.stopped = true;
        }
    }

    /// Whether the stop flag or the race flag (another thread of a parallel solve finished) is
    /// set.
    fn flagged(&self) -> bool {
        let set =
            |f: &Option<Arc<AtomicBool>>| f.as_ref().is_some_and(|f| f.load(Ordering::Relaxed));
        set(&self.stop) || set(&self.race)
    }

    /// Whether the time limit's deadline, if any, is at or before `now`.
    fn past_deadline(&self, now: Instant) -> bool {
        self.limits.deadline.is_some_and(|d| now >= d)
    }

    /// The first nodes of a search (see [`COLD_NODES`]): the stop flags and the deadline, not
    /// the node limit (a search with a node limit stops where it always did) nor the progress.
    #[cold]
    #[inline(never)]
    fn poll_cold(&mut self) {
        if self.flagged() || self.past_deadline(Instant::now()) {
            self.stopped = true;
        }
    }

    /// Checks the stop flag, the limits and the progress clock.
    #[cold]
    fn poll(&mut self) {
        if self.flagged() {
            self.stopped = true;
        }
        if let Some(team) = &self.team_nodes {
            team.fetch_add(self.nodes - self.sunk, Ordering::Relaxed);
            self.sunk = self.nodes;
        }
        if let Some(max) = self.limits.nodes {
            if self.nodes >= max {
                self.stopped = true;
            }
        }
        let now = Instant::now();
        if self.past_deadline(now) {
            self.stopped = true;
        }
        if self.progress.is_some()
            && now.duration_since(self.last_report) >= Duration::from_millis(500)
        {
            self.report();
        }
    }

    fn report(&mut self) {
        let now = Instant::now();
        self.last_report = now;
        let mut stats = self.stats();
        if let Some(team) = &self.team_nodes {
            // Every thread of a parallel solve: the others' nodes up to their last poll.
            stats.nodes += team.load(Ordering::Relaxed) - self.sunk;
        }
        let p = Progress {
            lower: self.root_bounds.0,
            upper: self.root_bounds.1,
            nodes: stats.nodes,
            elapsed: stats.elapsed,
            nodes_per_second: stats.nodes_per_second(),
        };
        if let Some(f) = self.progress.as_mut() {
            f(&p);
        }
    }

    fn stats(&self) -> Stats {
        Stats {
            nodes: self.nodes + self.helper_nodes,
            tt_hits: self.tt_hits + self.helper_hits,
            elapsed: self.start.elapsed(),
        }
    }

    /// The children of `pos` (not over), ordered best-first for the search: `tt_mv` (a table
    /// move, or [`NO_MOVE`]), then finished games, then extra-turn moves (nearest the store
    /// first), then by immediate gain (captures) and the history heuristic.
    #[inline]
    fn children(&self, pos: &Position, tt_mv: u8, kids: &mut Kids) {
        let d0 = pos.store_diff(pos.side());
        let mask = pos.legal_houses();
        let m = pos.houses();
        let side = pos.side().index();
        let list = &mut kids.made;
        debug_assert!(mask >> m == 0);
        let mut rest = mask;
        while rest != 0 {
            let h = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            list.push(Kid {
                pos: *pos,
                mv: h as u8,
                sign: 0,
                c: 0,
                over: false,
                order: 0,
            });
            let kid = list.last_mut().expect("just pushed");
            let out = pos.sow_into(&mut kid.pos, &self.rules, h + 1);
            let (sign, c) = relation(d0, &kid.pos, out.extra_turn);
            let over = kid.pos.is_over();
            let hist = self.history[side][h] as i64;
            let mut order = ((c as i64) << self.c_shift) + hist;
            if over {
                order += 1 << 42;
            } else if out.extra_turn {
                order += (1 << 40) + ((h as i64) << 32);
            }
            if h as u8 == tt_mv {
                order += 1 << 44;
            }
            kid.sign = sign;
            kid.c = c;
            kid.over = over;
            kid.order = order;
        }
        if pos.can_swap(&self.rules) {
            let mut child = *pos;
            child.play_unchecked(&self.rules, Move::Swap);
            let (sign, c) = relation(d0, &child, false);
            list.push(Kid {
                pos: child,
                mv: SWAP,
                sign,
                c,
                over: false,
                order: (c as i64) << self.c_shift,
            });
        }
        // Insertion sort of the indices, highest order first (stable: legal-move order among
        // equals).
        let n = list.len();
        let order = &mut kids.order;
        for i in 0..n {
            let key = list[i].order;
            let mut j = i;
            while j > 0 && list[order[j - 1] as usize].order < key {
                order[j] = order[j - 1];
                j -= 1;
            }
            order[j] = i as u8;
        }
    }

    /// Exact bounds on the future gain of `pos` holding `seeds` seeds in its houses: within ± the
    /// seeds in play, except before the pie-rule choice, where a swap turns the current store
    /// difference d around (the gain after a swap lies within -2d ± the seeds).
    #[inline]
    fn futility(&self, pos: &Position, seeds: i32) -> (i32, i32) {
        if self.rules.pie && pos.phase() != Phase::Normal {
            let d = pos.store_diff(pos.side()).abs();
            (-2 * d - seeds, 2 * d + seeds)
        } else {
            (-seeds, seeds)
        }
    }

    /// Credits a cut-off to a house in the history table.
    #[inline]
    fn reward(&mut self, side: usize, house: usize, seeds: i32) {
        let h = &mut self.history[side][house];
        *h += (seeds * seeds) as u32;
        if *h >= 1 << 22 {
            for row in self.history.iter_mut() {
                for x in row.iter_mut() {
                    *x >>= 1;
                }
            }
        }
    }

    #[inline]
    fn probe_egdb(&self, pos: &Position, seeds: i32) -> Option<i32> {
        if seeds <= self.egdb_max && pos.phase() == Phase::Normal {
            self.egdb.as_ref()?.probe(pos, &self.rules)
        } else {
            None
        }
    }

    /// The table key of `pos` holding `seeds` seeds in its houses, or `None` if it is not
    /// stored: too few seeds, an opening phase, or a position the endgame databases answer
    /// (every normal-phase position of at most `egdb_max` seeds).
    #[inline]
    fn key(&self, pos: &Position, seeds: i32) -> Option<Key> {
        if seeds >= self.tt_min && seeds > self.egdb_max && pos.phase() == Phase::Normal {
            Some(key_of(pos, self.with_store))
        } else {
            None
        }
    }

    /// Exact fail-soft alpha-beta on the future gain of the side to move of `pos` (a position
    /// not over). The result `v` satisfies: `v <= alpha` → g ≤ v; `v >= beta` → g ≥ v; else g = v.
    ///
    /// `known`: the table key of `pos` (see [`Self::key`]) if the caller computed it.
    fn exact(&mut self, pos: &Position, alpha: i32, beta: i32, known: Option<Option<Key>>) -> i32 {
        self.nodes += 1;
        if self.nodes & CLOCK_MASK == 0 {
            self.poll_often();
        } else if self.nodes < self.cold_nodes {
            self.poll_cold();
        }
        if self.stopped {
            return 0;
        }
        let seeds = pos.seeds_in_houses() as i32;
        let (mut lo, mut hi) = self.futility(pos, seeds);
        if lo >= beta {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        if let Some(g) = self.probe_egdb(pos, seeds) {
            return g;
        }
        let key = match known {
            Some(k) => k,
            None => self.key(pos, seeds),
        };
        if let Some(k) = &key {
            if let Some(e) = self.table.probe(k) {
                self.tt_hits += 1;
                if e.exact {
                    lo = lo.max(e.lo);
                    hi = hi.min(e.hi);
                    if lo >= beta || lo == hi {
                        return lo;
                    }
                    if hi <= alpha {
                        return hi;
                    }
                }
            }
        }
        let a = alpha.max(lo);
        let b = beta.min(hi);
        let nodes0 = self.nodes;
        let mut best = i32::MIN;
        let mut best_mv = NO_MOVE;
        // The table's move is not tried first: it was stored by an earlier MTD(f) pass with
        // another bound, and the static order (game-ending moves, extra turns, captures,
        // history) finds cheaper cut-offs; see docs/BENCHMARKS.md ("table move").
        let mut kids = Kids::new();
        self.children(pos, NO_MOVE, &mut kids);
        // The children's keys, computed once for the prefetch and the cut-off probes.
        // Without the cut-off probes below, a child whose futility bounds (its immediate gain ±
        // its seeds, seen from here) lie outside the window returns at its futility check,
        // before its probe: it needs no key and no prefetch. (With the probes, its table entry
        // may hold tighter bounds, which make this node's fail-soft result tighter.)
        let etc = key.is_some() && seeds >= self.etc_min;
        let mut ckeys = ArrayVec::<Option<Option<Key>>, 13>::new();
        for kid in kids.iter() {
            let mut ck = None;
            if !kid.over {
                let s = kid.pos.seeds_in_houses() as i32;
                if etc || (kid.c + s > a && kid.c - s < b) {
                    let k = self.key(&kid.pos, s);
                    if let Some(k) = &k {
                        self.table.prefetch(k);
                    }
                    ck = Some(k);
                }
            }
            ckeys.push(ck);
        }

        // Enhanced transposition cut-off: a child's proven bounds (from the table, or its exact
        // value from the endgame databases, which answer every normal-phase position they
        // cover) may already refute this node. The bounds, seen from this node as
        // `(lower, upper)`, are kept to skip children that cannot raise the result (below).
        // (Read only at nodes that make the probes.)
        let mut kid_bounds = [(i32::MIN, i32::MAX); 13];
        if etc {
            for (i, (kid, ck)) in kids.iter().zip(&ckeys).enumerate() {
                if let Some((blo, bhi)) = self.kid_proven_bounds(kid, ck.flatten()) {
                    kid_bounds[i] = (blo, bhi);
                    if blo >= b {
                        best = blo;
                        best_mv = kid.mv;
                        break;
                    }
                }
            }
        }

        // In a parallel solve, a child another thread is searching right now is put off until
        // the other children are searched (simplified ABDADA): by then its value is usually in
        // the table. The first child searched never waits.
        let share = seeds >= BUSY_MIN_SEEDS && self.busy.is_some();
        // Bit i: child i (in search order) was put off.
        let mut put_off = 0u16;
        let mut searched = false;
        'passes: for pass in 0..2 {
            if best >= b || (pass == 1 && put_off == 0) {
                break;
            }
            for (ki, kid) in kids.iter().enumerate() {
                if pass == 1 && put_off & (1 << ki) == 0 {
                    continue;
                }
                // A child whose proven upper bound cannot raise the result past max(a, best)
                // needs no search: the node's fail-soft result stays an upper bound (if it
                // fails low, every child's gain is at most the largest of the bounds taken) or
                // is unchanged (the bound is at most `best`); a child of known exact gain
                // counts as searched.
                if etc {
                    let (blo, bhi) = kid_bounds[ki];
                    if !kid.over && (bhi <= a.max(best) || blo == bhi) {
                        if bhi > best {
                            best = bhi;
                            best_mv = kid.mv;
                            if best >= b {
                                break 'passes;
                            }
                        }
                        continue;
                    }
                }
                let busy_key = if share { ckeys[ki].flatten() } else { None };
                let mark = match (&self.busy, busy_key) {
                    (Some(busy), Some(k)) => {
                        let h = k.hash64();
                        if pass == 0 && searched && busy.contains(h) {
                            put_off |= 1 << ki;
                            continue;
                        }
                        busy.mark(h);
                        Some(h)
                    }
                    _ => None,
                };
                let g = self.kid_gain(kid, a.max(best), b, ckeys[ki]);
                if let (Some(h), Some(busy)) = (mark, &self.busy) {
                    busy.unmark(h);
                }
                searched = true;
                let Some(g) = g else {
                    return 0;
                };
                if g > best {
                    best = g;
                    best_mv = kid.mv;
                    if best >= b {
                        if kid.mv != SWAP {
                            self.reward(pos.side().index(), kid.mv as usize, seeds);
                        }
                        break 'passes;
                    }
                }
            }
        }

        if let Some(k) = &key {
            self.store_exact(k, lo, hi, a, b, best, best_mv, nodes0);
        }
        best
    }

    /// The future gain of `kid`'s parent through `kid` (`sign * g + c`), searched by [`Self::exact`]
    /// in the parent's window `a..b` with the same fail-soft meaning; a finished child gives `c`.
    /// `None` if the search was stopped.
    #[inline]
    fn kid_gain(&mut self, kid: &Kid, a: i32, b: i32, known: Option<Option<Key>>) -> Option<i32> {
        if kid.over {
            return Some(kid.c);
        }
        let v = if kid.sign > 0 {
            self.exact(&kid.pos, a - kid.c, b - kid.c, known)
        } else {
            self.exact(&kid.pos, kid.c - b, kid.c - a, known)
        };
        (!self.stopped).then_some(kid.sign * v + kid.c)
    }

    /// Stores the result `best` of an exact search in the window `a..b` (the node's proven
    /// bounds before the search: `lo..=hi`).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn store_exact(
        &mut self,
        k: &Key,
        lo: i32,
        hi: i32,
        a: i32,
        b: i32,
        best: i32,
        best_mv: u8,
        nodes0: u64,
    ) {
        let (nlo, nhi) = if best >= b {
            (best.max(lo), hi)
        } else if best <= a {
            (lo, best.min(hi))
        } else {
            (best, best)
        };
        let work = 64 - (self.nodes - nodes0 + 1).leading_zeros();
        self.table.store(
            k,
            Entry {
                lo: nlo,
                hi: nhi,
                // A node that failed low has no best move to remember (a move stored by an
                // earlier cut-off is kept, see `merge`).
                mv: if best_mv == SWAP || best <= a {
                    NO_MOVE
                } else {
                    best_mv
                },
                exact: true,
                draft: work as u8,
            },
        );
    }

    /// Depth-limited fail-soft alpha-beta on the future gain with a heuristic evaluation at the
    /// horizon (future gain 0: the current store difference). Proven table entries and the
    /// endgame databases are used as such.
    fn heuristic(&mut self, pos: &Position, depth: i32, alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes & CLOCK_MASK == 0 {
            self.poll_often();
        } else if self.nodes < self.cold_nodes {
            self.poll_cold();
        }
        if self.nodes >= self.soft_limit {
            self.aborted = true;
        }
        if self.stopped || self.aborted {
            return 0;
        }
        let seeds = pos.seeds_in_houses() as i32;
        let (mut lo, mut hi) = self.futility(pos, seeds);
        if lo >= beta {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        if let Some(g) = self.probe_egdb(pos, seeds) {
            return g;
        }
        let key = self.key(pos, seeds);
        let mut tt_mv = NO_MOVE;
        if let Some(k) = &key {
            if let Some(e) = self.table.probe(k) {
                self.tt_hits += 1;
                tt_mv = e.mv;
                if e.exact || e.draft as i32 >= depth {
                    self.estimated |= !e.exact;
                    lo = lo.max(e.lo);
                    hi = hi.min(e.hi);
                    if lo >= beta || lo >= hi {
                        return lo;
                    }
                    if hi <= alpha {
                        return hi;
                    }
                }
            }
        }
        if depth <= 0 {
            self.estimated = true;
            return evaluate(pos).clamp(lo, hi);
        }
        let a = alpha.max(lo);
        let b = beta.min(hi);
        let mut kids = Kids::new();
        self.children(pos, tt_mv, &mut kids);
        let mut best = i32::MIN;
        let mut best_mv = NO_MOVE;
        for kid in kids.iter() {
            let g = if kid.over {
                kid.c
            } else {
                let a2 = a.max(best);
                let v = if kid.sign > 0 {
                    self.heuristic(&kid.pos, depth - 1, a2 - kid.c, b - kid.c)
                } else {
                    self.heuristic(&kid.pos, depth - 1, kid.c - b, kid.c - a2)
                };
                if self.stopped || self.aborted {
                    return 0;
                }
                kid.sign * v + kid.c
            };
            if g > best {
                best = g;
                best_mv = kid.mv;
                if best >= b {
                    break;
                }
            }
        }
        if let Some(k) = &key {
            let (nlo, nhi) = if best >= b {
                (best.max(lo), hi)
            } else if best <= a {
                (lo, best.min(hi))
            } else {
                (best, best)
            };
            self.table.store(
                k,
                Entry {
                    lo: nlo.clamp(-255, 255),
                    hi: nhi.clamp(-255, 255),
                    mv: if best_mv == SWAP { NO_MOVE } else { best_mv },
                    exact: false,
                    draft: depth.clamp(0, 63) as u8,
                },
            );
        }
        best
    }
}

/// Heuristic future gain at the horizon: 0, so the estimate of the value is the current store
/// difference (the classic Kalah evaluation).
#[inline]
fn evaluate(_pos: &Position) -> i32 {
    0
}

/// The most threads of one parallel solve ([`Solver::solve_parallel`]); more are lowered to it
/// (each thread is an operating-system thread with its own stack; tens of thousands fail to
/// start, and past the cores they only slow the search down).
pub const MAX_THREADS: usize = 256;

/// The deepest depth-limited search, in plies ([`Solver::search_depth`]): far beyond any
/// search that finishes (a depth of a few dozen plies takes seconds on Kalah(6,4)), and small
/// enough for the depth arithmetic.
pub const MAX_DEPTH: u32 = 10_000;

fn kid_move(mv: u8) -> Move {
    if mv == SWAP {
        Move::Swap
    } else {
        Move::Sow(mv + 1)
    }
}

/// Nodes spent on iterative deepening for MTD(f)'s first guess.
pub(crate) const GUESS_NODES: u64 = 200_000;

/// Nodes an analysis spends on first guesses in all, shared among the positions it solves (see
/// [`guess_budget`]).
const ANALYSIS_GUESS_NODES: u64 = 2_000_000;

/// The smallest first-guess budget of a position an analysis solves.
const MIN_GUESS_NODES: u64 = 1_000;

/// The first-guess budget of each of the `jobs` positions an analysis solves: at most `cap`, and
/// less when there are many, so that the guesses of the whole analysis take about
/// [`ANALYSIS_GUESS_NODES`] (at least [`MIN_GUESS_NODES`] each). A position with hundreds of whole
/// turns (long chains of extra turns) leaves small positions after them, which MTD(f) proves in
/// fewer nodes than a full guess would take: `6,5,4,3,2,1,0,1,1,1,1,1,1,0 S` has 912 turns, and
/// `kalah analyze --turns --threads 1` on it took 3.7 s with 50 000 nodes a guess and 0.85 s
/// with this budget (docs/BENCHMARKS.md). Start positions have a few dozen turns at most and keep
/// `cap`.
pub(crate) fn guess_budget(jobs: usize, cap: u64) -> u64 {
    (ANALYSIS_GUESS_NODES / jobs.max(1) as u64).clamp(MIN_GUESS_NODES.min(cap), cap)
}

impl Solver {
    fn stopped_error(&self, pos: &Position, lo: i32, hi: i32) -> SolveError {
        SolveError::Stopped {
            lower: value_of(pos, lo),
            upper: value_of(pos, hi),
            stats: self.stats(),
        }
    }

    fn settled(&self, pos: &Position) -> Position {
        let mut p = *pos;
        p.settle(&self.rules);
        p
    }

    /// Whether the future gain of `pos` (not over) is at least `t`.
    fn at_least(&mut self, pos: &Position, t: i32) -> Result<bool, SolveError> {
        let v = self.exact(pos, t - 1, t, None);
        if self.stopped {
            return Err(self.stopped_error(pos, -255, 255));
        }
        Ok(v >= t)
    }

    /// Whether `kid`'s future gain seen from its parent reaches `g` (the parent's future gain).
    fn kid_reaches(&mut self, kid: &Kid, g: i32) -> Result<bool, SolveError> {
        if kid.over {
            return Ok(kid.c >= g);
        }
        if kid.sign > 0 {
            self.at_least(&kid.pos, g - kid.c)
        } else {
            Ok(!self.at_least(&kid.pos, kid.c - g + 1)?)
        }
    }

    /// MTD(f): the exact future gain of `pos` (not over) from the first guess `guess`.
    fn mtdf(&mut self, pos: &Position, guess: i32) -> Result<i32, SolveError> {
        let seeds = pos.seeds_in_houses() as i32;
        let (mut lower, mut upper) = self.futility(pos, seeds);
        if let Some(k) = self.key(pos, seeds) {
            if let Some(e) = self.table.probe(&k) {
                if e.exact {
                    lower = lower.max(e.lo);
                    upper = upper.min(e.hi);
                }
            }
        }
        self.root_bounds = (value_of(pos, lower), value_of(pos, upper));
        let mut g = guess.clamp(lower, upper);
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            let n0 = self.nodes;
            let v = self.exact(pos, beta - 1, beta, None);
            self.passes.push((beta, v, self.nodes - n0));
            if self.stopped {
                return Err(self.stopped_error(pos, lower, upper));
            }
            if v < beta {
                upper = v;
            } else {
                lower = v;
            }
            g = v;
            self.root_bounds = (value_of(pos, lower), value_of(pos, upper));
            if self.progress.is_some() && self.start.elapsed() >= Duration::from_secs(1) {
                self.report();
            }
        }
        Ok(lower)
    }

    /// Iterative deepening on `pos` (not over) for a first guess of its future gain.
    fn first_guess(&mut self, pos: &Position, budget: u64) -> Result<i32, SolveError> {
        let seeds = pos.seeds_in_houses() as i32;
        let n0 = self.nodes;
        let mut guess = 0;
        let mut depth = 1;
        self.soft_limit = n0 + budget;
        while self.nodes - n0 < budget && depth <= 2 * seeds + 2 {
            let (lo, hi) = self.futility(pos, seeds);
            let g = self.heuristic(pos, depth, lo - 1, hi + 1);
            if self.stopped {
                self.soft_limit = u64::MAX;
                return Err(self.stopped_error(pos, lo, hi));
            }
            if self.aborted {
                break;
            }
            guess = g;
            depth += 1;
        }
        self.soft_limit = u64::MAX;
        self.aborted = false;
        Ok(guess)
    }

    /// The exact future gain of `pos` (not over): from the table if proven there, else MTD(f).
    fn exact_gain(&mut self, pos: &Position, budget: u64) -> Result<i32, SolveError> {
        let seeds = pos.seeds_in_houses() as i32;
        // Progress reports show these until MTD(f) narrows them (not a previous search's).
        let (lo, hi) = self.futility(pos, seeds);
        self.root_bounds = (value_of(pos, lo), value_of(pos, hi));
        if let Some(k) = self.key(pos, seeds) {
            if let Some(e) = self.table.probe(&k) {
                if e.exact && e.lo == e.hi {
                    return Ok(e.lo);
                }
            }
        }
        let n0 = self.nodes;
        let guess = self.first_guess(pos, budget)?;
        self.passes.push((i32::MIN, guess, self.nodes - n0));
        self.mtdf(pos, guess)
    }

    /// The exact value of `pos`: final store difference, side to move minus opponent, with
    /// perfect play. A position whose game is over (by the rules, swept or not) gives its final
    /// store difference from the view of the side that would have moved.
    ///
    /// # Errors
    /// [`SolveError::Stopped`] with the bounds proven so far if the stop flag or a limit ends the
    /// search.
    pub fn value(&mut self, pos: &Position) -> Result<i32, SolveError> {
        self.value_with_guess(pos, GUESS_NODES)
    }

    /// [`Solver::value`] with `budget` nodes for MTD(f)'s first guess instead of the default.
    pub(crate) fn value_with_guess(
        &mut self,
        pos: &Position,
        budget: u64,
    ) -> Result<i32, SolveError> {
        let pos = self.settled(pos);
        self.begin(&pos);
        if pos.is_over() {
            return Ok(pos.store_diff(pos.side()));
        }
        let g = self.exact_gain(&pos, budget)?;
        Ok(value_of(&pos, g))
    }

    /// The exact value of `pos` (see [`Solver::value`]), every best action, a principal
    /// variation to the end of the game, and statistics.
    ///
    /// # Errors
    /// [`SolveError::Stopped`] with the bounds proven so far (the value itself as both bounds once
    /// it is proven, while the best actions and the principal variation are being found).
    pub fn solve(&mut self, pos: &Position) -> Result<Solution, SolveError> {
        self.solve_listing(pos, true)
    }

    /// The exact value of `pos` (see [`Solver::value`]) and a principal variation, without
    /// testing every action for the best ones as [`Solver::solve`] does. That listing can cost
    /// far more than the value: on Kalah(8,2) from the start the value is proven in about 1 s and
    /// the best actions take some 25 s more. The engine's `perfect` level uses this.
    ///
    /// # Errors
    /// [`SolveError::Stopped`] with the bounds proven so far (the value itself as both bounds once
    /// it is proven, while the principal variation is being found).
    pub fn prove(&mut self, pos: &Position) -> Result<Proof, SolveError> {
        self.solve_listing(pos, false).map(Proof::from)
    }

    /// [`Solver::prove`] on `threads` threads, as [`Solver::solve_parallel`] shares the value's
    /// proof among them; the principal variation is found on this thread alone.
    ///
    /// # Errors
    /// As [`Solver::solve_parallel`].
    pub fn prove_parallel(&mut self, pos: &Position, threads: usize) -> Result<Proof, SolveError> {
        self.solve_parallel_listing(pos, threads, false)
            .map(Proof::from)
    }

    /// [`Solver::solve`], with every best action listed only if `every`.
    fn solve_listing(&mut self, pos: &Position, every: bool) -> Result<Solution, SolveError> {
        let pos = self.settled(pos);
        self.begin(&pos);
        if pos.is_over() {
            return Ok(Solution {
                value: pos.store_diff(pos.side()),
                best: Vec::new(),
                pv: Vec::new(),
                stats: self.stats(),
            });
        }
        let g = self.exact_gain(&pos, GUESS_NODES)?;
        self.solution(&pos, g, every)
    }

    /// The solution of `pos` (settled, not over) whose future gain `g` is proven: every best
    /// action (if `every`; else `best` is left empty) and a principal variation. On this thread only: racing helpers on each action
    /// (a null-window test against their exact values of the position after it) used both cores
    /// and gained nothing on Kalah(8,2), whose best actions take 24 of its 26 s.
    ///
    /// # Errors
    /// [`SolveError::Stopped`] with the value itself as both bounds: it is proven.
    fn solution(&mut self, pos: &Position, g: i32, every: bool) -> Result<Solution, SolveError> {
        // Progress reports from here on show the proven value.
        self.root_bounds = (value_of(pos, g), value_of(pos, g));
        let mut kids = Kids::new();
        if every {
            self.children(pos, NO_MOVE, &mut kids);
        }
        let mut best = Vec::new();
        for kid in kids.iter() {
            match self.kid_reaches(kid, g) {
                Ok(true) => best.push(kid.mv),
                Ok(false) => {}
                Err(_) => return Err(self.stopped_error(pos, g, g)),
            }
        }
        best.sort_unstable();
        let pv = self
            .pv_from(pos, g)
            .map_err(|_| self.stopped_error(pos, g, g))?;
        Ok(Solution {
            value: value_of(pos, g),
            best: best.into_iter().map(kid_move).collect(),
            pv,
            stats: self.stats(),
        })
    }

    /// [`Solver::solve`] on `threads` threads sharing this solver's transposition table (at
    /// least one: this thread; at most [`MAX_THREADS`], to which more are lowered). Every thread runs its own MTD(f) on `pos` from the same first
    /// guess, so they test the same bounds, and each finds what the others proved in the table.
    /// They share the work of each test by simplified ABDADA (Weill 1996, "The ABDADA
    /// distributed minimax search algorithm"; the variant without counters in the table): at
    /// positions of 16 seeds or more in the houses, a thread tells the others which child it is
    /// searching, and a thread that reaches a child another is searching (other than the first
    /// child of its position) puts it off until it has searched the rest, when the child's value
    /// is usually in the table (docs/BENCHMARKS.md, "Two threads share each test"). The first
    /// thread to finish gives the value; this solver then finds the best actions and the
    /// principal variation alone. The result is the same as [`Solver::solve`]'s (the principal
    /// variation may be another one of the same value); `stats.nodes` and `stats.tt_hits` count
    /// every thread's work. Helpers get this solver's stop flag and limits (a node limit applies
    /// to each thread); progress is reported by this thread, with the helpers' nodes.
    ///
    /// # Errors
    /// [`SolveError::Stopped`] with the tightest bounds any thread proved if the stop flag or a
    /// limit ends the search before a thread finishes; with the value as both bounds if it
    /// stops while the actions are tested.
    pub fn solve_parallel(
        &mut self,
        pos: &Position,
        threads: usize,
    ) -> Result<Solution, SolveError> {
        self.solve_parallel_listing(pos, threads, true)
    }

    /// [`Solver::solve_parallel`], with every best action listed only if `every`.
    fn solve_parallel_listing(
        &mut self,
        pos: &Position,
        threads: usize,
        every: bool,
    ) -> Result<Solution, SolveError> {
        let threads = threads.min(MAX_THREADS);
        let pos = self.settled(pos);
        self.begin(&pos);
        if pos.is_over() || threads <= 1 {
            return self.solve_listing(&pos, every);
        }
        let race = Arc::new(AtomicBool::new(false));
        let busy = Arc::new(Busy::new());
        self.busy = Some(Arc::clone(&busy));
        let team = Arc::new(AtomicU64::new(0));
        self.team_nodes = Some(Arc::clone(&team));
        let mut helpers: Vec<Solver> = (1..threads)
            .map(|_| {
                let mut h = self.with_shared_table();
                h.stop = self.stop.clone();
                h.limits = self.limits;
                h.race = Some(Arc::clone(&race));
                h.team_nodes = Some(Arc::clone(&team));
                h.busy = Some(Arc::clone(&busy));
                h
            })
            .collect();
        self.race = Some(Arc::clone(&race));
        let (mine, theirs) = std::thread::scope(|scope| {
            let handles: Vec<_> = helpers
                .iter_mut()
                .map(|h| {
                    let race = Arc::clone(&race);
                    scope.spawn(move || {
                        h.begin(&pos);
                        let r = h.exact_gain(&pos, GUESS_NODES);
                        if r.is_ok() {
                            race.store(true, Ordering::Relaxed);
                        }
                        r
                    })
                })
                .collect();
            let mine = self.exact_gain(&pos, GUESS_NODES);
            race.store(true, Ordering::Relaxed);
            let theirs: Vec<Result<i32, SolveError>> = handles
                .into_iter()
                .map(|h| h.join().expect("a search thread panicked"))
                .collect();
            (mine, theirs)
        });
        self.race = None;
        self.busy = None;
        self.stopped = false;
        let g = std::iter::once(&mine)
            .chain(&theirs)
            .find_map(|r| r.as_ref().ok().copied());
        let result = match g {
            Some(g) => self.solution(&pos, g, every).map_err(|e| match e {
                SolveError::Stopped { lower, upper, .. } => (lower, upper),
            }),
            None => {
                // Every thread stopped (the stop flag or a limit): the tightest bounds proven.
                let (mut lower, mut upper) = (i32::MIN, i32::MAX);
                for r in std::iter::once(&mine).chain(&theirs) {
                    if let Err(SolveError::Stopped {
                        lower: l, upper: u, ..
                    }) = r
                    {
                        lower = lower.max(*l);
                        upper = upper.min(*u);
                    }
                }
                Err((lower, upper))
            }
        };
        // The helpers' work counts in the statistics, not in this thread's node count, so that
        // a node limit keeps meaning one thread's nodes in what follows (the best turns and
        // PV; tester 83: `solve_with_best_turns` listed the best turns on the sum, and a node
        // limit each thread had kept to stopped it).
        self.team_nodes = None;
        for h in &helpers {
            self.helper_nodes += h.nodes;
            self.helper_hits += h.tt_hits;
        }
        match result {
            Ok(mut sol) => {
                sol.stats = self.stats();
                Ok(sol)
            }
            Err((lower, upper)) => Err(SolveError::Stopped {
                lower,
                upper,
                stats: self.stats(),
            }),
        }
    }

    /// A principal variation of `pos` whose future gain is `g`: at each step the first action
    /// (table move first) that keeps the value, until the game ends.
    fn pv_from(&mut self, pos: &Position, g: i32) -> Result<Vec<Move>, SolveError> {
        let mut pv = Vec::new();
        let mut cur = *pos;
        let mut g = g;
        while !cur.is_over() {
            let seeds = cur.seeds_in_houses() as i32;
            let tt_mv = self
                .key(&cur, seeds)
                .and_then(|k| self.table.probe(&k))
                .map_or(NO_MOVE, |e| e.mv);
            let mut kids = Kids::new();
            self.children(&cur, tt_mv, &mut kids);
            let mut next = None;
            for kid in kids.iter() {
                if self.kid_reaches(kid, g)? {
                    next = Some(*kid);
                    break;
                }
            }
            let Some(kid) = next else {
                // Only wrong values (damaged endgame databases holding possible values, which
                // a probe cannot tell) make every move miss the value: the PV ends here, and
                // the best actions, found the same way, are empty (the CLI reports it).
                break;
            };
            pv.push(kid_move(kid.mv));
            g = if kid.over {
                0
            } else if kid.sign > 0 {
                g - kid.c
            } else {
                kid.c - g
            };
            cur = kid.pos;
        }
        Ok(pv)
    }

    /// The exact value of every legal action of `pos`, in legal-move order (houses in increasing
    /// order, then `swap`), each from the view of the side to move in `pos`. Empty if the game is
    /// over.
    ///
    /// # Errors
    /// [`SolveError::Stopped`] if stopped, with bounds of the value of `pos` (side to move's
    /// view) from the actions solved, the bounds proven for the one being solved and the seeds
    /// in play for those left, as [`analyze_moves_parallel`](crate::analyze_moves_parallel)
    /// gives them.
    pub fn analyze_moves(&mut self, pos: &Position) -> Result<Vec<MoveScore>, SolveError> {
        self.analyze_moves_partial(pos).map_err(|p| p.error)
    }

    /// [`Solver::analyze_moves`], keeping on a stop the actions valued before it.
    ///
    /// # Errors
    /// [`PartialAnalysis`] if stopped: the actions valued before the stop, and the error
    /// [`Solver::analyze_moves`] gives.
    pub fn analyze_moves_partial(
        &mut self,
        pos: &Position,
    ) -> Result<Vec<MoveScore>, PartialAnalysis<MoveScore>> {
        let pos = self.settled(pos);
        self.begin(&pos);
        if pos.is_over() {
            return Ok(Vec::new());
        }
        let mut kids = Kids::new();
        self.children(&pos, NO_MOVE, &mut kids);
        let d0 = pos.store_diff(pos.side());
        let mut out = Vec::with_capacity(kids.len());
        for (i, kid) in kids.in_move_order().enumerate() {
            let g = if kid.over {
                kid.c
            } else {
                match self.exact_gain(&kid.pos, GUESS_NODES / 4) {
                    Ok(cg) => kid.sign * cg + kid.c,
                    // The child's bounds, from its mover's view: the same side after an extra
                    // turn, else the opponent (a value is the final store difference).
                    Err(e) => {
                        // The actions after this one that end the game need no search; the
                        // others are bounded by their seeds in play.
                        let mut rest = Vec::new();
                        for k in kids.in_move_order().skip(i + 1) {
                            if k.over {
                                out.push(MoveScore {
                                    mv: kid_move(k.mv),
                                    value: d0 + k.c,
                                });
                            } else {
                                rest.push(child_seed_bounds(&k.pos, &self.rules, k.sign == 1));
                            }
                        }
                        let found = out.iter().map(|m: &MoveScore| m.value);
                        let error = self.stopped_in(found, e, kid.sign == 1, rest);
                        return Err(PartialAnalysis { found: out, error });
                    }
                }
            };
            out.push(MoveScore {
                mv: kid_move(kid.mv),
                value: d0 + g,
            });
        }
        Ok(out)
    }

    /// The error of an analysis of a position stopped while solving one of its actions or
    /// turns: `e`'s bounds are that child's value from its own mover's view (`same_side`: the
    /// mover of the position); the result's are the position's own, the best of the values
    /// `found` (those valued, and those that end the game, after this one too), of the child's
    /// bounds and of the `rest`'s (the bounds of the actions or turns not reached, from the
    /// mover's view), for the lower bound as for the upper, as the parallel analysis gives them
    /// (tester 42: the child's bounds were given as they were, often from the opponent's view;
    /// tester 85: the game-ending actions after it, and the lower bounds of those not reached,
    /// were left out).
    fn stopped_in(
        &self,
        found: impl Iterator<Item = i32>,
        e: SolveError,
        same_side: bool,
        rest: Vec<(i32, i32)>,
    ) -> SolveError {
        let SolveError::Stopped {
            lower,
            upper,
            stats,
        } = e;
        let (lo, hi) = if same_side {
            (lower, upper)
        } else {
            (-upper, -lower)
        };
        let (mut lower, mut upper) = (lo, hi);
        for (l, h) in found.map(|v| (v, v)).chain(rest) {
            lower = lower.max(l);
            upper = upper.max(h);
        }
        SolveError::Stopped {
            lower,
            upper,
            stats,
        }
    }

    /// The exact value of every whole turn of `pos` (chains of extra turns expanded, as
    /// [`Turn::all`] lists them), each from the view of the side to move in `pos`. Empty if the
    /// game is over.
    ///
    /// # Errors
    /// [`SolveError::Stopped`] if stopped, with bounds of the value of `pos` as
    /// [`Solver::analyze_moves`] gives them.
    pub fn analyze_turns(&mut self, pos: &Position) -> Result<Vec<TurnScore>, SolveError> {
        self.analyze_turns_partial(pos).map_err(|p| p.error)
    }

    /// [`Solver::analyze_turns`], keeping on a stop the turns valued before it.
    ///
    /// # Errors
    /// [`PartialAnalysis`] if stopped: the turns valued before the stop, and the error
    /// [`Solver::analyze_turns`] gives.
    pub fn analyze_turns_partial(
        &mut self,
        pos: &Position,
    ) -> Result<Vec<TurnScore>, PartialAnalysis<TurnScore>> {
        let pos = self.settled(pos);
        self.begin(&pos);
        let mover = pos.side();
        let mut out = Vec::new();
        let turns = Turn::all(&pos, &self.rules);
        let searched = turns.iter().filter(|(_, end)| !end.is_over()).count();
        let budget = guess_budget(searched, GUESS_NODES / 4);
        let mut turns = turns.into_iter();
        while let Some((turn, end)) = turns.next() {
            let value = if end.is_over() {
                end.store_diff(mover)
            } else {
                match self.exact_gain(&end, budget) {
                    Ok(g) => -value_of(&end, g),
                    // A whole turn ends with the opponent to move.
                    Err(e) => {
                        // The turns after this one that end the game need no search; the
                        // others are bounded by their seeds in play.
                        let mut rest = Vec::new();
                        for (turn, end) in turns.by_ref() {
                            if end.is_over() {
                                out.push(TurnScore {
                                    turn,
                                    value: end.store_diff(mover),
                                });
                            } else {
                                rest.push(child_seed_bounds(&end, &self.rules, false));
                            }
                        }
                        let found = out.iter().map(|t: &TurnScore| t.value);
                        let error = self.stopped_in(found, e, false, rest);
                        return Err(PartialAnalysis { found: out, error });
                    }
                }
            };
            out.push(TurnScore { turn, value });
        }
        Ok(out)
    }

    /// Every whole turn of `pos` whose value is `value` (the value of `pos`, e.g. from
    /// [`Solver::solve`]), in [`Turn::all`] order. Empty if the game is over. Progress reports
    /// show `value` as both bounds.
    ///
    /// `value` is taken as given, not checked (that would cost a solve): each turn is tested
    /// for "worth at least `value`", so a `value` above the position's value gives no turn, and
    /// one below it gives every turn worth at least `value`, whatever their values.
    ///
    /// This can take far longer than the value: each best turn needs a proof of its own that
    /// the opponent gets no more after it, where the value needed one (Kalah(11,1), value 0,
    /// has 15 best turns; `kalah solve --threads 1` took 27 s for the value and the best actions
    /// and 43 s more for the best turns, with a 1 GiB table).
    ///
    /// # Errors
    /// [`SolveError::Stopped`] if stopped, with `value` as both bounds.
    pub fn best_turns(&mut self, pos: &Position, value: i32) -> Result<Vec<Turn>, SolveError> {
        let pos = self.settled(pos);
        self.begin(&pos);
        self.list_best_turns(&pos, value)
    }

    /// [`Solver::solve_parallel`], then every best whole turn ([`Solver::best_turns`]) as one
    /// search: the statistics and the progress reports count both (nodes and time go on from
    /// the value's search to the listing; progress reports show the value as both bounds once
    /// it is proven).
    ///
    /// # Errors
    /// [`SolveError::Stopped`] as [`Solver::solve_parallel`] gives it, or, stopped while the
    /// best turns are listed, with the value as both bounds and the work of both searches.
    pub fn solve_with_best_turns(
        &mut self,
        pos: &Position,
        threads: usize,
    ) -> Result<(Solution, Vec<Turn>), SolveError> {
        let mut sol = self.solve_parallel(pos, threads)?;
        let pos = self.settled(pos);
        // A fresh history, as `best_turns` starts with; the counters and clock go on.
        self.history = [[0; 12]; 2];
        self.stopped = false;
        let best = self.list_best_turns(&pos, sol.value)?;
        sol.stats = self.stats();
        Ok((sol, best))
    }

    /// The turns of [`Solver::best_turns`] of `pos` (settled), on the counters as they stand.
    fn list_best_turns(&mut self, pos: &Position, value: i32) -> Result<Vec<Turn>, SolveError> {
        // Every value lies within ± the seeds on the board: a `value` beyond that asks for
        // every turn or none, and is brought in so that the arithmetic below cannot overflow
        // (tester 42: i32::MIN panicked).
        let all = i32::try_from(pos.total_seeds()).unwrap_or(i32::MAX - 1) + 1;
        let value = value.clamp(-all, all);
        self.root_bounds = (value, value);
        let mover = pos.side();
        let mut out = Vec::new();
        for (turn, end) in Turn::all(pos, &self.rules) {
            let keeps = if end.is_over() {
                end.store_diff(mover) >= value
            } else {
                // -V(end) >= value  <=>  g(end) <= -value - diff(end)
                let t = -value - end.store_diff(end.side());
                !self
                    .at_least(&end, t + 1)
                    .map_err(|_| SolveError::Stopped {
                        lower: value,
                        upper: value,
                        stats: self.stats(),
                    })?
            };
            if keeps {
                out.push(turn);
            }
        }
        Ok(out)
    }

    /// The MTD(f) null-window passes of the last call, in order: (beta, result, nodes), both as
    /// future gains of the position searched; a first guess by iterative deepening shows as
    /// (`i32::MIN`, guess, nodes). For tuning and benchmarks.
    #[doc(hidden)]
    pub fn passes(&self) -> &[(i32, i32, u64)] {
        &self.passes
    }

    /// Work of the last call.
    pub fn last_stats(&self) -> Stats {
        self.stats()
    }

    /// A depth-limited search of `pos` to `depth` plies (one sowing = one ply; at least 1, so
    /// `depth` 0 searches 1, and at most [`MAX_DEPTH`], to which a larger `depth` is lowered)
    /// with the heuristic evaluation at the horizon. The result's `depth` is the depth searched.
    ///
    /// # Errors
    /// [`SolveError::Stopped`] if stopped (bounds: the futility bounds).
    pub fn search_depth(&mut self, pos: &Position, depth: u32) -> Result<DepthResult, SolveError> {
        let pos = self.settled(pos);
        self.begin(&pos);
        self.depth_iteration(&pos, depth.clamp(1, MAX_DEPTH) as i32, NO_MOVE)
    }

    fn depth_iteration(
        &mut self,
        pos: &Position,
        depth: i32,
        prev_best: u8,
    ) -> Result<DepthResult, SolveError> {
        if pos.is_over() {
            return Ok(DepthResult {
                value: pos.store_diff(pos.side()),
                exact: true,
                best: None,
                pv: Vec::new(),
                depth: 0,
                stats: self.stats(),
            });
        }
        let seeds = pos.seeds_in_houses() as i32;
        let (flo, fhi) = self.futility(pos, seeds);
        let mut kids = Kids::new();
        self.children(pos, prev_best, &mut kids);
        self.estimated = false;
        let mut best = i32::MIN;
        let mut best_mv = kids
            .iter()
            .next()
            .expect("a position not over has a move")
            .mv;
        for kid in kids.iter() {
            let alpha = best.max(flo - 1);
            let g = if kid.over {
                kid.c
            } else {
                let (a, b) = if kid.sign > 0 {
                    (alpha - kid.c, fhi + 1 - kid.c)
                } else {
                    (kid.c - fhi - 1, kid.c - alpha)
                };
                let v = self.heuristic(&kid.pos, depth - 1, a, b);
                if self.stopped {
                    return Err(self.stopped_error(pos, flo, fhi));
                }
                kid.sign * v + kid.c
            };
            if g > best {
                best = g;
                best_mv = kid.mv;
            }
        }
        // Proven if no estimate went into it (every line searched to its game end, a proven
        // table entry or a database value). Otherwise proven only if the table holds the
        // proven value of this position *and* a child proven to reach it, which becomes the
        // best action: an estimate that merely equals the proven value may belong to a worse
        // move (tester 70: house 1, worth -8, was said to be a proven -4).
        let exact = if !self.estimated {
            true
        } else if let Some((v, mv)) = self.proven_by_table(pos, seeds, &kids) {
            best = v;
            best_mv = mv;
            true
        } else {
            false
        };
        let mut pv = vec![kid_move(best_mv)];
        let kid = kids.iter().find(|k| k.mv == best_mv).copied();
        if let Some(kid) = kid {
            let mut cur = kid.pos;
            while !cur.is_over() && pv.len() < depth.max(1) as usize {
                let s = cur.seeds_in_houses() as i32;
                let Some(e) = self.key(&cur, s).and_then(|k| self.table.probe(&k)) else {
                    break;
                };
                if e.mv == NO_MOVE || cur.legal_houses() & (1 << e.mv) == 0 {
                    break;
                }
                cur.sow_unchecked(&self.rules, e.mv as usize + 1);
                pv.push(Move::Sow(e.mv + 1));
            }
        }
        Ok(DepthResult {
            value: value_of(pos, best),
            exact,
            best: Some(kid_move(best_mv)),
            pv,
            depth: depth as u32,
            stats: self.stats(),
        })
    }

    /// The proven future gain of `pos` (not over, holding `seeds` seeds in its houses) from the
    /// table, with the first of `kids` (its children, in search order) proven to reach it: by
    /// the game's end, the endgame databases or a proven table bound. `None` if the table does
    /// not hold the exact value or no child is proven to reach it.
    fn proven_by_table(&self, pos: &Position, seeds: i32, kids: &Kids) -> Option<(i32, u8)> {
        let v = self
            .key(pos, seeds)
            .and_then(|k| self.table.probe(&k))
            .filter(|e| e.exact && e.lo == e.hi)?
            .lo;
        let reaches = |kid: &Kid| {
            if kid.over {
                return kid.c >= v;
            }
            let key = self.key(&kid.pos, kid.pos.seeds_in_houses() as i32);
            self.kid_proven_bounds(kid, key)
                .is_some_and(|(lower, _)| lower >= v)
        };
        kids.iter().find(|kid| reaches(kid)).map(|kid| (v, kid.mv))
    }

    /// The proven bounds of the gain of `kid`'s parent through `kid` (`sign * g + c`), from
    /// the table entry of `key` (the child's table key, see [`Self::key`]), or without a key
    /// from the endgame databases, which answer every normal-phase position they cover; `None`
    /// if neither proves anything, or for a finished child.
    #[inline]
    fn kid_proven_bounds(&self, kid: &Kid, key: Option<Key>) -> Option<(i32, i32)> {
        let (lo, hi) = match key {
            Some(k) => self
                .table
                .probe(&k)
                .filter(|e| e.exact)
                .map(|e| (e.lo, e.hi))?,
            None if !kid.over => {
                let s = kid.pos.seeds_in_houses() as i32;
                self.probe_egdb(&kid.pos, s).map(|g| (g, g))?
            }
            None => return None,
        };
        Some(if kid.sign > 0 {
            (kid.c + lo, kid.c + hi)
        } else {
            (kid.c - hi, kid.c - lo)
        })
    }

    /// Iterative deepening to at most `max_depth` plies within the limits set by
    /// [`Solver::set_limits`] (and the stop flag). Returns the deepest completed iteration (at
    /// least depth 1, which always completes); an iteration whose value is proven
    /// ([`DepthResult::exact`]) is the last, as deeper ones would only prove it again.
    pub fn iterative(&mut self, pos: &Position, max_depth: u32) -> DepthResult {
        let pos = self.settled(pos);
        self.begin(&pos);
        let limits = self.limits;
        let stop = self.stop.take();
        // Depth 1 always completes.
        self.limits = SearchLimits::default();
        let mut result = self
            .depth_iteration(&pos, 1, NO_MOVE)
            .expect("no limits on depth 1");
        self.limits = limits;
        self.stop = stop;
        let seeds = pos.seeds_in_houses();
        for depth in 2..=max_depth.min(2 * seeds + 2) {
            if result.exact {
                // Deeper iterations would only prove the same value again.
                break;
            }
            let prev = match result.best {
                Some(Move::Sow(h)) => h - 1,
                _ => NO_MOVE,
            };
            match self.depth_iteration(&pos, depth as i32, prev) {
                Ok(r) => result = r,
                Err(_) => break,
            }
        }
        result.stats = self.stats();
        result
    }
}

#[cfg(test)]
mod tests {
    use super::guess_budget;

    #[test]
    fn a_depth_past_the_maximum_is_searched_as_the_maximum() {
        use kalah_core::{Position, Rules, Start};
        let rules = Rules::default();
        let pos = Position::start(&Start::uniform(2, 2).unwrap(), &rules);
        let mut solver = super::Solver::new(rules, 1);
        let exact = solver.value(&pos).unwrap();
        // Library tester: u32::MAX wrapped to -1 (value +1 from one ply, "depth 4294967295"),
        // 2^31 overflowed.
        for depth in [u32::MAX, 1 << 31, super::MAX_DEPTH] {
            let r = solver.search_depth(&pos, depth).unwrap();
            assert_eq!(r.depth, super::MAX_DEPTH);
            assert_eq!(r.value, exact, "depth {depth}");
        }
    }

    #[test]
    fn guess_budget_is_shared_among_many_positions_only() {
        // Up to 10 positions (a start position's turns) keep the default of the parallel
        // analysis, up to 40 the sequential one's.
        assert_eq!(guess_budget(10, 200_000), 200_000);
        assert_eq!(guess_budget(40, 50_000), 50_000);
        assert_eq!(guess_budget(0, 50_000), 50_000);
        // 2 000 000 nodes shared by 912 turns.
        assert_eq!(guess_budget(912, 50_000), 2_192);
        assert_eq!(guess_budget(912, 200_000), 2_192);
        // Never below 1 000, nor above the cap.
        assert_eq!(guess_budget(1_000_000, 50_000), 1_000);
        assert_eq!(guess_budget(1_000_000, 500), 500);
    }
}
