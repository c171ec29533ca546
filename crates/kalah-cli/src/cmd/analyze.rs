//! `kalah analyze`.

use anyhow::{bail, Result};

/// Arguments of `kalah analyze`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kalah analyze`.
pub fn run(_args: Args) -> Result<()> {
    bail!("'kalah analyze' is not implemented yet")
}
