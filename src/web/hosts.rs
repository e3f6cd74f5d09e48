//! Other hosts' terminals on the page, reached as the multiplexer reaches them: through
//! `client::hosts` (the system's `ssh` to `baton server bridge` on that host), named
//! `HOST:NAME` (`client::hosts::names`). A page's request for `HOST:NAME` goes to that host
//! with the bare name ([`call`]); the page's event stream carries each configured host's
//! watch lines beside this machine's, each with its `host`, and a `host` line whenever a
//! host's channel comes or goes ([`follow_all`]). See ARCHITECTURE.md, "The web client".

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::client::hosts::ssh::SshConn;
use crate::client::hosts::{self, names, retry_after, Host};
use crate::error::BatonError;
use crate::protocol::{Reply, Request};

/// The configured hosts, the config read afresh (a host added since the server started is
/// there); none when it cannot be read.
pub fn configured() -> Vec<Host> {
    hosts::load_config()
        .map(|c| hosts::configured(&c).into_values().collect())
        .unwrap_or_default()
}

/// The configured host `req` is for and the request with bare names; `None`: this machine's
/// (a name whose `HOST:` is no configured host stays this machine's, as on the command line).
pub fn remote(req: &Request) -> Option<(Host, Request)> {
    let (host, bare) = names::route(req.clone());
    let host = host?;
    let found = configured().into_iter().find(|h| h.name == host)?;
    Some((found, bare))
}

/// `req` asked of `host`'s server (over ssh, on a blocking thread): its final reply line, the
/// names in it as the page keeps them (`HOST:NAME`), an error saying the host.
pub async fn call(root: PathBuf, host: Host, req: Request) -> String {
    let name = host.name.clone();
    let on = host.name.clone();
    let asked = tokio::task::spawn_blocking(move || {
        hosts::call(&root, host, &req).map(|a| names::qualify_answer(&on, a))
    })
    .await
    .unwrap_or_else(|e| {
        Err(BatonError::failed(format!(
            "the request to host {name} stopped: {e}"
        )))
    });
    serde_json::to_string(&Reply::answered(asked)).unwrap_or_default()
}

/// How one host's channel stands, as the page's `host` line says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    Connecting,
    Online,
    Offline,
}

/// The page's `host` line: `{"reply":"host","host":H,"link":…,"why":…}`. Pure.
pub fn link_line(host: &str, link: Link, why: Option<&str>) -> String {
    let link = match link {
        Link::Connecting => "connecting",
        Link::Online => "online",
        Link::Offline => "offline",
    };
    json!({"reply": "host", "host": host, "link": link, "why": why}).to_string()
}

/// A host's watch line as the page reads it: names qualified, its `host` added; `None` for a
/// line that is not a watch event. Pure.
pub fn watch_line(host: &str, line: &str) -> Option<String> {
    let Ok(Reply::Watch { event }) = serde_json::from_str::<Reply>(line) else {
        return None;
    };
    let event = names::qualify_event(host, event);
    let mut v = serde_json::to_value(Reply::Watch { event }).ok()?;
    if let Value::Object(m) = &mut v {
        m.insert("host".into(), Value::String(host.to_string()));
    }
    Some(v.to_string())
}

/// The threads following every configured host's watch for one page; dropping it ends them
/// (their ssh is killed: a thread waiting on an idle channel would never notice otherwise).
pub struct Following {
    closed: Arc<AtomicBool>,
    children: Vec<Arc<Mutex<Option<u32>>>>,
}

impl Drop for Following {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
        for c in &self.children {
            if let Some(pid) = c.lock().ok().and_then(|p| *p) {
                kill_group(pid);
            }
        }
    }
}

/// The ssh child's process group (`SshConn::start` gives it its own): ssh and what it started.
fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        let group = nix::unistd::Pid::from_raw(-pid);
        let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGTERM);
    }
}

/// Follows each configured host's watch on a thread of its own, its lines into `tx` (a
/// `connecting` line first, then the host's lines; `offline` when its channel fails or ends,
/// and another is opened after [`retry_after`]), until the page leaves.
pub fn follow_all(root: &Path, tx: &mpsc::Sender<String>) -> Following {
    let closed = Arc::new(AtomicBool::new(false));
    let mut children = Vec::new();
    for host in configured() {
        let child = Arc::new(Mutex::new(None));
        children.push(Arc::clone(&child));
        let one = Follow {
            host,
            root: root.to_path_buf(),
            tx: tx.clone(),
            closed: Arc::clone(&closed),
            child,
        };
        std::thread::spawn(move || one.run());
    }
    Following { closed, children }
}

/// One host followed for one page, on its thread.
struct Follow {
    host: Host,
    root: PathBuf,
    tx: mpsc::Sender<String>,
    closed: Arc<AtomicBool>,
    child: Arc<Mutex<Option<u32>>>,
}

impl Follow {
    fn run(self) {
        let name = self.host.name.clone();
        if !self.say(link_line(&name, Link::Connecting, None)) {
            return;
        }
        let mut failures = 0u32;
        while !self.closed.load(Ordering::SeqCst) {
            let (why, listed) = self.follow();
            if listed {
                failures = 0;
            }
            if !self.say(link_line(&name, Link::Offline, Some(&why))) {
                return;
            }
            std::thread::sleep(retry_after(failures));
            failures = failures.saturating_add(1);
        }
    }

    /// A line to the page; false once the page left.
    fn say(&self, line: String) -> bool {
        !self.closed.load(Ordering::SeqCst) && self.tx.blocking_send(line).is_ok()
    }

    /// One channel's watch, until it ends: why, and whether the host's list came.
    fn follow(&self) -> (String, bool) {
        let mut conn = match SshConn::open(&self.host, &self.root) {
            Ok(c) => c,
            Err(e) => return (e.to_string(), false),
        };
        if let Ok(mut c) = self.child.lock() {
            *c = Some(conn.pid());
        }
        // Left while the channel opened: `Following`'s drop did not see this child.
        if self.closed.load(Ordering::SeqCst) {
            return ("the page left".into(), false);
        }
        let mut line = serde_json::to_vec(&Request::Watch).unwrap_or_default();
        line.push(b'\n');
        if let Err(e) = conn.write_all(&line).and_then(|()| conn.flush()) {
            return (format!("cannot talk to the host: {e}"), false);
        }
        let name = &self.host.name;
        let mut listed = false;
        for line in BufReader::new(conn).lines() {
            let line = match line {
                Ok(l) => l,
                Err(e) => return (format!("lost the connection: {e}"), listed),
            };
            let Some(event) = watch_line(name, &line) else {
                continue;
            };
            if !listed && !self.say(link_line(name, Link::Online, None)) {
                return ("the page left".into(), listed);
            }
            listed = true;
            if !self.say(event) {
                return ("the page left".into(), listed);
            }
        }
        ("the connection ended".into(), listed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::WatchEvent;

    #[test]
    fn a_hosts_watch_line_reaches_the_page_qualified_with_its_host() {
        let line = serde_json::to_string(&Reply::Watch {
            event: WatchEvent::Removed { name: "api".into() },
        })
        .unwrap();
        let got: Value = serde_json::from_str(&watch_line("box", &line).unwrap()).unwrap();
        assert_eq!(
            got,
            json!({"reply": "watch", "host": "box", "event": {"what": "removed", "name": "box:api"}})
        );
        assert_eq!(watch_line("box", r#"{"reply":"ok","data":null}"#), None);
        assert_eq!(watch_line("box", "not json"), None);
    }

    #[test]
    fn a_hosts_link_line_says_how_its_channel_stands() {
        let line = |l, why| serde_json::from_str::<Value>(&link_line("box", l, why)).unwrap();
        assert_eq!(
            line(Link::Offline, Some("no answer")),
            json!({"reply": "host", "host": "box", "link": "offline", "why": "no answer"})
        );
        assert_eq!(line(Link::Online, None)["link"], "online");
        assert_eq!(line(Link::Connecting, None)["link"], "connecting");
    }
}
