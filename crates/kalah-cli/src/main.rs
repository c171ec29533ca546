//! `kalah`: play, study and solve Kalah from the terminal.
//!
//! A thin front end: every subcommand lives in its own module under `cmd/` and drives the library
//! crates. Errors are printed as one line on stderr with a non-zero exit code.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// `eprintln!` that never panics: a line that cannot be written to stderr (closed, or a full
/// device) is dropped, so the command still ends with its own exit code (tester 52: with
/// `2>/dev/full` every error was a panic, exit code 101). Every module of this crate writes
/// its messages to stderr with it. The line is written in one piece, so that lines of
/// processes sharing a stderr (two `kalah agent`s under one referee) do not mix mid-line.
macro_rules! stderr_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut line = format!($($arg)*);
        line.push('\n');
        let _ = std::io::stderr().write_all(line.as_bytes());
    }};
}

mod board;
mod cmd;
mod game_args;
mod input;
mod output;
mod signals;
#[cfg(test)]
mod test_screen;

/// Kalah: play, analyse and solve W. J. Champion's mancala.
#[derive(Parser, Debug)]
#[command(name = "kalah", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play a game in the terminal (default: you are South against the engine, Kalah(6,4)).
    Play(cmd::play::Args),
    /// Engine against engine: a match of games between two levels, colours swapped in pairs.
    Match(cmd::match_::Args),
    /// Show a position, optionally after some moves.
    Show(cmd::show::Args),
    /// Count move sequences of a given length (perft), optionally split by first move.
    Perft(cmd::perft::Args),
    /// The exact value of a position with perfect play, and the best moves.
    Solve(cmd::solve::Args),
    /// The value of every legal move (or whole first turn) of a position.
    Analyze(cmd::analyze::Args),
    /// Review a saved game: every turn's value against the best turn, the mistakes, and where
    /// the result changed.
    Review(cmd::review::Args),
    /// Solve a fixed set of positions; prints the node count (a regression signature).
    Bench(cmd::bench::Args),
    /// Endgame databases: build, info, verify, probe.
    Egdb(cmd::egdb::Args),
    /// Serve the web page and JSON API on a local address.
    Serve(cmd::serve::Args),
    /// Play as an agent of the Manchester Kalah game engine: its messages on standard input,
    /// the engine's actions on standard output (default: Kalah(7,7), the pie rule).
    Agent(cmd::agent::Args),
    /// Referee games between two agent programs that speak the Manchester protocol (each a
    /// command line), as the Manchester game engine does.
    Referee(cmd::referee::Args),
}

/// The command line's definition: [`Cli`]'s, with `analyze`'s `--time-ms` told in its own
/// words (the flag is `solve`'s too, whose help speaks of `--batch`: tester 106).
fn cli_command() -> clap::Command {
    Cli::command()
        .mut_subcommand("analyze", |c| {
            c.mut_arg("time_ms", |a| {
                a.help(
                    "Give up after MS milliseconds of search (1 to a day), printing the actions \
                     or turns valued by then and the bounds proven on the others; exit code 1",
                )
            })
        })
        .mut_subcommand("review", |c| {
            c.mut_arg("time_ms", |a| {
                a.help(
                    "Give each position at most MS milliseconds of search (1 to a day); a \
                     position not solved by then gets the bounds proven on its value, and the \
                     review ends with exit code 1",
                )
            })
            .mut_arg("nodes", |a| {
                a.help(
                    "Give each position at most N nodes, as --time-ms does (checked every 1024 \
                     nodes; on several threads, each thread counts its own)",
                )
            })
        })
}

/// Parses the command line. Help and version go to stdout as usual; a usage error becomes one
/// line on stderr and exit code 2.
fn parse_cli() -> Cli {
    let parsed = cli_command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    match parsed {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                // As `e.exit()`, but a help or version text that cannot be written (stdout a
                // full device) is an error, not exit 0; a closed pipe is said as for every
                // command's output.
                if let Err(io) = e.print() {
                    if io.kind() == std::io::ErrorKind::BrokenPipe {
                        stderr_line!("kalah: {}", output::CLOSED_OUTPUT);
                    } else {
                        stderr_line!("kalah: error: cannot write the output: {io}");
                    }
                    std::process::exit(1);
                }
                std::process::exit(e.exit_code());
            }
            // A position whose first count is negative reads as an unknown flag to clap: say
            // what is wrong with it, as for a negative count elsewhere in a position.
            if e.kind() == ErrorKind::UnknownArgument {
                if let Some(clap::error::ContextValue::String(arg)) =
                    e.get(clap::error::ContextKind::InvalidArg)
                {
                    // clap names the short-flag part ('-1' of "-1,4,4,...").
                    let mut chars = arg.chars();
                    let numeric = chars.next() == Some('-')
                        && chars.next().is_some_and(|c| c.is_ascii_digit());
                    let args = args_lossy();
                    let position = args
                        .iter()
                        .find(|a| a.starts_with(arg.as_str()) && a.contains(','));
                    if let Some(line) = unquoted_position(arg, &args) {
                        stderr_line!("kalah: error: {line}");
                        std::process::exit(2);
                    }
                    if let (true, Some(position)) = (numeric, position) {
                        // The position parser's own message, as for any other bad position.
                        if let Err(err) = position.parse::<kalah_core::Position>() {
                            let err = anyhow::Error::new(err)
                                .context(format!("bad position '{position}'"));
                            stderr_line!("kalah: error: {}", output::error_line(&err));
                            std::process::exit(1);
                        }
                    }
                }
            }
            // The first paragraph of clap's message, on one line (e.g. "the following required
            // arguments were not provided: <DEPTH>").
            let text = e.render().to_string();
            let first = text
                .lines()
                .map(str::trim)
                .skip_while(|l| l.is_empty())
                .take_while(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let first = first.strip_prefix("error: ").unwrap_or(&first);
            let first = if first.is_empty() {
                "bad command line"
            } else {
                first
            };
            // Clap's tips too, on the same line (tester 90: "a similar argument exists:
            // '--level'" for `--levl` was dropped with the rest of the message).
            let tips: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with("tip:"))
                .collect();
            let first = if tips.is_empty() {
                first.to_string()
            } else {
                format!("{first}; {}", tips.join("; "))
            };
            // Point to the right help page: the (nested) subcommand's when one was named.
            let help = help_page(&args_lossy());
            stderr_line!(
                "kalah: error: {} (see '{help}')",
                kalah_core::error::bounded(&output::printable(&first))
            );
            std::process::exit(2);
        }
    }
}

/// The message for a position typed without quotes (`kalah show 4,4,...,0 S`), whose side
/// letter, and phase tag if any, clap met as arguments of their own: `arg` is the one clap
/// refused, `args` the command line without the program name. `None` when `arg` is not a side
/// letter or phase tag after counts (a position's, not `--moves` or `--layout`'s), right after
/// them or after flags between (tester 106: `solve 3,3,3,0,3,3,3,0 --json S`).
fn unquoted_position(arg: &str, args: &[String]) -> Option<String> {
    let tag = |a: &str| {
        a.parse::<kalah_core::Side>().is_ok()
            || ["opening", "first-turn", "pie"].contains(&a.to_ascii_lowercase().as_str())
    };
    let looks_like_counts = |a: &str| {
        let items: Vec<&str> = a.split(',').collect();
        items.len() >= 4
            && items.len().is_multiple_of(2)
            && items
                .iter()
                .all(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))
    };
    let flag_value = |j: usize| j >= 1 && ["--moves", "--layout"].contains(&args[j - 1].as_str());
    let i = args.iter().position(|a| a == arg)?;
    if !tag(arg) {
        return None;
    }
    let j = (0..i)
        .rev()
        .find(|&j| looks_like_counts(&args[j]) && !flag_value(j))?;
    let counts = &args[j];
    let words: Vec<&str> = std::iter::once(counts.as_str())
        .chain(args[i..].iter().map(String::as_str).take_while(|a| tag(a)))
        .collect();
    let place = if j + 1 == i {
        format!("after the counts '{counts}'")
    } else {
        format!("(the counts '{counts}' came before it)")
    };
    Some(format!(
        "unexpected argument '{arg}' {place}: a position is one argument, its side to move \
         included; quote it: '{}'",
        words.join(" ")
    ))
}

/// The command line without the program name, as text (`std::env::args` panics on an argument
/// that is not UTF-8; clap has refused such an argument by the time these are read).
fn args_lossy() -> Vec<String> {
    std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// `kalah SUB [SUBSUB] --help` for the subcommands named at the start of `args` (the command line
/// without the program name), e.g. `kalah egdb build --help`.
fn help_page(args: &[String]) -> String {
    let mut page = "kalah".to_string();
    let mut cmd = cli_command();
    for a in args {
        let Some(sub) = cmd.find_subcommand(a).cloned() else {
            break;
        };
        page.push(' ');
        page.push_str(sub.get_name());
        cmd = sub;
    }
    format!("{page} --help")
}

fn main() {
    // A write past the file size limit (`ulimit -f`) fails with EFBIG, reported as any other
    // write error, rather than killing the process with SIGXFSZ, silently, mid-write (tester
    // 52: a build or a save so stopped left its temporary file behind).
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN before any other thread runs; no
    // handler function is involved.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let cli = parse_cli();
    let result = match cli.command {
        Command::Play(a) => cmd::play::run(a),
        Command::Match(a) => cmd::match_::run(a),
        Command::Show(a) => cmd::show::run(a),
        Command::Perft(a) => cmd::perft::run(a),
        Command::Solve(a) => cmd::solve::run(a),
        Command::Analyze(a) => cmd::analyze::run(a),
        Command::Review(a) => cmd::review::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Egdb(a) => cmd::egdb::run(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Agent(a) => cmd::agent::run(a),
        Command::Referee(a) => cmd::referee::run(a),
    };
    if let Err(e) = result {
        // The reader of stdout went away (e.g. `| head -1`): one line, the same for every
        // command, with what the command had done if it said (a match, a game).
        if let Some(line) = output::closed_output_line(&e) {
            stderr_line!("kalah: {line}");
            std::process::exit(1);
        }
        stderr_line!("kalah: error: {}", output::error_line(&e));
        let usage = e.chain().any(|c| c.is::<output::UsageError>());
        std::process::exit(if usage { 2 } else { 1 });
    }
}
