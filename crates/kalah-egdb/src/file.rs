//! Layer files: a 64-byte versioned header, one byte per arrangement in rank order, then (format
//! 2) a CRC-32 of every block of [`BLOCK_BYTES`] values, so that a probe can check the block it
//! reads the first time it reads it.
//!
//! Header (little-endian):
//!
//! | bytes  | field |
//! |--------|-------|
//! | 0..8   | magic `KALAHEDB` |
//! | 8..12  | format version (u32, [`FORMAT_VERSION`]) |
//! | 12..16 | header length (u32, 64) |
//! | 16     | houses a side m |
//! | 17     | capture rule (0 standard, 1 empty) |
//! | 18     | end rule (0 row-empty, 1 mover-blocked) |
//! | 19     | leftover rule (0 owner, 1 emptier, 2 nobody) |
//! | 20     | value encoding (1: one signed byte per arrangement) |
//! | 21..24 | zero |
//! | 24..28 | seeds in the houses k (u32) |
//! | 28..32 | zero |
//! | 32..40 | number of arrangements (u64) = binomial(k+2m−1, 2m−1) |
//! | 40..44 | CRC-32 of the payload |
//! | 44..48 | CRC-32 of bytes 0..44 |
//! | 48..64 | zero |
//!
//! Format 2 (written since 2 Dec 2026) follows the values with one little-endian CRC-32 for each
//! block of [`BLOCK_BYTES`] values (the last block may be shorter), in order: the file holds
//! 64 + count + 4·⌈count / 4096⌉ bytes. Format 1 files (64 + count bytes, no block checksums)
//! are still read; `kalah egdb build` rewrites them in format 2.
//!
//! Files are written to `NAME.tmp` (a stale one, or a link of that name, is removed first; the
//! new one is created exclusively), synced, then renamed, so a file under its final name is
//! always complete.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use kalah_core::{CaptureRule, EndRule, LeftoverRule, Rules};
use memmap2::Mmap;

use crate::EgdbError;

/// Magic bytes at the start of every layer file.
pub const MAGIC: &[u8; 8] = b"KALAHEDB";
/// The layer file format version this crate writes. It reads this one and format 1 (the same
/// without the block checksums).
pub const FORMAT_VERSION: u32 = 2;
/// The oldest format version this crate reads.
pub const OLDEST_FORMAT_VERSION: u32 = 1;
/// Values covered by one block checksum in format 2 files (one page).
pub const BLOCK_BYTES: usize = 4096;

/// The length of a layer file of `count` values in format `version`, or `u64::MAX` if it is
/// longer (a count read from a damaged header): no file is that long, so comparing it with a
/// file's length refuses the file.
pub fn file_len(version: u32, count: u64) -> u64 {
    checked_file_len(version, count).unwrap_or(u64::MAX)
}

/// [`file_len`], or `None` if it does not fit in a `u64`.
pub(crate) fn checked_file_len(version: u32, count: u64) -> Option<u64> {
    let blocks = if version >= 2 {
        count.div_ceil(BLOCK_BYTES as u64)
    } else {
        0
    };
    (HEADER_LEN as u64)
        .checked_add(count)?
        .checked_add(blocks.checked_mul(4)?)
}

/// The format version of a layer file's bytes (header included), as [`open_layer`] mapped them.
///
/// # Panics
/// If `file` is not a layer file's bytes as [`open_layer`] checked them: shorter than its
/// header, or than the count of values its header gives (for bytes from elsewhere, see
/// [`check_payload`], which checks that first).
pub fn version_of(file: &[u8]) -> u32 {
    u32::from_le_bytes(file[8..12].try_into().unwrap())
}

/// The values of a layer file's bytes (header included, as [`open_layer`] mapped them): the
/// bytes after the header, without format 2's block checksums.
///
/// # Panics
/// As [`version_of`].
pub fn values_of(file: &[u8]) -> &[u8] {
    let count = u64::from_le_bytes(file[32..40].try_into().unwrap()) as usize;
    &file[HEADER_LEN..HEADER_LEN + count]
}

/// Whether block `block` of a format 2 layer file's bytes (header included) matches its stored
/// CRC-32. Always true for a format 1 file, which has none.
///
/// # Panics
/// As [`version_of`].
/// Also if `block` is past the file's last block.
pub fn block_ok(file: &[u8], block: usize) -> bool {
    if version_of(file) < 2 {
        return true;
    }
    let values = values_of(file);
    let start = block * BLOCK_BYTES;
    crc32fast::hash(&values[start..values.len().min(start + BLOCK_BYTES)])
        == stored_block_crc(file, block)
}

/// The CRC-32 a format 2 file stores for block `block`.
fn stored_block_crc(file: &[u8], block: usize) -> u32 {
    let at = HEADER_LEN + values_of(file).len() + 4 * block;
    u32::from_le_bytes(file[at..at + 4].try_into().unwrap())
}
/// Bytes before the payload.
pub const HEADER_LEN: usize = 64;
/// Value encoding 1: one signed byte (i8) per arrangement, the future gain.
pub const ENCODING_BYTE: u8 = 1;

/// The decoded header of a layer file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerHeader {
    /// Format version.
    pub version: u32,
    /// Houses a side.
    pub houses: usize,
    /// Capture rule.
    pub capture: CaptureRule,
    /// End rule.
    pub end: EndRule,
    /// Leftover rule.
    pub leftovers: LeftoverRule,
    /// Value encoding ([`ENCODING_BYTE`]).
    pub encoding: u8,
    /// Seeds in the houses.
    pub seeds: u32,
    /// Arrangements (payload bytes).
    pub count: u64,
    /// CRC-32 of the payload.
    pub payload_crc: u32,
}

fn io(path: &Path, source: std::io::Error) -> EgdbError {
    EgdbError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The error of opening or looking at the layer file `path`: [`EgdbError::Unreadable`] when
/// this user may not read it (naming the directory on the way it may not search, if any),
/// else [`EgdbError::Io`].
fn open_error(path: &Path, source: std::io::Error) -> EgdbError {
    if source.kind() == std::io::ErrorKind::PermissionDenied {
        crate::unreadable(path, source)
    } else {
        io(path, source)
    }
}

impl LayerHeader {
    /// The name of the set directory this layer belongs in ([`set_dir_name`] of its board and
    /// rules, e.g. `m3-standard-row-empty-owner`).
    pub fn set_dir_name(&self) -> String {
        let rules = Rules {
            capture: self.capture,
            end: self.end,
            leftovers: self.leftovers,
            ..Rules::default()
        };
        set_dir_name(self.houses, &rules)
    }

    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&self.version.to_le_bytes());
        h[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
        h[16] = self.houses as u8;
        h[17] = match self.capture {
            CaptureRule::Standard => 0,
            CaptureRule::Empty => 1,
        };
        h[18] = match self.end {
            EndRule::RowEmpty => 0,
            EndRule::MoverBlocked => 1,
        };
        h[19] = match self.leftovers {
            LeftoverRule::Owner => 0,
            LeftoverRule::Emptier => 1,
            LeftoverRule::Nobody => 2,
        };
        h[20] = self.encoding;
        h[24..28].copy_from_slice(&self.seeds.to_le_bytes());
        h[32..40].copy_from_slice(&self.count.to_le_bytes());
        h[40..44].copy_from_slice(&self.payload_crc.to_le_bytes());
        let hc = crc32fast::hash(&h[..44]);
        h[44..48].copy_from_slice(&hc.to_le_bytes());
        h
    }

    fn decode(h: &[u8; HEADER_LEN], path: &Path) -> Result<LayerHeader, EgdbError> {
        let p = || path.display().to_string();
        if &h[0..8] != MAGIC {
            return Err(EgdbError::NotADatabase { path: p() });
        }
        let u32_at = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().unwrap());
        let version = u32_at(8);
        // Every format keeps the header checksum over bytes 0..44: a version this crate does
        // not read with a checksum that fails is a damaged header (which a build replaces),
        // not a newer file (which it leaves alone).
        let header_ok = u32_at(44) == crc32fast::hash(&h[..44]);
        if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) && header_ok {
            return Err(EgdbError::Version {
                path: p(),
                found: version,
                expected: FORMAT_VERSION,
            });
        }
        if !header_ok {
            return Err(EgdbError::Corrupt {
                path: p(),
                what: "header checksum mismatch".into(),
            });
        }
        let bad = |what: &str| EgdbError::Corrupt {
            path: p(),
            what: what.into(),
        };
        if u32_at(12) != HEADER_LEN as u32 {
            return Err(bad("bad header length"));
        }
        // The reserved bytes, outside the header checksum, are zero in every file written.
        if h[21..24]
            .iter()
            .chain(&h[28..32])
            .chain(&h[48..64])
            .any(|&b| b != 0)
        {
            return Err(bad("reserved header bytes are not zero"));
        }
        let capture = match h[17] {
            0 => CaptureRule::Standard,
            1 => CaptureRule::Empty,
            _ => return Err(bad("unknown capture rule code")),
        };
        let end = match h[18] {
            0 => EndRule::RowEmpty,
            1 => EndRule::MoverBlocked,
            _ => return Err(bad("unknown end rule code")),
        };
        let leftovers = match h[19] {
            0 => LeftoverRule::Owner,
            1 => LeftoverRule::Emptier,
            2 => LeftoverRule::Nobody,
            _ => return Err(bad("unknown leftover rule code")),
        };
        if h[20] != ENCODING_BYTE {
            return Err(bad("unknown value encoding"));
        }
        Ok(LayerHeader {
            version,
            houses: h[16] as usize,
            capture,
            end,
            leftovers,
            encoding: h[20],
            seeds: u32_at(24),
            count: u64::from_le_bytes(h[32..40].try_into().unwrap()),
            payload_crc: u32_at(40),
        })
    }

    /// The header a layer of `seeds` seeds for `houses` and `rules` must carry (checksum 0).
    pub fn expected(houses: usize, rules: &Rules, seeds: u32, count: u64) -> LayerHeader {
        LayerHeader {
            version: FORMAT_VERSION,
            houses,
            capture: rules.capture,
            end: rules.end,
            leftovers: rules.leftovers,
            encoding: ENCODING_BYTE,
            seeds,
            count,
            payload_crc: 0,
        }
    }
}

/// The subdirectory of a database root holding the layers of one board size and rule set, e.g.
/// `m6-standard-row-empty-owner`. Only the rules that change values name it: the pie and
/// Manchester rules concern the first moves only and share the databases.
pub fn set_dir_name(houses: usize, rules: &Rules) -> String {
    format!(
        "m{houses}-{}-{}-{}",
        rules.capture, rules.end, rules.leftovers
    )
}

/// Every board size and rule set a set directory may be for, with its name ([`set_dir_name`]):
/// 1 to 12 houses, each capture, end and leftover rule (the pie and Manchester rules, which do
/// not name sets, standard).
pub fn set_dir_names() -> impl Iterator<Item = (String, usize, Rules)> {
    let captures = [CaptureRule::Standard, CaptureRule::Empty];
    let ends = [EndRule::RowEmpty, EndRule::MoverBlocked];
    let leftovers = [
        LeftoverRule::Owner,
        LeftoverRule::Emptier,
        LeftoverRule::Nobody,
    ];
    (1..=kalah_core::MAX_HOUSES).flat_map(move |m| {
        captures.into_iter().flat_map(move |capture| {
            ends.into_iter().flat_map(move |end| {
                leftovers.into_iter().map(move |leftovers| {
                    let rules = Rules {
                        capture,
                        end,
                        leftovers,
                        ..Rules::default()
                    };
                    (set_dir_name(m, &rules), m, rules)
                })
            })
        })
    })
}

/// The board size and rules whose set directory is named `name` ([`set_dir_name`] read back;
/// the pie and Manchester rules, which do not name sets, standard), or `None` if `name` names
/// no set.
pub fn parse_set_dir_name(name: &str) -> Option<(usize, Rules)> {
    set_dir_names().find_map(|(n, m, rules)| (n == name).then_some((m, rules)))
}

/// The file name of the layer of `seeds` seeds in its set's directory: `k009.egdb`.
pub fn layer_file_name(seeds: u32) -> String {
    format!("k{seeds:03}.egdb")
}

/// The layer (seeds) a file name written by [`layer_file_name`] for a layer a build can make
/// holds (`k005.egdb` → 5, up to `k120.egdb`, [`MAX_LAYER_SEEDS`](crate::MAX_LAYER_SEEDS));
/// `None` for any other name (`k5.egdb`, `k999.egdb`), which no command takes for a layer.
pub fn parse_layer_file_name(name: &str) -> Option<u32> {
    let k: u32 = name
        .strip_prefix('k')?
        .strip_suffix(".egdb")?
        .parse()
        .ok()?;
    (layer_file_name(k) == name && k <= crate::MAX_LAYER_SEEDS).then_some(k)
}

/// The path of the layer file of `seeds` seeds under a database root.
pub fn layer_path(root: &Path, houses: usize, rules: &Rules, seeds: u32) -> PathBuf {
    root.join(set_dir_name(houses, rules))
        .join(layer_file_name(seeds))
}

/// Writes a layer file atomically: `path.tmp`, synced, renamed to `path`. The header's version
/// and payload checksum are set here; its other fields are written as given, after the checks
/// below.
///
/// # Errors
/// [`EgdbError::BadLayer`], before anything is written, if `header` cannot describe `payload`:
/// `houses` outside 1..=12, `seeds` past [`MAX_LAYER_SEEDS`](crate::MAX_LAYER_SEEDS), an
/// encoding other than the one this version writes, or `payload.len()` other than `count`.
/// [`EgdbError::Io`] on any file system error (the temporary file is removed).
pub fn write_layer(path: &Path, header: &LayerHeader, payload: &[u8]) -> Result<(), EgdbError> {
    let what = if !(1..=kalah_core::MAX_HOUSES).contains(&header.houses) {
        Some(format!(
            "a board of {} houses a side (1 to {} can be stored)",
            header.houses,
            kalah_core::MAX_HOUSES
        ))
    } else if header.seeds > crate::MAX_LAYER_SEEDS {
        Some(format!(
            "a layer of {} seeds (at most {})",
            header.seeds,
            crate::MAX_LAYER_SEEDS
        ))
    } else if header.encoding != ENCODING_BYTE {
        Some(format!(
            "value encoding {} (this version writes {ENCODING_BYTE})",
            header.encoding
        ))
    } else if payload.len() as u64 != header.count {
        Some(format!(
            "{} values for a header that counts {}",
            payload.len(),
            header.count
        ))
    } else {
        None
    };
    if let Some(what) = what {
        return Err(EgdbError::BadLayer {
            path: path.display().to_string(),
            what,
        });
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut h = *header;
    h.version = FORMAT_VERSION;
    h.payload_crc = crc32fast::hash(payload);
    let blocks: Vec<u8> = payload
        .chunks(BLOCK_BYTES)
        .flat_map(|b| crc32fast::hash(b).to_le_bytes())
        .collect();
    // A failure names the file it happened to: the temporary file, or the layer for the
    // rename (tester 52: a directory named like the temporary file was reported as the layer).
    let written = (|| {
        // A stale temporary file, or a link planted under its name, is removed rather than
        // written through; the new one must not exist.
        match std::fs::remove_file(&tmp) {
            // (Tester 107: a bare "Is a directory (os error 21)" said not what to do.)
            Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
                return Err(std::io::Error::other(
                    "a directory, where the build writes this layer's temporary file: remove it",
                ))
            }
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let mut f = File::options().write(true).create_new(true).open(&tmp)?;
        f.write_all(&h.encode())?;
        f.write_all(payload)?;
        f.write_all(&blocks)?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(&tmp, e));
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        // Refused (tester 88: a directory with the sticky bit, where only a file's owner may
        // replace it, gave a bare "Operation not permitted").
        if e.kind() == std::io::ErrorKind::PermissionDenied || e.raw_os_error() == Some(1) {
            return Err(io(
                path,
                std::io::Error::other(format!(
                    "{e}: this user may not replace this file (in a directory with the sticky \
                     bit, such as a shared one of mode 1777, only the file's owner or root may): \
                     its owner can delete it, or build as its owner"
                )),
            ));
        }
        return Err(io(path, e));
    }
    // The directory's new entry to disk too, so that a power loss cannot undo the rename of a
    // finished layer (tester 73). Best effort: some file systems refuse to sync a directory;
    // the layer is whole either way, and a lost one is built again.
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Opens a layer file, checks its header against `expected` (board, rules, seeds, count) and
/// its length, and maps it into memory. With `check_payload`, the payload's CRC-32 is checked
/// too (this reads the whole file); without it, opening reads only the header, and a flipped
/// byte in the payload goes unnoticed until [`check_payload`] (or `kalah egdb verify`) runs.
///
/// `Ok(None)` if the file does not exist.
///
/// # Errors
/// [`EgdbError`] if the file cannot be read, is not a database, of another version, truncated
/// or too long, for another board or rule set, or corrupt (a bad header; a bad payload when
/// checked); [`EgdbError::Unreadable`] if this user may not read it; [`EgdbError::NotAFile`]
/// if what is in its place is not a regular file (a directory, a FIFO, a device, a symbolic
/// link to nothing or one that cannot be followed).
pub fn open_layer(
    path: &Path,
    expected: &LayerHeader,
    check_payload: bool,
) -> Result<Option<Mmap>, EgdbError> {
    if !regular_file_in_place(path)? {
        return Ok(None);
    }
    let mut f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(open_error(path, e)),
    };
    let len = f.metadata().map_err(|e| io(path, e))?.len();
    let p = || path.display().to_string();
    if len < HEADER_LEN as u64 {
        let mut start = Vec::new();
        (&mut f)
            .take(MAGIC.len() as u64)
            .read_to_end(&mut start)
            .map_err(|e| io(path, e))?;
        return Err(short_file(
            path,
            &start,
            len,
            file_len(FORMAT_VERSION, expected.count),
        ));
    }
    let mut hb = [0u8; HEADER_LEN];
    f.read_exact(&mut hb).map_err(|e| io(path, e))?;
    let h = LayerHeader::decode(&hb, path)?;
    let mut want = *expected;
    want.payload_crc = h.payload_crc;
    want.version = h.version;
    if h != want {
        return Err(EgdbError::Mismatch {
            path: p(),
            found: describe(&h),
            expected: describe(expected),
        });
    }
    let total = file_len(h.version, h.count);
    if len != total {
        return Err(if len < total {
            EgdbError::Truncated {
                path: p(),
                expected: total,
                found: len,
            }
        } else {
            EgdbError::TooLong {
                path: p(),
                expected: total,
                found: len,
            }
        });
    }
    // SAFETY: the file is opened read-only; layer files are only ever replaced by rename, never
    // modified in place, so the mapping's contents do not change under us. (A file rewritten in
    // place by another program, `cp` over it say, breaks that: docs/EGDB.md warns against it.)
    let map = unsafe { Mmap::map(&f) }.map_err(|e| io(path, e))?;
    if check_payload {
        check_payload_crc(path, &map)?;
    }
    Ok(Some(map))
}

/// Checks the payload checksum of a whole layer file held in `file` (header included), as
/// mapped by [`open_layer`] or read from anywhere.
///
/// # Errors
/// [`EgdbError::Corrupt`] naming `path` if `file` is shorter than a header, or its length is
/// not the one its header's version and count of values give, or the payload's CRC-32 (or, in
/// format 2, a block's) differs from the stored one.
pub fn check_payload(path: &Path, file: &[u8]) -> Result<(), EgdbError> {
    // Bytes from anywhere (tester 42: a short slice panicked): the lengths first.
    let corrupt = |what: String| EgdbError::Corrupt {
        path: path.display().to_string(),
        what,
    };
    if file.len() < HEADER_LEN {
        return Err(corrupt(format!(
            "{} bytes, shorter than a layer header ({HEADER_LEN})",
            file.len()
        )));
    }
    let version = version_of(file);
    let count = u64::from_le_bytes(file[32..40].try_into().unwrap());
    // (A count above the length is refused before `file_len`, which could overflow.)
    let fits = count <= file.len() as u64 && file.len() as u64 == file_len(version, count);
    if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) || !fits {
        return Err(corrupt(format!(
            "{} bytes: not a layer file of format {version} with {count} values",
            file.len()
        )));
    }
    check_payload_crc(path, file)
}

fn check_payload_crc(path: &Path, file: &[u8]) -> Result<(), EgdbError> {
    let stored = u32::from_le_bytes(file[40..44].try_into().unwrap());
    let corrupt = |what: String| EgdbError::Corrupt {
        path: path.display().to_string(),
        what,
    };
    let values = values_of(file);
    if version_of(file) < 2 {
        if crc32fast::hash(values) != stored {
            return Err(corrupt("payload checksum mismatch".into()));
        }
        return Ok(());
    }
    // One pass: each block's checksum, combined into the whole payload's.
    let mut whole = crc32fast::Hasher::new();
    for (b, block) in values.chunks(BLOCK_BYTES).enumerate() {
        let mut h = crc32fast::Hasher::new();
        h.update(block);
        if h.clone().finalize() != stored_block_crc(file, b) {
            return Err(corrupt(format!(
                "block checksum mismatch (values {}..{})",
                b * BLOCK_BYTES,
                b * BLOCK_BYTES + block.len()
            )));
        }
        whole.combine(&h);
    }
    if whole.finalize() != stored {
        return Err(corrupt("payload checksum mismatch".into()));
    }
    Ok(())
}

/// The error for a file of `len` bytes, shorter than a header, that starts with `start`: a
/// truncated layer (`expected` bytes long) if it starts as a layer file does, else not a
/// database at all (notes, say: someone else's file, which a build must not replace).
fn short_file(path: &Path, start: &[u8], len: u64, expected: u64) -> EgdbError {
    let n = start.len().min(MAGIC.len());
    if start[..n] != MAGIC[..n] {
        return EgdbError::NotADatabase {
            path: path.display().to_string(),
        };
    }
    EgdbError::Truncated {
        path: path.display().to_string(),
        expected,
        found: len,
    }
}

/// Whether a regular file is in a layer's place at `path` (`false`: nothing is there).
///
/// # Errors
/// [`EgdbError::NotAFile`] for what is there but is no regular file: a FIFO or a device would
/// block the open or the read, a directory cannot be mapped, and a symbolic link to nothing
/// (or one that loops) is not a missing layer (tester 42); [`EgdbError::Unreadable`] for what
/// this user may not look at; [`EgdbError::Io`] for other file system errors.
fn regular_file_in_place(path: &Path) -> Result<bool, EgdbError> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && path.symlink_metadata().is_ok() => {
            Err(EgdbError::NotAFile {
                path: path.display().to_string(),
                what: "a symbolic link to nothing (a broken link)".to_string(),
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(open_error(path, e)),
        // A link that cannot be followed (a loop of links): no layer file, and a build leaves
        // a link alone (tester 67: `solve` and `probe` gave only the OS error).
        Err(e)
            if path
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink()) =>
        {
            Err(EgdbError::NotAFile {
                path: path.display().to_string(),
                what: format!("a symbolic link that cannot be followed ({e})"),
            })
        }
        Err(e) => Err(io(path, e)),
        Ok(m) if !m.is_file() => Err(not_a_file(path)),
        Ok(_) => Ok(true),
    }
}

fn not_a_file(path: &Path) -> EgdbError {
    EgdbError::NotAFile {
        path: path.display().to_string(),
        what: "not a regular file (a directory, a FIFO or a device)".to_string(),
    }
}

/// Reads just the header of a layer file (for `info`).
///
/// # Errors
/// [`EgdbError`] if it cannot be read or is not a layer file of this version.
pub fn read_header(path: &Path) -> Result<LayerHeader, EgdbError> {
    // What opening the set says of the same file (tester 60: a broken link was a bare OS
    // error here).
    if !regular_file_in_place(path)? {
        return Err(io(path, std::io::Error::from(std::io::ErrorKind::NotFound)));
    }
    let f = File::open(path).map_err(|e| open_error(path, e))?;
    let mut start = Vec::with_capacity(HEADER_LEN);
    f.take(HEADER_LEN as u64)
        .read_to_end(&mut start)
        .map_err(|e| io(path, e))?;
    if start.len() < HEADER_LEN {
        let found = start.len() as u64;
        return Err(short_file(path, &start, found, HEADER_LEN as u64));
    }
    let hb: [u8; HEADER_LEN] = start[..].try_into().expect("a whole header");
    LayerHeader::decode(&hb, path)
}

fn describe(h: &LayerHeader) -> String {
    format!(
        "m={} k={} capture={} end={} leftovers={} count={}",
        h.houses, h.seeds, h.capture, h.end, h.leftovers, h.count
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_file_names_read_back() {
        for k in [0, 5, 30, 120] {
            assert_eq!(parse_layer_file_name(&layer_file_name(k)), Some(k));
        }
        for other in [
            "k121.egdb",
            "k999.egdb",
            "k5.egdb",
            "k0005.egdb",
            "k005.egd",
            "x005.egdb",
            "k-01.egdb",
            "k005",
        ] {
            assert_eq!(parse_layer_file_name(other), None, "{other}");
        }
    }

    /// `check_payload` takes bytes from anywhere: short or inconsistent ones are corrupt, not a
    /// panic (tester 42).
    #[test]
    fn check_payload_refuses_bytes_of_the_wrong_length() {
        let p = Path::new("x");
        let mut count_huge = vec![0u8; 64];
        count_huge[8] = 2;
        count_huge[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
        let mut version_99 = vec![0u8; 64];
        version_99[8] = 99;
        let mut one_short = vec![0u8; file_len(2, 5000) as usize - 1];
        one_short[8] = 2;
        one_short[32..40].copy_from_slice(&5000u64.to_le_bytes());
        for (what, bytes) in [
            ("empty", vec![]),
            ("10 bytes", vec![0u8; 10]),
            ("count past the end", count_huge),
            ("version 99", version_99),
            ("one byte short", one_short),
        ] {
            let e = check_payload(p, &bytes).unwrap_err();
            assert!(matches!(e, EgdbError::Corrupt { .. }), "{what}: {e}");
        }
        // A layer of the right length whose checksums are right is fine.
        let mut good = vec![0u8; file_len(2, 0) as usize];
        good[8] = 2;
        good[40..44].copy_from_slice(&crc32fast::hash(&[]).to_le_bytes());
        assert!(check_payload(p, &good).is_ok());
    }
}
