//! A few lines of HTTP/1.1 over a plain TCP stream, for the web client's tests: each request
//! says exactly which `Host`, `Origin` and `Cookie` it carries.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The page's address and token from `baton web --json`'s url.
pub struct Page {
    pub addr: String,
    pub token: String,
}

impl Page {
    pub fn from_url(url: &str) -> Page {
        let rest = url.strip_prefix("http://").unwrap();
        let (addr, query) = rest.split_once("/?token=").unwrap();
        Page {
            addr: addr.to_string(),
            token: query.to_string(),
        }
    }

    pub fn cookie(&self) -> String {
        format!("baton_web={}", self.token)
    }

    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `method path` with these headers (a `Host` of the page's own unless given).
    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Resp {
        call(&self.addr, method, path, headers, body)
    }

    /// A request of the socket protocol from the page: cookie and own Origin.
    pub fn api(&self, body: &str) -> Resp {
        let (cookie, origin) = (self.cookie(), self.origin());
        self.request(
            "POST",
            "/api",
            &[("Cookie", &cookie), ("Origin", &origin)],
            body,
        )
    }

    /// The event stream, asked for (a page's, open until dropped).
    pub fn events_open(&self) -> TcpStream {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let req = format!(
            "GET /api/events HTTP/1.1\r\nHost: {}\r\nCookie: {}\r\n\r\n",
            self.addr,
            self.cookie()
        );
        s.write_all(req.as_bytes()).unwrap();
        s
    }

    /// The event stream's `data:` lines until one satisfies `until` (30 s at most).
    pub fn events_until(&self, until: impl FnMut(&serde_json::Value) -> bool) -> Vec<String> {
        self.events().until(until)
    }

    /// The event stream, open until dropped, read as the test asks.
    pub fn events(&self) -> Events {
        Events {
            lines: BufReader::new(self.events_open()).lines(),
        }
    }
}

/// A page's open event stream.
pub struct Events {
    lines: std::io::Lines<BufReader<TcpStream>>,
}

impl Events {
    /// The `data:` lines from here until one satisfies `until` (30 s at most).
    pub fn until(&mut self, mut until: impl FnMut(&serde_json::Value) -> bool) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        for line in self.lines.by_ref() {
            assert!(Instant::now() < deadline, "no such event: {seen:#?}");
            let line = line.unwrap();
            // Chunked framing: only the event lines are JSON.
            let Some(data) = line.strip_prefix("data: ") else {
                continue;
            };
            seen.push(data.to_string());
            if serde_json::from_str(data).is_ok_and(|v| until(&v)) {
                return seen;
            }
        }
        panic!("the event stream ended: {seen:#?}");
    }
}

/// `method path` to `addr` with these headers (`Host: addr` unless given) and a JSON body.
pub fn call(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Resp {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() {
        req.push_str("Content-Type: application/json\r\n");
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).unwrap();
    parse(&String::from_utf8_lossy(&read_reply(&mut s)))
}

/// The reply's bytes: up to its `Content-Length` when it has one (chromedriver keeps the
/// connection open whatever `Connection: close` says), else to the end of the stream.
fn read_reply(s: &mut TcpStream) -> Vec<u8> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let n = match s.read(&mut buf) {
            // A stop and continue of this process (a busy machine's scheduler) ends the wait.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => r.unwrap(),
        };
        if n == 0 {
            return raw;
        }
        raw.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&raw);
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            continue;
        };
        let length = head
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.trim().parse::<usize>().ok());
        if length.is_some_and(|n| body.len() >= n) {
            return raw;
        }
    }
}

fn parse(raw: &str) -> Resp {
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        unchunk(body)
    } else {
        body.to_string()
    };
    Resp {
        status,
        headers,
        body,
    }
}

fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}
