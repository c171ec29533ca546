//! Layer files: corruption and truncation refused, interrupted builds leave only complete files,
//! builds resume, verify catches wrong values.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use kalah_core::{CaptureRule, Rules};
use kalah_egdb::file::{layer_path, set_dir_name, write_layer, LayerHeader, HEADER_LEN};
use kalah_egdb::{BuildEvent, BuildPlan, Egdb, EgdbError};

fn plan(dir: &Path, m: usize, k: u32) -> BuildPlan {
    BuildPlan {
        root: dir.to_path_buf(),
        houses: m,
        rules: Rules::default(),
        max_seeds: k,
        threads: Some(2),
    }
}

fn built(m: usize, k: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    plan(dir.path(), m, k)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap();
    dir
}

fn open_err(dir: &Path, m: usize) -> EgdbError {
    Egdb::open(dir, m, &Rules::default()).unwrap_err()
}

#[test]
fn corrupted_payload_is_refused() {
    let dir = built(3, 8);
    let path = layer_path(dir.path(), 3, &Rules::default(), 6);
    let mut bytes = fs::read(&path).unwrap();
    bytes[HEADER_LEN + 17] ^= 0x01;
    fs::write(&path, &bytes).unwrap();
    // A plain open checks small layers' payloads too, and does not use one that fails: its
    // positions get no value (a search finds them), other layers answer. The checked open, the
    // checksum check and verify refuse the set.
    let db = Egdb::open(dir.path(), 3, &Rules::default())
        .unwrap()
        .unwrap();
    let in_6: kalah_core::Position = "1,2,1,0,1,1,0,4 S".parse().unwrap();
    let in_5: kalah_core::Position = "1,2,0,0,1,1,0,4 S".parse().unwrap();
    // Named at once, before any probe (tester 106: a solve that never probed it said nothing).
    assert_eq!(db.damaged_layer(), Some(6));
    assert_eq!(db.probe(&in_6, &Rules::default()), None);
    assert_eq!(db.damaged_layer(), Some(6));
    assert!(db
        .damage()
        .unwrap()
        .contains("k006.egdb fails its checksum"));
    assert!(db.probe(&in_5, &Rules::default()).is_some());
    let checks = [
        Egdb::open_checked(dir.path(), 3, &Rules::default()).unwrap_err(),
        db.check_checksums().unwrap_err(),
        db.verify(Some(2), &AtomicBool::new(false), &|_, _| {})
            .unwrap_err(),
    ];
    for e in checks {
        assert!(matches!(e, EgdbError::Corrupt { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains("k006.egdb") && msg.contains("checksum"),
            "{msg}"
        );
    }
    // The intact set passes every check.
    bytes[HEADER_LEN + 17] ^= 0x01;
    fs::write(&path, &bytes).unwrap();
    Egdb::open_checked(dir.path(), 3, &Rules::default())
        .unwrap()
        .unwrap();
    bytes[HEADER_LEN + 17] ^= 0x01;
    fs::write(&path, &bytes).unwrap();
    // A build does not resume over it: it says so and builds it (and the layers above) again.
    let damaged = std::sync::Mutex::new(Vec::new());
    let report = plan(dir.path(), 3, 8)
        .run(&AtomicBool::new(false), &|e| {
            if let BuildEvent::Damaged { seeds, problem } = e {
                damaged.lock().unwrap().push((*seeds, problem.clone()));
            }
        })
        .unwrap();
    assert_eq!(
        damaged.into_inner().unwrap(),
        [(
            6,
            "corrupt (block checksum mismatch (values 0..462))".to_string()
        )]
    );
    assert_eq!((report.resumed_layers, report.built_layers), (6, 3));
    bytes[HEADER_LEN + 17] ^= 0x01;
    assert!(fs::read(&path).unwrap() == bytes, "layer 6 as first built");
    Egdb::open_checked(dir.path(), 3, &Rules::default())
        .unwrap()
        .unwrap();
}

#[test]
fn corrupted_header_is_refused() {
    let dir = built(3, 5);
    let path = layer_path(dir.path(), 3, &Rules::default(), 4);
    let mut bytes = fs::read(&path).unwrap();
    bytes[24] = 5; // seeds field
    fs::write(&path, &bytes).unwrap();
    assert!(matches!(open_err(dir.path(), 3), EgdbError::Corrupt { .. }));
    bytes[0] = b'X';
    fs::write(&path, &bytes).unwrap();
    assert!(matches!(
        open_err(dir.path(), 3),
        EgdbError::NotADatabase { .. }
    ));
    bytes[0] = b'K';
    bytes[8] = 99; // version, with the header checksum a newer kalah would write
    let crc = crc32fast::hash(&bytes[..44]);
    bytes[44..48].copy_from_slice(&crc.to_le_bytes());
    fs::write(&path, &bytes).unwrap();
    assert!(matches!(
        open_err(dir.path(), 3),
        EgdbError::Version { found: 99, .. }
    ));
}

#[test]
fn truncated_files_are_refused() {
    let dir = built(3, 6);
    let path = layer_path(dir.path(), 3, &Rules::default(), 5);
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    let e = open_err(dir.path(), 3);
    assert!(matches!(e, EgdbError::Truncated { .. }), "{e:?}");
    assert!(e.to_string().contains("truncated"), "{e}");
    fs::write(&path, &bytes[..10]).unwrap();
    assert!(matches!(
        open_err(dir.path(), 3),
        EgdbError::Truncated { .. }
    ));
    // Too long is refused too, in the words `kalah egdb info` uses (tester 60: "corrupt (1 more
    // than the header announces)" there).
    let mut long = bytes.clone();
    long.push(0);
    fs::write(&path, &long).unwrap();
    let e = open_err(dir.path(), 3);
    let (n, expected) = (long.len(), bytes.len());
    assert!(matches!(e, EgdbError::TooLong { .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains(&format!("too long ({n} bytes, expected {expected})")),
        "{e}"
    );
}

/// Several bad layer files: opening the set names every one, in layer order, not whichever the
/// parallel opening met first (tester 60: `solve` and `probe` named one, not always the
/// lowest); a single bad file keeps its own error.
#[test]
fn every_bad_layer_is_named_on_opening() {
    let dir = built(3, 7);
    let rules = Rules::default();
    let bad = [2u32, 5, 6];
    for &k in &bad {
        let path = layer_path(dir.path(), 3, &rules, k);
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    }
    let e = open_err(dir.path(), 3);
    let EgdbError::BadLayers { errors } = &e else {
        panic!("{e:?}")
    };
    let named: Vec<(u32, String)> = errors
        .iter()
        .map(|(k, e)| match e {
            EgdbError::Truncated { path, .. } => (*k, path.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    let expected: Vec<(u32, String)> = bad
        .iter()
        .map(|&k| {
            (
                k,
                layer_path(dir.path(), 3, &rules, k).display().to_string(),
            )
        })
        .collect();
    assert_eq!(named, expected);
    let text = e.to_string();
    assert!(
        text.starts_with("3 bad layer files (layers 2 and 5..=6): "),
        "{text}"
    );
    for (_, path) in &expected {
        assert_eq!(text.matches(path.as_str()).count(), 1, "{text}");
    }
    // The advice after each damaged file is the caller's to choose, counted in the order the
    // message names the files; the default is the general advice.
    assert_eq!(
        e.message_with(&mut |_, _| Some(kalah_egdb::REBUILD_ADVICE.to_string())),
        text
    );
    let mut seen = Vec::new();
    let custom = e.message_with(&mut |i, repair| {
        assert_eq!(repair, kalah_egdb::Repair::Rebuild);
        seen.push(i);
        (i != 1).then(|| format!("advice {i}"))
    });
    assert_eq!(seen, [0, 1, 2]);
    let (damage, _) = errors[0].1.damage().unwrap();
    assert!(damage.starts_with("truncated ("), "{damage}");
    assert!(
        custom.contains(&format!("{}: {damage}; advice 0; ", expected[0].1)),
        "{custom}"
    );
    assert!(
        custom.contains(&format!("{}: truncated (", expected[1].1)),
        "{custom}"
    );
    assert!(custom.ends_with("; advice 2"), "{custom}");
    assert!(!custom.contains(kalah_egdb::REBUILD_ADVICE), "{custom}");
    assert_eq!(custom.matches("advice").count(), 2, "{custom}");
    // More than are shown in full: counted.
    let path = layer_path(dir.path(), 3, &rules, 7);
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    let text = open_err(dir.path(), 3).to_string();
    assert!(
        text.starts_with("4 bad layer files (layers 2 and 5..=7): "),
        "{text}"
    );
    assert!(!text.contains(&path.display().to_string()), "{text}");
    assert!(
        text.ends_with("; and 1 more (`kalah egdb info` lists each)"),
        "{text}"
    );
    // Mended but one: that one's own error.
    plan(dir.path(), 3, 7)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap();
    let path = layer_path(dir.path(), 3, &rules, 4);
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    assert!(matches!(
        open_err(dir.path(), 3),
        EgdbError::Truncated { .. }
    ));
}

#[test]
fn a_layer_of_other_rules_is_refused() {
    let dir = built(3, 4);
    let rules = Rules::default();
    let empty = Rules {
        capture: CaptureRule::Empty,
        ..rules
    };
    // Put the standard-capture layer 2 where the empty-capture one belongs.
    let ours = layer_path(dir.path(), 3, &rules, 2);
    let theirs = layer_path(dir.path(), 3, &empty, 2);
    fs::create_dir_all(theirs.parent().unwrap()).unwrap();
    for k in 0..2 {
        fs::copy(
            layer_path(dir.path(), 3, &rules, k),
            layer_path(dir.path(), 3, &empty, k),
        )
        .unwrap();
    }
    fs::copy(&ours, &theirs).unwrap();
    // Layers 0 and 1 are standard-capture copies as well: all three are named.
    let e = Egdb::open(dir.path(), 3, &empty).unwrap_err();
    let EgdbError::BadLayers { errors } = &e else {
        panic!("{e:?}")
    };
    assert!(
        errors
            .iter()
            .all(|(_, e)| matches!(e, EgdbError::Mismatch { .. })),
        "{e:?}"
    );
    assert_eq!(
        errors.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert!(e.to_string().contains("capture=standard"), "{e}");
}

/// A header that cannot describe its payload is refused before anything is written: a file
/// already at the path stays as it was, and no temporary file is left.
#[test]
fn a_layer_whose_header_does_not_fit_is_not_written() {
    let dir = built(3, 4);
    let rules = Rules::default();
    let path = layer_path(dir.path(), 3, &rules, 4);
    let before = fs::read(&path).unwrap();
    let good = LayerHeader::expected(3, &rules, 4, 3);
    let cases = [
        (LayerHeader::expected(300, &rules, 4, 3), "300 houses"),
        (LayerHeader::expected(0, &rules, 4, 3), "0 houses"),
        (LayerHeader::expected(3, &rules, 4000, 3), "4000 seeds"),
        (
            LayerHeader {
                encoding: 9,
                ..good
            },
            "encoding 9",
        ),
        (LayerHeader::expected(3, &rules, 4, 2), "counts 2"),
    ];
    for (header, what) in cases {
        match write_layer(&path, &header, &[1, 2, 3]) {
            Err(e @ EgdbError::BadLayer { .. }) => {
                assert!(e.to_string().contains(what), "{e}");
                assert!(e.to_string().contains("not written"), "{e}");
            }
            other => panic!("{what}: {other:?}"),
        }
        assert_eq!(fs::read(&path).unwrap(), before, "{what}");
    }
    let names: Vec<_> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn verify_finds_a_wrong_value_with_a_good_checksum() {
    let dir = built(3, 7);
    let rules = Rules::default();
    let db = Egdb::open(dir.path(), 3, &rules).unwrap().unwrap();
    let stop = AtomicBool::new(false);
    let ok = db.verify(Some(2), &stop, &|_, _| {}).unwrap();
    assert_eq!(ok.mismatches, 0);
    assert_eq!(ok.positions, (0..=7).map(|k| db.layer_size(k)).sum::<u64>());
    // Rewrite layer 6 with one value changed and a fresh checksum.
    let path = layer_path(dir.path(), 3, &rules, 6);
    let mut payload = db.layer_values(6).to_vec();
    drop(db);
    payload[100] = payload[100].wrapping_add(2);
    let count = payload.len() as u64;
    write_layer(&path, &LayerHeader::expected(3, &rules, 6, count), &payload).unwrap();
    let db = Egdb::open(dir.path(), 3, &rules).unwrap().unwrap();
    let bad = db.verify(Some(2), &stop, &|_, _| {}).unwrap();
    assert!(bad.mismatches >= 1);
    let (k, r, _, _) = bad.first.unwrap();
    assert!(k == 6 || k == 7, "first mismatch in layer {k}");
    // The layers that differ, lowest first: the first mismatch's layer heads them.
    assert_eq!(bad.bad_layers.first(), Some(&k));
    assert!(bad.bad_layers.windows(2).all(|w| w[0] < w[1]));
    assert!(bad.bad_layers.iter().all(|&j| (6..=7).contains(&j)));
    if k == 6 {
        assert_eq!(r, 100);
    }
}

#[test]
fn an_interrupted_build_leaves_complete_files_and_resumes() {
    let (m, kmax, stop_in) = (4usize, 12u32, 9u32);
    let dir = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    // Stop as layer `stop_in` starts, as Ctrl-C would.
    let e = plan(dir.path(), m, kmax)
        .run(&stop, &|e| {
            if let BuildEvent::LayerStarted { seeds, .. } = *e {
                if seeds == stop_in {
                    stop.store(true, Ordering::SeqCst)
                }
            }
        })
        .unwrap_err();
    assert!(matches!(e, EgdbError::Interrupted), "{e:?}");
    let set = layer_path(dir.path(), m, &Rules::default(), 0)
        .parent()
        .unwrap()
        .to_path_buf();
    let mut names: Vec<String> = fs::read_dir(&set)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // The set's build lock stays (empty; released when the build ended).
    assert_eq!(names.first().map(String::as_str), Some(".build.lock"));
    names.remove(0);
    let want: Vec<String> = (0..stop_in).map(|k| format!("k{k:03}.egdb")).collect();
    assert_eq!(names, want, "only finished layers, no temporary file");
    let db = Egdb::open(dir.path(), m, &Rules::default())
        .unwrap()
        .unwrap();
    assert_eq!(db.max_seeds(), stop_in - 1);
    drop(db);
    // Resume: the finished layers are kept, the rest built.
    let resumed = AtomicU32::new(0);
    let report = plan(dir.path(), m, kmax)
        .run(&AtomicBool::new(false), &|e| {
            if let BuildEvent::Resumed { .. } = e {
                resumed.fetch_add(1, Ordering::SeqCst);
            }
        })
        .unwrap();
    assert_eq!(resumed.load(Ordering::SeqCst), stop_in);
    assert_eq!(report.resumed_layers, stop_in);
    assert_eq!(report.built_layers, kmax + 1 - stop_in);
    // Same bytes as an uninterrupted build.
    let fresh = built(m, kmax);
    for k in 0..=kmax {
        let a = fs::read(layer_path(dir.path(), m, &Rules::default(), k)).unwrap();
        let b = fs::read(layer_path(fresh.path(), m, &Rules::default(), k)).unwrap();
        assert!(a == b, "layer {k} differs after resuming");
    }
}

/// Regression (fresh-user tester): a layer whose payload was overwritten (header intact) gave
/// impossible values (+40 with 9 seeds in the houses) to every probe. A probe now refuses a value
/// outside ± the seeds in the houses or of the wrong parity, and the set names the layer.
#[test]
fn impossible_values_are_not_returned_and_name_the_layer() {
    let dir = built(3, 10);
    let rules = Rules::default();
    let pos: kalah_core::Position = "1,2,0,5,2,3,1,4 S".parse().unwrap();
    let db = Egdb::open(dir.path(), 3, &rules).unwrap().unwrap();
    let good = db.probe(&pos, &rules).expect("covered");
    assert!(good.abs() <= 9, "{good}");
    assert_eq!(db.damaged_layer(), None);
    drop(db);
    let path = layer_path(dir.path(), 3, &rules, 9);
    let header = kalah_egdb::file::read_header(&path).unwrap();
    let mut bytes = fs::read(&path).unwrap();
    // The values damaged behind matching checksums, as the checksums of a large layer are not
    // checked on open (a small layer's would be caught there).
    let values = HEADER_LEN..HEADER_LEN + header.count as usize;
    for b in &mut bytes[values.clone()] {
        *b = 40;
    }
    kalah_egdb::file::write_layer(&path, &header, &bytes[values.clone()]).unwrap();
    let db = Egdb::open(dir.path(), 3, &rules).unwrap().unwrap();
    assert_eq!(
        db.probe(&pos, &rules),
        None,
        "+40 with 9 seeds is impossible"
    );
    assert_eq!(db.damaged_layer(), Some(9));
    assert_eq!(db.layer_path(9), path);
    // Other layers still answer.
    let small: kalah_core::Position = "1,0,0,5,0,1,1,4 S".parse().unwrap();
    assert!(db.probe(&small, &rules).is_some());
    // A value within range but of the wrong parity (9 seeds in play, every seed ends in a
    // store: the gain is odd) is refused too.
    for b in &mut bytes[values.clone()] {
        *b = 2;
    }
    kalah_egdb::file::write_layer(&path, &header, &bytes[values]).unwrap();
    let db = Egdb::open(dir.path(), 3, &rules).unwrap().unwrap();
    assert_eq!(db.probe(&pos, &rules), None);
    assert_eq!(db.damaged_layer(), Some(9));
}

/// Regression (fresh-user tester): two builds of one set at once wrote the same temporary files,
/// and one failed with `k000.egdb: No such file or directory`. The second now stops at once
/// with a clear error, and builds again once the first is done.
#[test]
fn a_second_build_of_the_same_set_is_refused_while_one_runs() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir
        .path()
        .join(kalah_egdb::file::set_dir_name(3, &Rules::default()));
    fs::create_dir_all(&set).unwrap();
    // Another build holds the set's lock.
    let held = fs::File::create(set.join(".build.lock")).unwrap();
    held.try_lock().unwrap();
    let e = plan(dir.path(), 3, 6)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap_err();
    assert!(matches!(e, EgdbError::Busy { .. }), "{e:?}");
    assert!(e.to_string().contains("another `kalah egdb build`"), "{e}");
    // Another set is not locked.
    BuildPlan {
        rules: Rules {
            capture: CaptureRule::Empty,
            ..Rules::default()
        },
        ..plan(dir.path(), 3, 6)
    }
    .run(&AtomicBool::new(false), &|_| {})
    .unwrap();
    drop(held);
    plan(dir.path(), 3, 6)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap();
    Egdb::open_checked(dir.path(), 3, &Rules::default())
        .unwrap()
        .unwrap();
}

/// Set directory names read back to their board and rules, and nothing else reads as one.
#[test]
fn set_directory_names_read_back() {
    use kalah_core::{CaptureRule, EndRule, LeftoverRule, Rules};
    use kalah_egdb::file::parse_set_dir_name;
    let rules = Rules {
        capture: CaptureRule::Empty,
        end: EndRule::MoverBlocked,
        leftovers: LeftoverRule::Nobody,
        ..Rules::default()
    };
    for m in [1, 6, 12] {
        for r in [Rules::default(), rules] {
            assert_eq!(parse_set_dir_name(&set_dir_name(m, &r)), Some((m, r)));
        }
    }
    assert_eq!(
        parse_set_dir_name("m5-standard-row-empty-owner"),
        Some((5, Rules::default()))
    );
    for name in [
        "m13-standard-row-empty-owner",
        "m6-standard",
        "eg",
        "",
        "m6-standard-row-empty-owner/",
    ] {
        assert_eq!(parse_set_dir_name(name), None, "{name}");
    }
}

/// More worker threads than `MAX_THREADS` are refused before any work, by the plan's check,
/// the build and the verify (library tester: 100 000 threads ran 532 s before failing); the
/// cap itself is accepted.
#[test]
fn too_many_threads_are_refused_at_once() {
    let dir = built(2, 3);
    let mut p = plan(dir.path(), 2, 3);
    p.threads = Some(kalah_egdb::MAX_THREADS + 1);
    let want = format!(
        "{} threads asked for, at most 256",
        kalah_egdb::MAX_THREADS + 1
    );
    for e in [
        p.check().unwrap_err(),
        p.run(&AtomicBool::new(false), &|_| {}).unwrap_err(),
        Egdb::open(dir.path(), 2, &Rules::default())
            .unwrap()
            .unwrap()
            .verify(Some(100_000), &AtomicBool::new(false), &|_, _| {})
            .unwrap_err(),
    ] {
        assert!(matches!(e, EgdbError::Threads(_)), "{e}");
        let text = e.to_string();
        assert!(text.contains("at most 256"), "{text}");
        if text.contains(&(kalah_egdb::MAX_THREADS + 1).to_string()) {
            assert!(text.contains(&want), "{text}");
        }
    }
    p.threads = Some(kalah_egdb::MAX_THREADS);
    assert!(p.check().is_ok());
}

/// The first position of Kalah(3,·) at rank `rank` or after in layer `k` whose game goes on
/// (both rows hold seeds), South to move (its arrangement is South's houses, then North's),
/// with the rank it has; within the block of `rank` for the ranks used here.
fn position_at(k: u32, rank: u64) -> kalah_core::Position {
    let ix = kalah_egdb::Indexer::new(3, k).unwrap();
    let mut x = [0u8; 6];
    let mut rank = rank;
    loop {
        ix.unrank(k, rank, &mut x);
        if x[..3].iter().any(|&c| c > 0) && x[3..].iter().any(|&c| c > 0) {
            break;
        }
        rank += 1;
    }
    assert!(rank % 4096 < 4000, "still in the block asked for");
    let total = 2 * 3 * 4u32; // stores make up a board of 24 seeds
    let rest = total - k;
    let (s, n) = (rest / 2, rest - rest / 2);
    let text = format!(
        "{},{},{},{s},{},{},{},{n} S",
        x[0], x[1], x[2], x[3], x[4], x[5]
    );
    text.parse().unwrap()
}

/// Regression (tester 33): a large layer's values zeroed on disk, its checksums left as they
/// were, gave wrong values with no warning (only `verify` read the payload). Format 2 files
/// carry a checksum a block: the first probe into a block checks it, and a damaged block makes
/// the layer answer nothing.
#[test]
fn a_damaged_block_of_a_large_layer_is_found_by_the_first_probe_into_it() {
    let dir = built(3, 14);
    let rules = Rules::default();
    let path = layer_path(dir.path(), 3, &rules, 14);
    let count = kalah_egdb::Indexer::new(3, 14).unwrap().layer_size(14);
    assert!(
        count > 2 * 4096,
        "layer 14 spans three blocks ({count} values)"
    );
    let blocks = count.div_ceil(4096);
    let bytes = fs::read(&path).unwrap();
    assert_eq!(
        bytes.len() as u64,
        64 + count + 4 * blocks,
        "format 2 length"
    );
    assert_eq!(kalah_egdb::file::version_of(&bytes), 2);
    // Every value outside the first block, probed before any damage.
    let intact = Egdb::open_with_check_limit(dir.path(), 3, &rules, 0)
        .unwrap()
        .unwrap();
    let late = position_at(14, 2 * 4096 + 7);
    let early = position_at(14, 5);
    let late_value = intact.probe(&late, &rules).expect("covered");
    let early_value = intact.probe(&early, &rules).expect("covered");
    drop(intact);
    // Zero the first block's values, keeping every checksum: zero is a possible value for
    // 14 seeds, so only the block checksum can tell.
    let mut damaged = bytes.clone();
    for b in &mut damaged[64..64 + 4096] {
        *b = 0;
    }
    fs::write(&path, &damaged).unwrap();
    let db = Egdb::open_with_check_limit(dir.path(), 3, &rules, 0)
        .unwrap()
        .unwrap();
    // A probe into an intact block answers; the first probe into the damaged one does not,
    // and from then on the layer answers nothing (its blocks are one file's).
    assert_eq!(db.probe(&late, &rules), Some(late_value));
    assert_eq!(db.damaged_layer(), None);
    assert_eq!(db.probe(&early, &rules), None, "was {early_value}");
    assert_eq!(db.damaged_layer(), Some(14));
    assert!(db
        .damage()
        .unwrap()
        .contains("k014.egdb fails its checksum"));
    assert_eq!(db.probe(&late, &rules), None);
    // Other layers still answer.
    assert!(db.probe(&position_at(13, 5), &rules).is_some());
    // The default open checks a layer this small whole: refused at once as well.
    let db = Egdb::open(dir.path(), 3, &rules).unwrap().unwrap();
    assert_eq!(db.probe(&late, &rules), None);
    assert_eq!(db.damaged_layer(), Some(14));
    // The whole-file checks name the block.
    let e = Egdb::open_checked(dir.path(), 3, &rules).unwrap_err();
    assert!(
        e.to_string()
            .contains("block checksum mismatch (values 0..4096)"),
        "{e}"
    );
    // A build replaces the layer with the same bytes as before.
    plan(dir.path(), 3, 14)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap();
    assert!(fs::read(&path).unwrap() == bytes);
}

/// Rewrites the layer file at `path` in format 1 (no block checksums; the header says version
/// 1, with its header checksum), as files were written before 2 Dec 2026; returns its bytes.
fn to_format_1(path: &Path) -> Vec<u8> {
    let bytes = fs::read(path).unwrap();
    let count = u64::from_le_bytes(bytes[32..40].try_into().unwrap()) as usize;
    let mut v1 = bytes[..HEADER_LEN + count].to_vec();
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    let crc = crc32fast::hash(&v1[..44]);
    v1[44..48].copy_from_slice(&crc.to_le_bytes());
    fs::write(path, &v1).unwrap();
    v1
}

/// Format 1 files (no block checksums) are still read, and a build rewrites them in format 2
/// with the same values.
#[test]
fn format_1_files_are_read_and_upgraded_by_a_build() {
    let dir = built(3, 9);
    let rules = Rules::default();
    let mut v2 = Vec::new();
    for k in 0..=9 {
        let path = layer_path(dir.path(), 3, &rules, k);
        v2.push(fs::read(&path).unwrap());
        to_format_1(&path);
    }
    let pos: kalah_core::Position = "1,2,0,9,0,1,2,9 S".parse().unwrap();
    let db = Egdb::open_checked(dir.path(), 3, &rules).unwrap().unwrap();
    let value = db.probe(&pos, &rules).expect("covered");
    drop(db);
    let upgraded = std::sync::Mutex::new(Vec::new());
    let report = plan(dir.path(), 3, 9)
        .run(&AtomicBool::new(false), &|e| {
            if let BuildEvent::Upgraded { seeds } = e {
                upgraded.lock().unwrap().push(*seeds);
            }
        })
        .unwrap();
    assert_eq!(upgraded.into_inner().unwrap(), (0..=9).collect::<Vec<_>>());
    assert_eq!((report.resumed_layers, report.built_layers), (10, 0));
    for k in 0..=9 {
        let path = layer_path(dir.path(), 3, &rules, k);
        assert!(fs::read(&path).unwrap() == v2[k as usize], "layer {k}");
    }
    let db = Egdb::open_checked(dir.path(), 3, &rules).unwrap().unwrap();
    assert_eq!(db.probe(&pos, &rules), Some(value));
}

/// A format 1 layer reached through a symbolic link is used as it is, not rewritten: a build
/// never replaces a link (tester 81), and the link and its target stay.
#[test]
fn a_format_1_layer_behind_a_link_is_kept() {
    let dir = built(3, 9);
    let rules = Rules::default();
    let path = layer_path(dir.path(), 3, &rules, 4);
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("k004.egdb");
    fs::rename(&path, &target).unwrap();
    let v1 = to_format_1(&target);
    std::os::unix::fs::symlink(&target, &path).unwrap();
    let upgraded = std::sync::Mutex::new(Vec::new());
    plan(dir.path(), 3, 9)
        .run(&AtomicBool::new(false), &|e| {
            if let BuildEvent::Upgraded { seeds } = e {
                upgraded.lock().unwrap().push(*seeds);
            }
        })
        .unwrap();
    assert!(upgraded.into_inner().unwrap().is_empty());
    assert!(fs::symlink_metadata(&path)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read(&target).unwrap() == v1);
}

/// Regression (tester 52): a damaged large layer of format 1 (no block checksums) whose values
/// were all still possible gave wrong values. Its first probe now checks the whole layer.
#[test]
fn a_damaged_format_1_layer_is_found_by_its_first_probe() {
    let dir = built(3, 9);
    let rules = Rules::default();
    // 6 seeds in the houses: layer 6.
    let pos: kalah_core::Position = "1,2,0,9,0,1,2,9 S".parse().unwrap();
    let value = Egdb::open(dir.path(), 3, &rules)
        .unwrap()
        .unwrap()
        .probe(&pos, &rules)
        .expect("covered");
    let path = layer_path(dir.path(), 3, &rules, 6);
    let mut v1 = to_format_1(&path);
    // Whole, read as "large" (no layer checked on opening): the same value.
    let db = Egdb::open_with_check_limit(dir.path(), 3, &rules, 0)
        .unwrap()
        .unwrap();
    assert_eq!(db.probe(&pos, &rules), Some(value));
    assert_eq!(db.damaged_layer(), None);
    drop(db);
    // Every value moved by 2 (still a possible value: same parity, within the seeds).
    for b in &mut v1[HEADER_LEN..] {
        let v = *b as i8;
        *b = if v + 2 <= 6 { v + 2 } else { v - 2 } as u8;
    }
    fs::write(&path, &v1).unwrap();
    let db = Egdb::open_with_check_limit(dir.path(), 3, &rules, 0)
        .unwrap()
        .unwrap();
    assert_eq!(db.probe(&pos, &rules), None);
    assert_eq!(db.damaged_layer(), Some(6));
    assert!(
        db.damage()
            .unwrap()
            .ends_with("k006.egdb fails its checksum: the file is damaged"),
        "{:?}",
        db.damage()
    );
}

/// Regression (tester 33): with a lower layer missing, a build replaced a file of another
/// format version above it, though such files are the user's to move.
#[test]
fn a_build_never_replaces_a_foreign_file_above_a_missing_layer() {
    let dir = built(3, 9);
    let rules = Rules::default();
    fs::remove_file(layer_path(dir.path(), 3, &rules, 5)).unwrap();
    let path = layer_path(dir.path(), 3, &rules, 8);
    let mut bytes = fs::read(&path).unwrap();
    bytes[8] = 9; // format version 9, with its header checksum
    let crc = crc32fast::hash(&bytes[..44]);
    bytes[44..48].copy_from_slice(&crc.to_le_bytes());
    fs::write(&path, &bytes).unwrap();
    let e = plan(dir.path(), 3, 9)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap_err();
    // A build says that it left the file alone, and how to go on.
    assert!(
        matches!(&e, EgdbError::InTheWay { what, .. } if what.contains("format version 9")),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("move it away or delete it, then run the same command again"),
        "{e}"
    );
    assert!(fs::read(&path).unwrap() == bytes, "left alone");
    assert!(
        !layer_path(dir.path(), 3, &rules, 5).exists(),
        "nothing built"
    );
}

/// Regression (tester 33): the build wrote its temporary file through a link planted under its
/// name, and a FIFO in a layer's place hung every command.
#[cfg(unix)]
#[test]
fn temporary_links_and_fifos_are_not_followed() {
    let dir = built(3, 5);
    let rules = Rules::default();
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    let layer6 = layer_path(dir.path(), 3, &rules, 6);
    let mut tmp = layer6.clone().into_os_string();
    tmp.push(".tmp");
    std::os::unix::fs::symlink(&victim, &tmp).unwrap();
    plan(dir.path(), 3, 6)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert!(fs::symlink_metadata(&layer6).unwrap().is_file());
    // A FIFO as layer 6: refused at once, by the open and by the build.
    fs::remove_file(&layer6).unwrap();
    // Made in this process: a child forked here would hold the build locks other tests
    // hold at that moment until it execs (their next build then fails as Busy).
    let c_path = std::ffi::CString::new(layer6.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c_path` is a NUL-terminated path that lives across the call.
    if unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) } != 0 {
        return; // no FIFOs here
    }
    let e = open_err(dir.path(), 3);
    assert!(e.to_string().contains("not a regular file"), "{e}");
    let e = plan(dir.path(), 3, 6)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap_err();
    // ... saying that nothing was built and what to do, not that a failed write kept the
    // layers before it (tester 60).
    assert!(
        matches!(&e, EgdbError::InTheWay { path, .. } if *path == layer6.display().to_string()),
        "{e:?}"
    );
    assert!(e.to_string().contains("not a regular file"), "{e}");
    assert!(
        e.to_string()
            .contains("a build does not replace it: move it away or delete it"),
        "{e}"
    );
    assert!(e.to_string().ends_with("nothing was built"), "{e}");
    // A FIFO as the build's lock (tester 52: the build hung, waiting for a writer).
    fs::remove_file(&layer6).unwrap();
    let lock = dir.path().join(set_dir_name(3, &rules)).join(".build.lock");
    fs::remove_file(&lock).unwrap();
    let c_lock = std::ffi::CString::new(lock.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: as above.
    assert_eq!(unsafe { libc::mkfifo(c_lock.as_ptr(), 0o644) }, 0);
    let e = plan(dir.path(), 3, 6)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap_err();
    assert!(
        e.to_string().contains(".build.lock: not a regular file"),
        "{e}"
    );
    fs::remove_file(&lock).unwrap();
    // A link as the build's lock, to a file or to nothing (tester 107: the build created the
    // file it pointed to and locked it): refused, and nothing is made at its target.
    let target = dir.path().join("made-by-the-lock");
    std::os::unix::fs::symlink(&target, &lock).unwrap();
    for target_there in [false, true] {
        let e = plan(dir.path(), 3, 6)
            .run(&AtomicBool::new(false), &|_| {})
            .unwrap_err();
        assert!(
            e.to_string().contains(
                ".build.lock: not a regular file (the build's lock is one; a link is not)"
            ),
            "{e}"
        );
        if target_there {
            assert_eq!(fs::read_to_string(&target).unwrap(), "precious");
        } else {
            assert!(
                !target.exists(),
                "the lock's link made {}",
                target.display()
            );
            fs::write(&target, "precious").unwrap();
        }
    }
    fs::remove_file(&lock).unwrap();
    // A directory named like the temporary file: the error names it, not the layer, and
    // says to remove it (tester 107: a bare "Is a directory").
    fs::create_dir(&tmp).unwrap();
    let e = plan(dir.path(), 3, 6)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap_err();
    assert!(
        e.to_string().contains(
            "k006.egdb.tmp: a directory, where the build writes this layer's temporary file: remove it"
        ),
        "{e}"
    );
}

/// Regression (tester 36): a short file of something else in a layer's place was taken for a
/// truncated layer and replaced by a build; a flipped version byte was taken for a newer
/// format (which a build leaves alone) rather than damage; nonzero reserved header bytes went
/// unnoticed.
#[test]
fn short_foreign_files_damaged_versions_and_reserved_bytes() {
    let dir = built(3, 8);
    let rules = Rules::default();
    let path = layer_path(dir.path(), 3, &rules, 8);
    let good = fs::read(&path).unwrap();
    // A short text file: not a database, left alone by the build.
    fs::write(&path, "my notes\n").unwrap();
    let e = plan(dir.path(), 3, 8)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap_err();
    assert!(
        matches!(&e, EgdbError::InTheWay { what, .. } if what.contains("bad magic")),
        "{e:?}"
    );
    // Its advice is the build's own, once: not "build the layer again", which is what ran.
    let text = e.to_string();
    assert!(!text.contains("build the layer again"), "{text}");
    assert_eq!(text.matches("move it away").count(), 1, "{text}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "my notes\n");
    // The start of a layer file, cut short: a truncated layer, rebuilt.
    fs::write(&path, &good[..20]).unwrap();
    plan(dir.path(), 3, 8)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap();
    assert!(fs::read(&path).unwrap() == good);
    // A version byte flipped without its checksum: damage, rebuilt.
    let mut bytes = good.clone();
    bytes[8] ^= 0x02;
    fs::write(&path, &bytes).unwrap();
    let e = open_err(dir.path(), 3);
    assert!(e.to_string().contains("header checksum mismatch"), "{e}");
    plan(dir.path(), 3, 8)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap();
    assert!(fs::read(&path).unwrap() == good);
    // A reserved byte set: damage, rebuilt.
    let mut bytes = good.clone();
    bytes[50] = 1;
    fs::write(&path, &bytes).unwrap();
    let e = open_err(dir.path(), 3);
    assert!(e.to_string().contains("reserved header bytes"), "{e}");
    plan(dir.path(), 3, 8)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap();
    assert!(fs::read(&path).unwrap() == good);
}

/// A broken symbolic link in a layer's place is refused, not taken for the end of the set
/// (tester 42: the set silently ended at the layer below it).
#[cfg(unix)]
#[test]
fn a_broken_link_in_a_layers_place_is_refused() {
    let dir = built(3, 5);
    let rules = Rules::default();
    let layer3 = layer_path(dir.path(), 3, &rules, 3);
    fs::remove_file(&layer3).unwrap();
    std::os::unix::fs::symlink(dir.path().join("nothing"), &layer3).unwrap();
    let e = open_err(dir.path(), 3);
    assert!(e.to_string().contains("broken link"), "{e}");
    // `kalah egdb info` says the same (tester 60: a bare "No such file or directory" there).
    let listed = kalah_egdb::list_layers(dir.path()).unwrap();
    let l = listed.iter().find(|l| l.path == layer3).expect("listed");
    let why = l.header.as_ref().expect_err("a bad file");
    assert!(why.contains("broken link"), "{why}");
    let e = plan(dir.path(), 3, 5)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap_err();
    assert!(matches!(e, EgdbError::InTheWay { .. }), "{e:?}");
    assert!(e.to_string().contains("broken link"), "{e}");
    assert!(fs::symlink_metadata(&layer3)
        .unwrap()
        .file_type()
        .is_symlink());
}

/// A symbolic link that loops, in a layer's place, is named as no regular file, which a build
/// leaves alone (tester 67: opening the set gave only "Too many levels of symbolic links").
#[cfg(unix)]
#[test]
fn a_link_that_loops_in_a_layers_place_is_no_regular_file() {
    let dir = built(3, 5);
    let rules = Rules::default();
    let layer3 = layer_path(dir.path(), 3, &rules, 3);
    fs::remove_file(&layer3).unwrap();
    std::os::unix::fs::symlink(&layer3, &layer3).unwrap();
    let e = open_err(dir.path(), 3);
    assert!(matches!(e, EgdbError::NotAFile { .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains("k003.egdb: a symbolic link that cannot be followed (")
            && e.to_string().contains("move it away or delete it"),
        "{e}"
    );
    let listed = kalah_egdb::list_layers(dir.path()).unwrap();
    let l = listed.iter().find(|l| l.path == layer3).expect("listed");
    let why = l.header.as_ref().expect_err("a bad file");
    assert!(why.contains("cannot be followed"), "{why}");
    let e = plan(dir.path(), 3, 5)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap_err();
    assert!(matches!(e, EgdbError::InTheWay { .. }), "{e:?}");
}

/// A layer file this user may not read is [`EgdbError::Unreadable`], whose advice is the
/// permissions, not a build (tester 67). Root reads every file: there the test has nothing
/// to check.
#[cfg(unix)]
#[test]
fn a_layer_this_user_may_not_read_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let dir = built(3, 5);
    let rules = Rules::default();
    let layer2 = layer_path(dir.path(), 3, &rules, 2);
    fs::set_permissions(&layer2, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&layer2).is_ok() {
        return; // root
    }
    let e = open_err(dir.path(), 3);
    assert!(matches!(e, EgdbError::Unreadable { .. }), "{e:?}");
    assert!(e.to_string().contains("let this user read it"), "{e}");
    let listed = kalah_egdb::list_layers(dir.path()).unwrap();
    let l = listed.iter().find(|l| l.path == layer2).expect("listed");
    assert!(l.unreadable);
    // A build stops at it with the same advice, not "move it away" (tester 88).
    let e = plan(dir.path(), 3, 5)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap_err();
    assert!(matches!(e, EgdbError::Unreadable { .. }), "{e:?}");
    assert!(!e.to_string().contains("move it away"), "{e}");
    // The same for a set's directory this user may not search: the directory is named.
    fs::set_permissions(&layer2, fs::Permissions::from_mode(0o644)).unwrap();
    let set = layer2.parent().unwrap();
    fs::set_permissions(set, fs::Permissions::from_mode(0o000)).unwrap();
    let e = open_err(dir.path(), 3);
    fs::set_permissions(set, fs::Permissions::from_mode(0o755)).unwrap();
    assert!(matches!(e, EgdbError::Unreadable { .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with(&format!("{}: Permission denied", set.display())),
        "{e}"
    );
}

/// A set's directory this user may search but not list (mode 711 for others, as a shared root
/// may be set up) is listed by the layer files' names, as opening the set finds them; one it
/// may not search either is a bad set. Root lists every directory: there the test has nothing
/// to check (run it as another user, e.g. `setpriv --reuid=65534`).
#[cfg(unix)]
#[test]
fn a_set_directory_this_user_may_search_but_not_list_is_listed() {
    use std::os::unix::fs::PermissionsExt;
    let dir = built(3, 5);
    let rules = Rules::default();
    let layers: Vec<PathBuf> = (0..=5)
        .map(|k| layer_path(dir.path(), 3, &rules, k))
        .collect();
    let set = layers[0].parent().unwrap().to_path_buf();
    let mode = |m: u32| fs::set_permissions(&set, fs::Permissions::from_mode(m)).unwrap();
    mode(0o311);
    let listable = fs::read_dir(&set).is_ok();
    let listed = kalah_egdb::list_layers(dir.path());
    let bad = kalah_egdb::list_bad_sets(dir.path());
    let opened = Egdb::open(dir.path(), 3, &rules).map(|db| db.map(|db| db.max_seeds()));
    mode(0o000);
    let bad_unsearchable = kalah_egdb::list_bad_sets(dir.path());
    mode(0o755);
    if listable {
        return; // root
    }
    let listed: Vec<PathBuf> = listed.unwrap().into_iter().map(|l| l.path).collect();
    assert_eq!(listed, layers);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(opened.unwrap(), Some(5));
    assert_eq!(bad_unsearchable.len(), 1, "{bad_unsearchable:?}");
    assert!(bad_unsearchable[0].1.contains("let this user read it"));
}

/// A root this user may list but not search is one error naming the root (tester 86: every
/// healthy set was called "not a directory ... delete it"); a root it may search but not list
/// (711) is searched for every set's name; a directory above that it may not search is named
/// by the errors. Root passes every check: there the test has nothing to check (run it as
/// another user, e.g. `setpriv --reuid=65534`).
#[cfg(unix)]
#[test]
fn a_root_this_user_may_not_search_or_list_is_named() {
    use std::os::unix::fs::PermissionsExt;
    let top = built(3, 4);
    let root = top.path();
    let rules = Rules::default();
    let layer = layer_path(root, 3, &rules, 2);
    let mode = |m: u32| fs::set_permissions(root, fs::Permissions::from_mode(m)).unwrap();
    mode(0o644);
    let searchable = fs::metadata(&layer).is_ok();
    let listed_644 = kalah_egdb::list_layers(root).map(|l| l.len());
    let bad_644 = kalah_egdb::list_bad_sets(root);
    let open_644 = Egdb::open(root, 3, &rules).map(|db| db.is_some());
    let on_the_way = kalah_egdb::unsearchable_dir(&layer);
    mode(0o311);
    let listed_311 = kalah_egdb::list_layers(root).map(|l| l.len());
    let sets_311 = kalah_egdb::set_dirs(root).map(|s| s.len());
    mode(0o755);
    if searchable {
        return; // root
    }
    let e = listed_644.unwrap_err();
    assert!(
        matches!(&e, EgdbError::Unreadable { path, .. } if path == &root.display().to_string()),
        "{e}"
    );
    assert!(
        bad_644.iter().all(|(_, why)| !why.contains("delete")),
        "{bad_644:?}"
    );
    let e = open_644.unwrap_err();
    assert!(
        e.to_string()
            .starts_with(&format!("{}: Permission denied", root.display())),
        "{e}"
    );
    assert_eq!(on_the_way.as_deref(), Some(root));
    assert_eq!(listed_311.unwrap(), 5);
    assert_eq!(sets_311.unwrap(), 1);
}

/// The directory on the way that cannot be searched, on paths this test sets up: none when
/// every directory can be (a file that cannot be read is no directory on the way).
#[cfg(unix)]
#[test]
fn unsearchable_dir_names_the_directory_on_the_way() {
    let dir = built(3, 2);
    let rules = Rules::default();
    let layer = layer_path(dir.path(), 3, &rules, 1);
    assert_eq!(kalah_egdb::unsearchable_dir(&layer), None);
    assert_eq!(
        kalah_egdb::unsearchable_dir(&dir.path().join("missing/k000.egdb")),
        None
    );
}

/// Directories this user may search but not list, empty ones too, and a root under a
/// directory it may not search, reached directly or through a link (tester 88: an empty 711
/// root was a permission error; a root under a 700 directory read as no databases; a link
/// was named where the directory it leads through was at fault). Root passes every check:
/// there the test has nothing to check (run it as another user, e.g. `setpriv --reuid=65534`).
#[cfg(unix)]
#[test]
fn directories_on_the_way_are_named_through_links_and_empty_711_ones_are_empty() {
    use std::os::unix::fs::PermissionsExt;
    let rules = Rules::default();
    let mode = |p: &Path, m: u32| fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
    let top = tempfile::tempdir().unwrap();
    let empty = top.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let hidden = top.path().join("hidden");
    fs::create_dir(&hidden).unwrap();
    plan(&hidden.join("root"), 3, 2)
        .run(&AtomicBool::new(false), &|_| {})
        .unwrap();
    let link = top.path().join("link");
    std::os::unix::fs::symlink(hidden.join("root"), &link).unwrap();
    mode(&empty, 0o311);
    mode(&hidden, 0o000);
    let root_user = fs::read_dir(&empty).is_ok();
    let empty_sets = kalah_egdb::set_dirs(&empty).map(|s| s.len());
    let empty_layers = kalah_egdb::list_layers(&empty).map(|l| l.len());
    let under = Egdb::open(&hidden.join("root"), 3, &rules).map(|db| db.is_some());
    let through = Egdb::open(&link, 3, &rules).map(|db| db.is_some());
    let named = kalah_egdb::unsearchable_dir(&link.join("m3-standard-row-empty-owner"));
    mode(&empty, 0o755);
    mode(&hidden, 0o755);
    if root_user {
        return;
    }
    assert_eq!(empty_sets.unwrap(), 0);
    assert_eq!(empty_layers.unwrap(), 0);
    for e in [under.unwrap_err(), through.unwrap_err()] {
        assert!(
            matches!(&e, EgdbError::Unreadable { path, .. } if path == &hidden.display().to_string()),
            "{e}"
        );
    }
    assert_eq!(named.as_deref(), Some(hidden.as_path()));
}

/// A link to nothing in a set directory's place: a bad set, and opening it is an error, as for
/// a file there (tester 86: it read as no set).
#[cfg(unix)]
#[test]
fn a_link_to_nothing_in_a_set_directory_s_place_is_a_bad_set() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::default();
    let set = dir.path().join(set_dir_name(3, &rules));
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &set).unwrap();
    let bad = kalah_egdb::list_bad_sets(dir.path());
    assert_eq!(bad.len(), 1);
    assert!(
        bad[0].1.starts_with("a symbolic link to nothing"),
        "{bad:?}"
    );
    let e = open_err(dir.path(), 3);
    assert!(e.to_string().contains("a symbolic link to nothing"), "{e}");
    assert!(kalah_egdb::list_layers(dir.path()).unwrap().is_empty());
}

/// A damaged layer reached through a symbolic link is mended by deleting the link first, which
/// a build does not replace (tester 86: the advice was the build, which then refused).
#[cfg(unix)]
#[test]
fn a_damaged_layer_through_a_link_is_deleted_first() {
    let dir = built(3, 4);
    let rules = Rules::default();
    let layer = layer_path(dir.path(), 3, &rules, 3);
    let bytes = fs::read(&layer).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("k003.egdb");
    fs::write(&target, &bytes[..bytes.len() - 7]).unwrap();
    fs::write(&layer, &bytes[..bytes.len() - 7]).unwrap();
    // (The repair is judged from what is in the layer's place when the message is made.)
    let direct = open_err(dir.path(), 3);
    assert_eq!(
        direct.damage().unwrap().1,
        kalah_egdb::Repair::Rebuild,
        "{direct}"
    );
    fs::remove_file(&layer).unwrap();
    std::os::unix::fs::symlink(&target, &layer).unwrap();
    let linked = open_err(dir.path(), 3);
    let (what, repair) = linked.damage().unwrap();
    assert_eq!(repair, kalah_egdb::Repair::DeleteFirst);
    assert!(what.ends_with(", through a symbolic link"), "{what}");
    assert!(
        linked.to_string().contains("move it away or delete it"),
        "{linked}"
    );
}

/// A user who may take the build's lock but not write in the set's directory is told before
/// any layer is checked (tester 86: after every kept layer, with no remedy). Root writes
/// everywhere: there the test has nothing to check.
#[cfg(unix)]
#[test]
fn a_build_in_a_directory_this_user_may_not_write_stops_first() {
    use std::os::unix::fs::PermissionsExt;
    let dir = built(3, 3);
    let set = dir.path().join(set_dir_name(3, &Rules::default()));
    let lock = set.join(".build.lock");
    fs::set_permissions(&lock, fs::Permissions::from_mode(0o666)).unwrap();
    fs::set_permissions(&set, fs::Permissions::from_mode(0o555)).unwrap();
    let writable = fs::File::create(set.join("probe")).is_ok();
    let e = plan(dir.path(), 3, 5).lock().map(|_| ()).unwrap_err_or_ok();
    fs::set_permissions(&set, fs::Permissions::from_mode(0o755)).unwrap();
    if writable {
        return; // root
    }
    let e = e.expect("refused");
    assert!(
        e.to_string()
            .contains("this user may not write in the set's directory"),
        "{e}"
    );
    assert!(!set.join("k004.egdb").exists());
}

/// `Result::err` as an `Option` that reads well above.
trait ErrOrOk<E> {
    fn unwrap_err_or_ok(self) -> Option<E>;
}

impl<T, E> ErrOrOk<E> for Result<T, E> {
    fn unwrap_err_or_ok(self) -> Option<E> {
        self.err()
    }
}

/// `layers_text` names each layer once, in order, whatever order it is given (tester 87:
/// `[5, 3, 4]` was "layers 5 and 3..=4", `[u32::MAX, 0]` overflowed, `[]` ended in a space).
#[test]
fn layers_text_names_each_layer_once_in_order() {
    use kalah_egdb::layers_text;
    assert_eq!(layers_text(&[5, 3, 4]), "layers 3..=5");
    assert_eq!(layers_text(&[3]), "layer 3");
    assert_eq!(layers_text(&[3, 3]), "layer 3");
    assert_eq!(
        layers_text(&[0, 1, 2, 4, 6, 7, 8]),
        "layers 0..=2, 4 and 6..=8"
    );
    assert_eq!(
        layers_text(&[u32::MAX, 0]),
        format!("layers 0 and {}", u32::MAX)
    );
    assert_eq!(layers_text(&[]), "no layers");
}

/// binomial(n, k) in u128, for the sizes below.
fn binomial(n: u128, k: u128) -> u128 {
    (0..k).fold(1u128, |acc, i| acc * (n - i) / (i + 1))
}

/// Plans are refused as too large exactly when a layer holds 2^63 arrangements or more or the
/// files of layers 0..=k would hold 2^64 bytes or more together, and the plans that pass get
/// exact totals (tester 45: Kalah(8,·) to 110 seeds passed the check, then overflowed
/// `total_positions`: a panic in a debug build, a wrapped count in release).
#[test]
fn totals_that_do_not_fit_a_u64_are_too_large() {
    let dir = Path::new("/nonexistent/kalah-egdb-test");
    for m in [8usize, 12] {
        let n = 2 * m as u128;
        let mut refused_by_the_sum = false;
        for k in 0..=kalah_egdb::MAX_LAYER_SEEDS {
            let layers: Vec<u128> = (0..=k as u128)
                .map(|j| binomial(j + n - 1, n - 1))
                .collect();
            let bytes: u128 = layers
                .iter()
                .map(|&b| HEADER_LEN as u128 + b + 4 * b.div_ceil(4096))
                .sum();
            let too_large = layers[k as usize] >= 1 << 63 || bytes > u64::MAX as u128;
            match plan(dir, m, k).total_positions() {
                Ok(total) => {
                    assert!(!too_large, "m {m} k {k}: passed");
                    assert_eq!(total as u128, layers.iter().sum::<u128>(), "m {m} k {k}");
                    assert_eq!(plan(dir, m, k).total_bytes().unwrap() as u128, bytes);
                }
                Err(EgdbError::TooLarge { houses, seeds }) => {
                    assert!(too_large, "m {m} k {k}: refused");
                    assert_eq!((houses, seeds), (m, k));
                    refused_by_the_sum |= layers[k as usize] < 1 << 63;
                    break;
                }
                Err(e) => panic!("m {m} k {k}: {e}"),
            }
        }
        if m == 8 {
            assert!(refused_by_the_sum, "the sum's check was not reached");
        }
    }
    assert_eq!(
        kalah_egdb::file::file_len(kalah_egdb::file::FORMAT_VERSION, u64::MAX),
        u64::MAX
    );
}

/// Regression (tester 52): a file in the place of a set's directory read as "no databases"
/// (a set made unreadable too, for users other than root).
#[test]
fn a_file_in_the_place_of_a_set_directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::default();
    fs::write(dir.path().join(set_dir_name(3, &rules)), "not a set").unwrap();
    let e = Egdb::open(dir.path(), 3, &rules).unwrap_err();
    assert!(
        e.to_string().ends_with(
            "m3-standard-row-empty-owner: not a directory (a set's layers are in one): move \
                 it away or delete it"
        ),
        "{e}"
    );
    // `kalah egdb info` names it (tester 67: it was skipped without a word), and lists the
    // healthy sets beside it.
    let bad = kalah_egdb::list_bad_sets(dir.path());
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].0, dir.path().join(set_dir_name(3, &rules)));
    assert!(bad[0].1.starts_with("not a directory"), "{bad:?}");
    // No set at all is no error; nor is a root that is no directory.
    assert!(Egdb::open(dir.path(), 4, &rules).unwrap().is_none());
    let file = dir.path().join(set_dir_name(3, &rules));
    assert!(Egdb::open(&file, 3, &rules).unwrap().is_none());
}
