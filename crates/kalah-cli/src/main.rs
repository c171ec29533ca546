//! `kalah`: play, study and solve Kalah from the terminal.
//!
//! A thin front end: every subcommand lives in its own module under `cmd/` and drives the library
//! crates. Errors are printed as one line on stderr with a non-zero exit code.

use clap::{Parser, Subcommand};

mod cmd;
mod game_args;

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
    /// Show a position, optionally after some moves.
    Show(cmd::show::Args),
    /// Count move sequences of a given length (perft), optionally split by first move.
    Perft(cmd::perft::Args),
    /// The exact value of a position with perfect play, and the best moves.
    Solve(cmd::solve::Args),
    /// The value of every legal move (or whole first turn) of a position.
    Analyze(cmd::analyze::Args),
    /// Solve a fixed set of positions; prints the node count (a regression signature).
    Bench(cmd::bench::Args),
    /// Endgame databases: build, info, verify, probe.
    Egdb(cmd::egdb::Args),
    /// Serve the web page and JSON API on a local address.
    Serve(cmd::serve::Args),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Play(a) => cmd::play::run(a),
        Command::Show(a) => cmd::show::run(a),
        Command::Perft(a) => cmd::perft::run(a),
        Command::Solve(a) => cmd::solve::run(a),
        Command::Analyze(a) => cmd::analyze::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Egdb(a) => cmd::egdb::run(a),
        Command::Serve(a) => cmd::serve::run(a),
    };
    if let Err(e) = result {
        eprintln!("kalah: error: {e:#}");
        std::process::exit(1);
    }
}
