//! Moves (one sowing, or the pie-rule swap) and whole turns (`3-6`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{MoveError, TurnError};
use crate::position::{Outcome, Position};
use crate::rules::Rules;

/// One action: sow a house of the side to move, or swap sides under the pie rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// Sow the mover's house `h`, numbered 1..m in the mover's sowing order.
    Sow(u8),
    /// Pie rule: North exchanges sides with South instead of answering South's first turn.
    Swap,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Sow(h) => write!(f, "{h}"),
            Move::Swap => f.write_str("swap"),
        }
    }
}

/// A house number (`3`) or `swap`. Range is checked against a position, not here.
impl FromStr for Move {
    type Err = MoveError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("swap") {
            return Ok(Move::Swap);
        }
        match t.parse::<u8>() {
            Ok(h) => Ok(Move::Sow(h)),
            Err(_) => Err(MoveError::Parse(t.to_string())),
        }
    }
}

impl Serialize for Move {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A whole turn: the moves of one player until the other is to move or the game ends, joined
/// by `-` in notation (`3-6`: house 3 ends in the store, then house 6).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Turn(pub Vec<Move>);

impl Turn {
    /// The moves of the turn.
    pub fn moves(&self) -> &[Move] {
        &self.0
    }

    /// Plays the whole turn on `pos`, checking that each move is legal, that every move but the
    /// last earns an extra turn, and that the last does not (unless it ends the game).
    ///
    /// # Errors
    /// [`TurnError`] naming the failing move; `pos` is then unchanged.
    pub fn play(&self, pos: &mut Position, rules: &Rules) -> Result<Vec<Outcome>, TurnError> {
        let mut p = *pos;
        let mut outcomes = Vec::with_capacity(self.0.len());
        if self.0.is_empty() {
            return Err(TurnError::Incomplete(String::new()));
        }
        for (i, &mv) in self.0.iter().enumerate() {
            let out = p.play(rules, mv).map_err(|source| TurnError::Move {
                turn: self.to_string(),
                index: i + 1,
                source,
            })?;
            let turn_goes_on = out.extra_turn && out.ended.is_none();
            let is_last = i + 1 == self.0.len();
            if is_last && turn_goes_on {
                return Err(TurnError::Incomplete(self.to_string()));
            }
            if !is_last && !turn_goes_on {
                return Err(TurnError::TooLong {
                    turn: self.to_string(),
                    index: i + 1,
                });
            }
            outcomes.push(out);
        }
        *pos = p;
        Ok(outcomes)
    }

    /// Every whole turn of the side to move, in increasing move order, with the position after
    /// it. Chains of extra turns are expanded; a swap is a turn of its own. Empty if the game is
    /// over.
    pub fn all(pos: &Position, rules: &Rules) -> Vec<(Turn, Position)> {
        let mut out = Vec::new();
        let mut stack = Vec::new();
        expand(pos, rules, &mut stack, &mut out);
        out
    }
}

fn expand(pos: &Position, rules: &Rules, prefix: &mut Vec<Move>, out: &mut Vec<(Turn, Position)>) {
    for mv in pos.legal_moves(rules) {
        let mut child = *pos;
        let o = child.play_unchecked(rules, mv);
        prefix.push(mv);
        if o.extra_turn && o.ended.is_none() {
            expand(&child, rules, prefix, out);
        } else {
            out.push((Turn(prefix.clone()), child));
        }
        prefix.pop();
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, m) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("-")?;
            }
            write!(f, "{m}")?;
        }
        Ok(())
    }
}

/// `3-6`, `5`, `swap`. Also accepts `,` between the moves.
impl FromStr for Turn {
    type Err = MoveError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t.is_empty() {
            return Err(MoveError::Parse(String::new()));
        }
        t.split(['-', ','])
            .map(str::parse)
            .collect::<Result<Vec<_>, _>>()
            .map(Turn)
    }
}

impl Serialize for Turn {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Turn {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
