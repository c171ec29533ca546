//! Writing to stdout without panicking on a closed pipe; where progress bars are drawn.

use std::io::Write;

use anyhow::Result;

/// Where every progress bar and progress line is drawn: stderr, which indicatif draws on only
/// when it is a terminal; hidden on a dumb terminal (`TERM=dumb`, as in Emacs' `M-x shell`),
/// which cannot take the carriage returns and line-clearing escapes a redrawn line is made of
/// (as cargo leaves out its progress bar there).
pub(crate) fn progress_target() -> indicatif::ProgressDrawTarget {
    if dumb_terminal() {
        indicatif::ProgressDrawTarget::hidden()
    } else {
        indicatif::ProgressDrawTarget::stderr()
    }
}

/// Whether the terminal is a dumb one (`TERM=dumb`): no line is redrawn there.
pub(crate) fn dumb_terminal() -> bool {
    std::env::var_os("TERM").is_some_and(|t| t == "dumb")
}

/// A progress bar of `len` steps on [`progress_target`].
pub(crate) fn progress_bar(len: u64) -> indicatif::ProgressBar {
    indicatif::ProgressBar::with_draw_target(Some(len), progress_target())
}

/// `x` rounded to the nearest `1 / per_unit` (`1e9`: the nanosecond), for JSON output: a sum or
/// quotient of floats, or [`std::time::Duration::as_secs_f64`] itself, can print as
/// `36.848691314999996`; the rounded value prints as `36.848691315` (tester 66, tester 76).
pub(crate) fn json_round(x: f64, per_unit: f64) -> f64 {
    (x * per_unit).round() / per_unit
}

/// Seconds for JSON output: `secs` rounded to the nanosecond, a [`std::time::Duration`]'s own
/// resolution (see [`json_round`]).
pub(crate) fn json_seconds(secs: f64) -> f64 {
    json_round(secs, 1e9)
}

/// `1 game`, `2 games`: the count and the word that fits it.
pub(crate) fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Writes `text` to stdout and flushes it.
///
/// # Errors
/// The I/O error, after `cannot write the output: ` (tester 35: a full device said only `No
/// space left on device`), if stdout cannot be written (e.g. a closed pipe); on a broken pipe
/// `main` says [`CLOSED_OUTPUT`].
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| anyhow::Error::new(e).context(OUTPUT_ERROR))
}

/// The context of an error writing stdout.
const OUTPUT_ERROR: &str = "cannot write the output";

/// Whether an error is one of writing stdout ([`print()`]), a broken pipe or another.
pub fn is_output_error(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.to_string() == OUTPUT_ERROR)
}

/// Whether an error is a broken pipe on stdout (the reader went away, e.g. `| head -1`).
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// What every command says when its output was closed (a broken pipe: the reader went away):
/// one line on stderr, then exit code 1 (`main` prints it; tester: `perft` and `solve --batch`
/// said nothing, `match` said this).
pub const CLOSED_OUTPUT: &str = "the output was closed (broken pipe)";

/// What a command had done when its output was closed (`the match stopped after 3 of 10
/// games`), put as the context of the broken-pipe error: `main` adds it to [`CLOSED_OUTPUT`].
#[derive(Debug)]
pub struct WhenClosed(pub String);

impl std::fmt::Display for WhenClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WhenClosed {}

/// The line (without `kalah: `) for an error that is a closed output ([`is_broken_pipe`]):
/// [`CLOSED_OUTPUT`], then what the command had done ([`WhenClosed`]) if it said; `None` for
/// any other error.
pub fn closed_output_line(e: &anyhow::Error) -> Option<String> {
    if !is_broken_pipe(e) {
        return None;
    }
    // (`anyhow`'s own downcast finds a context; the chain's items are not the context type.)
    Some(match e.downcast_ref::<WhenClosed>() {
        Some(when) => format!("{CLOSED_OUTPUT}: {when}"),
        None => CLOSED_OUTPUT.to_string(),
    })
}

/// An error and its causes on one line, `outer: inner: ...`. A cause whose text the line already
/// holds is left out: typed errors often repeat their source in their own message (`turn 1: move
/// 3: house 3 is empty` has the source `house 3 is empty`). Line breaks become spaces, other
/// control characters are escaped (`\u{1b}`: a game file's text must not drive the terminal),
/// and a word longer than [`MAX_WORD`] characters is shortened (a 100 KB bad token in a file
/// would otherwise fill the screen, twice).
pub fn error_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        let text = text.trim();
        if text.is_empty() || line.contains(text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(text);
    }
    // Words and the gaps between them: a gap of plain spaces is kept as it is (a file name may
    // hold two spaces in a row, and the message must name that file: tester 64), any other gap
    // (a line break, a tab) becomes one space.
    let mut out = String::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, after) = rest.split_at(end);
        // Shortened before its escapes are written, so that none is cut (tester 75), in
        // kalah-core's style (`…`, kalah_core::error::clipped).
        let n = word.chars().count();
        if n > MAX_WORD {
            let head: String = word.chars().take(MAX_WORD / 2).collect();
            out += &format!("{}… ({n} characters)", printable(&head));
        } else {
            out += &printable(word);
        }
        let next = after
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(after.len());
        let (gap, after) = after.split_at(next);
        if gap.chars().all(|c| c == ' ') {
            out += gap;
        } else {
            out.push(' ');
        }
        rest = after;
    }
    // However long the input it quotes (tester 75).
    kalah_core::error::bounded(&out).into_owned()
}

/// `text` with control characters (escape sequences, NUL, ...) and invisible format characters
/// (a byte-order mark, a soft hyphen, zero-width spaces and joiners, bidirectional marks and
/// overrides) written as
/// `\u{..}` escapes: echoed input or a file's text never drives the terminal, and a message
/// shows every character it quotes.
pub(crate) fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            let invisible = matches!(
                c,
                '\u{00AD}'
                    | '\u{061C}'
                    | '\u{180E}'
                    | '\u{200B}'..='\u{200F}'
                    | '\u{202A}'..='\u{202E}'
                    | '\u{2060}'..='\u{2064}'
                    | '\u{2066}'..='\u{2069}'
                    | '\u{FEFF}'
            );
            if c.is_control() || invisible {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A command line whose options contradict each other in a way clap cannot see (a start option
/// with a POSITION, `--houses` against the position's count): exit code 2, as clap's own usage
/// errors.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Returns early with a [`UsageError`] (exit code 2): `usage_bail!("--houses {m} but ...")`.
macro_rules! usage_bail {
    ($($arg:tt)*) => {
        return Err($crate::output::UsageError(format!($($arg)*)).into())
    };
}
pub(crate) use usage_bail;

/// The longest word [`error_line`] shows whole (paths are shorter).
pub const MAX_WORD: usize = 300;

/// The path `s` as one word for a POSIX shell, for commands suggested in messages: as it is if
/// it holds only letters, digits and `/._-+,:=@%`, otherwise in single quotes (a quote inside
/// written `'\''`); a relative path starting with `-` gets `./` in front, so that the command
/// does not read it as an option.
pub(crate) fn shell_path(s: &str) -> String {
    let s = if s.starts_with('-') {
        format!("./{s}")
    } else {
        s.to_string()
    };
    let plain = |c: char| c.is_alphanumeric() || "/._-+,:=@%".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A duration's seconds print as their nanoseconds, not as the float's long expansion
    /// (tester 76 saw `36.848691314999996` from `solve --json`).
    #[test]
    fn json_seconds_print_to_the_nanosecond() {
        let d = std::time::Duration::new(36, 848_691_315);
        assert_ne!(
            serde_json::json!(d.as_secs_f64()).to_string(),
            "36.848691315"
        );
        assert_eq!(
            serde_json::json!(json_seconds(d.as_secs_f64())).to_string(),
            "36.848691315"
        );
        let mean = 2.049e-3 / 1000.0;
        assert_eq!(
            serde_json::json!(json_seconds(mean)).to_string(),
            "2.049e-6"
        );
        assert_eq!(
            serde_json::json!(json_round(2.0 / 3.0 * 1e6, 1e3)).to_string(),
            "666666.667"
        );
    }

    #[test]
    fn shell_paths_are_quoted_only_when_needed() {
        assert_eq!(shell_path("/tmp/game-1.txt"), "/tmp/game-1.txt");
        assert_eq!(shell_path("partie_été.txt"), "partie_été.txt");
        assert_eq!(shell_path("my game.txt"), "'my game.txt'");
        assert_eq!(shell_path("it's"), r"'it'\''s'");
        assert_eq!(shell_path("a\\b"), r"'a\b'");
        assert_eq!(shell_path(""), "''");
        assert_eq!(shell_path("-dash.txt"), "./-dash.txt");
        assert_eq!(shell_path("-my game"), "'./-my game'");
    }

    #[test]
    fn printable_escapes_control_and_invisible_characters_only() {
        // A byte-order mark in a batch file's line was printed raw (tester 16): the message
        // read "'1' is not a seed count".
        assert_eq!(printable("\u{feff}1,0 S"), "\\u{feff}1,0 S");
        assert_eq!(printable("a\u{202e}b\u{200b}c"), "a\\u{202e}b\\u{200b}c");
        assert_eq!(printable("a\u{ad}b\u{61c}c"), "a\\u{ad}b\\u{61c}c");
        assert_eq!(printable("t\tz\u{1b}[31m"), "t\\tz\\u{1b}[31m");
        // Visible text, non-ASCII included, is kept.
        assert_eq!(printable("Süd – ٣ 北"), "Süd – ٣ 北");
    }

    #[test]
    fn error_lines_escape_control_characters_and_shorten_huge_words() {
        let long = "a".repeat(100_000);
        let e = anyhow::anyhow!("'{long}' is not a move").context(format!("turn 1: move {long}"));
        let line = error_line(&e);
        assert!(line.len() < 1000, "{} bytes", line.len());
        assert!(line.contains("… (100001 characters)"), "{line}");
        assert!(
            line.contains("… (100002 characters) is not a move"),
            "{line}"
        );
        let e = anyhow::anyhow!("bad move '\x1b[31mRED'\ttab\nnext");
        assert_eq!(error_line(&e), "bad move '\\u{1b}[31mRED' tab next");
        // Runs of spaces are kept (a file name may hold them); other gaps become one space.
        let e = anyhow::anyhow!("'x  y.txt' exists\n\t (use 'x  y.txt')");
        assert_eq!(error_line(&e), "'x  y.txt' exists (use 'x  y.txt')");
        // Ordinary lines are unchanged, long paths included.
        let path = format!("/tmp/{}/k009.egdb", "d".repeat(200));
        let e = anyhow::anyhow!("{path}: truncated (0 bytes, expected 64)");
        assert_eq!(
            error_line(&e),
            format!("{path}: truncated (0 bytes, expected 64)")
        );
    }

    /// An error that repeats its source in its message, as `thiserror` errors with a
    /// `{source}` in their format do.
    #[derive(Debug)]
    struct Outer {
        source: Inner,
    }
    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "turn 1: move 3: {}", self.source)
        }
    }
    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.source)
        }
    }
    #[derive(Debug)]
    struct Inner;
    impl std::fmt::Display for Inner {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("house 3 is\nempty")
        }
    }
    impl std::error::Error for Inner {}

    #[test]
    fn error_line_drops_repeated_causes() {
        let e = anyhow::Error::new(Outer { source: Inner }).context("'x.txt' is not a record");
        assert_eq!(
            error_line(&e),
            "'x.txt' is not a record: turn 1: move 3: house 3 is empty"
        );
        let e = anyhow::anyhow!("plain");
        assert_eq!(error_line(&e), "plain");
    }
}
