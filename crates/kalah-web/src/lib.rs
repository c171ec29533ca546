//! # kalah-web
//!
//! `kalah serve`: the page (plain HTML, CSS and JavaScript modules embedded in the binary) and a
//! stateless JSON API over [`kalah_core`] and the [`kalah_engine`] façade.
//!
//! Every API request carries the rules and the position (or a start and the moves played from it),
//! so any number of servers can answer behind a load balancer. Engine work (engine moves, analysis,
//! game reviews) runs on tokio's blocking pool with a time limit per request (and the node limit a
//! request may add, [`Config::max_nodes`]) and a bound on the number of searches running at once
//! ([`Config::engine_slots`]); past the bound the server answers `503 Service Unavailable` at once
//! instead of queueing. A search whose answer nobody waits for any more (the client hung up, or the
//! search overran its time) is stopped and gives its slot back within a few tenths of a second.
//! Every malformed request gets a 4xx answer `{"error": "..."}` whose message names the problem.
//! Slow or oversized requests are cut off ([`Config::read_timeout`], [`Config::max_body_bytes`]) so
//! that clients cannot hold connections. The endpoints are documented in `docs/API.md`.
//!
//! Values are final store differences from the view of the side to move (its store minus the
//! opponent's at the end of the game with perfect play), as in [`kalah_engine`]; `value_south`
//! fields give the same from South's view.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! kalah_web::serve(listener, kalah_web::Config::default(), std::future::pending()).await
//! # }
//! ```

#![warn(missing_docs)]

mod api;
mod assets;
mod error;
mod game;

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, StatusCode};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower_http::limit::RequestBodyLimitLayer;

pub use error::ApiError;

/// The default of [`Config::max_nodes`], in nodes: 2 million. Measured through the API on a
/// 2-core VM (AMD EPYC) with another build running, a `perfect` move of 2 M nodes took
/// 0.8–1.2 s on Kalah(6,4) and 1.8 s on Kalah(12,10), and an analysis (`/api/analyze`, which
/// spends up to as many nodes again on estimates when it cannot prove every value, see
/// `docs/API.md`) of 4 M nodes 2.0 s and 2.8 s: within the default [`Config::max_time`] of 10 s
/// on a machine three times slower, so that the node limit, not the time, ends the search.
pub const DEFAULT_MAX_NODES: u64 = 2_000_000;

/// Server settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Most engine searches (engine moves, analyses, reviews) running at once; a request past the
    /// bound is answered `503` at once. 0 refuses every engine request.
    pub engine_slots: usize,
    /// Thinking time of an engine request that does not ask for one.
    pub default_time: Duration,
    /// Most thinking time one engine request may ask for (larger requests are cut to it). Also
    /// the time limit of a request that gives a node limit (`nodes`) without a time (`time_ms`):
    /// as on the command line, its node limit is meant to be the one that stops the search,
    /// but the server never searches without a time limit. And the time of a review
    /// (`/api/review`) that does not ask for one: the time for the whole game, not one move.
    pub max_time: Duration,
    /// Most nodes one engine request may ask for with `nodes`, its node limit: from 1 to this
    /// many (0 counts as 1); any other value is refused with `422`. The default,
    /// [`DEFAULT_MAX_NODES`], is searched well within the default [`Config::max_time`], so that
    /// a node limit, not the time, ends the search, and the answer repeats.
    pub max_nodes: u64,
    /// Largest request body accepted, in bytes; larger bodies get `413`, at once (before the
    /// body is read) when the `Content-Length` header declares more.
    pub max_body_bytes: usize,
    /// Longest wait for a request: a connection that has not sent a whole request head
    /// (request line and headers) this long after it opened or after its previous answer is
    /// closed, and a body not received whole this long after its head gets `408`. Engine work
    /// is not counted: only the reading of the request. Must be more than zero.
    pub read_timeout: Duration,
    /// Root directory of the endgame databases (see [`kalah_egdb::default_dir`]); `None`: the
    /// engine searches without them. The databases of a board size and rule set are opened on
    /// the first engine request that needs them and kept open; a set that is missing, partial
    /// or unreadable is reported on stderr (once while its problem stays the same) and not
    /// used, and looked for again after [`Config::egdb_retry`].
    pub egdb_dir: Option<PathBuf>,
    /// How long the server goes on without a board's databases found missing or unusable
    /// before a request that needs them looks again: a set built or repaired while the server
    /// runs is then used without a restart (tester 107: it never was).
    pub egdb_retry: Duration,
    /// How those stderr reports word the repair of a damaged database file; `None`: the
    /// general advice of [`kalah_egdb`] ("build it again (`kalah egdb build` replaces it)").
    pub egdb_advice: Option<EgdbAdvice>,
}

/// The front end's wording of the repair of damaged endgame database files, for the server's
/// stderr reports: the `kalah` binary names its whole build command (`` `kalah egdb build
/// --houses 3 --max-seeds 8 --egdb-dir db` builds it again ``), which this crate cannot know.
/// Two advices are equal when they are the same one (the same `Arc`).
#[derive(Clone)]
pub struct EgdbAdvice {
    /// The message for a set that cannot be opened: the error `e`, met opening the set of
    /// boards of `houses` houses under `rules` (as [`kalah_egdb::Egdb::open`] takes them) in
    /// the database root `root`.
    pub open_error: Arc<OpenErrorFn>,
    /// The repair of the layer of `db` found damaged by the probes of a search
    /// ([`kalah_egdb::Egdb::damaged_layer`]), for [`kalah_egdb::Egdb::damage_warning_with`];
    /// `None` keeps the general advice.
    pub repair: Arc<RepairFn>,
}

/// [`EgdbAdvice::open_error`]: `(error, root, houses, rules)` to the whole message.
pub type OpenErrorFn = dyn Fn(&kalah_egdb::EgdbError, &std::path::Path, usize, &kalah_core::Rules) -> String
    + Send
    + Sync;

/// [`EgdbAdvice::repair`]: an opened set with a damaged layer to the repair's words.
pub type RepairFn = dyn Fn(&kalah_egdb::Egdb) -> Option<String> + Send + Sync;

impl std::fmt::Debug for EgdbAdvice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EgdbAdvice")
    }
}

impl PartialEq for EgdbAdvice {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.open_error, &other.open_error) && Arc::ptr_eq(&self.repair, &other.repair)
    }
}

impl Eq for EgdbAdvice {}

impl Default for Config {
    /// One engine slot per core, 1 s per engine request by default and 10 s at most, node
    /// limits up to [`DEFAULT_MAX_NODES`], 64 KiB bodies, 20 s to send a request's head and 20 s
    /// for its body, no endgame databases (and 10 s before a missing set is looked for again).
    fn default() -> Self {
        Config {
            engine_slots: std::thread::available_parallelism().map_or(1, |n| n.get()),
            default_time: Duration::from_secs(1),
            max_time: Duration::from_secs(10),
            max_nodes: DEFAULT_MAX_NODES,
            max_body_bytes: 64 * 1024,
            read_timeout: Duration::from_secs(20),
            egdb_dir: None,
            egdb_advice: None,
            egdb_retry: Duration::from_secs(10),
        }
    }
}

/// Shared, read-only server state.
#[derive(Clone, Debug)]
pub(crate) struct AppState {
    pub(crate) config: Arc<Config>,
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) egdbs: Arc<Egdbs>,
}

/// An opened endgame database set, or `None` where none is usable.
type OpenSet = Option<Arc<kalah_egdb::Egdb>>;

/// What the server found of one board size's and rule set's databases.
#[derive(Debug)]
struct Looked {
    set: OpenSet,
    /// When it was looked for (a set not found is looked for again [`Config::egdb_retry`]
    /// later).
    at: std::time::Instant,
    /// The report of the set's problem, if it could not be opened (not repeated while the
    /// problem stays the same).
    problem: Option<String>,
}

/// The endgame database sets opened so far, by board size and rules.
#[derive(Debug, Default)]
pub(crate) struct Egdbs {
    open: Mutex<HashMap<(usize, kalah_core::Rules), Looked>>,
    /// Whether a damaged layer was reported (once per server).
    warned: std::sync::atomic::AtomicBool,
}

impl AppState {
    /// The endgame databases for boards of `houses` houses under `rules`, opened on first use.
    /// Blocking (reads file headers): call it on the blocking pool.
    pub(crate) fn egdb(
        &self,
        houses: usize,
        rules: &kalah_core::Rules,
    ) -> Option<Arc<kalah_egdb::Egdb>> {
        let dir = self.config.egdb_dir.as_ref()?;
        if rules.outcome_depends_on_stores() {
            return None;
        }
        // Only the capture, end and leftover rules select a database set.
        let set_rules = kalah_core::Rules {
            pie: false,
            first_move_extra_turn: true,
            ..*rules
        };
        self.warn_if_damaged();
        let mut open = self.egdbs.open.lock().unwrap_or_else(|e| e.into_inner());
        let key = (houses, set_rules);
        let before = open.get(&key);
        if let Some(looked) = before {
            if looked.set.is_some() || looked.at.elapsed() < self.config.egdb_retry {
                return looked.set.clone();
            }
        }
        let looked_before = before.is_some();
        let problem_before = before.and_then(|l| l.problem.clone());
        let (set, problem) = match kalah_egdb::Egdb::open(dir, houses, &set_rules) {
            Ok(db) => (db.map(Arc::new), None),
            Err(e) => {
                let message = match &self.config.egdb_advice {
                    Some(advice) => (advice.open_error)(&e, dir, houses, &set_rules),
                    None => e.to_string(),
                };
                (None, Some(message))
            }
        };
        match (&problem, &problem_before) {
            (Some(now), was) if was.as_ref() != Some(now) => log(&format!(
                "kalah serve: endgame databases not used for {houses} houses: {now} (a request \
                 that needs them looks again after {} s: no restart needed)",
                self.config.egdb_retry.as_secs_f64()
            )),
            // (Repaired, or built since the first request that needed it.)
            (None, _) if looked_before && set.is_some() => log(&format!(
                "kalah serve: endgame databases for {houses} houses now used: {}",
                dir.display()
            )),
            _ => {}
        }
        open.insert(
            key,
            Looked {
                set: set.clone(),
                at: std::time::Instant::now(),
                problem,
            },
        );
        set
    }

    /// Reports, once per server, a layer found damaged by the probes of a search (its impossible
    /// values were searched instead, see `Egdb::probe`): called before a request opens its
    /// databases and after every engine search, so the warning comes with the request that met
    /// the damage.
    pub(crate) fn warn_if_damaged(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        // Once warned, nothing more to do: the advice lists the set's files, not to be done at
        // every request.
        if self.egdbs.warned.load(Relaxed) {
            return;
        }
        let open = self.egdbs.open.lock().unwrap_or_else(|e| e.into_inner());
        for db in open.values().filter_map(|l| l.set.as_ref()) {
            if db.damaged_layer().is_none() {
                continue;
            }
            let repair = self
                .config
                .egdb_advice
                .as_ref()
                .and_then(|advice| (advice.repair)(db));
            let warning = match repair {
                Some(r) => db.damage_warning_with(&r),
                None => db.damage_warning(),
            };
            if let Some(warning) = warning {
                if !self.egdbs.warned.swap(true, Relaxed) {
                    log(&format!("kalah serve: warning: {warning}"));
                }
            }
        }
    }
}

/// The whole application: the page, its assets and the JSON API under `/api/`.
pub fn router(config: Config) -> Router {
    let state = AppState {
        slots: Arc::new(Semaphore::new(config.engine_slots)),
        config: Arc::new(config.clone()),
        egdbs: Arc::new(Egdbs::default()),
    };
    // The page and its assets, gzip-compressed for the browsers that accept it (a quarter of
    // the bytes over a slow connection: tester 108).
    let page = Router::new()
        .route("/", get(assets::index))
        // The page under its file name too, as static servers answer it (tester 78).
        .route("/index.html", get(assets::index))
        .route("/assets/{file}", get(assets::asset))
        .layer(tower_http::compression::CompressionLayer::new());
    Router::new()
        .merge(page)
        .route("/api/info", get(api::info))
        .route("/api/legal", post(api::legal))
        .route("/api/play", post(api::play))
        .route("/api/game", post(api::game))
        .route("/api/engine", post(api::engine))
        .route("/api/analyze", post(api::analyze))
        .route("/api/review", post(api::review))
        .route("/api/record/export", post(api::record_export))
        .route("/api/record/import", post(api::record_import))
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(DefaultBodyLimit::max(config.max_body_bytes))
        // Refuses a declared Content-Length over the limit before the body is read.
        .layer(RequestBodyLimitLayer::new(config.max_body_bytes))
        .layer(middleware::map_response_with_state(
            config.max_body_bytes,
            json_too_large,
        ))
        .with_state(state)
}

/// Gives the `413` of [`RequestBodyLimitLayer`] (plain text) the API's JSON error form.
async fn json_too_large(State(limit): State<usize>, resp: Response) -> Response {
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if resp.status() == StatusCode::PAYLOAD_TOO_LARGE && !is_json {
        ApiError::TooLarge(limit).into_response()
    } else {
        resp
    }
}

/// Serves [`router`] over HTTP/1.1 on `listener` until `shutdown` completes, then finishes the
/// requests in flight (idle connections are closed), for at most twice [`Config::read_timeout`]
/// plus [`Config::max_time`]; connections still open then are dropped.
///
/// A connection is closed when it takes longer than [`Config::read_timeout`] to send a request
/// head (hyper's header read timeout, also the keep-alive idle limit), or when an answer cannot
/// be written for that long (a client that does not read); a body that takes longer gets `408`
/// (see [`router`]).
///
/// # Errors
/// None at present: failures to accept a connection are skipped (after a pause of 1 s unless
/// the client merely hung up, so that running out of file descriptors does not spin).
pub async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let read_timeout = config.read_timeout;
    let max_time = config.max_time;
    let app = router(config);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    if !is_connection_error(&e) {
                        log(&format!("kalah serve: cannot accept a connection: {e}"));
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let peer = Peer::of(&stream);
        let mut builder = http1::Builder::new();
        // A client that shuts down its sending side after its request (a half-close) is
        // answered (tester 92: without this, hyper took the end of the stream for a hang-up and
        // dropped the answer). Engine requests watch for a hang-up themselves ([`Peer`]).
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(read_timeout)
            .half_close(true);
        // A client that stops reading its answers (a pipeline of requests never read) must not
        // hold its connection, nor the shutdown, for ever: a write that cannot go on for the
        // read timeout fails, and the connection is closed.
        let mut stream = tokio_io_timeout::TimeoutStream::new(stream);
        stream.set_write_timeout(Some(read_timeout));
        let app = tower::ServiceExt::map_request(
            app.clone(),
            move |mut req: axum::extract::Request<hyper::body::Incoming>| {
                if let Some(peer) = &peer {
                    req.extensions_mut().insert(peer.clone());
                }
                req
            },
        );
        let conn = builder.serve_connection(
            TokioIo::new(Box::pin(stream)),
            TowerToHyperService::new(app),
        );
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // A connection's errors (the client hung up, a malformed head, the header read
            // timeout) concern that connection only.
            let _ = conn.await;
        });
    }
    drop(listener);
    // The requests in flight may take the longest read, the longest search and a write; then
    // the server stops whatever is left.
    let grace = read_timeout * 2 + max_time;
    let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
    Ok(())
}

/// The client's end of a connection, as an engine request sees it: a second handle on the
/// connection's socket, only ever peeked at, so that a search can stop when the client hangs up
/// (hyper, which serves half-closed connections, no longer tells).
#[derive(Clone)]
pub(crate) struct Peer(Arc<tokio::net::TcpStream>);

impl Peer {
    /// A [`Peer`] on `stream`'s socket (a duplicated handle). None if the socket cannot be
    /// duplicated (out of file descriptors): engine requests on that connection then do not
    /// notice a hang-up and think for their whole time.
    fn of(stream: &tokio::net::TcpStream) -> Option<Peer> {
        let dup = socket2::SockRef::from(stream).try_clone().ok()?;
        dup.set_nonblocking(true).ok()?;
        let dup = tokio::net::TcpStream::from_std(dup.into()).ok()?;
        Some(Peer(Arc::new(dup)))
    }

    /// Completes once the client has closed its sending side (a hang-up, or a half-close: TCP
    /// cannot tell them apart) or the connection has failed. Never completes once the client
    /// has sent more bytes after its request (a pipelined request): these hide a hang-up.
    pub(crate) async fn closed(&self) {
        let mut byte = [0u8; 1];
        if let Ok(1..) = self.0.peek(&mut byte).await {
            std::future::pending::<()>().await;
        }
    }
}

/// Errors of `accept` that concern one connection only.
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    )
}

/// Writes one line to stderr, the server's log; a line that cannot be written (stderr closed,
/// or a full device) is dropped rather than a panic that would stop the server's thread.
fn log(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}
