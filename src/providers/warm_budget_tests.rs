//! The eviction decision: by count per provider, by memory across all of them, longest idle
//! first.

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;

use super::*;

const MIB: u64 = 1 << 20;

fn kept(t0: Instant, rows: &[(&str, ProviderKind, u64, u64)]) -> Vec<Kept> {
    rows.iter()
        .map(|(tid, provider, idle_from, mib)| Kept {
            terminal_id: tid.to_string(),
            provider: *provider,
            idle_since: t0 + Duration::from_secs(*idle_from),
            own_bytes: mib * MIB,
        })
        .collect()
}

#[test]
fn the_longest_idle_go_until_memory_and_every_cap_hold() {
    use ProviderKind::{Claude, Codex};
    let t0 = Instant::now();
    // (terminal, provider, idle since t0 + s, own MiB)
    let fleet = [
        ("a", Claude, 1, 110),
        ("b", Codex, 2, 22),
        ("c", Claude, 3, 110),
        ("d", Codex, 4, 22),
        ("e", Claude, 5, 110),
    ];
    let no_caps = |mib: u64| Bounds {
        budget_bytes: mib * MIB,
        caps: vec![],
    };
    let rows: Vec<(&str, Bounds, Vec<&str>)> = vec![
        ("all fit", no_caps(400), vec![]),
        ("just fits", no_caps(374), vec![]),
        ("one over: the longest idle goes", no_caps(373), vec!["a"]),
        // Once a and b are gone 242 MiB remain.
        ("two go", no_caps(250), vec!["a", "b"]),
        (
            "only the newest fits",
            no_caps(110),
            vec!["a", "b", "c", "d"],
        ),
        ("nothing fits", no_caps(10), vec!["a", "b", "c", "d", "e"]),
        (
            "a count cap alone",
            Bounds {
                budget_bytes: 1 << 40,
                caps: vec![(Claude, 2)],
            },
            vec!["a"],
        ),
        (
            "cap and budget together",
            Bounds {
                budget_bytes: 150 * MIB,
                caps: vec![(Codex, 1)],
            },
            vec!["a", "b", "c"],
        ),
        (
            "a cap of 0 keeps none of that provider",
            Bounds {
                budget_bytes: 1 << 40,
                caps: vec![(Codex, 0)],
            },
            vec!["b", "d"],
        ),
    ];
    for (what, bounds, gone) in rows {
        assert_eq!(to_retire(&kept(t0, &fleet), &bounds), gone, "{what}");
    }
}

#[test]
fn unknown_memory_counts_as_none_and_ties_go_by_terminal_id() {
    let t0 = Instant::now();
    let fleet = kept(
        t0,
        &[
            ("z", ProviderKind::Claude, 1, 0),
            ("y", ProviderKind::Claude, 1, 100),
        ],
    );
    let bounds = Bounds {
        budget_bytes: 50 * MIB,
        caps: vec![],
    };
    assert_eq!(to_retire(&fleet, &bounds), vec!["y"]);
}

#[test]
fn the_default_budget_is_two_gib_or_a_quarter_of_the_machine() {
    for (ram, budget) in [
        (Some(16u64 << 30), 2u64 << 30),
        (Some(4 << 30), 1 << 30),
        (None, 2 << 30),
    ] {
        assert_eq!(default_budget(ram), budget, "{ram:?}");
    }
}

#[test]
fn own_memory_counts_this_process_group_private_pages() {
    // The test runner leads no group of its own; its group is whatever started it.
    let group = process_group(std::process::id() as i32).unwrap();
    let mem = own_memory(&[group]);
    assert!(mem[&group] > 0, "{mem:?}");
}
