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

#![warn(missing_docs)]

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah_core::{Move, Position, Rules};
use kalah_egdb::Egdb;
use kalah_solver::{SearchLimits, Solver};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// Engine strength, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// Shallow search with much randomness.
    Beginner,
    /// Shallow search with some randomness.
    Easy,
    /// Medium-depth search.
    Medium,
    /// Deep search.
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

/// Limits on one move's thinking. `None` means the level's default.
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
    /// Value of the position for the side to move (final store difference) if known or
    /// estimated.
    pub value: Option<i32>,
    /// Whether `value` is proven exact.
    pub exact: bool,
    /// Depth of the search that chose the move (plies), 0 for a random or greedy choice.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Expected continuation, starting with `mv`.
    pub pv: Vec<Move>,
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
}

/// What one search of the engine found.
struct Found {
    mv: Move,
    value: i32,
    exact: bool,
    depth: u32,
    nodes: u64,
    pv: Vec<Move>,
}

impl Engine {
    /// A new engine at `level`.
    pub fn new(level: Level) -> Engine {
        Engine {
            level,
            rng: StdRng::from_entropy(),
            solver: None,
            egdb: None,
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

    fn solver(&mut self, rules: &Rules) -> &mut Solver {
        let tt = self.level.profile().tt_mib;
        let egdb = self.egdb.clone();
        let s = self.solver.get_or_insert_with(|| {
            let mut s = Solver::new(*rules, tt);
            s.set_egdb(egdb);
            s
        });
        s.set_rules(*rules);
        s
    }

    /// Chooses an action with the level's default limits. `None` if the game is over.
    pub fn choose(&mut self, pos: &Position, rules: &Rules) -> Option<Choice> {
        self.choose_with(pos, rules, Limits::default())
    }

    /// Chooses an action within `limits`. `None` if the game is over.
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
            return Some(Choice {
                mv: legal[0],
                value: None,
                exact: false,
                depth: 0,
                nodes: 0,
                pv: vec![legal[0]],
            });
        }
        if profile.random > 0.0 && self.rng.gen_bool(profile.random) {
            let mv = legal[self.rng.gen_range(0..legal.len())];
            return Some(Choice {
                mv,
                value: None,
                exact: false,
                depth: 0,
                nodes: 0,
                pv: vec![mv],
            });
        }
        let found = match self.level {
            Level::Beginner | Level::Easy => self.noisy(&p, rules, profile, time, limits.nodes),
            Level::Medium | Level::Hard | Level::Expert => {
                self.deepening(&p, rules, profile.depth, time, limits.nodes)
            }
            Level::Perfect => {
                let exact_time = time.mul_f64(0.7);
                match self.exact(&p, rules, exact_time, limits.nodes) {
                    Some(f) => f,
                    None => {
                        let left = time
                            .saturating_sub(start.elapsed())
                            .max(Duration::from_millis(10));
                        self.deepening(&p, rules, profile.depth, left, limits.nodes)
                    }
                }
            }
        };
        Some(Choice {
            mv: found.mv,
            value: Some(found.value),
            exact: found.exact,
            depth: found.depth,
            nodes: found.nodes,
            pv: found.pv,
        })
    }

    /// The exact solution within `time`, if it finishes.
    fn exact(
        &mut self,
        pos: &Position,
        rules: &Rules,
        time: Duration,
        nodes: Option<u64>,
    ) -> Option<Found> {
        let solver = self.solver(rules);
        solver.set_limits(SearchLimits::new(Some(time), nodes));
        let sol = solver.solve(pos).ok()?;
        let mv = *sol.pv.first()?;
        Some(Found {
            mv,
            value: sol.value,
            exact: true,
            depth: sol.pv.len() as u32,
            nodes: sol.stats.nodes,
            pv: sol.pv,
        })
    }

    /// Iterative deepening to `depth` within `time` and `nodes`.
    fn deepening(
        &mut self,
        pos: &Position,
        rules: &Rules,
        depth: u32,
        time: Duration,
        nodes: Option<u64>,
    ) -> Found {
        let solver = self.solver(rules);
        solver.set_limits(SearchLimits::new(Some(time), nodes));
        let r = solver.iterative(pos, depth);
        let mv = r.best.expect("the game is not over");
        Found {
            mv,
            value: r.value,
            exact: r.exact,
            depth: r.depth,
            nodes: r.stats.nodes,
            pv: r.pv,
        }
    }

    /// Values of every action from a shallow search, plus noise; the best noisy value wins.
    fn noisy(
        &mut self,
        pos: &Position,
        rules: &Rules,
        profile: Profile,
        time: Duration,
        nodes: Option<u64>,
    ) -> Found {
        let values = self.estimate_moves(pos, rules, profile.depth, time, nodes);
        let mut best: Option<(i32, MoveValue)> = None;
        for v in values {
            let noisy = v.value + self.rng.gen_range(-profile.noise..=profile.noise);
            if !matches!(best, Some((b, _)) if noisy <= b) {
                best = Some((noisy, v));
            }
        }
        let (_, v) = best.expect("legal moves");
        Found {
            mv: v.mv,
            value: v.value,
            exact: v.exact,
            depth: profile.depth,
            nodes: 0,
            pv: vec![v.mv],
        }
    }

    /// Heuristic value of every action: a search of `depth - 1` plies after it, within the time.
    fn estimate_moves(
        &mut self,
        pos: &Position,
        rules: &Rules,
        depth: u32,
        time: Duration,
        nodes: Option<u64>,
    ) -> Vec<MoveValue> {
        let Some(me) = pos.to_move() else {
            return Vec::new();
        };
        let legal = pos.legal_moves(rules);
        let start = Instant::now();
        let solver = self.solver(rules);
        let mut out = Vec::with_capacity(legal.len());
        for (i, &mv) in legal.iter().enumerate() {
            let mut child = *pos;
            let o = child.play_unchecked(rules, mv);
            if child.is_over() {
                out.push(MoveValue {
                    mv,
                    value: child.store_diff(me),
                    exact: true,
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
            let v = if o.extra_turn { r.value } else { -r.value };
            out.push(MoveValue {
                mv,
                value: v,
                exact: r.exact,
            });
        }
        out
    }

    /// The value of every legal action (exact where it can be proven within `limits`,
    /// estimated otherwise), in legal-move order. Empty if the game is over.
    pub fn hint(&mut self, pos: &Position, rules: &Rules, limits: Limits) -> Vec<MoveValue> {
        let mut p = *pos;
        p.settle(rules);
        if p.legal_moves(rules).is_empty() {
            return Vec::new();
        }
        let time = limits.time.unwrap_or(Duration::from_secs(1));
        let start = Instant::now();
        let solver = self.solver(rules);
        solver.set_limits(SearchLimits::new(Some(time.mul_f64(0.7)), limits.nodes));
        if let Ok(values) = solver.analyze_moves(&p) {
            return values
                .into_iter()
                .map(|v| MoveValue {
                    mv: v.mv,
                    value: v.value,
                    exact: true,
                })
                .collect();
        }
        let left = time
            .saturating_sub(start.elapsed())
            .max(Duration::from_millis(20));
        self.estimate_moves(&p, rules, 200, left, limits.nodes)
    }
}
