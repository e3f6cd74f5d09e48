//! The `ls` rows (issue 42): `baton ls` with 100 terminals of `BATON_BENCH_LS_TURNS` turns
//! each (default 20) against `tmux ls` and `tmux list-windows -a` with 100 windows. Each anchor
//! settles first, on a condition: every tmux window's shell has drawn its prompt (timed while
//! they still start, `tmux ls` took 54.6 ms; 15 s later, 10.7), and every CLI baton ran has
//! exited. Each pair runs back to back, which goes first alternating; the rows give medians
//! with their spread (the middle half of the runs) and the median of the pairs' ratios.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use super::{alternating, knob, ms, row, World};

/// Terminals and windows listed.
const COUNT: usize = 100;
/// Pairs timed per row.
const RUNS: usize = 41;

/// A median and the middle half of the values around it.
pub struct Spread {
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

impl Spread {
    pub fn of(mut v: Vec<f64>) -> Spread {
        v.sort_by(f64::total_cmp);
        let at = |q: usize| v[(v.len() - 1) * q / 4];
        Spread {
            median: at(2),
            low: at(1),
            high: at(3),
        }
    }

    /// `12.3 ms (11.9–13.0)`, from values in ms.
    pub fn ms(&self) -> String {
        format!("{:.1} ms ({:.1}–{:.1})", self.median, self.low, self.high)
    }

    /// `0.85× (0.80–0.90)`, from ratios.
    pub fn ratio(&self) -> String {
        format!("{:.2}× ({:.2}–{:.2})", self.median, self.low, self.high)
    }
}

/// A private tmux server with [`COUNT`] windows; killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> std::io::Result<Output> {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env("TMUX", "")
            .output()
    }

    /// `None` when tmux cannot run here.
    fn start() -> Option<Tmux> {
        let t = Tmux {
            socket: format!("baton-bench-{}", std::process::id()),
        };
        let started = t
            .run(&["new-session", "-d", "-s", "bench", "-x", "120", "-y", "40"])
            .ok()?;
        assert!(started.status.success(), "{started:?}");
        for _ in 1..COUNT {
            let out = t.run(&["new-window", "-d", "-t", "bench"]).expect("tmux");
            assert!(out.status.success(), "{out:?}");
        }
        t.settle();
        Some(t)
    }

    /// Waits until every window's shell has drawn its prompt (its cursor left column 0).
    fn settle(&self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let out = self
                .run(&["list-panes", "-a", "-F", "#{cursor_x}"])
                .expect("tmux list-panes");
            let text = String::from_utf8_lossy(&out.stdout);
            let drawn = text.lines().filter(|l| l.trim() != "0").count();
            if drawn == COUNT {
                return;
            }
            assert!(Instant::now() < deadline, "tmux shells: {drawn} of {COUNT}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// [`COUNT`] terminals of `turns` turns each, sent from a few threads at once; returns once
/// every CLI those turns ran has exited.
fn filled(turns: usize) -> World {
    let w = World::cold();
    let names: Vec<String> = (0..COUNT).map(|i| format!("t{i:03}")).collect();
    for n in &names {
        w.terminal(n);
    }
    std::thread::scope(|s| {
        for part in names.chunks(COUNT.div_ceil(4)) {
            let w = &w;
            s.spawn(move || {
                for n in part {
                    for k in 0..turns {
                        w.ok(&["send", n, &format!("turn {k}")]);
                    }
                }
            });
        }
    });
    w.all_clis_exited();
    w
}

fn took(mut cmd: Command, lines: usize) -> f64 {
    let start = Instant::now();
    let out = cmd.output().expect("run");
    let took = start.elapsed().as_secs_f64() * 1000.0;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), lines);
    took
}

/// `baton ls` against the tmux command `args` (printing `lines` lines), alternated.
fn pairs(w: &World, tmux: &Tmux, args: &[&str], lines: usize) -> (Spread, Spread, Spread) {
    let tmux_cmd = || {
        let mut c = Command::new("tmux");
        c.args(["-L", &tmux.socket, "-f", "/dev/null"])
            .args(args)
            .env("TMUX", "");
        c
    };
    let (mut b, mut t, mut r) = (vec![], vec![], vec![]);
    for i in 0..RUNS {
        let (x, y) = alternating(
            i,
            || took(w.cmd(&["ls"]), COUNT + 1),
            || took(tmux_cmd(), lines),
        );
        b.push(x);
        t.push(y);
        r.push(x / y);
    }
    (Spread::of(b), Spread::of(t), Spread::of(r))
}

pub fn rows() -> Vec<[String; 4]> {
    let turns = knob("BATON_BENCH_LS_TURNS", 20);
    let w = filled(turns);
    let Some(tmux) = Tmux::start() else {
        return vec![row(
            "ls, 100 terminals",
            ms(Duration::ZERO),
            "no tmux".into(),
            "-".into(),
        )];
    };
    let (b, t, r) = pairs(&w, &tmux, &["ls"], 1);
    let (b2, t2, r2) = pairs(&w, &tmux, &["list-windows", "-a"], COUNT);
    vec![
        row(
            &format!("`baton ls`, {COUNT} terminals of {turns} turns / `tmux ls`, {COUNT} windows (settled), medians (middle half) and the median of the pairs' ratios"),
            b.ms(),
            t.ms(),
            r.ratio(),
        ),
        row(
            "the same against `tmux list-windows -a` (a line per window)",
            b2.ms(),
            t2.ms(),
            r2.ratio(),
        ),
    ]
}
