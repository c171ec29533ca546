//! `kalah serve`.

use anyhow::{bail, Result};

/// Arguments of `kalah serve`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kalah serve`.
pub fn run(_args: Args) -> Result<()> {
    bail!("'kalah serve' is not implemented yet")
}
