//! The JSON API handlers. See `docs/API.md`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::{Extension, Json};
use kalah_core::{GameRecord, Move, MoveError, Outcome, Position, Rules, Side, Turn};
use kalah_engine::{Engine, Level, Limits};
use kalah_solver::review::{review_game, GameReview, PlayerSummary};
use kalah_solver::{SearchLimits, Solver, DEFAULT_TT_MIB};
use serde::Serialize;
use serde_json::{json, Number, Value};

use crate::error::ApiError;
use crate::game::{
    moves_of_value, number_text, out_of_range, outcome_json, state_json, whole, whole_in, Body,
    Game, GameFields, OutcomeJson, StateJson, Whole, GAME_FIELDS,
};
use crate::{AppState, Peer};

type ApiResult = Result<Json<Value>, ApiError>;

/// A request's body, read whole within the server's read timeout
/// ([`Config::read_timeout`](crate::Config::read_timeout), else `408`) and body limit (else
/// `413`).
pub(crate) struct ReqBody(Bytes);

impl FromRequest<AppState> for ReqBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        read_body(req, state).await.map(|b| ReqBody(Bytes::from(b)))
    }
}

/// Reads a request's body whole within the read timeout and the body limit. Each piece is
/// copied out as it arrives and let go: a body trickled a byte at a time must not keep one of
/// the server's read buffers alive per byte (tester 34: 64 KiB sent that way took 240 MB).
async fn read_body(req: Request, state: &AppState) -> Result<Vec<u8>, ApiError> {
    use http_body_util::BodyExt;
    let limit = state.config.max_body_bytes;
    let timeout = state.config.read_timeout;
    let mut body = req.into_body();
    let read = async {
        let mut out = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| body_error(&e, limit))?;
            if let Ok(data) = frame.into_data() {
                if out.len() + data.len() > limit {
                    return Err(ApiError::TooLarge(limit));
                }
                out.extend_from_slice(&data);
            }
        }
        Ok(out)
    };
    tokio::time::timeout(timeout, read)
        .await
        .map_err(|_| ApiError::RequestTimeout(timeout.as_millis()))?
}

/// The answer to a body that could not be read: `413` past the limit (the limit layer's
/// error), else `400` naming the problem (a malformed chunk, say).
fn body_error(e: &axum::Error, limit: usize) -> ApiError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<http_body_util::LengthLimitError>() {
            return ApiError::TooLarge(limit);
        }
        source = err.source();
    }
    ApiError::BadRequest(format!("cannot read the request body: {e}"))
}

/// The prologue of every game endpoint: reads the body, parses it as a JSON object with the
/// endpoint's `fields`, and takes the game fields (rules, position or start and moves) out of
/// it, their types checked. The endpoint then takes its own fields, calls `finish`, and only
/// then [`GameFields::build`]s the game, so that every malformed field (a 400) is named before
/// any impossible value (a 422).
fn game_request(
    ReqBody(bytes): ReqBody,
    fields: &'static [&'static str],
) -> Result<(Body, GameFields), ApiError> {
    let mut body = Body::parse(&bytes, fields)?;
    let game = GameFields::take(&mut body)?;
    Ok((body, game))
}

fn to_json<T: Serialize>(v: &T) -> Result<Value, ApiError> {
    serde_json::to_value(v).map_err(|e| ApiError::Internal(format!("cannot write the answer: {e}")))
}

/// `GET /api/info`: version, levels and the server's limits.
pub(crate) async fn info(State(state): State<AppState>) -> Json<Value> {
    let c = &state.config;
    Json(json!({
        "name": "kalah",
        "version": env!("CARGO_PKG_VERSION"),
        "levels": Level::ALL.iter().map(|l| l.name()).collect::<Vec<_>>(),
        "engine_slots": c.engine_slots,
        "engine_slots_free": state.slots.available_permits(),
        "default_time_ms": c.default_time.as_millis() as u64,
        "max_time_ms": c.max_time.as_millis() as u64,
        "max_nodes": max_nodes(c),
        "max_body_bytes": c.max_body_bytes,
        "egdb_dir": c.egdb_dir.as_ref().map(|d| d.display().to_string()),
        "rules": {
            "capture": ["standard", "empty"],
            "end": ["row-empty", "mover-blocked"],
            "leftovers": ["owner", "emptier", "nobody"],
            "majority-end": [false, true],
            "pie": [false, true],
            "first-move-extra-turn": [true, false],
        },
        "max_houses": kalah_core::MAX_HOUSES,
        "max_seeds": kalah_core::MAX_SEEDS,
    }))
}

const LEGAL_FIELDS: &[&str] = &GAME_FIELDS;

/// `POST /api/legal`: the position reached, who is to move and the legal moves.
pub(crate) async fn legal(body: ReqBody) -> ApiResult {
    let (body, game) = game_request(body, LEGAL_FIELDS)?;
    body.finish()?;
    let game = game.build()?;
    to_json(&state_json(&game.position(), &game.rules)).map(Json)
}

#[derive(Serialize)]
struct Played {
    #[serde(rename = "move")]
    mv: String,
    side: char,
    before: String,
    outcome: OutcomeJson,
    #[serde(flatten)]
    state: StateJson,
}

/// The answer for `mv`, played from `before` with outcome `out` to `after`.
fn played(before: &Position, mv: Move, out: &Outcome, after: &Position, rules: &Rules) -> Played {
    Played {
        mv: mv.to_string(),
        side: before.side().letter(),
        before: before.to_string(),
        outcome: outcome_json(before, mv, out, rules),
        state: state_json(after, rules),
    }
}

/// Plays `mv` in `pos`: the answer for it and its outcome.
///
/// # Errors
/// Why `mv` is illegal in `pos` (which is then unchanged).
fn play_one(pos: &mut Position, rules: &Rules, mv: Move) -> Result<(Played, Outcome), MoveError> {
    let before = *pos;
    let out = pos.play(rules, mv)?;
    Ok((played(&before, mv, &out, pos, rules), out))
}

const PLAY_FIELDS: &[&str] = &[
    "rules", "position", "houses", "seeds", "layout", "mirrored", "moves", "move",
];

/// `POST /api/play`: plays `move` (one action, or a whole turn `3-6`) after the game's moves.
pub(crate) async fn play(body: ReqBody) -> ApiResult {
    let (mut body, game) = game_request(body, PLAY_FIELDS)?;
    let mv = body.take("move").ok_or_else(|| {
        ApiError::BadRequest(
            "field 'move' is missing: the house to sow (1..m), a turn like \"3-6\", or \"swap\""
                .into(),
        )
    })?;
    let turn = moves_of_value(&mv, "field 'move'")?;
    body.finish()?;
    let game = game.build()?;
    let mut pos = game.position();
    let mut mvs = Vec::with_capacity(turn.len());
    let mut steps = Vec::with_capacity(turn.len());
    for k in 0..turn.len() {
        let before = pos;
        let (mv, out) = turn.play(k, &mut pos, &game.rules).map_err(|e| {
            if turn.len() > 1 {
                // One action of several: the turn's wording, naming the action in the turn.
                turn.illegal_step(k, e)
            } else {
                ApiError::Unprocessable(format!(
                    "move '{}': {e}",
                    kalah_core::error::clipped(&turn.written(k))
                ))
            }
        })?;
        turn.check_step(k, &out)?;
        steps.push(played(&before, mv, &out, &pos, &game.rules));
        mvs.push(mv);
    }
    if steps.len() == 1 {
        return to_json(&steps[0]).map(Json);
    }
    let last = steps
        .last()
        .map(to_json)
        .transpose()?
        .unwrap_or(Value::Null);
    // The whole turn's move and the position before it (tester 37: `before` was the last
    // action's, which did not fit `move`); `outcome` stays the last action's, which ended the
    // turn.
    let mut v = last;
    v["before"] = json!(steps.first().map(|s| &s.before));
    v["move"] = Value::String(
        mvs.iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join("-"),
    );
    v["steps"] = to_json(&steps)?;
    Ok(Json(v))
}

#[derive(Serialize)]
struct TurnJson {
    number: usize,
    side: char,
    turn: String,
    open: bool,
    /// Index into `steps` of the turn's first move.
    first: usize,
}

const GAME_ONLY: &[&str] = &GAME_FIELDS;

fn game_json(game: &Game) -> Result<Value, ApiError> {
    let mut steps = Vec::with_capacity(game.moves.len());
    for (i, &mv) in game.moves.iter().enumerate() {
        let before = game.positions[i];
        let after = game.positions[i + 1];
        steps.push(played(&before, mv, &game.outcomes[i], &after, &game.rules));
    }
    let record = game.record()?;
    let mut first = 0;
    let turns: Vec<TurnJson> = record
        .turns()
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let tj = TurnJson {
                number: i + 1,
                side: t.side.letter(),
                turn: format!("{}{}", t.turn, if t.open { "-" } else { "" }),
                open: t.open,
                first,
            };
            first += t.turn.0.len();
            tj
        })
        .collect();
    Ok(json!({
        "rules": to_json(&game.rules)?,
        "rules_text": game.rules.to_string(),
        "start": to_json(&state_json(&game.positions[0], &game.rules))?,
        "start_position": game.start.to_string(),
        "moves": game.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "steps": to_json(&steps)?,
        "turns": to_json(&turns)?,
        "state": to_json(&state_json(&game.position(), &game.rules))?,
    }))
}

/// `POST /api/game`: replays a whole game: every step with its outcome and position, the moves
/// grouped into turns in our notation, and the final state.
pub(crate) async fn game(body: ReqBody) -> ApiResult {
    let (body, game) = game_request(body, GAME_ONLY)?;
    body.finish()?;
    let game = game.build()?;
    game_json(&game).map(Json)
}

/// The most nodes a request may ask for ([`Config::max_nodes`](crate::Config::max_nodes), at
/// least 1).
fn max_nodes(c: &crate::Config) -> u64 {
    c.max_nodes.max(1)
}

/// The engine's limits for an engine request's `time_ms` and `nodes` (each taken with
/// [`Body::take_number`], `None` when left out), as `kalah play --move-time-ms --move-nodes`
/// sets them, except that the server always has a time limit:
/// * the time: [`thinking_time`]'s, or, with a node limit and no `time_ms`, the server's
///   maximum ([`Config::max_time`](crate::Config::max_time)), where the command line has none;
/// * the nodes: `nodes`, a whole number from 1 to [`max_nodes`], else none.
///
/// When both are given, the search stops at whichever comes first.
///
/// # Errors
/// `422` naming the field for a time or node limit out of its range (see [`thinking_time`]);
/// `time_ms` is checked first.
fn engine_limits(
    time_ms: Option<Number>,
    nodes: Option<Number>,
    state: &AppState,
) -> Result<Limits, ApiError> {
    let c = &state.config;
    let time = match (&time_ms, &nodes) {
        (None, Some(_)) => c.max_time,
        _ => thinking_time(time_ms, state)?,
    };
    let nodes = nodes
        .map(|n| whole_in("nodes", &n, 1, max_nodes(c)))
        .transpose()?;
    Ok(Limits {
        time: Some(time),
        nodes,
    })
}

/// Thinking time of an engine request: `time_ms` (taken with [`Body::take_number`]) if given (a
/// whole number of ms, at least 1; any longer time, however large, is cut to the server's
/// maximum), else the server's default.
///
/// # Errors
/// `422` naming `time_ms` for 0, a negative or a fractional time.
fn thinking_time(time_ms: Option<Number>, state: &AppState) -> Result<Duration, ApiError> {
    let c = &state.config;
    let max = c.max_time.as_millis();
    let Some(n) = time_ms else {
        return Ok(c.default_time.min(c.max_time));
    };
    match whole(&n) {
        Whole::Value(ms) if ms >= 1 => Ok(Duration::from_millis(ms).min(c.max_time)),
        Whole::Above => Ok(c.max_time),
        _ => Err(out_of_range(
            "time_ms",
            &format!("1 to {max} ms (longer times are cut to {max})"),
            &n,
        )),
    }
}

fn take_level(body: &mut Body, default: Level) -> Result<Level, ApiError> {
    match body.take_str("level")? {
        None => Ok(default),
        Some(s) => s
            .parse()
            .map_err(|e| ApiError::BadRequest(format!("field 'level': {e}"))),
    }
}

/// Sets a search's stop flag when dropped.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Runs `work` on the blocking pool if an engine slot is free (else 503 at once), waiting at
/// most `time` plus a grace period for it. `work` gets a stop flag for its engine
/// ([`Engine::set_stop_flag`]), set as soon as nobody waits for the whole answer any more: the
/// wait timed out, the request's future was dropped (a write that failed, the server's stop),
/// or the client closed its end of the connection, seen through `peer` (none when the router
/// is called directly, as in tests). The search then ends within a few tenths of a second and
/// gives its slot back, rather than holding it for the rest of its thinking time (tester 41).
///
/// hyper serves half-closed connections ([`crate::serve`]), so it no longer drops the future
/// of a client that closed its end; TCP cannot tell a half-close from a hang-up, so both stop
/// the search, and the answer holds what it had found: a half-closing client still gets one,
/// at once (tester 92).
async fn run_engine<T: Send + 'static>(
    state: &AppState,
    time: Duration,
    peer: Option<Extension<Peer>>,
    work: impl FnOnce(Arc<AtomicBool>) -> T + Send + 'static,
) -> Result<T, ApiError> {
    let permit = state
        .slots
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::Busy(state.config.engine_slots))?;
    let state = state.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_on_drop = StopOnDrop(Arc::clone(&stop));
    let flag = Arc::clone(&stop);
    let handle = tokio::task::spawn_blocking(move || {
        let r = work(flag);
        drop(permit); // the slot stays taken until the search really ends
        state.warn_if_damaged();
        r
    });
    let wait = time + time / 2 + Duration::from_secs(2);
    let search = tokio::time::timeout(wait, handle);
    tokio::pin!(search);
    let hung_up = async {
        match &peer {
            Some(Extension(peer)) => peer.closed().await,
            None => std::future::pending().await,
        }
    };
    let outcome = tokio::select! {
        done = &mut search => done,
        () = hung_up => {
            stop.store(true, Ordering::SeqCst);
            search.await
        }
    };
    match outcome {
        Err(_) => Err(ApiError::Timeout(wait.as_millis())),
        Ok(Err(e)) => Err(ApiError::Internal(format!("the engine failed: {e}"))),
        Ok(Ok(v)) => Ok(v),
    }
}

/// The engine's seed for a request's `seed` in `pos`: the seed mixed with the position's text
/// (bin order, side to move, phase tag; FNV-1a), so the same request always gets the same
/// answer, while the successive positions of a game (one request each, one fresh engine each)
/// get different random draws. With the seed alone, the lower levels made the same draws at
/// every move of a game (tester 21).
fn request_seed(seed: u64, pos: &kalah_core::Position) -> u64 {
    let text = pos.to_string();
    let fnv = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    kalah_engine::derive_seed(seed, fnv)
}

const ENGINE_FIELDS: &[&str] = &[
    "rules", "position", "houses", "seeds", "layout", "mirrored", "moves", "level", "time_ms",
    "nodes", "seed",
];

/// `POST /api/engine`: the engine's action at `level` in the game's position, played.
pub(crate) async fn engine(
    State(state): State<AppState>,
    peer: Option<Extension<Peer>>,
    body: ReqBody,
) -> ApiResult {
    let (mut body, game) = game_request(body, ENGINE_FIELDS)?;
    let level = take_level(&mut body, Level::Medium)?;
    let time = body.take_number("time_ms")?;
    let nodes = body.take_number("nodes")?;
    let seed = body.take_number("seed")?;
    body.finish()?;
    let game = game.build()?;
    let limits = engine_limits(time, nodes, &state)?;
    let time = limits.time.unwrap_or(state.config.max_time);
    let seed = seed
        .map(|n| whole_in("seed", &n, 0, u64::MAX))
        .transpose()?;
    let pos = game.position();
    if pos.legal_moves(&game.rules).is_empty() {
        return Err(ApiError::Unprocessable(
            "the game is over: there is no move to choose".into(),
        ));
    }
    let rules = game.rules;
    let started = Instant::now();
    let st = state.clone();
    let choice = run_engine(&state, time, peer, move |stop| {
        let mut engine = match seed {
            Some(s) => Engine::with_seed(level, request_seed(s, &pos)),
            None => Engine::new(level),
        };
        engine.set_stop_flag(stop);
        engine.set_egdb(st.egdb(pos.houses(), &rules));
        engine.choose_with(&pos, &rules, limits)
    })
    .await?;
    let elapsed = started.elapsed();
    let choice = choice.ok_or_else(|| ApiError::Internal("the engine found no move".into()))?;
    let mut after = pos;
    let (played, _) = play_one(&mut after, &rules, choice.mv)
        .map_err(|e| ApiError::Internal(format!("the engine's move '{}': {e}", choice.mv)))?;
    let mut v = to_json(&played)?;
    v["level"] = json!(level.name());
    v["value"] = json!(choice.value);
    v["exact"] = json!(choice.exact);
    v["depth"] = json!(choice.depth);
    v["nodes"] = json!(choice.nodes);
    v["pv"] = json!(choice.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>());
    v["pv_turns"] = json!(kalah_core::turn_texts(&pos, &rules, &choice.pv));
    v["time_ms"] = json!(elapsed.as_millis() as u64);
    Ok(Json(v))
}

const ANALYZE_FIELDS: &[&str] = &[
    "rules", "position", "houses", "seeds", "layout", "mirrored", "moves", "level", "time_ms",
    "nodes",
];

/// `POST /api/analyze`: the value of the position and of every legal move, exact where the
/// engine proves it within the time, estimated otherwise.
pub(crate) async fn analyze(
    State(state): State<AppState>,
    peer: Option<Extension<Peer>>,
    body: ReqBody,
) -> ApiResult {
    let (mut body, game) = game_request(body, ANALYZE_FIELDS)?;
    let level = take_level(&mut body, Level::Perfect)?;
    let time = body.take_number("time_ms")?;
    let nodes = body.take_number("nodes")?;
    body.finish()?;
    let game = game.build()?;
    let limits = engine_limits(time, nodes, &state)?;
    let time = limits.time.unwrap_or(state.config.max_time);
    let pos = game.position();
    let rules = game.rules;
    let mut v = to_json(&state_json(&pos, &rules))?;
    let Some(side) = pos.to_move() else {
        let diff = pos.store_diff(Side::South);
        v["value"] = Value::Null;
        v["value_south"] = json!(diff);
        v["exact"] = json!(true);
        v["moves"] = json!([]);
        v["best"] = json!([]);
        v["nodes"] = json!(0);
        v["time_ms"] = json!(0);
        return Ok(Json(v));
    };
    let started = Instant::now();
    let st = state.clone();
    let (values, nodes) = run_engine(&state, time, peer, move |stop| {
        let mut engine = Engine::new(level);
        engine.set_stop_flag(stop);
        engine.set_egdb(st.egdb(pos.houses(), &rules));
        engine.hint_with_nodes(&pos, &rules, limits)
    })
    .await?;
    let elapsed = started.elapsed();
    let best = values.iter().map(|m| m.value).max();
    let exact = !values.is_empty() && values.iter().all(|m| m.exact);
    v["value"] = json!(best);
    v["value_south"] = json!(best.map(|b| if side == Side::South { b } else { -b }));
    v["exact"] = json!(exact);
    v["moves"] = Value::Array(
        values
            .iter()
            .map(|m| json!({"move": m.mv.to_string(), "value": m.value, "exact": m.exact}))
            .collect(),
    );
    v["best"] = json!(values
        .iter()
        .filter(|m| Some(m.value) == best)
        .map(|m| m.mv.to_string())
        .collect::<Vec<_>>());
    v["nodes"] = json!(nodes);
    v["time_ms"] = json!(elapsed.as_millis() as u64);
    Ok(Json(v))
}

const REVIEW_FIELDS: &[&str] = &[
    "rules", "position", "houses", "seeds", "layout", "mirrored", "moves", "time_ms", "nodes",
];

/// The time budget of a whole review: `time_ms` as [`thinking_time`] reads it (1 ms up, cut to
/// the server's maximum), or, left out, the server's maximum
/// ([`Config::max_time`](crate::Config::max_time)), not its default: the default is one move's
/// thinking time, and a review solves a position for every turn of the game.
///
/// # Errors
/// `422` naming `time_ms` for 0, a negative or a fractional time.
fn review_time(time_ms: Option<Number>, state: &AppState) -> Result<Duration, ApiError> {
    match time_ms {
        None => Ok(state.config.max_time),
        given => thinking_time(given, state),
    }
}

/// `POST /api/review`: every whole turn of the game valued against the best turn of its
/// position, as `kalah review --json` gives it ([`kalah_solver::review::review_game`]).
///
/// The positions are solved from the game's end back to its start, within one time budget
/// (`time_ms`) for the whole review: each search may run until the budget's end, and no search
/// starts once it is spent. So the last turns are solved first; the position being searched
/// when the time runs out gives bounds, the turn before it is listed with the bounds that
/// follow, and the turns before that are left out (`complete` false). `nodes` bounds each
/// position's search.
pub(crate) async fn review(
    State(state): State<AppState>,
    peer: Option<Extension<Peer>>,
    body: ReqBody,
) -> ApiResult {
    let (mut body, game) = game_request(body, REVIEW_FIELDS)?;
    let time = body.take_number("time_ms")?;
    let nodes = body.take_number("nodes")?;
    body.finish()?;
    let game = game.build()?;
    let budget = review_time(time, &state)?;
    let nodes = nodes
        .map(|n| whole_in("nodes", &n, 1, max_nodes(&state.config)))
        .transpose()?;
    let record = game.record()?;
    let turns: Vec<Turn> = record.turns().into_iter().map(|t| t.turn).collect();
    let start = game.positions[0];
    let rules = game.rules;
    let started = Instant::now();
    let review = if turns.is_empty() {
        // Nothing to review, nothing to search (the start's value is no turn's).
        GameReview {
            turns: Vec::new(),
            nodes: 0,
        }
    } else {
        let st = state.clone();
        let played = turns.clone();
        let deadline = started + budget;
        run_engine(&state, budget, peer, move |stop| {
            let mut solver = Solver::new(rules, DEFAULT_TT_MIB);
            solver.set_egdb(st.egdb(start.houses(), &rules));
            solver.set_stop_flag(Arc::clone(&stop));
            review_game(
                &mut solver,
                &start,
                &played,
                1,
                || SearchLimits {
                    deadline: Some(deadline),
                    nodes,
                },
                |_, _| !stop.load(Ordering::SeqCst) && Instant::now() < deadline,
            )
        })
        .await?
        .map_err(|(k, why)| {
            ApiError::Internal(format!("turn {k} of the game does not replay: {why}"))
        })?
    };
    let elapsed = started.elapsed();
    let reviews = &review.turns;
    let summary = |side: Side| PlayerSummary::of(reviews, side);
    let exact = reviews
        .iter()
        .all(|r| r.best_value.exact().is_some() && r.played_value.exact().is_some());
    Ok(Json(json!({
        "start": start.to_string(),
        "game_turns": turns.len(),
        "turns": reviews,
        "players": {"south": summary(Side::South), "north": summary(Side::North)},
        "complete": reviews.len() == turns.len(),
        "exact": exact,
        "nodes": review.nodes,
        "time_ms": elapsed.as_millis() as u64,
        "time_limit_ms": budget.as_millis() as u64,
    })))
}

const EXPORT_FIELDS: &[&str] = &[
    "rules", "position", "houses", "seeds", "layout", "mirrored", "moves", "south", "north",
    "tags", "comments",
];

/// The record's `#` comments: `[[turns before it, "text"], ...]`, as `record/import` answers
/// them (kalah-core's `GameRecord::comments`). Not a list of pairs of a whole number and a
/// string: a 400.
fn take_comments(body: &mut Body) -> Result<Vec<(usize, String)>, ApiError> {
    let Some(v) = body.take("comments") else {
        return Ok(Vec::new());
    };
    let shape = || {
        ApiError::BadRequest(
            "field 'comments' must be a list of [turns before it, text] pairs, as \
             [[1, \" the book move\"]]"
                .into(),
        )
    };
    v.as_array()
        .ok_or_else(shape)?
        .iter()
        .enumerate()
        .map(|(i, item)| match item.as_array().map(Vec::as_slice) {
            // The turn number read as every whole number of the API (tester 92: `1.0` and `-1`
            // were a 400 here, 1 and a 422 elsewhere); past the game's end, moved to its end.
            Some([Value::Number(k), Value::String(text)]) => match whole(k) {
                Whole::Value(k) => Ok((usize::try_from(k).unwrap_or(usize::MAX), text.clone())),
                Whole::Above => Ok((usize::MAX, text.clone())),
                Whole::Negative | Whole::Fraction => Err(ApiError::Unprocessable(format!(
                    "field 'comments', item {}: the turn number must be a whole number, 0 or \
                     more, not {}",
                    i + 1,
                    number_text(k)
                ))),
            },
            _ => Err(shape()),
        })
        .collect()
}

/// The record's other tags (`Event`, `Date`, ...): `[["Event", "x"], ...]`, as `record/import`
/// answers them. Not a list of pairs of strings: a 400; a name no record can carry back (two
/// words, a bracket, a standard tag such as `Rules`; see kalah-core's
/// `GameRecord::tag_name_error`): a 422.
fn take_tags(body: &mut Body) -> Result<Vec<(String, String)>, ApiError> {
    let Some(v) = body.take("tags") else {
        return Ok(Vec::new());
    };
    let shape = || {
        ApiError::BadRequest(
            "field 'tags' must be a list of [name, value] pairs of strings, as \
             [[\"Event\", \"Club night\"]]"
                .into(),
        )
    };
    let items = v.as_array().ok_or_else(shape)?;
    items
        .iter()
        .enumerate()
        .map(|(k, item)| {
            let (name, value) = match item.as_array().map(Vec::as_slice) {
                Some([Value::String(name), Value::String(value)]) => (name, value),
                _ => return Err(shape()),
            };
            // A standard tag is named with the field of this request that gives it (the
            // JSON record form's field names are not all this endpoint's; tester 50).
            if let Some(known) = GameRecord::standard_tag_like(name) {
                let what = if known == name { "" } else { "a near miss of " };
                let given = match known {
                    "Rules" => "given as the field 'rules'",
                    "Start" => "given as the field 'position' (or 'houses', 'seeds', 'layout')",
                    "South" => "given as the field 'south'",
                    "North" => "given as the field 'north'",
                    _ => "written from the moves",
                };
                return Err(ApiError::Unprocessable(format!(
                    "field 'tags', item {}: '{name}' is {what}the standard tag {known}, {given}, \
                     not among the other tags",
                    k + 1
                )));
            }
            if let Some(why) = GameRecord::tag_name_error(name) {
                return Err(ApiError::Unprocessable(format!(
                    "field 'tags', item {}: {why}",
                    k + 1
                )));
            }
            Ok((name.clone(), value.clone()))
        })
        .collect()
}

/// `POST /api/record/export`: the game as a record, text and JSON forms.
pub(crate) async fn record_export(State(state): State<AppState>, body: ReqBody) -> ApiResult {
    let (mut body, game) = game_request(body, EXPORT_FIELDS)?;
    // Both forms write the names as one line (kalah-core), so either reads back the same.
    let south = body.take_str("south")?.unwrap_or_default();
    let north = body.take_str("north")?.unwrap_or_default();
    let tags = take_tags(&mut body)?;
    let comments = take_comments(&mut body)?;
    body.finish()?;
    let game = game.build()?;
    let mut record = game.record()?;
    record.south = south;
    record.north = north;
    record.tags = tags;
    record.comments = comments;
    let (text, json) = (record.to_text(), record.to_json());
    // A record that `record/import` could not take back is not given out (tester 82: tags of
    // quotes, escaped twice over, made an import body twice the body limit). Each form is sent
    // back as the string of an import body `{"text": ...}`, counted as the widest common
    // client writes it (tester 83): Python's `json.dumps`, a space after the colon and every
    // character above ASCII as `\uXXXX` (two of them above U+FFFF).
    let limit = state.config.max_body_bytes;
    for (form, written) in [("text", &text), ("JSON", &json)] {
        let escapes: usize = written
            .chars()
            .filter(|c| !c.is_ascii())
            .map(|c| if c.len_utf16() == 2 { 12 } else { 6 } - c.len_utf8())
            .sum();
        let import = json!({ "text": written }).to_string().len() + 1 + escapes;
        if import > limit {
            return Err(ApiError::Unprocessable(format!(
                "the record's {form} form would make a record/import body of {import} bytes, over \
                 the server's limit of {limit} bytes (max_body_bytes), so it could not be \
                 imported back: {}",
                what_to_shorten(&record_parts(&record))
            )));
        }
    }
    Ok(Json(json!({ "text": text, "json": json })))
}

/// The fields of a `record/export` request that write free text into the record, with the
/// characters each holds: `south`, `north`, `tags` (names and values) and `comments`.
fn record_parts(record: &GameRecord) -> [(&'static str, usize); 4] {
    let chars = |s: &str| s.chars().count();
    [
        ("south", chars(&record.south)),
        ("north", chars(&record.north)),
        (
            "tags",
            record.tags.iter().map(|(n, v)| chars(n) + chars(v)).sum(),
        ),
        (
            "comments",
            record.comments.iter().map(|(_, c)| chars(c)).sum(),
        ),
    ]
}

/// The advice for a record too long to import back: the fields that hold text, longest first
/// (`shorten the field 'south' (12000 characters)`), so that a long name is not blamed on the
/// tags (tester 107); the moves alone when no field holds any.
fn what_to_shorten(parts: &[(&'static str, usize)]) -> String {
    let mut given: Vec<_> = parts.iter().filter(|(_, n)| *n > 0).collect();
    given.sort_by_key(|part| std::cmp::Reverse(part.1));
    let named: Vec<String> = given
        .iter()
        .map(|(field, n)| {
            let unit = if *n == 1 { "character" } else { "characters" };
            format!("'{field}' ({n} {unit})")
        })
        .collect();
    match named.as_slice() {
        [] => "the game's moves alone make it that long".to_string(),
        [one] => format!("shorten the field {one}"),
        [first @ .., last] => format!("shorten the fields {} or {last}", first.join(", ")),
    }
}

const IMPORT_FIELDS: &[&str] = &["text"];

/// `POST /api/record/import`: reads a record (text form, or the JSON form as a string) and
/// answers as `/api/game` does, with the players' names, the other tags (`tags`, as
/// `record/export` takes them) and the comments (`comments`, likewise).
pub(crate) async fn record_import(body: ReqBody) -> ApiResult {
    let ReqBody(bytes) = body;
    let mut body = Body::parse(&bytes, IMPORT_FIELDS)?;
    let text = body
        .take_str("text")?
        .ok_or_else(|| ApiError::BadRequest("field 'text' is missing: the game record".into()))?;
    body.finish()?;
    // An empty text is one of these errors (kalah-core's `RecordError::Empty`), as in `kalah
    // play --load`.
    // (The JSON form's errors say "bad JSON game record" themselves.)
    let record = GameRecord::parse(&text).map_err(|e| {
        ApiError::Unprocessable(match e {
            kalah_core::RecordError::Json(_) => e.to_string(),
            e => format!("bad game record: {e}"),
        })
    })?;
    // As `kalah play --load`: a start phase tag needs its opening rules.
    if let Some(problem) = record.start.phase_tag_problem(&record.rules) {
        return Err(ApiError::Unprocessable(format!(
            "bad game record: the Start position's {problem}"
        )));
    }
    let mut positions = vec![{
        let mut p = record.start;
        p.settle(&record.rules);
        p
    }];
    let mut outcomes = Vec::new();
    for &mv in record.moves() {
        let mut p = *positions.last().expect("start");
        let out = p
            .play(&record.rules, mv)
            .map_err(|e| ApiError::Internal(format!("the record does not replay: {e}")))?;
        positions.push(p);
        outcomes.push(out);
    }
    let game = Game {
        rules: record.rules,
        start: record.start,
        moves: record.moves().to_vec(),
        positions,
        outcomes,
    };
    let mut v = game_json(&game)?;
    v["south"] = json!(record.south);
    v["north"] = json!(record.north);
    v["tags"] = json!(record.tags);
    v["comments"] = json!(record.comments);
    Ok(Json(v))
}

/// The request's address, once its body is read and dropped (or the error reading it).
async fn drained(req: Request, state: &AppState) -> Result<axum::http::Uri, ApiError> {
    let uri = req.uri().clone();
    read_body(req, state).await.map(|_| uri)
}

/// Unknown paths. The body is read (and dropped) first, so that the connection can carry the
/// client's next request (tester 34: a 404 sent before the body arrived closed it).
pub(crate) async fn not_found(State(state): State<AppState>, req: Request) -> ApiError {
    let uri = match drained(req, &state).await {
        Ok(uri) => uri,
        Err(e) => return e,
    };
    ApiError::NotFound(format!(
        "no such page or endpoint: {} (the API is under /api/: info, legal, play, game, engine, analyze, review, record/export, record/import)",
        uri.path()
    ))
}

/// Known paths with the wrong method. The body is read first, as for [`not_found`].
pub(crate) async fn method_not_allowed(State(state): State<AppState>, req: Request) -> ApiError {
    let uri = match drained(req, &state).await {
        Ok(uri) => uri,
        Err(e) => return e,
    };
    let p = uri.path();
    let how = if p.starts_with("/api/") && p != "/api/info" {
        "POST with a JSON body"
    } else {
        "GET"
    };
    ApiError::MethodNotAllowed(format!("{p} takes {how}"))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::sync::Semaphore;

    use super::*;
    use crate::Config;

    /// The seed of `/api/engine` is mixed with the position: one request always gets the same
    /// engine seed; the positions of a game get different ones (with the raw seed, the lower
    /// levels drew the same random numbers at every move; tester 21).
    #[test]
    fn request_seeds_differ_by_position_and_repeat() {
        let rules = kalah_core::Rules::default();
        let mut pos =
            kalah_core::Position::start(&kalah_core::Start::uniform(6, 4).unwrap(), &rules);
        let mut seen = std::collections::HashSet::new();
        while !pos.legal_moves(&rules).is_empty() {
            let s = request_seed(7, &pos);
            assert_eq!(s, request_seed(7, &pos));
            assert_ne!(s, request_seed(8, &pos));
            assert!(seen.insert(s), "a repeated seed in {pos}");
            let mv = pos.legal_moves(&rules)[0];
            pos.play(&rules, mv).unwrap();
        }
        assert!(seen.len() >= 8, "{}", seen.len());
    }

    fn state(slots: usize) -> AppState {
        let config = Config {
            engine_slots: slots,
            ..Config::default()
        };
        AppState {
            slots: Arc::new(Semaphore::new(slots)),
            config: Arc::new(config),
            egdbs: Arc::default(),
        }
    }

    /// The limits of an engine request, as `kalah play --move-time-ms --move-nodes` sets them,
    /// but never without a time: a node limit alone gets the server's maximum time (the command
    /// line: none), and `time_ms` keeps its own rules (the default when left out, cut to the
    /// maximum).
    #[test]
    fn engine_limits_are_the_command_lines_with_a_time_always() {
        let st = AppState {
            config: Arc::new(Config {
                default_time: Duration::from_millis(300),
                max_time: Duration::from_millis(4000),
                max_nodes: 1000,
                ..Config::default()
            }),
            ..state(1)
        };
        let n = |v: u64| Some(Number::from(v));
        let limits = |time: Option<u64>, nodes: Option<u64>| Limits {
            time: time.map(Duration::from_millis),
            nodes,
        };
        assert_eq!(engine_limits(None, None, &st), Ok(limits(Some(300), None)));
        assert_eq!(
            engine_limits(None, n(1000), &st),
            Ok(limits(Some(4000), Some(1000)))
        );
        assert_eq!(
            engine_limits(n(50), n(1), &st),
            Ok(limits(Some(50), Some(1)))
        );
        assert_eq!(
            engine_limits(n(9000), n(7), &st),
            Ok(limits(Some(4000), Some(7)))
        );
        for bad in [0, 1001] {
            let e = engine_limits(None, n(bad), &st).unwrap_err();
            assert_eq!(
                e,
                ApiError::Unprocessable(format!(
                    "field 'nodes' must be a whole number from 1 to 1000, not {bad}"
                ))
            );
        }
        // A maximum of 0 counts as 1.
        let st = AppState {
            config: Arc::new(Config {
                max_nodes: 0,
                ..Config::default()
            }),
            ..state(1)
        };
        assert!(engine_limits(None, n(1), &st).is_ok());
        assert!(engine_limits(None, n(2), &st).is_err());
    }

    #[tokio::test]
    async fn an_overrunning_search_times_out_and_keeps_its_slot_until_it_ends() {
        let st = state(1);
        let started = Instant::now();
        let r = run_engine(&st, Duration::from_millis(1), None, |_| {
            std::thread::sleep(Duration::from_millis(2600));
            1
        })
        .await;
        assert!(matches!(r, Err(ApiError::Timeout(_))), "{r:?}");
        assert!(started.elapsed() < Duration::from_millis(2500));
        // The search still runs: its slot is still taken, so the next request is refused.
        let r = run_engine(&st, Duration::from_millis(1), None, |_| 2).await;
        assert_eq!(r, Err(ApiError::Busy(1)));
        // Once it ends, the slot is free again.
        tokio::time::sleep(Duration::from_millis(800)).await;
        assert_eq!(
            run_engine(&st, Duration::from_millis(1), None, |_| 3).await,
            Ok(3)
        );
    }

    #[tokio::test]
    async fn a_search_nobody_waits_for_any_more_is_told_to_stop() {
        let st = state(1);
        let (tx, rx) = std::sync::mpsc::channel();
        let r = run_engine(&st, Duration::from_millis(1), None, move |stop| {
            let started = Instant::now();
            while !stop.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(1));
            }
            tx.send(stop.load(Ordering::SeqCst)).unwrap();
        })
        .await;
        assert!(matches!(r, Err(ApiError::Timeout(_))), "{r:?}");
        assert_eq!(rx.recv_timeout(Duration::from_secs(2)), Ok(true));
    }

    #[tokio::test]
    async fn a_panicking_search_is_a_500_not_a_crash() {
        let st = state(1);
        let r: Result<(), _> =
            run_engine(&st, Duration::from_millis(10), None, |_| panic!("boom")).await;
        assert!(
            matches!(r, Err(ApiError::Internal(ref m)) if m.contains("engine failed")),
            "{r:?}"
        );
        assert_eq!(st.slots.available_permits(), 1);
    }
}
