//! `kalah solve`.

use anyhow::{bail, Result};

/// Arguments of `kalah solve`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kalah solve`.
pub fn run(_args: Args) -> Result<()> {
    bail!("'kalah solve' is not implemented yet")
}
