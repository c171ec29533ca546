//! `kalah bench`.

use anyhow::{bail, Result};

/// Arguments of `kalah bench`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kalah bench`.
pub fn run(_args: Args) -> Result<()> {
    bail!("'kalah bench' is not implemented yet")
}
