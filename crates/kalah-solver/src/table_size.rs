//! Default transposition-table sizes: how large a table a search of a position needs, by the
//! seeds in its houses, the board, the endgame databases that reach it and the limits of the
//! search. Measured in docs/BENCHMARKS.md ("Table size with databases", "Low databases get a
//! large table", "Wide boards", "Time limits with large tables").

use kalah_core::{Position, Rules};

/// Default table size in MiB when endgame databases reach the position ([`egdb_reaches`]; see
/// [`default_table_mib`]).
pub const EGDB_TT_MIB: usize = 2;
/// Seeds in the houses above the databases' largest layer up to which [`EGDB_TT_MIB`] can be
/// the default (set by the Kalah(6,5) turns, 29-30 above layers to 30).
pub const EGDB_REACH: u32 = 32;

/// The default table size in MiB for a position with `seeds` seeds in the houses, searched with
/// databases whose largest layer is `top` (`None`: without databases).
///
/// With databases that reach the position ([`egdb_reaches`]), the search's nodes are database
/// probes and positions a few seeds above the largest layer: a table of a few MiB, which stays
/// within the processor's caches and TLB reach, beat every larger one, from Kalah(6,4) (layers
/// to 22-30) to the Kalah(6,5) turns with layers to 30 (29-30 seeds above them, 500-700 M nodes,
/// 20 % less time than 1 GiB). With lower databases the small table multiplies the nodes:
/// Kalah(6,4) standard with layers to 20, 18 and 16 took 1.1, 1.3 and 2.5 times as long with
/// 2 MiB as with 256 MiB (1 Dec 2026). See docs/BENCHMARKS.md, "Table size with databases" and
/// "Low databases get a large table". Otherwise the table must hold the transpositions of the whole search: sized
/// by the seeds in the houses above two thirds of the largest layer (all of them without
/// databases). `entry_bytes(mib)`: bytes per entry of a table of `mib` MiB for the position
/// ([`crate::entry_bytes`]). From 40 to 48 seeds the table is 512 MiB of 8-byte entries
/// (Kalah(6,4)), or 1 GiB when the entries are wider (many seeds in the stores, or more than 6
/// houses a side): as many entries as 1 GiB of 16-byte ones, as before 8-byte entries existed.
///
/// Boards of more than 6 houses a side hold many more positions for their seeds: from 2^37
/// ways to lay out those seeds on the board ([`board_bits`]) the table is at least 512 MiB
/// (`kalah solve`, one thread: Kalah(8,2), 2^39.5, took 17.6 s with 256 MiB by its 32 seeds,
/// 13.6 s with 512 MiB and 14.1 s with 1 GiB; Kalah(11,1), 2^39.9, 64.7 s with 64 MiB by its
/// 22 seeds, 26.7 s with 512 MiB and 70.5 s with 1 GiB). Kalah(6,4) is 2^38.0: no board of 6
/// houses or fewer gets more than its seeds give.
fn default_tt_mib(
    seeds: u32,
    houses: usize,
    top: Option<u32>,
    entry_bytes: impl Fn(usize) -> usize,
) -> usize {
    if egdb_reaches(seeds, top) {
        return EGDB_TT_MIB;
    }
    let seeds = seeds.saturating_sub(top.map_or(0, |k| k * 2 / 3));
    let by_seeds = match seeds {
        0..=20 => 16,
        21..=30 => 64,
        31..=39 => 256,
        40..=48 if entry_bytes(512) == 8 => 512,
        _ => 1024,
    };
    let by_board = if board_bits(houses, seeds) >= 37.0 {
        512
    } else {
        0
    };
    by_seeds.max(by_board)
}

/// log2 of the number of ways to lay out `seeds` seeds in the houses of a board of `houses`
/// houses a side: C(seeds + 2·houses − 1, 2·houses − 1).
fn board_bits(houses: usize, seeds: u32) -> f64 {
    let n = (2 * houses).saturating_sub(1) as u64;
    (1..=n)
        .map(|i| ((u64::from(seeds) + i) as f64 / i as f64).log2())
        .sum()
}

/// Whether databases whose largest layer is `top` reach a position with `seeds` seeds in the
/// houses, so that the default table is [`EGDB_TT_MIB`]: the layer is at most [`EGDB_REACH`]
/// seeds below them and holds at least 45 % as many (Kalah(6,4), 48 seeds: layers to 22 or
/// more; the Kalah(6,5) turns, 53-59 seeds: layers to 30).
pub fn egdb_reaches(seeds: u32, top: Option<u32>) -> bool {
    top.is_some_and(|k| seeds <= k + EGDB_REACH && 9 * seeds <= 20 * k)
}

/// The machine's physical memory in MiB (`MemTotal` of /proc/meminfo), if known.
pub fn memory_mib() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// The default transposition-table size in MiB for `pos` under `rules`, searched with
/// endgame databases whose largest layer is `top` (`None`: without databases), within a time
/// limit of `time_ms` milliseconds and a node limit of `nodes` (each `None`: no limit).
///
/// By the position: [`EGDB_TT_MIB`] when the databases reach it ([`egdb_reaches`]); otherwise
/// by its seeds in the houses above two thirds of the largest layer (all of them without
/// databases): 16 MiB up to 20, 64 up to 30, 256 up to 39, 512 up to 48 (1024 if its entries
/// are wider than 8 bytes, see [`entry_bytes`](crate::entry_bytes)), 1024 beyond; at least 512
/// on boards of more than 6 houses where those seeds can lie in 2^37 ways or more. Then at most
/// half the machine's memory ([`memory_mib`]); with a time limit at most 1 MiB for every 16 ms
/// (a power of two, at least 16 MiB), as clearing a larger table would take much of the time;
/// with a node limit at most 32 bytes a node (a power of two, at least 16 MiB). What `kalah
/// solve`, `kalah analyze` and the Python module use when no size is given.
pub fn default_table_mib(
    rules: &Rules,
    pos: &Position,
    top: Option<u32>,
    time_ms: Option<u64>,
    nodes: Option<u64>,
) -> usize {
    default_tt_mib(pos.seeds_in_houses(), pos.houses(), top, |mib| {
        crate::entry_bytes(rules, pos.houses(), pos.total_seeds() as usize, mib)
    })
    .min(memory_mib().map_or(usize::MAX, |m| (m / 2).max(1)))
    .min(time_cap_mib(time_ms))
    .min(node_cap_mib(nodes))
}

/// The largest default table, in MiB, for a search limited to `time_ms`: 1 MiB for every 16 ms,
/// as a power of two, at least 16 MiB (no cap without a time limit). Every page of a fresh
/// table is cleared by the kernel when first touched: Kalah(6,4) with `--time-ms 300` searched
/// 1 664 nodes with its 512 MiB default, the rest of the time clearing the table, against
/// 2.1 M with 16 MiB (tester 91). At this rate clearing the table takes a few per cent of the
/// time at most; a search long enough to need 512 MiB (Kalah(6,4)) gets it from 8.2 s on.
fn time_cap_mib(time_ms: Option<u64>) -> usize {
    match time_ms {
        None => usize::MAX,
        Some(ms) => {
            let mib = (ms / 16).max(16);
            let pow2 = 1u64 << (63 - mib.leading_zeros());
            usize::try_from(pow2).unwrap_or(usize::MAX)
        }
    }
}

/// The largest default table, in MiB, for a search limited to `nodes` (`--nodes`): room for 32
/// bytes a node (an entry of up to 16 bytes for each node of up to two threads), as a power of
/// two, at least 16 MiB (no cap without a node limit). With transparent huge pages a few
/// thousand probes touch most 2 MiB pages of a table: Kalah(5,4) with `--nodes 2000` spent
/// 0.8–1.5 s clearing its 512 MiB default (tester 102).
fn node_cap_mib(nodes: Option<u64>) -> usize {
    match nodes {
        None => usize::MAX,
        Some(n) => {
            let mib = n.saturating_mul(32).div_ceil(1 << 20).max(16);
            usize::try_from(mib.checked_next_power_of_two().unwrap_or(u64::MAX))
                .unwrap_or(usize::MAX)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A time limit caps the default table at 1 MiB for every 16 ms, as a power of two, at
    /// least 16 MiB: Kalah(6,4)'s 512 MiB from 8 192 ms on, never more than the position's own
    /// default, and nothing without a limit.
    #[test]
    fn a_time_limit_caps_the_default_table() {
        assert_eq!(time_cap_mib(None), usize::MAX);
        for (ms, cap) in [
            (1, 16),
            (300, 16),
            (511, 16),
            (512, 32),
            (1000, 32),
            (3000, 128),
        ] {
            assert_eq!(time_cap_mib(Some(ms)), cap, "{ms} ms");
        }
        assert_eq!(time_cap_mib(Some(8191)), 256);
        assert_eq!(time_cap_mib(Some(8192)), 512);
        assert_eq!(time_cap_mib(Some(86_400_000)), 4_194_304);
        let rules = Rules::default();
        let start = Position::start(&kalah_core::Start::uniform(6, 4).unwrap(), &rules);
        // 512 MiB, or half the memory of a small machine.
        let full = default_table_mib(&rules, &start, None, None, None);
        assert_eq!(full, memory_mib().map_or(512, |m| (m / 2).clamp(1, 512)));
        assert_eq!(
            default_table_mib(&rules, &start, None, Some(300), None),
            16.min(full)
        );
        assert_eq!(
            default_table_mib(&rules, &start, None, Some(60_000), None),
            full
        );
        // A small position's default is not raised by a long limit.
        let small = Position::start(&kalah_core::Start::uniform(3, 2).unwrap(), &rules);
        assert_eq!(
            default_table_mib(&rules, &small, None, Some(60_000), None),
            default_table_mib(&rules, &small, None, None, None)
        );
    }

    /// A node limit caps the default table at 32 bytes a node (tester 102: `--nodes 2000`
    /// spent a second clearing 512 MiB).
    #[test]
    fn a_node_limit_caps_the_default_table() {
        assert_eq!(node_cap_mib(None), usize::MAX);
        for (nodes, cap) in [
            (0, 16),
            (2000, 16),
            (524_288, 16),
            (524_289, 32),
            (10_000_000, 512),
            (u64::MAX, 1 << 44),
        ] {
            assert_eq!(node_cap_mib(Some(nodes)), cap, "{nodes} nodes");
        }
        let rules = Rules::default();
        let start = Position::start(&kalah_core::Start::uniform(6, 4).unwrap(), &rules);
        let full = default_table_mib(&rules, &start, None, None, None);
        assert_eq!(
            default_table_mib(&rules, &start, None, None, Some(2000)),
            16.min(full)
        );
        assert_eq!(
            default_table_mib(&rules, &start, None, None, Some(100_000_000)),
            full
        );
    }

    #[test]
    fn the_default_table_is_small_when_the_databases_reach_the_position() {
        let eight = |_| 8;
        // Kalah(6,4) and Kalah(6,5) with layers to 30, Kalah(6,4) with layers to 22.
        assert_eq!(default_tt_mib(48, 6, Some(30), eight), EGDB_TT_MIB);
        assert_eq!(default_tt_mib(60, 6, Some(30), eight), EGDB_TT_MIB);
        assert_eq!(default_tt_mib(59, 6, Some(30), eight), EGDB_TT_MIB);
        assert_eq!(default_tt_mib(48, 6, Some(22), eight), EGDB_TT_MIB);
        // Past the reach: sized by the seeds above two thirds of the largest layer. Layers
        // below 45 % of the seeds (Kalah(6,4) with layers to 20, 18, 16), or more than 32
        // seeds below them.
        assert_eq!(default_tt_mib(48, 6, Some(21), eight), 256);
        assert_eq!(default_tt_mib(48, 6, Some(20), eight), 256);
        assert_eq!(default_tt_mib(48, 6, Some(16), eight), 256);
        assert_eq!(default_tt_mib(63, 6, Some(30), eight), 512);
        assert_eq!(default_tt_mib(72, 6, Some(30), eight), 1024);
        // Without databases: by the seeds in the houses.
        assert_eq!(default_tt_mib(20, 6, None, eight), 16);
        assert_eq!(default_tt_mib(36, 6, None, eight), 256);
        // Kalah(6,4): 512 MiB of 8-byte entries (as many as 1 GiB of 16-byte ones).
        assert_eq!(default_tt_mib(48, 6, None, eight), 512);
        assert_eq!(default_tt_mib(49, 6, None, eight), 1024);
        // Wider entries from 40 to 48 seeds: 1 GiB.
        assert_eq!(default_tt_mib(48, 6, None, |_| 16), 1024);
        assert_eq!(default_tt_mib(40, 6, None, |_| 32), 1024);
        assert_eq!(default_tt_mib(39, 6, None, |_| 32), 256);
    }

    #[test]
    fn wide_boards_get_a_table_for_their_many_layouts() {
        // Kalah(8,2) (2^39.5 layouts) and Kalah(11,1) (2^39.9); Kalah(7,3) by its seeds.
        assert_eq!(default_tt_mib(32, 8, None, |_| 16), 512);
        assert_eq!(default_tt_mib(22, 11, None, |_| 16), 512);
        assert_eq!(default_tt_mib(42, 7, None, |_| 16), 1024);
        // Kalah(10,1) (2^36.0) and Kalah(7,2) (2^34.0): by their seeds.
        assert_eq!(default_tt_mib(20, 10, None, |_| 16), 16);
        assert_eq!(default_tt_mib(28, 7, None, |_| 16), 64);

        // Below the databases: the seeds above two thirds of the largest layer (38 above 8).
        assert_eq!(default_tt_mib(32, 8, Some(24), |_| 16), EGDB_TT_MIB);
        assert_eq!(default_tt_mib(46, 8, Some(12), |_| 16), 512);

        // No board of 6 houses or fewer gets more than its seeds give.
        for houses in 1..=6 {
            for seeds in 0..=255 {
                let by_seeds = default_tt_mib(seeds, 1, None, |_| 8);
                assert_eq!(default_tt_mib(seeds, houses, None, |_| 8), by_seeds);
            }
        }
        assert!(
            (board_bits(6, 48) - 38.0).abs() < 0.05,
            "{}",
            board_bits(6, 48)
        );
        assert!((board_bits(1, 3) - 2.0).abs() < 1e-9); // C(4, 1) = 4
    }

    #[test]
    fn the_default_table_follows_the_entry_size() {
        let rules = Rules::default();
        let mib = |bins: &str| {
            let pos: Position = bins.parse().unwrap();
            default_tt_mib(pos.seeds_in_houses(), pos.houses(), None, |mib| {
                crate::entry_bytes(&rules, pos.houses(), pos.total_seeds() as usize, mib)
            })
        };
        // Kalah(6,4): 48 seeds, 8-byte entries.
        assert_eq!(mib("4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"), 512);
        // 48 seeds in the houses but 200 in all: 16-byte entries, so twice the memory.
        assert_eq!(mib("4,4,4,4,4,4,80,4,4,4,4,4,4,72 S"), 1024);
        // Kalah(8,3): 48 seeds on 8 houses a side, 32-byte entries.
        assert_eq!(mib("3,3,3,3,3,3,3,3,0,3,3,3,3,3,3,3,3,0 S"), 1024);
    }
}
