//! `kalah solve --batch FILE`: many positions solved by one solver, one result a line as each
//! is proven, then a summary (the test-set runner of Pascal Pons' Connect 4 solver, for Kalah).
//!
//! A batch line is a position in bin order with the side to move (and phase tag, if any),
//! optionally followed by its expected value: `4,4,4,4,4,4,0,4,4,4,4,4,4,0 S +8`. Blank lines
//! and lines starting with `#` are skipped. The transposition table is kept from one position to
//! the next (the same houses and rules reuse its entries); it is made again, larger, when a
//! position needs a bigger default table than the one in use. Another board size gets a solver
//! of its own; the last two board sizes' solvers are kept (see [`KEPT_SOLVERS`]).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::ProgressBar;
use kalah_core::{Phase, Position, Rules};
use kalah_egdb::Egdb;
use kalah_solver::review::Outcome;
use kalah_solver::{Progress, SolveError, Solver};
use serde_json::{json, Value};

use super::{
    default_tt_for, progress_message, show_progress, turns_text, Args, Listing, SolverParts,
};
use crate::game_args::{opening_rules_note, RulesNamed};
use crate::input::{read_line, LineRead, WideText};
use crate::output::{json_round, json_seconds, print};

/// A batch line's words: the position text and what is expected of its value, if the line
/// ends with it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub position: String,
    pub expected: Option<Expected>,
}

/// What a batch line expects of its position's value (side to move's view): the exact value
/// (`+8`), or only the outcome (`W`, `D` or `L`: a win, a draw or a loss for the side to move,
/// as published tables give some positions, e.g. `../shared/reference/published-values.csv`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expected {
    /// This exact value.
    Value(i32),
    /// A value of this sign: above 0, 0, below 0.
    Outcome(Outcome),
}

impl Expected {
    /// Whether the value `v` is as expected.
    pub(super) fn holds(self, v: i32) -> bool {
        match self {
            Expected::Value(e) => e == v,
            Expected::Outcome(o) => Outcome::of(v) == o,
        }
    }

    /// Whether bounds `lower..=upper` of the value prove it as expected (every value in them
    /// is), or rule it out (none is): `Some(true)`, `Some(false)`, or `None` when they do not
    /// tell. A stopped search's bounds can prove an outcome: `W` once the lower bound is above 0.
    pub(super) fn proven_by(self, lower: i32, upper: i32) -> Option<bool> {
        if (lower..=upper).all(|v| self.holds(v)) {
            Some(true)
        } else if !(lower..=upper).any(|v| self.holds(v)) {
            Some(false)
        } else {
            None
        }
    }

    /// As the line writes it: `+8`, `-2`, `0`; `W`, `D`, `L`.
    pub(super) fn text(self) -> String {
        match self {
            Expected::Value(v) => format!("{v:+}"),
            Expected::Outcome(o) => outcome_letter(o).to_string(),
        }
    }

    /// As JSON: the number, or the letter.
    pub(super) fn json(self) -> Value {
        match self {
            Expected::Value(v) => json!(v),
            Expected::Outcome(o) => json!(outcome_letter(o)),
        }
    }
}

/// `W`, `D` or `L`.
fn outcome_letter(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "W",
        Outcome::Draw => "D",
        Outcome::Loss => "L",
    }
}

/// An outcome word of a batch line: `W`, `D`, `L`, `win`, `draw` or `loss`, in any case.
fn outcome_word(word: &str) -> Option<Outcome> {
    match word.to_ascii_lowercase().as_str() {
        "w" | "win" => Some(Outcome::Win),
        "d" | "draw" => Some(Outcome::Draw),
        "l" | "loss" => Some(Outcome::Loss),
        _ => None,
    }
}

/// Splits a batch line. `Ok(None)`: a blank line or a comment (`#` first). The last word is the
/// expected value when it starts with a digit or a sign and the word before it does not end in a
/// comma (then it is the last count of the bins, written after a space: `4, 4, ..., 0`), or the
/// expected outcome when it is `W`, `D` or `L` (or `win`, `draw`, `loss`, in any case) after at
/// least one other word. A finished game without a seed is written without a side
/// (`0,0,0,0,0,0 +0`).
///
/// # Errors
/// An expected value that is not a whole number within ±255 (`+8x`, `300`).
pub(super) fn split_line(text: &str) -> Result<Option<Entry>> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let last = words[words.len() - 1];
    let numeric = last
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '+' || c == '-');
    // Words after what reads as the expected value (`... S +6 extra`, `... S +6 a b`):
    // name the first of them, not the value (the position parser would stop at the
    // value). The value is a whole number after words that make a position.
    for i in 1..words.len() - 1 {
        let value = words[i];
        let digits = value.strip_prefix(['+', '-']).unwrap_or(value);
        let number = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        if (number || outcome_word(value).is_some())
            && words[..i].join(" ").parse::<Position>().is_ok()
        {
            bail!(
                "unexpected '{}' after the expected value '{value}' (a line is a position, then optionally its expected value)",
                words[i + 1]
            );
        }
    }
    // A last word that is neither a number nor a phase tag after a whole position (`... S
    // six`, `... S pies`): either a bad expected value or a misspelt tag, so the message names
    // both. (A phase tag the position refuses, `S pie`, is left to the position's parser.)
    if words.len() >= 2 {
        if let Some(o) = outcome_word(last) {
            return Ok(Some(Entry {
                position: words[..words.len() - 1].join(" "),
                expected: Some(Expected::Outcome(o)),
            }));
        }
    }
    if !numeric
        && words.len() >= 2
        && Phase::from_tag(last).is_none()
        && text.parse::<Position>().is_err()
        && words[..words.len() - 1]
            .join(" ")
            .parse::<Position>()
            .is_ok()
    {
        bail!(
            "unexpected '{last}' after the position: an expected value is a whole number from -255 to +255 (or W, D or L), and after the side only 'opening', 'first-turn' or 'pie' may follow"
        );
    }
    if words.len() < 2 || !numeric || words[words.len() - 2].ends_with(',') {
        return Ok(Some(Entry {
            position: words.join(" "),
            expected: None,
        }));
    }
    let expected: i32 = last
        .parse()
        .ok()
        .filter(|v: &i32| (-255..=255).contains(v))
        .with_context(|| {
            format!("the expected value '{last}' is not a whole number from -255 to +255")
        })?;
    Ok(Some(Entry {
        position: words[..words.len() - 1].join(" "),
        expected: Some(Expected::Value(expected)),
    }))
}

/// The longest batch line read (a position line is a few dozen bytes; `/dev/zero` is endless).
const MAX_LINE: usize = 4096;

/// The lines that are not UTF-8 text at which a batch stops: the file is no text (a binary
/// file, a compressed one), not a file of positions with a few bad lines.
const MAX_NOT_TEXT: u64 = 10;

/// The UTF-8 byte-order mark, skipped at the start of the file (only there).
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What the Ctrl-C handler shares with the batch: the totals so far, and whether the batch is
/// waiting for its next line (a Ctrl-C then ends it at once, with the summary).
struct Shared {
    totals: Mutex<Totals>,
    waiting: AtomicBool,
}

impl Shared {
    /// Counts line `n` as bad and reports `e`: on stderr, and as a JSON line with `json_out`.
    fn bad_line(&self, json_out: bool, n: u64, e: &anyhow::Error) -> Result<()> {
        lock(&self.totals).errors += 1;
        let msg = crate::output::error_line(e);
        if json_out {
            print(&format!("{}\n", json!({ "line": n, "error": msg })))?;
        }
        stderr_line!("kalah: line {n}: {msg}");
        Ok(())
    }

    /// Prints the summary; `stopped`: a signal stopped the batch, which the summary says
    /// (`...; 0.36 s in all; interrupted (Ctrl-C): the batch is incomplete`, or `"stopped":
    /// true` and `"signal"` in JSON).
    fn print_summary(&self, json_out: bool, wall: Duration, stopped: bool) -> Result<()> {
        let totals = lock(&self.totals);
        if json_out {
            let mut v = totals.json(wall);
            if stopped {
                v["summary"]["stopped"] = json!(true);
                v["summary"]["signal"] = json!(crate::signals::signal_name());
            }
            print(&format!("{v}\n"))
        } else if stopped {
            let text = totals.text(wall);
            print(&format!(
                "{}; {}: the batch is incomplete\n",
                text.trim_end(),
                crate::signals::stopped_by()
            ))
        } else {
            print(&totals.text(wall))
        }
    }
}

/// The solver in use: for boards of `houses` houses, with a table of `parts.tt_mb` MiB.
struct Current {
    houses: usize,
    parts: SolverParts,
    solver: Solver,
}

/// Totals for the summary.
#[derive(Default)]
struct Totals {
    solved: u64,
    mismatches: u64,
    errors: u64,
    /// Positions given up at `--time-ms` or `--nodes`, and their nodes (not in `nodes`).
    unfinished: u64,
    unfinished_nodes: u64,
    nodes: u64,
    seconds: f64,
}

impl Totals {
    /// Mean seconds and nodes a position solved, and nodes per second of search.
    fn means(&self) -> (f64, f64, f64) {
        let n = self.solved.max(1) as f64;
        let rate = if self.seconds > 0.0 {
            self.nodes as f64 / self.seconds
        } else {
            0.0
        };
        (self.seconds / n, self.nodes as f64 / n, rate)
    }

    fn json(&self, wall: Duration) -> Value {
        let (mean_seconds, mean_nodes, rate) = self.means();
        // Sums and quotients of floats written to the nanosecond and the thousandth of a node
        // (tester 66: "mean_seconds": 2.0489999999999998e-6).
        json!({
            "summary": {
                "positions": self.solved,
                "mismatches": self.mismatches,
                "errors": self.errors,
                "unfinished": self.unfinished,
                "unfinished_nodes": self.unfinished_nodes,
                "nodes": self.nodes,
                "seconds": json_seconds(self.seconds),
                "wall_seconds": json_seconds(wall.as_secs_f64()),
                "mean_nodes": json_round(mean_nodes, 1e3),
                "mean_seconds": json_seconds(mean_seconds),
                "nodes_per_second": json_round(rate, 1e3),
            }
        })
    }

    fn text(&self, wall: Duration) -> String {
        let (mean_seconds, mean_nodes, rate) = self.means();
        // Positions given up at a limit, when there are any.
        let unfinished = match self.unfinished {
            0 => String::new(),
            u => format!(", {u} unfinished ({} nodes)", self.unfinished_nodes),
        };
        // No means of nothing (tester 90: "mean 0.000 s and 0 nodes a position" when every
        // position was given up).
        let means = if self.solved == 0 {
            String::new()
        } else {
            format!(
                "; mean {mean_seconds:.3} s and {mean_nodes:.0} nodes a position, {:.2} M nodes/s",
                rate / 1e6
            )
        };
        format!(
            "{} position{} solved, {} mismatch{}, {} bad line{}{unfinished}{means}; {:.2} s in all\n",
            self.solved,
            if self.solved == 1 { "" } else { "s" },
            self.mismatches,
            if self.mismatches == 1 { "" } else { "es" },
            self.errors,
            if self.errors == 1 { "" } else { "s" },
            wall.as_secs_f64(),
        )
    }
}

/// Runs `kalah solve --batch FILE` (`-`: standard input).
pub(super) fn run(args: &Args, path: &Path) -> Result<()> {
    let rule_args = &args.target.rules;
    if rule_args.seeds.is_some() || rule_args.layout.is_some() {
        crate::output::usage_bail!(
            "--seeds and --layout set the start position; they cannot be used with --batch"
        );
    }
    let rules = rule_args.rules();
    // A directory that can hold no set is refused before the first line, not on each line.
    if let Some(d) = &args.target.search.egdb_dir {
        super::check_egdb_root(d)?;
    }
    // A line's position without a phase tag under an opening rule is noted once.
    let mut noted_opening_rules = false;
    let threads = crate::cmd::egdb::threads_for(args.threads);
    // One stop flag for every solver of the batch, its Ctrl-C handler installed before any
    // other (`solver_parts` tries to install its own; the first handler is kept). A Ctrl-C
    // while the batch waits for its next line (a pipe or a terminal) ends it at once.
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let shared = Arc::new(Shared {
        totals: Mutex::new(Totals::default()),
        waiting: AtomicBool::new(false),
    });
    {
        let ctrl_c = super::CtrlC::new(stop.clone());
        let shared = shared.clone();
        let json_out = args.json;
        let _ = crate::signals::on_stop(move |_| {
            let exit = ctrl_c.on_signal(Instant::now());
            if shared.waiting.load(Ordering::SeqCst) {
                let _ = shared.print_summary(json_out, start.elapsed(), true);
                std::process::exit(crate::signals::exit_code());
            }
            if exit {
                std::process::exit(crate::signals::exit_code());
            }
        });
    }
    // Opened once the handler is in place: opening a FIFO waits for its writer, and a Ctrl-C
    // then ends the batch as while it waits for a line (tester 73: the signal's default action
    // killed it without a word).
    let input: Box<dyn Read> = if path == Path::new("-") {
        Box::new(std::io::stdin())
    } else {
        shared.waiting.store(true, Ordering::SeqCst);
        let file = std::fs::File::open(path);
        shared.waiting.store(false, Ordering::SeqCst);
        let file = file.with_context(|| format!("cannot read --batch '{}'", path.display()))?;
        Box::new(file)
    };
    let mut input = BufReader::new(input);
    // The start of the input as it first comes (up to the reader's buffer), to tell UTF-16 and
    // UTF-32 text by; waiting for it is waiting for a line.
    shared.waiting.store(true, Ordering::SeqCst);
    let head = input.fill_buf().ok().map(<[u8]>::to_vec);
    shared.waiting.store(false, Ordering::SeqCst);
    let solving = Arc::new(Solving {
        listing: args.listing(),
        ..Solving::default()
    });
    // The progress display of the position being solved: a fresh (hidden) bar for each, as a
    // bar once finished draws nothing more.
    let bar = Arc::new(Mutex::new(ProgressBar::hidden()));
    let mut solvers: Vec<Current> = Vec::with_capacity(KEPT_SOLVERS);
    let mut egdbs: HashMap<usize, OpenedSet> = HashMap::new();
    let mut buf = Vec::new();
    let mut n = 0u64;
    // Lines that are not UTF-8 text so far (see [`MAX_NOT_TEXT`]).
    let mut not_text = 0u64;
    loop {
        if stop.load(Ordering::SeqCst) {
            shared.print_summary(args.json, start.elapsed(), true)?;
            std::process::exit(crate::signals::exit_code());
        }
        shared.waiting.store(true, Ordering::SeqCst);
        let read = read_line(&mut input, &mut buf, MAX_LINE, MAX_LINE);
        shared.waiting.store(false, Ordering::SeqCst);
        let read = read.with_context(|| format!("cannot read --batch '{}'", path.display()))?;
        if read == LineRead::End {
            break;
        }
        n += 1;
        solving.line.store(n, Ordering::Relaxed);
        if matches!(read, LineRead::TooLong | LineRead::Abandoned) {
            shared.print_summary(args.json, start.elapsed(), false)?;
            bail!(
                "--batch {}: line {n} is longer than {MAX_LINE} bytes (a position line is a few \
                 dozen): not a file of positions; the batch stopped there (the summary counts \
                 the lines before it{})",
                path.display(),
                if n == 1 { ": none" } else { "" }
            );
        }
        // A UTF-16 file (PowerShell's `>` writes one) is named as such, not read as lines of
        // NUL bytes that are no seed counts: judged by the file's start, not its first line
        // (tester 83: a blank or short first line hid it).
        if n == 1 {
            // (Or by its first line: a first read may hold a byte or two, tester 84.)
            if let Some(u) = head
                .as_deref()
                .and_then(WideText::detect)
                .or_else(|| WideText::detect(&buf))
            {
                shared.print_summary(args.json, start.elapsed(), false)?;
                bail!(
                    "--batch {}: the {} is {}, and positions are read as UTF-8 text: convert \
                     it, e.g. {}; the batch stopped at line 1",
                    path.display(),
                    if path == Path::new("-") {
                        "input"
                    } else {
                        "file"
                    },
                    u.describe(),
                    u.iconv()
                );
            }
        }
        // A UTF-8 byte-order mark (some Windows editors write one) opens the file, not a line.
        let text = if n == 1 {
            buf.strip_prefix(UTF8_BOM).unwrap_or(&buf)
        } else {
            &buf[..]
        };
        // A comment is skipped whatever its encoding (a Latin-1 note is not a bad line).
        if text.trim_ascii_start().starts_with(b"#") {
            continue;
        }
        let text = match std::str::from_utf8(text) {
            Ok(text) => text,
            Err(e) => {
                // A binary file gave one such line after another (11,734 for 3 MB of random
                // bytes): after a few, the file is taken for what it is.
                not_text += 1;
                if not_text == MAX_NOT_TEXT {
                    shared.print_summary(args.json, start.elapsed(), false)?;
                    bail!(
                        "--batch {}: line {n} is the {MAX_NOT_TEXT}th line that is not UTF-8 text: \
                         the file does not look like text (a file of positions); the batch \
                         stopped there (the summary counts the lines before it)",
                        path.display()
                    );
                }
                shared.bad_line(
                    args.json,
                    n,
                    &anyhow::Error::new(e).context("not UTF-8 text"),
                )?;
                continue;
            }
        };
        let entry = split_line(text).and_then(|e| match e {
            Some(e) => {
                let pos = rule_args.position_quiet(Some(&e.position))?;
                if !noted_opening_rules {
                    let what = format!("line {n}'s position");
                    if let Some(note) = opening_rules_note(&rules, &pos, &what, RulesNamed::Flags) {
                        stderr_line!("kalah: note: {note} (said once for the batch)");
                        noted_opening_rules = true;
                    }
                }
                Ok(Some((e, pos)))
            }
            None => Ok(None),
        });
        let (entry, pos) = match entry {
            Ok(Some(x)) => x,
            Ok(None) => continue,
            Err(e) => {
                shared.bad_line(args.json, n, &e)?;
                continue;
            }
        };
        *lock(&solving.root) = Some(pos);
        let cur = match solver_for(
            &mut solvers,
            &mut egdbs,
            args,
            &rules,
            &pos,
            &stop,
            &solving,
            &bar,
        ) {
            Ok(cur) => cur,
            // The board size's databases cannot be opened (a damaged set): every line of that
            // size is a bad line with the reason; the other lines are solved (tester 67: the
            // whole batch stopped, without its summary).
            Err(BatchSetup::Egdb(e)) => {
                shared.bad_line(args.json, n, &anyhow::anyhow!("{e}"))?;
                continue;
            }
            Err(BatchSetup::Other(e)) => return Err(e),
        };
        *lock(&bar) = ProgressBar::hidden();
        let t0 = Instant::now();
        cur.solver.set_limits(args.limits.position_limits());
        let solved = solving.listing.solve(&mut cur.solver, &pos, threads);
        lock(&bar).finish_and_clear();
        let (sol, best) = match solved {
            Ok(x) => x,
            Err(SolveError::Stopped {
                lower,
                upper,
                stats,
            }) => {
                // Given up at --time-ms or --nodes, the batch goes on (tester 81: one endless
                // line held the whole batch); stopped by a signal, it ends here.
                let limit = args.limits.limit_hit(t0);
                let secs = t0.elapsed().as_secs_f64();
                // An expected value the bounds already rule out is a mismatch, proven (tester
                // 83: it was not counted, nor shown in the text).
                let proven = entry.expected.and_then(|e| e.proven_by(lower, upper));
                let ruled_out = entry.expected.filter(|_| proven == Some(false));
                // The value proven (stopped while the best turns were listed) and as expected
                // (tester 84: "expected +14: not proven" after "the value is +14 (proven)"), or
                // an expected outcome the bounds prove.
                let agrees = proven == Some(true);
                if args.json {
                    let mut row = super::stop_json(
                        (&pos, &rules),
                        (lower, upper),
                        (stats.nodes, secs),
                        limit.as_ref(),
                    );
                    row["line"] = json!(n);
                    if let Some(v) = entry.expected {
                        row["expected"] = v.json();
                    }
                    if ruled_out.is_some() {
                        row["ok"] = json!(false);
                    } else if agrees {
                        row["ok"] = json!(true);
                    }
                    print(&format!("{row}\n"))?;
                } else {
                    let check = match (entry.expected, ruled_out) {
                        (Some(v), Some(_)) => format!("  expected {}: MISMATCH", v.text()),
                        (Some(v), None) if agrees => format!("  expected {}: ok", v.text()),
                        (Some(v), None) => format!("  expected {}: not proven", v.text()),
                        (None, _) => String::new(),
                    };
                    print(&format!(
                        "line {n}  {}  {} after {} nodes and {secs:.2} s: {}{check}\n",
                        pos,
                        super::stopped_by(limit.as_ref()),
                        stats.nodes,
                        super::bounds_text(&pos, &rules, lower, upper, solving.listing)
                    ))?;
                }
                // Counted as unfinished, stopped by a limit or by a signal (tester 102: the
                // summary after a Ctrl-C left it and its nodes out).
                {
                    let mut totals = lock(&shared.totals);
                    totals.unfinished += 1;
                    totals.unfinished_nodes += stats.nodes;
                    totals.mismatches += u64::from(ruled_out.is_some());
                }
                if limit.is_none() {
                    shared.print_summary(args.json, start.elapsed(), true)?;
                    std::process::exit(crate::signals::exit_code());
                }
                continue;
            }
        };
        let secs = t0.elapsed().as_secs_f64();
        if let Err(e) =
            super::check_best_turns(&cur.solver, &pos, sol.value, (best.as_deref(), &sol.pv))
        {
            shared.bad_line(args.json, n, &e)?;
            continue;
        }
        let mut totals = lock(&shared.totals);
        totals.solved += 1;
        totals.nodes += sol.stats.nodes;
        totals.seconds += secs;
        let ok = entry.expected.map(|v| v.holds(sol.value));
        if ok == Some(false) {
            totals.mismatches += 1;
        }
        let best: Option<Vec<String>> =
            best.map(|best| best.iter().map(ToString::to_string).collect());
        if args.json {
            let mut row = json!({
                "line": n,
                "position": pos.to_string(),
                "rules": rules.to_string(),
                "value": sol.value,
                "pv": turns_text(&pos, &rules, &sol.pv),
                "nodes": sol.stats.nodes,
                "tt_hits": sol.stats.tt_hits,
                "seconds": json_seconds(secs),
            });
            if let Some(best) = &best {
                row["best"] = json!(best);
            }
            if let Some(v) = entry.expected {
                row["expected"] = v.json();
                row["ok"] = json!(v.holds(sol.value));
            }
            print(&format!("{row}\n"))?;
        } else {
            let check = match entry.expected {
                None => String::new(),
                Some(v) if v.holds(sol.value) => format!("  expected {}: ok", v.text()),
                Some(v) => format!("  expected {}: MISMATCH", v.text()),
            };
            // Without the list (--no-best), the principal variation's first turn.
            let best = match best {
                None => format!(
                    "pv {}",
                    turns_text(&pos, &rules, &sol.pv)
                        .split(' ')
                        .next()
                        .filter(|t| !t.is_empty())
                        .unwrap_or("-")
                ),
                Some(best) if best.is_empty() => "best -".to_string(),
                Some(best) => format!("best {}", best.join(" ")),
            };
            print(&format!(
                "line {n}  {}  value {:+}  {best}  nodes {}  {secs:.3} s{check}\n",
                pos, sol.value, sol.stats.nodes,
            ))?;
        }
    }
    let wall = start.elapsed();
    for db in egdbs.values().flatten() {
        super::warn_if_damaged(db.as_deref());
    }
    shared.print_summary(args.json, wall, false)?;
    let totals = lock(&shared.totals);
    let differ = |m: u64| {
        if m == 1 {
            "1 value differs from the expected one".to_string()
        } else {
            format!("{m} values differ from the expected ones")
        }
    };
    let unread = |e: u64| {
        if e == 1 {
            "1 line could not be read or solved".to_string()
        } else {
            format!("{e} lines could not be read or solved")
        }
    };
    let mut failed = Vec::new();
    if totals.mismatches > 0 {
        failed.push(differ(totals.mismatches));
    }
    if totals.errors > 0 {
        failed.push(unread(totals.errors));
    }
    if totals.unfinished > 0 {
        let u = totals.unfinished;
        failed.push(format!(
            "{u} position{} not solved within {}",
            if u == 1 { " was" } else { "s were" },
            args.limits
                .limit_flags()
                .into_iter()
                .flatten()
                .map(|(_, flag)| flag)
                .collect::<Vec<_>>()
                .join(" and ")
        ));
    }
    if totals.solved + totals.errors + totals.unfinished == 0 {
        // Not an error (a program may feed no position), but said: a wrong or empty file
        // would go unnoticed (tester 106).
        let what = if path == Path::new("-") {
            "the standard input".to_string()
        } else {
            format!("'{}'", path.display())
        };
        stderr_line!(
            "kalah: note: {what} held no position (only blank lines and comments, or nothing)"
        );
    }
    match failed.split_last() {
        None => Ok(()),
        Some((last, [])) => bail!("{last}"),
        Some((last, rest)) => bail!("{} and {last}", rest.join(", ")),
    }
}

/// Most solvers a batch keeps, one a board size, the least recently used dropped first: lines
/// alternating two board sizes keep each size's table (and its entries) instead of making a new
/// one at every change.
const KEPT_SOLVERS: usize = 2;

/// The solver for `pos`, kept in `solvers` (least recently used first, at most
/// [`KEPT_SOLVERS`]): the one for its board size if its table is at least the size `kalah solve`
/// would take for `pos`; otherwise a new one (the databases are opened once a board size). The
/// solver of another board size is kept beside it only while both tables together take at most
/// half the machine's memory (the most one default table takes).
#[allow(clippy::too_many_arguments)]
fn solver_for<'a>(
    solvers: &'a mut Vec<Current>,
    egdbs: &mut HashMap<usize, OpenedSet>,
    args: &Args,
    rules: &Rules,
    pos: &Position,
    stop: &Arc<AtomicBool>,
    solving: &Arc<Solving>,
    bar: &Arc<Mutex<ProgressBar>>,
) -> std::result::Result<&'a mut Current, BatchSetup> {
    let search = &args.target.search;
    let houses = pos.houses();
    // What the kept tables may take together.
    let budget = || kalah_solver::memory_mib().map_or(usize::MAX, |m| (m / 2).max(1));
    if let Some(i) = solvers.iter().position(|c| c.houses == houses) {
        // The most recently used last.
        let cur = solvers.remove(i);
        solvers.push(cur);
        let last = solvers.len() - 1;
        let mut fresh = false;
        if search.tt_mb.is_none() {
            let top = solvers[last].parts.egdb.as_ref().map(|db| db.max_seeds());
            let wanted = default_tt_for(rules, pos, top, &args.limits);
            // With --fresh-table, the very table `kalah solve` takes for the position alone: a
            // larger one would change its node count too.
            let resize = if args.fresh_table {
                wanted != solvers[last].parts.tt_mb
            } else {
                wanted > solvers[last].parts.tt_mb
            };
            if resize {
                fresh = true;
                let others: usize = solvers[..last].iter().map(|c| c.parts.tt_mb).sum();
                if others + wanted > budget() {
                    solvers.drain(..last);
                }
                let cur = solvers.last_mut().expect("kept above");
                // Drop the old table first: both at once could exceed the memory.
                cur.solver = Solver::new(*rules, 1);
                cur.parts.tt_mb = wanted;
                cur.solver = with_progress(cur.parts.solver(rules, wanted), solving, bar);
            }
        }
        let cur = solvers.last_mut().expect("kept above");
        if args.fresh_table && !fresh {
            cur.solver.clear_table();
        }
        return Ok(cur);
    }
    // The databases of a board size are opened (and their notes printed) once a batch.
    let egdb = match egdbs.get(&houses) {
        Some(Err(e)) => return Err(BatchSetup::Egdb(e.clone())),
        Some(Ok(db)) => db.clone(),
        None => {
            let egdb = if search.no_egdb {
                None
            } else {
                match super::open_egdb(search, houses, rules) {
                    Ok(db) => db.map(Arc::new),
                    Err(e) => {
                        let e = crate::output::error_line(&e);
                        egdbs.insert(houses, Err(e.clone()));
                        return Err(BatchSetup::Egdb(e));
                    }
                }
            };
            egdbs.insert(houses, Ok(egdb.clone()));
            egdb
        }
    };
    let top = egdb.as_ref().map(|d| d.max_seeds());
    let parts = SolverParts {
        egdb,
        tt_mb: search
            .tt_mb
            .unwrap_or_else(|| default_tt_for(rules, pos, top, &args.limits)),
        small_egdb_table: false,
        stop: stop.clone(),
    };
    // Free the tables to drop before allocating the new one.
    while solvers.len() >= KEPT_SOLVERS {
        solvers.remove(0);
    }
    if !solvers.is_empty()
        && solvers.iter().map(|c| c.parts.tt_mb).sum::<usize>() + parts.tt_mb > budget()
    {
        solvers.clear();
    }
    solvers.push(Current {
        houses,
        solver: with_progress(parts.solver(rules, parts.tt_mb), solving, bar),
        parts,
    });
    Ok(solvers.last_mut().expect("pushed above"))
}

/// A board size's endgame databases as opened for the batch: the set (or none), or why it
/// cannot be opened (the message, the same for every line of that size).
type OpenedSet = std::result::Result<Option<Arc<Egdb>>, String>;

/// Why [`solver_for`] has no solver for a line.
enum BatchSetup {
    /// The line's board size has databases that cannot be opened: a bad line.
    Egdb(String),
    /// Anything else ends the batch.
    Other(anyhow::Error),
}

impl From<anyhow::Error> for BatchSetup {
    fn from(e: anyhow::Error) -> Self {
        BatchSetup::Other(e)
    }
}

/// `solver` with a progress display on stderr for positions that take over a second, naming
/// the batch line.
fn with_progress(
    mut solver: Solver,
    solving: &Arc<Solving>,
    bar: &Arc<Mutex<ProgressBar>>,
) -> Solver {
    let solving = solving.clone();
    let bar = bar.clone();
    let rules = *solver.rules();
    solver.set_progress(move |p: &Progress| {
        if p.elapsed < Duration::from_secs(1) {
            return;
        }
        let what = format!("line {}", solving.line.load(Ordering::Relaxed));
        let root = *lock(&solving.root);
        let root = root.as_ref().map(|pos| (pos, &rules, solving.listing));
        show_progress(&lock(&bar), progress_message(&what, p, root));
    });
    solver
}

/// The line being solved and its position, for the progress line.
#[derive(Default)]
struct Solving {
    line: AtomicU64,
    root: Mutex<Option<Position>>,
    /// What follows each value.
    listing: Listing,
}

/// A lock on `m`, even if a thread panicked holding it (the bar and the totals stay usable).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(position: &str, expected: Option<i32>) -> Option<Entry> {
        Some(Entry {
            position: position.to_string(),
            expected: expected.map(Expected::Value),
        })
    }

    #[test]
    fn an_expected_outcome_is_a_letter_or_a_word() {
        let start = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S";
        for (word, o) in [
            ("W", Outcome::Win),
            ("w", Outcome::Win),
            ("win", Outcome::Win),
            ("D", Outcome::Draw),
            ("Draw", Outcome::Draw),
            ("L", Outcome::Loss),
            ("LOSS", Outcome::Loss),
        ] {
            assert_eq!(
                split_line(&format!("{start} {word}")).unwrap(),
                Some(Entry {
                    position: start.to_string(),
                    expected: Some(Expected::Outcome(o)),
                }),
                "{word}"
            );
        }
        // After a phase tag too.
        assert_eq!(
            split_line("4,4,4,4,4,4,0,4,4,4,4,4,4,0 N pie L").unwrap(),
            Some(Entry {
                position: "4,4,4,4,4,4,0,4,4,4,4,4,4,0 N pie".to_string(),
                expected: Some(Expected::Outcome(Outcome::Loss)),
            })
        );
        let e = split_line(&format!("{start} W extra"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unexpected 'extra' after the expected value 'W'"),
            "{e}"
        );
        // What bounds prove.
        let w = Expected::Outcome(Outcome::Win);
        assert_eq!(w.proven_by(2, 10), Some(true));
        assert_eq!(w.proven_by(-4, 0), Some(false));
        assert_eq!(w.proven_by(0, 6), None);
        let d = Expected::Outcome(Outcome::Draw);
        assert_eq!(d.proven_by(0, 0), Some(true));
        assert_eq!(d.proven_by(2, 6), Some(false));
        assert_eq!(d.proven_by(-2, 2), None);
        let v = Expected::Value(8);
        assert_eq!(v.proven_by(8, 8), Some(true));
        assert_eq!(v.proven_by(-2, 6), Some(false));
        assert_eq!(v.proven_by(6, 10), None);
        assert_eq!(v.text(), "+8");
        assert_eq!(Expected::Outcome(Outcome::Loss).text(), "L");
    }

    #[test]
    fn batch_lines_split_into_position_and_expected_value() {
        let start = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S";
        assert_eq!(split_line(start).unwrap(), entry(start, None));
        assert_eq!(
            split_line(&format!("  {start} +8 \r\n")).unwrap(),
            entry(start, Some(8))
        );
        assert_eq!(
            split_line(&format!("{start}\t-2")).unwrap(),
            entry(start, Some(-2))
        );
        assert_eq!(
            split_line(&format!("{start} 0")).unwrap(),
            entry(start, Some(0))
        );
        // A phase tag stays part of the position.
        assert_eq!(
            split_line("4,4,4,4,4,4,0,4,4,4,4,4,4,0 N pie 3").unwrap(),
            entry("4,4,4,4,4,4,0,4,4,4,4,4,4,0 N pie", Some(3))
        );
        // Blank lines and comments.
        assert_eq!(split_line("").unwrap(), None);
        assert_eq!(split_line("   \n").unwrap(), None);
        assert_eq!(split_line("# Kalah(6,4) openings").unwrap(), None);
        // A position without a side (a finished game without seeds, as `solve` writes it),
        // then its value (regression: '+0' was read as the side).
        assert_eq!(
            split_line("0,0,0,0,0,0 +0").unwrap(),
            entry("0,0,0,0,0,0", Some(0))
        );
        // Counts written after a comma and a space are the position's, not a value.
        assert_eq!(
            split_line("4, 4, 0, 4, 4, 0").unwrap(),
            entry("4, 4, 0, 4, 4, 0", None)
        );
        assert_eq!(
            split_line("4, 4, 0, 4, 4, 0 S -2").unwrap(),
            entry("4, 4, 0, 4, 4, 0 S", Some(-2))
        );
        // A word after the position that is neither a value nor a tag: both are named.
        for bad in ["six", "x8", "pies"] {
            let e = split_line(&format!("{start} {bad}"))
                .unwrap_err()
                .to_string();
            assert_eq!(
                e,
                format!("unexpected '{bad}' after the position: an expected value is a whole number from -255 to +255 (or W, D or L), and after the side only 'opening', 'first-turn' or 'pie' may follow")
            );
        }
        // A phase tag the position refuses stays the position's fault (tester 12).
        assert_eq!(
            split_line("2,2,2,0,2,2,2,0 S pie").unwrap(),
            entry("2,2,2,0,2,2,2,0 S pie", None)
        );
        // A phase tag after the side is the position's.
        assert_eq!(
            split_line("4,4,4,4,4,4,0,4,4,4,4,4,4,0 N pie").unwrap(),
            entry("4,4,4,4,4,4,0,4,4,4,4,4,4,0 N pie", None)
        );
        // A bad position stays the position's fault.
        assert_eq!(split_line("4,4,x S").unwrap(), entry("4,4,x S", None));
        // One word: the position (its parser names any fault).
        assert_eq!(split_line("8").unwrap(), entry("8", None));
        // Bad expected values.
        for bad in ["+8x", "300", "-256", "1e3", "+"] {
            let e = split_line(&format!("{start} {bad}"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(bad) && e.contains("whole number"), "{bad}: {e}");
        }
        // Words after the expected value: the first is named (not the value).
        for (tail, word, value) in [
            ("+6 extra", "extra", "+6"),
            ("+6 a b", "a", "+6"),
            ("+6 +6", "+6", "+6"),
            ("6 # note", "#", "6"),
        ] {
            let e = split_line(&format!("{start} {tail}"))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!(
                    "unexpected '{word}' after the expected value '{value}'"
                )),
                "{tail}: {e}"
            );
        }
        // Not when the 'value' is one of the counts written after a comma and a space.
        assert_eq!(
            split_line("4, 4, 0, 4, 4, -0 S").unwrap(),
            entry("4, 4, 0, 4, 4, -0 S", None)
        );
    }
}
