//! Game records: a readable, hand-editable text format and a JSON form. Both round-trip.
//!
//! Text format (tags, then one numbered turn a line; `#` starts a comment, kept in
//! [`GameRecord::comments`]):
//!
//! ```text
//! [Rules "capture=standard end=row-empty leftovers=owner majority-end=off pie=off first-move-extra-turn=on"]
//! [Start "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"]
//! [South "Alice"]
//! [North "kalah engine hard"]
//! [Result "*"]
//!
//! 1. S 3-6
//! 2. N 1
//! ```
//!
//! Tag values are in double quotes, with `\` before a `"` or a `\` inside; they may hold `#`,
//! and a `#` comment may follow the closing `]`. `Result` is `south-north` final stores once the
//! game is over, `*` before. Each of these five tags may be given once, and each key of the
//! `Rules` tag once; other tags (`Event`, `Date`, ...) are kept and written back. Players are named by the side
//! they start on (after a pie-rule `swap` they own the other row). The side labels (`S`, `N`;
//! `s`, `n`, `South`, `North` in any case read too) and turn numbers are optional when reading; if present they are checked,
//! each a word of its own (`1. S 3-6`, not `1.S`). A `Result` that is neither `*` nor two
//! store counts is refused. A turn must end where its player's turn ends
//! ([`Turn::check_step`]); the last turn may end in `-` when the player still has an extra turn
//! to play.
//!
//! ```
//! use kalah_core::{GameRecord, Move, Position, Rules, Start};
//!
//! let rules = Rules::default();
//! let start = Position::start(&Start::default(), &rules);
//! // South's 3 ends in the store (an extra turn), then 6; North answers 1.
//! let moves = [Move::Sow(3), Move::Sow(6), Move::Sow(1)];
//! let mut record = GameRecord::from_moves(rules, start, &moves)?;
//! record.south = "Alice".into();
//! let text = record.to_text();
//! assert!(text.contains("1. S 3-6\n2. N 1"));
//! let back = GameRecord::parse(&text)?;
//! assert_eq!(back, record);
//! assert_eq!(back.position(), record.position());
//! assert_eq!(back.result(), None); // the game goes on
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::error::{MoveError, ParsePositionError, RulesError, TurnError};
use crate::moves::{Move, Turn, TurnEnd};
use crate::position::{Phase, Position, Side, Status};
use crate::rules::Rules;

/// [`RecordError::Illegal`]'s text after the turn number: `move {mv}: {source}`, without the
/// `move {mv}: ` when `source` quotes `mv` whole.
fn illegal_text(mv: &str, source: &MoveError) -> String {
    match source {
        MoveError::Parse(m) | MoveError::HouseTooLarge(m) if m == mv => source.to_string(),
        _ => format!("move {mv}: {source}"),
    }
}

/// A record that cannot be read or does not replay. `line` is 1-based.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RecordError {
    /// The text holds nothing but white space (and a byte-order mark): most likely the wrong
    /// file or field, so it is refused rather than read as a game of no moves from the default
    /// start.
    #[error("the text is empty (a record holds its moves, after an optional [Start \"...\"] tag)")]
    Empty,
    /// A line of the text form is malformed.
    #[error("line {line}: {message}")]
    Syntax {
        /// Line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The `Rules` tag does not parse.
    #[error("line {line}: bad Rules tag: {source}")]
    Rules {
        /// Line number.
        line: usize,
        /// Why.
        source: RulesError,
    },
    /// The `Start` tag does not parse.
    #[error("line {line}: bad Start tag: {source}")]
    Start {
        /// Line number.
        line: usize,
        /// Why.
        source: ParsePositionError,
    },
    /// A move does not replay. The message names the move once: `turn 2: move 9: there is no
    /// house 9 ...`, but `turn 1: 'x' is not a move ...` where the reason already quotes the
    /// whole move.
    #[error("turn {turn}: {}", illegal_text(mv, source))]
    Illegal {
        /// 1-based turn number.
        turn: usize,
        /// The move.
        mv: String,
        /// Why it is illegal.
        source: MoveError,
    },
    /// A turn that does not replay as written, in kalah-core's one wording for typed turns: an
    /// action of a turn of several actions (`3-3`) is illegal in the position its earlier
    /// actions leave ([`Turn::illegal_step`]), or the turn does not end where its mover's turn
    /// ends: it stops although the player still has an extra turn, goes on after the turn
    /// passed, or ends in `-` without an extra turn ([`Turn::check_step`]).
    #[error("turn {turn}: {source}")]
    Turn {
        /// 1-based turn number.
        turn: usize,
        /// What is wrong.
        source: TurnError,
    },
    /// A turn that stops although its last action earns an extra turn, followed by a turn
    /// that is not labelled with the other side: most likely the extra turn written as a turn of
    /// its own (`1. S 3` / `2. S 6`), which belongs to the same turn (`3-6`); the message says
    /// so (tester 104: the advice was to write `3-`, which a following turn then refuses).
    #[error(
        "turn {turn}: '{written}' stops, but {} earns an extra turn, which is part of the same \
         turn: join the extra turn to it ('{joined}'; a turn's actions are joined by '-')",
        crate::error::action(*.index, *.mv)
    )]
    ExtraTurnApart {
        /// 1-based turn number of the turn that stops.
        turn: usize,
        /// That turn as written.
        written: String,
        /// 1-based index of its last action.
        index: usize,
        /// That action.
        mv: Move,
        /// It and the next turn joined (`3-6`).
        joined: String,
    },
    /// A turn that stops although its last action earns an extra turn, followed by a turn
    /// labelled with the other side (`1. S 3` / `2. N 1`): that side is not to move.
    #[error(
        "turn {turn}: '{written}' stops, but {} earns an extra turn, so {side} moves again, but \
         turn {} is labelled {label}",
        crate::error::action(*.index, *.mv),
        .turn + 1
    )]
    ExtraTurnSkipped {
        /// 1-based turn number of the turn that stops.
        turn: usize,
        /// That turn as written.
        written: String,
        /// 1-based index of its last action.
        index: usize,
        /// That action.
        mv: Move,
        /// The side that moves again.
        side: Side,
        /// The next turn's label as written (`N`).
        label: String,
    },
    /// A `swap` under the pie rule in a record whose `Start` has no phase tag: such a start is
    /// taken to be past the opening, so the swap is refused; a hand-written record of a whole
    /// game most likely just lacks the `opening` tag, and the message says so.
    #[error(
        "turn {turn}: {source}: the Start position has no phase tag, so the game counts as past \
         its opening; a game from its first move starts \"{start} opening\""
    )]
    SwapPastOpening {
        /// 1-based turn number.
        turn: usize,
        /// Why the swap is illegal.
        source: MoveError,
        /// The record's starting position.
        start: Position,
    },
    /// A first turn that does not replay as written under the Manchester rule
    /// (`first-move-extra-turn=off`) in a record whose `Start` has no phase tag: such a start is
    /// taken to be past the opening, where the first sowing earns its extra turn as any other,
    /// so a hand-written whole game (`1. S 3`, `2. N 1`) is refused; the message says the tag is
    /// missing, as [`RecordError::SwapPastOpening`] does for the pie rule.
    #[error(
        "turn {turn}: {source}: the Start position has no phase tag, so the game counts as past \
         its opening, where the first-move rule (first-move-extra-turn=off) does not apply; a \
         game from its first move starts \"{start} opening\""
    )]
    TurnPastOpening {
        /// 1-based turn number.
        turn: usize,
        /// Why the turn does not replay (boxed: it and the position would make every
        /// [`RecordError`] large).
        source: Box<TurnError>,
        /// The record's starting position.
        start: Position,
    },
    /// The `Result` tag disagrees with the replayed game.
    #[error("Result tag says {stated} but the moves give {actual}")]
    ResultMismatch {
        /// The tag's value.
        stated: String,
        /// The replayed result.
        actual: String,
    },
    /// The JSON form is malformed.
    #[error("bad JSON game record: {0}")]
    Json(String),
}

/// A game: rules, starting position, players and every action played. The actions are the
/// canonical data; turns are derived from them by replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The rules.
    ///
    /// The moves were checked against these rules and `start` when they were added: changing
    /// either afterwards leaves moves that may not replay (then [`GameRecord::position`] and the
    /// other replays stop before the first action that is no longer legal, and
    /// [`GameRecord::to_text`] writes only the actions up to there). Make a new record instead
    /// ([`GameRecord::from_moves`]).
    pub rules: Rules,
    /// The starting position. Its phase tag is not checked against `rules` here: front ends
    /// refuse one that [`Rules::allows_phase`] does not allow. See `rules` before changing it.
    pub start: Position,
    /// The player who starts as South. One line: the text form writes a line break as a space.
    pub south: String,
    /// The player who starts as North. One line, as `south`.
    pub north: String,
    /// The text form's other tags (`Event`, `Date`, `Site`, ...), name and value, in the order
    /// read; [`GameRecord::to_text`] writes them back after the standard ones, so a record loaded
    /// and saved keeps them; the JSON form carries them as `"tags": [["Event", "..."], ...]`. A
    /// name is one word: both forms write white space, control characters, `"`, `[` and `]` in a
    /// name as `_` (an empty name as `_`), a control character in a value as a space, and leave
    /// out a tag named like a standard one (`Rules`, `Start`, `South`, `North`, `Result`) or one
    /// letter away from one, so that what they write reads back. Reading refuses such names.
    pub tags: Vec<(String, String)>,
    /// The text form's `#` comments, in order, each as the number of whole turns written before
    /// it (0: among the tags or before the first turn; a comment on a turn's line counts that
    /// turn) and its text after the `#`. [`GameRecord::to_text`] writes each on a line of its
    /// own after that turn (one past the turns the record holds now, after an undo say: after
    /// the last turn), so a record loaded and saved keeps its comments; a control character in
    /// the text is written, and read, as a space. The JSON form carries them as
    /// `"comments": [[1, " a fine start"], ...]`; both forms write, and read, a number past the
    /// turns as the number of turns (after the last one).
    pub comments: Vec<(usize, String)>,
    moves: Vec<Move>,
}

/// A sequence of actions from `pos` written as whole turns (`["2-3", "1", "4-"]`), as `kalah
/// solve`'s principal variations and the web API write them: the actions of one player's turn
/// joined by `-`, and a last turn that the sequence leaves unfinished (its mover still to move)
/// ending in `-`. The first item is the rest of the turn going on in `pos`. An action that
/// cannot be played ends the list (tester 74: from single actions a bot could not tell where
/// turns end without replaying them).
pub fn turn_texts(pos: &Position, rules: &Rules, moves: &[Move]) -> Vec<String> {
    let mut rec = GameRecord::new(*rules, *pos);
    for &mv in moves {
        if rec.push(mv).is_err() {
            break;
        }
    }
    rec.turns()
        .into_iter()
        .map(|t| format!("{}{}", t.turn, if t.open { "-" } else { "" }))
        .collect()
}

/// One turn of a replayed record: the side that played it and its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedTurn {
    /// The board side that played the turn.
    pub side: Side,
    /// The moves.
    pub turn: Turn,
    /// Whether the turn is still going on (an extra turn to play).
    pub open: bool,
}

/// The JSON form's fields. An unknown field is refused: a misspelt one (`"turn"`) would
/// otherwise read as a game without moves (tester 24).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonRecord {
    /// Left out: the standard rules, as in the text form. An object (`{"capture": "empty"}`,
    /// as written), or the text form's `Rules` tag text (`"capture=empty pie=on"`), as the web
    /// API takes both (tester 72).
    #[serde(default)]
    rules: Rules,
    /// Left out: the rules' Kalah(6,4) start, as in the text form (always written).
    #[serde(default)]
    start: Option<Position>,
    #[serde(default, deserialize_with = "null_as_default")]
    south: String,
    #[serde(default, deserialize_with = "null_as_default")]
    north: String,
    #[serde(default, deserialize_with = "null_as_default")]
    turns: Vec<String>,
    #[serde(default, deserialize_with = "result_pair")]
    result: Option<[u8; 2]>,
    /// The other tags, `[["Event", "club night"], ...]`, in order; left out when there are none.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    tags: Vec<(String, String)>,
    /// The comments, `[[turns before it, "text"], ...]`; left out when there are none.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    comments: Vec<(Whole, String)>,
}

/// A whole number, 0 or more, in the JSON form (a comment's count of turns): any JSON number
/// whose value is whole, however it is written (`2`, `2.0`, `2e0`), as the web API reads whole
/// numbers (tester 104: `1.0` was "not a whole number"). Written as an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Whole(usize);

/// Whether `v` is a whole number from 0 to 2^53 (the integers a double holds exactly), and
/// which.
fn whole_f64(v: f64) -> Option<u64> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
                                                // The cast is exact: `v` is whole and within 0..=2^53.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    (v.is_finite() && v.fract() == 0.0 && (0.0..=EXACT).contains(&v)).then_some(v as u64)
}

impl Serialize for Whole {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0 as u64)
    }
}

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Whole, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Whole;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("usize")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Whole, E> {
                usize::try_from(v)
                    .map(Whole)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Whole, E> {
                whole_f64(v)
                    .and_then(|n| usize::try_from(n).ok())
                    .map(Whole)
                    .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Float(v), &self))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// A JSON form's error, with the field and item it is in (`field 'turns', item 2: invalid
/// type: ...`) unless the message names its field itself (`rules`, `result`, an unknown field)
/// or belongs to no field (malformed JSON).
fn json_error_at(text: &str, e: &serde_path_to_error::Error<serde_json::Error>) -> String {
    use serde_path_to_error::Segment;
    let inner = crate::error::json_message(text, e.inner());
    // Too deep to read: the path down to there would be a long list of keys (tester 104).
    if inner.starts_with("recursion limit exceeded") {
        return format!(
            "{}: the JSON nests objects or lists too deeply",
            plain_words(&inner)
        );
    }
    let mut at = String::new();
    for segment in e.path().iter() {
        match segment {
            Segment::Map { key } if at.is_empty() => at = format!("field '{key}'"),
            Segment::Map { key } => at.push_str(&format!(", key '{key}'")),
            Segment::Seq { index } => at.push_str(&format!(", item {}", index + 1)),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    // A tag or comment of the wrong length or not an array: serde says "invalid length 1,
    // expected a tuple of size 2" for too few items, "trailing characters" for too many, and
    // "invalid type: string \"Event\", expected a tuple of size 2" for a string.
    let pair = match e.path().iter().next() {
        Some(Segment::Map { key }) if key == "tags" => Some("a tag is a pair [name, value]"),
        Some(Segment::Map { key }) if key == "comments" => {
            Some("a comment is a pair [turns before it, text]")
        }
        _ => None,
    };
    let given = inner
        .strip_prefix("invalid type: ")
        .and_then(|t| t.split_once(", expected a tuple of size 2"))
        .map(|(given, _)| given);
    if let Some(pair) = pair.filter(|_| {
        e.path().iter().count() == 2
            && (inner.starts_with("trailing characters")
                || inner.starts_with("invalid length")
                || given.is_some())
    }) {
        match given {
            Some("map") => format!("{at}: {pair}, not an object"),
            Some(given) => format!("{at}: {pair}, not {given}"),
            None => format!("{at}: {pair}"),
        }
    } else if at.is_empty() || inner.starts_with("field '") || inner.starts_with("unknown field") {
        plain_words(&inner)
    } else {
        format!("{at}: {}", plain_words(&inner))
    }
}

/// A serde message in the words of the rest of the project (tester 92: "invalid value: integer
/// `-1`, expected usize" and "expected a sequence" meant nothing to a bot author): `invalid
/// type: X, expected Y` and `invalid value: X, expected Y` become `expected Y, not X`, with
/// Rust's and serde's type names (`usize`, `a sequence`, `map`) as JSON names them, and
/// backticks as quotes. The position (`at line 1 column 12`) is kept. Other messages are
/// returned with only the names and quotes changed.
fn plain_words(msg: &str) -> String {
    fn names(t: &str) -> String {
        let t = t.trim();
        // What was given: `integer `3``, `string "x"`, `floating point `1.5``, `map`, ...
        for (serde, json) in [
            ("integer ", "the number "),
            ("floating point ", "the number "),
            ("string ", "the text "),
            ("boolean ", ""),
        ] {
            if let Some(v) = t.strip_prefix(serde) {
                return format!("{json}{}", v.trim_matches('`'));
            }
        }
        let whole = "a whole number, 0 or more";
        match t {
            "map" | "a map" => "an object".into(),
            "sequence" | "a sequence" => "a list".into(),
            "unit value" => "null".into(),
            "usize" | "u64" | "u32" | "u16" | "u8" => whole.into(),
            "an array of length 2" | "a tuple of size 2" => "a pair".into(),
            _ => t.replace('`', "'"),
        }
    }
    let (body, pos) = match msg.rfind(" at line ") {
        Some(i) => msg.split_at(i),
        None => (msg, ""),
    };
    let given_expected = body
        .strip_prefix("invalid type: ")
        .or_else(|| body.strip_prefix("invalid value: "))
        .and_then(|r| r.split_once(", expected "));
    match given_expected {
        Some((given, expected)) => {
            format!("expected {}, not {}{pos}", names(expected), names(given))
        }
        None => format!("{}{pos}", body.replace('`', "'")),
    }
}

/// `null` read as the field left out (its default), as the web API reads it (tester 82:
/// `{"south": null}` was "invalid type: null, expected a string").
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Reads the JSON form's `result`: `null` or two stores (South's, North's), each 0 to 255, told
/// so when it is anything else (tester 72: `[1,1,0]` was "trailing characters").
fn result_pair<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<[u8; 2]>, D::Error> {
    use serde::de::Error as _;
    let bad = || {
        D::Error::custom(
            "field 'result' must be null or [South's store, North's store], two whole numbers \
             from 0 to 255",
        )
    };
    let Some(v) = Option::<serde_json::Value>::deserialize(d)? else {
        return Ok(None);
    };
    let pair = v.as_array().filter(|a| a.len() == 2).ok_or_else(bad)?;
    // Any number whose value is whole (`3.0`), as for the comments' counts.
    let store = |x: &serde_json::Value| {
        x.as_u64()
            .or_else(|| x.as_f64().and_then(whole_f64))
            .and_then(|n| u8::try_from(n).ok())
            .ok_or_else(bad)
    };
    Ok(Some([store(&pair[0])?, store(&pair[1])?]))
}

impl GameRecord {
    /// An empty record.
    pub fn new(rules: Rules, start: Position) -> GameRecord {
        GameRecord {
            rules,
            start,
            south: String::new(),
            north: String::new(),
            tags: Vec::new(),
            comments: Vec::new(),
            moves: Vec::new(),
        }
    }

    /// Builds a record from actions, checking that they replay.
    ///
    /// # Errors
    /// [`RecordError::Illegal`] for the first illegal action.
    pub fn from_moves(
        rules: Rules,
        start: Position,
        moves: &[Move],
    ) -> Result<GameRecord, RecordError> {
        let mut r = GameRecord::new(rules, start);
        for &mv in moves {
            r.push(mv)?;
        }
        Ok(r)
    }

    /// The actions in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plays one more action.
    ///
    /// Actions that no longer replay (after `rules` or `start` were changed, see
    /// [`GameRecord::rules`]) are dropped first, so the action is played where the replay
    /// stops and is the record's last.
    ///
    /// # Errors
    /// [`RecordError::Illegal`] if it is illegal; the record is then unchanged.
    pub fn push(&mut self, mv: Move) -> Result<(), RecordError> {
        // One replay for the position and the turn number; `turns` stops where it does.
        let positions = self.positions();
        let mut pos = *positions.last().expect("the start is always there");
        let turns = self.turns();
        let closed = turns.last().is_none_or(|t| !t.open);
        pos.play(&self.rules, mv)
            .map_err(|source| RecordError::Illegal {
                turn: (turns.len() + usize::from(closed)).max(1),
                mv: mv.to_string(),
                source,
            })?;
        self.moves.truncate(positions.len() - 1);
        self.moves.push(mv);
        Ok(())
    }

    /// Takes back the last action, returning it.
    pub fn pop(&mut self) -> Option<Move> {
        self.moves.pop()
    }

    /// Every position from the start to now (`moves().len() + 1` of them; fewer when `rules` or
    /// `start` were changed after the moves, see [`GameRecord::rules`]).
    pub fn positions(&self) -> Vec<Position> {
        let mut pos = self.start;
        pos.settle(&self.rules);
        let mut v = Vec::with_capacity(self.moves.len() + 1);
        v.push(pos);
        for &mv in &self.moves {
            if pos.play(&self.rules, mv).is_err() {
                break;
            }
            v.push(pos);
        }
        v
    }

    /// The current position.
    pub fn position(&self) -> Position {
        let mut pos = self.start;
        pos.settle(&self.rules);
        for &mv in &self.moves {
            if pos.play(&self.rules, mv).is_err() {
                break;
            }
        }
        pos
    }

    /// Final stores `[south, north]` (board sides) once the game is over.
    pub fn result(&self) -> Option<[u8; 2]> {
        match self.position().status(&self.rules) {
            Status::Over(s) => Some(s),
            Status::ToMove(_) => None,
        }
    }

    /// The actions grouped into whole turns.
    pub fn turns(&self) -> Vec<RecordedTurn> {
        let mut pos = self.start;
        pos.settle(&self.rules);
        let mut turns: Vec<RecordedTurn> = Vec::new();
        let mut open = false;
        for &mv in &self.moves {
            let side = pos.side();
            let Ok(o) = pos.play(&self.rules, mv) else {
                break;
            };
            if open {
                let t = turns.last_mut().expect("open turn");
                t.turn.0.push(mv);
            } else {
                turns.push(RecordedTurn {
                    side,
                    turn: Turn(vec![mv]),
                    open: false,
                });
            }
            open = o.extra_turn && o.ended.is_none();
            turns.last_mut().expect("turn").open = open;
        }
        turns
    }

    /// The other tags as both forms write them: each name one word (see `tag_name`), each value
    /// one line; a tag the text reader would refuse (named like a standard one, or one letter
    /// away from one) is left out, so that what is written reads back.
    fn written_tags(&self) -> Vec<(String, String)> {
        self.tags
            .iter()
            .map(|(name, value)| (tag_name(name), one_line(value)))
            .filter(|(name, _)| standard_tag_like(name).is_none())
            .collect()
    }

    /// The text form (see the module documentation).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "[Rules \"{}\"]", self.rules);
        let _ = writeln!(s, "[Start \"{}\"]", self.start);
        let _ = writeln!(s, "[South \"{}\"]", escape(&self.south));
        let _ = writeln!(s, "[North \"{}\"]", escape(&self.north));
        let result = match self.result() {
            Some([a, b]) => format!("{a}-{b}"),
            None => "*".into(),
        };
        let _ = writeln!(s, "[Result \"{result}\"]");
        for (name, value) in self.written_tags() {
            let _ = writeln!(s, "[{name} \"{}\"]", escape(&value));
        }
        s.push('\n');
        let turns = self.turns();
        // Comments in order of their turn (a stable sort keeps their own order), those past
        // the last turn after it.
        let mut comments: Vec<(usize, String)> = self
            .comments
            .iter()
            .map(|(k, text)| ((*k).min(turns.len()), one_line(text)))
            .collect();
        comments.sort_by_key(|(k, _)| *k);
        let mut comments = comments.into_iter().peekable();
        let mut comments_after = |s: &mut String, k: usize| {
            while let Some((_, text)) = comments.next_if(|(after, _)| *after == k) {
                let _ = writeln!(s, "#{text}");
            }
        };
        comments_after(&mut s, 0);
        for (i, t) in turns.iter().enumerate() {
            let _ = writeln!(
                s,
                "{}. {} {}{}",
                i + 1,
                t.side.letter(),
                t.turn,
                if t.open { "-" } else { "" }
            );
            comments_after(&mut s, i + 1);
        }
        s
    }

    /// Reads a record in either form: the JSON form if its text opens with `{`, else the text
    /// form. A UTF-8 byte-order mark at the start (as some editors save files) is skipped.
    ///
    /// # Errors
    /// [`RecordError::Empty`] for a text of nothing but white space and byte-order marks; else as
    /// [`GameRecord::parse_json`] or [`GameRecord::parse_text`].
    pub fn parse(text: &str) -> Result<GameRecord, RecordError> {
        if text.trim_start_matches('\u{feff}').trim().is_empty() {
            return Err(RecordError::Empty);
        }
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if GameRecord::is_json_form(text) {
            GameRecord::parse_json(text)
        } else {
            GameRecord::parse_text(text)
        }
    }

    /// Whether [`GameRecord::parse`] reads `text` as the JSON form: it opens with `{` (after
    /// a byte-order mark and white space).
    pub fn is_json_form(text: &str) -> bool {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        text.trim_start().starts_with('{')
    }

    /// Reads the text form. Lines end with `\n`, `\r\n` or `\r`.
    ///
    /// # Errors
    /// [`RecordError`] naming the line or turn at fault: malformed tags, a tag given twice, a
    /// `Rules` tag that does not parse (a rules key given twice included), a `Start` that does
    /// not parse (one whose phase tag the rules lack and that does not fit its side to move
    /// either is a [`RecordError::Syntax`] naming the missing rules), illegal moves, a turn of
    /// the wrong shape ([`RecordError::Turn`]), a `Result` that is no result, or a `Result` that
    /// the moves do not give. A missing `Start` or `Rules` is no error (both
    /// default to Kalah(6,4) standard), nor is a `Start` phase tag that the rules do not allow
    /// (see [`GameRecord::start`]).
    pub fn parse_text(text: &str) -> Result<GameRecord, RecordError> {
        // A lone carriage return (classic Mac OS) is a line break, as `\r\n` and `\n` are
        // (tester 82: the whole record was one line, "unexpected '1. S 3-62. N 1' after the
        // tag"; tester 83: so it was with a final `\n`).
        let cr_lines;
        let text = if text.contains('\r') {
            cr_lines = text.replace("\r\n", "\n").replace('\r', "\n");
            cr_lines.as_str()
        } else {
            text
        };
        let mut rules = Rules::default();
        let mut start: Option<(usize, String)> = None;
        let mut south = String::new();
        let mut north = String::new();
        let mut tags = Vec::new();
        // Each comment's line and text; given its place among the turns once they are read.
        let mut comments: Vec<(usize, String)> = Vec::new();
        let mut stated_result: Option<String> = None;
        let mut tokens: Vec<(usize, String)> = Vec::new();
        // The line of each known tag read so far: a tag given twice is refused, not overridden.
        let mut tag_lines: [Option<usize>; KNOWN_TAGS.len()] = [None; KNOWN_TAGS.len()];
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let trimmed = raw.trim();
            if let Some(inner) = trimmed.strip_prefix('[') {
                // A tag: `[Key "value"]`, then optionally a `#` comment. The value may hold `#`.
                let (key, rest) = inner
                    .split_once(' ')
                    .filter(|(key, _)| !key.is_empty())
                    .ok_or_else(|| RecordError::Syntax {
                        line,
                        message: "a tag is [Key \"value\"]".into(),
                    })?;
                // A name the writer would have to change (see `tag_name`) is refused, so that
                // what is read is written back as it was.
                if let Some(bad) = key.chars().find(|&c| tag_name_refuses(c)) {
                    return Err(RecordError::Syntax {
                        line,
                        message: format!(
                            "tag name {key} holds {bad:?}: a tag name has no brackets, quotes, \
                             spaces or control characters"
                        ),
                    });
                }
                let (value, after) =
                    unquote_prefix(rest.trim_start()).ok_or_else(|| RecordError::Syntax {
                        line,
                        // A value opened by a quote whose closing quote is escaped: a final
                        // backslash (`"C:\games\"`, tester 104: "must be in double quotes").
                        message: match rest
                            .trim()
                            .strip_suffix(']')
                            .map(str::trim_end)
                            .filter(|v| v.starts_with('"'))
                            .and_then(|v| v.strip_suffix("\\\""))
                        {
                            Some(head) => format!(
                                "the value of tag {key} has no closing quote: its last '\\\"' \
                                 is a quote inside the value; if the value ends in a \
                                 backslash, write that one '\\\\' ({head}\\\\\")"
                            ),
                            // Opened by a quote that is never closed (tester 110: `[Event "abc`
                            // was told to be in double quotes).
                            None if rest.trim_start().starts_with('"') => {
                                format!("the value of tag {key} has no closing double quote")
                            }
                            None => format!("the value of tag {key} must be in double quotes"),
                        },
                    })?;
                // A value is one line: a tab (or another control character) reads as a space,
                // as the writer would write it.
                let value = one_line(&value);
                let after = after.trim_start();
                let after = after.strip_prefix(']').ok_or_else(|| RecordError::Syntax {
                    line,
                    message: "a tag line must end with ']'".into(),
                })?;
                let after = after.trim();
                match after.strip_prefix('#') {
                    Some(comment) => comments.push((line, comment_text(comment))),
                    None if after.is_empty() => {}
                    None => {
                        return Err(RecordError::Syntax {
                            line,
                            message: format!("unexpected '{after}' after the tag"),
                        })
                    }
                }
                if let Some(k) = KNOWN_TAGS.iter().position(|&t| t == key) {
                    if let Some(first) = tag_lines[k].replace(line) {
                        return Err(RecordError::Syntax {
                            line,
                            message: format!(
                                "tag {key} is given twice (first on line {first}); a record has \
                                 one of each"
                            ),
                        });
                    }
                }
                if let Some(known) = misspelt_tag(key) {
                    return Err(RecordError::Syntax {
                        line,
                        message: format!(
                            "tag {key} looks like a misspelt {known}, which would be left out: \
                             write {known} (a tag of your own needs a name two letters or more \
                             away from Rules, Start, South, North and Result)"
                        ),
                    });
                }
                match key {
                    "Rules" => {
                        rules = value
                            .parse()
                            .map_err(|source| RecordError::Rules { line, source })?
                    }
                    "Start" => start = Some((line, value)),
                    "South" => south = value,
                    "North" => north = value,
                    "Result" => {
                        // `*`, or two store counts in plain digits.
                        let store = |x: &str| {
                            x.bytes().all(|c| c.is_ascii_digit()) && x.parse::<u8>().is_ok()
                        };
                        let v = value.trim();
                        let scores = v.split_once('-').is_some_and(|(a, b)| store(a) && store(b));
                        if v != "*" && !scores {
                            return Err(RecordError::Syntax {
                                line,
                                message: format!(
                                    "tag Result \"{value}\" is not a result: write the final \
                                     stores, South's first (\"25-23\"), or \"*\" for a game \
                                     not over"
                                ),
                            });
                        }
                        stated_result = Some(value)
                    }
                    // Other tags (Event, Date, ...) are kept as they are.
                    _ => tags.push((key.to_string(), value)),
                }
                continue;
            }
            let l = match raw.split_once('#') {
                Some((l, comment)) => {
                    comments.push((line, comment_text(comment)));
                    l
                }
                None => raw,
            };
            for tok in l.split_whitespace() {
                tokens.push((line, tok.to_string()));
            }
        }
        let start_pos = match start {
            Some((line, s)) => s.parse::<Position>().map_err(|source| {
                // A tag the rules lack is named first, even where it does not fit the side to
                // move either (`... S pie` without pie=on), as for a Start that parses.
                match crate::PhaseTagProblem::of_refused_text(&source, &rules) {
                    Some(problem) => RecordError::Syntax {
                        line,
                        message: format!("the Start position's {problem}"),
                    },
                    None => RecordError::Start { line, source },
                }
            })?,
            None => Position::start(&crate::rules::Start::default(), &rules),
        };
        let mut rec = GameRecord::new(rules, start_pos);
        rec.south = south;
        rec.north = north;
        rec.tags = tags;
        // The line of each turn read.
        let mut turn_lines: Vec<usize> = Vec::new();
        let mut turn_no = 0usize;
        // The side label read before the next turn: its line, the side, and the word as written.
        let mut pending_side: Option<(usize, Side, String)> = None;
        // The line of a turn number or side label read since the last turn, if any.
        let mut pending_label: Option<usize> = None;
        let mut open_allowed_done = false;
        // The position after the moves read so far (kept, not replayed per move: reading stays
        // linear in the record's length).
        let mut current = rec.position();
        for (i, (line, tok)) in tokens.iter().enumerate() {
            let (line, tok) = (*line, tok.as_str());
            if open_allowed_done {
                return Err(RecordError::Syntax {
                    line,
                    message: format!("'{tok}' follows a turn that ended with '-'"),
                });
            }
            let is_number = tok.ends_with('.');
            let label = tok.parse::<Side>().ok();
            if is_number || label.is_some() {
                // At most one number, then at most one label, before a turn (`1. S 3-6`).
                if pending_side.is_some() || (is_number && pending_label.is_some()) {
                    return Err(RecordError::Syntax {
                        line,
                        message: format!("'{tok}' where turn {} was expected", turn_no + 1),
                    });
                }
                pending_label = Some(line);
            } else {
                pending_label = None;
            }
            if let Some(number) = tok.strip_suffix('.') {
                // A turn number: it must be the number of the next turn.
                if number.parse::<usize>().ok() != Some(turn_no + 1) {
                    return Err(RecordError::Syntax {
                        line,
                        message: format!("'{tok}' where turn number {}. was expected", turn_no + 1),
                    });
                }
                continue;
            }
            if let Some(side) = label {
                pending_side = Some((line, side, tok.to_string()));
                continue;
            }
            // A word where a turn goes that is no turn (turns are house numbers and `swap`): a
            // side label misspelt, or joined to its number (tester 103: `1. Sud 3-6` was "'Sud'
            // is not a move").
            if !tok.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("swap")) {
                let joined = tok
                    .split_once('.')
                    .filter(|(n, rest)| {
                        !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !rest.is_empty()
                    })
                    .map(|(n, rest)| (n.to_string(), rest.to_string()));
                if let Some((n, rest)) = joined {
                    return Err(RecordError::Syntax {
                        line,
                        message: format!(
                            "'{}': a turn number is a word of its own, followed by a space ('{n}. {rest}')",
                            crate::error::clipped(tok)
                        ),
                    });
                }
                if tok.starts_with(|c: char| c.is_alphabetic()) {
                    return Err(RecordError::Syntax {
                        line,
                        message: format!(
                            "'{}' is neither a side label (S, N, South or North, in any case) nor a \
                             turn (house numbers joined by '-', or swap)",
                            crate::error::clipped(tok)
                        ),
                    });
                }
            }
            turn_no += 1;
            turn_lines.push(line);
            let pos = current;
            if let Some((l, side, written)) = pending_side.take() {
                if pos.to_move() != Some(side) {
                    return Err(RecordError::Syntax {
                        line: l,
                        message: format!(
                            "turn {turn_no} is labelled {written} but {} is to move",
                            pos.to_move()
                                .map_or("nobody (the game is over)".to_string(), |s| s.to_string())
                        ),
                    });
                }
            }
            let (turn, end) = match Turn::parse_written(tok) {
                Ok(read) => read,
                Err(source) => {
                    // A house number above 255 after other actions (`3-99999`): those are
                    // checked first, as in any other turn.
                    if let Some((source, _)) = Turn::refuse_large_house(tok, &current, &rec.rules) {
                        return Err(RecordError::Turn {
                            turn: turn_no,
                            source,
                        });
                    }
                    return Err(RecordError::Illegal {
                        turn: turn_no,
                        // (`-` alone as written, not as nothing.)
                        mv: tok
                            .strip_suffix('-')
                            .filter(|m| !m.is_empty())
                            .unwrap_or(tok)
                            .to_string(),
                        source: source.on_board(current.houses()),
                    });
                }
            };
            for (k, &mv) in turn.0.iter().enumerate() {
                let mut p = current;
                let o = match p.play(&rec.rules, mv) {
                    Ok(o) => o,
                    // Under the pie rule a Start without the 'opening' tag is taken to be past
                    // the opening (a position from the middle of a game): say so, as a
                    // hand-written record of a whole game most likely just lacks the tag.
                    Err(source)
                        if mv == Move::Swap
                            && rec.rules.pie
                            && rec.start.phase() == Phase::Normal =>
                    {
                        return Err(RecordError::SwapPastOpening {
                            turn: turn_no,
                            source,
                            start: rec.start,
                        });
                    }
                    Err(source) if turn.0.len() > 1 => {
                        return Err(RecordError::Turn {
                            turn: turn_no,
                            source: turn.illegal_step(k, source),
                        })
                    }
                    Err(source) => {
                        return Err(RecordError::Illegal {
                            turn: turn_no,
                            mv: mv.to_string(),
                            source,
                        })
                    }
                };
                rec.moves.push(mv);
                current = p;
                turn.check_step(end, k, &o).map_err(|source| {
                    // The record's first turn stops at an extra turn, from an untagged start
                    // under the Manchester rule: most likely a whole game that lacks the
                    // `opening` tag. A missing tag can cause no other turn error (tester 75:
                    // `3-1`, which goes on too far, was blamed on it).
                    if turn_no == 1
                        && matches!(source, TurnError::Incomplete { .. })
                        && !rec.rules.first_move_extra_turn
                        && rec.start.phase() == Phase::Normal
                        && rec.start.to_move() == Some(Side::South)
                    {
                        return RecordError::TurnPastOpening {
                            turn: turn_no,
                            source: Box::new(source),
                            start: rec.start,
                        };
                    }
                    // A turn that stops at an extra turn with another turn after it: the advice
                    // to write `3-` would not do (tester 104).
                    if let (TurnError::Incomplete { index, mv, .. }, Some(side)) =
                        (&source, current.to_move())
                    {
                        let written = crate::error::clipped(tok).into_owned();
                        let (turn, index, mv) = (turn_no, *index, *mv);
                        match after_extra_turn(&tokens[i + 1..], side) {
                            Some(Ok(next)) => {
                                let joined = format!("{tok}-{next}");
                                return RecordError::ExtraTurnApart {
                                    turn,
                                    written,
                                    index,
                                    mv,
                                    joined: crate::error::clipped(&joined).into_owned(),
                                };
                            }
                            Some(Err(label)) => {
                                return RecordError::ExtraTurnSkipped {
                                    turn,
                                    written,
                                    index,
                                    mv,
                                    side,
                                    label: label.to_string(),
                                };
                            }
                            None => {}
                        }
                    }
                    RecordError::Turn {
                        turn: turn_no,
                        source,
                    }
                })?;
            }
            if end == TurnEnd::Open {
                open_allowed_done = true;
            }
        }
        if let Some(line) = pending_label {
            return Err(RecordError::Syntax {
                line,
                message: format!(
                    "a turn number or side label with no turn after it (turn {} was expected)",
                    turn_no + 1
                ),
            });
        }
        if let Some(stated) = stated_result {
            let actual = match rec.result() {
                Some([a, b]) => format!("{a}-{b}"),
                None => "*".to_string(),
            };
            if stated.trim() != actual {
                return Err(RecordError::ResultMismatch { stated, actual });
            }
        }
        rec.comments = comments
            .into_iter()
            .map(|(line, text)| (turn_lines.partition_point(|&l| l <= line), text))
            .collect();
        Ok(rec)
    }

    /// The JSON form: `{"rules": {...}, "start": "...", "south": "...", "north": "...",
    /// "turns": ["3-6", "2"], "result": [25, 23] | null}`, then `"tags": [["Event", "..."]]`
    /// when the record has other tags. An unfinished last turn ends in `-`.
    /// The player names are one line, as in the text form (a control character becomes a
    /// space), so that both forms read back the same record. The text ends with a line break.
    pub fn to_json(&self) -> String {
        let j = JsonRecord {
            rules: self.rules,
            start: Some(self.start),
            south: one_line(&self.south),
            north: one_line(&self.north),
            turns: self
                .turns()
                .iter()
                .map(|t| format!("{}{}", t.turn, if t.open { "-" } else { "" }))
                .collect(),
            result: self.result(),
            tags: self.written_tags(),
            // As the text form places them: one past the last turn is after it (tester 62:
            // `[[99, ...]]` stayed 99 here and became 1 in the text form).
            comments: self
                .comments
                .iter()
                .map(|(k, text)| (Whole((*k).min(self.turns().len())), one_line(text)))
                .collect(),
        };
        // Ended by a line break, as the text form is (tester 82: a saved `.json` record had
        // none).
        serde_json::to_string_pretty(&j).expect("records serialize") + "\n"
    }

    /// The standard tag (`Rules`, `Start`, `South`, `North`, `Result`) that `name` is, or is one
    /// letter away from, if any: for front ends that say where their users give that tag
    /// instead (the web API's record export takes `position`, not `start`).
    pub fn standard_tag_like(name: &str) -> Option<&'static str> {
        standard_tag_like(name)
    }

    /// Why `name` cannot be the name of one of the other tags ([`GameRecord::tags`]) in a
    /// record that reads back as written, or `None` if it can: it must be one word, without
    /// brackets, quotes or control characters, and neither a standard tag (`Rules`, `Start`,
    /// `South`, `North`, `Result`, which are fields of their own) nor one letter away from one.
    /// The JSON form's reader refuses such a name with this message; front ends that take tags
    /// from their users (the web API's record export) can refuse them the same way.
    pub fn tag_name_error(name: &str) -> Option<String> {
        if name.is_empty() || name.chars().any(tag_name_refuses) {
            return Some(format!(
                "'{name}' is not a tag name (one word, without brackets or quotes)"
            ));
        }
        standard_tag_like(name).map(|known| {
            let what = if known == name { "" } else { "a near miss of " };
            format!(
                "'{name}' is {what}the standard tag {known}, given as the field \"{}\", not \
                 among the other tags",
                known.to_lowercase()
            )
        })
    }

    /// Reads the JSON form, replaying and checking every turn as the text form does. Every
    /// field may be left out, with the text form's defaults: `rules` the standard rules, `start`
    /// Kalah(6,4)'s start, no players, turns, result or tags (`{"turns": ["3-6", "1"]}` is a
    /// record); an unknown field is refused.
    ///
    /// # Errors
    /// [`RecordError::Json`] for malformed JSON or for anything but white space after the
    /// record's object, else as [`GameRecord::parse_text`].
    pub fn parse_json(text: &str) -> Result<GameRecord, RecordError> {
        // The field (and item) a wrong value is in is named (tester 82: `{"turns": [3]}` was
        // "invalid type: integer `3`, expected a string at line 1 column 11").
        let mut de = serde_json::Deserializer::from_str(text);
        let j: JsonRecord = serde_path_to_error::deserialize(&mut de)
            .map_err(|e| RecordError::Json(json_error_at(text, &e)))?;
        // Anything after the record but white space is refused, not dropped (tester 98: a
        // second record after the first was loaded without a word).
        de.end().map_err(|e| {
            RecordError::Json(format!(
                "text after the record at line {} column {}: a record is one JSON object with nothing after it",
                e.line(),
                crate::error::char_column(text, e.line(), e.column())
            ))
        })?;
        // Re-use the text reader so both forms check the same things; its errors are told by
        // field and turn item, not by the lines of this text, which the user never saw.
        let mut t = String::new();
        let _ = writeln!(t, "[Rules \"{}\"]", j.rules);
        if let Some(start) = j.start {
            let _ = writeln!(t, "[Start \"{start}\"]");
        }
        let _ = writeln!(t, "[South \"{}\"]", escape(&j.south));
        let _ = writeln!(t, "[North \"{}\"]", escape(&j.north));
        if let Some([a, b]) = j.result {
            let _ = writeln!(t, "[Result \"{a}-{b}\"]");
        }
        for (k, (name, value)) in j.tags.iter().enumerate() {
            // A name the text form would change or refuse is refused here too, by item; so is
            // a standard tag (a field of its own here) or a near miss of one (the text reader
            // would refuse it, naming a line the user never saw).
            if let Some(why) = GameRecord::tag_name_error(name) {
                return Err(RecordError::Json(format!(
                    "field 'tags', item {}: {why}",
                    k + 1
                )));
            }
            let _ = writeln!(t, "[{name} \"{}\"]", escape(value));
        }
        let first_turn_line = t.lines().count() + 1;
        for (k, turn) in j.turns.iter().enumerate() {
            // One turn token an item: not two, nor a tag or a comment of the text form.
            if turn.split_whitespace().count() != 1 || turn.contains(['[', '#']) {
                return Err(RecordError::Json(format!(
                    "field 'turns', item {}: '{}' is not a turn",
                    k + 1,
                    crate::error::clipped(turn)
                )));
            }
            // Nor a turn number or side label of the text form (tester 45: `["1.", "S", "3-6"]`
            // was read as one turn, and written back as `["3-6"]`).
            let token = turn.trim();
            if token.ends_with('.') || token.parse::<Side>().is_ok() {
                return Err(RecordError::Json(format!(
                    "field 'turns', item {}: '{turn}' is not a turn (turn numbers and side labels belong \
                     to the text form; each item here is one turn)",
                    k + 1
                )));
            }
            let _ = writeln!(t, "{turn}");
        }
        let mut rec = GameRecord::parse_text(&t).map_err(|e| match e {
            RecordError::Syntax { line, message } if line >= first_turn_line => {
                RecordError::Json(format!(
                    "field 'turns', item {}: {message}",
                    line - first_turn_line + 1
                ))
            }
            RecordError::Syntax { message, .. } => RecordError::Json(message),
            // The JSON form has a result field, not a Result tag.
            RecordError::ResultMismatch { stated, actual } => RecordError::Json(format!(
                "result [{}] disagrees with the turns, which give {}",
                stated.replacen('-', ", ", 1),
                if actual == "*" {
                    "a game not over (leave result out, or null)".to_string()
                } else {
                    format!("[{}]", actual.replacen('-', ", ", 1))
                }
            )),
            other => other,
        })?;
        // A comment placed past the last turn goes after it, as the text form reads it.
        let turns = rec.turns().len();
        rec.comments = j
            .comments
            .into_iter()
            .map(|(Whole(k), text)| (k.min(turns), one_line(&text)))
            .collect();
        Ok(rec)
    }
}

/// What follows a turn that stops where its mover `side` has an extra turn, in `rest` (the
/// tokens after it; turn numbers skipped): `Ok` the next turn, unless it is labelled with the
/// other side (`Err` that label as written); `None` when no turn follows.
fn after_extra_turn(rest: &[(usize, String)], side: Side) -> Option<Result<&str, &str>> {
    for (_, tok) in rest {
        if tok.ends_with('.') {
            continue;
        }
        match tok.parse::<Side>() {
            Ok(label) if label == side => continue,
            Ok(_) => return Some(Err(tok.as_str())),
            // A swap is North's answer to South's first turn, never part of a turn (tester
            // 112: the advice was '1-swap', which is refused in turn).
            Err(_) if tok.eq_ignore_ascii_case("swap") => return None,
            Err(_) => return Some(Ok(tok.as_str())),
        }
    }
    None
}

/// The tags the text form reads; each may be given once. Other tags are allowed (and may repeat):
/// they are kept in [`GameRecord::tags`].
const KNOWN_TAGS: [&str; 5] = ["Rules", "Start", "South", "North", "Result"];

/// The tag the text form reads that `key` is most likely a slip for: another case of it
/// (`rules`), or one letter added, left out or changed (`Rule`, `Strt`, `Sooth`). Such a tag
/// would be kept as another tag, and the game read without it: a standard-rules game from the
/// default start where the record meant another (tester 24).
fn misspelt_tag(key: &str) -> Option<&'static str> {
    if KNOWN_TAGS.contains(&key) {
        return None;
    }
    let k: Vec<char> = key.to_lowercase().chars().collect();
    KNOWN_TAGS.iter().copied().find(|t| {
        let t: Vec<char> = t.to_lowercase().chars().collect();
        within_one_edit(&k, &t)
    })
}

/// Whether `a` and `b` differ by at most one letter added, left out or changed.
fn within_one_edit(a: &[char], b: &[char]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let first = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    if short.len() == long.len() {
        short[first..]
            .iter()
            .skip(1)
            .eq(long[first..].iter().skip(1))
    } else {
        short[first..] == long[first + 1..]
    }
}

/// A tag name as the text form can read it back: one word, every white space, control character,
/// `"`, `[` or `]` written `_` (`_` for an empty name).
fn tag_name(name: &str) -> String {
    if name.is_empty() {
        return "_".into();
    }
    name.chars()
        .map(|c| if tag_name_refuses(c) { '_' } else { c })
        .collect()
}

/// The standard tag `name` is, or is one slip away from ([`misspelt_tag`]), if any.
fn standard_tag_like(name: &str) -> Option<&'static str> {
    KNOWN_TAGS
        .iter()
        .find(|&&t| t == name)
        .copied()
        .or_else(|| misspelt_tag(name))
}

/// Whether `c` may not be part of a tag name: the text form could not read it back.
fn tag_name_refuses(c: char) -> bool {
    c.is_whitespace() || c.is_control() || matches!(c, '"' | '[' | ']')
}

/// A `#` comment's text as read: control characters as spaces, as [`GameRecord::to_text`]
/// writes them (so that a record read and written reads back the same; proptest found a NUL),
/// then without trailing white space.
fn comment_text(s: &str) -> String {
    one_line(s).trim_end().to_string()
}

/// `s` with every control character (a line break, a tab, ...) a space.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A tag value in the text form: one line ([`one_line`]), quotes and backslashes escaped.
fn escape(s: &str) -> String {
    one_line(s).replace('\\', "\\\\").replace('"', "\\\"")
}

/// Reads a double-quoted string at the start of `s`: the value and the rest. `\"` is a quote
/// and `\\` a backslash, as [`escape`] writes them; any other backslash is itself, so a
/// hand-written `C:\games` keeps its backslash (tester 72: it read as `C:games`).
fn unquote_prefix(s: &str) -> Option<(String, &str)> {
    let inner = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = inner.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some(&(_, e @ ('\\' | '"'))) => {
                    out.push(e);
                    chars.next();
                }
                _ => out.push('\\'),
            },
            '"' => return Some((out, &inner[i + 1..])),
            _ => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_control_character_in_a_comment_reads_as_the_space_it_is_written_as() {
        // Proptest (junk_input): "3-#0\06" read a NUL that the writer turns into a space.
        let rec = GameRecord::parse_text("3-#0\u{0}6\t\u{1}\n").unwrap();
        assert_eq!(rec.comments, vec![(1, "0 6".to_string())]);
        assert_eq!(GameRecord::parse_text(&rec.to_text()).unwrap(), rec);
    }

    #[test]
    fn comments_are_kept_in_their_places_when_the_record_is_written_again() {
        // Tester 52: a loaded record saved after one more move lost its comments.
        let text =
            "# club night, board 3\n[Event \"club\"] # first round\n\n1. S 3-6 # the book move\n\
                    # North thinks\n2. N 1\n#\n";
        let mut rec = GameRecord::parse_text(text).unwrap();
        let want = [
            (0, " club night, board 3"),
            (0, " first round"),
            (1, " the book move"),
            (1, " North thinks"),
            (2, ""),
        ];
        let got: Vec<(usize, &str)> = rec.comments.iter().map(|(k, t)| (*k, t.as_str())).collect();
        assert_eq!(got, want);
        rec.push(Move::Sow(1)).unwrap();
        let written = rec.to_text();
        let turns: Vec<&str> = written
            .lines()
            .skip_while(|l| !l.is_empty())
            .skip(1)
            .collect();
        assert_eq!(
            turns,
            [
                "# club night, board 3",
                "# first round",
                "1. S 3-6",
                "# the book move",
                "# North thinks",
                "2. N 1",
                "#",
                "3. S 1"
            ]
        );
        assert_eq!(GameRecord::parse_text(&written).unwrap(), rec);
        assert_eq!(GameRecord::parse_json(&rec.to_json()).unwrap(), rec);
        // Turns taken back: their comments go after the last turn, not away.
        rec.pop();
        rec.pop();
        let written = rec.to_text();
        assert_eq!(written.matches('#').count(), 5, "{written}");
        assert!(
            written.ends_with("1. S 3-6\n# the book move\n# North thinks\n#\n"),
            "{written}"
        );
    }

    #[test]
    fn a_comment_placed_past_the_last_turn_goes_after_it_in_both_forms() {
        // Tester 62: `"comments": [[99, ...]]` stayed 99 in the JSON form, while the text form
        // wrote it after the last turn (and read it back as 2 here).
        let rules = Rules::default();
        let start = Position::start(&crate::Start::uniform(6, 4).unwrap(), &rules);
        let mut rec = GameRecord::from_moves(rules, start, &[Move::Sow(3), Move::Sow(6)]).unwrap();
        rec.push(Move::Sow(1)).unwrap();
        assert_eq!(rec.turns().len(), 2);
        rec.comments = vec![(99, " late".to_string())];
        let from_json = GameRecord::parse_json(&rec.to_json()).unwrap();
        let from_text = GameRecord::parse_text(&rec.to_text()).unwrap();
        assert_eq!(from_json.comments, vec![(2, " late".to_string())]);
        assert_eq!(from_text.comments, from_json.comments);
        // Written as 2, not 99.
        let mut j: serde_json::Value = serde_json::from_str(&rec.to_json()).unwrap();
        assert_eq!(j["comments"], serde_json::json!([[2, " late"]]));
        // Read from JSON written by hand: the same place.
        j["comments"] = serde_json::json!([[7, " later"]]);
        let read = GameRecord::parse_json(&j.to_string()).unwrap();
        assert_eq!(read.comments, vec![(2, " later".to_string())]);
    }

    #[test]
    fn a_record_whose_start_was_changed_replays_up_to_its_first_illegal_action() {
        // Library tester: debug builds panicked in the replay ("assertion failed: !src.over").
        let rules = Rules::default();
        let start = Position::start(&crate::Start::uniform(6, 4).unwrap(), &rules);
        let mut r = GameRecord::new(rules, start);
        for mv in [3, 6, 1, 2] {
            r.push(Move::Sow(mv)).unwrap();
        }
        // South's house 3 empty: the first action no longer applies.
        r.start = "4,4,0,4,4,4,0,4,4,4,4,4,4,4 S".parse().unwrap();
        assert_eq!(r.position(), r.start);
        assert_eq!(r.positions(), vec![r.start]);
        assert!(r.turns().is_empty());
        // Legal up to the fourth action: 3-6 and North's 1 replay, South's 2 does not (house 2
        // empty, and nothing sown into it).
        r.start = "4,0,4,4,4,4,4,4,4,4,4,4,4,0 S".parse().unwrap();
        assert_eq!(r.positions().len(), 4);
        assert_eq!(r.turns().len(), 2);
        let back = GameRecord::parse(&r.to_text()).unwrap();
        assert_eq!(back.moves(), &r.moves()[..3]);
        assert_eq!(back.position(), r.position());
        // An action pushed now is played where the replay stops; the stale ones are dropped
        // (second library tester: it was added after them, and no replay showed it). An
        // illegal one leaves the record as it was.
        let before = r.clone();
        assert!(r.push(Move::Sow(2)).is_err());
        assert_eq!(r, before);
        r.push(Move::Sow(1)).unwrap();
        assert_eq!(
            r.moves(),
            &[Move::Sow(3), Move::Sow(6), Move::Sow(1), Move::Sow(1)]
        );
        assert_eq!(r.positions().len(), 5);
        assert_eq!(r.pop(), Some(Move::Sow(1)));
    }

    #[test]
    fn parse_reads_either_form_and_skips_a_byte_order_mark() {
        let rules = Rules::default();
        let start = Position::start(&crate::Start::uniform(6, 4).unwrap(), &rules);
        let mut r = GameRecord::new(rules, start);
        for mv in [3, 6, 1] {
            r.push(Move::Sow(mv)).unwrap();
        }
        for text in [r.to_text(), r.to_json()] {
            assert_eq!(GameRecord::parse(&text).unwrap().moves(), r.moves());
            // Regression: a record saved with a BOM (Notepad) read as "move \u{feff}[Rules".
            let bom = format!("\u{feff}{text}");
            assert_eq!(GameRecord::parse(&bom).unwrap().moves(), r.moves());
        }
        // Nothing but white space (after the mark) is no record.
        for empty in [
            "",
            " \n\t\n",
            "\u{feff}",
            "\u{feff}\n \n",
            "\u{feff}\u{feff} \r\n",
        ] {
            assert!(
                matches!(GameRecord::parse(empty), Err(RecordError::Empty)),
                "{empty:?}"
            );
        }
        // Only at the start: elsewhere it is text like any other.
        assert!(GameRecord::parse(&format!("{}\u{feff}", r.to_text())).is_err());
    }

    /// Side labels may be the side's name as well as its letter, as positions read them
    /// (tester 101: `1. South 3-6` was refused as an illegal move 'South'); a wrong name is
    /// checked as a wrong letter is.
    #[test]
    fn side_labels_may_be_names() {
        let by_name = GameRecord::parse_text("1. South 3-6\n2. north 1\n").unwrap();
        assert_eq!(
            by_name,
            GameRecord::parse_text("1. S 3-6\n2. N 1\n").unwrap()
        );
        assert_eq!(
            GameRecord::parse_text("1. North 3-6\n")
                .unwrap_err()
                .to_string(),
            "line 1: turn 1 is labelled North but South is to move"
        );
        // A misspelt label, or one joined to its number, is named as such (tester 103: "'Sud'
        // is not a move: expected a house number ...").
        for (text, said) in [
            (
                "1. Sud 3-6\n",
                "line 1: 'Sud' is neither a side label (S, N, South or North, in any case) nor a \
                 turn (house numbers joined by '-', or swap)",
            ),
            (
                "1. S 3-6\n2. south: 1\n",
                "line 2: 'south:' is neither a side label (S, N, South or North, in any case) nor \
                 a turn (house numbers joined by '-', or swap)",
            ),
            (
                "1.South 3-6\n",
                "line 1: '1.South': a turn number is a word of its own, followed by a space ('1. \
                 South')",
            ),
        ] {
            assert_eq!(
                GameRecord::parse_text(text).unwrap_err().to_string(),
                said,
                "{text}"
            );
        }
        // `swap` is a turn, in any case.
        let pie = "[Rules \"pie=on\"]\n1. S 1\n2. N Swap\n";
        assert!(GameRecord::parse_text(pie).is_ok());
    }

    #[test]
    fn a_swap_after_an_unfinished_turn_is_not_advised_to_join_it() {
        // Kalah(3,3): South's 1 ends in the store. Joining North's swap to it is no advice.
        for text in [
            r#"{"rules":"pie=on","start":"3,3,3,0,3,3,3,0 S opening","turns":["1","swap"]}"#,
            "[Rules \"pie=on\"]\n[Start \"3,3,3,0,3,3,3,0 S opening\"]\n\n1. S 1\n2. swap\n",
        ] {
            let e = GameRecord::parse(text).unwrap_err().to_string();
            assert!(!e.contains("1-swap"), "{e}");
            assert!(e.contains("earns an extra turn"), "{e}");
        }
    }

    #[test]
    fn a_turn_of_the_wrong_shape_names_its_turn_with_the_core_wording() {
        let e = GameRecord::parse_text("1. S 3-6\n2. N 1\n3. S 1-2\n").unwrap_err();
        // After 3-6 and North's 1, South's house 1 sows its 4 seeds into houses 2 to 5: no
        // extra turn, so nothing may follow it in the turn.
        assert!(
            matches!(
                &e,
                RecordError::Turn {
                    turn: 3,
                    source: TurnError::TooLong { index: 1, .. }
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "turn 3: '1-2' goes on after action 1 (house 1), which ends the turn"
        );
        let e = GameRecord::parse_text("1. S 3\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "turn 1: '3' stops, but action 1 (house 3) earns an extra turn; write '3-' if the \
             turn is unfinished"
        );
        let e = GameRecord::parse_text("1. S 3-6-\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "turn 1: '3-6-' ends with '-', but action 2 (house 6) earns no extra turn"
        );
        // A misspelt or unknown field is refused, not dropped (`turn` would give a game
        // without moves).
        let e = GameRecord::parse_json(
            r#"{"rules": {}, "start": "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "turn": ["3-6"]}"#,
        )
        .unwrap_err();
        assert!(
            matches!(&e, RecordError::Json(m) if m.contains("unknown field 'turn'")),
            "{e}"
        );
        // The JSON form checks the same.
        let e = GameRecord::parse_json(
            r#"{"rules": {}, "start": "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "turns": ["3"]}"#,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                RecordError::Turn {
                    turn: 1,
                    source: TurnError::Incomplete { .. }
                }
            ),
            "{e}"
        );
    }

    /// A tag one slip away from one the text form reads is refused, not kept as another tag
    /// (the game would be read without it); other tags are kept.
    #[test]
    fn a_misspelt_tag_is_refused() {
        for (tag, known) in [
            ("Rule", "Rules"),
            ("rules", "Rules"),
            ("Strt", "Start"),
            ("Starts", "Start"),
            ("Sooth", "South"),
            ("NORTH", "North"),
            ("Reslt", "Result"),
        ] {
            let text = format!("[{tag} \"x\"]\n\n1. S 3-6\n");
            let e = GameRecord::parse_text(&text).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "line 1: tag {tag} looks like a misspelt {known}, which would be left out: \
                     write {known} (a tag of your own needs a name two letters or more away \
                     from Rules, Start, South, North and Result)"
                ),
                "{tag}"
            );
        }
        for tag in ["Event", "Date", "Site", "Round", "Note", "Stage", "Ru"] {
            let text = format!("[{tag} \"x\"]\n\n1. S 3-6\n");
            let r = GameRecord::parse_text(&text).unwrap_or_else(|e| panic!("{tag}: {e}"));
            assert_eq!(r.tags, vec![(tag.to_string(), "x".to_string())]);
        }
        assert!(within_one_edit(&['a', 'b'], &['a', 'b']));
        assert!(!within_one_edit(&['a', 'b', 'c'], &['c', 'b', 'a']));
    }

    #[test]
    fn a_repeated_tag_or_rules_key_is_refused() {
        let e = GameRecord::parse_text("[Rules \"capture=empty capture=standard\"]\n1. S 1\n")
            .unwrap_err();
        assert_eq!(
            e,
            RecordError::Rules {
                line: 1,
                source: RulesError::RepeatedKey("capture".into())
            }
        );
        assert_eq!(
            e.to_string(),
            "line 1: bad Rules tag: rules key 'capture' is given more than once"
        );
        for tag in KNOWN_TAGS {
            let value = match tag {
                "Rules" => "pie=on",
                "Start" => "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S",
                "Result" => "*",
                _ => "Ann",
            };
            let text = format!("[{tag} \"{value}\"]\n[Event \"x\"]\n[{tag} \"{value}\"]\n");
            let e = GameRecord::parse_text(&text).unwrap_err();
            assert_eq!(
                e,
                RecordError::Syntax {
                    line: 3,
                    message: format!(
                        "tag {tag} is given twice (first on line 1); a record has one of each"
                    )
                },
                "{text}"
            );
            // Once is fine.
            let once = format!("[{tag} \"{value}\"]\n[Event \"x\"]\n[Event \"y\"]\n");
            assert!(GameRecord::parse_text(&once).is_ok(), "{once}");
        }
        // The JSON form refuses a key given twice in its rules object, in any case.
        for rules in [
            r#"{"pie": true, "pie": false}"#,
            r#"{"pie": true, "PIE": true}"#,
        ] {
            let e = GameRecord::parse_json(&format!(
                r#"{{"rules": {rules}, "start": "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"}}"#
            ))
            .unwrap_err();
            assert!(
                matches!(&e, RecordError::Json(m) if m.contains("field 'rules': rules key '")
                    && m.contains("' is given more than once")),
                "{e}"
            );
        }
        // A record written by to_text gives each tag once and reads back.
        let r = GameRecord::parse_text("1. S 3-6\n2. N 1\n").unwrap();
        assert_eq!(GameRecord::parse_text(&r.to_text()), Ok(r));
    }

    /// The JSON form names the field (and item) of a value of the wrong type, and reads `null`
    /// as a field left out, as the web API does (tester 82: raw parser messages, and `null`
    /// refused).
    #[test]
    fn json_form_names_the_field_of_a_wrong_value_and_reads_null_as_left_out() {
        let said = |text: &str| match GameRecord::parse_json(text) {
            Err(RecordError::Json(m)) => m,
            other => panic!("{text}: {other:?}"),
        };
        let m = said(r#"{"turns": [3, 6]}"#);
        assert!(
            m.starts_with("field 'turns', item 1: expected a string, not the number 3 at line 1"),
            "{m}"
        );
        let m = said(r#"{"turns": "3-6 1"}"#);
        assert!(
            m.starts_with(r#"field 'turns': expected a list, not the text "3-6 1""#),
            "{m}"
        );
        let m = said(r#"{"south": 5}"#);
        assert!(
            m.starts_with("field 'south': expected a string, not the number 5"),
            "{m}"
        );
        // Rust's names of types are not shown (tester 92: "expected usize").
        let m = said(r#"{"comments": [[-1, "x"]]}"#);
        assert!(
            m.starts_with(
                "field 'comments', item 1, item 1: expected a whole number, 0 or more, not the number -1"
            ),
            "{m}"
        );
        // A whole number written with a fraction or an exponent is that number (tester 104:
        // `1.0` was "not a whole number"); a fraction is not.
        let rec = GameRecord::parse_json(
            r#"{"turns": ["3-6", "1"], "comments": [[1.0, "a"], [2e0, "b"]]}"#,
        );
        let rec = rec.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rec.comments, [(1, "a".to_string()), (2, "b".to_string())]);
        assert!(rec.to_json().contains("[\n      1,\n"), "{}", rec.to_json());
        for (json, given) in [
            (r#"{"comments": [[1.5, "x"]]}"#, "1.5"),
            (r#"{"comments": [[-1.0, "x"]]}"#, "-1"),
            (r#"{"comments": [[1e300, "x"]]}"#, "1e+300"),
        ] {
            let m = said(json);
            assert!(
                m.starts_with(&format!(
                    "field 'comments', item 1, item 1: expected a whole number, 0 or more, not the number {given}"
                )),
                "{m}"
            );
        }
        let rec = GameRecord::parse_json(
            r#"{"start": "1,0,1,0 S", "turns": ["1"], "result": [1.0, 1e0]}"#,
        );
        assert_eq!(rec.unwrap_or_else(|e| panic!("{e}")).result(), Some([1, 1]));
        let m = said(r#"{"result": [2.5, 4]}"#);
        assert!(m.starts_with("field 'result' must be"), "{m}");
        let m = said(r#"{"moves": [3]}"#);
        assert!(
            m.starts_with("unknown field 'moves', expected one of 'rules'") && !m.contains('`'),
            "{m}"
        );
        let m = said(r#"{"comments": [[1, "a"], ["x", "b"]]}"#);
        assert!(m.starts_with("field 'comments', item 2, item 1: "), "{m}");
        // Messages that name their field already are not named twice.
        let m = said(r#"{"result": [1]}"#);
        assert!(m.starts_with("field 'result' must be"), "{m}");
        let m = said(r#"{"rules": {"pie": "maybe"}}"#);
        assert!(
            m.starts_with("field 'rules': ") && !m.contains("field 'rules': field"),
            "{m}"
        );
        // Malformed JSON and unknown fields belong to no field.
        assert!(said("{").starts_with("EOF while parsing"));
        let m = said(r#"{"turn": []}"#);
        assert!(m.starts_with("unknown field 'turn'"), "{m}");
        // null is left out.
        let nulls = GameRecord::parse_json(
            r#"{"rules": null, "start": null, "south": null, "north": null, "turns": null,
                "result": null, "tags": null, "comments": null}"#,
        )
        .unwrap();
        assert_eq!(nulls, GameRecord::parse_json("{}").unwrap());
        let r = GameRecord::parse_json(r#"{"turns": ["3-6", "1"], "south": null}"#).unwrap();
        assert_eq!(r.moves().len(), 3);
    }

    /// A record whose lines end with lone carriage returns reads as the same record (tester
    /// 82).
    #[test]
    fn carriage_return_lines_are_lines() {
        let unix = "[South \"Ann\"]\n\n1. S 3-6\n2. N 1\n# a note\n";
        let want = GameRecord::parse_text(unix).unwrap();
        for text in [
            unix.replace('\n', "\r"),
            unix.replace('\n', "\r\n"),
            unix.replace('\n', "\r") + "\n",
        ] {
            assert_eq!(GameRecord::parse(&text).unwrap(), want, "{text:?}");
        }
    }
}
