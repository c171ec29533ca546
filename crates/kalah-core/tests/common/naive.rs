//! An independent, deliberately naive implementation of the rules, written from the rules text
//! in DEVELOPERS.md and issue 2 (not from kalah-core's code): a `Vec` of pits, seed-by-seed
//! sowing, every sum recomputed. Only `Rules` (plain data) is shared with kalah-core. The tests
//! check kalah-core against it move by move and by perft.

#![allow(dead_code)]

use kalah_core::{CaptureRule, EndRule, LeftoverRule, Rules};

/// Opening phase, as in the position notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NPhase {
    Opening,
    FirstTurn,
    Pie,
    Normal,
}

/// A naive game state. Sides: 0 South, 1 North.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Naive {
    /// Bin order: South houses 1..m, South store, North houses 1..m, North store.
    pub pits: Vec<u32>,
    pub m: usize,
    pub to_move: usize,
    pub over: bool,
    pub phase: NPhase,
    /// The seeds in South's and North's houses when the last sweep took them, and the seeds
    /// it added to South's and North's stores.
    pub swept_rows: [u32; 2],
    pub swept_gains: [u32; 2],
}

/// A naive action: sow house h (1..m) or swap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NMove {
    Sow(usize),
    Swap,
}

impl Naive {
    /// Parses the position notation independently: counts, then `S`/`N`, then a phase tag.
    pub fn parse(s: &str) -> Naive {
        let mut words = s.split_whitespace();
        let counts: Vec<u32> = words
            .next()
            .unwrap()
            .split(',')
            .map(|t| t.parse().unwrap())
            .collect();
        let m = (counts.len() - 2) / 2;
        let (to_move, over) = match words.next() {
            Some("S") => (0, false),
            Some("N") => (1, false),
            None => (0, true),
            Some(w) => panic!("side {w}"),
        };
        let phase = match words.next() {
            None => NPhase::Normal,
            Some("opening") => NPhase::Opening,
            Some("first-turn") => NPhase::FirstTurn,
            Some("pie") => NPhase::Pie,
            Some(w) => panic!("phase {w}"),
        };
        Naive {
            pits: counts,
            m,
            to_move,
            over,
            phase,
            swept_rows: [0, 0],
            swept_gains: [0, 0],
        }
    }

    /// The notation, written independently.
    pub fn notation(&self) -> String {
        let mut s = self
            .pits
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(",");
        // A finished game keeps the side that would have moved, without a phase.
        s.push_str(if self.to_move == 0 { " S" } else { " N" });
        if !self.over {
            match self.phase {
                NPhase::Opening => s.push_str(" opening"),
                NPhase::FirstTurn => s.push_str(" first-turn"),
                NPhase::Pie => s.push_str(" pie"),
                NPhase::Normal => {}
            }
        }
        s
    }

    fn house_bin(&self, side: usize, h: usize) -> usize {
        if side == 0 {
            h - 1
        } else {
            self.m + h
        }
    }

    fn store_bin(&self, side: usize) -> usize {
        if side == 0 {
            self.m
        } else {
            2 * self.m + 1
        }
    }

    fn row_sum(&self, side: usize) -> u32 {
        (1..=self.m)
            .map(|h| self.pits[self.house_bin(side, h)])
            .sum()
    }

    fn is_house_of(&self, side: usize, bin: usize) -> bool {
        (1..=self.m).any(|h| self.house_bin(side, h) == bin)
    }

    /// Legal actions: houses with seeds in increasing order, then swap.
    pub fn legal(&self, rules: &Rules) -> Vec<NMove> {
        if self.over || self.end_reason(rules).is_some() {
            return Vec::new();
        }
        let mut v: Vec<NMove> = (1..=self.m)
            .filter(|&h| self.pits[self.house_bin(self.to_move, h)] > 0)
            .map(NMove::Sow)
            .collect();
        if rules.pie && self.phase == NPhase::Pie && self.to_move == 1 {
            v.push(NMove::Swap);
        }
        v
    }

    /// (reason kind, side): the end of the game under the rules text, if it has come.
    /// Kinds: 'M' majority, 'R' row empty, 'B' mover blocked.
    pub fn end_reason(&self, rules: &Rules) -> Option<(char, usize)> {
        let total: u32 = self.pits.iter().sum();
        if rules.majority_end {
            for side in 0..2 {
                if 2 * self.pits[self.store_bin(side)] > total {
                    return Some(('M', side));
                }
            }
        }
        let mover = self.to_move;
        match rules.end {
            EndRule::RowEmpty => {
                if self.row_sum(mover) == 0 {
                    Some(('R', mover))
                } else if self.row_sum(1 - mover) == 0 {
                    Some(('R', 1 - mover))
                } else {
                    None
                }
            }
            EndRule::MoverBlocked => (self.row_sum(mover) == 0).then_some(('B', mover)),
        }
    }

    fn sweep(&mut self, rules: &Rules, reason: (char, usize)) {
        let rows = [self.row_sum(0), self.row_sum(1)];
        self.swept_rows = rows;
        let gains = match rules.leftovers {
            LeftoverRule::Owner => rows,
            LeftoverRule::Nobody => [0, 0],
            LeftoverRule::Emptier => {
                let emptier = match reason {
                    ('M', _) => (0..2).find(|&s| rows[s] == 0),
                    (_, s) => Some(s),
                };
                match emptier {
                    Some(0) => [rows[0] + rows[1], 0],
                    Some(_) => [0, rows[0] + rows[1]],
                    None => rows,
                }
            }
        };
        self.swept_gains = gains;
        for (side, gain) in gains.into_iter().enumerate() {
            for h in 1..=self.m {
                let b = self.house_bin(side, h);
                self.pits[b] = 0;
            }
            let st = self.store_bin(side);
            self.pits[st] += gain;
        }
        self.over = true;
        self.phase = NPhase::Normal;
    }

    /// Ends the game if it is over by the rules (for parsed positions).
    pub fn settle(&mut self, rules: &Rules) {
        if !self.over {
            if let Some(r) = self.end_reason(rules) {
                self.sweep(rules, r);
            }
        }
    }

    /// Plays a legal action. Returns (extra turn, captured seeds).
    pub fn play(&mut self, rules: &Rules, mv: NMove) -> (bool, u32) {
        let me = self.to_move;
        let house = match mv {
            NMove::Swap => {
                // The swapper takes South's row as it stands; the first player, now North,
                // moves next: the board and the side to move stay as they are.
                self.phase = NPhase::Normal;
                return (false, 0);
            }
            NMove::Sow(h) => h,
        };
        let bins = 2 * self.m + 2;
        let mut at = self.house_bin(me, house);
        let mut seeds = self.pits[at];
        assert!(seeds > 0);
        self.pits[at] = 0;
        while seeds > 0 {
            at = (at + 1) % bins;
            if at == self.store_bin(1 - me) {
                continue;
            }
            self.pits[at] += 1;
            seeds -= 1;
        }
        let mut captured = 0;
        if self.is_house_of(me, at) && self.pits[at] == 1 {
            let opp = 2 * self.m - at;
            if self.pits[opp] > 0 || rules.capture == CaptureRule::Empty {
                captured = self.pits[opp] + 1;
                self.pits[opp] = 0;
                self.pits[at] = 0;
                let st = self.store_bin(me);
                self.pits[st] += captured;
            }
        }
        let very_first = self.phase == NPhase::Opening;
        let extra = at == self.store_bin(me) && (rules.first_move_extra_turn || !very_first);
        if !extra {
            self.to_move = 1 - me;
        }
        self.phase = match self.phase {
            NPhase::Opening | NPhase::FirstTurn => {
                if self.to_move == 0 {
                    NPhase::FirstTurn
                } else if rules.pie {
                    NPhase::Pie
                } else {
                    NPhase::Normal
                }
            }
            NPhase::Pie | NPhase::Normal => NPhase::Normal,
        };
        if let Some(r) = self.end_reason(rules) {
            self.sweep(rules, r);
        }
        (extra, captured)
    }

    /// Perft by the naive rules.
    pub fn perft(&self, rules: &Rules, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.legal(rules)
            .into_iter()
            .map(|mv| {
                let mut c = self.clone();
                c.play(rules, mv);
                c.perft(rules, depth - 1)
            })
            .sum()
    }
}
