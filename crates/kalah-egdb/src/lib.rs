//! # kalah-egdb
//!
//! Kalah endgame databases. A Kalah position's value depends only on the seeds in the houses and
//! the side to move: the stores only shift the final score. So every arrangement of k seeds over
//! the 2m houses can be solved once and stored, one layer per k (Irving, Donkers & Uiterwijk 2000
//! built them to 20 seeds; Rawlings 2015 to 34).
//!
//! PLACEHOLDER API: [`Egdb::open`] and [`Egdb::probe`] are the stable interface the solver uses.

#![warn(missing_docs)]

use std::path::Path;

use kalah_core::{Position, Rules};

/// Errors opening, building or verifying databases.
#[derive(Debug, thiserror::Error)]
pub enum EgdbError {
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

/// A set of opened database layers for one board size and rule set, layers 0..=max_seeds.
#[derive(Debug)]
pub struct Egdb {
    houses: usize,
    rules: Rules,
    max_seeds: u32,
}

impl Egdb {
    /// Opens the layers present in `dir` for `houses` houses a side under `rules`. `Ok(None)` if
    /// there are none.
    ///
    /// # Errors
    /// [`EgdbError`] if a file is present but unreadable, corrupt or of another version.
    pub fn open(_dir: &Path, _houses: usize, _rules: &Rules) -> Result<Option<Egdb>, EgdbError> {
        Ok(None)
    }

    /// Houses a side.
    pub fn houses(&self) -> usize {
        self.houses
    }

    /// The rule set the layers were built for.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The largest number of seeds in the houses that the opened layers cover.
    pub fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    /// The future store gain of `pos` for the side to move under perfect play: its value (final
    /// store difference, side to move minus opponent) minus the current store difference
    /// `pos.store_diff(side to move)`. `None` if the databases do not cover the position (other
    /// board size or rules, more seeds in the houses than [`Egdb::max_seeds`], a game already
    /// over, or an opening phase).
    pub fn probe(&self, _pos: &Position, _rules: &Rules) -> Option<i32> {
        None
    }
}
