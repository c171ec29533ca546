//! `kalah perft`.

use anyhow::{bail, Result};

/// Arguments of `kalah perft`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kalah perft`.
pub fn run(_args: Args) -> Result<()> {
    bail!("'kalah perft' is not implemented yet")
}
