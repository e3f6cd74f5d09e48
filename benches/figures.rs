//! The figures of issue 14, measured side by side in one run and printed as a table:
//! `cargo bench --bench figures` (knobs: BATON_BENCH_SENDS, default 40; BATON_BENCH_FILES,
//! default 100000; BATON_BENCH_TURNS, default 200; BATON_BENCH_SVG, where the tokens plot goes,
//! default `target/tokens-per-turn.svg`; BATON_BENCH_ONLY=send,warm,remote,ls,lane,burst,memory,tokens,commit,web).
//!
//! - **send**: `baton send` on a resumed Claude session (the simulated CLI) against the very
//!   command line, stdin and cwd baton gave the CLI, run directly: wall time, the wall and
//!   the last stdout byte against the direct run's result line, and the first stdout byte,
//!   medians of the pairs' differences; then where a send's time goes, step by step (`phases.rs`).
//!   Both with warm CLIs off (`warm = 0`): the figure is a cold turn's overhead. With
//!   `BATON_BENCH_BEFORE=PATH`, also `send` on this build against another build's.
//! - **warm**: the first stdout byte of `baton send` on a warm CLI, and on a cold one (`warm =
//!   0`), against the simulated CLI's own cold start resuming the same session; the memory of a
//!   warm CLI (the simulated one: the real Claude holds far more). The same for Codex: a warm
//!   `codex app-server` against a cold `codex exec … resume`, that command line run directly.
//!   Each figure is timed in a pair with its anchor, which goes first alternating, each side
//!   settled first (the warm CLI back in the pool, the last cold CLI exited): medians with
//!   their middle half and the median of the pairs' ratios (`figures/pairs.rs`).
//! - **remote**: `baton send` and `baton ls` on a terminal of another host (this machine through
//!   a real sshd on 127.0.0.1) against the same on a local one (`figures/remote.rs`).
//! - **ls**: `baton ls` with 100 terminals of 20 turns (BATON_BENCH_LS_TURNS) against `tmux
//!   ls` (one line) and `tmux list-windows -a` (a line per window) with 100 windows, each
//!   settled first, alternated, medians with their spread (`figures/ls.rs`).
//! - **lane**: `baton integrate` on a repository of 10 terminals against a plain loop of `git
//!   merge-tree --write-tree` of each branch onto the base (`figures/lane.rs`).
//! - **burst**: 50 sends at once (BATON_BENCH_BURST), one per terminal, each a cold start of
//!   the simulated CLI: first send to last answer with the cap on CLIs starting at once
//!   (`[limits] starting`, one per core) against none (`figures/burst.rs`).
//! - **memory**: the server's resident memory per idle terminal, without and with a shell each.
//! - **tokens**: a scripted session of 200 turns, each adding a few thousand tokens of context
//!   (a fixed pseudo-random sequence), run through baton (which rotates past 45%), against the
//!   same turns under a CLI's auto-compact at 80% (computed: the compaction call reads the whole
//!   context and leaves a summary of [`SUMMARY`] tokens). Tokens sent = each model call's input.
//! - **commit**: baton's automatic commit after a one-file change in a repository of 100k files
//!   against `git status` there: with the change tracker vouching (every commit after its
//!   first); the first commit after a server start, its checkout walked while the turn ran
//!   (`prime_tracked`), and that walk; and a commit walking the checkout itself.
//! - **web**: a turn's first answer piece on a page's event stream against a socket watcher's,
//!   and what 20 open pages cost the server in memory and idle CPU (`figures/web.rs`).

use std::io::{BufRead, Read, Write};
use std::os::fd::{AsFd, FromRawFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "figures/burst.rs"]
mod burst;
#[path = "figures/lane.rs"]
mod lane;
#[path = "figures/ls.rs"]
mod ls;
#[path = "figures/pairs.rs"]
mod pairs;
#[path = "figures/phases.rs"]
mod phases;
#[path = "figures/remote.rs"]
mod remote;
#[path = "figures/web.rs"]
mod web;

const BATON: &str = env!("CARGO_BIN_EXE_baton");
const SHIMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/shims");
/// The window the scripted session's model reports.
const WINDOW: u64 = 200_000;
/// What a fresh conversation opens on (system prompt, tools, standing text), in tokens.
const BASE: u64 = 3_000;
/// What an auto-compaction leaves of the conversation, in tokens.
const SUMMARY: u64 = 12_000;

fn main() {
    let only = std::env::var("BATON_BENCH_ONLY").unwrap_or_default();
    let wanted = |k: &str| only.is_empty() || only.split(',').any(|o| o == k);
    let mut rows: Vec<[String; 4]> = Vec::new();
    if wanted("send") {
        rows.extend(send_rows());
        rows.extend(before_rows());
        phases::print();
    }
    if wanted("warm") {
        rows.extend(warm_rows());
        rows.extend(warm_codex_rows());
    }
    if wanted("remote") {
        rows.extend(remote::rows(knob("BATON_BENCH_SENDS", 40).max(10) / 2));
    }
    if wanted("ls") {
        rows.extend(ls::rows());
    }
    if wanted("lane") {
        rows.extend(lane::rows());
    }
    if wanted("burst") {
        rows.extend(burst::rows());
    }
    if wanted("memory") {
        rows.extend(memory_rows());
    }
    if wanted("tokens") {
        rows.extend(token_rows());
    }
    if wanted("commit") {
        rows.extend(commit_rows());
    }
    if wanted("web") {
        rows.extend(web::rows());
    }
    println!();
    println!("| figure | baton | against | ratio / added |");
    println!("|---|---|---|---|");
    for r in rows {
        println!("| {} | {} | {} | {} |", r[0], r[1], r[2], r[3]);
    }
}

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A private world (HOME, BATON_HOME, CODEX_HOME) on the simulated CLIs; its server stops when
/// it is dropped.
struct World {
    /// The baton binary its commands run (this build's, unless told otherwise).
    bin: PathBuf,
    _tmp: tempfile::TempDir,
    root: PathBuf,
    env: Vec<(String, String)>,
}

impl World {
    /// A world whose turns all start their CLI (`warm = 0` for Claude and Codex).
    fn cold() -> World {
        let w = World::new();
        let data = w.root.join("data");
        std::fs::create_dir_all(&data).expect("data dir");
        let config = "[providers.claude]\nwarm = 0\n\n[providers.codex]\nwarm = 0\n";
        std::fs::write(data.join("config.toml"), config).expect("config");
        w
    }

    fn new() -> World {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().canonicalize().expect("temp path");
        std::fs::create_dir_all(root.join("work")).expect("work dir");
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).expect("bin dir");
        // The simulated CLIs' `python3` is the interpreter itself, not a version manager's
        // wrapper script (pyenv's costs ~80 ms a start, and varies): both sides of a pair run
        // the same interpreter, and the figures vary less.
        if let Some(python) = real_python() {
            std::os::unix::fs::symlink(python, bin.join("python3")).expect("python3 link");
        }
        let path = format!(
            "{SHIMS}:{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let env = vec![
            ("PATH".into(), path),
            ("HOME".into(), root.display().to_string()),
            ("BATON_HOME".into(), root.join("data").display().to_string()),
            (
                "CODEX_HOME".into(),
                root.join("codex").display().to_string(),
            ),
            (
                "BATON_SHIM_LOG".into(),
                root.join("shim.log").display().to_string(),
            ),
            ("SHELL".into(), "/bin/sh".into()),
            ("TERM".into(), "xterm-256color".into()),
            ("LANG".into(), "C.UTF-8".into()),
        ];
        World {
            bin: PathBuf::from(BATON),
            _tmp: tmp,
            root,
            env,
        }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(args).env_clear().envs(self.env.iter().cloned());
        c
    }

    fn ok(&self, args: &[&str]) -> Output {
        let out = self.cmd(args).output().expect("run baton");
        assert!(out.status.success(), "baton {args:?}: {out:?}");
        out
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.push("--json");
        serde_json::from_slice(&self.ok(&a).stdout).expect("json")
    }

    /// A plain folder terminal (no git: the figures are baton's, not a worktree's).
    fn terminal(&self, name: &str) {
        self.terminal_on(name, "claude");
    }

    fn terminal_on(&self, name: &str, provider: &str) {
        let dir = self.root.join("work").join(name);
        std::fs::create_dir_all(&dir).expect("terminal dir");
        let dir = dir.display().to_string();
        self.ok(&["new", name, "--dir", &dir, "--provider", provider]);
    }

    /// The pid of terminal `name`'s warm CLI, once there is one (a Codex app-server resumes
    /// its thread after the turn).
    fn warm_pid(&self, name: &str) -> i64 {
        for _ in 0..3000 {
            let listed = self.json(&["server", "status"]);
            let found = listed["warm"].as_array().and_then(|w| {
                w.iter()
                    .find(|c| c["name"] == name)
                    .and_then(|c| c["pid"].as_i64())
            });
            if let Some(pid) = found {
                return pid;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("{name} has no warm CLI");
    }

    fn server_pid(&self) -> i32 {
        let v = self.json(&["server", "status"]);
        v["pid"].as_i64().expect("a server pid") as i32
    }

    fn last_invocation(&self) -> Value {
        let log = std::fs::read_to_string(self.root.join("shim.log")).expect("shim log");
        let line = log.lines().last().expect("an invocation");
        serde_json::from_str(line).expect("a log line")
    }

    /// Waits until the CLI of the last turn has exited: a turn ends at its result, its CLI
    /// exits after, and the next measurement must not share the machine with that.
    fn cli_exited(&self) {
        exited(self.last_invocation()["pid"].as_i64().unwrap_or(0));
    }

    /// Waits until every CLI the shims logged has exited.
    fn all_clis_exited(&self) {
        let log = std::fs::read_to_string(self.root.join("shim.log")).unwrap_or_default();
        for line in log.lines() {
            let inv: Value = serde_json::from_str(line).unwrap_or_default();
            exited(inv["pid"].as_i64().unwrap_or(0));
        }
    }
}

/// Waits (10 s at most) until process `pid` has exited.
fn exited(pid: i64) {
    let Ok(pid) = i32::try_from(pid) else {
        return;
    };
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor, or -1 (the
    // process is gone already).
    let fd = unsafe { nix::libc::syscall(nix::libc::SYS_pidfd_open, pid, 0) };
    let Ok(fd) = i32::try_from(fd) else {
        return;
    };
    if fd < 0 {
        return;
    }
    // SAFETY: `fd` was just opened and is owned here alone.
    let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
    let mut fds = [nix::poll::PollFd::new(
        fd.as_fd(),
        nix::poll::PollFlags::POLLIN,
    )];
    // Readable once the process has exited.
    let _ = nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(10_000u16));
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.cmd(&["server", "stop"]).output();
    }
}

/// The `python3` on the PATH, its wrappers resolved (asked once a run).
fn real_python() -> Option<&'static Path> {
    static PYTHON: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let code = "import os, sys; print(os.path.realpath(sys.executable))";
            let out = Command::new("python3").args(["-c", code]).output().ok()?;
            let path = String::from_utf8(out.stdout).ok()?;
            Some(PathBuf::from(path.trim())).filter(|p| p.is_absolute())
        })
        .as_deref()
}

/// Starts `cmd` with `stdin` written and closed: when it started, the child and its stdout.
fn started(
    mut cmd: Command,
    stdin: &[u8],
) -> (Instant, std::process::Child, std::process::ChildStdout) {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin).expect("write stdin");
    drop(input);
    let out = child.stdout.take().expect("stdout");
    (start, child, out)
}

/// Runs `cmd` with `stdin`; (wall, time to the first stdout byte, time to the end of its first
/// stdout line holding `marker`).
fn timed_to(cmd: Command, stdin: &[u8], marker: &str) -> (Duration, Duration, Duration) {
    let (start, mut child, out) = started(cmd, stdin);
    let mut out = std::io::BufReader::new(out);
    let (mut first, mut marked) = (None, None);
    let mut line = String::new();
    while out.read_line(&mut line).expect("read") > 0 {
        first.get_or_insert_with(|| start.elapsed());
        if marked.is_none() && line.contains(marker) {
            marked = Some(start.elapsed());
        }
        line.clear();
    }
    let status = child.wait().expect("wait");
    assert!(status.success(), "{status}");
    let wall = start.elapsed();
    (
        wall,
        first.expect("no output"),
        marked.expect("no marked line"),
    )
}

/// Runs `cmd` with `stdin`; (wall, time to the first stdout byte).
fn timed(cmd: Command, stdin: &[u8]) -> (Duration, Duration) {
    let (wall, first, _) = timed_last(cmd, stdin);
    (wall, first)
}

/// [`timed`], and the time to the last stdout byte (the process may exit after it).
fn timed_last(cmd: Command, stdin: &[u8]) -> (Duration, Duration, Duration) {
    let (start, mut child, mut out) = started(cmd, stdin);
    let mut buf = [0u8; 4096];
    let (mut first, mut last) = (None, None);
    loop {
        let n = out.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        let at = start.elapsed();
        first.get_or_insert(at);
        last = Some(at);
    }
    let status = child.wait().expect("wait");
    assert!(status.success(), "{status}");
    (
        start.elapsed(),
        first.expect("no output"),
        last.expect("no output"),
    )
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn row(figure: &str, baton: String, against: String, ratio: String) -> [String; 4] {
    println!("{figure}: {baton} against {against} ({ratio})");
    [figure.to_string(), baton, against, ratio]
}

fn send_rows() -> Vec<[String; 4]> {
    let w = World::cold();
    let n = knob("BATON_BENCH_SENDS", 40);
    w.terminal("s");
    w.ok(&["send", "s", "warm the session up"]);
    w.cli_exited();
    // Each send, and next to it the very command line baton gave the CLI for the last send, run
    // directly: both see the same session file and the same machine; the figures are medians
    // of the pairs' differences; which of the two goes first alternates. A send returns at its
    // turn's result, its CLI exiting after: the pair's next run waits for that exit.
    let (mut baton, mut direct, mut added, mut to_result, mut added_first) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut last_to_result = vec![];
    for i in 0..n {
        let prompt = format!("resumed turn {i}");
        let send = || {
            let ran = timed_last(w.cmd(&["send", "s", &prompt]), b"");
            w.cli_exited();
            ran
        };
        let bare = || {
            let inv = w.last_invocation();
            timed_to(direct_run(&w), &stdin_of(&inv), "\"type\":\"result\"")
        };
        let ((bw, bf, bl), (cw, cf, cr)) = alternating(i, send, bare);
        baton.push(bw);
        direct.push(cw);
        added.push(millis(bw) - millis(cw));
        to_result.push(millis(bw) - millis(cr));
        last_to_result.push(millis(bl) - millis(cr));
        added_first.push(millis(bf) - millis(cf));
    }
    vec![
        row(
            "send wall (resumed session), median",
            ms(median(baton)),
            format!(
                "{} (the CLI's command line, run directly)",
                ms(median(direct))
            ),
            format!("{:+.1} ms", median_f(added)),
        ),
        row(
            "send wall against the direct run's result line (its answer complete, the CLI not yet exited)",
            "-".into(),
            "the CLI's result line".into(),
            format!("{:+.1} ms", median_f(to_result)),
        ),
        row(
            "send's last stdout byte (its summary: the answer complete on screen) against the direct run's result line",
            "-".into(),
            "the CLI's result line".into(),
            format!("{:+.1} ms", median_f(last_to_result)),
        ),
        row(
            "first stdout byte after send, median of the differences",
            "-".into(),
            "the CLI's first byte".into(),
            format!("{:+.1} ms", median_f(added_first)),
        ),
    ]
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The median of signed differences, in ms.
fn median_f(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// With `BATON_BENCH_BEFORE=PATH` (another build of baton, e.g. the last commit's): `send`
/// on this build against the same on that one, each in a world of its own, alternating
/// which goes first, as the median of the pairs' differences. The direct run's own spread
/// is out of it, so it tells a change of a millisecond or two apart.
fn before_rows() -> Vec<[String; 4]> {
    let Some(before) = std::env::var_os("BATON_BENCH_BEFORE") else {
        return Vec::new();
    };
    let n = knob("BATON_BENCH_SENDS", 40);
    let this = World::cold();
    let mut that = World::cold();
    that.bin = PathBuf::from(before);
    this.terminal("s");
    that.terminal("s");
    this.ok(&["send", "s", "warm the session up"]);
    that.ok(&["send", "s", "warm the session up"]);
    let (mut ours, mut theirs, mut added) = (vec![], vec![], vec![]);
    for i in 0..n {
        let prompt = format!("resumed turn {i}");
        let send = |w: &World| {
            let wall = timed(w.cmd(&["send", "s", &prompt]), b"").0;
            w.cli_exited();
            wall
        };
        let (a, b) = alternating(i, || send(&this), || send(&that));
        ours.push(a);
        theirs.push(b);
        added.push(millis(a) - millis(b));
    }
    vec![row(
        "send wall, this build against BATON_BENCH_BEFORE (median of the pairs' differences)",
        ms(median(ours)),
        ms(median(theirs)),
        format!("{:+.1} ms", median_f(added)),
    )]
}

/// Pair `i` of a run: `a`'s result and `b`'s, `a` run first in even pairs and `b` in odd
/// ones, so neither always runs on a machine the other just warmed (or loaded).
fn alternating<A, B>(i: usize, a: impl FnOnce() -> A, b: impl FnOnce() -> B) -> (A, B) {
    if i.is_multiple_of(2) {
        let a = a();
        (a, b())
    } else {
        let b = b();
        (a(), b)
    }
}

fn stdin_of(inv: &Value) -> Vec<u8> {
    inv["stdin"]
        .as_str()
        .unwrap_or_default()
        .as_bytes()
        .to_vec()
}

/// The first stdout byte of `baton send` on a warm CLI and on a cold one, against the CLI's own
/// cold start resuming the warm terminal's session (three runs a round, in turn).
fn warm_rows() -> Vec<[String; 4]> {
    let n = knob("BATON_BENCH_SENDS", 40).max(10) / 2;
    let warm = World::new();
    let cold = World::cold();
    for w in [&warm, &cold] {
        w.terminal("s");
        w.ok(&["send", "s", "open the session"]);
    }
    let opened = warm.last_invocation();
    let bare = || timed(direct_run_of(&warm, &opened), &stdin_of(&opened)).1;
    let (mut w_pairs, mut c_pairs) = (pairs::Pairs::default(), pairs::Pairs::default());
    for i in 0..n {
        let prompt = format!("turn {i}");
        // Settled: the warm CLI is back in the pool, the cold one's last CLI has exited.
        warm.warm_pid("s");
        w_pairs.time(i, || timed(warm.cmd(&["send", "s", &prompt]), b"").1, bare);
        cold.cli_exited();
        c_pairs.time(i, || timed(cold.cmd(&["send", "s", &prompt]), b"").1, bare);
    }
    let listed = warm.json(&["server", "status"]);
    let memory = listed["warm"][0]["memory_bytes"].as_u64().unwrap_or(0);
    let anchor = "the CLI's own cold start, resumed";
    vec![
        w_pairs.row("first stdout byte after send, warm CLI", anchor),
        c_pairs.row("first stdout byte after send, cold CLI (warm = 0)", anchor),
        row(
            "memory of a warm CLI (the simulated one)",
            format!("{} KiB", memory / 1024),
            "-".into(),
            "-".into(),
        ),
    ]
}

/// The same for Codex: `baton send` into a warm app-server (`turn/start`) and into a cold
/// `codex exec … resume` (`warm = 0`), against that very cold command line run directly; the
/// memory of a warm app-server (the simulated one: the real one holds ~150 MB).
fn warm_codex_rows() -> Vec<[String; 4]> {
    let n = knob("BATON_BENCH_SENDS", 40).max(10) / 2;
    let warm = World::new();
    let cold = World::cold();
    for w in [&warm, &cold] {
        w.terminal_on("x", "codex");
        w.ok(&["send", "x", "open the thread"]);
    }
    cold.ok(&["send", "x", "resume it once"]);
    let resumed = cold.last_invocation();
    let bare = || timed(direct_codex(&cold, &resumed), &stdin_of(&resumed)).1;
    let (mut w_pairs, mut c_pairs) = (pairs::Pairs::default(), pairs::Pairs::default());
    for i in 0..n {
        let prompt = format!("turn {i}");
        warm.warm_pid("x");
        w_pairs.time(i, || timed(warm.cmd(&["send", "x", &prompt]), b"").1, bare);
        cold.cli_exited();
        c_pairs.time(i, || timed(cold.cmd(&["send", "x", &prompt]), b"").1, bare);
    }
    let pid = warm.warm_pid("x");
    let listed = warm.json(&["server", "status"]);
    let memory = listed["warm"]
        .as_array()
        .and_then(|w| w.iter().find(|c| c["pid"].as_i64() == Some(pid)))
        .and_then(|c| c["memory_bytes"].as_u64())
        .unwrap_or(0);
    let anchor = "`codex exec … resume`, run directly";
    vec![
        w_pairs.row(
            "codex: first stdout byte after send, warm app-server",
            anchor,
        ),
        c_pairs.row(
            "codex: first stdout byte after send, cold (warm = 0)",
            anchor,
        ),
        row(
            "memory of a warm codex app-server (the simulated one)",
            format!("{} KiB", memory / 1024),
            "-".into(),
            "-".into(),
        ),
    ]
}

/// The Codex command line of run `inv`, as the shim logged it.
fn direct_codex(w: &World, inv: &Value) -> Command {
    let argv: Vec<String> = inv["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .map(|a| a.as_str().unwrap_or_default().to_string())
        .collect();
    let mut c = Command::new(Path::new(SHIMS).join("codex"));
    c.args(&argv)
        .current_dir(inv["cwd"].as_str().expect("cwd"))
        .env_clear()
        .envs(w.env.iter().filter(|(k, _)| k != "BATON_SHIM_LOG").cloned())
        .env("BATON_SHIM_LOG", w.root.join("direct.log"));
    c
}

/// The CLI command of baton's last run, as the shim logged it (its arguments, cwd).
fn direct_run(w: &World) -> Command {
    direct_run_of(w, &w.last_invocation())
}

/// The CLI command of the run `inv` logged (its arguments, cwd); a run that opened its session
/// (`--session-id`) resumes it instead.
fn direct_run_of(w: &World, inv: &Value) -> Command {
    let mut argv: Vec<String> = inv["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .map(|a| a.as_str().unwrap_or_default().to_string())
        .collect();
    if let Some(i) = argv.iter().position(|a| a == "--session-id") {
        argv[i] = "--resume".into();
    }
    // baton removed the run's system text file when the run ended: the same bytes, in a
    // file of the bench's own (baton may remove its file after this has written it).
    if let Some(i) = argv.iter().position(|a| a == "--append-system-prompt-file") {
        let text = inv["system"].as_str().expect("the logged system text");
        let file = w.root.join("direct-system.txt");
        std::fs::write(&file, text).expect("the system text file");
        argv[i + 1] = file.display().to_string();
    }
    let mut c = Command::new(Path::new(SHIMS).join("claude"));
    c.args(&argv)
        .current_dir(inv["cwd"].as_str().expect("cwd"))
        .env_clear()
        // Logged as baton's runs are (the same work), elsewhere: the log's last line stays
        // baton's run.
        .envs(w.env.iter().filter(|(k, _)| k != "BATON_SHIM_LOG").cloned())
        .env("BATON_SHIM_LOG", w.root.join("direct.log"));
    c
}

/// Resident memory of `pid` in KiB.
fn rss_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn memory_rows() -> Vec<[String; 4]> {
    let w = World::new();
    w.ok(&["server", "start"]);
    let pid = w.server_pid();
    w.ok(&["ls"]);
    let before = rss_kib(pid);
    for i in 0..100 {
        w.terminal(&format!("m{i:03}"));
    }
    w.ok(&["ls"]);
    let idle = rss_kib(pid);
    // A shell each: the multiplexer's request, answered with the shell's first screen.
    let socket = w.root.join("data").join("server.sock");
    for i in 0..100 {
        let mut s = UnixStream::connect(&socket).expect("connect");
        let req = format!("{{\"cmd\":\"shell\",\"name\":\"m{i:03}\",\"rows\":40,\"cols\":120}}\n");
        s.write_all(req.as_bytes()).expect("shell request");
        let mut first = [0u8; 1];
        s.read_exact(&mut first).expect("the shell's first screen");
    }
    w.ok(&["ls"]);
    let shells = rss_kib(pid);
    let per = |kib: u64| format!("{:.1} KiB", kib as f64 / 100.0);
    vec![
        row(
            "server memory per idle terminal (100)",
            per(idle.saturating_sub(before)),
            format!("{before} KiB with none"),
            "-".into(),
        ),
        row(
            "server memory per idle terminal with a shell each (100)",
            per(shells.saturating_sub(before)),
            format!("{before} KiB with none"),
            "goal ≤ 512 KiB".into(),
        ),
    ]
}

/// The context each of `turns` turns adds: 2k–9k tokens, the same sequence every run.
fn deltas(turns: usize) -> Vec<u64> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..turns)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            2_000 + x % 7_000
        })
        .collect()
}

/// Tokens sent per turn under a CLI's auto-compact at 80%: (per turn, compactions).
fn auto_compact(deltas: &[u64]) -> (Vec<u64>, usize) {
    let (mut ctx, mut compactions, mut sent) = (BASE, 0, Vec::new());
    for d in deltas {
        let mut cost = 0;
        if ctx + d > WINDOW * 8 / 10 {
            // The compaction call reads the whole context; the summary replaces it.
            cost += ctx;
            ctx = SUMMARY;
            compactions += 1;
        }
        ctx += d;
        sent.push(cost + ctx);
    }
    (sent, compactions)
}

fn token_rows() -> Vec<[String; 4]> {
    let w = World::new();
    let turns = knob("BATON_BENCH_TURNS", 200);
    let deltas = deltas(turns);
    w.terminal("rot");
    let (mut ctx, mut sent, mut conversations) = (0u64, Vec::new(), 0u64);
    for (i, d) in deltas.iter().enumerate() {
        let show = w.json(&["show", "rot"]);
        let fresh = i == 0 || show["context"]["rotates_next"].as_bool().unwrap_or(false);
        ctx = if fresh { BASE } else { ctx } + d;
        let prompt = format!("turn {i} [[ctx:{ctx}]] [[window:{WINDOW}]]");
        w.ok(&["send", "rot", &prompt]);
        let number = w.json(&["show", "rot"])["conversation"]["number"]
            .as_u64()
            .unwrap_or(0);
        assert_eq!(
            number > conversations,
            fresh,
            "turn {i}: baton rotated otherwise"
        );
        conversations = number;
        sent.push(ctx);
    }
    let (compact, compactions) = auto_compact(&deltas);
    let (a, b): (u64, u64) = (sent.iter().sum(), compact.iter().sum());
    let svg = std::env::var("BATON_BENCH_SVG")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tokens-per-turn.svg")
        });
    std::fs::write(&svg, plot(&sent, &compact)).expect("write the plot");
    println!("tokens per turn plotted in {}", svg.display());
    vec![row(
        &format!("tokens sent over {turns} turns (45% rotation / auto-compact at 80%)"),
        format!("{a} ({conversations} conversations)"),
        format!("{b} ({compactions} compactions)"),
        format!("{:.2}×", a as f64 / b as f64),
    )]
}

/// An SVG line chart of both series, with the 45% and 80% lines.
fn plot(baton: &[u64], compact: &[u64]) -> String {
    let (w, h, pad) = (800.0, 360.0, 50.0);
    let top = compact
        .iter()
        .chain(baton)
        .copied()
        .max()
        .unwrap_or(1)
        .max(WINDOW) as f64;
    let x = |i: usize| pad + i as f64 * (w - 2.0 * pad) / (baton.len().max(2) - 1) as f64;
    let y = |v: f64| h - pad - v * (h - 2.0 * pad) / top;
    let line = |s: &[u64]| {
        s.iter()
            .enumerate()
            .map(|(i, v)| format!("{:.1},{:.1}", x(i), y(*v as f64)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let level = |frac: f64, label: &str| {
        let yy = y(WINDOW as f64 * frac);
        format!(
            "<line x1=\"{pad}\" x2=\"{}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#999\" stroke-dasharray=\"4 4\"/><text x=\"{}\" y=\"{:.1}\" font-size=\"11\" fill=\"#666\">{label}</text>",
            w - pad,
            w - pad - 120.0,
            yy - 4.0
        )
    };
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\">\
<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
<text x=\"{pad}\" y=\"24\" font-size=\"14\">Tokens sent per turn ({} turns, window {WINDOW})</text>\
{}{}\
<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" points=\"{}\"/>\
<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"{}\"/>\
<text x=\"{pad}\" y=\"{}\" font-size=\"12\" fill=\"#1f77b4\">baton: rotation past 45%</text>\
<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#d62728\">auto-compact at 80%</text>\
<line x1=\"{pad}\" x2=\"{pad}\" y1=\"{pad}\" y2=\"{}\" stroke=\"black\"/>\
<line x1=\"{pad}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"black\"/>\
</svg>\n",
        baton.len(),
        level(0.45, "45% (baton rotates)"),
        level(0.8, "80% (auto-compact)"),
        line(compact),
        line(baton),
        h - 12.0,
        pad + 220.0,
        h - 12.0,
        h - pad,
        w - pad,
        h - pad,
        h - pad,
    )
}

fn commit_rows() -> Vec<[String; 4]> {
    let files = knob("BATON_BENCH_FILES", 100_000);
    let tmp = tempfile::tempdir().expect("temp dir");
    let repo = tmp.path().join("big");
    for i in 0..files {
        let dir = repo.join(format!("d{:03}", i / 1000));
        if i % 1000 == 0 {
            std::fs::create_dir_all(&dir).expect("dir");
        }
        std::fs::write(dir.join(format!("f{i}.txt")), format!("file {i}\n")).expect("file");
    }
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=b", "-c", "user.email=b@b"])
            .args(args)
            .current_dir(&repo)
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        out
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "initial"]);
    git(&["status", "--porcelain"]);
    let runs = 5;
    let mut status = Vec::new();
    let mut walked = Vec::new();
    let mut primes = Vec::new();
    let mut first = Vec::new();
    let mut tracked = Vec::new();
    let cookies = tmp.path().join("cookies");
    // Runs 0..runs walk (no tracker: as before priming, the first commit after a server
    // start); runs..2*runs are each a server start's first commit, the checkout walked for a
    // tracker of its own while the turn ran (`prime_tracked`); then one tracker vouches for
    // every commit after its first.
    let mut tracker = baton::git::Tracker::new(&cookies).expect("tracker");
    for r in 0..runs * 3 + 1 {
        // Turns are seconds apart: back to back, within a second or two of the index's last
        // write, libgit2 takes the index's entries for racily clean and checks far more
        // files (~380 ms here instead of ~250 ms), which no turn sees.
        std::thread::sleep(Duration::from_secs(2));
        let touched = repo.join("d000").join("f0.txt");
        std::fs::write(&touched, format!("changed {r}\n")).expect("change");
        let start = Instant::now();
        git(&["status", "--porcelain"]);
        status.push(start.elapsed());
        let message = format!("turn {r}");
        let starting = (runs..runs * 2).contains(&r);
        if starting {
            drop(tracker);
            tracker = baton::git::Tracker::new(&cookies).expect("tracker");
            let start = Instant::now();
            assert!(baton::git::prime_tracked(&repo, &tracker).expect("prime"));
            primes.push(start.elapsed());
        }
        let vouched = tracker.vouched();
        let start = Instant::now();
        let made = if r < runs {
            baton::git::auto_commit(&repo, &message, &[])
        } else {
            baton::git::auto_commit_tracked(&repo, &message, &[], &tracker)
        };
        let took = start.elapsed();
        assert!(made.expect("commit").is_some(), "nothing committed");
        match r {
            r if r < runs => walked.push(took),
            r if r == runs * 2 => {} // the last tracker's first commit walks
            _ => {
                assert_eq!(tracker.vouched(), vouched + 1, "the tracker vouched");
                if starting {
                    first.push(took);
                } else {
                    tracked.push(took);
                }
            }
        }
    }
    let s = median(status);
    let ratio = |c: Duration| format!("{:.2}×", c.as_secs_f64() / s.as_secs_f64());
    let (w, t) = (median(walked), median(tracked));
    let (f, p) = (median(first), median(primes));
    vec![
        row(
            &format!(
                "automatic commit after a one-file change, {files} files, tracked / `git status`"
            ),
            ms(t),
            ms(s),
            ratio(t),
        ),
        row(
            "the same, the first commit after a server start (the checkout walked while its turn ran) / `git status`",
            ms(f),
            ms(s),
            ratio(f),
        ),
        row(
            "that walk, during the turn / `git status`",
            ms(p),
            ms(s),
            ratio(p),
        ),
        row(
            "the first commit after a server start walking the checkout itself (before priming) / `git status`",
            ms(w),
            ms(s),
            ratio(w),
        ),
    ]
}
