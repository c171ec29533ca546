//! `kalah show`.

use anyhow::{bail, Result};

/// Arguments of `kalah show`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kalah show`.
pub fn run(_args: Args) -> Result<()> {
    bail!("'kalah show' is not implemented yet")
}
