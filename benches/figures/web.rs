//! Issue 41's figures, the web client's cost. **latency**: a turn's first answer piece on a
//! page's event stream (`/api/events`, read as a browser's `EventSource` reads it) against the
//! same piece on a watcher of the server socket (what the multiplexer reads), both following
//! the same terminal in the same run, each on a thread of its own stamping a line as it is
//! read: the median of the per-turn differences with their spread (the middle half). **pages**:
//! 20 open pages (each its event stream and the page's first requests: the page, its script
//! and style, the approvals inbox) against none on the same server (after one page opened
//! and closed, so the web side's one-time set-up is in both): the server's resident memory
//! (`/proc/PID/status`) and its CPU ticks over 5 idle seconds (`/proc/PID/stat`, every
//! thread), rounds alternating which goes first.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::ls::Spread;
use super::{alternating, knob, row, rss_kib, World};

/// Open pages in the memory and CPU rows.
const PAGES: usize = 20;
/// The idle window CPU ticks are counted over (the event stream's keep-alive comes every 15 s).
const IDLE: Duration = Duration::from_secs(5);
/// Rounds of the CPU rows.
const ROUNDS: usize = 4;

/// The page's address and token, from `baton web --json`.
struct Page {
    addr: String,
    token: String,
}

impl Page {
    fn of(w: &World) -> Page {
        let url = w.json(&["web"])["url"]
            .as_str()
            .expect("web url")
            .to_string();
        let rest = url.strip_prefix("http://").expect("http url");
        let (addr, token) = rest.split_once("/?token=").expect("token in url");
        Page {
            addr: addr.into(),
            token: token.into(),
        }
    }

    fn head(&self, method: &str, path: &str, len: usize) -> String {
        format!(
            "{method} {path} HTTP/1.1\r\nHost: {a}\r\nOrigin: http://{a}\r\nCookie: baton_web={t}\r\n\
             Content-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n",
            a = self.addr,
            t = self.token,
        )
    }

    /// One request, its whole answer read.
    fn get(&self, method: &str, path: &str, body: &str) {
        let mut s = TcpStream::connect(&self.addr).expect("connect to the page");
        s.write_all(self.head(method, path, body.len()).as_bytes())
            .and_then(|()| s.write_all(body.as_bytes()))
            .expect("request");
        let mut answer = Vec::new();
        s.read_to_end(&mut answer).expect("answer");
        assert!(answer.starts_with(b"HTTP/1.1 200"), "{path}");
    }

    /// The event stream, open, its first event (the `terminals` snapshot) read.
    fn events(&self) -> BufReader<TcpStream> {
        let mut s = TcpStream::connect(&self.addr).expect("connect to the page");
        s.write_all(self.head("GET", "/api/events", 0).as_bytes())
            .expect("events request");
        let mut r = BufReader::new(s);
        let mut line = String::new();
        while r.read_line(&mut line).expect("event stream") > 0 {
            if line.starts_with("data: ") {
                return r;
            }
            line.clear();
        }
        panic!("the event stream ended before its first event");
    }

    /// A page opened as a browser opens it: its event stream held open.
    fn open(&self) -> BufReader<TcpStream> {
        for path in ["/", "/app.js", "/app.css"] {
            self.get("GET", path, "");
        }
        self.get("POST", "/api", r#"{"cmd":"approvals"}"#);
        self.events()
    }
}

/// Reads watch lines (`data: ` ones only when `sse`) on a thread, sending each turn's number
/// with the moment its first answer piece was read.
fn stamp_first_pieces(
    lines: impl BufRead + Send + 'static,
    sse: bool,
) -> mpsc::Receiver<(u64, Instant)> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut turn, mut stamped) = (0, 0);
        for line in lines.lines() {
            let Ok(line) = line else { return };
            let at = Instant::now();
            let data = if sse {
                match line.strip_prefix("data: ") {
                    Some(d) => d,
                    None => continue,
                }
            } else {
                &line
            };
            let Ok(v) = serde_json::from_str::<Value>(data) else {
                continue;
            };
            let step = &v["event"]["event"];
            match step["step"].as_str() {
                Some("started") => turn = step["number"].as_u64().unwrap_or(0),
                Some("turn") if stamped != turn => {
                    if matches!(step["event"]["kind"].as_str(), Some("text" | "delta")) {
                        stamped = turn;
                        if tx.send((turn, at)).is_err() {
                            return;
                        }
                    }
                }
                _ => {}
            }
        }
    });
    rx
}

/// When turn `n`'s first piece was read.
fn stamp_of(rx: &mpsc::Receiver<(u64, Instant)>, n: u64) -> Instant {
    loop {
        let (k, at) = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("a turn's first answer piece");
        if k == n {
            return at;
        }
    }
}

fn latency_row() -> [String; 4] {
    let turns = knob("BATON_BENCH_SENDS", 40).max(10);
    let w = World::new();
    w.terminal("t");
    let page = Page::of(&w);
    let socket = w.root.join("data").join("server.sock");
    let mut watcher = UnixStream::connect(socket).expect("connect to the socket");
    watcher
        .write_all(b"{\"cmd\":\"watch\"}\n")
        .expect("watch request");
    let mux = stamp_first_pieces(BufReader::new(watcher), false);
    let web = stamp_first_pieces(page.open(), true);
    let (mut added, t0) = (Vec::new(), Instant::now());
    let since = |at: Instant| at.duration_since(t0).as_secs_f64() * 1000.0;
    for n in 1..=turns as u64 {
        w.ok(&["send", "t", &format!("turn {n}")]);
        let (m, p) = (stamp_of(&mux, n), stamp_of(&web, n));
        added.push(since(p) - since(m));
    }
    let s = Spread::of(added);
    row(
        &format!("a turn's first answer piece on a page's event stream, against a socket watcher (the multiplexer's reading) of the same terminal, same run (medians of {turns} turns, middle half)"),
        format!("{:+.2} ms ({:+.2} to {:+.2})", s.median, s.low, s.high),
        "0 ms".into(),
        "goal ≤ +50 ms".into(),
    )
}

/// The CPU ticks (user and system, every thread) `pid` has used.
fn ticks(pid: i32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0)
}

fn idle_ticks(pid: i32) -> u64 {
    let before = ticks(pid);
    std::thread::sleep(IDLE);
    ticks(pid) - before
}

fn pages_rows() -> Vec<[String; 4]> {
    let w = World::new();
    w.terminal("t");
    w.ok(&["send", "t", "one turn to show"]);
    let page = Page::of(&w);
    let pid = w.server_pid();
    drop(page.open());
    let base = rss_kib(pid);
    let (mut with, mut without, mut grew) = (Vec::new(), Vec::new(), None);
    for i in 0..ROUNDS {
        let (a, b) = alternating(
            i,
            || {
                let before = rss_kib(pid);
                let open: Vec<_> = (0..PAGES).map(|_| page.open()).collect();
                grew.get_or_insert(rss_kib(pid).saturating_sub(before));
                let t = idle_ticks(pid);
                drop(open);
                t
            },
            || idle_ticks(pid),
        );
        with.push(a);
        without.push(b);
    }
    let hz = 100; // USER_HZ: the kernel's tick for /proc times on Linux
    let kib = grew.unwrap_or(0);
    vec![
        row(
            &format!("server memory of {PAGES} open pages (each its event stream and first requests), against none"),
            format!("{:.2} MB", kib as f64 / 1024.0),
            format!("{base} KiB with none"),
            "goal < 5 MB".into(),
        ),
        row(
            &format!("server CPU ticks ({hz}/s) over {} idle s with {PAGES} pages open, against none ({ROUNDS} rounds each)", IDLE.as_secs()),
            format!("{with:?}"),
            format!("{without:?}"),
            "goal: none".into(),
        ),
    ]
}

pub fn rows() -> Vec<[String; 4]> {
    let mut rows = vec![latency_row()];
    rows.extend(pages_rows());
    rows
}
