//! The shell face's server side, over the socket as the UI uses it: a real shell per terminal
//! in its checkout, typed into, resized, attached again (the same screen comes back), exited
//! and started anew; a client that stops reading, and a shell printing garbage, harm nothing.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use serde_json::{json, Value};

use super::common::*;

/// One client's connection to a terminal's shell, with the screen it has drawn so far.
struct ShellConn {
    sock: UnixStream,
    lines: std::io::Lines<BufReader<UnixStream>>,
    screen: vt100::Parser,
    /// Whether a fresh screen (a resync) came after the first.
    resynced: bool,
}

fn nz(n: u64) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n as u16).unwrap()
}

impl ShellConn {
    fn open(w: &World, name: &str, rows: u16, cols: u16) -> ShellConn {
        let mut conn = ShellConn::request(w, name, rows, cols);
        let first = conn.next().expect("no first line");
        assert_eq!(first["reply"], "shell", "{first}");
        assert_eq!(first["event"]["what"], "screen", "{first}");
        conn.apply(&first);
        conn.resynced = false;
        conn
    }

    fn request(w: &World, name: &str, rows: u16, cols: u16) -> ShellConn {
        let mut sock = UnixStream::connect(w.data().join("server.sock")).unwrap();
        let req = json!({"cmd": "shell", "name": name, "rows": rows, "cols": cols});
        sock.write_all(format!("{req}\n").as_bytes()).unwrap();
        // A missing answer must fail the test, not hang it.
        sock.set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let lines = BufReader::new(sock.try_clone().unwrap()).lines();
        ShellConn {
            sock,
            lines,
            screen: vt100::Parser::new(nz(24), nz(80), 0),
            resynced: false,
        }
    }

    fn next(&mut self) -> Option<Value> {
        let line = self.lines.next()?.unwrap_or_else(|e| {
            panic!(
                "the shell connection timed out ({e}); the screen:\n{:#?}",
                self.rows()
            )
        });
        Some(serde_json::from_str(&line).unwrap())
    }

    fn apply(&mut self, v: &Value) {
        let ev = &v["event"];
        let data = |ev: &Value| B64.decode(ev["data"].as_str().unwrap()).unwrap();
        match ev["what"].as_str() {
            Some("screen") => {
                let (rows, cols) = (ev["rows"].as_u64().unwrap(), ev["cols"].as_u64().unwrap());
                self.screen = vt100::Parser::new(nz(rows), nz(cols), 0);
                self.screen.process(&data(ev));
                self.resynced = true;
            }
            Some("output") => self.screen.process(&data(ev)),
            _ => panic!("unexpected line: {v}"),
        }
    }

    fn type_text(&mut self, text: &str) {
        let line = json!({"input": B64.encode(text)});
        self.sock.write_all(format!("{line}\n").as_bytes()).unwrap();
    }

    fn resize(&mut self, rows: u16, cols: u16) {
        let line = json!({"resize": [rows, cols]});
        self.sock.write_all(format!("{line}\n").as_bytes()).unwrap();
        self.screen
            .screen_mut()
            .set_size(nz(rows.into()), nz(cols.into()));
    }

    fn rows(&self) -> Vec<String> {
        self.screen
            .screen()
            .contents()
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect()
    }

    /// Reads output until a screen row ends with `text` (commands compute what they print, so
    /// the echo of what was typed never matches; typed-ahead input may put a prompt before it).
    fn until_row(&mut self, text: &str) {
        while !self.shows(text) {
            let Some(v) = self.next() else {
                panic!(
                    "the shell ended before showing {text:?}:\n{:#?}",
                    self.rows()
                )
            };
            self.apply(&v);
        }
    }

    fn shows(&self, text: &str) -> bool {
        self.rows().iter().any(|r| r.ends_with(text))
    }

    /// Reads until the shell says it exited; returns its code.
    fn until_exit(&mut self) -> Value {
        loop {
            let v = self.next().expect("the connection ended without an exit");
            if v["event"]["what"] == "exited" {
                return v["event"]["code"].clone();
            }
            self.apply(&v);
        }
    }
}

#[test]
fn a_shell_in_the_checkout_takes_keys_resizes_and_comes_back_on_attach() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let dir = w.show("t")["dir"].as_str().unwrap().to_string();
    let mut sh = ShellConn::open(&w, "t", 24, 80);
    sh.type_text("echo hi-$((1+1))\r");
    sh.until_row("hi-2");
    sh.type_text("pwd; echo \"$TERM\"\r");
    sh.until_row(&dir);
    sh.until_row("xterm-256color");

    // The PTY's size follows (the shell learns it through SIGWINCH / the ioctl).
    sh.resize(30, 100);
    sh.type_text("stty size\r");
    sh.until_row("30 100");
    drop(sh);

    // Attaching again: the same shell, and first of all the same screen.
    let again = ShellConn::open(&w, "t", 30, 100);
    assert!(again.shows("hi-2"), "{:#?}", again.rows());
    assert!(again.shows("30 100"), "{:#?}", again.rows());
    assert_eq!(again.screen.screen().size(), (nz(30), nz(100)));
}

#[test]
fn an_exited_shell_is_reported_and_the_next_open_starts_a_new_one() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut sh = ShellConn::open(&w, "t", 24, 80);
    sh.type_text("echo first-$((0+1))\r");
    sh.until_row("first-1");
    sh.type_text("exit 3\r");
    assert_eq!(sh.until_exit(), json!(3));
    assert!(sh.next().is_none(), "the connection ends after the exit");

    let mut fresh = ShellConn::open(&w, "t", 24, 80);
    assert!(!fresh.shows("first-1"), "{:#?}", fresh.rows());
    fresh.type_text("echo second-$((1+1))\r");
    fresh.until_row("second-2");
}

#[test]
fn an_unknown_terminal_or_bad_input_is_an_error() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut none = ShellConn::request(&w, "nope", 24, 80);
    let v = none.next().unwrap();
    assert_eq!(v["reply"], "error", "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("nope"),
        "{v}"
    );

    let mut sh = ShellConn::open(&w, "t", 24, 80);
    sh.sock
        .write_all(b"{\"input\": \"not base64!\"}\n")
        .unwrap();
    loop {
        let v = sh.next().expect("no error line");
        if v["reply"] == "error" {
            assert!(
                v["error"]["message"].as_str().unwrap().contains("base64"),
                "{v}"
            );
            break;
        }
    }
}

#[test]
fn garbage_and_a_client_that_stops_reading_harm_nothing() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut sh = ShellConn::open(&w, "t", 24, 80);
    // Binary garbage through the server's screen and this client's; then a reset (the garbage
    // may have switched character sets or modes, as it would in any terminal).
    sh.type_text("head -c 3000000 /dev/urandom; printf '\\033c'; echo garbage-$((1+1))\r");
    sh.until_row("garbage-2");

    // This client stops reading while the shell writes far more than any queue holds. (C-u
    // first: the garbage's terminal queries were answered, and the answers typed.)
    sh.type_text("\x15seq 1 3000000; echo flood-$((2+3))\r");
    let mut other = ShellConn::open(&w, "t", 24, 80);
    other.until_row("flood-5");
    w.ok(&["ls"]);
    // The slow one catches up from a fresh screen rather than from everything it missed.
    sh.until_row("flood-5");
    assert!(sh.resynced, "the lagging client was sent the screen again");
}
