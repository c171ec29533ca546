//! Building layers in increasing k, resuming from the last finished layer.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::time::Instant;

use kalah_core::Rules;
use memmap2::MmapMut;
use rayon::prelude::*;

use crate::file::{self, LayerHeader};
use crate::game::{Arr, Game};
use crate::index::{successor, Indexer, MAX_SLOTS};
use crate::solve::{Building, Expanded, Solver, UNKNOWN};
use crate::{check_rules, EgdbError, MAX_LAYER_SEEDS};

/// Arrangements handled as one unit of parallel work (and of progress reports).
const CHUNK: u64 = 1 << 16;
/// Arrangements expanded (children prefetched) before any is finished.
const BATCH: usize = 16;

/// What to build: a board size, a rule set, the largest layer, where, and on how many threads.
#[derive(Clone, Debug)]
pub struct BuildPlan {
    /// Database root (see [`crate::default_dir`]); layers go to a subdirectory named after the
    /// board and rules ([`crate::file::set_dir_name`]).
    pub root: PathBuf,
    /// Houses a side, 1..=12.
    pub houses: usize,
    /// The rule set. Only the capture, end and leftover rules matter; the majority end is refused.
    pub rules: Rules,
    /// Build layers 0..=max_seeds (seeds in the houses).
    pub max_seeds: u32,
    /// Worker threads; `None` uses every core; 0 counts as 1; more than
    /// [`MAX_THREADS`](crate::MAX_THREADS) is refused ([`EgdbError::Threads`]).
    pub threads: Option<usize>,
}

/// A report from a running build, passed to the build's callback.
#[derive(Clone, Debug)]
pub enum BuildEvent {
    /// Layer `seeds` was found complete and valid on disk and will not be rebuilt.
    Resumed {
        /// Seeds in the houses.
        seeds: u32,
    },
    /// Layer `seeds` is on disk but damaged (truncated, too long, or failing a checksum): it
    /// and the layers above it are built again, each file replaced by rename once rebuilt.
    Damaged {
        /// Seeds in the houses.
        seeds: u32,
        /// What is wrong, without the file name: `truncated (100 bytes, expected 2066)`.
        problem: String,
    },
    /// Layer `seeds` was complete and valid on disk in an older file format (1, without block
    /// checksums) and was rewritten in today's ([`file::FORMAT_VERSION`]); its values are
    /// unchanged. Sent instead of [`BuildEvent::Resumed`] (the layer counts as resumed).
    Upgraded {
        /// Seeds in the houses.
        seeds: u32,
    },
    /// Work on layer `seeds` begins.
    LayerStarted {
        /// Seeds in the houses.
        seeds: u32,
        /// Arrangements in the layer.
        count: u64,
    },
    /// Some arrangements were solved (sent about every 65 536).
    Progress {
        /// Arrangements solved or resumed so far, over all layers of the plan.
        done: u64,
        /// Arrangements in all layers of the plan.
        total: u64,
    },
    /// Layer `seeds` was written to its file.
    LayerWritten {
        /// Seeds in the houses.
        seeds: u32,
        /// Arrangements in the layer.
        count: u64,
        /// Seconds spent solving and writing it.
        seconds: f64,
    },
}

/// What a finished build did.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildReport {
    /// Layers found complete on disk.
    pub resumed_layers: u32,
    /// Layers built now.
    pub built_layers: u32,
    /// Arrangements solved now.
    pub positions_built: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Checks that this user may create (and remove) files in the set's directory `dir`, as a
/// build does (`kNNN.egdb.tmp`, renamed over `kNNN.egdb`), before any layer is checked or built
/// (tester 86: a user who might write the lock file but not the directory was told only after
/// every kept layer had been checked, with no remedy): creates an empty file named for this
/// process and removes it.
///
/// # Errors
/// Permission denied (or a read-only file system) with what to do; other I/O errors as they
/// are.
fn write_check(dir: &std::path::Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".write-check.{}", std::process::id()));
    let made = std::fs::File::options()
        .write(true)
        .create_new(true)
        .open(&probe);
    match made {
        Ok(_) => std::fs::remove_file(&probe),
        Err(e) => Err(cannot_write(e)),
    }
}

/// `e`, a failure to create a file in the set's directory, with what to do about it when it is
/// a permission or a read-only file system (tester 114: a set's directory already there on a
/// read-only mount gave a bare "Read-only file system (os error 30)").
fn cannot_write(e: std::io::Error) -> std::io::Error {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => std::io::Error::other(format!(
            "{e}: this user may not write in the set's directory (a build writes each layer \
             there, then renames it into place): build as a user who may, or in another \
             --egdb-dir; nothing was built"
        )),
        std::io::ErrorKind::ReadOnlyFilesystem => read_only(e),
        _ => e,
    }
}

/// `e`, a read-only file system, with what to do about it (tester 73: a read-only mount gave a
/// bare "Read-only file system (os error 30)").
fn read_only(e: std::io::Error) -> std::io::Error {
    std::io::Error::other(format!(
        "{e}: a build writes its layers here; build in another --egdb-dir; nothing was built"
    ))
}

/// A [`BuildPlan`] holding its set's build lock ([`BuildPlan::lock`]): no other build of the
/// same set can start until it is dropped.
pub struct BuildLock<'a> {
    plan: &'a BuildPlan,
    /// The plan's indexer, from its check.
    ix: Indexer,
    _file: std::fs::File,
}

impl BuildLock<'_> {
    /// Runs the locked plan's build, as [`BuildPlan::run`] describes.
    ///
    /// # Errors
    /// As [`BuildPlan::run`], except [`EgdbError::Busy`].
    pub fn run(
        &self,
        stop: &AtomicBool,
        on_event: &(dyn Fn(&BuildEvent) + Sync),
    ) -> Result<BuildReport, EgdbError> {
        let plan = self.plan;
        let pool = crate::worker_pool(plan.threads)?;
        pool.install(|| plan.run_in_pool(&self.ix, stop, on_event))
    }
}

impl BuildPlan {
    /// Checks the plan: rules that can be databased, a size that can be indexed.
    ///
    /// # Errors
    /// [`EgdbError::StoreDependentRules`] for the majority end; [`EgdbError::TooLarge`] for a
    /// number of houses outside 1..=12, more than [`MAX_LAYER_SEEDS`] seeds, layers that cannot
    /// be indexed, or layers whose files would hold 2^64 bytes or more together;
    /// [`EgdbError::Threads`] for more than
    /// [`MAX_THREADS`](crate::MAX_THREADS) threads.
    pub fn check(&self) -> Result<Indexer, EgdbError> {
        check_rules(&self.rules)?;
        if let Some(n) = self.threads.filter(|&n| n > crate::MAX_THREADS) {
            return Err(EgdbError::Threads(format!(
                "{n} threads asked for, at most {}",
                crate::MAX_THREADS
            )));
        }
        if self.max_seeds > MAX_LAYER_SEEDS {
            return Err(EgdbError::TooLarge {
                houses: self.houses,
                seeds: self.max_seeds,
            });
        }
        let ix = Indexer::new(self.houses, self.max_seeds)?;
        // Each layer fits its indexes, but their sum may not fit a u64 (tester 45: Kalah(8,·)
        // to 110 seeds overflowed `total_positions`). The files' bytes are at least the
        // positions, so once they fit, every total below does.
        let bytes = (0..=self.max_seeds).try_fold(0u64, |acc, k| {
            acc.checked_add(file::checked_file_len(
                file::FORMAT_VERSION,
                ix.layer_size(k),
            )?)
        });
        if bytes.is_none() {
            return Err(EgdbError::TooLarge {
                houses: self.houses,
                seeds: self.max_seeds,
            });
        }
        Ok(ix)
    }

    /// Arrangements in layers 0..=max_seeds: the build's work and about the memory the build
    /// needs (one byte a position; all layers are kept in memory).
    ///
    /// # Errors
    /// As [`BuildPlan::check`].
    pub fn total_positions(&self) -> Result<u64, EgdbError> {
        let ix = self.check()?;
        Ok((0..=self.max_seeds).map(|k| ix.layer_size(k)).sum())
    }

    /// Bytes on disk of layers 0..=max_seeds in the current file format
    /// ([`file::file_len`]: header, one byte a position, a checksum per block).
    ///
    /// # Errors
    /// As [`BuildPlan::check`].
    pub fn total_bytes(&self) -> Result<u64, EgdbError> {
        let ix = self.check()?;
        Ok((0..=self.max_seeds)
            .map(|k| file::file_len(file::FORMAT_VERSION, ix.layer_size(k)))
            .sum())
    }

    /// Runs the build: layers already complete on disk are checked and kept, the others are
    /// solved in increasing k and written one by one. `stop` is polled between chunks of work:
    /// once set, the build returns [`EgdbError::Interrupted`] without writing the layer in
    /// progress (finished layers stay; a later build resumes after them). The same as
    /// [`BuildPlan::lock`] then [`BuildLock::run`].
    ///
    /// The build keeps every layer in memory, about [`BuildPlan::total_positions`] bytes, and
    /// does not check that the machine has them: compare that with the memory available first
    /// (as `kalah egdb build` does), since under Linux's memory overcommit a build far too big
    /// may be killed by the kernel rather than fail with [`EgdbError::Io`] (out of memory).
    ///
    /// # Errors
    /// [`EgdbError`] for bad plans, a set another build holds ([`EgdbError::Busy`]), unreadable
    /// or corrupt existing layers, I/O errors, or an interruption.
    pub fn run(
        &self,
        stop: &AtomicBool,
        on_event: &(dyn Fn(&BuildEvent) + Sync),
    ) -> Result<BuildReport, EgdbError> {
        self.lock()?.run(stop, on_event)
    }

    /// Takes the set's build lock (`.build.lock` in the set's directory, created if need be),
    /// so that a front end can refuse a second build of the same set before it announces
    /// anything. One build at a time per set: two would write the same temporary files and
    /// fail. The lock is released when the [`BuildLock`] is dropped, or when its process dies.
    ///
    /// # Errors
    /// [`EgdbError::Busy`] if another build holds the lock; bad plans and I/O errors as
    /// [`BuildPlan::run`].
    pub fn lock(&self) -> Result<BuildLock<'_>, EgdbError> {
        let ix = self.check()?;
        let dir = self.root.join(file::set_dir_name(self.houses, &self.rules));
        let io = |p: &std::path::Path, e| EgdbError::Io {
            path: p.display().to_string(),
            source: e,
        };
        std::fs::create_dir_all(&dir).map_err(|e| {
            // The set's directory, or the root, is a file or a link to nothing.
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                let what = "it, or a directory above it, exists and is not a directory (a file, \
                            or a link to nothing)";
                io(&dir, std::io::Error::other(what))
            } else if e.kind() == std::io::ErrorKind::PermissionDenied {
                // A directory on the way this user may not search (the set's directory may be
                // there: tester 86), else the first directory missing on the way, which this
                // user may not create (tester 86: the set's directory was named when its root
                // was the one missing).
                if crate::unsearchable_dir(&dir).is_some() {
                    return crate::unreadable(&dir, e);
                }
                let missing = dir
                    .ancestors()
                    .take_while(|a| std::fs::symlink_metadata(a).is_err())
                    .last()
                    .unwrap_or(&dir);
                let what = format!(
                    "{e}: this user may not create this directory: build as a user who may, or \
                     in another --egdb-dir; nothing was built"
                );
                io(missing, std::io::Error::other(what))
            } else if e.kind() == std::io::ErrorKind::ReadOnlyFilesystem {
                io(&dir, read_only(e))
            } else {
                io(&dir, e)
            }
        })?;
        // The directory first: a read-only one is named as such, not as a lock file this user
        // may not write (tester 88).
        write_check(&dir).map_err(|e| io(&dir, e))?;
        let lock_path = dir.join(".build.lock");
        // A FIFO there would block the open for ever (tester 52), a device worse; a link would
        // make the build create and lock the file it points to (tester 107), so the open does
        // not follow one either (a link put there after this check).
        let not_a_file = || {
            io(
                &lock_path,
                std::io::Error::other(
                    "not a regular file (the build's lock is one; a link is not): remove it and \
                     build again",
                ),
            )
        };
        if std::fs::symlink_metadata(&lock_path).is_ok_and(|m| !m.is_file()) {
            return Err(not_a_file());
        }
        let mut options = std::fs::File::options();
        options.create(true).write(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NOFOLLOW);
        }
        let file = options.open(&lock_path).map_err(|e| {
            #[cfg(unix)]
            if e.raw_os_error() == Some(libc::ELOOP) {
                return not_a_file();
            }
            // Before anything else is written (tester 67: a bare "Permission denied").
            if e.kind() == std::io::ErrorKind::PermissionDenied {
                let what = format!(
                    "{e}: this user may not write the build's lock file (a build writes it \
                     first, in the set's directory; the file or the directory is read-only to \
                     this user): build as a user who may write both, or in another --egdb-dir, \
                     or remove the lock file if no build is running; nothing was built"
                );
                io(&lock_path, std::io::Error::other(what))
            } else if e.kind() == std::io::ErrorKind::ReadOnlyFilesystem {
                io(&lock_path, read_only(e))
            } else {
                io(&lock_path, e)
            }
        })?;
        match file.try_lock() {
            Ok(()) => Ok(BuildLock {
                plan: self,
                ix,
                _file: file,
            }),
            Err(std::fs::TryLockError::WouldBlock) => Err(EgdbError::Busy {
                path: dir.display().to_string(),
            }),
            Err(std::fs::TryLockError::Error(e)) => Err(io(&lock_path, e)),
        }
    }
    fn run_in_pool(
        &self,
        ix: &Indexer,
        stop: &AtomicBool,
        on_event: &(dyn Fn(&BuildEvent) + Sync),
    ) -> Result<BuildReport, EgdbError> {
        let t0 = Instant::now();
        let m = self.houses;
        let total: u64 = (0..=self.max_seeds).map(|k| ix.layer_size(k)).sum();
        let mut report = BuildReport::default();
        // Every finished layer, in anonymous memory (huge pages where the system allows).
        let mut mem: Vec<MmapMut> = Vec::new();
        let mut done = 0u64;
        // Resume: the longest run of complete, valid layers from k = 0.
        let mut k = 0u32;
        // The first damaged layer, announced only once nothing in the way stops the build
        // (tester 76: "building it again", then "nothing was built").
        let mut damaged: Option<(u32, String)> = None;
        while k <= self.max_seeds {
            let path = file::layer_path(&self.root, m, &self.rules, k);
            let want = LayerHeader::expected(m, &self.rules, k, ix.layer_size(k));
            let opened = match file::open_layer(&path, &want, true) {
                Ok(opened) => opened,
                // A damaged layer is built again (the file is only replaced once the new one is
                // complete); another version's or another set's file is the user's to move, and
                // so is a link to a damaged layer (tester 81: the build replaced the link by a
                // file, leaving its damaged target, where `verify` and EGDB.md say a build
                // leaves a link alone).
                Err(e) => match damage_of(&e) {
                    Some(problem) => {
                        link_in_the_way(&path, &format!("to a damaged layer file, {problem}"))?;
                        damaged = Some((k, problem));
                        None
                    }
                    None => return Err(in_the_way(e)),
                },
            };
            match opened {
                Some(map) => {
                    let values = file::values_of(&map);
                    let mut t = alloc(&path, values.len())?;
                    t.copy_from_slice(values);
                    // An older format is rewritten, except through a link (a build never
                    // replaces a link; that format is still read).
                    if file::version_of(&map) < file::FORMAT_VERSION && !is_link(&path) {
                        drop(map);
                        file::write_layer(&path, &want, &t)?;
                        on_event(&BuildEvent::Upgraded { seeds: k });
                    } else {
                        on_event(&BuildEvent::Resumed { seeds: k });
                    }
                    mem.push(t);
                    done += ix.layer_size(k);
                    report.resumed_layers += 1;
                    k += 1;
                }
                None => break,
            }
        }
        // The layers about to be built must not replace a file that is not a damaged layer of
        // this set (another version's, another set's, not a database, not a file): those are
        // the user's to move, above a missing layer as well as at the first one built.
        for j in k..=self.max_seeds {
            let path = file::layer_path(&self.root, m, &self.rules, j);
            let want = LayerHeader::expected(m, &self.rules, j, ix.layer_size(j));
            // A link there is in the way whatever it leads to: the build would replace it.
            match file::open_layer(&path, &want, false) {
                Ok(_) => link_in_the_way(&path, "which this build would write anew")?,
                Err(e) => match damage_of(&e) {
                    Some(problem) => {
                        link_in_the_way(&path, &format!("to a damaged layer file, {problem}"))?
                    }
                    None => return Err(in_the_way(e)),
                },
            }
        }
        if let Some((seeds, problem)) = damaged {
            on_event(&BuildEvent::Damaged { seeds, problem });
        }
        on_event(&BuildEvent::Progress { done, total });
        while k <= self.max_seeds {
            let tl = Instant::now();
            let size = ix.layer_size(k);
            on_event(&BuildEvent::LayerStarted {
                seeds: k,
                count: size,
            });
            let path = file::layer_path(&self.root, m, &self.rules, k);
            let mut buf = alloc(&path, size as usize)?;
            buf.fill(UNKNOWN);
            {
                let lower: Vec<&[u8]> = mem.iter().map(|v| &v[..]).collect();
                let job = LayerJob {
                    rules: &self.rules,
                    ix,
                    k,
                    lower: &lower,
                    stop,
                    done,
                    total,
                    on_event,
                };
                let cur = as_atomic(&mut buf);
                let finished = crate::dispatch_m!(m, solve_layer(&job, cur));
                if finished.is_err() {
                    return Err(EgdbError::Interrupted);
                }
            }
            file::write_layer(&path, &LayerHeader::expected(m, &self.rules, k, size), &buf)?;
            done += size;
            report.built_layers += 1;
            report.positions_built += size;
            on_event(&BuildEvent::LayerWritten {
                seeds: k,
                count: size,
                seconds: tl.elapsed().as_secs_f64(),
            });
            mem.push(buf);
            k += 1;
        }
        report.seconds = t0.elapsed().as_secs_f64();
        Ok(report)
    }
}

/// An anonymous zeroed buffer of `len` bytes, asking for transparent huge pages (the build's
/// random reads then miss the TLB far less often).
fn alloc(path: &std::path::Path, len: usize) -> Result<MmapMut, EgdbError> {
    let map = MmapMut::map_anon(len.max(1)).map_err(|source| EgdbError::Io {
        path: format!("memory for {}", path.display()),
        source,
    })?;
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    Ok(map)
}

/// Everything a worker needs to solve one layer.
struct LayerJob<'a> {
    rules: &'a Rules,
    ix: &'a Indexer,
    k: u32,
    lower: &'a [&'a [u8]],
    stop: &'a AtomicBool,
    done: u64,
    total: u64,
    on_event: &'a (dyn Fn(&BuildEvent) + Sync),
}

/// Solves every entry of layer `job.k` into `cur` (filled with [`UNKNOWN`]), in parallel chunks.
/// `Err(())` if `job.stop` was set.
fn solve_layer<const M: usize>(job: &LayerJob<'_>, cur: &[AtomicU8]) -> Result<(), ()> {
    let ix = job.ix;
    let k = job.k;
    let size = ix.layer_size(k);
    let solver: Solver<'_, _, M> = Solver {
        game: Game::<M>::new(job.rules, k),
        ix,
        k,
        lower: job.lower,
        cur: Building(cur),
    };
    let counter = AtomicU64::new(job.done);
    let chunks = size.div_ceil(CHUNK);
    (0..chunks).into_par_iter().try_for_each(|c| {
        if job.stop.load(Ordering::Relaxed) {
            return Err(());
        }
        let start = c * CHUNK;
        let end = size.min(start + CHUNK);
        // Rank order. (Visiting the arrangements in the rank order of their flips, so that
        // the children of consecutive arrangements lie close together, was measured slower:
        // the parents' own entries are then scattered.)
        let mut x: Arr = [0; MAX_SLOTS];
        ix.unrank(k, start, &mut x[..2 * M]);
        // Batches of BATCH arrangements: expand all (prefetching their children), then finish.
        let mut batch = [Expanded::<M>::default(); BATCH];
        let mut ranks = [0u64; BATCH];
        let mut r = start;
        while r < end {
            let mut nb = 0;
            while nb < BATCH && r < end {
                if cur[r as usize].load(Ordering::Relaxed) == UNKNOWN {
                    solver.expand(&x, &mut batch[nb]);
                    ranks[nb] = r;
                    nb += 1;
                }
                successor(&mut x[..2 * M]);
                r += 1;
            }
            for (e, &rr) in batch[..nb].iter().zip(&ranks[..nb]) {
                let v = solver.finish(e);
                cur[rr as usize].store(v as i8 as u8, Ordering::Relaxed);
            }
        }
        let d = counter.fetch_add(end - start, Ordering::Relaxed) + (end - start);
        (job.on_event)(&BuildEvent::Progress {
            done: d,
            total: job.total,
        });
        Ok(())
    })
}

/// Views a byte buffer as atomics for the parallel build.
fn as_atomic(buf: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has the same size and alignment as u8 (documented), and the exclusive
    // borrow of `buf` guarantees no other access for the returned lifetime.
    unsafe { &*(buf as *mut [u8] as *const [AtomicU8]) }
}

/// What is wrong with a damaged layer file (truncated, too long, corrupt), which a build
/// replaces; `None` for any other error.
fn damage_of(e: &EgdbError) -> Option<String> {
    match e {
        EgdbError::Truncated {
            expected, found, ..
        } => Some(format!("truncated ({found} bytes, expected {expected})")),
        EgdbError::TooLong {
            expected, found, ..
        } => Some(format!("too long ({found} bytes, expected {expected})")),
        EgdbError::Corrupt { what, .. } => Some(format!("corrupt ({what})")),
        _ => None,
    }
}

/// Whether `path` is a symbolic link (to anything).
fn is_link(path: &Path) -> bool {
    path.symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
}

/// A symbolic link in the place of a layer the build would write is in the way: a build leaves
/// a link alone (renaming a new file over it would replace the link, and keep a damaged
/// target). `what`: what the link leads to, for the message (`to a damaged layer file, ...`).
fn link_in_the_way(path: &Path, what: &str) -> Result<(), EgdbError> {
    if is_link(path) {
        return Err(EgdbError::InTheWay {
            path: path.display().to_string(),
            what: format!("a symbolic link {what}"),
        });
    }
    Ok(())
}

/// An error met opening what is in a layer's place before a build writes anything: a file
/// system error there (a directory, a broken link) becomes [`EgdbError::InTheWay`], which says
/// that nothing was built and what to do, as does a whole file of another set, layer, format
/// or version ([`EgdbError::Mismatch`], [`EgdbError::NotADatabase`], [`EgdbError::Version`]);
/// other errors (a file this user may not read,
/// whose remedy is its permissions, not moving it away: tester 88) already say so.
fn in_the_way(e: EgdbError) -> EgdbError {
    match e {
        EgdbError::Io { path, source } => EgdbError::InTheWay {
            path,
            what: format!("cannot be opened: {source}"),
        },
        EgdbError::NotAFile { path, what } => EgdbError::InTheWay { path, what },
        // A whole file of another board, rule set, layer, format or version (tester 101: the
        // advice was to "build it again", which is what was running).
        EgdbError::Mismatch { ref path, .. }
        | EgdbError::NotADatabase { ref path }
        | EgdbError::Version { ref path, .. } => EgdbError::InTheWay {
            path: path.clone(),
            what: e.whole_file_what().unwrap_or_default(),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set's directory that cannot be written says what to do, whether for a permission or a
    /// read-only file system (tester 114: the set's directory already there on a read-only
    /// mount gave a bare "Read-only file system (os error 30)"); other errors pass unchanged.
    #[test]
    fn a_directory_that_cannot_be_written_says_what_to_do() {
        use std::io::{Error, ErrorKind};
        let ro = cannot_write(Error::from(ErrorKind::ReadOnlyFilesystem)).to_string();
        assert!(ro.contains("build in another --egdb-dir"), "{ro}");
        assert!(ro.contains("nothing was built"), "{ro}");
        let denied = cannot_write(Error::from(ErrorKind::PermissionDenied)).to_string();
        assert!(
            denied.contains("may not write in the set's directory"),
            "{denied}"
        );
        let full = cannot_write(Error::from(ErrorKind::StorageFull));
        assert_eq!(full.kind(), ErrorKind::StorageFull);
        assert!(!full.to_string().contains("--egdb-dir"));
    }
}
