//! `kalah egdb`.

use anyhow::{bail, Result};

/// Arguments of `kalah egdb`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kalah egdb`.
pub fn run(_args: Args) -> Result<()> {
    bail!("'kalah egdb' is not implemented yet")
}
