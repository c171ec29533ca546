//! Helpers shared by the CLI's integration tests.

use std::process::{Child, Command, Output};
use std::time::Duration;

/// Waits `after`, sends SIGINT (Ctrl-C) to `child`, and returns its output once it has exited.
///
/// # Panics
/// If `kill` cannot be run or fails, or waiting for the child fails.
pub fn interrupt(child: Child, after: Duration) -> Output {
    std::thread::sleep(after);
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -INT {}", child.id());
    child.wait_with_output().unwrap()
}
