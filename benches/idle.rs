//! What an idle attached client costs: `baton` (the multiplexer) runs in a PTY on a terminal
//! driven by the simulated CLIs, first on the transcript face, then on the shell face with an
//! idle shell; nothing happens for a while, and the CPU time the client and the server used
//! meanwhile is read from /proc. Zero ticks means no busy redraw or polling loop.
//! `cargo bench --bench idle` (BATON_BENCH_IDLE_SECS sets each window, default 5).

use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, CommandBuilder, PtySize};

const BATON: &str = env!("CARGO_BIN_EXE_baton");
const SHIMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/shims");

fn main() {
    let secs: u64 = std::env::var("BATON_BENCH_IDLE_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path();
    let work = root.join("work");
    std::fs::create_dir_all(&work).expect("work dir");
    let env = environment(root);
    let run = |args: &[&str]| {
        let out = Command::new(BATON)
            .args(args)
            .env_clear()
            .envs(env.iter().cloned())
            .output()
            .expect("run baton");
        assert!(out.status.success(), "baton {args:?}: {out:?}");
    };
    let dir = work.display().to_string();
    run(&["new", "idle", "--dir", &dir, "--in-place"]);
    // The server goes when the bench does, even when it fails half-way.
    let _server = StopServer(env.clone());
    run(&["send", "idle", "hello there"]);

    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("a pty");
    let mut cmd = CommandBuilder::new(BATON);
    cmd.cwd(&work);
    cmd.env_clear();
    for (k, v) in &env {
        cmd.env(k, v);
    }
    let mut child = pair.slave.spawn_command(cmd).expect("start baton");
    let client = child.process_id().expect("a pid");
    let screen = Arc::new(Mutex::new(vt100::Parser::new(nz(40), nz(120), 0)));
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let mut keys = pair.master.take_writer().expect("writer");
    let seen = screen.clone();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Ok(mut s) = seen.lock() {
                s.process(&buf[..n]);
            }
        }
    });
    let shows = |text: &str| {
        let contents = screen
            .lock()
            .map(|s| s.screen().contents())
            .unwrap_or_default();
        if std::env::var_os("BATON_BENCH_DEBUG").is_some() {
            eprintln!("{contents}");
        }
        contents.contains(text)
    };
    wait_until("the transcript", || shows("hello there"));
    let server = server_pid(&root.join("data"));
    println!("idle client, transcript face ({secs} s):");
    report(client, server, secs);

    // Prefix (Ctrl-b) s: the shell face; wait for the prompt, then let it sit.
    keys.write_all(b"\x02s").expect("keys");
    wait_until("the shell's prompt", || shows("bench$ "));
    keys.write_all(b"echo shell-$((20+22))\r").expect("keys");
    wait_until("the shell", || shows("shell-42"));
    println!("idle client, shell face with an idle shell ({secs} s):");
    report(client, server, secs);

    let _ = child.kill();
}

/// Stops the bench's server when dropped.
struct StopServer(Vec<(String, String)>);

impl Drop for StopServer {
    fn drop(&mut self) {
        let _ = Command::new(BATON)
            .args(["server", "stop"])
            .env_clear()
            .envs(self.0.iter().cloned())
            .output();
    }
}

fn environment(root: &Path) -> Vec<(String, String)> {
    let path = format!("{SHIMS}:{}", std::env::var("PATH").unwrap_or_default());
    vec![
        ("PATH".into(), path),
        ("HOME".into(), root.display().to_string()),
        ("BATON_HOME".into(), root.join("data").display().to_string()),
        (
            "CODEX_HOME".into(),
            root.join("codex").display().to_string(),
        ),
        ("SHELL".into(), "/bin/sh".into()),
        ("PS1".into(), "bench$ ".into()),
        ("TERM".into(), "xterm-256color".into()),
        ("LANG".into(), "C.UTF-8".into()),
    ]
}

/// Polls (this is a benchmark's setup, not a measurement) until `done`, at most 30 s.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{what} never showed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Let the last redraw and any follow-up requests settle before measuring.
    std::thread::sleep(Duration::from_millis(500));
}

fn server_pid(data: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(data.join("server.lock")).ok()?;
    text.trim().parse().ok()
}

/// utime + stime of `pid`, in clock ticks.
fn ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

fn report(client: u32, server: Option<u32>, secs: u64) {
    let before = (ticks(client), server.and_then(ticks));
    std::thread::sleep(Duration::from_secs(secs));
    let after = (ticks(client), server.and_then(ticks));
    let used = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (Some(a), Some(b)) => format!("{} ticks", b.saturating_sub(a)),
        _ => "not measured".into(),
    };
    println!("  client: {}", used(before.0, after.0));
    println!("  server: {}", used(before.1, after.1));
}

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).unwrap_or(std::num::NonZeroU16::MIN)
}
