//! Where a `baton send` spends its time: the `phase` lines (`BATON_PHASES`, see `baton::log`)
//! of the client and the server over a run of sends, as the median time between each step and
//! the next.

use std::collections::BTreeMap;
use std::time::Duration;

use super::{knob, median, ms, World};

/// The steps of a send, in order; a send's lines are read as these (the first of each).
const STEPS: [&str; 14] = [
    // The bench's own clock around the client process: its exec and loading until `main`,
    // and its exit until the bench sees it.
    "process-spawn",
    "client-start",
    "request",
    // A resumed turn's CLI starts as its send arrives (`server::turn::prestart`).
    "cli-spawned",
    "input-journalled",
    "turn-planned",
    "turn-started",
    "cli-first-line",
    // The turn ends at the result; its CLI exits after the reply (`providers::closing`).
    "cli-result",
    "outcome-read",
    // The end record is written, not synced: it and the raw stream (its sync started at the
    // result) are synced after the reply.
    "turn-recorded",
    "reply",
    "client-exit",
    "process-exited",
];

/// Prints the median of each step's time (from the step before it) over the sends.
pub fn print() {
    let mut w = World::cold();
    w.env.push(("BATON_PHASES".into(), "1".into()));
    w.terminal("p");
    w.ok(&["send", "p", "warm the session up"]);
    w.cli_exited();
    let log = w.root.join("data").join("server.log");
    let mut spans: BTreeMap<usize, Vec<Duration>> = BTreeMap::new();
    for i in 0..knob("BATON_BENCH_SENDS", 20) {
        let before = std::fs::metadata(&log).map_or(0, |m| m.len()) as usize;
        let spawned = now_micros();
        let out = w.ok(&["send", "p", &format!("phases {i}")]);
        let exited = now_micros();
        w.cli_exited();
        let server = std::fs::read(&log).expect("server.log");
        let mut lines = format!("phase {spawned} process-spawn\nphase {exited} process-exited\n");
        lines.push_str(&String::from_utf8_lossy(&out.stderr));
        lines.push_str(&String::from_utf8_lossy(
            &server[before.min(server.len())..],
        ));
        let at = first_of_each(&lines);
        for (k, pair) in STEPS.windows(2).enumerate() {
            if let (Some(a), Some(b)) = (at.get(pair[0]), at.get(pair[1])) {
                spans
                    .entry(k)
                    .or_default()
                    .push(Duration::from_micros(b.saturating_sub(*a)));
            }
        }
    }
    println!();
    println!("where a send's time goes (median of each step, from the step before):");
    for (k, times) in spans {
        println!(
            "  {:>16} → {:<16} {}",
            STEPS[k],
            STEPS[k + 1],
            ms(median(times))
        );
    }
}

/// Now, in µs since the epoch, as `baton::log::phase` writes it.
fn now_micros() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

/// The time (µs) of the first `phase` line of each step in `text`.
fn first_of_each(text: &str) -> BTreeMap<String, u64> {
    let mut at = BTreeMap::new();
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        if parts.next() != Some("phase") {
            continue;
        }
        if let (Some(t), Some(name)) = (parts.next().and_then(|t| t.parse().ok()), parts.next()) {
            at.entry(name.to_string()).or_insert(t);
        }
    }
    at
}
