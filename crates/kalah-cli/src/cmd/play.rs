//! `kalah play`.

use anyhow::{bail, Result};

/// Arguments of `kalah play`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kalah play`.
pub fn run(_args: Args) -> Result<()> {
    bail!("'kalah play' is not implemented yet")
}
