//! Typed errors of the rules crate. Each message names the problem and, for parse errors, where.

use thiserror::Error;

/// A rule set, a starting layout or a board size that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RulesError {
    /// The number of houses a side is outside 1..=12.
    #[error("a side must have 1 to 12 houses, not {0}")]
    Houses(usize),
    /// The board holds no seed at all.
    #[error("the board holds no seeds")]
    NoSeeds,
    /// The board would hold more than 255 seeds.
    #[error("the board would hold {0} seeds; at most 255 are supported")]
    TooManySeeds(u64),
    /// A rules item is not of the form `key=value`.
    #[error("rules item '{0}' is not of the form key=value")]
    NotKeyValue(String),
    /// An unknown rules key.
    #[error("unknown rules key '{0}' (known: capture, end, leftovers, majority-end, pie, first-move-extra-turn)")]
    UnknownKey(String),
    /// A rules value that the key does not take.
    #[error("'{value}' is not a value of {key}: expected {expected}")]
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What the key takes.
        expected: &'static str,
    },
}

/// A position that cannot be set up: the pit counts break the board's limits.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupError {
    /// The number of pits is not 2m+2 for some m in 1..=12 (4, 6, …, 26).
    #[error(
        "a position has 2m+2 pit counts for 1 to 12 houses a side (4, 6, ..., 26 numbers), not {0}"
    )]
    PitCount(usize),
    /// The board holds no seed although the game goes on.
    #[error("the position holds no seeds")]
    NoSeeds,
    /// More than 255 seeds in all.
    #[error("the position holds {0} seeds; at most 255 are supported")]
    TooManySeeds(u32),
    /// A game marked over still has seeds in its houses.
    #[error("a position with seeds in its houses needs a side to move (S or N) after the pit counts; only a finished game, every house empty, has none")]
    OverWithSeeds,
    /// The opening phase given does not fit the position (e.g. `opening` with North to move).
    #[error("phase '{phase}' needs {needs}")]
    Phase {
        /// The phase tag.
        phase: &'static str,
        /// What it needs.
        needs: &'static str,
    },
}

/// A position string that does not parse. `at` is the 1-based character column of the problem.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePositionError {
    /// Empty input.
    #[error("empty position: expected pit counts in bin order, then S or N, e.g. '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'")]
    Empty,
    /// A pit count is not a number 0..=255.
    #[error("column {at}: '{text}' is not a seed count (0 to 255)")]
    BadCount {
        /// Column of the token.
        at: usize,
        /// The token.
        text: String,
    },
    /// The side token is not S or N.
    #[error("column {at}: '{text}' is not a side to move (S or N)")]
    BadSide {
        /// Column of the token.
        at: usize,
        /// The token.
        text: String,
    },
    /// An unknown trailing token.
    #[error("column {at}: unexpected '{text}' (after the side only 'opening', 'first-turn' or 'pie' may follow)")]
    Trailing {
        /// Column of the token.
        at: usize,
        /// The token.
        text: String,
    },
    /// The counts parse but do not make a valid position.
    #[error(transparent)]
    Setup(#[from] SetupError),
}

/// A move that cannot be played in the position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MoveError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// House number outside 1..=m.
    #[error("there is no house {house}: houses are numbered 1 to {houses}")]
    NoSuchHouse {
        /// The house asked for.
        house: u8,
        /// Houses a side.
        houses: usize,
    },
    /// The house is empty.
    #[error("house {0} is empty")]
    EmptyHouse(u8),
    /// `swap` outside North's first action under the pie rule.
    #[error("swap is only allowed as North's first action under the pie rule")]
    SwapNotAllowed,
    /// A move text that is neither a house number nor `swap`.
    #[error("'{0}' is not a move: expected a house number or 'swap'")]
    Parse(String),
}

/// A turn (`3-6`) that cannot be played: which move of it failed and why.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TurnError {
    /// A move of the turn is illegal.
    #[error("move {index} of turn '{turn}': {source}")]
    Move {
        /// The turn as written.
        turn: String,
        /// 1-based index of the failing move in the turn.
        index: usize,
        /// Why.
        source: MoveError,
    },
    /// The turn ends while the same player is still to move (an extra turn was earned).
    #[error("turn '{0}' is incomplete: the last move earns an extra turn")]
    Incomplete(String),
    /// The turn goes on after the player lost the move.
    #[error("turn '{turn}' goes on after move {index}, which ends the turn")]
    TooLong {
        /// The turn as written.
        turn: String,
        /// 1-based index of the move that ended the turn.
        index: usize,
    },
}
