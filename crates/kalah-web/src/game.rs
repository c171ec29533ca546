//! Reading requests: the JSON body as an object of known fields, the rules, the start and the
//! moves, replayed into a game; and the JSON shapes of positions and outcomes.

use std::fmt;

use kalah_core::{
    GameRecord, Move, MoveError, Outcome, Phase, PhaseTagProblem, Position, Rules, Side, Start,
    Status, Turn, TurnEnd, TurnError, MAX_HOUSES, MAX_SEEDS,
};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::error::ApiError;

/// A request body: a JSON object whose fields are taken one by one; [`Body::finish`] refuses
/// fields nobody took.
pub(crate) struct Body {
    fields: Map<String, Value>,
    known: &'static [&'static str],
}

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError::BadRequest(msg.into())
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON number read as a whole number. JSON does not tell whole numbers from others, so a
/// number counts as whole by its value, however it is written (`6`, `6.0`, `6e0`, `1e19`); one
/// written with a fraction or an exponent is read as a double (exact up to 2^53).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Whole {
    /// A whole number from 0 to `u64::MAX`.
    Value(u64),
    /// A whole number above `u64::MAX`.
    Above,
    /// A number below 0 (whole or not).
    Negative,
    /// A number 0 or more that is not whole.
    Fraction,
}

/// What `n` is as a whole number.
pub(crate) fn whole(n: &Number) -> Whole {
    /// 2^64, the first whole number above `u64::MAX`.
    const ABOVE_U64: f64 = 18_446_744_073_709_551_616.0;
    if let Some(v) = n.as_u64() {
        return Whole::Value(v);
    }
    if n.is_i64() {
        // An integer that is not a u64.
        return Whole::Negative;
    }
    match n.as_f64() {
        // `-0` is read as -0.0: the whole number 0.
        Some(f) if f < 0.0 => Whole::Negative,
        Some(f) if f.fract() != 0.0 => Whole::Fraction,
        Some(f) if f >= ABOVE_U64 => Whole::Above,
        Some(f) => Whole::Value(f as u64),
        // Not reached: without serde_json's arbitrary precision every number is a u64, an
        // i64 or a finite f64.
        None => Whole::Fraction,
    }
}

/// The 422 for a number out of a whole-number field's range, one wording for every such
/// field and every way of being out of range (below, above, negative, not whole): `field
/// 'houses' must be a whole number from 1 to 12, not 13`. `range` is `1 to 12`, with any note
/// after it.
pub(crate) fn out_of_range(key: &str, range: &str, n: &Number) -> ApiError {
    ApiError::Unprocessable(format!(
        "field '{key}' must be a whole number from {range}, not {}",
        number_text(n)
    ))
}

/// A JSON number as an error message shows it. serde_json writes a negative zero `-0.0`,
/// whichever way it was sent (`-0`, `-0.0`), and any number sent with a fraction or an
/// exponent as a double (`1e3` as `1000.0`): a whole one is shown as a whole number (tester
/// 41; tester 92: a move and a layout item showed `10000000000.0`), up to 2^53 where doubles
/// are exact, and larger ones as serde_json writes them (`1e+20`).
pub(crate) fn number_text(n: &Number) -> String {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    match n.as_f64() {
        Some(f) if f == 0.0 && f.is_sign_negative() => "-0".to_string(),
        Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() <= EXACT => format!("{}", f as i64),
        _ => n.to_string(),
    }
}

/// The whole number `n` of field `key` if it lies in `lo..=hi`, else a 422 ([`out_of_range`]).
pub(crate) fn whole_in(key: &str, n: &Number, lo: u64, hi: u64) -> Result<u64, ApiError> {
    match whole(n) {
        Whole::Value(v) if (lo..=hi).contains(&v) => Ok(v),
        _ => Err(out_of_range(key, &format!("{lo} to {hi}"), n)),
    }
}

/// A JSON value read with a key given twice in one object refused, at any depth (a request
/// field, or a key of the `rules` object), where `serde_json::Value` would silently keep the
/// last one.
struct UniqueKeys(Value);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueKeysVisitor).map(UniqueKeys)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(UniqueKeys(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if fields.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "key '{key}' is given twice in one object"
                )));
            }
            let UniqueKeys(v) = map.next_value()?;
            fields.insert(key, v);
        }
        Ok(Value::Object(fields))
    }
}

/// The fields of a game (rules, start, moves) that every game endpoint takes.
pub(crate) const GAME_FIELDS: [&str; 7] = [
    "rules", "position", "houses", "seeds", "layout", "mirrored", "moves",
];

impl Body {
    /// Parses `bytes` as a JSON object (an empty body is `{}`). `known` lists the fields the
    /// endpoint takes, for [`Body::finish`]'s message.
    pub(crate) fn parse(bytes: &[u8], known: &'static [&'static str]) -> Result<Body, ApiError> {
        // A byte-order mark (some editors and Windows tools write one) is no part of the JSON
        // text: skipped, as `record/import` skips one in its text (tester 23).
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Body {
                fields: Map::new(),
                known,
            });
        }
        // Named as such, not as JSON's "invalid unicode code point" (tester 78).
        let text = std::str::from_utf8(bytes).map_err(|e| {
            bad(format!(
                "the request body is not UTF-8 text (bad byte at offset {}); JSON is sent as UTF-8",
                e.valid_up_to()
            ))
        })?;
        let UniqueKeys(v) = serde_json::from_str(text).map_err(|e| {
            let message = kalah_core::error::json_message(text, &e);
            match e.classify() {
                // Only `UniqueKeys` raises data errors: a key given twice.
                serde_json::error::Category::Data => bad(format!("the request body: {message}")),
                _ => bad(format!("the request body is not valid JSON: {message}")),
            }
        })?;
        match v {
            Value::Object(fields) => {
                // An unknown field (a typo, most likely) is named before anything else is
                // checked.
                if let Some(key) = fields.keys().find(|k| !known.contains(&k.as_str())) {
                    return Err(bad(format!(
                        "unknown field '{key}' (this endpoint takes: {})",
                        known.join(", ")
                    )));
                }
                Ok(Body { fields, known })
            }
            other => Err(bad(format!(
                "the request body must be a JSON object, not {}",
                type_name(&other)
            ))),
        }
    }

    /// Takes a field; `null` counts as absent.
    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        self.fields.remove(key).filter(|v| !v.is_null())
    }

    pub(crate) fn take_str(&mut self, key: &str) -> Result<Option<String>, ApiError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(bad(format!(
                "field '{key}' must be a string, not {}",
                type_name(&v)
            ))),
        }
    }

    /// A number field, its range not checked yet (the caller's, see [`whole`]); a value of
    /// another type is a 400.
    pub(crate) fn take_number(&mut self, key: &str) -> Result<Option<Number>, ApiError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(Some(n)),
            Some(v) => Err(bad(format!(
                "field '{key}' must be a number, not {}",
                type_name(&v)
            ))),
        }
    }

    pub(crate) fn take_bool(&mut self, key: &str) -> Result<Option<bool>, ApiError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(v) => Err(bad(format!(
                "field '{key}' must be true or false, not {}",
                type_name(&v)
            ))),
        }
    }

    /// Refuses any field not taken.
    pub(crate) fn finish(self) -> Result<(), ApiError> {
        if let Some(key) = self.fields.keys().next() {
            return Err(bad(format!(
                "unknown field '{key}' (this endpoint takes: {})",
                self.known.join(", ")
            )));
        }
        Ok(())
    }
}

/// Rules from a JSON object (`{"capture": "empty", "pie": true}`) or the text form
/// (`"capture=empty pie=on"`); absent means standard.
pub(crate) fn take_rules(body: &mut Body) -> Result<Rules, ApiError> {
    match body.take("rules") {
        None => Ok(Rules::default()),
        Some(Value::String(s)) => s
            .parse()
            .map_err(|e| bad(format!("field 'rules': {e}"))),
        // Read as the text form reads, so that both forms take the same keys and values (in
        // any case) and give the same messages (`'sometimes' is not a value of capture: ...`);
        // a value of another type names its key (tester 13), an unknown key is named whatever
        // its value's type (tester 23), a boolean given to a key that takes names is quoted as
        // sent (tester 41). The JSON game record reads its `rules` object the same way.
        Some(Value::Object(map)) => {
            Rules::from_json_object(map.iter().map(|(k, v)| (k.as_str(), v)))
                .map_err(|e| bad(format!("field 'rules': {e}")))
        }
        Some(v) => Err(bad(format!(
            "field 'rules' must be an object like {{\"capture\": \"empty\"}} or a string like \"capture=empty pie=on\", not {}",
            type_name(&v)
        ))),
    }
}

/// A number given as a house that is no house on any board: above 255, negative or not whole.
/// It is refused when its action comes up, as a house beyond the board is (`there is no house
/// 7: houses are numbered 1 to 6`): a 422 with the board's house count, after any earlier
/// illegal move.
#[derive(Clone, Debug, PartialEq, Eq)]
struct NoHouse {
    /// The number as written (digits of a string) or as read (a JSON number: `1e+20`).
    written: String,
    /// `Whole::Value` (above 255) or `Whole::Above`: too large; else negative or not whole.
    what: Whole,
}

impl NoHouse {
    /// Why it is no house on a board of `houses` houses a side.
    fn message(&self, houses: usize) -> String {
        let w = kalah_core::error::clipped(&self.written);
        let why = match self.what {
            Whole::Negative => format!("{w} is negative"),
            Whole::Fraction => format!("{w} is not a whole number"),
            Whole::Value(_) | Whole::Above => format!("there is no house {w}"),
        };
        format!("{why}: houses are numbered 1 to {houses}")
    }
}

/// One action of a move text: a move, or a number that is no house on any board.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Action {
    Move(Move),
    NoHouse(NoHouse),
}

impl Action {
    /// The action for a house number `n` (a JSON number, or the digits of a string).
    fn house(n: Whole, written: impl fmt::Display) -> Action {
        match n {
            Whole::Value(h) if h <= u64::from(u8::MAX) => Action::Move(Move::Sow(h as u8)),
            what => Action::NoHouse(NoHouse {
                written: written.to_string(),
                what,
            }),
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Move(mv) => write!(f, "{mv}"),
            Action::NoHouse(n) => f.write_str(&n.written),
        }
    }
}

/// Why an action of a move text cannot be played: kalah-core's [`MoveError`], or a number that
/// is no house.
#[derive(Debug)]
pub(crate) enum ActionError {
    Move(MoveError),
    NoHouse(String),
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionError::Move(e) => write!(f, "{e}"),
            ActionError::NoHouse(msg) => f.write_str(msg),
        }
    }
}

/// A move item as the request wrote it: one action, or the actions of one turn joined by `-`
/// (`"3-6"`), optionally ending in `-` (`"3-"`, `"3-6-"`) when the turn is unfinished, as
/// `/api/game` writes open turns.
pub(crate) struct TurnText {
    /// Where it came from (`field 'move'`, `'moves' item 2`), for messages.
    what: String,
    /// The actions.
    actions: Vec<Action>,
    /// [`TurnEnd::Open`] when the text ends in `-` (its last action must earn an extra turn),
    /// else [`TurnEnd::Prefix`]: a text may stop before the turn is over (`"3"` is just the first
    /// action of a turn), but not go past its end.
    end: TurnEnd,
}

impl TurnText {
    /// How many actions the text holds.
    pub(crate) fn len(&self) -> usize {
        self.actions.len()
    }

    /// Action `k` (from 0) as written, for messages.
    pub(crate) fn written(&self, k: usize) -> String {
        self.actions[k].to_string()
    }

    /// The text in our notation (actions joined by `-`, no trailing `-`), as kalah-core's
    /// [`Turn`] writes itself.
    fn text(&self) -> String {
        self.actions
            .iter()
            .map(Action::to_string)
            .collect::<Vec<_>>()
            .join("-")
    }

    /// The text as kalah-core's [`Turn`], for its checks. A number that is no house stands as
    /// house 0 (no house either); it is refused before it is played or checked, and the
    /// messages name the text as written ([`TurnText::core_error`]).
    fn core_turn(&self) -> Turn {
        Turn(
            self.actions
                .iter()
                .map(|a| match a {
                    Action::Move(mv) => *mv,
                    Action::NoHouse(_) => Move::Sow(0),
                })
                .collect(),
        )
    }

    /// `e` naming the turn as written, after where the text came from.
    fn core_error(&self, mut e: TurnError) -> ApiError {
        match &mut e {
            TurnError::Move { turn, .. }
            | TurnError::Incomplete { turn, .. }
            | TurnError::TooLong { turn, .. }
            | TurnError::NoSuchLargeHouse { turn, .. }
            | TurnError::OpenNoExtraTurn { turn, .. } => *turn = self.text(),
            TurnError::Empty => {}
        }
        ApiError::Unprocessable(format!("{}: {e}", self.what))
    }

    /// Plays action `k` (from 0) on `pos`: the move and its outcome, or why it cannot be
    /// played (`pos` is then unchanged). A number that is no house is refused as a house
    /// beyond the board is: after "the game is over", with the board's house count.
    pub(crate) fn play(
        &self,
        k: usize,
        pos: &mut Position,
        rules: &Rules,
    ) -> Result<(Move, Outcome), ActionError> {
        match &self.actions[k] {
            Action::Move(mv) => pos
                .play(rules, *mv)
                .map(|out| (*mv, out))
                .map_err(ActionError::Move),
            Action::NoHouse(_) if matches!(pos.status(rules), Status::Over(_)) => {
                Err(ActionError::Move(MoveError::GameOver))
            }
            Action::NoHouse(n) => Err(ActionError::NoHouse(n.message(pos.houses()))),
        }
    }

    /// The error for the `k`-th action of a text of several (from 0) found illegal (`e`) in
    /// the position its earlier actions leave: kalah-core's [`Turn::illegal_step`] (one
    /// wording with game records and `kalah play`), after where the text came from.
    pub(crate) fn illegal_step(&self, k: usize, e: ActionError) -> ApiError {
        match e {
            ActionError::Move(e) => self.core_error(self.core_turn().illegal_step(k, e)),
            // As kalah-core words an illegal action of a turn.
            ActionError::NoHouse(msg) => ApiError::Unprocessable(format!(
                "{}: '{}': action {} (house {}) cannot be played: {msg}",
                self.what,
                kalah_core::error::clipped(&self.text()),
                k + 1,
                kalah_core::error::clipped(&self.written(k))
            )),
        }
    }

    /// Checks that the `k`-th action of the text (from 0), played with outcome `out`, leaves the
    /// turn where the text says: kalah-core's [`Turn::check_step`] (one wording with game
    /// records and `kalah play`), after where the text came from.
    pub(crate) fn check_step(&self, k: usize, out: &Outcome) -> Result<(), ApiError> {
        self.core_turn()
            .check_step(self.end, k, out)
            .map_err(|e| self.core_error(e))
    }
}

/// One action: kalah-core's [`Move`] (a house number in plain digits, or `swap`), or plain
/// digits above 255, kept as a number that is no house (refused when its action comes up).
fn parse_action(t: &str, what: &str) -> Result<Action, ApiError> {
    let t = t.trim();
    match t.parse::<Move>() {
        Ok(mv) => Ok(Action::Move(mv)),
        // Too many digits for a u64 are a whole number above it.
        Err(MoveError::HouseTooLarge(_)) => {
            let n = t.parse::<u64>().map_or(Whole::Above, Whole::Value);
            Ok(Action::house(n, t))
        }
        Err(e) => Err(bad(format!("{what}: {e}"))),
    }
}

fn parse_move_token(tok: &str, what: &str) -> Result<TurnText, ApiError> {
    let t = tok.trim();
    if t.is_empty() {
        return Err(bad(format!("{what}: empty move")));
    }
    if t.contains(char::is_whitespace) {
        // One array item is one turn: `["3-6 2"]` holds two.
        return Err(bad(format!(
            "{what}: '{t}' holds white space; one item is one turn (\"3-6\"): give each turn its own item, or all turns as one string (\"3-6 2\")"
        )));
    }
    let (body, end) = match t.strip_suffix('-') {
        Some(b) => (b, TurnEnd::Open),
        None => (t, TurnEnd::Prefix),
    };
    if body.split(['-', ',']).any(|a| a.trim().is_empty()) {
        // `-3`, `3--6`, `-`: as `kalah show --moves` says it.
        return Err(bad(format!("{what} ('{t}'): {}", MoveError::EmptyAction)));
    }
    let actions = body
        .split(['-', ','])
        .map(|a| parse_action(a, what))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TurnText {
        what: what.to_string(),
        actions,
        end,
    })
}

/// One action or a whole turn: `3`, `"3"`, `"swap"`, `"3-6"`, `"3-"`. A JSON number is a house
/// by its value (`3.0` is house 3, see [`whole`]).
pub(crate) fn moves_of_value(v: &Value, what: &str) -> Result<TurnText, ApiError> {
    match v {
        Value::Number(n) => Ok(TurnText {
            what: what.to_string(),
            actions: vec![Action::house(whole(n), number_text(n))],
            end: TurnEnd::Prefix,
        }),
        Value::String(s) => parse_move_token(s, what),
        other => Err(bad(format!(
            "{what} must be a house number or a string like \"3\", \"3-6\" or \"swap\", not {}",
            type_name(other)
        ))),
    }
}

/// The `moves` field: an array of moves or turns, or one string of turns separated by spaces.
fn take_moves(body: &mut Body) -> Result<Vec<TurnText>, ApiError> {
    match body.take("moves") {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| moves_of_value(item, &format!("'moves' item {}", i + 1)))
            .collect(),
        Some(Value::String(s)) => {
            // Items separated by spaces and/or commas, as `kalah show --moves` reads them
            // (`"3-6,1"` is turn 3-6, then 1); `-` joins the actions of one turn.
            let mut turns = Vec::new();
            if s.trim().is_empty() {
                return Ok(turns);
            }
            for piece in s.split(',') {
                if piece.trim().is_empty() {
                    return Err(bad(format!(
                        "'moves' item {}: an empty item (turns are separated by spaces or commas: \"3-6 2\" or \"3-6,2\")",
                        turns.len() + 1
                    )));
                }
                for tok in piece.split_whitespace() {
                    let what = format!("'moves' item {}", turns.len() + 1);
                    turns.push(parse_move_token(tok, &what)?);
                }
            }
            Ok(turns)
        }
        Some(v) => Err(bad(format!(
            "field 'moves' must be an array like [\"3\", \"6\"] or a string like \"3-6 2\", not {}",
            type_name(&v)
        ))),
    }
}

/// The `layout` field as given: its type is checked when it is taken (a 400), its counts once
/// the fields are known to go together ([`Layout::counts`], a 422).
enum Layout {
    /// An array of numbers.
    Items(Vec<Number>),
    /// The text form, `"4,4,5,4,3,4"`.
    Text(String),
}

impl Layout {
    /// How many houses it gives (items of the array or of the text), before its counts are
    /// read.
    fn len(&self) -> usize {
        match self {
            Layout::Items(items) => items.len(),
            Layout::Text(s) if s.trim().is_empty() => 0,
            Layout::Text(s) => s.split(',').count(),
        }
    }

    /// The seed counts, each a whole number 0 to 255 (`4.0` is 4, see [`whole`]).
    fn counts(self) -> Result<Vec<u8>, ApiError> {
        match self {
            Layout::Items(items) => items
                .iter()
                .enumerate()
                .map(|(i, n)| match whole(n) {
                    Whole::Value(c) if c <= u64::from(u8::MAX) => Ok(c as u8),
                    _ => Err(ApiError::Unprocessable(format!(
                        "'layout' item {}: {} is not a seed count (0 to 255)",
                        i + 1,
                        number_text(n)
                    ))),
                })
                .collect(),
            Layout::Text(s) => Start::parse_counts(&s)
                .map_err(|e| ApiError::Unprocessable(format!("'layout' {e}"))),
        }
    }
}

fn take_layout(body: &mut Body) -> Result<Option<Layout>, ApiError> {
    match body.take("layout") {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::Number(n) => Ok(n),
                // Another type is a 400; a number out of range a 422, from `Layout::counts`.
                v => Err(bad(format!(
                    "'layout' item {}: {v} is not a seed count (0 to 255)",
                    i + 1
                ))),
            })
            .collect::<Result<_, _>>()
            .map(|items| Some(Layout::Items(items))),
        Some(Value::String(s)) => Ok(Some(Layout::Text(s))),
        Some(v) => Err(bad(format!(
            "field 'layout' must be an array of seed counts like [4,4,5,4,3,4] or a string \"4,4,5,4,3,4\", not {}",
            type_name(&v)
        ))),
    }
}

/// Refuses a position whose opening phase tag (`opening`, `first-turn`, `pie`) belongs to rules
/// the request does not have, as the command line does: `pie` needs the pie rule, the others
/// the pie rule or no first-move extra turn.
fn check_phase_tag(pos: &Position, rules: &Rules) -> Result<(), ApiError> {
    pos.phase_tag_problem(rules)
        .map_or(Ok(()), |p| Err(phase_tag_error(p)))
}

/// The 422 of a position whose phase tag does not fit the rules.
fn phase_tag_error(problem: PhaseTagProblem) -> ApiError {
    ApiError::Unprocessable(format!("field 'position': the {problem}"))
}

/// A game read from a request: rules, the start (settled) and every position after each move.
pub(crate) struct Game {
    pub(crate) rules: Rules,
    /// The start as given (before settling), for records.
    pub(crate) start: Position,
    pub(crate) moves: Vec<Move>,
    /// `moves.len() + 1` positions: the settled start, then after each move.
    pub(crate) positions: Vec<Position>,
    pub(crate) outcomes: Vec<Outcome>,
}

/// The game fields of a request (rules, position or start, moves), each one's type checked as it
/// was taken (a 400), their values not yet: the endpoint takes its own fields in between, so
/// that every malformed field is named before any impossible value (see [`GameFields::build`]).
pub(crate) struct GameFields {
    rules: Rules,
    position: Option<String>,
    houses: Option<Number>,
    seeds: Option<Number>,
    layout: Option<Layout>,
    mirrored: bool,
    turns: Vec<TurnText>,
}

impl GameFields {
    /// Takes the game fields out of `body`, checking their types (a 400).
    pub(crate) fn take(body: &mut Body) -> Result<GameFields, ApiError> {
        Ok(GameFields {
            rules: take_rules(body)?,
            position: body.take_str("position")?,
            houses: body.take_number("houses")?,
            seeds: body.take_number("seeds")?,
            layout: take_layout(body)?,
            mirrored: body.take_bool("mirrored")?.unwrap_or(false),
            turns: take_moves(body)?,
        })
    }

    /// The game: whether the fields go together (a 400), then their values (a 422: `houses`
    /// and `seeds` are whole numbers in their range, which for `seeds` depends on `houses`),
    /// then the moves, replayed in order.
    pub(crate) fn build(self) -> Result<Game, ApiError> {
        let GameFields {
            rules,
            position,
            houses,
            seeds,
            layout,
            mirrored,
            turns,
        } = self;
        let start = match position {
            Some(text) => {
                if houses.is_some() || seeds.is_some() || layout.is_some() || mirrored {
                    return Err(bad(
                        "give either 'position' or 'houses'/'seeds'/'layout'/'mirrored', not both",
                    ));
                }
                // A tag the rules lack is named first, even where it does not fit the side
                // to move either (`... S pie` without the pie rule).
                let pos =
                    text.parse::<Position>().map_err(
                        |e| match PhaseTagProblem::of_refused_text(&e, &rules) {
                            Some(problem) => phase_tag_error(problem),
                            None => ApiError::Unprocessable(format!("field 'position': {e}")),
                        },
                    )?;
                check_phase_tag(&pos, &rules)?;
                pos
            }
            None => {
                let start = match layout {
                    Some(layout) => {
                        if seeds.is_some() {
                            return Err(bad("give either 'seeds' or 'layout', not both"));
                        }
                        // The houses the layout gives are known before its counts are
                        // read: a disagreement with 'houses' is a 400 whatever the counts.
                        if let Some(h) = houses {
                            if whole(&h) != Whole::Value(layout.len() as u64) {
                                // Two fields that disagree: a 400, like the other pairs of
                                // fields that cannot go together.
                                let n = layout.len();
                                return Err(bad(format!(
                                    "'houses' is {h} but 'layout' gives {n} house{}",
                                    if n == 1 { "" } else { "s" }
                                )));
                            }
                        }
                        let layout = layout.counts()?;
                        if layout.is_empty() {
                            return Err(ApiError::Unprocessable(format!(
                                "'layout' is empty: give the seed counts of houses 1..m (1 to {MAX_HOUSES} houses)"
                            )));
                        }
                        Start::layout(&layout, mirrored)
                            .map_err(|e| ApiError::Unprocessable(format!("field 'layout': {e}")))
                    }
                    None => {
                        if mirrored {
                            return Err(bad("'mirrored' needs a 'layout'"));
                        }
                        let h = match houses.as_ref().map(|n| (n, whole(n))) {
                            None => 6,
                            Some((_, Whole::Value(h))) if (1..=MAX_HOUSES as u64).contains(&h) => {
                                h as usize
                            }
                            Some((n, _)) => {
                                return Err(out_of_range(
                                    "houses",
                                    &format!("1 to {MAX_HOUSES}"),
                                    n,
                                ))
                            }
                        };
                        // As `Start::uniform` checks: at least one seed, at most 255 on the board.
                        let most = u64::from(MAX_SEEDS) / (2 * h as u64);
                        let s = match seeds.as_ref().map(|n| (n, whole(n))) {
                            None => 4,
                            Some((_, Whole::Value(s))) if (1..=most).contains(&s) => s as u32,
                            Some((n, _)) => {
                                let range = format!(
                                    "1 to {most} with {h} house{} a side (the board holds at most {MAX_SEEDS} seeds)",
                                    if h == 1 { "" } else { "s" }
                                );
                                return Err(out_of_range("seeds", &range, n));
                            }
                        };
                        Start::uniform(h, s).map_err(|e| ApiError::Unprocessable(e.to_string()))
                    }
                }?;
                Position::start(&start, &rules)
            }
        };
        let mut pos = start;
        pos.settle(&rules);
        let mut positions = vec![pos];
        let mut outcomes = Vec::new();
        let mut moves = Vec::new();
        for turn in &turns {
            for k in 0..turn.len() {
                let (mv, out) = turn.play(k, &mut pos, &rules).map_err(|e| {
                    if turn.len() > 1 {
                        turn.illegal_step(k, e)
                    } else {
                        ApiError::Unprocessable(format!(
                            "move {} ('{}') of 'moves': {e}",
                            moves.len() + 1,
                            turn.written(k)
                        ))
                    }
                })?;
                turn.check_step(k, &out)?;
                moves.push(mv);
                positions.push(pos);
                outcomes.push(out);
            }
        }
        Ok(Game {
            rules,
            start,
            moves,
            positions,
            outcomes,
        })
    }
}

impl Game {
    /// Reads the game fields of a request and replays the moves ([`GameFields::take`], then
    /// [`GameFields::build`]).
    #[cfg(test)]
    pub(crate) fn take(body: &mut Body) -> Result<Game, ApiError> {
        GameFields::take(body)?.build()
    }

    /// The current position (after every move).
    pub(crate) fn position(&self) -> Position {
        *self.positions.last().expect("at least the start")
    }

    /// The game as a record.
    pub(crate) fn record(&self) -> Result<GameRecord, ApiError> {
        GameRecord::from_moves(self.rules, self.start, &self.moves)
            .map_err(|e| ApiError::Internal(format!("the game does not replay as a record: {e}")))
    }
}

/// A position as the API shows it.
#[derive(Serialize, Debug)]
pub(crate) struct StateJson {
    /// Position string.
    position: String,
    /// Houses a side.
    houses: usize,
    /// Pit counts in bin order.
    pits: Vec<u8>,
    /// "S", "N" or null once the game is over.
    to_move: Option<char>,
    /// Opening phase tag, or null.
    phase: Option<&'static str>,
    over: bool,
    /// Final stores [south, north] once over.
    score: Option<[u8; 2]>,
    /// "S", "N" or "draw" once over.
    winner: Option<&'static str>,
    /// Houses the side to move may sow.
    legal: Vec<u8>,
    /// Whether `swap` is legal.
    swap: bool,
}

pub(crate) fn state_json(pos: &Position, rules: &Rules) -> StateJson {
    let legal = pos.legal_moves(rules);
    let score = match pos.status(rules) {
        Status::Over(s) => Some(s),
        Status::ToMove(_) => None,
    };
    StateJson {
        position: pos.to_string(),
        houses: pos.houses(),
        pits: pos.pits().to_vec(),
        to_move: pos.to_move().map(Side::letter),
        phase: match pos.phase() {
            Phase::Normal => None,
            p => p.tag(),
        },
        over: score.is_some(),
        score,
        winner: score.map(|[s, n]| match s.cmp(&n) {
            std::cmp::Ordering::Greater => "S",
            std::cmp::Ordering::Less => "N",
            std::cmp::Ordering::Equal => "draw",
        }),
        legal: legal
            .iter()
            .filter_map(|m| match m {
                Move::Sow(h) => Some(*h),
                Move::Swap => None,
            })
            .collect(),
        swap: legal.contains(&Move::Swap),
    }
}

/// What one action did, for the page's animation and messages.
#[derive(Serialize, Debug)]
pub(crate) struct OutcomeJson {
    /// Seeds taken from the house (0 for a swap).
    sown: u8,
    /// Bin (bin order) that received each seed, in sowing order.
    path: Vec<usize>,
    /// The mover moves again.
    extra_turn: bool,
    /// Seeds moved to the mover's store by a capture (landing seed included), 0 if none.
    captured: u8,
    /// The bins emptied by the capture: [landing house, opposite house].
    capture_bins: Option<[usize; 2]>,
    /// The action was a pie-rule swap.
    swapped: bool,
    /// Why the game ended with this action, or null.
    ended: Option<String>,
    /// Seeds in South's and North's houses when this action ended the game, before the sweep;
    /// `[0, 0]` when the game goes on.
    left: [u8; 2],
    /// Of those, the seeds the sweep put in South's and North's stores under the leftover rule
    /// ([`kalah_core::EndReason::sweep`]).
    swept: [u32; 2],
    /// Where the seeds left in the houses went, in words (`the seeds left in the houses count
    /// for nobody`), or null when the game goes on.
    leftovers: Option<&'static str>,
}

/// The outcome of `mv` played in `before` (which must be legal there), with the sowing path.
pub(crate) fn outcome_json(
    before: &Position,
    mv: Move,
    out: &Outcome,
    rules: &Rules,
) -> OutcomeJson {
    let mut path = Vec::new();
    if let Move::Sow(h) = mv {
        let m = before.houses();
        let side = before.side();
        let bins = 2 * m + 2;
        let opp_store = before.store_bin(side.opposite());
        let mut b = before.bin_of(side, h as usize);
        for _ in 0..out.sown {
            b = (b + 1) % bins;
            if b == opp_store {
                b = (b + 1) % bins;
            }
            path.push(b);
        }
    }
    let m = before.houses();
    OutcomeJson {
        sown: out.sown,
        path,
        extra_turn: out.extra_turn,
        captured: out.captured,
        capture_bins: (out.captured > 0).then(|| [out.last_bin, 2 * m - out.last_bin]),
        swapped: out.swapped,
        ended: out.ended.map(|r| r.to_string()),
        left: out.left,
        swept: out
            .ended
            .map_or([0, 0], |r| r.sweep(rules, out.left.map(u32::from))),
        leftovers: out.ended.map(|r| r.leftovers_text(rules, out.left)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(json: &str) -> Result<Body, ApiError> {
        Body::parse(json.as_bytes(), &GAME_FIELDS)
    }

    /// The game of a request body, or the message of its error.
    fn game(json: &str) -> Result<Game, String> {
        let mut b = body(json).map_err(|e| e.to_string())?;
        Game::take(&mut b).map_err(|e| e.to_string())
    }

    /// A body that is not UTF-8 is named as such (tester 78: "invalid unicode code point").
    #[test]
    fn a_body_that_is_not_utf8_is_named_as_such() {
        let Err(ApiError::BadRequest(msg)) = Body::parse(b"{\"moves\": \"\xff\"}", &GAME_FIELDS)
        else {
            panic!("a body that is not UTF-8 should be refused");
        };
        assert_eq!(
            msg,
            "the request body is not UTF-8 text (bad byte at offset 11); JSON is sent as UTF-8"
        );
    }

    #[test]
    fn a_key_given_twice_in_one_object_is_refused() {
        for (json, key) in [
            (
                r#"{"rules": {"capture": "empty", "capture": "standard"}}"#,
                "capture",
            ),
            (r#"{"rules": {"pie": true, "pie": true}}"#, "pie"),
            (r#"{"moves": [3], "houses": 4, "moves": [1]}"#, "moves"),
            (r#"{"x": [{"a": 1}, {"b": {"c": 1, "c": 2}}]}"#, "c"),
        ] {
            let Err(ApiError::BadRequest(msg)) = body(json) else {
                panic!("{json} should be refused");
            };
            assert!(
                msg.starts_with(&format!(
                    "the request body: key '{key}' is given twice in one object at line 1"
                )),
                "{json}: {msg}"
            );
        }
        // The same key in different objects is fine.
        assert!(body(
            r#"{"rules": {"pie": true}, "position": null, "moves": [{"a": 1}, {"a": 2}]}"#
        )
        .is_ok());
        // Malformed JSON is still named as such.
        let Err(ApiError::BadRequest(msg)) = body(r#"{"a": }"#) else {
            panic!("malformed JSON accepted");
        };
        assert!(
            msg.starts_with("the request body is not valid JSON: "),
            "{msg}"
        );
    }

    #[test]
    fn values_read_with_unique_keys_are_serde_jsons() {
        let json = r#"{"a": -1, "b": 18446744073709551615, "c": 1.5, "d": null, "e": [true, "s",
            {"f": [], "g": {}}], "h": "\u00e9\n", "i": 1e3}"#;
        let UniqueKeys(v) = serde_json::from_str(json).unwrap();
        assert_eq!(v, serde_json::from_str::<Value>(json).unwrap());
    }

    #[test]
    fn json_numbers_are_whole_by_their_value() {
        let w = |json: &str| whole(&serde_json::from_str::<Number>(json).unwrap());
        for (json, v) in [
            ("6", 6),
            ("6.0", 6),
            ("6e0", 6),
            ("0.6e1", 6),
            ("-0", 0),
            ("-0.0", 0),
            ("1e19", 10_000_000_000_000_000_000),
            ("18446744073709551615", u64::MAX),
        ] {
            assert_eq!(w(json), Whole::Value(v), "{json}");
        }
        for json in [
            "18446744073709551616",
            "1.8446744073709552e19",
            "1e20",
            "1e300",
        ] {
            assert_eq!(w(json), Whole::Above, "{json}");
        }
        for json in ["-1", "-9223372036854775808", "-1e30", "-2.5", "-0.5"] {
            assert_eq!(w(json), Whole::Negative, "{json}");
        }
        for json in ["2.5", "0.5", "1e-3", "1234.5"] {
            assert_eq!(w(json), Whole::Fraction, "{json}");
        }
    }

    #[test]
    fn a_number_that_is_no_house_is_refused_when_its_move_comes_up() {
        // With the board's house count, as house 7 is.
        assert_eq!(
            game(r#"{"houses": 3, "moves": [1, 256]}"#).err().as_deref(),
            Some("move 2 ('256') of 'moves': there is no house 256: houses are numbered 1 to 3")
        );
        assert_eq!(
            game(r#"{"houses": 3, "moves": "1 2-1.5"}"#).err().as_deref(),
            Some("'moves' item 2: '1.5' is not a move: expected a house number (digits, no leading zero) or 'swap'")
        );
        assert_eq!(
            game(r#"{"houses": 3, "seeds": 1, "moves": ["3-", -2]}"#)
                .err()
                .as_deref(),
            Some("move 2 ('-2') of 'moves': -2 is negative: houses are numbered 1 to 3")
        );
        // In a turn text, plain digits only (a leading zero is not a move); the turn is named
        // as written.
        assert_eq!(
            game(r#"{"moves": ["3-0300"]}"#).err().as_deref(),
            Some("'moves' item 1: '0300' is not a move: expected a house number (digits, no leading zero) or 'swap'")
        );
        assert_eq!(
            game(r#"{"moves": ["3-300-"]}"#).err().as_deref(),
            Some("'moves' item 1: '3-300': action 2 (house 300) cannot be played: there is no house 300: houses are numbered 1 to 6")
        );
    }

    #[test]
    fn a_rules_text_with_a_key_given_twice_is_refused() {
        assert_eq!(
            game(r#"{"rules": "pie=on capture=empty pie=off"}"#)
                .err()
                .as_deref(),
            Some("field 'rules': rules key 'pie' is given more than once")
        );
        // Keys and values in any case, as the text form reads them (tester 78).
        let g = game(r#"{"rules": {"Pie": true, "CAPTURE": "Empty"}}"#).unwrap();
        assert!(g.rules.pie && g.rules.capture == kalah_core::CaptureRule::Empty);
        assert_eq!(
            game(r#"{"rules": {"Capture": true}}"#).map(|_| ()),
            Err(
                "field 'rules': 'true' is not a value of capture: expected standard or empty"
                    .into()
            )
        );
        let g = game(r#"{"rules": {"pie": true, "capture": "empty"}}"#).unwrap();
        assert!(g.rules.pie && g.rules.capture == kalah_core::CaptureRule::Empty);
    }

    #[test]
    fn turn_texts_use_the_core_check_and_wording() {
        // Goes on past the turn's end.
        assert_eq!(
            game(r#"{"moves": "3-6-1"}"#).err().as_deref(),
            Some("'moves' item 1: '3-6-1' goes on after action 2 (house 6), which ends the turn")
        );
        // A text may stop within a turn ('3' earns an extra turn), or say so with '-'.
        for moves in [r#"["3"]"#, r#"["3-"]"#, r#"[3, "6"]"#, r#""3- 6""#] {
            assert!(game(&format!(r#"{{"moves": {moves}}}"#)).is_ok(), "{moves}");
        }
        // '-' claims an extra turn: house 6 earns none after 3.
        assert_eq!(
            game(r#"{"moves": ["3", "6-"]}"#).err().as_deref(),
            Some("'moves' item 2: '6-' ends with '-', but action 1 (house 6) earns no extra turn")
        );
        // An extra turn that ends the game ends the turn: '3-' is refused, '3' is fine.
        let last = r#""position": "0,0,1,0,2,2,2,0 S""#;
        assert_eq!(
            game(&format!(r#"{{{last}, "moves": "3-"}}"#))
                .err()
                .as_deref(),
            Some("'moves' item 1: '3-' ends with '-', but action 1 (house 3) ends the game")
        );
        assert!(game(&format!(r#"{{{last}, "moves": "3"}}"#)).is_ok());
        // Pie rule: a swap ends North's turn, so nothing may follow it in the text.
        let pie = r#""rules": "pie=on", "position": "4,4,4,4,4,0,1,5,5,5,4,4,4,0 N pie""#;
        assert_eq!(
            game(&format!(r#"{{{pie}, "moves": ["swap-1"]}}"#))
                .err()
                .as_deref(),
            Some("'moves' item 1: 'swap-1' goes on after action 1 (swap), which ends the turn")
        );
        for moves in [r#"["swap"]"#, r#"["swap", "1"]"#, r#""swap 1""#] {
            assert!(
                game(&format!(r#"{{{pie}, "moves": {moves}}}"#)).is_ok(),
                "{moves}"
            );
        }
    }
}
