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
//! PLACEHOLDER: the search behind the levels is being built in `kalah-solver`; until then every
//! level plays a one-ply greedy move. The API below is the stable façade.

#![warn(missing_docs)]

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use kalah_core::{Move, Position, Rules};
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

/// A player at one level. Keeps its search state (transposition table) between moves.
#[derive(Debug)]
pub struct Engine {
    level: Level,
}

impl Engine {
    /// A new engine at `level`.
    pub fn new(level: Level) -> Engine {
        Engine { level }
    }

    /// A new engine whose random choices (lower levels) are fixed by `seed`, for reproducible
    /// games and tests.
    pub fn with_seed(level: Level, _seed: u64) -> Engine {
        Engine { level }
    }

    /// The engine's level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Chooses an action with the level's default limits. `None` if the game is over.
    pub fn choose(&mut self, pos: &Position, rules: &Rules) -> Option<Choice> {
        self.choose_with(pos, rules, Limits::default())
    }

    /// Chooses an action within `limits`. `None` if the game is over.
    pub fn choose_with(&mut self, pos: &Position, rules: &Rules, limits: Limits) -> Option<Choice> {
        let best = self
            .hint(pos, rules, limits)
            .into_iter()
            .max_by_key(|mv| mv.value)?;
        Some(Choice {
            mv: best.mv,
            value: None,
            exact: false,
            depth: 1,
            nodes: 0,
            pv: vec![best.mv],
        })
    }

    /// The value of every legal action (exact where it can be proven within `limits`,
    /// estimated otherwise), in legal-move order. Empty if the game is over.
    pub fn hint(&mut self, pos: &Position, rules: &Rules, _limits: Limits) -> Vec<MoveValue> {
        let Some(me) = pos.to_move() else {
            return Vec::new();
        };
        pos.legal_moves(rules)
            .into_iter()
            .map(|mv| {
                let mut child = *pos;
                child.play_unchecked(rules, mv);
                MoveValue {
                    mv,
                    value: child.store_diff(me),
                    exact: false,
                }
            })
            .collect()
    }
}
