//! `kalah egdb`: build, list, verify and probe endgame databases.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use kalah_egdb::{BuildEvent, BuildPlan, Egdb};

use crate::game_args::RuleArgs;
use crate::output::{plural, print};

/// `println!` that hands a failed write (a closed pipe) back as an error instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        print(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// Positions solved per second and per thread: on this project's idle 2-core machine Kalah(6,·)
/// to 24 seeds ran at 6.8 million and to 28 seeds at 5.4 million per thread and second
/// (docs/BENCHMARKS.md, 30 Nov 2026). Only used for the estimate shown before a build, which
/// assumes the cores are free.
const RATE_PER_THREAD: f64 = 5.5e6;

/// Arguments of `kalah egdb`.
#[derive(clap::Args, Debug)]
// Clippy takes the three `mut_subcommand` calls with one function for a repeated attribute.
#[allow(clippy::duplicated_attributes)]
#[command(
    mut_subcommand("build", hide_start_flags),
    mut_subcommand("verify", hide_start_flags),
    mut_subcommand("probe", hide_start_flags)
)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

/// Hides the start options of the shared rule flags (`--seeds`, `--layout`, `--mirrored`) and
/// the majority end (which has no databases) from a database command's help, and for `build`
/// and `verify` the opening rules (`--pie`, `--no-first-move-extra-turn`: one set serves every
/// opening; `probe` takes them to read a position's phase tag): the command refuses them with a
/// message that says why, but does not offer them. `--houses` then says its default without
/// `--layout`.
fn hide_start_flags(cmd: clap::Command) -> clap::Command {
    let probe = cmd.get_name() == "probe";
    let houses = if probe {
        "Houses a side, 1 to 12 [default: the position's count]"
    } else {
        "Houses a side, 1 to 12 [default: 6]"
    };
    let opening: &[&str] = if probe {
        &[]
    } else {
        &["pie", "no_first_move_extra_turn"]
    };
    ["seeds", "layout", "mirrored", "majority_end"]
        .iter()
        .chain(opening)
        .fold(cmd, |cmd, id| cmd.mut_arg(*id, |a| a.hide(true)))
        // `--mirrored` requires `--layout` elsewhere; here both are refused with the reason
        // (clap's "required: --layout" asked for a flag these commands refuse).
        .mut_arg("mirrored", |_| {
            clap::Arg::new("mirrored")
                .long("mirrored")
                .action(clap::ArgAction::SetTrue)
                .hide(true)
        })
        .mut_arg("houses", |a| a.help(houses))
}

#[derive(clap::Subcommand, Debug)]
enum Cmd {
    /// Build the layers 0..=K (seeds in the houses) for a board size and rule set; resumes after
    /// the last finished layer.
    Build(BuildArgs),
    /// List the database layers found, with their board, rules, sizes.
    Info(DirArgs),
    /// Check every layer's checksums and re-derive every entry from its children.
    Verify(VerifyArgs),
    /// The future store gain and the value of a position from the databases (a finished game:
    /// its final store difference).
    Probe(ProbeArgs),
}

#[derive(clap::Args, Debug)]
struct DirArgs {
    /// Database root [default: the per-user database root, ~/.local/share/kalah/egdb on Linux].
    #[arg(long, value_name = "DIR")]
    egdb_dir: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct BuildArgs {
    /// Build layers 0..=K (0 to 120): every arrangement of up to K seeds in the houses.
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = parse_max_seeds)]
    max_seeds: u32,
    /// Worker threads, 1 to 256 [default: every core].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    threads: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    dir: DirArgs,
    #[command(flatten)]
    rules: RuleArgs,
}

#[derive(clap::Args, Debug)]
struct VerifyArgs {
    /// Worker threads, 1 to 256 [default: every core].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    threads: Option<usize>,
    #[command(flatten)]
    dir: DirArgs,
    #[command(flatten)]
    rules: RuleArgs,
}

#[derive(clap::Args, Debug)]
struct ProbeArgs {
    /// The position, e.g. `0,0,0,2,0,1,20,1,0,0,0,3,0,21 S`.
    position: String,
    /// Print JSON: {"gain":g,"value":v,"seeds":k}; a finished game (nothing left to gain):
    /// {"gain":0,"value":v,"seeds":0,"over":true}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    dir: DirArgs,
    #[command(flatten)]
    rules: RuleArgs,
}

impl DirArgs {
    /// The database root; a directory named by `--egdb-dir` must exist (see
    /// [`DirArgs::root_to_create`] for `build`).
    fn root(&self) -> Result<PathBuf> {
        if let Some(d) = &self.egdb_dir {
            crate::cmd::solve::check_egdb_dir(d)?;
        }
        self.root_to_create()
    }

    /// The database root for `build`, which creates it: only something else than a directory in
    /// its place is refused.
    fn root_to_create(&self) -> Result<PathBuf> {
        match &self.egdb_dir {
            Some(d) if d.exists() => {
                crate::cmd::solve::check_egdb_dir(d)?;
                Ok(d.clone())
            }
            Some(d) => Ok(d.clone()),
            None => kalah_egdb::default_dir()
                .context("no per-user data directory on this system; pass --egdb-dir DIR"),
        }
    }
}

/// Runs `kalah egdb`.
pub fn run(args: Args) -> Result<()> {
    match args.cmd {
        Cmd::Build(a) => build(a),
        Cmd::Info(a) => info(a),
        Cmd::Verify(a) => verify(a),
        Cmd::Probe(a) => probe(a),
    }
}

/// The board size of `build` and `verify`, which take no position.
///
/// # Errors
/// A usage error (exit code 2) for the flags that do not choose a set: `--seeds`/`--layout`
/// and the opening rules (they were taken and did nothing: `egdb build --pie` looked like a
/// build for the pie rule).
fn houses(rules: &RuleArgs) -> Result<usize> {
    if rules.seeds.is_some() || rules.layout.is_some() || rules.mirrored {
        // A malformed command line (exit code 2), as the same flags with probe's POSITION.
        crate::output::usage_bail!("--seeds, --layout and --mirrored set a starting layout; databases depend only on --houses and the rules");
    }
    refuse_majority_end(rules)?;
    if rules.pie || rules.no_first_move_extra_turn {
        crate::output::usage_bail!("--pie and --no-first-move-extra-turn change only the opening, before the databases' positions: one set serves every opening; leave them out");
    }
    Ok(rules.houses.unwrap_or(6))
}

/// A usage error (exit code 2) for rules whose outcome depends on the stores (the majority
/// end), which have no databases (as the flags [`houses`] refuses: the command line asks for
/// what does not exist).
///
/// # Errors
/// The error, if `rules` has the majority end.
fn refuse_majority_end(rules: &RuleArgs) -> Result<()> {
    if rules.rules().outcome_depends_on_stores() {
        crate::output::usage_bail!("{}", kalah_egdb::EgdbError::StoreDependentRules);
    }
    Ok(())
}

fn human_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1e12 {
        format!("{:.2} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{b} bytes")
    }
}

fn human_secs(s: f64) -> String {
    if s >= 3600.0 {
        format!("{:.1} h", s / 3600.0)
    } else if s >= 60.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{s:.1} s")
    }
}

/// Says on stderr that `command` was stopped, by which signal, and what it left behind
/// (`kalah: build terminated (SIGTERM): the finished layers are kept ...`), and exits with code
/// 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM), as `kalah solve` does.
fn interrupted(command: &str, left: &str) -> ! {
    stderr_line!("kalah: {command} {}: {left}", crate::signals::stopped_by());
    std::process::exit(crate::signals::exit_code());
}

/// Sets `stop` on Ctrl-C, SIGTERM or SIGHUP (once per process).
fn stop_on_ctrl_c() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    if let Err(e) = crate::signals::on_stop(move |_| s.store(true, Ordering::SeqCst)) {
        stderr_line!("kalah: warning: cannot catch Ctrl-C ({e})");
    }
    stop
}

/// The plan of a build, printed before it starts: the set, the size and time, the directory.
fn announce_build(plan: &BuildPlan, total: u64, est: f64, threads: usize) -> Result<()> {
    let (m, rules) = (plan.houses, &plan.rules);
    outln!(
        "Kalah({m},·) capture={} end={} leftovers={}: {} seeds, {}",
        rules.capture,
        rules.end,
        rules.leftovers,
        layers_up_to(plan.max_seeds),
        plural(total, "position", "positions")
    )?;
    outln!(
        "size on disk and memory needed: {}; estimated time on {threads} thread(s): {} (layers already built are kept)",
        human_bytes(plan.total_bytes()?),
        human_secs(est)
    )?;
    outln!(
        "into {}",
        kalah_egdb::file::layer_path(&plan.root, m, rules, 0)
            .parent()
            .unwrap_or(&plan.root)
            .display()
    )?;
    Ok(())
}

fn build(a: BuildArgs) -> Result<()> {
    let m = houses(&a.rules)?;
    let rules = a.rules.rules();
    let root = a.dir.root_to_create()?;
    // A set's own directory given as the root would get a set nested in it, which other
    // commands would not find (and which another build's lock would not cover).
    let is_set_dir = root
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(kalah_egdb::file::parse_set_dir_name)
        .is_some();
    if holds_layer_files(&root) || is_set_dir {
        return Err(set_dir_given(&root));
    }
    let plan = BuildPlan {
        root,
        houses: m,
        rules,
        max_seeds: a.max_seeds,
        threads: a.threads,
    };
    let total = plan.total_positions()?;
    if let Some(need) = too_big_to_build(total) {
        bail!(
            "layers 0..={} of Kalah({m},·) hold {} and {need}: choose a smaller --max-seeds",
            a.max_seeds,
            plural(total, "position", "positions"),
        );
    }
    // A second build of the same set is refused before the plan is printed.
    let set_dir = plan.root.join(kalah_egdb::file::set_dir_name(m, &rules));
    let new_set_dir = !set_dir.exists();
    let lock = plan.lock()?;
    let threads = threads_for(a.threads).max(1);
    let est = total as f64 / (RATE_PER_THREAD * threads as f64);
    if let Err(e) = announce_build(&plan, total, est, threads) {
        if new_set_dir {
            // Nothing was built: the set's directory this build made goes again (tester 114:
            // a build whose output failed, `> /dev/full`, left it empty but for the lock file).
            drop(lock);
            let _ = std::fs::remove_file(set_dir.join(".build.lock"));
            let _ = std::fs::remove_dir(&set_dir);
        }
        return Err(e);
    }
    let stop = stop_on_ctrl_c();
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        let bar = crate::output::progress_bar(total);
        bar.set_style(bar_style(terminal_width(), total, true));
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    };
    // Layer lines go above the bar, or straight to stdout with --quiet.
    // A bar drawn nowhere (stderr not a terminal) drops the lines given to it.
    let say = |line: String| {
        if a.quiet || bar.is_hidden() {
            // A closed stdout must not stop (or panic) the build.
            let _ = print(&format!("{line}\n"));
        } else {
            bar.println(line);
        }
    };
    let result = lock.run(&stop, &|e| match *e {
        BuildEvent::Progress { done, .. } => bar.set_position(done),
        BuildEvent::Damaged { seeds, ref problem } => say(format!(
            "layer {seeds}: damaged, {problem}: building it again (and the layers above it)"
        )),
        BuildEvent::LayerStarted { seeds, .. } => {
            // A terminal resized since the last layer gets the style that fits it.
            if !bar.is_hidden() {
                bar.set_style(bar_style(terminal_width(), total, true));
            }
            bar.set_message(format!("k={seeds}"));
        }
        BuildEvent::Resumed { seeds } => say(format!("layer {seeds}: already built")),
        BuildEvent::Upgraded { seeds } => say(format!(
            "layer {seeds}: already built, rewritten in file format {} (block checksums)",
            kalah_egdb::file::FORMAT_VERSION
        )),
        BuildEvent::LayerWritten {
            seeds,
            count,
            seconds,
        } => {
            if seconds > 1.0 {
                say(format!(
                    "layer {seeds}: {} in {seconds:.1} s ({:.2} M/s)",
                    plural(count, "position", "positions"),
                    count as f64 / seconds / 1e6
                ))
            }
        }
    });
    bar.finish_and_clear();
    let report = match result {
        Ok(r) => r,
        Err(kalah_egdb::EgdbError::Interrupted) => interrupted(
            "build",
            "the finished layers are kept and no partial file is left; run the same command again to resume",
        ),
        // A write that failed (a full disk, say) leaves the layers finished before it.
        Err(e @ kalah_egdb::EgdbError::Io { .. }) => anyhow::bail!(
            "{e}; the layers finished before are kept and no partial file is left: run the same \
             command again to resume once the problem is fixed"
        ),
        Err(e) => return Err(e.into()),
    };
    outln!(
        "done: built {} layer(s) ({}) in {}, kept {} layer(s) from before; {:.2} M positions/s",
        report.built_layers,
        plural(report.positions_built, "position", "positions"),
        human_secs(report.seconds),
        report.resumed_layers,
        report.positions_built as f64 / report.seconds.max(1e-9) / 1e6
    )?;
    // The set as `solve` opens it: every layer file from 0 up to the first missing one, so a
    // bad file just past the layers built (a copy made by hand) makes it unusable (tester 67:
    // the build said "done" and `solve` refused the set).
    if let Err(e) = kalah_egdb::Egdb::open(&plan.root, m, &rules) {
        let message = with_build_command(&e, &plan.root, m, &rules, a.dir.egdb_dir.as_deref());
        bail!(
            "layers 0..={} are built, but the set cannot be opened as the other commands open \
             it (every layer file from 0 up to the first one missing): {message}",
            a.max_seeds
        );
    }
    Ok(())
}

/// The width in columns of the terminal on stderr, as indicatif measures it (80 when unknown).
fn terminal_width() -> u16 {
    console::Term::stderr().size().1
}

/// The style of the progress bar of `egdb build` (with `layer`: the layer being built, `k=13`,
/// first) and `egdb verify`, for a terminal of `width` columns and `total` positions: as much
/// as fits on one row, the bar taking the rest (at least [`MIN_BAR`] columns), e.g.
/// `k=13 [=====>    ]  30% 2,900,764/9,657,700 positions, 0.23 M/s, eta 29s`, then without the
/// counts, then without the speed and time left; below 23 columns only the percentage. A line
/// wider than the terminal wrapped onto further rows, cut the bar in two and, on a 40-column
/// terminal, took three rows (indicatif redraws every row at each update).
fn bar_style(width: u16, total: u64, layer: bool) -> ProgressStyle {
    let width = usize::from(width);
    let count = indicatif::HumanCount(total).to_string().len();
    // The widest texts of the parts: "k=120 ", "[" and "] ", "100%", the counts, the speed and
    // the time left.
    let lead = if layer { "{msg:>5} " } else { "" };
    let lead_cols = if layer { 6 } else { 0 };
    let bar_cols = lead_cols + 3 + 4;
    let counts = format!(
        " {{human_pos}}/{{human_len}}{}",
        if layer { " positions" } else { "" }
    );
    let counts_cols = 1 + 2 * count + 1 + if layer { 10 } else { 0 };
    let speed = ", {rate}, eta {eta}";
    let speed_cols = ", 999.99 M/s, eta 99h".len();
    let template = if width >= bar_cols + counts_cols + speed_cols + MIN_BAR {
        format!("{lead}[{{wide_bar}}] {{percent:>3}}%{counts}{speed}")
    } else if width >= bar_cols + speed_cols + MIN_BAR {
        format!("{lead}[{{wide_bar}}] {{percent:>3}}%{speed}")
    } else if width >= bar_cols + MIN_BAR {
        format!("{lead}[{{wide_bar}}] {{percent:>3}}%")
    } else {
        "{percent:>3}%".to_string()
    };
    ProgressStyle::with_template(&template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "rate",
            |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate_text(s.per_sec()));
            },
        )
        .progress_chars("=> ")
}

/// Positions a second as the progress bar shows them, at most 10 columns: `0.23 M/s`, `1.80 G/s`
/// (a resumed build's first update counts the layers kept as done at once: a burst the
/// estimate can show as far more), `? M/s` when unknown.
fn rate_text(per_sec: f64) -> String {
    let m = per_sec / 1e6;
    if !m.is_finite() || m < 0.0 {
        "? M/s".to_string()
    } else if m < 999.995 {
        format!("{m:.2} M/s")
    } else if m < 999_995.0 {
        format!("{:.2} G/s", m / 1e3)
    } else {
        ">999 G/s".to_string()
    }
}

/// The narrowest bar [`bar_style`] draws: below it, the parts after the percentage go first.
const MIN_BAR: usize = 10;

/// Most worker threads accepted: far more than any machine this runs on has cores, while
/// thousands of threads made a build of even a tiny layer take minutes.
const MAX_THREADS: usize = 256;

/// Parses a `--threads` value: 1 to [`MAX_THREADS`].
pub(crate) fn parse_threads(s: &str) -> Result<usize, String> {
    crate::game_args::whole_number(s, 1, MAX_THREADS as u64, "threads").map(|n| n as usize)
}

/// Parses `egdb build --max-seeds`: 0 to [`kalah_egdb::MAX_LAYER_SEEDS`].
fn parse_max_seeds(s: &str) -> Result<u32, String> {
    let max = kalah_egdb::MAX_LAYER_SEEDS;
    crate::game_args::whole_number(s, 0, max.into(), "seeds").map(|n| n as u32)
}

pub(crate) fn rayon_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// The threads for a command's `--threads` (default: every core). A request for more threads
/// than cores is honoured, with a warning on stderr: the threads then take turns on the cores,
/// and a parallel solve's extra threads search extra nodes (Kalah(5,4) on 256 threads took about
/// 7 times as long as on 2, on a 2-core machine).
pub(crate) fn threads_for(requested: Option<usize>) -> usize {
    requested.map_or_else(rayon_threads, checked_threads)
}

/// `threads` as asked, with the warning of [`threads_for`] if they are more than the cores.
fn checked_threads(threads: usize) -> usize {
    if let Some(warning) = oversubscribed(threads, rayon_threads()) {
        stderr_line!("kalah: warning: {warning}");
    }
    threads
}

/// The warning for `threads` threads on `cores` cores, if they are more.
fn oversubscribed(threads: usize, cores: usize) -> Option<String> {
    (threads > cores).then(|| {
        format!(
            "--threads {threads} on {cores} core{}: threads beyond the cores only slow the work down",
            if cores == 1 { "" } else { "s" }
        )
    })
}

fn info(a: DirArgs) -> Result<()> {
    // As for `solve` and `play`: a directory named on the command line must exist (a typo would
    // otherwise read as "no layers").
    let root = a.root()?;
    let layers = kalah_egdb::list_layers(&root)?;
    let bad_sets = kalah_egdb::list_bad_sets(&root);
    if layers.is_empty() && bad_sets.is_empty() && holds_layer_files(&root) {
        // The layers live one level down, in a directory per board and rule set: an error, as
        // for `probe` and `verify`, so that a script can tell.
        return Err(set_dir_given(&root));
    }
    outln!("database root: {}", root.display())?;
    let given = a.egdb_dir.as_deref();
    for (path, problem) in &bad_sets {
        outln!("  bad set: {}: {problem}", path.display())?;
    }
    // A layer file beside the sets is not used: where it belongs, if its header tells.
    for path in stray_layer_files(&root) {
        let place = match set_of_layer_file(&path) {
            Some((set, seeds)) => format!(
                "; it holds layer {seeds}, whose place is {}",
                root.join(set)
                    .join(kalah_egdb::file::layer_file_name(seeds))
                    .display()
            ),
            None => String::new(),
        };
        outln!(
            "  stray file: {}: outside every set's directory, not used{place}",
            path.display()
        )?;
    }
    if layers.is_empty() && bad_sets.is_empty() {
        let cmd = build_command(6, &kalah_core::Rules::default(), "K", given);
        outln!("no layers (build some with `{cmd}`, for another board or rules with their flags)")?;
        return Ok(());
    }
    // The set being listed: its line comes after its bad files' lines.
    let mut current: Option<SetListing> = None;
    let mut bad = 0u32;
    for l in &layers {
        let dir = l.path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
        if current.as_ref().is_none_or(|s| s.dir != dir) {
            if let Some(set) = current.take() {
                set.print(given)?;
            }
        }
        let set = current.get_or_insert_with(|| SetListing {
            dir,
            ..SetListing::default()
        });
        let checked = match &l.header {
            Ok(h) => match layer_problem(l, h) {
                Some(problem) => Err(format!("{}: {problem}", l.path.display())),
                None => Ok(h),
            },
            Err(e) => Err(e.clone()),
        };
        match checked {
            Ok(h) => {
                set.layers.push(h.seeds);
                set.positions += h.count;
                set.bytes += l.bytes;
                if h.version < kalah_egdb::file::FORMAT_VERSION {
                    set.old_format.push(h.seeds);
                }
            }
            // Listed apart and not counted: opening the set refuses such a file.
            Err(problem) => {
                bad += 1;
                set.bad.extend(layer_of_file_name(&l.path));
                if build_replaces(&l.path) {
                    set.replaceable.extend(layer_of_file_name(&l.path));
                }
                if l.unreadable {
                    set.unreadable.extend(layer_of_file_name(&l.path));
                }
                outln!("  bad file: {problem}")?
            }
        }
    }
    if let Some(set) = current {
        set.print(given)?;
    }
    if !layers.is_empty() {
        outln!("(headers only; `kalah egdb verify [rule flags]` checks checksums and values)")?;
    }
    // Scripts must be able to tell (the listing above says which files).
    let mut problems = Vec::new();
    if bad > 0 {
        problems.push(format!(
            "{bad} bad layer file{}",
            if bad == 1 { "" } else { "s" }
        ));
    }
    if !bad_sets.is_empty() {
        let n = bad_sets.len();
        problems.push(format!(
            "{n} bad set director{}",
            if n == 1 { "y" } else { "ies" }
        ));
    }
    if !problems.is_empty() {
        bail!("{} in {}", problems.join(" and "), root.display());
    }
    Ok(())
}

/// The error for a set's own directory (`ROOT/m6-standard-row-empty-owner`, holding
/// `k000.egdb`, ...) given where the database root is expected ([`set_dir_advice`]).
pub(crate) fn set_dir_given(dir: &Path) -> anyhow::Error {
    anyhow::anyhow!("--egdb-dir {}: {}", dir.display(), set_dir_advice(dir))
}

/// What to do about layer files found directly in `dir`, given as the database root: `this is
/// one set's directory (k000.egdb, ...); give its parent, P`; or, for a directory not named as
/// a set's (layer files copied into it by hand: tester 103, whose "give its parent" led to "no
/// layers"), where its layers belong, from a layer's header: `it holds layer files (k000.egdb,
/// ...) but no set's directory: ... move them into DIR/m3-standard-row-empty-owner ...`.
fn set_dir_advice(dir: &Path) -> String {
    // (By its real name: `.` from inside a set names none.)
    let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let named_as_set = real
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(kalah_egdb::file::parse_set_dir_name)
        .is_some();
    let set = stray_layer_files(dir)
        .iter()
        .find_map(|p| set_of_layer_file(p));
    match set {
        Some((name, _)) if !named_as_set => format!(
            "it holds layer files (k000.egdb, ...) but no set's directory: each board and rule \
             set has a directory of its own under the root, named for them; move these files \
             into {} (their header says so) and give --egdb-dir {} again",
            dir.join(name).display(),
            dir.display()
        ),
        _ => format!(
            "this is one set's directory (k000.egdb, ...); give its parent, {}",
            parent_of(dir).display()
        ),
    }
}

/// The set directory's name (`m3-standard-row-empty-owner`) and the layer of the layer file
/// `path`, from its header; `None` if the header cannot be read.
fn set_of_layer_file(path: &Path) -> Option<(String, u32)> {
    let h = kalah_egdb::file::read_header(path).ok()?;
    Some((h.set_dir_name(), h.seeds))
}

/// The parent of the directory `dir`, as given if it names one, else from its absolute path:
/// `.` and a one-part relative path have no parent of their own (tester 101: "give its parent,"
/// with nothing after it).
fn parent_of(dir: &Path) -> PathBuf {
    match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() && !crate::cmd::play::ends_in_dot_dir(dir) => {
            p.to_path_buf()
        }
        _ => std::fs::canonicalize(dir)
            .ok()
            .and_then(|d| d.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| dir.join("..")),
    }
}

/// One set's directory as `egdb info` lists it: its usable layers (seeds), their positions and
/// bytes, and the layers of its bad files.
#[derive(Default)]
struct SetListing {
    dir: PathBuf,
    layers: Vec<u32>,
    bad: Vec<u32>,
    /// The bad files this user may not read (their remedy is the permissions, not a rebuild).
    unreadable: Vec<u32>,
    /// The bad files a build replaces itself (damaged: truncated, too long, corrupt); the
    /// others (not a database, another set's, not a file) must be moved away first.
    replaceable: Vec<u32>,
    /// The usable layers in an older file format (no block checksums).
    old_format: Vec<u32>,
    positions: u64,
    bytes: u64,
}

impl SetListing {
    /// Prints the set's line, then, if the solver does not use all of its layers, a second line
    /// that says which it uses and why (`given`: the root named by `--egdb-dir`, for the build
    /// command suggested).
    fn print(&self, given: Option<&Path>) -> Result<()> {
        let name = self
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if self.layers.is_empty() {
            return outln!("  {name}: no usable layers");
        }
        outln!(
            "  {name}: {}, {}, {}",
            kalah_egdb::layers_text(&self.layers),
            plural(self.positions, "position", "positions"),
            human_bytes(self.bytes)
        )?;
        // The solver opens layers 0, 1, 2, ... as long as their files exist: the first layer
        // without a usable file ends the set, or stops it being opened if its file is bad.
        let gap = (0..).find(|k| !self.layers.contains(k)).unwrap_or(0);
        let above: Vec<u32> = self.layers.iter().copied().filter(|&k| k > gap).collect();
        let set = kalah_egdb::file::parse_set_dir_name(&name);
        if let (Some(&top), Some((m, rules))) = (self.old_format.last(), set) {
            outln!(
                "    {} in file format 1, without block checksums (a search checks such a layer whole the first time it reads it, which takes as long as reading the file): `{}` rewrites {}",
                kalah_egdb::layers_text(&self.old_format),
                build_command(m, &rules, top, given),
                if self.old_format.len() == 1 { "it" } else { "them" }
            )?;
        }
        if self.unreadable.contains(&gap) {
            outln!(
                "    layer {gap} cannot be read (permission denied, listed above): the set cannot be opened until this user may read that file"
            )?;
        } else if self.bad.contains(&gap) {
            // Every bad file below the first missing one stops the set being opened.
            let exists = |k: &u32| self.layers.contains(k) || self.bad.contains(k);
            let end = (gap..).find(|k| !exists(k)).unwrap_or(gap);
            let mut blocking: Vec<u32> = self.bad.iter().copied().filter(|&k| k < end).collect();
            blocking.sort_unstable();
            let (is, that) = if blocking.len() == 1 {
                ("is a bad file", "that file is")
            } else {
                ("are bad files", "those files are")
            };
            let layers = kalah_egdb::layers_text(&blocking);
            let in_the_way: Vec<u32> = blocking
                .iter()
                .copied()
                .filter(|k| !self.replaceable.contains(k))
                .collect();
            // The build that replaces the damaged files (a build replaces them itself; tester:
            // the advice said to delete them first).
            let top = self.layers.iter().chain(&self.bad).max().copied();
            let build = set
                .zip(top)
                .map(|((m, rules), top)| build_command(m, &rules, top, given));
            match build {
                Some(cmd) if in_the_way.is_empty() => outln!(
                    "    {layers} {is} (listed above): the set cannot be opened until {that} built again: `{cmd}` replaces {}",
                    if blocking.len() == 1 { "it" } else { "them" }
                )?,
                Some(cmd) if in_the_way.len() < blocking.len() => outln!(
                    "    {layers} {is} (listed above): the set cannot be opened until the {} of {} {} deleted (a build leaves {} alone) and `{cmd}` builds {layers} again",
                    if in_the_way.len() == 1 { "file" } else { "files" },
                    kalah_egdb::layers_text(&in_the_way),
                    if in_the_way.len() == 1 { "is" } else { "are" },
                    if in_the_way.len() == 1 { "it" } else { "them" },
                )?,
                Some(cmd) => outln!(
                    "    {layers} {is} (listed above): the set cannot be opened until {that} moved away or deleted (a build leaves {} alone) and `{cmd}` builds {layers} again",
                    if blocking.len() == 1 { "it" } else { "them" }
                )?,
                None => outln!(
                    "    {layers} {is} (listed above): the set cannot be opened until {that} deleted and built again"
                )?,
            }
        } else if let Some(&top) = above.last() {
            let fix = set.map_or(String::new(), |(m, rules)| {
                // What the build would not write over goes first (tester 89: a link there made
                // the advised build fail), as `verify` says it.
                let paths = above
                    .iter()
                    .map(|&k| self.dir.join(format!("k{k:03}.egdb")));
                format!(
                    " ({}`{}` fills the gap)",
                    in_the_way_text(paths, m, &rules),
                    build_command(m, &rules, top, given)
                )
            });
            let used: Vec<u32> = (0..gap).collect();
            let are = if above.len() == 1 { "is" } else { "are" };
            if used.is_empty() {
                outln!(
                    "    layer 0 is missing, so {} {are} not used{fix}",
                    kalah_egdb::layers_text(&above)
                )?;
            } else {
                outln!(
                    "    {} {} used; layer {gap} is missing, so {} {are} not{fix}",
                    kalah_egdb::layers_text(&used),
                    if used.len() == 1 { "is" } else { "are" },
                    kalah_egdb::layers_text(&above)
                )?;
            }
        }
        Ok(())
    }
}

/// The layer (seeds) a file's name `kNNN.egdb` gives, if it is such a name.
fn layer_of_file_name(path: &Path) -> Option<u32> {
    kalah_egdb::file::parse_layer_file_name(path.file_name()?.to_str()?)
}

/// The layers (seeds) of the files `kNNN.egdb` in a set's directory, ascending (names only;
/// see [`kalah_egdb::layer_files`]).
fn layer_files(dir: &Path) -> Vec<u32> {
    kalah_egdb::layer_files(dir)
        .map(|files| files.into_iter().map(|(_, k)| k).collect())
        .unwrap_or_default()
}

/// Whether a build replaces the layer file at `path` (`ROOT/SET/kNNN.egdb`) itself: a damaged
/// layer of its set (truncated, too long, corrupt), as the build judges it. Not a file that is
/// not a database, another set's or layer's, or no regular file (a symbolic link too, whatever
/// it leads to: tester 86): those a build leaves alone.
fn build_replaces(path: &Path) -> bool {
    let set = path
        .parent()
        .and_then(|d| d.file_name())
        .and_then(|n| n.to_str())
        .and_then(kalah_egdb::file::parse_set_dir_name);
    let Some((m, rules)) = set else {
        return false;
    };
    matches!(open_in_place(path, m, &rules), Some(Err(e)) if is_damage(&e))
}

/// What opening the regular file at `path` as its layer of the set of `m` houses and `rules`
/// gives (headers and length only); `None` for what a build never writes over: no regular file
/// (a link, a directory, nothing), or a name that is no layer of the set.
fn open_in_place(
    path: &Path,
    m: usize,
    rules: &kalah_core::Rules,
) -> Option<Result<(), kalah_egdb::EgdbError>> {
    if !std::fs::symlink_metadata(path).is_ok_and(|md| md.file_type().is_file()) {
        return None;
    }
    let k = layer_of_file_name(path)?;
    let ix = kalah_egdb::Indexer::new(m, k).ok()?;
    let expected = kalah_egdb::file::LayerHeader::expected(m, rules, k, ix.layer_size(k));
    Some(kalah_egdb::file::open_layer(path, &expected, false).map(|_| ()))
}

/// Whether `e`, met opening a layer file, is damage a build mends by writing the layer again
/// (truncated, too long, corrupt).
fn is_damage(e: &kalah_egdb::EgdbError) -> bool {
    use kalah_egdb::EgdbError;
    matches!(
        e,
        EgdbError::Truncated { .. } | EgdbError::TooLong { .. } | EgdbError::Corrupt { .. }
    )
}

/// The message of `e`, an error about the set of `m` houses and `rules` under `root`, with the
/// general advice for a damaged layer file ([`kalah_egdb::REBUILD_ADVICE`]) replaced by the
/// command that builds it again (up to the set's largest layer file; `given`: the `--egdb-dir`
/// to repeat in it): `PATH: truncated (5000 bytes, expected 11516); `kalah egdb build --houses
/// 4 --max-seeds 10 --egdb-dir db` builds it again`. A second damaged file of the message gets
/// "the same command builds it again".
pub(crate) fn with_build_command(
    e: &kalah_egdb::EgdbError,
    root: &Path,
    m: usize,
    rules: &kalah_core::Rules,
    given: Option<&Path>,
) -> String {
    let set = root.join(kalah_egdb::file::set_dir_name(m, rules));
    let top = layer_files(&set).last().copied().unwrap_or(0);
    let command = build_command(m, rules, top, given);
    e.message_with(&mut |i, repair| {
        let build = if i == 0 {
            format!("`{command}` builds it again")
        } else {
            "the same command builds it again".to_string()
        };
        Some(match repair {
            kalah_egdb::Repair::Rebuild => build,
            kalah_egdb::Repair::DeleteFirst => {
                format!("a build leaves it alone: move it away or delete it, then {build}")
            }
        })
    })
}

/// A set that cannot be opened (bad layer files), its message naming the build command where
/// a build replaces the files (see [`with_build_command`]).
#[derive(Debug)]
struct BadSet(String);

impl std::fmt::Display for BadSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadSet {}

/// Whether a build of the set of `m` houses and `rules` writes a new layer over what is at
/// `path` (a layer file above a missing layer, which the build writes anew): a regular file of
/// this set's layer, whole or damaged; not a link, not what is no regular file, not a file of
/// another set, version or format.
fn build_writes_over(path: &Path, m: usize, rules: &kalah_core::Rules) -> bool {
    match open_in_place(path, m, rules) {
        Some(Ok(())) => true,
        Some(Err(e)) => is_damage(&e),
        None => false,
    }
}

/// `move away or delete 'PATH' (a build does not write over it), then ` for the files of
/// `paths` (layers above a missing one, of the set of `m` houses and `rules`) that the build
/// filling the gap would refuse ([`build_writes_over`]); empty if there are none.
fn in_the_way_text(
    paths: impl Iterator<Item = PathBuf>,
    m: usize,
    rules: &kalah_core::Rules,
) -> String {
    let in_the_way: Vec<String> = paths
        .filter(|p| !build_writes_over(p, m, rules))
        .map(|p| format!("'{}'", p.display()))
        .collect();
    if in_the_way.is_empty() {
        return String::new();
    }
    format!(
        "move away or delete {} (a build does not write over {}), then ",
        in_the_way.join(", "),
        if in_the_way.len() == 1 { "it" } else { "them" }
    )
}

/// The layer files of `db`'s set past the first missing layer (which ends the layers opened):
/// on disk, but used neither by the solver nor by `verify`.
fn layers_past_gap(db: &Egdb) -> Vec<u32> {
    let mut ks = layer_files(db.dir());
    ks.retain(|&k| k > db.max_seeds());
    ks
}

/// Why a build of `total` positions cannot run on this machine (`need N of memory during the
/// build; this machine has M`), or `None` if it fits (or the memory is unknown). Every layer
/// stays in memory until the build ends (one byte a position): a build bigger than the
/// machine's memory would only end in swapping or the OOM killer, after hours.
fn too_big_to_build(total: u64) -> Option<String> {
    let have = kalah_solver::memory_mib()? as u64 * 1024 * 1024;
    (total > have).then(|| {
        format!(
            "need {} of memory during the build; this machine has {}",
            human_bytes(total),
            human_bytes(have)
        )
    })
}

/// The `--egdb-dir` to repeat in a suggested command for the database root `root`: none for
/// the default root.
pub(crate) fn given_root(root: &Path) -> Option<&Path> {
    (kalah_egdb::default_dir().as_deref() != Some(root)).then_some(root)
}

/// How to mend the damaged layer of `db` ([`Egdb::damaged_layer`]), if any, with the command
/// that builds it again: "`kalah egdb build --houses 3 --max-seeds 8 --egdb-dir db` builds it
/// again", or, for a file whose checksums hold (a build keeps it), "delete it, then ...".
pub(crate) fn repair_with_command(db: &Egdb) -> Option<String> {
    let repair = db.repair()?;
    let root = db.dir().parent()?;
    let given = given_root(root);
    let top = layer_files(db.dir())
        .last()
        .copied()
        .unwrap_or(db.max_seeds());
    let command = build_command(db.houses(), db.rules(), top, given);
    Some(match repair {
        kalah_egdb::Repair::Rebuild => format!("`{command}` builds it again"),
        kalah_egdb::Repair::DeleteFirst if db.damaged_is_link() => format!(
            "delete it (a build does not replace a symbolic link), then `{command}` builds it again"
        ),
        kalah_egdb::Repair::DeleteFirst => format!(
            "delete it (a build keeps a file whose checksums hold), then `{command}` builds it again"
        ),
    })
}

/// `layers 0..=K`, or `layer 0` for K = 0 ([`kalah_egdb::layers_text`]; tester 101: "layers
/// 0..=0").
fn layers_up_to(k: u32) -> String {
    kalah_egdb::layers_text(&(0..=k).collect::<Vec<u32>>())
}

/// The command that builds layers 0..=`max_seeds` of Kalah(`m`,·) under `rules` (only the rule
/// flags that differ from the defaults) into the root `given` by `--egdb-dir` (`None`: the
/// default root).
fn build_command(
    m: usize,
    rules: &kalah_core::Rules,
    max_seeds: impl std::fmt::Display,
    given: Option<&Path>,
) -> String {
    let dir = given.map(|d| crate::output::shell_path(&d.to_string_lossy()));
    kalah_egdb::build_command(m, rules, max_seeds, dir.as_deref())
}

/// What is wrong with a layer file whose header reads well, as far as its length and place tell
/// (what `Egdb::open` would refuse): a file cut short or padded, or a file of another set or
/// layer than its directory and name say.
fn layer_problem(l: &kalah_egdb::LayerInfo, h: &kalah_egdb::file::LayerHeader) -> Option<String> {
    // The count a layer of its board and seeds holds, as opening the set checks it (tester 45:
    // a count one too many, with the file and its checksums made to match, was listed as good).
    let size = kalah_egdb::Indexer::new(h.houses, h.seeds).map(|ix| ix.layer_size(h.seeds));
    match size {
        Ok(n) if n == h.count => {}
        Ok(n) => {
            return Some(format!(
                "its header says {} values, but a layer of {} seeds on {} houses a side holds {n}; delete it and rebuild",
                h.count, h.seeds, h.houses
            ))
        }
        Err(e) => return Some(format!("{e}; delete it")),
    }
    // Another layer's or set's file first, as opening the set checks it (tester 69: a copy of
    // layer 8 cut short in layer 9's place was "truncated" against layer 8's length, with the
    // advice to build, which refuses such a file).
    let set = h.set_dir_name();
    let name = kalah_egdb::file::layer_file_name(h.seeds);
    let dir = l.path.parent().and_then(|d| d.file_name());
    let file = l.path.file_name();
    if dir.is_some_and(|d| d.to_string_lossy() != set.as_str())
        || file.is_some_and(|f| f.to_string_lossy() != name.as_str())
    {
        return Some(format!(
            "holds layer {} of {set}, not what its place says; move or delete it",
            h.seeds
        ));
    }
    let want = kalah_egdb::file::file_len(h.version, h.count);
    if l.bytes != want {
        // As opening the set says it (through a link, the link goes first: tester 86).
        let path = l.path.display().to_string();
        let e = if l.bytes < want {
            kalah_egdb::EgdbError::Truncated {
                path: path.clone(),
                expected: want,
                found: l.bytes,
            }
        } else {
            kalah_egdb::EgdbError::TooLong {
                path: path.clone(),
                expected: want,
                found: l.bytes,
            }
        };
        let text = e.to_string();
        return Some(
            text.strip_prefix(&format!("{path}: "))
                .unwrap_or(&text)
                .to_string(),
        );
    }
    None
}

/// When the set of `m` houses and `rules` under `root` holds layer files but no layer 0 (so
/// [`Egdb::open`] finds no databases), the sentence saying so and naming the build that fills
/// the gap (`given`: the `--egdb-dir` to repeat in it); `None` otherwise.
pub(crate) fn no_layer_zero(
    root: &Path,
    m: usize,
    rules: &kalah_core::Rules,
    given: Option<&Path>,
) -> Option<String> {
    let set = root.join(kalah_egdb::file::set_dir_name(m, rules));
    let files = layer_files(&set);
    let &top = files.last()?;
    Some(format!(
        "{}: layer 0 is missing, so its {} cannot be used; `{}` fills the gap",
        set.display(),
        kalah_egdb::layers_text(&files),
        build_command(m, rules, top, given)
    ))
}

/// Whether `dir` itself holds layer files (`*.egdb`) and no set directory: a set's directory
/// given as the root. A root that holds sets is a root even with a layer file beside them (one
/// moved there by hand: tester 101, `build` refused the root); [`stray_layer_files`] names
/// those.
pub(crate) fn holds_layer_files(dir: &std::path::Path) -> bool {
    !stray_layer_files(dir).is_empty() && !holds_sets(dir)
}

/// The layer files (`*.egdb`) directly in `dir`, in name order.
pub(crate) fn stray_layer_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "egdb"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Whether `dir` holds a directory named as a set's (`m6-standard-row-empty-owner`).
fn holds_sets(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.filter_map(|e| e.ok()).any(|e| {
            e.path().is_dir()
                && e.file_name()
                    .to_str()
                    .and_then(kalah_egdb::file::parse_set_dir_name)
                    .is_some()
        })
    })
}

/// The database root of `dir` ([`DirArgs::root`]), refused if it is one set's directory.
fn checked_root(dir: &DirArgs) -> Result<PathBuf> {
    let root = dir.root()?;
    if holds_layer_files(&root) {
        return Err(set_dir_given(&root));
    }
    Ok(root)
}

fn open(dir: &DirArgs, rules_args: &RuleArgs, m: usize) -> Result<Egdb> {
    refuse_majority_end(rules_args)?;
    let rules = rules_args.rules();
    let root = checked_root(dir)?;
    let given = dir.egdb_dir.as_deref();
    let opened = Egdb::open(&root, m, &rules)
        .map_err(|e| BadSet(with_build_command(&e, &root, m, &rules, given)))?;
    if opened.is_none() {
        // Layers without layer 0 (tester 12: "no databases" though the files are there).
        if let Some(why) = no_layer_zero(&root, m, &rules, dir.egdb_dir.as_deref()) {
            bail!("{why}");
        }
    }
    opened.with_context(|| {
        format!(
            "no databases for Kalah({m},·) capture={} end={} leftovers={} under {} (build them with `{}`, K the most seeds to cover)",
            rules.capture,
            rules.end,
            rules.leftovers,
            root.display(),
            build_command(m, &rules, "K", dir.egdb_dir.as_deref())
        )
    })
}

fn verify(a: VerifyArgs) -> Result<()> {
    let m = houses(&a.rules)?;
    let db = match open(&a.dir, &a.rules, m) {
        Ok(db) => db,
        Err(e) if e.is::<BadSet>() => return Err(every_bad_layer(&a, m).unwrap_or(e)),
        Err(e) => return Err(e),
    };
    let total: u64 = (0..=db.max_seeds()).map(|k| db.layer_size(k)).sum();
    outln!(
        "{}: {}, {}; checking the checksums and re-deriving every entry",
        db.dir().display(),
        layers_up_to(db.max_seeds()),
        plural(total, "position", "positions")
    )?;
    // Layers past a missing one are not opened: neither the solver nor this check sees them.
    // Not damage (exit code 0), but said, since the set was built further.
    let unused = layers_past_gap(&db);
    if let Some(&top) = unused.last() {
        let root = a.dir.egdb_dir.as_deref();
        // What the build that fills the gap would refuse to write over (tester 88: a file
        // that is no database there made the advised build fail).
        let paths = unused.iter().map(|&k| db.layer_path(k));
        let first = in_the_way_text(paths, m, &a.rules.rules());
        outln!(
            "layer {} is missing: {} {} not used by the solver and {} not verified; {first}`{}` fills the gap",
            db.max_seeds() + 1,
            kalah_egdb::layers_text(&unused),
            if unused.len() == 1 { "is" } else { "are" },
            if unused.len() == 1 { "was" } else { "were" },
            build_command(m, &a.rules.rules(), top, root)
        )?;
    }
    let stop = stop_on_ctrl_c();
    let bar = crate::output::progress_bar(total);
    bar.set_style(bar_style(terminal_width(), total, false));
    let threads = a.threads.map(checked_threads);
    let report = db.verify(threads, &stop, &|done, _| bar.set_position(done));
    bar.finish_and_clear();
    let report = match report {
        Ok(r) => r,
        Err(kalah_egdb::EgdbError::Interrupted) => interrupted("verify", "nothing was changed"),
        Err(e) => return Err(every_bad_layer(&a, m).unwrap_or_else(|| e.into())),
    };
    if report.mismatches > 0 {
        let (k, r, s, d) = report.first.unwrap_or_default();
        // A build keeps a file whose checksums hold, so the file goes first; the layers above
        // the lowest bad one may differ only because they read it (tester 64: the advice was
        // "delete the layers and rebuild", naming no file).
        let path = crate::output::shell_path(&db.layer_path(k).to_string_lossy());
        let build = build_command(
            m,
            &a.rules.rules(),
            db.max_seeds(),
            a.dir.egdb_dir.as_deref(),
        );
        let above = &report.bad_layers[1..];
        let (they, read, differ, them) = if above.len() == 1 {
            ("it", "reads", "differs", "it")
        } else {
            ("they", "read", "differ", "them")
        };
        let then = if above.is_empty() {
            String::new()
        } else {
            format!(
                "; then verify again ({} may differ only where {they} {read} layer {k}): if {they} still {differ}, delete {them} too and build again",
                kalah_egdb::layers_text(above),
            )
        };
        bail!(
            "{} of {} entries differ from their children's values, in {} (first: layer {k} rank {r}: stored {s}, derived {d}); a build keeps a file whose checksums hold: delete {path}, then `{build}` builds layer {k} again{then}",
            report.mismatches,
            report.positions,
            kalah_egdb::layers_text(&report.bad_layers),
        );
    }
    if report.positions == 1 {
        outln!("verified: the 1 entry agrees with its children")?;
    } else {
        outln!(
            "verified: all {} entries agree with their children",
            report.positions
        )?;
    }
    Ok(())
}

/// After `verify` found a bad layer file: every layer file of the set checked on its own
/// (header, length, payload checksum): the error names every bad one.
/// Opening the set stops at its first bad file, and `info`, `solve` and `verify` named
/// different ones, `verify` none with a bad checksum past a truncated file (tester 57).
/// `None` if every file passes (the error was something else: the caller's stands).
fn every_bad_layer(a: &VerifyArgs, m: usize) -> Option<anyhow::Error> {
    use kalah_egdb::file;
    let rules = a.rules.rules();
    let root = a.dir.root().ok()?;
    let dir = file::layer_path(&root, m, &rules, 0)
        .parent()?
        .to_path_buf();
    let files = layer_files(&dir);
    // A set's directory (or the root) this user may not search: one error for all its files,
    // naming the directory (tester 86: each file was named with the directory's error).
    let first = file::layer_path(&root, m, &rules, *files.first()?);
    if let Err(e) = std::fs::symlink_metadata(&first) {
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            return Some(kalah_egdb::unreadable(&first, e).into());
        }
    }
    let mut bad = Vec::new();
    for &k in &files {
        let path = file::layer_path(&root, m, &rules, k);
        let count = kalah_egdb::Indexer::new(m, k).map(|ix| ix.layer_size(k));
        let checked = count.and_then(|count| {
            let expected = file::LayerHeader::expected(m, &rules, k, count);
            file::open_layer(&path, &expected, true)
        });
        if let Err(e) = checked {
            let unreadable = matches!(e, kalah_egdb::EgdbError::Unreadable { .. });
            // What a build does not write over: not a regular file (a link, a directory), or a
            // whole file of another set, version or format (tester 98: the advice was the
            // build alone, which then refused the file).
            let in_the_way = !unreadable
                && (!std::fs::symlink_metadata(&path).is_ok_and(|md| md.is_file())
                    || !is_damage(&e));
            // The build command comes once, at the end: not the general advice after each file
            // (nor the permissions' advice, which comes there too). A file behind a directory
            // this user may not search (a link into it) is named with that directory, which
            // is what the permissions' advice names (tester 89: it named the link).
            let (text, fix) = match &e {
                kalah_egdb::EgdbError::Unreadable { path: at, source } => {
                    let at = PathBuf::from(at);
                    let text = if at == path {
                        format!("{}: {source}", at.display())
                    } else {
                        format!("{}: {}: {source}", path.display(), at.display())
                    };
                    (text, at)
                }
                e => (e.message_without_advice(), path.clone()),
            };
            bad.push((k, fix, text, unreadable, in_the_way));
        }
    }
    let top = *files.last()?;
    let ks: Vec<u32> = bad.iter().map(|(k, ..)| *k).collect();
    if ks.is_empty() {
        return None;
    }
    // A build replaces a damaged file but leaves alone what is not a file (a directory, a
    // link): those are deleted first (tester 59: the advice named only the build). A file this
    // user may not read is mended by its permissions, not by a build, which stops at it
    // (tester 67: the advice was only the build).
    // The first SHOWN_BAD_LAYERS of `items`, quoted, and the count of the rest (tester 86:
    // every file was named, twice, and the line was clipped in the middle of its advice).
    let shown = |items: Vec<&Path>| {
        let n = items.len();
        let mut text: Vec<String> = items
            .iter()
            .take(kalah_egdb::SHOWN_BAD_LAYERS)
            .map(|p| format!("'{}'", p.display()))
            .collect();
        if n > kalah_egdb::SHOWN_BAD_LAYERS {
            text.push(format!("and {} more", n - kalah_egdb::SHOWN_BAD_LAYERS));
        }
        (text.join(", "), if n == 1 { "it" } else { "them" })
    };
    let mut unreadable: Vec<&Path> = bad
        .iter()
        .filter(|b| b.3)
        .map(|(_, p, ..)| p.as_path())
        .collect();
    unreadable.dedup();
    let in_the_way: Vec<&Path> = bad
        .iter()
        .filter(|b| b.4)
        .map(|(_, p, ..)| p.as_path())
        .collect();
    let rebuilt = bad.iter().filter(|b| !b.3).count();
    let mut steps = Vec::new();
    if !unreadable.is_empty() {
        let (files, them) = shown(unreadable);
        steps.push(format!(
            "let this user read {files} (its owner or root can: `chmod a+r` on a file, \
             `chmod a+x` on a directory; a build does not replace {them})"
        ));
    }
    if !in_the_way.is_empty() {
        let (files, them) = shown(in_the_way);
        steps.push(format!(
            "move away or delete {files} (a build leaves {them} alone: a link, not a regular \
             file, or a file of another set, version or format)"
        ));
    }
    let mut each: Vec<String> = bad
        .iter()
        .take(kalah_egdb::SHOWN_BAD_LAYERS)
        .map(|(_, _, e, ..)| e.clone())
        .collect();
    if bad.len() > kalah_egdb::SHOWN_BAD_LAYERS {
        // Only `info` lists every file (tester 107: the pointer was to `verify` itself).
        each.push(format!(
            "and {} more (`kalah egdb info` lists each)",
            bad.len() - kalah_egdb::SHOWN_BAD_LAYERS
        ));
    }
    let command = build_command(m, &rules, top, a.dir.egdb_dir.as_deref());
    let advice = match (steps.is_empty(), rebuilt) {
        (_, 0) => format!("{}, then run this command again", steps.join(", ")),
        (true, n) => format!(
            "`{command}` builds {} again",
            if n == 1 { "it" } else { "them" }
        ),
        (false, n) => format!(
            "{}, then `{command}` builds {} again",
            steps.join(", "),
            if n == 1 { "it" } else { "them" }
        ),
    };
    Some(anyhow::anyhow!(
        "{} bad layer file{} ({}): {}; {advice}",
        ks.len(),
        if ks.len() == 1 { "" } else { "s" },
        kalah_egdb::layers_text(&ks),
        each.join("; "),
    ))
}

fn probe(a: ProbeArgs) -> Result<()> {
    let pos = a.rules.position(Some(&a.position))?;
    let m = pos.houses();
    let rules = a.rules.rules();
    let k = pos.seeds_in_houses();
    let Some(side) = pos.to_move() else {
        // As `kalah solve` values it: the final store difference from the view of the side
        // that would have moved, nothing left to gain; no database needed (tester 81: it
        // wanted a set of the board's size). A --egdb-dir that is no directory is still
        // refused, as for a game in play (tester 91).
        if a.dir.egdb_dir.is_some() {
            checked_root(&a.dir)?;
        }
        let side = pos.side();
        let value = pos.store_diff(side);
        if a.json {
            outln!("{{\"gain\":0,\"value\":{value},\"seeds\":0,\"over\":true}}")?;
        } else {
            outln!(
                "game over ({side} would move), final stores {} (South) and {} (North): value {value:+} ({side}'s view, future gain +0)",
                pos.store(kalah_core::Side::South),
                pos.store(kalah_core::Side::North)
            )?;
        }
        return Ok(());
    };
    let db = open(&a.dir, &a.rules, m)?;
    // Before the seed count: no build adds positions of the opening phases, whatever its
    // layers (a probe with more seeds than the layers said that a bigger build would help).
    if pos.phase() != kalah_core::Phase::Normal {
        let why = if pos.phase() == kalah_core::Phase::PieChoice {
            "pie-rule choice: North may still swap, and positions before that choice are not \
             stored"
        } else {
            "opening phase: positions before the first turn ends are not stored"
        };
        bail!("the databases do not cover this position ({why})");
    }
    if k > db.max_seeds() {
        // Layer files past a gap are not used: say so, as `info` and `verify` do.
        let unused = layers_past_gap(&db);
        let gap = if unused.is_empty() {
            String::new()
        } else {
            format!(" (layer {} is missing)", db.max_seeds() + 1)
        };
        let top = unused.last().copied().unwrap_or(0).max(k);
        let plan = BuildPlan {
            root: db.dir().to_path_buf(),
            houses: m,
            rules,
            max_seeds: top,
            threads: None,
        };
        let out_of_reach = match plan.total_positions() {
            Ok(total) => too_big_to_build(total).map(|need| format!("they {need}")),
            Err(e) => Some(e.to_string()),
        };
        if let Some(why) = out_of_reach {
            bail!(
                "{k} seeds in the houses, the databases go up to {}{gap}, and layers 0..={top} cannot be built here ({why}): `kalah solve` finds the value by search",
                db.max_seeds()
            );
        }
        bail!(
            "{k} seeds in the houses, the databases go up to {}{gap}: `{}` builds the layers needed",
            db.max_seeds(),
            build_command(m, &rules, top, a.dir.egdb_dir.as_deref())
        );
    }
    let Some(gain) = db.probe(&pos, &rules) else {
        if let (Some(damage), Some(repair)) = (db.damage(), repair_with_command(&db)) {
            bail!(
                "no value for this position: {damage}; check it with 'kalah egdb verify' and \
                 {repair}"
            );
        }
        // Every position of the normal phase within the layers is stored.
        bail!("the databases do not cover this position");
    };
    let value = pos.store_diff(side) + gain;
    if a.json {
        outln!("{{\"gain\":{gain},\"value\":{value},\"seeds\":{k}}}")?;
    } else {
        outln!(
            "{side} to move, {k} seeds in the houses: value {value:+} ({side}'s store difference {:+}, future gain {gain:+})",
            pos.store_diff(side)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_screen::Screen;

    #[test]
    fn more_threads_than_cores_get_a_warning_and_no_more_do_not() {
        assert_eq!(oversubscribed(2, 2), None);
        assert_eq!(oversubscribed(1, 8), None);
        assert_eq!(
            oversubscribed(3, 2).as_deref(),
            Some("--threads 3 on 2 cores: threads beyond the cores only slow the work down")
        );
        assert_eq!(
            oversubscribed(256, 1).as_deref(),
            Some("--threads 256 on 1 core: threads beyond the cores only slow the work down")
        );
    }

    /// What a bar of `style` draws on a terminal of `width` columns during a build of `total`
    /// positions: every record, and the last line drawn.
    fn drawn(width: u16, total: u64, style: ProgressStyle) -> (Vec<String>, String) {
        let screen = Screen::new(width);
        let bar = screen.bar(Some(total));
        bar.set_style(style);
        for (k, done) in [(0, 0), (13, total / 3), (120, total - 1)] {
            bar.set_message(format!("k={k}"));
            bar.set_position(done);
            bar.tick();
        }
        bar.finish();
        let log = screen.log.lock().unwrap().clone();
        let last = log
            .iter()
            .rfind(|s| s.contains('%'))
            .cloned()
            .unwrap_or_default();
        (log, last)
    }

    #[test]
    fn the_build_bar_stays_on_one_row_of_a_narrow_terminal() {
        // Regression: the bar's line was about 100 columns: on an 80-column terminal it took
        // two rows, on a 40-column one three, the bar itself cut across them.
        for width in [12u16, 20, 30, 40, 44, 60, 80, 100, 160] {
            // Kalah(6,·) to 13 seeds, and to 28 seeds (the widest counts of a real build).
            for total in [5_200_300u64, 5_586_853_480] {
                for layer in [true, false] {
                    let (log, last) = drawn(width, total, bar_style(width, total, layer));
                    assert!(!last.is_empty(), "{width}: {log:?}");
                    for s in &log {
                        // One row: each redraw returns to its start (a move up by 0).
                        assert!(
                            !s.starts_with("<down") && (!s.starts_with("<up") || s == "<up 0>"),
                            "{width}: {log:?}"
                        );
                        assert!(!s.contains('\n'), "{width}: {log:?}");
                        assert!(
                            s.chars().count() <= usize::from(width),
                            "wider than {width} columns: {s:?}"
                        );
                    }
                }
            }
        }
        // As much as fits: everything on a wide terminal, then without the counts, then
        // without the speed; the layer comes first.
        let (_, wide) = drawn(132, 5_200_300, bar_style(132, 5_200_300, true));
        assert!(wide.starts_with("k=120 [="), "{wide}");
        for part in ["%", "/5,200,300 positions, ", "/s, eta "] {
            assert!(wide.contains(part), "{wide}");
        }
        let (_, mid) = drawn(60, 5_200_300, bar_style(60, 5_200_300, true));
        assert!(
            mid.contains("/s, eta ") && !mid.contains("positions"),
            "{mid}"
        );
        let (_, narrow) = drawn(40, 5_200_300, bar_style(40, 5_200_300, true));
        assert!(
            narrow.starts_with("k=120 [=") && narrow.ends_with('%'),
            "{narrow}"
        );
        let (_, verify) = drawn(100, 5_200_300, bar_style(100, 5_200_300, false));
        assert!(
            verify.starts_with("[=") && verify.contains("/5,200,300, "),
            "{verify}"
        );
    }

    #[test]
    fn layer_lists_are_written_as_ranges() {
        assert_eq!(kalah_egdb::layers_text(&[3]), "layer 3");
        assert_eq!(kalah_egdb::layers_text(&[0, 1, 2, 3, 4]), "layers 0..=4");
        assert_eq!(
            kalah_egdb::layers_text(&[0, 1, 2, 3, 4, 6, 7, 8]),
            "layers 0..=4 and 6..=8"
        );
        assert_eq!(
            kalah_egdb::layers_text(&[0, 1, 2, 4, 6, 7, 8]),
            "layers 0..=2, 4 and 6..=8"
        );
        assert_eq!(kalah_egdb::layers_text(&[6, 8]), "layers 6 and 8");
    }

    #[test]
    fn the_build_command_suggested_names_the_set_and_its_root() {
        let rules = kalah_core::Rules::default();
        assert_eq!(
            build_command(4, &rules, 8, None),
            "kalah egdb build --houses 4 --max-seeds 8"
        );
        let other = kalah_core::Rules {
            capture: kalah_core::CaptureRule::Empty,
            leftovers: kalah_core::LeftoverRule::Nobody,
            ..rules
        };
        assert_eq!(
            build_command(3, &other, 12, Some(Path::new("/tmp/my dbs/it's"))),
            "kalah egdb build --houses 3 --max-seeds 12 --capture empty --leftovers nobody \
             --egdb-dir '/tmp/my dbs/it'\\''s'"
        );
        assert_eq!(
            build_command(6, &rules, 24, Some(Path::new("/data/egdb-2"))),
            "kalah egdb build --houses 6 --max-seeds 24 --egdb-dir /data/egdb-2"
        );
    }

    #[test]
    fn the_rate_fits_ten_columns() {
        assert_eq!(rate_text(230_000.0), "0.23 M/s");
        assert_eq!(rate_text(6.8e6), "6.80 M/s");
        assert_eq!(rate_text(1.8e9), "1.80 G/s");
        assert_eq!(rate_text(f64::INFINITY), "? M/s");
        assert_eq!(rate_text(f64::NAN), "? M/s");
        for r in [0.0, 999.999e6, 1e12, 1e30] {
            assert!(rate_text(r).len() <= 10, "{r}: {}", rate_text(r));
        }
    }
}
