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
    ///
    /// The board is unchanged and North is still to move ([`Position::play`]): the person who
    /// swapped now owns South, with its houses and store, and the first player, who now owns
    /// North, moves next. Positions, values and moves always speak of the sides, not of the
    /// persons: a program that names the players (as a game record's tags do) follows who owns
    /// which side after a swap. A record of a game with a swap therefore shows North twice in a
    /// row (`2. N swap`, then `3. N 1`).
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

/// A house number in plain digits (`3`: no sign, no leading zero) or `swap` (any case),
/// surrounding white space ignored. The house is checked against a position, not here.
///
/// # Errors
/// [`MoveError::HouseTooLarge`] for plain digits above 255; [`MoveError::Parse`] for anything
/// else, `+3` and `03` included: every front end (`kalah show --moves`, `kalah play`, game
/// records, the web API) reads moves here, so they all accept the same spellings.
impl FromStr for Move {
    type Err = MoveError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("swap") {
            return Ok(Move::Swap);
        }
        let plain = !t.is_empty()
            && t.bytes().all(|b| b.is_ascii_digit())
            && (t == "0" || !t.starts_with('0'));
        if !plain {
            return Err(MoveError::Parse(t.to_string()));
        }
        // Plain digits that do not fit a u8 can only be too large.
        t.parse::<u8>()
            .map(Move::Sow)
            .map_err(|_| MoveError::HouseTooLarge(t.to_string()))
    }
}

impl Serialize for Move {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Reads what [`Move::from_str`] reads (`"3"`, `"swap"`), and also a house number given as an
/// integer (`3`) in formats that describe their values (JSON, TOML, YAML). Written always as a
/// string.
impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MoveVisitor;
        impl serde::de::Visitor<'_> for MoveVisitor {
            type Value = Move;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a house number (1..m) or \"swap\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Move, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Move, E> {
                u8::try_from(v)
                    .map(Move::Sow)
                    .map_err(|_| E::custom(MoveError::HouseTooLarge(v.to_string())))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Move, E> {
                match u64::try_from(v) {
                    Ok(u) => self.visit_u64(u),
                    Err(_) => Err(E::custom(MoveError::Parse(v.to_string()))),
                }
            }
        }
        // Formats that do not describe their values (bincode) get the string written.
        if d.is_human_readable() {
            d.deserialize_any(MoveVisitor)
        } else {
            d.deserialize_str(MoveVisitor)
        }
    }
}

/// A whole turn: the moves of one player until the other is to move or the game ends, joined
/// by `-` in notation (`3-6`: house 3 ends in the store, then house 6).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Turn(pub Vec<Move>);

/// Where a written turn (`3-6`, `3-`, or the actions typed so far) claims to end; see
/// [`Turn::check_step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TurnEnd {
    /// A whole turn (`3-6`, as game records write finished turns, and [`Turn::play`]): its last
    /// action must end the mover's turn, either earning no extra turn or ending the game.
    Whole,
    /// An unfinished turn, written with a trailing `-` (`3-`, `3-6-`, as game records and the web
    /// API write a turn still going on): its last action must earn an extra turn and leave the
    /// game going.
    Open,
    /// The first actions of a turn, typed as input (`3-6` to `kalah play` or in the web API's
    /// `move`): it may stop anywhere within the turn, and only must not go past its end.
    Prefix,
}

impl Turn {
    /// The moves of the turn.
    pub fn moves(&self) -> &[Move] {
        &self.0
    }

    /// The error for the action `self.moves()[k]` (`k` counts from 0) found illegal, for `source`,
    /// in the position the turn's earlier actions leave: [`TurnError::Move`], the one wording of
    /// every place that reads a written turn (`'3-3': action 2 (house 3) cannot be played: house
    /// 3 is empty`).
    ///
    /// # Panics
    /// If `k` is not an index of [`Turn::moves`] (a caller's bug, not bad input).
    pub fn illegal_step(&self, k: usize, source: MoveError) -> TurnError {
        TurnError::Move {
            turn: self.to_string(),
            index: k + 1,
            mv: self.0[k],
            source,
        }
    }

    /// Checks that the action `self.moves()[k]` (`k` counts from 0), just played with outcome
    /// `out`, leaves the turn where the text says it goes: every action but the last must earn
    /// an extra turn that the game goes on for (a written turn stays within one player's turn),
    /// and the last one must end the turn for [`TurnEnd::Whole`] and must not for
    /// [`TurnEnd::Open`]. This is the one check, and the one wording, of every place that reads
    /// a written turn: [`Turn::play`], game records, the web API and `kalah play`. Legality of
    /// the action itself is the caller's ([`Position::play`]).
    ///
    /// # Errors
    /// [`TurnError::TooLong`] when an action other than the last ends the turn or the game;
    /// [`TurnError::Incomplete`] when the last action of a [`TurnEnd::Whole`] turn earns an
    /// extra turn in a game that goes on; [`TurnError::OpenNoExtraTurn`] when the last action of
    /// a [`TurnEnd::Open`] turn earns none or ends the game.
    ///
    /// # Panics
    /// If `k` is not an index of [`Turn::moves`] (a caller's bug, not bad input).
    pub fn check_step(&self, end: TurnEnd, k: usize, out: &Outcome) -> Result<(), TurnError> {
        let mv = self.0[k];
        let goes_on = out.extra_turn && out.ended.is_none();
        let game_over = out.ended.is_some();
        let last = k + 1 == self.0.len();
        let turn = || self.to_string();
        if !last {
            if goes_on {
                return Ok(());
            }
            return Err(TurnError::TooLong {
                turn: turn(),
                index: k + 1,
                mv,
                game_over,
            });
        }
        match end {
            TurnEnd::Whole if goes_on => Err(TurnError::Incomplete {
                turn: turn(),
                index: k + 1,
                mv,
            }),
            TurnEnd::Open if !goes_on => Err(TurnError::OpenNoExtraTurn {
                turn: turn(),
                index: k + 1,
                mv,
                game_over,
            }),
            _ => Ok(()),
        }
    }

    /// Plays the whole turn on `pos`, checking that each move is legal, that every move but the
    /// last earns an extra turn, and that the last does not (unless it ends the game): the
    /// checks of [`Turn::check_step`] with [`TurnEnd::Whole`].
    ///
    /// # Errors
    /// As [`Turn::play_as`]; `pos` is then unchanged.
    pub fn play(&self, pos: &mut Position, rules: &Rules) -> Result<Vec<Outcome>, TurnError> {
        self.play_as(pos, rules, TurnEnd::Whole)
    }

    /// Plays the turn on `pos` as a text claiming to end at `end` (see [`TurnEnd`]): each
    /// action must be legal ([`Turn::illegal_step`]) and leave the turn where the text says
    /// ([`Turn::check_step`]). The outcome of each action, in order.
    ///
    /// # Errors
    /// [`TurnError::Empty`] for a turn without moves, [`TurnError::Move`] for an illegal move,
    /// else as [`Turn::check_step`]; `pos` is then unchanged.
    pub fn play_as(
        &self,
        pos: &mut Position,
        rules: &Rules,
        end: TurnEnd,
    ) -> Result<Vec<Outcome>, TurnError> {
        let mut p = *pos;
        let mut outcomes = Vec::with_capacity(self.0.len());
        if self.0.is_empty() {
            return Err(TurnError::Empty);
        }
        for (i, &mv) in self.0.iter().enumerate() {
            let out = p
                .play(rules, mv)
                .map_err(|source| self.illegal_step(i, source))?;
            self.check_step(end, i, &out)?;
            outcomes.push(out);
        }
        *pos = p;
        Ok(outcomes)
    }

    /// Why the written turn `text` cannot be played in `pos` when it holds a house number above
    /// 255 among two actions or more (`3-99999`, `99999-3`): [`Turn::parse_written`] refuses
    /// such a text with [`MoveError::HouseTooLarge`] before the board is known, and this tells
    /// it as any other written turn is told, the first problem first: an action before that
    /// house that cannot be played ([`TurnError::Move`]) or that ends the turn the text goes on
    /// with ([`TurnError::TooLong`]), else that house, with the board's houses
    /// ([`TurnError::NoSuchLargeHouse`]). The turn is quoted as `text` is written, without the
    /// trailing `-` of an unfinished turn and with dashes for commas, as [`Turn`]'s `Display`
    /// writes it. With it, the position in which the action told of was to be played (`pos`
    /// after the actions before it).
    ///
    /// `None` when `text` is one action (a front end tells a lone house in its own words), has
    /// no such house, or has a problem before it that reading finds (an empty action, a word
    /// that is not an action): the reading error stands.
    pub fn refuse_large_house(
        text: &str,
        pos: &Position,
        rules: &Rules,
    ) -> Option<(TurnError, Position)> {
        let written = text.trim();
        let body = written.strip_suffix('-').unwrap_or(written);
        if !body.contains(['-', ',']) {
            return None;
        }
        let mut before = Vec::new();
        for (k, a) in body.split(['-', ',']).enumerate() {
            match a.parse::<Move>() {
                Ok(mv) => before.push(mv),
                Err(MoveError::HouseTooLarge(house)) => {
                    let turn = body.replace(',', "-");
                    // The actions before it must each leave the mover to move: as an
                    // unfinished turn (`3-`) is checked, told as the whole text goes on.
                    let before = Turn(before);
                    // (Nothing before it: it is the first problem.)
                    let mut scratch = *pos;
                    let played = if before.0.is_empty() {
                        Ok(Vec::new())
                    } else {
                        before.play_as(&mut scratch, rules, TurnEnd::Open)
                    };
                    let err = match played {
                        Ok(_) => TurnError::NoSuchLargeHouse {
                            turn,
                            index: k + 1,
                            source: MoveError::NoSuchLargeHouse {
                                house: house.clone(),
                                houses: pos.houses(),
                            },
                            house,
                        },
                        Err(TurnError::OpenNoExtraTurn {
                            index,
                            mv,
                            game_over,
                            ..
                        }) => TurnError::TooLong {
                            turn,
                            index,
                            mv,
                            game_over,
                        },
                        Err(TurnError::Move {
                            index, mv, source, ..
                        }) => TurnError::Move {
                            turn,
                            index,
                            mv,
                            source,
                        },
                        Err(other) => other,
                    };
                    // Where that action was to be played: after the ones before it.
                    let told = match &err {
                        TurnError::NoSuchLargeHouse { index, .. }
                        | TurnError::Move { index, .. }
                        | TurnError::TooLong { index, .. } => *index,
                        _ => 1,
                    };
                    let mut at = *pos;
                    for &mv in &before.0[..told - 1] {
                        at.play_unchecked(rules, mv);
                    }
                    return Some((err, at));
                }
                Err(_) => return None,
            }
        }
        None
    }

    /// Every whole turn of the side to move, in increasing move order, with the position after
    /// it. Chains of extra turns are expanded; a swap is a turn of its own. Empty if the game is
    /// over.
    ///
    /// The count grows with the chains of extra turns a position allows: ten at the start of
    /// Kalah(6,4), but a wide board with houses one seed short of the store each (e.g.
    /// `12,11,10,9,8,7,6,5,4,3,2,1,0,1,0,0,0,0,0,0,0,0,0,0,0,0 S`) has about 1.7 million, some
    /// 190 MB. A program that takes positions from users should bound it (or value single
    /// actions, as [`Position::legal_moves`] lists them, instead).
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

impl Turn {
    /// Reads a turn as game records and the web API write it: `3-6`, `5`, `swap` (a whole
    /// turn: [`TurnEnd::Whole`]) or with a trailing `-`, `3-`, `3-6-` (a turn still going on:
    /// [`TurnEnd::Open`]), for [`Turn::play_as`]. The actions are read as by `Turn`'s
    /// [`FromStr`]; the claim is checked only when played.
    ///
    /// # Errors
    /// As `Turn`'s [`FromStr`] (after one trailing `-`): [`MoveError::EmptyAction`] for an empty
    /// action (`3--6`, `-1`, `3--`), else the error of the first item that is not an action.
    pub fn parse_written(text: &str) -> Result<(Turn, TurnEnd), MoveError> {
        let t = text.trim();
        match t.strip_suffix('-') {
            Some(body) => Ok((body.parse()?, TurnEnd::Open)),
            None => Ok((t.parse()?, TurnEnd::Whole)),
        }
    }
}

/// `3-6`, `5`, `swap`. Also accepts `,` between the moves. A trailing `-` (an unfinished turn,
/// `3-`) is refused here: [`Turn::parse_written`] reads it.
///
/// # Errors
/// [`MoveError::EmptyAction`] if the text or any action in it is empty (`3--6`, `-1`, `3-`),
/// before any other; else the first action's error from [`Move`]'s [`FromStr`].
impl FromStr for Turn {
    type Err = MoveError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t.split(['-', ',']).any(|a| a.trim().is_empty()) {
            return Err(MoveError::EmptyAction);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_turn_says_whether_it_goes_on() {
        let t = |v: &[u8]| Turn(v.iter().map(|&h| Move::Sow(h)).collect());
        assert_eq!(
            Turn::parse_written("3-6").unwrap(),
            (t(&[3, 6]), TurnEnd::Whole)
        );
        assert_eq!(
            Turn::parse_written(" 3- ").unwrap(),
            (t(&[3]), TurnEnd::Open)
        );
        assert_eq!(
            Turn::parse_written("3-6-").unwrap(),
            (t(&[3, 6]), TurnEnd::Open)
        );
        assert_eq!(
            Turn::parse_written("swap").unwrap(),
            (Turn(vec![Move::Swap]), TurnEnd::Whole)
        );
        for bad in ["", "-", "3--", "3--6", "-3", "x-"] {
            assert!(Turn::parse_written(bad).is_err(), "{bad}");
        }
        // The written form of an open turn reads back, and plays as the record's.
        let r = Rules::default();
        let mut pos: Position = START.parse().unwrap();
        let (turn, end) = Turn::parse_written("3-").unwrap();
        assert!(turn.play_as(&mut pos, &r, end).is_ok());
        assert_eq!(pos.side(), crate::Side::South);
    }

    /// Plays `turn` on `pos` action by action, checking each step as `end` says: the first
    /// refusal, or the position after the turn.
    fn check(pos: &str, rules: &Rules, turn: &str, end: TurnEnd) -> Result<Position, TurnError> {
        let mut p: Position = pos.parse().unwrap();
        let turn: Turn = turn.parse().unwrap();
        for (k, &mv) in turn.moves().iter().enumerate() {
            let out = p.play(rules, mv).unwrap();
            turn.check_step(end, k, &out)?;
        }
        Ok(p)
    }

    const START: &str = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S";
    /// Kalah(3,·): South's house 3 holds the one seed of South's row; sowing it lands in South's
    /// store (an extra turn) and empties South's row (the game ends).
    const LAST_SEED: &str = "0,0,1,0,2,2,2,0 S";

    #[test]
    fn a_whole_turn_that_stops_while_an_extra_turn_is_owed() {
        let r = Rules::default();
        // House 3's 4 seeds go to houses 4, 5, 6 and the store: an extra turn.
        let e = check(START, &r, "3", TurnEnd::Whole).unwrap_err();
        assert_eq!(
            e,
            TurnError::Incomplete {
                turn: "3".into(),
                index: 1,
                mv: Move::Sow(3)
            }
        );
        assert_eq!(
            e.to_string(),
            "'3' stops, but action 1 (house 3) earns an extra turn; write '3-' if the turn is \
             unfinished"
        );
        // The same text as the first action typed, or as an unfinished turn, is fine.
        assert!(check(START, &r, "3", TurnEnd::Prefix).is_ok());
        assert!(check(START, &r, "3", TurnEnd::Open).is_ok());
        // Turn::play is the Whole check.
        let mut p: Position = START.parse().unwrap();
        assert_eq!(Turn(vec![Move::Sow(3)]).play(&mut p, &r), Err(e));
        assert_eq!(p, START.parse().unwrap());
    }

    #[test]
    fn a_turn_that_goes_on_after_its_turn_ended() {
        let r = Rules::default();
        // 3 earns an extra turn; then house 6's 5 seeds reach North's houses 1..4: North to
        // move, so North's 1 cannot be in South's turn.
        for end in [TurnEnd::Whole, TurnEnd::Open, TurnEnd::Prefix] {
            let e = check(START, &r, "3-6-1", end).unwrap_err();
            assert_eq!(
                e,
                TurnError::TooLong {
                    turn: "3-6-1".into(),
                    index: 2,
                    mv: Move::Sow(6),
                    game_over: false
                }
            );
            assert_eq!(
                e.to_string(),
                "'3-6-1' goes on after action 2 (house 6), which ends the turn"
            );
        }
        let after = check(START, &r, "3-6", TurnEnd::Whole).unwrap();
        assert_eq!(after.to_string(), "4,4,0,5,5,0,2,5,5,5,5,4,4,0 N");
        // A swap never earns an extra turn: nothing may follow it.
        let pie = Rules {
            pie: true,
            ..Rules::default()
        };
        let e = check(
            "4,4,4,4,4,0,1,5,5,5,4,4,4,0 N pie",
            &pie,
            "swap-1",
            TurnEnd::Prefix,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "'swap-1' goes on after action 1 (swap), which ends the turn"
        );
        assert!(check(
            "4,4,4,4,4,0,1,5,5,5,4,4,4,0 N pie",
            &pie,
            "swap",
            TurnEnd::Whole
        )
        .is_ok());
    }

    #[test]
    fn an_open_turn_whose_last_action_earns_no_extra_turn() {
        let r = Rules::default();
        // House 1's 4 seeds end in house 5: no extra turn, so '1-' claims one it does not have.
        let e = check(START, &r, "1", TurnEnd::Open).unwrap_err();
        assert_eq!(
            e,
            TurnError::OpenNoExtraTurn {
                turn: "1".into(),
                index: 1,
                mv: Move::Sow(1),
                game_over: false
            }
        );
        assert_eq!(
            e.to_string(),
            "'1-' ends with '-', but action 1 (house 1) earns no extra turn"
        );
        let e = check(START, &r, "3-6", TurnEnd::Open).unwrap_err();
        assert_eq!(
            e.to_string(),
            "'3-6-' ends with '-', but action 2 (house 6) earns no extra turn"
        );
        assert!(check(START, &r, "1", TurnEnd::Whole).is_ok());
        assert!(check(START, &r, "1", TurnEnd::Prefix).is_ok());
    }

    #[test]
    fn an_extra_turn_that_ends_the_game_ends_the_turn() {
        let r = Rules::default();
        let mut p: Position = LAST_SEED.parse().unwrap();
        let out = p.play(&r, Move::Sow(3)).unwrap();
        assert!(out.extra_turn && out.ended.is_some(), "{out:?}");
        // As a whole turn, or typed, '3' is complete: the game is over.
        assert!(check(LAST_SEED, &r, "3", TurnEnd::Whole).is_ok());
        assert!(check(LAST_SEED, &r, "3", TurnEnd::Prefix).is_ok());
        // Unfinished, it is not: the game has ended.
        let e = check(LAST_SEED, &r, "3", TurnEnd::Open).unwrap_err();
        assert_eq!(
            e,
            TurnError::OpenNoExtraTurn {
                turn: "3".into(),
                index: 1,
                mv: Move::Sow(3),
                game_over: true
            }
        );
        assert_eq!(
            e.to_string(),
            "'3-' ends with '-', but action 1 (house 3) ends the game"
        );
        // Nothing may follow it (refused before the next action is tried).
        let mut q: Position = LAST_SEED.parse().unwrap();
        let e = "3-1".parse::<Turn>().unwrap().play(&mut q, &r).unwrap_err();
        assert_eq!(
            e,
            TurnError::TooLong {
                turn: "3-1".into(),
                index: 1,
                mv: Move::Sow(3),
                game_over: true
            }
        );
        assert_eq!(
            e.to_string(),
            "'3-1' goes on after action 1 (house 3), which ends the game"
        );
        assert_eq!(q, LAST_SEED.parse().unwrap());
    }

    #[test]
    fn an_empty_turn_is_refused() {
        let mut p: Position = START.parse().unwrap();
        let e = Turn(vec![]).play(&mut p, &Rules::default()).unwrap_err();
        assert_eq!(e, TurnError::Empty);
        assert_eq!(
            e.to_string(),
            "an empty turn: a turn has at least one action"
        );
    }
}
