//! # kalah-engine
//!
//! The protocol-free Kalah player that every front end (terminal, web, bot protocols) drives:
//! named [`Level`]s, a time or node limit per move ([`Limits`]), move choice ([`Engine::choose`])
//! and hints ([`Engine::hint`]).
//!
//! Values are always **final store differences from the view of the side to move in the given
//! position** (its final store minus the opponent's, with the stores already filled counted),
//! the convention of Irving, Donkers & Uiterwijk (2000).
//!
//! The levels search with `kalah-solver`: `beginner` and `easy` a shallow depth-limited negamax with
//! random noise on the move values, `medium` and `hard` a deeper one, `expert` iterative deepening
//! within the time limit, and `perfect` the exact solver (MTD(f)) whenever it finishes within the
//! move's budget, else `expert`'s search. The engine keeps its transposition table between moves.
//!
//! By default the engine searches on one thread. [`Engine::set_threads`] lets the exact attempts
//! (the `perfect` level's proof of its move and the exact part of [`Engine::hint`]) run on
//! several threads sharing one transposition table; see there for what changes and what does not.
//!
//! A front end can stop a search from another thread (a Ctrl-C handler, a "move now" button)
//! with the engine's stop flag, [`Engine::stop_flag`] or [`Engine::set_stop_flag`]: `choose`
//! then plays the best action found so far and `hint` returns estimates.
//!
//! ## Example
//!
//! Hints for South at the start of Kalah(4,3), then two `perfect` engines play it out: the game
//! ends at the start position's value, +6 for South (Irving, Donkers & Uiterwijk 2000).
//!
//! ```
//! use std::time::Duration;
//! use kalah_core::{Position, Rules, Side, Start};
//! use kalah_engine::{Engine, Level, Limits};
//!
//! let rules = Rules::default();
//! let mut pos = Position::start(&Start::uniform(4, 3)?, &rules);
//! let limits = Limits { time: Some(Duration::from_secs(5)), nodes: None };
//! let mut engine = Engine::with_seed(Level::Perfect, 1);
//! for hint in engine.hint(&pos, &rules, limits) {
//!     println!("{}: {:+} (exact: {})", hint.mv, hint.value, hint.exact);
//! }
//! // One engine for both sides: it keeps its transposition table between moves.
//! while let Some(choice) = engine.choose_with(&pos, &rules, limits) {
//!     pos.play(&rules, choice.mv)?;
//! }
//! assert_eq!(pos.store_diff(Side::South), 6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kalah_core::{Move, Position, Rules};
use kalah_egdb::Egdb;
use kalah_solver::{
    analyze_moves_parallel, search_jobs, MoveScore, ParallelOptions, SearchLimits, SolveError,
    Solver, Stats,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// A seed derived from `seed` and `salt`: for one seed that gives many engines or random
/// streams their own (a match's games, a web request's position). Equal inputs give equal
/// seeds on every platform and release; nearby inputs give unrelated seeds. SplitMix64's
/// finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014) applied to the seed, then to it mixed with the salt.
pub fn derive_seed(seed: u64, salt: u64) -> u64 {
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    mix(mix(seed) ^ salt.wrapping_add(0x9e37_79b9_7f4a_7c15))
}

/// Engine strength, weakest first.
///
/// | level | depth (plies) | randomness | default time per action |
/// | --- | --- | --- | --- |
/// | `beginner` | 2 | values ±6, a random action 25 % of the time | 200 ms |
/// | `easy` | 4 | values ±3, a random action 5 % of the time | 300 ms |
/// | `medium` | 7 | none | 500 ms |
/// | `hard` | 12 | none | 1 s |
/// | `expert` | as deep as the time allows | none | 1 s |
/// | `perfect` | exact where proven in time, else as `expert` | none | 2 s |
///
/// The default time is what [`Engine::choose`] uses ([`Level::default_time`]); a
/// [`Limits`] given to [`Engine::choose_with`] replaces it. A search stops at its depth or
/// its limit, whichever comes first ([`Level::depth`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// Shallow search (2 plies) with much randomness.
    Beginner,
    /// Shallow search (4 plies) with some randomness.
    Easy,
    /// Medium-depth search (7 plies).
    Medium,
    /// Deep search (12 plies).
    Hard,
    /// Deepest heuristic search within the time limit.
    Expert,
    /// Proven-best moves whenever the exact solver finishes within the limit, else `Expert`.
    Perfect,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 6] = [
        Level::Beginner,
        Level::Easy,
        Level::Medium,
        Level::Hard,
        Level::Expert,
        Level::Perfect,
    ];

    /// Whether the level chooses with randomness (`beginner` and `easy`: noise on the move
    /// values and some random moves). The others choose the same action in the same position
    /// under the same limits (a time limit can still make `expert` and `perfect` differ between
    /// runs, when a search is cut at a different depth).
    pub fn is_random(self) -> bool {
        let p = self.profile();
        p.noise != 0 || p.random > 0.0
    }

    /// The time per action the level thinks when no [`Limits`] say otherwise (see the table
    /// at [`Level`]).
    pub fn default_time(self) -> Duration {
        self.profile().time
    }

    /// The deepest heuristic search of the level, in plies (the search deepens one ply at a
    /// time up to it, or until its time or node limit; 200 for `expert` and `perfect`, in
    /// effect no depth limit).
    pub fn depth(self) -> u32 {
        self.profile().depth
    }

    /// The level's name as written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Expert => "expert",
            Level::Perfect => "perfect",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown level name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown level '{0}' (levels: beginner, easy, medium, hard, expert, perfect)")]
pub struct LevelError(pub String);

impl FromStr for Level {
    type Err = LevelError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| LevelError(s.to_string()))
    }
}

/// Limits on one move's thinking. `None` means the level's default for [`Engine::choose`] and
/// [`Engine::choose_with`]; for [`Engine::hint`], which does not depend on the level, 1 s and
/// no node limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time for the move.
    pub time: Option<Duration>,
    /// Nodes for the move.
    pub nodes: Option<u64>,
}

/// The engine's choice for one action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The action to play.
    pub mv: Move,
    /// Value for the side to move (final store difference) of playing `mv`, if known or
    /// estimated: the value of the position when `mv` is a best action; at the levels with
    /// randomness (`beginner`, `easy`), the un-noised value of the action they picked, which
    /// may be worse than the best.
    pub value: Option<i32>,
    /// Whether `value` is proven exact. At the levels without randomness a proven value is the
    /// position's, `mv` a best action, except for an action that ends the game: its value (the
    /// final store difference) is always proven, whether or not it is the best.
    pub exact: bool,
    /// Depth of the search that chose the move (plies); for a proven action (`perfect`), the
    /// length of the principal variation [`Choice::pv`]; 0 for a random or greedy choice.
    pub depth: u32,
    /// Nodes searched (by every thread, see [`Engine::set_threads`]).
    pub nodes: u64,
    /// Expected continuation, starting with `mv`: at `beginner` and `easy`, `mv` and then the
    /// line their shallow search expected after it (with the noise, `mv` may not be the action
    /// it rated best); just `mv` for an action chosen without a search.
    pub pv: Vec<Move>,
}

impl Choice {
    /// An action chosen without a search (the only legal one, a random one, a fallback): no
    /// value claimed (see [`Choice::ending`] for an action that ends the game), depth 0.
    fn unsearched(mv: Move) -> Choice {
        Choice {
            mv,
            value: None,
            exact: false,
            depth: 0,
            nodes: 0,
            pv: vec![mv],
        }
    }

    /// The choice, with the final store difference as its proven value if its action ends the
    /// game in `pos` (settled, not over): whatever the search proved of the others, or if
    /// there was no search (tester 78: `medium` said `exact: false` of such an action under the
    /// majority end; tester 96: a lone legal action that ends the game had no value).
    fn ending(mut self, pos: &Position, rules: &Rules) -> Choice {
        if let Some(me) = pos.to_move() {
            let mut child = *pos;
            child.play_unchecked(rules, self.mv);
            if child.is_over() {
                self.value = Some(child.store_diff(me));
                self.exact = true;
            }
        }
        self
    }
}

/// The value of one legal action, from the view of the side to move before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The action.
    pub mv: Move,
    /// Final store difference for the side to move if this action is played (exact or
    /// estimated).
    pub value: i32,
    /// Whether `value` is proven exact.
    pub exact: bool,
}

/// How a level plays.
#[derive(Clone, Copy, Debug)]
struct Profile {
    /// Depth of the heuristic search, in plies.
    depth: u32,
    /// Uniform noise added to each move's value (0: none).
    noise: i32,
    /// Chance of a uniformly random legal move.
    random: f64,
    /// Default time per move.
    time: Duration,
    /// Transposition table size.
    tt_mib: usize,
}

impl Level {
    fn profile(self) -> Profile {
        let ms = Duration::from_millis;
        match self {
            Level::Beginner => Profile {
                depth: 2,
                noise: 6,
                random: 0.25,
                time: ms(200),
                tt_mib: 1,
            },
            Level::Easy => Profile {
                depth: 4,
                noise: 3,
                random: 0.05,
                time: ms(300),
                tt_mib: 1,
            },
            Level::Medium => Profile {
                depth: 7,
                noise: 0,
                random: 0.0,
                time: ms(500),
                tt_mib: 4,
            },
            Level::Hard => Profile {
                depth: 12,
                noise: 0,
                random: 0.0,
                time: ms(1000),
                tt_mib: 16,
            },
            Level::Expert => Profile {
                depth: 200,
                noise: 0,
                random: 0.0,
                time: ms(1000),
                tt_mib: 32,
            },
            Level::Perfect => Profile {
                depth: 200,
                noise: 0,
                random: 0.0,
                time: ms(2000),
                tt_mib: 64,
            },
        }
    }
}

/// A player at one level. Keeps its search state (transposition table) between moves.
#[derive(Debug)]
pub struct Engine {
    level: Level,
    rng: StdRng,
    solver: Option<Solver>,
    egdb: Option<Arc<Egdb>>,
    /// Threads of the exact attempts (at least 1).
    threads: usize,
    /// Transposition table size in MiB, if set ([`Engine::set_table_mib`]); else the level's.
    tt_mib: Option<usize>,
    /// The stop flag, installed in the engine's solver at every search (see
    /// [`Engine::set_stop_flag`]).
    stop: Arc<AtomicBool>,
}

/// After a stop, the longest heuristic search the engine still makes so that its answer is not
/// a mere one-ply guess: `perfect`'s move when the stop came during its exact attempt, and the
/// estimates of a stopped hint (one thread, uninterruptible; a hint shares it among the
/// actions). 200 ms: hardly noticeable at the terminal, yet far deeper than one ply.
pub const STOP_GRACE: Duration = Duration::from_millis(200);

/// How often the parallel analysis of a hint looks at the engine's stop flag.
const STOP_POLL: Duration = Duration::from_millis(5);

/// What one search of the engine found.
struct Found {
    mv: Move,
    value: i32,
    exact: bool,
    depth: u32,
    nodes: u64,
    pv: Vec<Move>,
}

/// One action's estimate from [`Engine::estimate_moves`]: its value, and the line expected from
/// it (the action, then the principal variation of the search after it).
struct Estimate {
    value: MoveValue,
    line: Vec<Move>,
}

impl Engine {
    /// A new engine at `level`.
    pub fn new(level: Level) -> Engine {
        Engine {
            level,
            rng: StdRng::from_entropy(),
            solver: None,
            egdb: None,
            threads: 1,
            tt_mib: None,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// A new engine whose random choices (lower levels) are fixed by `seed`, for reproducible
    /// games and tests.
    pub fn with_seed(level: Level, seed: u64) -> Engine {
        Engine {
            level,
            rng: StdRng::seed_from_u64(seed),
            solver: None,
            egdb: None,
            threads: 1,
            tt_mib: None,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Uses endgame databases in the exact and heuristic searches (only where their board size
    /// and rules match the game's).
    pub fn set_egdb(&mut self, egdb: Option<Arc<Egdb>>) {
        self.egdb = egdb.clone();
        if let Some(s) = self.solver.as_mut() {
            s.set_egdb(egdb);
        }
    }

    /// The engine's level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Sets the number of threads of the engine's exact attempts (0 counts as 1, more than
    /// [`kalah_solver::MAX_THREADS`] as that many; the default is 1, one search at a time on the
    /// calling thread).
    ///
    /// With `threads` > 1:
    /// * the `perfect` level proves its move with [`Solver::prove_parallel`]: `threads` MTD(f)
    ///   searches sharing the engine's transposition table and the work of each test, the
    ///   first to finish giving the value;
    /// * [`Engine::hint`] values the legal actions with [`analyze_moves_parallel`]: one solver
    ///   per thread, all sharing the engine's table, each action that needs a search a job for
    ///   whichever thread is free.
    ///
    /// Everything else stays on the calling thread: the depth-limited searches (the lower
    /// levels, `perfect`'s fallback when the proof does not finish, and the estimates of a hint
    /// that could not be proven), and the search for the principal variation once the value is
    /// proven.
    ///
    /// The results are the same as with one thread: exact values are equal, and the chosen
    /// action is a proven-best one, possibly another of the same value. What may differ is
    /// whether a proof finishes within the limits (more often on several free cores: that is
    /// the point; less often on a node limit, see below). Limits keep their
    /// meaning: the time limit is wall-clock time (every thread stops at the same instant), and
    /// a node limit bounds the nodes of **all threads together** (each thread of the proof gets
    /// `nodes / threads`; so does each thread of a hint, over all the jobs it takes, the first
    /// thread's ordering searches included), so a node-limited search on several
    /// threads proves less than one thread would with the same limit. The nodes reported
    /// ([`Choice::nodes`]) are those of every thread.
    ///
    /// Each search call starts its threads and joins them before it returns (scoped threads);
    /// nothing runs between calls.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, kalah_solver::MAX_THREADS);
    }

    /// The number of threads of the exact attempts (see [`Engine::set_threads`]), at least 1.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Makes `flag` the engine's stop flag. Setting it (from any thread, e.g. a Ctrl-C handler)
    /// stops the search under way within about a tenth of a second, on every thread of
    /// [`Engine::set_threads`]; the call returns at most [`STOP_GRACE`] later:
    /// * [`Engine::choose`] and [`Engine::choose_with`] still return a legal action: the best
    ///   one found so far, as when the time limit ends the search (the deepest completed
    ///   iteration of the heuristic search; for `perfect`, stopped during its exact attempt, the
    ///   move of a heuristic search of at most [`STOP_GRACE`] that ignores the flag). Its value
    ///   is exact only if proven.
    /// * [`Engine::hint`] returns one value per legal action as ever: the exact values if the
    ///   analysis had finished, else estimates (a heuristic search of at most [`STOP_GRACE`]
    ///   that ignores the flag; values are marked exact only where proven: an action that ends
    ///   the game, or an estimate search that reached every game end).
    ///
    /// The engine only reads the flag, it never clears it: **the caller resets it** (stores
    /// `false`) before the next search it wants to run in full. While it stays set, every
    /// search returns at once with the answers above. A stop leaves the engine usable: its
    /// solver and transposition table are kept, and the next search after the reset gives the
    /// same values as an engine never stopped.
    ///
    /// Each engine starts with a flag of its own, cleared ([`Engine::stop_flag`] returns it).
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        // The solver gets it at its next search (`take_solver`).
        self.stop = flag;
    }

    /// The engine's stop flag (a handle to the same flag): set it to stop the search under
    /// way, reset it before the next one. See [`Engine::set_stop_flag`].
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Whether the stop flag is set.
    fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Sets the size of the exact search's transposition table, in MiB (0 counts as 1; see
    /// [`Solver::new`] for a size the system cannot grant). The default is the level's: 1 MiB
    /// (`beginner`, `easy`) to 64 MiB (`perfect`, [`kalah_solver::DEFAULT_TT_MIB`]). A larger
    /// table lets `perfect` prove larger positions within its time (Kalah(6,4) without
    /// databases wants about 512 MiB, see `kalah solve`'s default). The table is made anew,
    /// empty, at the next search: what the engine's table held is dropped.
    pub fn set_table_mib(&mut self, mib: usize) {
        self.tt_mib = Some(mib.max(1));
        self.solver = None;
    }

    /// The size of the exact search's transposition table in MiB (see
    /// [`Engine::set_table_mib`]).
    pub fn table_mib(&self) -> usize {
        self.tt_mib.unwrap_or(self.level.profile().tt_mib)
    }

    /// A fresh solver of the engine's table size for `rules`, with the engine's databases.
    fn new_solver(&self, rules: &Rules) -> Solver {
        let mut s = Solver::new(*rules, self.table_mib());
        s.set_egdb(self.egdb.clone());
        s
    }

    /// The engine's solver, made on first use, set to `rules`.
    fn solver(&mut self, rules: &Rules) -> &mut Solver {
        let s = self.take_solver(rules);
        self.solver.insert(s)
    }

    /// The engine's solver (made if need be), set to `rules`, taken out of the engine (to be
    /// put back).
    fn take_solver(&mut self, rules: &Rules) -> Solver {
        let mut s = match self.solver.take() {
            Some(s) => s,
            None => self.new_solver(rules),
        };
        s.set_rules(*rules);
        // Every search starts with the engine's own flag: a search that ran with another one
        // (the analysis's, or none during a grace search) leaves it behind.
        s.set_stop_flag(Arc::clone(&self.stop));
        s
    }

    /// Chooses an action with the level's default limits: [`Level::default_time`], no node
    /// limit. `None` if the game is over.
    pub fn choose(&mut self, pos: &Position, rules: &Rules) -> Option<Choice> {
        self.choose_with(pos, rules, Limits::default())
    }

    /// Chooses an action within `limits`. `None` if the game is over.
    ///
    /// The stop flag ([`Engine::set_stop_flag`]) ends the search early; a legal action is
    /// still returned.
    pub fn choose_with(&mut self, pos: &Position, rules: &Rules, limits: Limits) -> Option<Choice> {
        let mut p = *pos;
        p.settle(rules);
        let legal = p.legal_moves(rules);
        if legal.is_empty() {
            return None;
        }
        let profile = self.level.profile();
        let time = limits.time.unwrap_or(profile.time);
        let start = Instant::now();
        if legal.len() == 1 && self.level < Level::Perfect {
            return Some(Choice::unsearched(legal[0]).ending(&p, rules));
        }
        if profile.random > 0.0 && self.rng.gen_bool(profile.random) {
            let mv = legal[self.rng.gen_range(0..legal.len())];
            return Some(Choice::unsearched(mv).ending(&p, rules));
        }
        let found = match self.level {
            Level::Beginner | Level::Easy => self.noisy(&p, rules, profile, time, limits.nodes),
            Level::Medium | Level::Hard | Level::Expert => {
                self.deepening(&p, rules, profile.depth, time, limits.nodes, false)
            }
            Level::Perfect => {
                let exact_time = time.mul_f64(0.7);
                match self.exact(&p, rules, exact_time, limits.nodes) {
                    Ok(f) => Some(f),
                    Err(spent) => {
                        // What is left of the budget, possibly nothing: the search's depth 1
                        // always completes. (A floor of 10 ms made every action of a 1 ms budget
                        // take 10.)
                        let left = time.saturating_sub(start.elapsed());
                        // Stopped during the proof: a short search that ignores the flag,
                        // rather than a one-ply guess.
                        let grace = self.stop_requested();
                        let left = if grace { left.min(STOP_GRACE) } else { left };
                        // The nodes of the exact attempt count too (tester 109: "8 nodes, 1.40
                        // s", the search after it answered from the table the attempt filled),
                        // and the node limit is the whole choice's, as the time is: what the
                        // attempt left (depth 1 completes whatever the limit).
                        let nodes_left = limits.nodes.map(|n| n.saturating_sub(spent));
                        self.deepening(&p, rules, profile.depth, left, nodes_left, grace)
                            .map(|f| Found {
                                nodes: f.nodes + spent,
                                ..f
                            })
                    }
                }
            }
        };
        let Some(found) = found else {
            // Not expected (the game is not over): still a legal action, no value claimed.
            return Some(Choice::unsearched(legal[0]).ending(&p, rules));
        };
        Some(
            Choice {
                mv: found.mv,
                value: Some(found.value),
                exact: found.exact,
                depth: found.depth,
                nodes: found.nodes,
                pv: found.pv,
            }
            .ending(&p, rules),
        )
    }

    /// The exact solution within `time`, if it finishes; else the nodes it searched.
    fn exact(
        &mut self,
        pos: &Position,
        rules: &Rules,
        time: Duration,
        nodes: Option<u64>,
    ) -> Result<Found, u64> {
        let threads = self.threads;
        let solver = self.solver(rules);
        // A node limit of `prove_parallel` applies to each thread: share it out.
        let per_thread = nodes.map(|n| n / threads as u64);
        solver.set_limits(SearchLimits::new(Some(time), per_thread));
        // The value and one principal variation: listing every best action can take far longer
        // than the value (Kalah(8,2): about 1 s, then 25 s more).
        let sol = if threads > 1 {
            solver.prove_parallel(pos, threads)
        } else {
            solver.prove(pos)
        }
        .map_err(|e| match e {
            kalah_solver::SolveError::Stopped { stats, .. } => stats.nodes,
        })?;
        let mv = *sol.pv.first().ok_or(sol.stats.nodes)?;
        Ok(Found {
            mv,
            value: sol.value,
            exact: true,
            depth: sol.pv.len() as u32,
            nodes: sol.stats.nodes,
            pv: sol.pv,
        })
    }

    /// Iterative deepening to `depth` within `time` and `nodes` (ignoring the stop flag if
    /// `grace`). `None` only if the search found no action (not expected: the game is not over).
    fn deepening(
        &mut self,
        pos: &Position,
        rules: &Rules,
        depth: u32,
        time: Duration,
        nodes: Option<u64>,
        grace: bool,
    ) -> Option<Found> {
        let solver = self.solver(rules);
        if grace {
            solver.set_stop_flag(Arc::new(AtomicBool::new(false)));
        }
        solver.set_limits(SearchLimits::new(Some(time), nodes));
        let r = solver.iterative(pos, depth);
        let mv = r.best?;
        Some(Found {
            mv,
            value: r.value,
            exact: r.exact,
            depth: r.depth,
            nodes: r.stats.nodes,
            pv: r.pv,
        })
    }

    /// Values of every action from a shallow search, plus noise; the best noisy value wins, with
    /// the line its search expects after it.
    fn noisy(
        &mut self,
        pos: &Position,
        rules: &Rules,
        profile: Profile,
        time: Duration,
        nodes: Option<u64>,
    ) -> Option<Found> {
        let (values, searched) = self.estimate_moves(pos, rules, profile.depth, time, nodes, false);
        let mut best: Option<(i32, Estimate)> = None;
        for e in values {
            let noisy = e.value.value + self.rng.gen_range(-profile.noise..=profile.noise);
            if !matches!(best, Some((b, _)) if noisy <= b) {
                best = Some((noisy, e));
            }
        }
        let (_, e) = best?;
        Some(Found {
            mv: e.value.mv,
            value: e.value.value,
            exact: e.value.exact,
            depth: profile.depth,
            nodes: searched,
            pv: e.line,
        })
    }

    /// Heuristic value of every action, and the line it expects after it: a search of
    /// `depth - 1` plies after it, within the time (ignoring the stop flag if `grace`); and the
    /// nodes searched.
    fn estimate_moves(
        &mut self,
        pos: &Position,
        rules: &Rules,
        depth: u32,
        time: Duration,
        nodes: Option<u64>,
        grace: bool,
    ) -> (Vec<Estimate>, u64) {
        let Some(me) = pos.to_move() else {
            return (Vec::new(), 0);
        };
        let mut searched = 0;
        let legal = pos.legal_moves(rules);
        let start = Instant::now();
        let solver = self.solver(rules);
        if grace {
            solver.set_stop_flag(Arc::new(AtomicBool::new(false)));
        }
        let mut out = Vec::with_capacity(legal.len());
        for (i, &mv) in legal.iter().enumerate() {
            let mut child = *pos;
            let o = child.play_unchecked(rules, mv);
            if child.is_over() {
                out.push(Estimate {
                    value: MoveValue {
                        mv,
                        value: child.store_diff(me),
                        exact: true,
                    },
                    line: vec![mv],
                });
                continue;
            }
            let left = time.saturating_sub(start.elapsed());
            let share = (left / (legal.len() - i) as u32).max(Duration::from_millis(2));
            solver.set_limits(SearchLimits::new(
                Some(share),
                nodes.map(|n| n / legal.len() as u64),
            ));
            let r = solver.iterative(&child, depth.saturating_sub(1).max(1));
            searched += solver.last_stats().nodes;
            let v = if o.extra_turn { r.value } else { -r.value };
            let mut line = vec![mv];
            line.extend_from_slice(&r.pv);
            out.push(Estimate {
                value: MoveValue {
                    mv,
                    value: v,
                    exact: r.exact,
                },
                line,
            });
        }
        (out, searched)
    }

    /// The value of every legal action (exact where it can be proven within `limits`,
    /// estimated otherwise), in legal-move order. Empty if the game is over.
    ///
    /// The hint does not depend on the engine's level: it spends 70 % of the time (`limits.time`,
    /// 1 s if `None`) trying to prove every action's value exactly, and if that does not finish,
    /// the rest on depth-limited estimates of each action: at least 20 ms, so that every action
    /// gets an estimate deeper than one ply (a hint with a time limit under about 30 ms takes
    /// 20–30 ms).
    ///
    /// The stop flag ([`Engine::set_stop_flag`]) ends the search early: the values are then
    /// estimates, exact only where proven.
    pub fn hint(&mut self, pos: &Position, rules: &Rules, limits: Limits) -> Vec<MoveValue> {
        self.hint_with_nodes(pos, rules, limits).0
    }

    /// [`Engine::hint`], and the nodes it searched (by every thread, see
    /// [`Engine::set_threads`]): those of the exact attempt and, if it did not finish, those of
    /// the estimates after it; 0 if the game is over.
    ///
    /// A node limit (`limits.nodes`, `n`) applies as in [`Engine::hint`]: `n` nodes for the
    /// exact attempt, then, if it does not finish, `n` more for the estimates, shared evenly
    /// among the actions. Each search stops at the first check of its count at or past its
    /// limit (every 1 024 nodes, see [`SearchLimits::nodes`]), and an estimate's first ply is
    /// always searched whole, so the count reported may pass `n` (and, when the estimates ran,
    /// `2n`) by about 1 024 nodes for each search: the exact attempt's and one per action.
    pub fn hint_with_nodes(
        &mut self,
        pos: &Position,
        rules: &Rules,
        limits: Limits,
    ) -> (Vec<MoveValue>, u64) {
        let mut p = *pos;
        p.settle(rules);
        if p.legal_moves(rules).is_empty() {
            return (Vec::new(), 0);
        }
        let time = limits.time.unwrap_or(Duration::from_secs(1));
        let start = Instant::now();
        let (proof, spent) = self.analyze(&p, rules, time.mul_f64(0.7), limits.nodes);
        if let Ok(values) = proof {
            let values = values
                .into_iter()
                .map(|v| MoveValue {
                    mv: v.mv,
                    value: v.value,
                    exact: true,
                })
                .collect();
            return (values, spent);
        }
        let left = time
            .saturating_sub(start.elapsed())
            .max(Duration::from_millis(20));
        // Stopped: short estimates that ignore the flag, rather than one-ply guesses.
        let grace = self.stop_requested();
        let left = if grace { left.min(STOP_GRACE) } else { left };
        let (estimates, searched) = self.estimate_moves(&p, rules, 200, left, limits.nodes, grace);
        let values = estimates.into_iter().map(|e| e.value).collect();
        (values, spent + searched)
    }

    /// The exact value of every legal action of `pos` (settled, not over) within `time` and
    /// `nodes`, on the engine's threads; and the nodes searched (by every thread), whether it
    /// finished or not.
    fn analyze(
        &mut self,
        pos: &Position,
        rules: &Rules,
        time: Duration,
        nodes: Option<u64>,
    ) -> (Result<Vec<MoveScore>, SolveError>, u64) {
        // The actions that need a search (the others end the game): the parallel analysis's
        // jobs; more threads than jobs would idle.
        let jobs = search_jobs(pos, rules, false);
        let threads = self.threads.min(jobs);
        if threads <= 1 {
            let solver = self.solver(rules);
            solver.set_limits(SearchLimits::new(Some(time), nodes));
            let r = solver.analyze_moves(pos);
            return (r, solver.last_stats().nodes);
        }
        // The engine's solver comes first in the slice of solvers (it runs the ordering
        // searches); it is put back afterwards, keeping the table.
        let mut main = self.take_solver(rules);
        // A solver's node limit counts its nodes over the whole analysis (the first solver's
        // ordering searches too): the threads share the budget.
        let per_thread = nodes.map(|n| n / threads as u64);
        let limits = SearchLimits::new(Some(time), per_thread);
        // Claim the table for this game first (a trivial search), so that the helpers made
        // below share it rather than each taking a fresh one (see `Solver::set_rules`).
        main.set_limits(SearchLimits::default());
        if let Err(e) = main.search_depth(pos, 1) {
            // Not expected without limits or a stop flag; keep the solver all the same.
            let nodes = main.last_stats().nodes;
            self.solver = Some(main);
            return (Err(e), nodes);
        }
        main.set_limits(limits);
        let mut solvers = Vec::with_capacity(threads);
        for _ in 1..threads {
            let mut helper = main.with_shared_table();
            helper.set_limits(limits);
            solvers.push(helper);
        }
        solvers.insert(0, main);
        // The analysis gets a flag of its own, which it sets itself when one thread hits a
        // limit (so the engine's flag, the caller's, is never set by the engine); a watcher
        // passes the engine's flag on to it.
        let stop = Arc::new(AtomicBool::new(false));
        // The work of every thread, the ordering searches included.
        let stats = Arc::new(Mutex::new(Stats::default()));
        let opts = ParallelOptions {
            stop: Some(Arc::clone(&stop)),
            progress: None,
            stats: Some(Arc::clone(&stats)),
        };
        let done = AtomicBool::new(false);
        let user = &self.stop;
        let result = std::thread::scope(|scope| {
            scope.spawn(|| {
                while !done.load(Ordering::SeqCst) {
                    if user.load(Ordering::SeqCst) {
                        stop.store(true, Ordering::SeqCst);
                        break;
                    }
                    std::thread::park_timeout(STOP_POLL);
                }
            });
            let r = analyze_moves_parallel(&mut solvers, pos, &opts);
            done.store(true, Ordering::SeqCst);
            r
        });
        // The analysis leaves its own stop flag in every solver, set if one thread hit a limit
        // or was stopped; `take_solver` gives the engine's solver the engine's flag back before
        // its next search.
        self.solver = Some(solvers.swap_remove(0));
        let nodes = stats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .nodes;
        (result, nodes)
    }
}
