//! The shell face's server side, over the socket as the UI uses it: a real shell per terminal
//! in its checkout, typed into, resized, attached again (the same screen comes back), exited
//! and started anew; a client that stops reading, and a shell printing garbage, harm nothing;
//! clients are sent frames of the server's screen, the scrollback comes from the server, and
//! the latest client to type sets the size.

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
    /// Bytes of screens and frames received so far.
    received: usize,
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
            received: 0,
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
                let bytes = data(ev);
                self.received += bytes.len();
                self.screen.process(&bytes);
            }
            Some("output") => {
                let bytes = data(ev);
                self.received += bytes.len();
                self.screen.process(&bytes);
            }
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

    // This client stops reading while the shell writes about 21 MB. (C-u first: the
    // garbage's terminal queries were answered, and the answers typed.)
    sh.type_text("\x15seq 1 3000000; echo flood-$((2+3))\r");
    let mut other = ShellConn::open(&w, "t", 24, 80);
    other.until_row("flood-5");
    w.ok(&["ls"]);
    // The slow one catches up with what is on screen, not with everything it missed: a few
    // frames, far from the flood's 21 MB.
    let before = sh.received;
    sh.until_row("flood-5");
    let caught_up = sh.received - before;
    assert!(caught_up < 1 << 20, "{caught_up} bytes to catch up");
    assert!(
        other.received < 4 << 20,
        "{} bytes for the flood",
        other.received
    );
}

#[test]
fn the_scrollback_comes_from_the_server() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut sh = ShellConn::open(&w, "t", 10, 40);
    sh.type_text("seq 1 3000 | sed 's/^/row-/'; echo done-$((3+4))\r");
    sh.until_row("done-7");
    // The live screen holds 10 rows; the history has the rows above them, oldest first.
    sh.sock.write_all(b"\"history\"\n").unwrap();
    let v = loop {
        let v = sh.next().expect("no history");
        if v["event"]["what"] == "history" {
            break v;
        }
        sh.apply(&v);
    };
    let ev = &v["event"];
    assert_eq!(
        (ev["rows"].as_u64(), ev["cols"].as_u64()),
        (Some(10), Some(40))
    );
    let mut back = vt100::Parser::new(nz(10), nz(40), 5000);
    back.process(&B64.decode(ev["data"].as_str().unwrap()).unwrap());
    assert_eq!(back.screen().contents(), sh.screen.screen().contents());
    let screen = back.screen_mut();
    screen.set_scrollback(usize::MAX);
    let kept = screen.scrollback();
    assert_eq!(kept, 2000, "the server keeps 2000 rows of scrollback");
    let oldest = screen.rows(0, 40).next().unwrap();
    // The scrollback ends right above the screen's first row.
    let first = sh.rows()[0].clone();
    let number = |row: &str| row.trim_start_matches("row-").parse::<usize>().unwrap();
    assert_eq!(
        number(&oldest),
        number(&first) - 2000,
        "{oldest:?} then {first:?}"
    );
}

#[test]
fn the_latest_client_to_type_sets_the_size() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut small = ShellConn::open(&w, "t", 10, 40);
    let mut big = ShellConn::open(&w, "t", 30, 100);
    let size = |c: &ShellConn| c.screen.screen().size();
    assert_eq!(size(&big), (nz(30), nz(100)));
    // The small one types: the shell (and both clients' screens) take its size.
    small.type_text("stty size; echo sized-$((1+1))\r");
    small.until_row("sized-2");
    assert!(small.shows("10 40"), "{:#?}", small.rows());
    big.until_row("sized-2");
    assert_eq!(size(&big), (nz(10), nz(40)));
    // The big one types: back to its size.
    big.type_text("stty size; echo sized-$((2+2))\r");
    big.until_row("sized-4");
    assert!(big.shows("30 100"), "{:#?}", big.rows());
    small.until_row("sized-4");
    assert_eq!(size(&small), (nz(30), nz(100)));
}

#[test]
fn archiving_a_terminal_closes_its_shell() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut sh = ShellConn::open(&w, "t", 24, 80);
    sh.type_text("echo before-$((2+2))\r");
    sh.until_row("before-4");
    w.ok(&["archive", "t"]);
    // The server hangs the shell up: the connection reports the end and closes.
    while let Some(v) = sh.next() {
        if v["event"]["what"] == "exited" {
            break;
        }
    }
    assert!(sh.next().is_none(), "the shell's connection stayed open");
    w.ok(&["unarchive", "t"]);
    let fresh = ShellConn::open(&w, "t", 24, 80);
    assert!(!fresh.shows("before-4"), "{:#?}", fresh.rows());
}

#[test]
fn the_shell_of_a_terminal_with_ports_has_them_in_its_environment() {
    let w = World::new();
    let repo = repo(&w, "app");
    std::fs::write(
        w.data().join("config.toml"),
        format!("[repos.{:?}]\nports = 2\n", repo.to_str().unwrap()),
    )
    .unwrap();
    w.ok(&[
        "new",
        "t",
        "--dir",
        repo.to_str().unwrap(),
        "--provider",
        "claude",
    ]);
    let first = w.show("t")["ports"]["first"].as_u64().unwrap();
    let mut sh = ShellConn::open(&w, "t", 24, 80);
    sh.type_text("echo \"ports-$BATON_PORT-$BATON_PORTS\"\r");
    sh.until_row(&format!("ports-{first}-2"));
}
