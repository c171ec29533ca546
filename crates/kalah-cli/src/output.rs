//! Writing to stdout without panicking on a closed pipe.

use std::io::Write;

use anyhow::Result;

/// Writes `text` to stdout and flushes it.
///
/// # Errors
/// The I/O error if stdout cannot be written (e.g. a closed pipe); `main` ends quietly on a
/// broken pipe.
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Whether an error is a broken pipe on stdout (the reader went away): not worth a message.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
