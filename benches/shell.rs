//! How fast a big `cat` goes through baton's shell path (PTY → server screen → frames over the
//! socket → the client's screen, as the UI has it) compared with tmux on the same machine, both
//! with a client attached (tmux's in a PTY whose output is read and dropped) and, for tmux,
//! also with none. `cargo bench --bench shell` (BATON_BENCH_MB sets the file size, default 100).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::Command;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use serde_json::{json, Value};

const BATON: &str = env!("CARGO_BIN_EXE_baton");
const ROWS: u16 = 40;
const COLS: u16 = 120;

fn main() {
    let mb: usize = std::env::var("BATON_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let tmp = tempfile::tempdir().expect("temp dir");
    let line = "the quick brown fox jumps over the lazy dog 0123456789 ".repeat(2);
    // Plain lines (a log, a source file), then the same with colors on every line (what
    // `ls --color`, compilers and test runners print): baton parses the colored ones whole.
    type Make = fn(u64, &str) -> String;
    let kinds: [(&str, Make); 2] = [
        ("plain lines", |n, line| format!("{n:>10} {line}\n")),
        ("colored lines", |n, line| {
            format!("\x1b[32m{n:>10}\x1b[0m \x1b[1m{line}\x1b[0m\n")
        }),
    ];
    for (i, (kind, make)) in kinds.iter().enumerate() {
        let file = tmp.path().join(format!("big-{i}.txt"));
        let mut text = String::with_capacity(mb << 20);
        let mut n = 0u64;
        while text.len() < mb << 20 {
            n += 1;
            text.push_str(&make(n, &line));
        }
        std::fs::write(&file, &text).expect("write the file");
        drop(text);
        let root = tmp.path().join(format!("world-{i}"));
        std::fs::create_dir_all(&root).expect("world dir");
        let baton = baton_cat(&root, &file.display().to_string());
        println!(
            "{kind}: baton shell path: cat of {mb} MB in {:.2} s",
            baton.as_secs_f64()
        );
        for attached in [true, false] {
            let how = if attached { "attached" } else { "detached" };
            match tmux_cat(&file.display().to_string(), attached) {
                Some(tmux) => {
                    println!(
                        "{kind}: tmux ({how}):  cat of {mb} MB in {:.2} s, ratio baton/tmux {:.2} (below 1: baton is faster)",
                        tmux.as_secs_f64(),
                        baton.as_secs_f64() / tmux.as_secs_f64()
                    );
                }
                None => println!("tmux is not installed: no comparison"),
            }
        }
    }
}

fn baton(root: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(BATON)
        .args(args)
        .env("BATON_HOME", root.join("data"))
        .env("HOME", root)
        .env("SHELL", "/bin/sh")
        .output()
        .expect("run baton")
}

/// Opens a shell over the socket, runs `cat`, and reads until the marker after it, feeding
/// every byte to a screen as the UI does.
fn baton_cat(root: &std::path::Path, file: &str) -> Duration {
    let work = root.join("work");
    std::fs::create_dir_all(&work).expect("work dir");
    let out = baton(
        root,
        &[
            "new",
            "bench",
            "--dir",
            &work.display().to_string(),
            "--in-place",
        ],
    );
    assert!(out.status.success(), "baton new: {out:?}");
    let mut sock = UnixStream::connect(root.join("data/server.sock")).expect("connect");
    let req = json!({"cmd": "shell", "name": "bench", "rows": ROWS, "cols": COLS});
    sock.write_all(format!("{req}\n").as_bytes())
        .expect("request");
    let mut reader = BufReader::with_capacity(256 * 1024, sock.try_clone().expect("clone"));
    let nz = |n: u16| std::num::NonZeroU16::new(n).unwrap_or(std::num::NonZeroU16::MIN);
    let mut screen = vt100::Parser::new(nz(ROWS), nz(COLS), 0);
    let mut line = String::new();
    reader.read_line(&mut line).expect("first screen");
    std::thread::sleep(Duration::from_millis(300));
    let cmd = format!("cat {file}; echo BENCH-$((40+2))\r");
    let input = json!({"input": B64.encode(cmd)});
    let start = Instant::now();
    sock.write_all(format!("{input}\n").as_bytes())
        .expect("input");
    // As in the UI: one thread reads and decodes lines, the main one keeps the screen.
    let (tx, rx) = std::sync::mpsc::channel::<(Option<(u16, u16)>, Vec<u8>)>();
    std::thread::spawn(move || loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            return;
        };
        let ev = &v["event"];
        let Some(bytes) = ev["data"].as_str().and_then(|d| B64.decode(d).ok()) else {
            continue;
        };
        let size = (ev["what"] == "screen").then(|| {
            let side = |k: &str| ev[k].as_u64().unwrap_or(24) as u16;
            (side("rows"), side("cols"))
        });
        if tx.send((size, bytes)).is_err() {
            return;
        }
    });
    loop {
        let (size, bytes) = rx.recv().expect("the shell connection ended");
        if let Some((rows, cols)) = size {
            screen = vt100::Parser::new(nz(rows), nz(cols), 0);
        }
        screen.process(&bytes);
        if screen.screen().contents().contains("BENCH-42") {
            break;
        }
    }
    let took = start.elapsed();
    let _ = baton(root, &["server", "stop"]);
    took
}

/// The same `cat` in a tmux pane of the same size; done when the shell signals tmux.
/// `attached`: a tmux client shows the pane meanwhile, in a PTY whose output is drained.
fn tmux_cat(file: &str, attached: bool) -> Option<Duration> {
    let socket = format!("baton-bench-{}-{attached}", std::process::id());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null"])
            .args(args)
            .output()
    };
    let started = tmux(&[
        "new-session",
        "-d",
        "-x",
        &COLS.to_string(),
        "-y",
        &ROWS.to_string(),
        "/bin/sh",
    ])
    .ok()?;
    if !started.status.success() {
        return None;
    }
    let client = attached.then(|| attach_tmux(&socket));
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    let cmd = format!("cat {file}; tmux -L {socket} wait-for -S bench-done");
    tmux(&["send-keys", "-l", &cmd]).ok()?;
    tmux(&["send-keys", "Enter"]).ok()?;
    tmux(&["wait-for", "bench-done"]).ok()?;
    let took = start.elapsed();
    let _ = tmux(&["kill-server"]);
    drop(client);
    Some(took)
}

/// `tmux attach` in a PTY of the bench's size, its output read and dropped by a thread.
fn attach_tmux(socket: &str) -> Box<dyn portable_pty::Child + Send + Sync> {
    use portable_pty::{native_pty_system, CommandBuilder, PtySize};
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("a pty");
    let mut cmd = CommandBuilder::new("tmux");
    cmd.args(["-L", socket, "attach"]);
    cmd.env("TERM", "xterm-256color");
    let child = pair.slave.spawn_command(cmd).expect("tmux attach");
    let mut reader = pair.master.try_clone_reader().expect("reader");
    std::thread::spawn(move || {
        let _master = pair.master;
        let mut buf = vec![0u8; 64 * 1024];
        while matches!(std::io::Read::read(&mut reader, &mut buf), Ok(n) if n > 0) {}
    });
    child
}
