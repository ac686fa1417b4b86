use super::keep::{keep_bytes, one_beside, race};
use super::*;

struct Rng(u64);
impl Rng {
    fn next(&mut self, m: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % m
    }
}

/// A random context: one or two workgroups, subgroups and epochs.
fn ctx(rng: &mut Rng, step: u64) -> Ctx {
    Ctx {
        wg: rng.next(2) as u32,
        sg: rng.next(2) as u32,
        wg_ord: rng.next(2) as u32,
        sg_ord: rng.next(2) as u32,
        wg_ctl: 0,
        sg_ctl: 0,
        step,
        instr: rng.next(5) as u32,
        block: 0,
    }
}

/// Random records, each of a context of its own or of one already made (`ctxs` grows), and
/// `n`'s of the current workgroup when `wg_base` says others are finished.
fn slot(rng: &mut Rng, ctxs: &mut Ctxs) -> Slot {
    let masks = [0xf, 0xf, 0x3, 0xc, 0x1, 0x2, 0x4, 0x8, 0x6, 0x7];
    let kinds = [Kind::Read, Kind::Write, Kind::AtomicRead, Kind::AtomicWrite];
    let k = if ctxs.all.is_empty() || rng.next(3) == 0 {
        let c = ctx(rng, ctxs.all.len() as u64);
        ctxs.all.push(c);
        ctxs.all.len() - 1
    } else {
        rng.next(ctxs.all.len() as u64) as usize
    };
    let inv = rng.next(4) as u32;
    let bytes = masks[rng.next(masks.len() as u64) as usize];
    Slot::new(k as u32, inv, bytes, kinds[rng.next(4) as usize])
}

/// The race test on whole records, as the module's notes state it.
fn race_of(a: &Rec, b: &Rec) -> Option<bool> {
    if a.bytes & b.bytes == 0 || (a.inv, a.wg) == (b.inv, b.wg) || !conflict(a.kind, b.kind) {
        return None;
    }
    if a.wg != b.wg {
        Some(false)
    } else if a.sg == b.sg {
        (a.sg_ord == b.sg_ord).then_some(true)
    } else {
        (a.wg_ord == b.wg_ord).then_some(false)
    }
}

/// The one-pass path (`scan`, `keep_scanned`) keeps exactly what the byte-by-byte path
/// keeps and finds the races the race test finds, on words of random records (whole words,
/// halves, bytes and odd masks; every kind; one or two workgroups, subgroups and epochs;
/// records sharing a context); and the race test on records that name contexts is the one
/// on whole records.
#[test]
fn one_pass_keeps_what_byte_by_byte_keeps() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut fast, mut differed, mut mixed, mut shared) = (0, 0, 0, 0);
    for case in 0..20_000u64 {
        let mut ctxs = Ctxs::default();
        let len = rng.next(6);
        let recs: Word = (0..len).map(|_| slot(&mut rng, &mut ctxs)).collect();
        let n = slot(&mut rng, &mut ctxs);
        let sc = scan(&recs, &n, &ctxs);
        for (k, r) in recs.iter().enumerate() {
            let want = race_of(&ctxs.rec(r), &ctxs.rec(&n));
            assert_eq!(race(&ctxs, r, &n), want, "case {case}: {r:?} {n:?}");
            let found = (sc.races & (1 << k) != 0).then_some(sc.lockstep & (1 << k) != 0);
            assert_eq!(found, want, "case {case}: scan, record {k}");
            shared += usize::from(r.ctx == n.ctx);
        }
        // The record kept beside `n`, as the module's notes list the classes, on whole
        // records: the latest of another workgroup, else of another subgroup in `n`'s
        // workgroup epoch, else another invocation of `n`'s subgroup in its epoch.
        let cands =
            (0..recs.len()).fold(0u64, |m, k| m | u64::from(recs[k].kind() == n.kind()) << k);
        let (w, nr) = (|k: usize| ctxs.rec(&recs[k]), ctxs.rec(&n));
        let latest = |f: &dyn Fn(&Rec) -> bool| {
            (0..recs.len())
                .rev()
                .find(|&k| cands & (1 << k) != 0 && f(&w(k)))
        };
        let want = latest(&|r| r.wg != nr.wg)
            .or_else(|| latest(&|r| r.wg == nr.wg && r.wg_ord == nr.wg_ord && r.sg != nr.sg))
            .or_else(|| {
                latest(&|r| {
                    (r.wg, r.wg_ord, r.sg, r.sg_ord) == (nr.wg, nr.wg_ord, nr.sg, nr.sg_ord)
                        && r.inv != nr.inv
                })
            });
        assert_eq!(
            one_beside(&recs, cands, &n, &ctxs),
            want,
            "case {case}: beside"
        );
        let raced = recs.iter().any(|r| race(&ctxs, r, &n).is_some());
        let (mut a, mut b) = (recs.clone(), recs.clone());
        keep_scanned(&mut a, n, &sc, &ctxs);
        keep_bytes(&mut b, n, raced, &ctxs);
        assert_eq!(a, b, "case {case}: {recs:?} + {n:?}");
        // (how often the one-pass path decided, and for records not all of `n`'s bytes
        // or none, for the test's own reach)
        let one = if n.kind() == Kind::Write && !raced {
            sc.subset
        } else {
            sc.whole
        };
        let uniform = recs
            .iter()
            .all(|r| r.bytes() & n.bytes() == 0 || r.bytes() == n.bytes());
        fast += usize::from(one);
        mixed += usize::from(one && !uniform);
        differed += usize::from(!one);
    }
    assert!(
        fast > 2_000 && differed > 2_000 && mixed > 500,
        "{fast} {differed} {mixed}"
    );
    assert!(shared > 2_000, "{shared}");
}

/// A word is 32 bytes, three records inline, and a record 8 (the detector's table is
/// walked word by word).
#[test]
fn words_are_small() {
    assert_eq!(std::mem::size_of::<Slot>(), 8);
    assert!(
        std::mem::size_of::<Word>() <= 32,
        "{}",
        std::mem::size_of::<Word>()
    );
    let s = Slot::new(7, (1 << 20) - 1, 0xa, Kind::AtomicWrite);
    assert_eq!(
        (s.ctx, s.inv(), s.bytes(), s.kind()),
        (7, (1 << 20) - 1, 0xa, Kind::AtomicWrite)
    );
}

/// Records of finished workgroups are told apart by their index alone, and a compaction
/// keeps every record's context and that split.
#[test]
fn compaction_keeps_what_records_name() {
    let mut d = Detect::default();
    d.start_workgroup(2, 64, 4);
    let log = |off: u32, inv: u32, kind| Access {
        space: Space::Buffer,
        storage: 0,
        region: 0,
        offset: off,
        size: 4,
        inv,
        kind,
    };
    // Workgroup 0 writes words 0..8 step after step; workgroup 1 reads them.
    for step in 0..3 * MIN_CTXS as u64 {
        let off = (step % 8) as u32 * 4;
        d.accesses(&[log(off, 0, AccessKind::Write)], 0, 32, step, (0, 7));
    }
    assert!(d.ctxs.all.len() < 2 * MIN_CTXS, "{}", d.ctxs.all.len());
    let before = d.last_write(0, 3);
    assert_eq!(before, Some((3 * MIN_CTXS as u64 - 5, 7)));
    d.start_workgroup(2, 64, 4);
    d.accesses(&[log(12, 1, AccessKind::Read)], 1, 32, 1 << 40, (0, 9));
    assert_eq!(d.races.len(), 1);
    assert_eq!(
        (d.races[0].first.wg, d.races[0].first.step),
        (0, before.unwrap().0)
    );
    assert_eq!((d.races[0].second.wg, d.races[0].second.instr), (1, 9));
}

/// Every word the detector keeps, in a fixed order (records as whole records).
fn words(d: &Detect) -> Vec<Vec<Rec>> {
    let mut keys: Vec<_> = d.page_of.iter().map(|(k, v)| (*k, *v)).collect();
    keys.sort();
    (d.shared.iter())
        .chain(d.dense.iter().flatten())
        .chain(keys.iter().flat_map(|(_, p)| d.pages[*p].iter()))
        .map(|w| w.iter().map(|s| d.ctxs.rec(s)).collect())
        .collect()
}

/// One event of a random dispatch.
enum Event {
    Workgroup,
    Barrier(u32),
    SubgroupBarrier(usize, u32),
    Accesses(Vec<Access>, u32),
}

/// A random dispatch: three workgroups of two subgroups (of 8), barriers that order or not,
/// reads, writes and atomics of 1, 2, 4 and 8 bytes, aligned or not, to a buffer and to 64
/// bytes of Workgroup memory, by one of `instrs` instructions; `len` events per workgroup.
fn random_dispatch(rng: &mut Rng, instrs: u64, len: usize) -> Vec<Event> {
    let mut events = Vec::new();
    for _ in 0..3 {
        events.push(Event::Workgroup);
        for _ in 0..len {
            match rng.next(12) {
                0 => events.push(Event::Barrier(
                    [0x108, 0x48, 0x100, 0x8][rng.next(4) as usize],
                )),
                1 => events.push(Event::SubgroupBarrier(
                    rng.next(2) as usize,
                    [0x108, 0x48][rng.next(2) as usize],
                )),
                _ => {
                    let space = [Space::Buffer, Space::Workgroup][rng.next(2) as usize];
                    let size: u8 = [4, 4, 4, 1, 2, 8][rng.next(6) as usize];
                    let kind = [AccessKind::Read, AccessKind::Write, AccessKind::Atomic]
                        [rng.next(3) as usize];
                    let g = rng.next(2) as u32;
                    let mut log = Vec::new();
                    for l in 0..8 {
                        if rng.next(4) == 0 {
                            continue;
                        }
                        let offset = if rng.next(8) == 0 {
                            rng.next(56) as u32
                        } else {
                            rng.next(56 / u64::from(size)) as u32 * u32::from(size)
                        };
                        let a = Access {
                            space,
                            storage: 0,
                            region: 0,
                            offset,
                            size,
                            inv: g * 8 + l,
                            kind,
                        };
                        log.push(a);
                        // An atomic that stores logs its write after its read.
                        if kind == AccessKind::Atomic && rng.next(2) == 0 {
                            log.push(a);
                        }
                    }
                    events.push(Event::Accesses(log, rng.next(instrs) as u32));
                }
            }
        }
    }
    events
}

/// Runs `events` through `d`, Workgroup memory in units of `unit` bytes; an access step's
/// step number is its index in `events`. `runs`: steps whose accesses are one run (of one
/// memory, kind and size, by one subgroup) are given as such.
fn replay(d: &mut Detect, events: &[Event], unit: u8, runs: bool) {
    let one_run = |log: &[Access]| {
        runs && log.windows(2).all(|p| {
            let key = |a: &Access| (a.space, a.storage, a.kind, a.size, a.inv / 8);
            key(&p[0]) == key(&p[1])
        })
    };
    let mut wg = 0;
    for (step, e) in events.iter().enumerate() {
        match e {
            Event::Workgroup => {
                d.start_workgroup(2, 64, unit);
                wg += 1;
            }
            Event::Barrier(memory) => d.workgroup_barrier(*memory, 99),
            Event::SubgroupBarrier(g, memory) => d.subgroup_barrier(*g, *memory, 98),
            Event::Accesses(log, instr) => match log.first() {
                Some(head) if one_run(log) => {
                    let lanes: Vec<_> = log.iter().map(|a| [a.offset, a.inv]).collect();
                    d.run(head, &lanes, wg, 8, step as u64, (0, *instr));
                }
                _ => d.accesses(log, wg, 8, step as u64, (0, *instr)),
            },
        }
    }
}

/// The in-place path for words of one to three records decides as the general path does, and
/// so does a step's run of accesses decided together: random dispatches ([`random_dispatch`],
/// Workgroup memory kept in units of 4, 2 and 1 bytes) leave the same records and report the
/// same races either way.
#[test]
fn the_in_place_path_decides_as_the_general_path() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut in_place, mut races) = (0, 0);
    for case in 0..300 {
        let unit = [4, 2, 1][case % 3];
        let events = random_dispatch(&mut rng, 6, 40);
        let mut fast = Detect::default();
        let mut general = Detect {
            general: true,
            ..Detect::default()
        };
        // (half the cases give steps of one run as such: the run's loop against the general path)
        replay(&mut fast, &events, unit, case / 3 % 2 == 0);
        replay(&mut general, &events, unit, false);
        assert_eq!(words(&fast), words(&general), "case {case}");
        let pairs = |d: &Detect| -> Vec<_> {
            d.races
                .iter()
                .map(|r| (r.first, r.second, r.offset, r.lockstep, r.unordered_by))
                .collect()
        };
        assert_eq!(pairs(&fast), pairs(&general), "case {case}");
        in_place += fast.in_place;
        races += fast.races.len();
    }
    assert!(in_place > 10_000 && races > 1_000, "{in_place} {races}");
}

/// The unit Workgroup memory's records are kept in changes no verdict: on random dispatches
/// whose every step is an instruction of its own, the steps found racing with an earlier
/// access are the same in units of 4, 2 and 1 bytes (each unit keeps, per byte, what finds
/// every race; the accesses kept may differ, so the earlier access named may too).
#[test]
fn units_change_no_verdict() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut compared, mut racing) = (0, 0);
    for case in 0..2000 {
        let events = random_dispatch(&mut rng, u64::MAX, 8);
        let mut steps = Vec::new();
        for unit in [4, 2, 1] {
            let mut d = Detect::default();
            // (an instruction of its own per step: a step's race is then always reported)
            let events: Vec<Event> = (events.iter().enumerate())
                .map(|(k, e)| match e {
                    Event::Accesses(log, _) => Event::Accesses(log.clone(), k as u32),
                    Event::Workgroup => Event::Workgroup,
                    Event::Barrier(m) => Event::Barrier(*m),
                    Event::SubgroupBarrier(g, m) => Event::SubgroupBarrier(*g, *m),
                })
                .collect();
            replay(&mut d, &events, unit, case % 2 == 0);
            if d.races.len() >= MAX_RACES {
                break;
            }
            let found: std::collections::BTreeSet<u64> =
                d.races.iter().map(|r| r.second.step).collect();
            steps.push(found);
        }
        if steps.len() == 3 {
            assert_eq!(steps[0], steps[1], "case {case}: units 4 and 2");
            assert_eq!(steps[0], steps[2], "case {case}: units 4 and 1");
            compared += 1;
            racing += steps[0].len();
        }
    }
    assert!(compared > 1_500 && racing > 20_000, "{compared} {racing}");
}

/// A module's Workgroup memory is kept in units of the scalar size most of it is in: the tiled
/// matmul's f16 tiles in halves, a reduction's uints in words.
#[test]
fn workgroup_memory_is_kept_in_units_of_its_scalars() {
    let unit = |bytes: &[u8]| {
        let prog = crate::load(bytes, &crate::LoadOptions::default()).expect("loads");
        prog.workgroup_unit
    };
    assert_eq!(
        unit(include_bytes!("../../../tests/data/matmul_tiled.spv")),
        2
    );
    assert_eq!(
        unit(include_bytes!("../../../../assets/workgroup_reduce.spv")),
        4
    );
}
