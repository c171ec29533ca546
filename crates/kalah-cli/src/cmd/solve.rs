//! `kalah solve`: the exact value of a position with perfect play, every best whole turn and a
//! principal variation.
//!
//! Also holds what `kalah analyze` and `kalah bench` share: the solver set-up (table size,
//! endgame databases), the progress display and the Ctrl-C handling.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use indicatif::{ProgressBar, ProgressStyle};
use kalah_core::{Move, Position, Rules, Turn};
use kalah_egdb::Egdb;
use kalah_solver::{egdb_reaches, memory_mib, Progress, Proof, SearchLimits, SolveError, Solver};
use serde_json::json;

use crate::game_args::RuleArgs;
use crate::output::print;

mod batch;

/// Arguments of `kalah solve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub target: Target,
    /// Print JSON: {"position", "rules", "value", "best", "pv", "nodes", "tt_hits", "seconds"}
    /// ("rules" as the Rules tag of a game record writes them).
    #[arg(long)]
    pub json: bool,
    /// Threads, 1 to 256 [default: every core]: each runs its own MTD(f), all sharing one
    /// transposition table of --tt-mb and the work of each test (a child one thread is
    /// searching, another puts off); the first to finish gives the value (node counts then vary
    /// from run to run; 1 is deterministic).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cmd::egdb::parse_threads)]
    pub threads: Option<usize>,
    /// Solve every position of FILE (`-`: standard input), one a line, each optionally followed
    /// by its expected value ("4,4,4,4,4,4,0,4,4,4,4,4,4,0 S +8") or outcome for the side to
    /// move (W, D or L: "... S W"; blank lines and # comments
    /// skipped; a byte-order mark opening the file too), with one solver whose table is kept
    /// between positions (one a board size, for the last two sizes used). Prints a result a line
    /// as each is proven (with --json, JSON lines), then a summary: positions, mismatches, mean
    /// nodes and seconds. Exit code 1 if a line is bad, a value differs from the expected one
    /// or a position is given up at --time-ms or --nodes.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["position", "moves"])]
    pub batch: Option<PathBuf>,
    /// With --batch: solve each position with an empty transposition table, of the size a
    /// `kalah solve` of that position alone takes, so that each line's nodes and time are those
    /// of a solve of its position alone (on one thread, the same node count), whatever the
    /// lines before it. Without it the table is kept, and a line finds the work of the lines
    /// before it.
    #[arg(long, requires = "batch")]
    pub fresh_table: bool,
    /// Do not list every best turn: the value and a principal variation only (its first turn is
    /// a best one; JSON without "best"). The list can cost far more than the value on wide boards
    /// whose actions come close to it: Kalah(8,2) takes 2 M nodes for the value, 69 M for the list.
    #[arg(long)]
    pub no_best: bool,
    #[command(flatten)]
    pub limits: Limits,
}

impl Args {
    /// What the solve finds once the value is proven.
    pub(crate) fn listing(&self) -> Listing {
        if self.no_best {
            Listing::PvOnly
        } else {
            Listing::BestTurns
        }
    }
}

/// What `kalah solve` finds once the value is proven: every best turn and a principal
/// variation, or (`--no-best`) the principal variation only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Listing {
    /// Every best turn, then a principal variation.
    #[default]
    BestTurns,
    /// A principal variation only.
    PvOnly,
}

impl Listing {
    /// The work after the value, as the progress line says it.
    fn doing(self) -> &'static str {
        match self {
            Listing::BestTurns => "listing best turns",
            Listing::PvOnly => "finding a principal variation",
        }
    }

    /// What a stop after the value left undone.
    fn undone(self) -> &'static str {
        match self {
            Listing::BestTurns => "the best turns were not finished",
            Listing::PvOnly => "the principal variation was not finished",
        }
    }

    /// Solves `pos` on `threads` threads: the value, a principal variation and the work done,
    /// with every best whole turn unless [`Listing::PvOnly`].
    ///
    /// # Errors
    /// [`SolveError::Stopped`] as [`Solver::solve_with_best_turns`] and [`Solver::prove_parallel`].
    pub(crate) fn solve(
        self,
        solver: &mut Solver,
        pos: &Position,
        threads: usize,
    ) -> Result<(Proof, Option<Vec<Turn>>), SolveError> {
        match self {
            Listing::BestTurns => solver
                .solve_with_best_turns(pos, threads)
                .map(|(sol, best)| (Proof::from(sol), Some(best))),
            Listing::PvOnly => solver.prove_parallel(pos, threads).map(|p| (p, None)),
        }
    }
}

/// `--time-ms` and `--nodes`: when `solve` gives up a position, or `analyze` an analysis.
#[derive(clap::Args, Debug)]
pub struct Limits {
    // (`analyze` words this help for itself: `cli_command` in main.rs.)
    /// Give up after MS milliseconds of search (1 to a day), printing the bounds proven by then;
    /// exit code 1. With --batch, each position has the limit, one given up is counted as
    /// unfinished and the batch goes on.
    #[arg(
        long,
        value_name = "MS",
        allow_negative_numbers = true,
        value_parser = crate::cmd::serve::parse_ms
    )]
    pub time_ms: Option<u64>,
    /// Give up after N nodes, as --time-ms does (checked every 1024 nodes; on several threads,
    /// each thread counts its own).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cmd::play::parse_move_nodes)]
    pub nodes: Option<u64>,
}

impl Limits {
    /// The limits of one position's search, from --time-ms and --nodes: set just before it
    /// (the time limit is a deadline from now).
    pub(crate) fn position_limits(&self) -> SearchLimits {
        SearchLimits::new(self.time_ms.map(Duration::from_millis), self.nodes)
    }

    /// The limit that stopped a search begun at `since` (when its limits were set) that no
    /// signal stopped, as its JSON name and its flag (`("nodes", "--nodes 1000")`, `("time",
    /// "--time-ms 500")`), or `None` when a signal came or no limit was set. The time limit if
    /// its time has passed (node counts of several threads are summed, and do not tell which
    /// thread reached its limit: tester 83), else the node limit.
    pub(crate) fn limit_hit(&self, since: Instant) -> Option<(&'static str, String)> {
        if crate::signals::received() {
            return None;
        }
        let [time, nodes] = self.limit_flags();
        match self.time_ms {
            Some(t) if since.elapsed() >= Duration::from_millis(t) => time,
            _ => nodes.or(time),
        }
    }

    /// The limits given, as their JSON names and flags: `[("time", "--time-ms 500"), ("nodes",
    /// "--nodes 1000")]`, each `None` when not given.
    pub(crate) fn limit_flags(&self) -> [Option<(&'static str, String)>; 2] {
        [
            self.time_ms.map(|t| ("time", format!("--time-ms {t}"))),
            self.nodes.map(|n| ("nodes", format!("--nodes {n}"))),
        ]
    }
}

/// What stopped a search, for its report: `stopped by --nodes 1000` at a limit (`limit`, see
/// [`Limits::limit_hit`]), else the last signal's `interrupted (Ctrl-C)`.
pub(crate) fn stopped_by(limit: Option<&(&'static str, String)>) -> String {
    match limit {
        Some((_, flag)) => format!("stopped by {flag}"),
        None => crate::signals::stopped_by().to_string(),
    }
}

/// The JSON of a stopped search of `pos`: `{"position", "stopped": true, "lower", "upper",
/// "nodes", "seconds"}`, what stopped it (`"limit": "nodes"`, or `"signal": "SIGINT"`) and,
/// once `lower == upper`, the `"value"`. `solve`, `solve --batch` and `analyze` add their own
/// fields to it.
pub(crate) fn stop_json(
    (pos, rules): (&Position, &Rules),
    (lower, upper): (i32, i32),
    (nodes, secs): (u64, f64),
    limit: Option<&(&'static str, String)>,
) -> serde_json::Value {
    let mut v = json!({
        "position": pos.to_string(),
        "rules": rules.to_string(),
        "stopped": true,
        "lower": lower,
        "upper": upper,
        "nodes": nodes,
        "seconds": crate::output::json_seconds(secs),
    });
    match limit {
        Some((key, _)) => v["limit"] = json!(key),
        None => v["signal"] = json!(crate::signals::signal_name()),
    }
    if lower == upper {
        v["value"] = json!(lower);
    }
    v
}

/// Ends a command whose search was stopped, once what it proved is printed: at a limit
/// (`limit`, see [`Limits::limit_hit`]) with the error `{what} within --nodes 1000` (exit code
/// 1), on a signal with exit code 128 + its number (130 for Ctrl-C).
///
/// # Errors
/// At a limit, always.
pub(crate) fn end_stopped(limit: Option<(&'static str, String)>, what: &str) -> Result<()> {
    match limit {
        Some((_, flag)) => bail!("{what} within {flag}"),
        None => std::process::exit(crate::signals::exit_code()),
    }
}

/// What a stopped search proved of a value, from the bounds it gives ([`Proven::of`]).
pub(crate) enum Proven {
    /// The bounds meet: the value.
    Value(i32),
    /// The bounds are no tighter than the seeds in play give ([`kalah_solver::seed_bounds`]).
    Nothing,
    /// The value lies between these bounds.
    Between(i32, i32),
}

impl Proven {
    /// What `lower..=upper`, bounds of the value of `pos` under `rules`, prove.
    pub(crate) fn of(pos: &Position, rules: &Rules, lower: i32, upper: i32) -> Proven {
        let (lo, hi) = kalah_solver::seed_bounds(pos, rules);
        if lower == upper {
            Proven::Value(lower)
        } else if lower <= lo && upper >= hi {
            Proven::Nothing
        } else {
            Proven::Between(lower, upper)
        }
    }
}

/// The position to search, its rules and the solver flags: shared by `solve` and `analyze`.
#[derive(clap::Args, Debug)]
pub struct Target {
    /// The position in bin order with the side to move, e.g. "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"
    /// [default: the start position of the rule flags].
    #[arg(value_name = "POSITION")]
    pub position: Option<String>,
    /// Actions to play from POSITION (or the start) first, as `kalah show --moves` takes them:
    /// items separated by commas and/or spaces, each an action (a house number, or `swap`) or
    /// the actions of one turn joined by `-`, e.g. "3-6 1"; the search starts where they lead.
    #[arg(long, value_name = "ACTIONS", allow_hyphen_values = true)]
    pub moves: Option<String>,
    #[command(flatten)]
    pub rules: RuleArgs,
    #[command(flatten)]
    pub search: SearchArgs,
}

impl Target {
    /// The rules, the position, and a solver for them with its progress bar (see
    /// [`make_solver`]; `what` names the work on the bar, `root_bounds` whether it shows the
    /// bounds proven for the position itself, and what follows the value).
    pub(crate) fn setup(
        &self,
        limits: &Limits,
        what: &str,
        root_bounds: Option<Listing>,
    ) -> Result<(Rules, Position, Solver, ProgressBar)> {
        let rules = self.rules.rules();
        let pos = self.position()?;
        let (solver, bar) = make_solver(&self.search, &rules, &pos, limits, what, root_bounds)?;
        Ok((rules, pos, solver, bar))
    }

    /// The position to search: POSITION (or the rule flags' start), then the --moves played
    /// from it (tester 74: a position reached in a game first had to be found with `kalah
    /// show --json`).
    ///
    /// # Errors
    /// A bad POSITION, or a --moves list that does not read or play.
    pub(crate) fn position(&self) -> Result<Position> {
        let pos = self.rules.position(self.position.as_deref())?;
        match &self.moves {
            Some(text) => Ok(crate::cmd::show::play_moves(pos, &self.rules.rules(), text)?.0),
            None => Ok(pos),
        }
    }
}

/// Solver flags shared by `solve` and `analyze`.
#[derive(clap::Args, Debug, Clone)]
pub struct SearchArgs {
    /// Transposition table size in MiB, at least 1 and at most this machine's memory; the table
    /// takes the largest power of two of MiB not above it (5 gives 4) [default:
    /// 2 MiB with endgame databases whose largest layer is at most 32 seeds below the position's
    /// seeds in the houses and holds at least 45 % as many; otherwise from those seeds above two thirds of the largest layer
    /// (all of them without databases), 16 MiB up to 20, 64 up to 30, 256 up to 39, 512 up
    /// to 48 (1024 if its entries are wider than 8 bytes), 1024 beyond; at least 512 on boards
    /// of more than 6 houses where those seeds can lie in 2^37 ways or more; with --time-ms MS,
    /// at most 1 MiB for every 16 ms (a power of two, at least 16 MiB), as clearing a larger
    /// table would take much of the time; with --nodes N, at most 32 bytes a node (a power of
    /// two, at least 16 MiB)].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_tt_mb)]
    pub tt_mb: Option<usize>,
    /// Directory of the endgame databases [default: the per-user database root,
    /// ~/.local/share/kalah/egdb on Linux, if it exists].
    #[arg(long, value_name = "DIR")]
    pub egdb_dir: Option<PathBuf>,
    /// Do not use endgame databases even if present.
    #[arg(long, conflicts_with = "egdb_dir")]
    pub no_egdb: bool,
}

/// Parses a `--tt-mb` value: a whole number of MiB, at least 1 and at most the machine's
/// physical memory (a bigger table cannot be allocated, and the solver would abort).
pub(crate) fn parse_tt_mb(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let n: usize = t.parse().map_err(|_| {
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            format!("{t} MiB is more than any table can use")
        } else {
            format!("'{s}' is not a whole number of MiB")
        }
    })?;
    if n == 0 {
        return Err("the transposition table needs at least 1 MiB".to_string());
    }
    match memory_mib() {
        Some(total) if n > total => Err(format!(
            "{n} MiB is more than this machine's memory ({total} MiB)"
        )),
        // Memory unknown (no /proc/meminfo): still refuse absurd sizes, over 16 TiB.
        None if n > 1 << 24 => Err(format!("{n} MiB is more than any table can use")),
        _ => Ok(n),
    }
}

/// How long after a Ctrl-C another SIGINT counts as the same one. `timeout -s INT` signals the
/// command and then its whole process group, so the command gets SIGINT twice within
/// microseconds: exiting on the second lost the bounds proven so far whenever the stop took a
/// few milliseconds (a parallel analysis joining its threads).
const CTRL_C_REPEAT: Duration = Duration::from_secs(1);

/// The Ctrl-C handling of `solve`, `analyze` and `bench`: the first SIGINT sets the stop flag
/// (the search stops and prints what it proved); one at least [`CTRL_C_REPEAT`] later, when the
/// search has not stopped by then, exits at once.
struct CtrlC {
    stop: Arc<AtomicBool>,
    /// When the first SIGINT came.
    first: OnceLock<Instant>,
}

impl CtrlC {
    fn new(stop: Arc<AtomicBool>) -> Self {
        Self {
            stop,
            first: OnceLock::new(),
        }
    }

    /// Handles a SIGINT (or SIGTERM, SIGHUP) that came at `now`: sets the stop flag and returns
    /// whether to exit at once (code 128 + the signal's number).
    fn on_signal(&self, now: Instant) -> bool {
        let first = *self.first.get_or_init(|| now);
        self.stop.store(true, Ordering::SeqCst);
        now.saturating_duration_since(first) >= CTRL_C_REPEAT
    }
}

/// Installs the Ctrl-C handling of `solve`, `analyze` and `bench` (see [`CtrlC`]): the first
/// SIGINT (or SIGTERM, SIGHUP) sets `stop`, a later one exits with code 128 + the signal's
/// number. A handler already set is kept.
pub(crate) fn stop_on_ctrl_c(stop: Arc<AtomicBool>) {
    let ctrl_c = CtrlC::new(stop);
    let _ = crate::signals::on_stop(move |_| {
        if ctrl_c.on_signal(Instant::now()) {
            std::process::exit(crate::signals::exit_code());
        }
    });
}

/// What every solver of one command shares: the endgame databases found (if any), the table
/// size in MiB asked for (or the default), and the Ctrl-C stop flag.
struct SolverParts {
    egdb: Option<Arc<Egdb>>,
    tt_mb: usize,
    /// Whether `tt_mb` is the small default table used with databases that reach the position
    /// (no `--tt-mb`): a parallel analysis then gives each thread its own.
    small_egdb_table: bool,
    stop: Arc<AtomicBool>,
}

impl SolverParts {
    /// A solver for `rules` with a table of `tt_mb` MiB (at least 1), the databases and the
    /// stop flag.
    fn solver(&self, rules: &Rules, tt_mb: usize) -> Solver {
        let mut solver = Solver::new(*rules, tt_mb.max(1));
        solver.set_egdb(self.egdb.clone());
        solver.set_stop_flag(self.stop.clone());
        solver
    }
}

/// The default table size in MiB for `pos` under `rules`, with databases whose largest layer is
/// `top`, for a search limited by `limits` (`--time-ms`, `--nodes`): see
/// [`kalah_solver::default_table_mib`].
pub(crate) fn default_tt_for(
    rules: &Rules,
    pos: &Position,
    top: Option<u32>,
    limits: &Limits,
) -> usize {
    kalah_solver::default_table_mib(rules, pos, top, limits.time_ms, limits.nodes)
}

fn solver_parts(
    search: &SearchArgs,
    rules: &Rules,
    pos: &Position,
    limits: &Limits,
) -> Result<SolverParts> {
    // Untouched table memory costs nothing, but every page touched is cleared by the kernel: a
    // small search over a huge table pays for it, so size the table by the work to come.
    // The default never asks for more than half the machine's memory (an explicit --tt-mb is
    // checked by `parse_tt_mb`): a failed allocation aborts the process.
    let egdb = if search.no_egdb {
        None
    } else {
        open_egdb(search, pos.houses(), rules)?
    };
    let top = egdb.as_ref().map(|db| db.max_seeds());
    let tt_mb = search
        .tt_mb
        .unwrap_or_else(|| default_tt_for(rules, pos, top, limits));
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_ctrl_c(stop.clone());
    Ok(SolverParts {
        egdb: egdb.map(Arc::new),
        tt_mb,
        small_egdb_table: search.tt_mb.is_none() && egdb_reaches(pos.seeds_in_houses(), top),
        stop,
    })
}

/// A solver for `rules` on boards of `houses` houses, with the databases found (if any), a
/// Ctrl-C stop flag and a progress display on stderr for searches longer than a second (with
/// the bounds proven so far, and what follows the value, if `root_bounds`: not for a per-move
/// analysis, whose bounds belong to whichever move is being solved, from its opponent's view).
pub(crate) fn make_solver(
    search: &SearchArgs,
    rules: &Rules,
    pos: &Position,
    limits: &Limits,
    what: &str,
    root_bounds: Option<Listing>,
) -> Result<(Solver, ProgressBar)> {
    let parts = solver_parts(search, rules, pos, limits)?;
    let mut solver = parts.solver(rules, parts.tt_mb);
    let bar = ProgressBar::hidden();
    let shown = bar.clone();
    let what = what.to_string();
    let root = root_bounds.map(|listing| (*pos, *rules, listing));
    solver.set_progress(move |p: &Progress| {
        if p.elapsed < Duration::from_secs(1) {
            return;
        }
        let root = root
            .as_ref()
            .map(|(pos, rules, listing)| (pos, rules, *listing));
        show_progress(&shown, progress_message(&what, p, root));
    });
    Ok((solver, bar))
}

/// `threads` solvers (at least one) for a parallel analysis: the databases (if any) and one
/// Ctrl-C stop flag (returned too) shared. The transposition table is one table of `--tt-mb`
/// (or the default size for the position as one solver would have it) shared by every thread
/// (see [`Solver::with_shared_table`]), except for the small default table used with databases
/// that reach the position: then each thread has its own (a shared 4 MiB table made the
/// Kalah(6,5) analysis 14 % slower than two private 2 MiB ones; docs/BENCHMARKS.md). No
/// progress display: see [`show_progress`].
pub(crate) fn make_solvers(
    search: &SearchArgs,
    rules: &Rules,
    pos: &Position,
    limits: &Limits,
    threads: usize,
) -> Result<(Vec<Solver>, Arc<AtomicBool>)> {
    let parts = solver_parts(search, rules, pos, limits)?;
    let threads = threads.max(1);
    if parts.small_egdb_table {
        let solvers = (0..threads)
            .map(|_| parts.solver(rules, parts.tt_mb))
            .collect();
        return Ok((solvers, parts.stop));
    }
    let first = parts.solver(rules, parts.tt_mb);
    let mut solvers = Vec::with_capacity(threads);
    for _ in 1..threads {
        let mut s = first.with_shared_table();
        s.set_stop_flag(parts.stop.clone());
        solvers.push(s);
    }
    solvers.insert(0, first);
    Ok((solvers, parts.stop))
}

/// The style of the progress lines of `solve` and `analyze`: spinner, elapsed time, message, the
/// message cut at the terminal's width (a longer line wrapped onto a second row, which indicatif
/// padded with spaces and redrew with cursor moves at every update).
pub(crate) fn progress_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {elapsed} {wide_msg}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

/// Shows `message` on `bar` (a bar made hidden, shown on stderr from its first message when
/// stderr is a terminal, on one row: see [`progress_style`]).
pub(crate) fn show_progress(bar: &ProgressBar, message: String) {
    if bar.is_hidden() {
        bar.set_draw_target(crate::output::progress_target());
        bar.set_style(progress_style());
    }
    bar.set_message(message);
    bar.tick();
}

/// The progress line of a long search of `root` under its rules, with what follows its value
/// (`None`: a per-move analysis, whose bounds are some move's, not shown), e.g. `solving: value
/// in [-2, +6], 4853760 nodes, 1.9 M nodes/s (Ctrl-C stops)`. Bounds no tighter than the seeds
/// in play give are `no bounds proven yet`, as [`bounds_text`] says when the search is stopped.
pub(crate) fn progress_message(
    what: &str,
    p: &Progress,
    root: Option<(&Position, &Rules, Listing)>,
) -> String {
    // Once the bounds meet, the value is proven and the search goes on to find the best
    // actions, the principal variation and the best turns (on wide boards whose turns tie, far
    // longer than the value took), or the principal variation only.
    let bounds = match root.map(|(pos, rules, l)| (Proven::of(pos, rules, p.lower, p.upper), l)) {
        None => String::new(),
        Some((Proven::Value(v), listing)) => format!("value {v:+} proven, {}, ", listing.doing()),
        Some((Proven::Nothing, _)) => "no bounds proven yet, ".to_string(),
        Some((Proven::Between(lo, hi), _)) => format!("value in [{lo:+}, {hi:+}], "),
    };
    format!(
        "{what}: {bounds}{} nodes, {:.1} M nodes/s (Ctrl-C stops)",
        p.nodes,
        p.nodes_per_second / 1e6
    )
}

fn open_egdb(search: &SearchArgs, houses: usize, rules: &Rules) -> Result<Option<Egdb>> {
    open_egdb_dir(search.egdb_dir.as_deref(), houses, rules)
}

/// Opens the endgame databases for `houses` and `rules` in `dir`, or in the per-user data
/// directory when `dir` is `None` (a missing default directory means no databases). `Ok(None)`
/// when there are none or the rules are not databased (majority end), and when a set in the
/// default directory cannot be opened (a damaged, truncated or outdated file): the user did not
/// ask for those databases, so a warning on stderr names the file and the search goes on
/// without them, as `kalah serve` does. A set in a directory given by `--egdb-dir` that cannot
/// be opened is an error.
pub(crate) fn open_egdb_dir(
    dir: Option<&std::path::Path>,
    houses: usize,
    rules: &Rules,
) -> Result<Option<Egdb>> {
    if let Some(d) = dir {
        check_egdb_root(d)?;
    }
    if rules.outcome_depends_on_stores() {
        return Ok(None);
    }
    let path = match dir {
        Some(d) => d.to_path_buf(),
        None => match kalah_egdb::default_dir() {
            Some(d) if default_dir_present(&d) => d,
            _ => return Ok(None),
        },
    };
    let db = match Egdb::open(&path, houses, rules) {
        // The message names the build that replaces a damaged file (a build does it itself).
        Err(e) if dir.is_none() => {
            let e = crate::cmd::egdb::with_build_command(&e, &path, houses, rules, dir);
            stderr_line!("kalah: warning: {}", default_set_unusable(&e));
            return Ok(None);
        }
        Err(e) => {
            let e = crate::cmd::egdb::with_build_command(&e, &path, houses, rules, dir);
            return Err(anyhow::anyhow!(e).context(format!(
                "cannot open the endgame databases in {} (--no-egdb searches without them)",
                path.display()
            )));
        }
        Ok(db) => db,
    };
    if let Some(db) = &db {
        if let Some(k) = db.layers_past_gap() {
            stderr_line!(
                "kalah: note: {} has no layer k{:03}.egdb but has k{k:03}.egdb: only layers 0..={} are used",
                db.dir().display(),
                db.max_seeds() + 1,
                db.max_seeds()
            );
        }
    }
    if db.is_none() {
        if let Some(why) = crate::cmd::egdb::no_layer_zero(&path, houses, rules, dir) {
            stderr_line!("kalah: note: {why}; searching without databases");
            return Ok(None);
        }
    }
    if db.is_none() && dir.is_some() {
        // A directory named on the command line that holds nothing for these rules is most
        // likely a mistake (another rule set, or a set's own directory given as the root).
        stderr_line!(
            "kalah: note: no endgame databases for Kalah({houses},·) capture={} end={} leftovers={} in {}; searching without them",
            rules.capture,
            rules.end,
            rules.leftovers,
            path.display()
        );
    }
    Ok(db)
}

/// The warning for a set of the default database directory that cannot be opened (`error`
/// names the file and its problem), used without it.
fn default_set_unusable(error: &str) -> String {
    format!("endgame databases not used (searching without them): {error}")
}

/// Whether the default database root `d` is there to be used: a directory, or one this user
/// may not reach (opening it then says which directory on the way to let it search, as a
/// warning: tester 88, a root under a 700 directory read as none, silently).
pub(crate) fn default_dir_present(d: &std::path::Path) -> bool {
    match std::fs::metadata(d) {
        Ok(m) => m.is_dir(),
        Err(e) => e.kind() == std::io::ErrorKind::PermissionDenied,
    }
}

/// Checks a directory named by `--egdb-dir` as the database root of a search ([`check_egdb_dir`]),
/// and refuses one set's own directory (`ROOT/m6-standard-row-empty-owner`) or a directory of
/// layer files copied there by hand: they can never hold a set, so the databases asked for
/// would silently not be used (tester 107: `kalah serve` served without them, and `/api/info`
/// named the directory as if in use).
///
/// # Errors
/// One line naming the flag, the path and what to give instead.
pub(crate) fn check_egdb_root(path: &std::path::Path) -> Result<()> {
    check_egdb_dir(path)?;
    if crate::cmd::egdb::holds_layer_files(path) {
        return Err(crate::cmd::egdb::set_dir_given(path));
    }
    Ok(())
}

/// Checks a directory named by `--egdb-dir`: it must exist and be a directory (a typo must not
/// read as "no databases").
///
/// # Errors
/// One line naming the flag, the path and the problem.
pub(crate) fn check_egdb_dir(path: &std::path::Path) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => anyhow::bail!("--egdb-dir {}: not a directory", path.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            anyhow::bail!("--egdb-dir {}: no such directory", path.display())
        }
        // A file on the way (tester 93: a bare "Not a directory (os error 20)").
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            anyhow::bail!(
                "--egdb-dir {}: not a directory (a file on the way to it)",
                path.display()
            )
        }
        // A directory on the way this user may not search is named, with the remedy (tester
        // 86: a bare "Permission denied").
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => anyhow::bail!(
            "--egdb-dir {}: {}",
            path.display(),
            kalah_egdb::unreadable(path, e)
        ),
        Err(e) => anyhow::bail!("--egdb-dir {}: {e}", path.display()),
    }
}

/// Warns on stderr if the probes of `egdb` met a damaged layer (impossible values: see
/// `Egdb::probe`); the positions concerned were searched instead, so the results stand.
pub(crate) fn warn_if_damaged(egdb: Option<&Egdb>) {
    let Some(db) = egdb else { return };
    let repair = crate::cmd::egdb::repair_with_command(db);
    if let Some(warning) = repair.and_then(|r| db.damage_warning_with(&r)) {
        stderr_line!("kalah: warning: {warning}");
    }
}

/// Prints what was proven before a stop of the solve of `pos` under `rules`. A signal's stop
/// (`limit` `None`) names the signal (`interrupted (Ctrl-C) after N nodes and S s: the value
/// lies between +6 and +10`; `"signal": "SIGINT"` in JSON) and exits with code 128 + the
/// signal's number (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP). A limit's (`--time-ms`,
/// `--nodes`: its JSON name and flag, see [`Limits::limit_hit`]) names the flag (`stopped by
/// --nodes 1000 after ...`; `"limit": "nodes"`) and fails. (`analyze` prints its own: the
/// actions valued.)
///
/// # Errors
/// At a limit: `the position was not solved within --nodes 1000` (exit code 1).
fn stopped(
    e: SolveError,
    json_out: bool,
    bar: &ProgressBar,
    (pos, rules, listing): (&Position, &Rules, Listing),
    limit: Option<(&'static str, String)>,
) -> Result<()> {
    bar.finish_and_clear();
    let SolveError::Stopped {
        lower,
        upper,
        stats,
    } = e;
    if json_out {
        // The position searched (tester 75: after --moves, a stopped solve did not say which).
        let v = stop_json(
            (pos, rules),
            (lower, upper),
            (stats.nodes, stats.elapsed.as_secs_f64()),
            limit.as_ref(),
        );
        print(&format!("{v}\n"))?;
    } else {
        print(&format!(
            "position: {pos}\n{} after {} nodes and {:.2} s: {}\n",
            stopped_by(limit.as_ref()),
            stats.nodes,
            stats.elapsed.as_secs_f64(),
            bounds_text(pos, rules, lower, upper, listing)
        ))?;
    }
    end_stopped(limit, "the position was not solved")
}

/// What a stopped solve of `pos` proved: `the value lies between -2 and +6`; once the value is
/// proven (the stop came while the best turns were being listed), `the value is +8 (proven);
/// the best turns were not finished` (with [`Listing::PvOnly`], `the principal variation was
/// not finished`); and when the bounds are no tighter than the seeds in play give
/// ([`kalah_solver::seed_bounds`]), `no bounds proven yet`.
pub(crate) fn bounds_text(
    pos: &Position,
    rules: &Rules,
    lower: i32,
    upper: i32,
    listing: Listing,
) -> String {
    match Proven::of(pos, rules, lower, upper) {
        Proven::Value(v) => format!("the value is {v:+} (proven); {}", listing.undone()),
        Proven::Nothing => format!(
            "no bounds proven yet (the seeds in play put the value between {lower:+} and {upper:+})"
        ),
        Proven::Between(lo, hi) => format!("the value lies between {lo:+} and {hi:+}"),
    }
}

/// Groups a sequence of actions into whole turns (`3-6 2 swap ...`), replaying it on `pos`.
pub(crate) fn turns_text(pos: &Position, rules: &Rules, moves: &[Move]) -> String {
    let mut p = *pos;
    let mut out = String::new();
    let mut turn_open = false;
    for &mv in moves {
        if turn_open {
            out.push('-');
        } else if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&mv.to_string());
        let o = p.play_unchecked(rules, mv);
        turn_open = o.extra_turn && o.ended.is_none();
    }
    out
}

/// Checks that some turn keeps the value found for `pos` (a game not over has at least one):
/// one of `best`, or without that list the principal variation `pv`. Every turn (or the PV's
/// every step) was tested against the proven value; if none keeps it, the values cannot all be
/// right, and only damaged endgame databases can make them disagree (a damaged byte that still
/// holds a possible value is not caught by the probe: see `Egdb::probe`).
///
/// The principal variation must agree too: played out to the end of the game, it must end at
/// the value found (tester 114: a database value lowered by 2, its checksums forged, gave +6
/// with the PV `2`, which ends the game at +8).
///
/// # Errors
/// That message, naming the position and the value, when no turn keeps it, or when the
/// principal variation ends the game at another final store difference.
pub(crate) fn check_best_turns(
    solver: &Solver,
    pos: &Position,
    value: i32,
    (best, pv): (Option<&[Turn]>, &[Move]),
) -> Result<()> {
    let rules = solver.rules();
    let mut p = *pos;
    p.settle(rules);
    let none = best.map_or(pv.is_empty(), <[Turn]>::is_empty);
    if none && !p.is_over() {
        anyhow::bail!(
            "no turn of {} keeps the value {value:+} found for it: the endgame databases used \
             hold wrong values (check them with 'kalah egdb verify'); solve with --no-egdb",
            pos
        );
    }
    let mut end = p;
    let replays = pv.iter().all(|&mv| end.play(rules, mv).is_ok());
    end.settle(rules);
    if !pv.is_empty() && replays && end.is_over() {
        // The value is the player's to move: after a swap (pie rule) he plays the other side.
        let swaps = pv.iter().filter(|&&mv| mv == Move::Swap).count();
        let side = if swaps % 2 == 1 {
            p.side().opposite()
        } else {
            p.side()
        };
        let got = end.store_diff(side);
        if got != value {
            anyhow::bail!(
                "the principal variation of {pos} ends the game at {got:+}, not at the value \
                 {value:+} found for it: the endgame databases used hold wrong values (check \
                 them with 'kalah egdb verify'); solve with --no-egdb"
            );
        }
    }
    Ok(())
}

/// Runs `kalah solve`.
pub fn run(args: Args) -> Result<()> {
    if let Some(path) = &args.batch {
        return batch::run(&args, path);
    }
    let listing = args.listing();
    let (rules, pos, mut solver, bar) =
        args.target.setup(&args.limits, "solving", Some(listing))?;
    let threads = crate::cmd::egdb::threads_for(args.threads);
    let since = Instant::now();
    solver.set_limits(args.limits.position_limits());
    let (sol, best) = match listing.solve(&mut solver, &pos, threads) {
        Ok(x) => x,
        Err(e) => {
            let limit = args.limits.limit_hit(since);
            return stopped(e, args.json, &bar, (&pos, &rules, listing), limit);
        }
    };
    bar.finish_and_clear();
    check_best_turns(&solver, &pos, sol.value, (best.as_deref(), &sol.pv))?;
    warn_if_damaged(solver.egdb().map(|db| &**db));
    let best: Option<Vec<String>> = best.map(|best| best.iter().map(ToString::to_string).collect());
    let pv = turns_text(&pos, &rules, &sol.pv);
    let secs = sol.stats.elapsed.as_secs_f64();
    if args.json {
        let mut row = json!({
            "position": pos.to_string(),
            "rules": rules.to_string(),
            "value": sol.value,
            "pv": pv,
            "nodes": sol.stats.nodes,
            "tt_hits": sol.stats.tt_hits,
            "seconds": crate::output::json_seconds(secs),
        });
        if let Some(best) = best {
            row["best"] = json!(best);
        }
        print(&format!("{row}\n"))
    } else {
        let who = match pos.to_move() {
            Some(side) => format!("{side} to move; final store difference with perfect play"),
            None => format!(
                "game over; final store difference from {}'s view",
                pos.side()
            ),
        };
        print(&format!(
            "position: {}\nvalue:    {:+} ({who})\n\
             best:     {}\npv:       {}\nnodes:    {} ({} table hits) in {secs:.3} s, {:.2} M nodes/s\n",
            pos,
            sol.value,
            match best {
                None => "not listed (--no-best); the pv's first turn is one".to_string(),
                Some(best) if best.is_empty() => "-".to_string(),
                Some(best) => best.join(" "),
            },
            if pv.is_empty() { "-" } else { &pv },
            sol.stats.nodes,
            sol.stats.tt_hits,
            sol.stats.nodes_per_second() / 1e6,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tester 114's forged database gave 0,1,0,0,7,0,0,0 S the value +6 with the best turn
    /// and PV `2`, which ends the game at +8 (South's house 2 into the empty house 3, capturing
    /// North's house 1: 8 – 0): the PV's end must be the value.
    #[test]
    fn a_principal_variation_that_ends_elsewhere_than_the_value_is_refused() {
        let solver = Solver::new(Rules::default(), 1);
        let pos: Position = "0,1,0,0,7,0,0,0 S".parse().unwrap();
        let pv = [Move::Sow(2)];
        assert!(check_best_turns(&solver, &pos, 8, (None, &pv)).is_ok());
        let e = check_best_turns(&solver, &pos, 6, (None, &pv)).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "the principal variation of 0,1,0,0,7,0,0,0 S ends the game at +8, not at the \
                 value +6 found for it"
            ),
            "{e}"
        );
    }

    fn progress(lower: i32, upper: i32) -> Progress {
        Progress {
            lower,
            upper,
            nodes: 4_853_760,
            elapsed: Duration::from_secs(3),
            nodes_per_second: 1.9e6,
        }
    }

    #[test]
    fn the_progress_line_tells_a_proven_value_from_bounds() {
        // Kalah(8,2) is proven +0 in under a second; its best turns take 20 s more, which the
        // line called "no bounds proven yet".
        let root: Position = "2,2,1,2,1,1,3,0,0,0,1,0,0,1 S".parse().unwrap(); // +2 ± 10
        let rules = Rules::default();
        let line = |lower, upper| {
            progress_message(
                "solving",
                &progress(lower, upper),
                Some((&root, &rules, Listing::BestTurns)),
            )
        };
        assert_eq!(
            line(0, 0),
            "solving: value +0 proven, listing best turns, 4853760 nodes, 1.9 M nodes/s (Ctrl-C stops)"
        );
        assert_eq!(
            line(-2, 6),
            "solving: value in [-2, +6], 4853760 nodes, 1.9 M nodes/s (Ctrl-C stops)"
        );
        // With --no-best, the principal variation follows the value.
        assert_eq!(
            progress_message(
                "solving",
                &progress(0, 0),
                Some((&root, &rules, Listing::PvOnly))
            ),
            "solving: value +0 proven, finding a principal variation, 4853760 nodes, 1.9 M nodes/s (Ctrl-C stops)"
        );
        assert_eq!(
            bounds_text(&root, &rules, 4, 4, Listing::PvOnly),
            "the value is +4 (proven); the principal variation was not finished"
        );
        // Kalah(12,1) showed "value in [-24, +24]" for minutes: the seeds in play alone, as the
        // Ctrl-C message said.
        for (lower, upper) in [(-8, 12), (-9, 13)] {
            assert_eq!(
                line(lower, upper),
                "solving: no bounds proven yet, 4853760 nodes, 1.9 M nodes/s (Ctrl-C stops)"
            );
        }
        assert_eq!(
            line(-7, 12),
            "solving: value in [-7, +12], 4853760 nodes, 1.9 M nodes/s (Ctrl-C stops)"
        );
        // A per-move analysis: the bounds are some move's, from its opponent's view.
        assert_eq!(
            progress_message("analysing", &progress(-2, 6), None),
            "analysing: 4853760 nodes, 1.9 M nodes/s (Ctrl-C stops)"
        );
    }

    #[test]
    fn sigint_repeated_at_once_is_the_same_ctrl_c() {
        let stop = Arc::new(AtomicBool::new(false));
        let ctrl_c = CtrlC::new(stop.clone());
        let t0 = Instant::now();
        assert!(!ctrl_c.on_signal(t0), "the first Ctrl-C stops the search");
        assert!(stop.load(Ordering::SeqCst));
        // `timeout -s INT` signals the command, then its process group: the second SIGINT must
        // not exit before the stopped search prints its bounds.
        assert!(!ctrl_c.on_signal(t0 + Duration::from_micros(50)));
        assert!(!ctrl_c.on_signal(t0 + Duration::from_millis(900)));
        // A Ctrl-C typed later, the search still running: exit at once.
        assert!(ctrl_c.on_signal(t0 + CTRL_C_REPEAT));
        assert!(ctrl_c.on_signal(t0 + Duration::from_secs(5)));
    }

    #[test]
    fn stopped_bounds_say_when_nothing_is_proven() {
        // South 3 in its store against 1, 10 seeds in the houses: the seeds in play alone put
        // the value in [2 - 10, 2 + 10].
        let pos: Position = "2,2,1,2,1,1,3,0,0,0,1,0,0,1 S".parse().unwrap();
        let rules = Rules::default();
        let bounds_text = |pos: &Position, lower, upper| {
            bounds_text(pos, &rules, lower, upper, Listing::BestTurns)
        };
        assert_eq!(
            bounds_text(&pos, -8, 12),
            "no bounds proven yet (the seeds in play put the value between -8 and +12)"
        );
        assert_eq!(bounds_text(&pos, -8, 6), "the value lies between -8 and +6");
        assert_eq!(
            bounds_text(&pos, 0, 12),
            "the value lies between +0 and +12"
        );
        assert_eq!(
            bounds_text(&pos, 4, 4),
            "the value is +4 (proven); the best turns were not finished"
        );
        // North's pie choice, 1 against 5 in the stores, 9 seeds in the houses: a swap turns
        // -4 into +4, so the seeds in play give -13..+13, and an upper bound of +10, above
        // -4 + 9, is proven (tester 19: it was called "no bounds proven yet").
        let pie = Rules {
            pie: true,
            ..Rules::default()
        };
        let choice: Position = "1,1,1,1,1,1,5,1,1,0,0,1,0,1 N pie".parse().unwrap();
        assert_eq!(kalah_solver::seed_bounds(&choice, &pie), (-13, 13));
        assert_eq!(
            super::bounds_text(&choice, &pie, -13, 10, Listing::BestTurns),
            "the value lies between -13 and +10"
        );
        assert_eq!(
            super::bounds_text(&choice, &pie, -13, 13, Listing::BestTurns),
            "no bounds proven yet (the seeds in play put the value between -13 and +13)"
        );
    }

    #[test]
    fn table_sizes_are_checked() {
        assert_eq!(parse_tt_mb(" 4"), Ok(4));
        for bad in ["0", "abc", "1.5", "", "-1"] {
            assert!(parse_tt_mb(bad).is_err(), "{bad}");
        }
        let e = parse_tt_mb("18446744073709551616").unwrap_err();
        assert!(e.contains("more than"), "{e}");
        assert!(parse_tt_mb("abc")
            .unwrap_err()
            .contains("not a whole number"));
    }
}
