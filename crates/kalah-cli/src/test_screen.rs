//! A terminal for the progress-bar tests: `width` columns, and a record of everything drawn on
//! it (cursor moves as `<up n>`, `<down n>`, ..., a cleared line as `<clear>`, a written line
//! with its `\n`).

use std::sync::{Arc, Mutex};

use indicatif::{ProgressBar, ProgressDrawTarget, TermLike};

/// A terminal of `width` columns that records what is drawn on it.
#[derive(Debug, Clone)]
pub(crate) struct Screen {
    pub(crate) width: u16,
    pub(crate) log: Arc<Mutex<Vec<String>>>,
}

impl Screen {
    /// A blank screen of `width` columns.
    pub(crate) fn new(width: u16) -> Screen {
        Screen {
            width,
            log: Arc::default(),
        }
    }

    /// A progress bar of `len` steps (`None`: a spinner) drawn on this screen.
    pub(crate) fn bar(&self, len: Option<u64>) -> ProgressBar {
        ProgressBar::with_draw_target(len, ProgressDrawTarget::term_like(Box::new(self.clone())))
    }

    fn record(&self, what: String) -> std::io::Result<()> {
        self.log.lock().unwrap().push(what);
        Ok(())
    }
}

impl TermLike for Screen {
    fn width(&self) -> u16 {
        self.width
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.record(format!("<up {n}>"))
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.record(format!("<down {n}>"))
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.record(format!("<right {n}>"))
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.record(format!("<left {n}>"))
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.record(format!("{s}\n"))
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.record(s.to_string())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.record("<clear>".to_string())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}
