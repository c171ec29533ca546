//! `kalah review`: every whole turn of a saved game valued against the best turn of its
//! position, the mistakes, and where the game's result changed hands.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use kalah_core::{GameRecord, Position, Side, Turn};
use kalah_solver::review::{review_game, PlayerSummary, TurnReview, Valued};
use kalah_solver::Progress;
use serde_json::json;

use crate::cmd::egdb::{parse_threads, threads_for};
use crate::cmd::solve::{make_solver, show_progress, Limits, SearchArgs};
use crate::output::{plural, print};

/// Arguments of `kalah review`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game record to review: a file in the text or JSON form, as `kalah play --save` and
    /// `save` write it (its rules, start and turns are used).
    #[arg(value_name = "RECORD")]
    pub record: PathBuf,
    /// Print JSON: {"rules", "start", "south", "north", "turns": [{"turn", "side", "player",
    /// "position", "played", "value", "best", "best_value", "loss", ...}], "players", "complete",
    /// "nodes", "seconds"}.
    #[arg(long)]
    pub json: bool,
    /// Write the game again to FILE with a `# [kalah review]` comment after each turn (its
    /// value, and for a mistake a best turn and the seeds lost), keeping the record's own tags
    /// and comments; the JSON form if FILE ends in .json or holds a JSON record. FILE may be
    /// new, empty, or a record of this same game (RECORD itself, or an earlier annotation, whose
    /// review comments are replaced); anything else is refused before the review. It is written
    /// through a temporary file renamed into place, and not at all if the review is stopped.
    #[arg(long, value_name = "FILE")]
    pub annotate: Option<PathBuf>,
    /// Threads, 1 to 256 [default: every core]: each position's search is shared among them,
    /// as `kalah solve --threads` shares it.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub limits: Limits,
}

/// Runs `kalah review`. Values are final store differences with perfect play, from the view of
/// the side that played each turn.
///
/// # Errors
/// A record that cannot be read or does not replay; a position not solved within --time-ms or
/// --nodes (after the review is printed: exit code 1); an annotated record that cannot be
/// written.
pub fn run(args: Args) -> Result<()> {
    let (record, _) = crate::cmd::play::load_record(&args.record)?;
    let rules = record.rules;
    let turns: Vec<Turn> = record.turns().into_iter().map(|t| t.turn).collect();
    let mut start = record.start;
    start.settle(&rules);
    // Nothing to search (tester 116: a record without a turn said so, then solved its start
    // position, without end on Kalah(6,4)).
    if turns.is_empty() {
        if args.json {
            let v = review_json(&record, &start, &[], true, (0, 0.0));
            return print(&format!("{v}\n"));
        }
        return print(&review_text(
            &record,
            &start,
            &turns,
            &[],
            (0, 0.0),
            "nothing to review",
        ));
    }
    let threads = threads_for(args.threads);
    // Checked before a review that may take long; `None` without --annotate.
    let target = match &args.annotate {
        Some(path) => Some(AnnotationTarget::check(path, &record)?),
        None => None,
    };
    let (mut solver, bar) = make_solver(
        &args.search,
        &rules,
        &start,
        &args.limits,
        "reviewing",
        None,
    )?;
    // The progress line names the position being searched, counted from the game's end.
    let at = Arc::new(AtomicUsize::new(0));
    let total = Arc::new(AtomicUsize::new(0));
    {
        let (at, total, shown) = (Arc::clone(&at), Arc::clone(&total), bar.clone());
        solver.set_progress(move |p: &Progress| {
            if p.elapsed >= Duration::from_secs(1) {
                show_progress(&shown, progress_message(&at, &total, p));
            }
        });
    }
    let started = Instant::now();
    let limits = &args.limits;
    let reviews = review_game(
        &mut solver,
        &start,
        &turns,
        threads,
        || limits.position_limits(),
        |done, all| {
            at.store(done + 1, Ordering::Relaxed);
            total.store(all, Ordering::Relaxed);
            !crate::signals::received()
        },
    )
    .map_err(|(k, why)| anyhow::anyhow!("turn {k} of the record does not play: {why}"))?;
    let (reviews, nodes) = (reviews.turns, reviews.nodes);
    bar.finish_and_clear();
    crate::cmd::solve::warn_if_damaged(solver.egdb().map(|db| &**db));
    let secs = started.elapsed().as_secs_f64();
    let interrupted = crate::signals::received();
    let complete = reviews.len() == turns.len() && !interrupted;
    if args.json {
        let mut v = review_json(&record, &start, &reviews, complete, (nodes, secs));
        if interrupted {
            v["stopped"] = json!(true);
            v["signal"] = json!(crate::signals::signal_name());
        }
        print(&format!("{v}\n"))?;
    } else {
        print(&review_text(
            &record,
            &start,
            &turns,
            &reviews,
            (nodes, secs),
            "the review was stopped",
        ))?;
    }
    if interrupted {
        if !args.json {
            stderr_line!(
                "kalah: {}: the review covers the last {} of {} turns",
                crate::signals::stopped_by(),
                reviews.len(),
                turns.len()
            );
        }
        if let Some(t) = &target {
            // A part of a review would replace a whole one's comments: the file is left as it
            // was.
            stderr_line!(
                "kalah: '{}' was not written: the review was stopped",
                t.path.display()
            );
        }
        std::process::exit(crate::signals::exit_code());
    }
    // Written once the review is printed, so that a write that fails loses nothing of it.
    if let Some(t) = &target {
        t.write(&annotated(&record, &reviews))?;
    }
    let unproven = reviews
        .iter()
        .filter(|r| r.best_value.exact().is_none())
        .count();
    if unproven > 0 {
        let flags: Vec<String> = limits
            .limit_flags()
            .into_iter()
            .flatten()
            .map(|f| f.1)
            .collect();
        bail!(
            "{} of {} positions were not solved within {}",
            unproven,
            reviews.len(),
            flags.join(" and ")
        );
    }
    Ok(())
}

/// Where `--annotate` writes, checked before the review (which may take long): a new file, an
/// empty one, or a record of this very game (the record itself, or an earlier annotation of
/// it), in a directory the user may write. Anything else is refused, as `kalah play`'s `save`
/// refuses to replace notes or another game.
struct AnnotationTarget {
    path: PathBuf,
    /// What the file held when checked (`None`: it did not exist): it must still hold that
    /// when written, or someone changed it meanwhile.
    held: Option<Vec<u8>>,
    /// Write the JSON form: the name ends in `.json`, or the file holds a JSON record.
    json: bool,
}

impl AnnotationTarget {
    /// Checks `path` for the annotation of `record`.
    ///
    /// # Errors
    /// A directory, a missing directory, a device or pipe, a file that is not a record of this
    /// game, or a file or directory the user may not write.
    fn check(path: &std::path::Path, record: &GameRecord) -> Result<AnnotationTarget> {
        let name = path.display();
        let refuse = |why: &str| -> Result<AnnotationTarget> {
            bail!("cannot write the annotated game to '{name}': {why}")
        };
        if path.is_dir() {
            return refuse("it is a directory");
        }
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        if !parent.is_dir() {
            return refuse(&format!("there is no directory '{}'", parent.display()));
        }
        let mut json = crate::cmd::play::wants_json(path);
        let held = match std::fs::metadata(path) {
            Err(_) => None,
            Ok(m) if !m.is_file() => {
                return refuse("it is not a regular file (a device, a pipe or a socket)")
            }
            Ok(_) => {
                let bytes = crate::cmd::play::read_regular(path)
                    .with_context(|| format!("cannot read '{name}'"))?;
                if !bytes.is_empty() {
                    let text = std::str::from_utf8(&bytes).ok();
                    match text.map(|t| (GameRecord::parse(t), GameRecord::is_json_form(t))) {
                        None | Some((Err(_), _)) => {
                            return refuse(
                                "it exists and does not hold a game record, so it is not \
                                 replaced: name another file (or delete it first)",
                            )
                        }
                        Some((Ok(other), other_json)) => {
                            if other.rules != record.rules
                                || other.start != record.start
                                || other.moves() != record.moves()
                            {
                                return refuse(
                                    "it holds another game, so it is not replaced: name another \
                                     file (or delete it first)",
                                );
                            }
                            json |= other_json;
                        }
                    }
                }
                Some(bytes)
            }
        };
        if let Some(why) = not_writable(path, parent, held.is_some()) {
            return refuse(&why);
        }
        Ok(AnnotationTarget {
            path: path.to_path_buf(),
            held,
            json,
        })
    }

    /// Writes `record` (through a temporary file, then a rename), unless the file changed since
    /// it was checked.
    ///
    /// # Errors
    /// The file changed meanwhile, or the write failed.
    fn write(&self, record: &GameRecord) -> Result<()> {
        let name = self.path.display();
        let now = crate::cmd::play::read_regular(&self.path).ok();
        if now != self.held {
            bail!(
                "'{name}' was not written: it changed while the review ran (another program or \
                 an editor wrote it); review again to annotate it"
            );
        }
        let text = if self.json {
            record.to_json()
        } else {
            record.to_text()
        };
        crate::cmd::play::save_atomically(&self.path, &text)
            .with_context(|| format!("cannot write the annotated game to '{name}'"))?;
        stderr_line!("kalah: the annotated game is in '{name}'");
        Ok(())
    }
}

/// Why the user may not write `path` (which exists if `exists`) in `parent`, or `None`: the
/// replacement is a new file renamed over it, so the directory must be writable, and an
/// existing file too (as `kalah play`'s `save` requires).
fn not_writable(path: &std::path::Path, parent: &std::path::Path, exists: bool) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let access = |p: &std::path::Path, mode: libc::c_int| -> bool {
            let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else {
                return false;
            };
            // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
            unsafe { libc::access(c.as_ptr(), mode) == 0 }
        };
        if exists && !access(path, libc::W_OK) {
            return Some("you may not write it".into());
        }
        if !access(parent, libc::W_OK | libc::X_OK) {
            return Some(format!(
                "you may not write in its directory '{}'",
                parent.display()
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = (path, parent, exists);
    None
}

/// What opens every comment `--annotate` writes, so that a later review replaces these and
/// only these (a comment of the record's own that says "review:" is kept).
const ANNOTATION_MARK: &str = "[kalah review]";

/// The progress line: `reviewing position 3 of 41 (from the game's end): 4853760 nodes, 1.9 M
/// nodes/s (Ctrl-C stops)`.
fn progress_message(at: &AtomicUsize, total: &AtomicUsize, p: &Progress) -> String {
    format!(
        "reviewing position {} of {} (from the game's end): {} nodes, {:.1} M nodes/s (Ctrl-C stops)",
        at.load(Ordering::Relaxed),
        total.load(Ordering::Relaxed),
        p.nodes,
        p.nodes_per_second / 1e6
    )
}

/// The turn played as records write it: `3-6`, or `3-` for an unfinished last turn.
fn played_text(r: &TurnReview) -> String {
    if r.open {
        format!("{}-", r.turn)
    } else {
        r.turn.to_string()
    }
}

/// `v` as text: `+8`, or `+4..+8` when only bounded.
fn valued_text(v: Valued) -> String {
    match v {
        Valued::Exact(v) => format!("{v:+}"),
        Valued::Between(lo, hi) => format!("{lo:+}..{hi:+}"),
    }
}

/// The player who began as `side`, by name: `South (alice)`, or `South` without a name.
fn player_name(record: &GameRecord, side: Side) -> String {
    let name = match side {
        Side::South => &record.south,
        Side::North => &record.north,
    };
    if name.is_empty() {
        side.to_string()
    } else {
        format!("{side} ({name})")
    }
}

/// What one turn's review says after its value: `=` for a best turn; else a best turn with
/// its value (`4 (+8)`; `? (+4..+8)` when the position was not solved), the seeds lost (`2`;
/// `>=2` or `?` when not proven) and a change of the result (`win -> draw`).
fn verdict(r: &TurnReview) -> (String, String, String) {
    match r.loss() {
        Some(0) => ("=".into(), String::new(), String::new()),
        Some(loss) => (
            format!(
                "{} ({})",
                r.best_turn
                    .as_ref()
                    .map_or("?".to_string(), Turn::to_string),
                valued_text(r.best_value)
            ),
            loss.to_string(),
            r.outcome_change().map_or(String::new(), |(a, b)| {
                format!("{} -> {}", a.name(), b.name())
            }),
        ),
        None => {
            let least = r.least_loss();
            (
                format!("? ({})", valued_text(r.best_value)),
                if least > 0 {
                    format!(">={least}")
                } else {
                    "?".into()
                },
                String::new(),
            )
        }
    }
}

/// The review as text: a table of the turns, then each player's mistakes and the result.
/// `why_short`: why turns were left out, when `reviews` does not hold them all (`the review was
/// stopped`).
pub(crate) fn review_text(
    record: &GameRecord,
    start: &Position,
    turns: &[Turn],
    reviews: &[TurnReview],
    (nodes, secs): (u64, f64),
    why_short: &str,
) -> String {
    let mut s = format!(
        "game: {} against {}, {}\nstart: {start}\nrules: {}\n",
        player_name(record, Side::South),
        player_name(record, Side::North),
        plural(turns.len() as u64, "turn", "turns"),
        record.rules
    );
    if turns.is_empty() {
        s.push_str("nothing to review: the record has no turn\n");
        return s;
    }
    if reviews.is_empty() {
        s.push_str(&format!("no turn reviewed: {why_short}\n"));
        return s;
    }
    s.push_str(
        "values: final store difference with perfect play, for the side that played the turn; \
         '=' marks a best turn\n",
    );
    let rows: Vec<[String; 7]> = reviews
        .iter()
        .map(|r| {
            let (best, lost, change) = verdict(r);
            [
                r.number.to_string(),
                r.before.side().letter().to_string(),
                played_text(r),
                valued_text(r.played_value),
                best,
                lost,
                change,
            ]
        })
        .collect();
    let head = [
        "turn",
        "side",
        "played",
        "value",
        "best (value)",
        "lost",
        "",
    ];
    let width: Vec<usize> = (0..7)
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain([head[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; 7]| {
        let mut l = format!(
            "{:>w0$}  {:<w1$}  {:<w2$}  {:>w3$}  {:<w4$}  {:>w5$}  {}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            cells[5],
            cells[6],
            w0 = width[0],
            w1 = width[1],
            w2 = width[2],
            w3 = width[3],
            w4 = width[4],
            w5 = width[5],
        );
        l.truncate(l.trim_end().len());
        l.push('\n');
        l
    };
    s.push_str(&line(head));
    for r in &rows {
        s.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &r[6]]));
    }
    if let Some(k) = turns
        .iter()
        .position(|t| t.moves() == [kalah_core::Move::Swap])
    {
        s.push_str(&format!(
            "after the swap at turn {}, the player who began as {} plays South, and the one \
             who began as {} plays North\n",
            k + 1,
            player_name(record, Side::North),
            player_name(record, Side::South)
        ));
    }
    if reviews.len() < turns.len() {
        let missing = turns.len() - reviews.len();
        let which = if missing == 1 {
            "turn 1".to_string()
        } else {
            format!("turns 1 to {missing}")
        };
        s.push_str(&format!("({which} not reviewed: {why_short})\n"));
    }
    for side in [Side::South, Side::North] {
        s.push_str(&player_summary(record, reviews, side));
    }
    if reviews[0].number == 1 {
        if let Valued::Exact(v) = reviews[0].best_value {
            s.push_str(&format!(
                "with perfect play from the start: {}\n",
                outcome_words(reviews[0].before.side(), v)
            ));
        }
    }
    let end = record.position();
    if end.is_over() {
        s.push_str(&format!(
            "the game: South {}, North {}\n",
            end.store(Side::South),
            end.store(Side::North)
        ));
    }
    s.push_str(&format!("({nodes} nodes, {secs:.3} s)\n"));
    s
}

/// `South wins by 8`, `North wins by 2` or `a draw`, for a value `v` from `side`'s view.
fn outcome_words(side: Side, v: i32) -> String {
    match v.signum() {
        0 => "a draw".to_string(),
        1 => format!("{side} wins by {v}"),
        _ => format!("{} wins by {}", side.opposite(), -v),
    }
}

/// One player's line: `South (alice): 20 turns, 3 mistakes, 8 seeds lost; the result changed
/// at turn 17 (win -> draw)`.
fn player_summary(record: &GameRecord, reviews: &[TurnReview], side: Side) -> String {
    let sum = PlayerSummary::of(reviews, side);
    let mut s = format!(
        "{}: {}, {}",
        player_name(record, side),
        plural(sum.turns as u64, "turn", "turns"),
        plural(sum.mistakes as u64, "mistake", "mistakes"),
    );
    if sum.loss > 0 {
        s.push_str(&format!(
            ", {}",
            plural(sum.loss as u64, "seed lost", "seeds lost")
        ));
    }
    if sum.unproven > 0 {
        s.push_str(&format!(", {} not proven", sum.unproven));
    }
    let changes: Vec<String> = reviews
        .iter()
        .filter(|r| r.player == side)
        .filter_map(|r| {
            r.outcome_change()
                .map(|(a, b)| format!("turn {} ({} -> {})", r.number, a.name(), b.name()))
        })
        .collect();
    if !changes.is_empty() {
        s.push_str(&format!("; the result changed at {}", changes.join(", ")));
    }
    s.push('\n');
    s
}

/// The review as JSON (see [`Args::json`]).
fn review_json(
    record: &GameRecord,
    start: &Position,
    reviews: &[TurnReview],
    complete: bool,
    (nodes, secs): (u64, f64),
) -> serde_json::Value {
    let summary = |side: Side| PlayerSummary::of(reviews, side);
    json!({
        "rules": record.rules.to_string(),
        "start": start.to_string(),
        "south": record.south,
        "north": record.north,
        "turns": reviews,
        "players": {"south": summary(Side::South), "north": summary(Side::North)},
        "complete": complete,
        "nodes": nodes,
        "seconds": crate::output::json_seconds(secs),
    })
}

/// `record` with a `# [kalah review]` comment after each reviewed turn (replacing those of an
/// earlier review): ` [kalah review] S 3-6 +8 =` for a best turn, ` [kalah review] N 1 -10; best
/// 4 (-8), 2 lost, draw -> loss` for a mistake.
fn annotated(record: &GameRecord, reviews: &[TurnReview]) -> GameRecord {
    let mut out = record.clone();
    // An earlier review's comments give way to this one's.
    out.comments
        .retain(|c| !c.1.trim_start().starts_with(ANNOTATION_MARK));
    if let Some(first) = reviews.first().filter(|r| r.number == 1) {
        if let Valued::Exact(v) = first.best_value {
            out.comments.push((
                0,
                format!(
                    " {ANNOTATION_MARK} values with perfect play for the side that played each turn; from \
                     the start, {}",
                    outcome_words(first.before.side(), v)
                ),
            ));
        }
    }
    for r in reviews {
        let side = r.before.side().letter();
        let played = played_text(r);
        let value = valued_text(r.played_value);
        let text = match r.loss() {
            Some(0) => format!(" {ANNOTATION_MARK} {side} {played} {value} ="),
            _ => {
                let (best, lost, change) = verdict(r);
                let change = if change.is_empty() {
                    String::new()
                } else {
                    format!(", {change}")
                };
                format!(
                    " {ANNOTATION_MARK} {side} {played} {value}; best {best}, {lost} lost{change}"
                )
            }
        };
        out.comments.push((r.number, text));
    }
    // Each comment after its turn, the record's own first: a stable sort keeps their order.
    out.comments.sort_by_key(|c| c.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_solver::{SearchLimits, Solver};

    /// The text of a review that lacks its first `missing` turns, as a stopped one does.
    fn text_without_first(record_text: &str, missing: usize) -> String {
        let record = GameRecord::parse(record_text).unwrap();
        let turns: Vec<Turn> = record.turns().into_iter().map(|t| t.turn).collect();
        let mut solver = Solver::new(record.rules, 1);
        let review = review_game(
            &mut solver,
            &record.start,
            &turns,
            1,
            SearchLimits::default,
            |_, _| true,
        )
        .unwrap();
        assert_eq!(review.turns.len(), turns.len());
        review_text(
            &record,
            &record.start,
            &turns,
            &review.turns[missing..],
            (review.nodes, 0.0),
            "the review was stopped",
        )
    }

    #[test]
    fn the_turns_left_out_are_named_in_the_singular_for_one() {
        let game = "[Start \"3,3,3,0,3,3,3,0 S\"]\n\n1. S 2\n2. N 2\n3. S 3\n";
        let one = text_without_first(game, 1);
        assert!(
            one.contains("(turn 1 not reviewed: the review was stopped)\n"),
            "{one}"
        );
        let two = text_without_first(game, 2);
        assert!(
            two.contains("(turns 1 to 2 not reviewed: the review was stopped)\n"),
            "{two}"
        );
        let none = text_without_first(game, 0);
        assert!(!none.contains("not reviewed"), "{none}");
    }
}
