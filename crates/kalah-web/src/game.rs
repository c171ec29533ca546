//! Reading requests: the JSON body as an object of known fields, the rules, the start and the
//! moves, replayed into a game; and the JSON shapes of positions and outcomes.

use kalah_core::{
    GameRecord, Move, Outcome, Phase, Position, Rules, Side, Start, Status, MAX_HOUSES,
};
use serde::Serialize;
use serde_json::{Map, Value};

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

/// The fields of a game (rules, start, moves) that every game endpoint takes.
pub(crate) const GAME_FIELDS: [&str; 7] = [
    "rules", "position", "houses", "seeds", "layout", "mirrored", "moves",
];

impl Body {
    /// Parses `bytes` as a JSON object (an empty body is `{}`). `known` lists the fields the
    /// endpoint takes, for [`Body::finish`]'s message.
    pub(crate) fn parse(bytes: &[u8], known: &'static [&'static str]) -> Result<Body, ApiError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Body {
                fields: Map::new(),
                known,
            });
        }
        let v: Value = serde_json::from_slice(bytes)
            .map_err(|e| bad(format!("the request body is not valid JSON: {e}")))?;
        match v {
            Value::Object(fields) => Ok(Body { fields, known }),
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

    pub(crate) fn take_u64(&mut self, key: &str) -> Result<Option<u64>, ApiError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Number(n)) => n.as_u64().map(Some).ok_or_else(|| {
                bad(format!(
                    "field '{key}' must be a whole number 0 or more, not {n}"
                ))
            }),
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
        Some(v @ Value::Object(_)) => {
            serde_json::from_value(v).map_err(|e| bad(format!("field 'rules': {e}")))
        }
        Some(v) => Err(bad(format!(
            "field 'rules' must be an object like {{\"capture\": \"empty\"}} or a string like \"capture=empty pie=on\", not {}",
            type_name(&v)
        ))),
    }
}

/// A move item as the request wrote it: one action, or the actions of one turn joined by `-`
/// (`"3-6"`), optionally ending in `-` (`"3-"`, `"3-6-"`) when the turn is unfinished, as
/// `/api/game` writes open turns.
pub(crate) struct TurnText {
    /// The text as written, for messages.
    pub(crate) text: String,
    /// Where it came from (`field 'move'`, `'moves' item 2`), for messages.
    pub(crate) what: String,
    pub(crate) moves: Vec<Move>,
    /// The text ends in `-`: its last action must earn an extra turn.
    pub(crate) open: bool,
}

impl TurnText {
    /// Checks that the `k`-th action of the text, `mv`, played with outcome `out`, leaves the
    /// turn where the text says: every action but the last must earn an extra turn (a turn
    /// ends where the mover's turn ends), and so must the last one of a text ending in `-`.
    /// The wording is the game-record parser's.
    pub(crate) fn check_step(&self, k: usize, mv: Move, out: &Outcome) -> Result<(), ApiError> {
        let goes_on = out.extra_turn && out.ended.is_none();
        let last = k + 1 == self.moves.len();
        let text = &self.text;
        let what = &self.what;
        if !last && !goes_on {
            return Err(ApiError::Unprocessable(format!(
                "{what}: move {mv} ends the turn but more moves follow in '{text}'"
            )));
        }
        if last && self.open && !goes_on {
            return Err(ApiError::Unprocessable(format!(
                "{what}: '{text}' ends with '-' but move {mv} earns no extra turn"
            )));
        }
        Ok(())
    }
}

/// One action: a house number written in plain digits (no sign, no leading zero) or `swap`.
fn parse_action(t: &str, what: &str) -> Result<Move, ApiError> {
    let t = t.trim();
    if t.eq_ignore_ascii_case("swap") {
        return Ok(Move::Swap);
    }
    let plain =
        !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) && (t == "0" || !t.starts_with('0'));
    match t.parse::<u8>() {
        Ok(h) if plain => Ok(Move::Sow(h)),
        _ if plain => Err(bad(format!("{what}: {t} is not a house number"))),
        _ => Err(bad(format!(
            "{what}: '{t}' is not a move: expected a house number (plain digits) or 'swap'"
        ))),
    }
}

fn parse_move_token(tok: &str, what: &str) -> Result<TurnText, ApiError> {
    let t = tok.trim();
    if t.is_empty() {
        return Err(bad(format!("{what}: empty move")));
    }
    let (body, open) = match t.strip_suffix('-') {
        Some(b) => (b, true),
        None => (t, false),
    };
    let moves = body
        .split(['-', ','])
        .map(|a| parse_action(a, what))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TurnText {
        text: t.to_string(),
        what: what.to_string(),
        moves,
        open,
    })
}

/// One action or a whole turn: `3`, `"3"`, `"swap"`, `"3-6"`, `"3-"`.
pub(crate) fn moves_of_value(v: &Value, what: &str) -> Result<TurnText, ApiError> {
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(h) if h <= u8::MAX as u64 => Ok(TurnText {
                text: h.to_string(),
                what: what.to_string(),
                moves: vec![Move::Sow(h as u8)],
                open: false,
            }),
            _ => Err(bad(format!("{what}: {n} is not a house number"))),
        },
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
        Some(Value::String(s)) => s
            .split_whitespace()
            .enumerate()
            .map(|(i, tok)| parse_move_token(tok, &format!("'moves' turn {}", i + 1)))
            .collect(),
        Some(v) => Err(bad(format!(
            "field 'moves' must be an array like [\"3\", \"6\"] or a string like \"3-6 2\", not {}",
            type_name(&v)
        ))),
    }
}

fn take_layout(body: &mut Body) -> Result<Option<Vec<u8>>, ApiError> {
    let count = |i: usize, v: &Value| -> Result<u8, ApiError> {
        v.as_u64()
            .filter(|&n| n <= 255)
            .map(|n| n as u8)
            .ok_or_else(|| {
                bad(format!(
                    "'layout' item {}: {v} is not a seed count (0 to 255)",
                    i + 1
                ))
            })
    };
    match body.take("layout") {
        None => Ok(None),
        Some(Value::Array(items)) => items.iter().enumerate().map(|(i, v)| count(i, v)).collect::<Result<_, _>>().map(Some),
        Some(Value::String(s)) => s
            .split(',')
            .enumerate()
            .map(|(i, t)| {
                t.trim().parse::<u8>().map_err(|_| {
                    bad(format!("'layout' item {}: '{}' is not a seed count (0 to 255)", i + 1, t.trim()))
                })
            })
            .collect::<Result<_, _>>()
            .map(Some),
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
    let Some(tag) = pos.phase().tag() else {
        return Ok(());
    };
    if rules.allows_phase(pos.phase()) {
        return Ok(());
    }
    let needs = match pos.phase() {
        Phase::PieChoice => "the pie rule (pie=on)",
        _ => "the pie rule (pie=on) or no first-move extra turn (first-move-extra-turn=off)",
    };
    Err(ApiError::Unprocessable(format!(
        "field 'position': the phase tag '{tag}' belongs to the opening rules: add {needs} to \
         'rules', or leave the tag out"
    )))
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

impl Game {
    /// Reads the game fields of a request and replays the moves.
    pub(crate) fn take(body: &mut Body) -> Result<Game, ApiError> {
        let rules = take_rules(body)?;
        let position = body.take_str("position")?;
        let houses = body.take_u64("houses")?;
        let seeds = body.take_u64("seeds")?;
        let layout = take_layout(body)?;
        let mirrored = body.take_bool("mirrored")?.unwrap_or(false);
        let turns = take_moves(body)?;
        let start = match position {
            Some(text) => {
                if houses.is_some() || seeds.is_some() || layout.is_some() || mirrored {
                    return Err(bad(
                        "give either 'position' or 'houses'/'seeds'/'layout'/'mirrored', not both",
                    ));
                }
                let pos = text
                    .parse::<Position>()
                    .map_err(|e| ApiError::Unprocessable(format!("field 'position': {e}")))?;
                check_phase_tag(&pos, &rules)?;
                pos
            }
            None => {
                let start = match layout {
                    Some(layout) => {
                        if seeds.is_some() {
                            return Err(bad("give either 'seeds' or 'layout', not both"));
                        }
                        if let Some(h) = houses {
                            if h != layout.len() as u64 {
                                return Err(ApiError::Unprocessable(format!(
                                    "'houses' is {h} but 'layout' gives {} houses",
                                    layout.len()
                                )));
                            }
                        }
                        Start::layout(&layout, mirrored)
                    }
                    None => {
                        if mirrored {
                            return Err(bad("'mirrored' needs a 'layout'"));
                        }
                        let h = houses.unwrap_or(6);
                        if h == 0 || h > MAX_HOUSES as u64 {
                            return Err(ApiError::Unprocessable(format!(
                                "'houses' must be 1 to {MAX_HOUSES}, not {h}"
                            )));
                        }
                        let s = seeds.unwrap_or(4).min(u32::MAX as u64) as u32;
                        Start::uniform(h as usize, s)
                    }
                }
                .map_err(|e| ApiError::Unprocessable(e.to_string()))?;
                Position::start(&start, &rules)
            }
        };
        let mut pos = start;
        pos.settle(&rules);
        let mut positions = vec![pos];
        let mut outcomes = Vec::new();
        let mut moves = Vec::new();
        for turn in &turns {
            for (k, &mv) in turn.moves.iter().enumerate() {
                let out = pos.play(&rules, mv).map_err(|e| {
                    ApiError::Unprocessable(format!(
                        "move {} ('{mv}') of 'moves': {e}",
                        moves.len() + 1
                    ))
                })?;
                turn.check_step(k, mv, &out)?;
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
}

/// The outcome of `mv` played in `before` (which must be legal there), with the sowing path.
pub(crate) fn outcome_json(before: &Position, mv: Move, out: &Outcome) -> OutcomeJson {
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
    }
}
