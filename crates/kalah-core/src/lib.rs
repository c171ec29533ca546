//! # kalah-core
//!
//! The rules of Kalah (W. J. Champion, 1940) and every common variant, exactly: sowing, captures,
//! extra turns, the end of the game and the sweep, the pie rule and the Manchester first-move
//! rule; a validated [`Position`] with its notation; whole turns; game records; perft.
//!
//! No I/O. Terms: **house**, **store**, **seed**, **sow**, **capture**, **extra turn**,
//! **sweep**. Positions are written in bin order: South houses 1..m, South store, North houses
//! 1..m, North store, then the side to move: `4,4,4,4,4,4,0,4,4,4,4,4,4,0 S`. Houses are numbered
//! 1..m on each side in that side's sowing order.
//!
//! ```
//! use kalah_core::{Move, Position, Rules, Start};
//! let rules = Rules::default();
//! let mut pos = Position::start(&Start::uniform(6, 4).unwrap(), &rules);
//! let out = pos.play(&rules, Move::Sow(3)).unwrap();
//! assert!(out.extra_turn); // 4 seeds from house 3 end in the store
//! assert_eq!(pos.to_string(), "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S");
//! ```

#![warn(missing_docs)]

pub mod error;
pub mod moves;
pub mod perft;
pub mod position;
pub mod record;
pub mod rules;

pub use error::{
    MoveError, ParseLayoutError, ParsePositionError, ParseSideError, RulesError, SetupError,
    TurnError,
};
pub use moves::{Move, Turn, TurnEnd};
pub use perft::{divide, perft, perft_full, perft_stoppable};
pub use position::{
    EndReason, MoveList, Outcome, Phase, PhaseTagProblem, Position, Setup, Side, Status,
};
pub use record::{turn_texts, GameRecord, RecordError, RecordedTurn};
pub use rules::{CaptureRule, EndRule, LeftoverRule, PhaseNeeds, Rules, Start};

/// Most houses a side.
pub const MAX_HOUSES: usize = 12;
/// Most bins (houses and stores) on a board: 2 × 12 + 2.
pub const MAX_PITS: usize = 2 * MAX_HOUSES + 2;
/// Most seeds on a board.
pub const MAX_SEEDS: u32 = 255;
