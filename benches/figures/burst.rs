//! The burst row (issue 42, item 4): `BATON_BENCH_BURST` sends (default 50) at once, one per
//! terminal, each a cold start of the simulated Claude CLI, timed from the first send to the
//! last answer, with the cap on CLIs starting at once (`[limits] starting`, its default: one
//! per core) and without it (`starting = 0`). Each world is fresh; the pair alternates which
//! goes first over `RUNS` pairs, every CLI exited before the next burst.

use std::time::Instant;

use super::knob;
use super::ls::Spread;
use super::{row, World};

/// Pairs timed.
const RUNS: usize = 5;

/// A world of `n` idle terminals, cold CLIs, with `limits` in its config.
fn world(n: usize, limits: &str) -> World {
    let w = World::cold();
    let config = w.root.join("data").join("config.toml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str(limits);
    std::fs::write(&config, text).expect("config");
    for i in 0..n {
        w.terminal(&format!("b{i:02}"));
    }
    w
}

/// Ms from the first of `n` sends at once to the last answer.
fn burst(w: &World, n: usize, round: usize) -> f64 {
    let start = Instant::now();
    let sends: Vec<_> = (0..n)
        .map(|i| {
            let prompt = format!("burst {round}");
            w.cmd(&["send", &format!("b{i:02}"), &prompt])
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("send")
        })
        .collect();
    for mut s in sends {
        assert!(s.wait().expect("send").success());
    }
    let took = start.elapsed().as_secs_f64() * 1000.0;
    w.all_clis_exited();
    took
}

pub fn rows() -> Vec<[String; 4]> {
    let n = knob("BATON_BENCH_BURST", 50);
    let capped = world(n, "\n[limits]\n");
    let free = world(n, "\n[limits]\nstarting = 0\n");
    let (mut c, mut f, mut r) = (vec![], vec![], vec![]);
    for i in 0..RUNS {
        let (x, y) = super::alternating(i, || burst(&capped, n, i), || burst(&free, n, i));
        c.push(x);
        f.push(y);
        r.push(x / y);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    vec![row(
        &format!("{n} sends at once to {n} terminals, first send to last answer (simulated Claude CLI, cold), with the cap on CLIs starting at once ({cores}, one per core) against none; medians (middle half) of {RUNS} alternated pairs"),
        Spread::of(c).ms(),
        Spread::of(f).ms(),
        Spread::of(r).ratio(),
    )]
}
