//! Asking every host at once: `baton ls` (this machine's rows and every host's, one thread per
//! host, none waited for past `[remote] offline_after_ms`) and `baton host ls` (each host's
//! state, round-trip time, baton version and terminal count). A host that does not answer in
//! time is listed offline and never holds up the local rows (see ARCHITECTURE.md, "Other hosts").

use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::ssh::SshConn;
use super::{configured, load_config, Host};
use crate::client::commands::{print_json, print_sorted};
use crate::client::conn::Conn;
use crate::client::{out, render, Client};
use crate::error::BatonError;
use crate::protocol::views::{HostedView, OfflineHostView, TerminalView};
use crate::protocol::Request;

/// What one host answered a listing.
#[derive(Debug, Clone)]
pub enum Answer {
    /// Its server's rows, its baton version, and how long it took from starting ssh.
    Rows {
        rows: Vec<TerminalView>,
        version: String,
        took: Duration,
    },
    /// It could not be asked, or refused (one line).
    Failed(String),
    /// Nothing came within the bound.
    Silent,
}

/// The ssh child of each host being asked, by the host's place in the list.
type Children = Arc<Mutex<Vec<(usize, u32)>>>;

/// Every host being asked at once ([`ask_all`]).
pub struct Asking {
    rx: mpsc::Receiver<(usize, Answer)>,
    children: Children,
    n: usize,
}

/// Asks `req` of every host, each on its own thread; [`collect`] gathers the answers.
pub fn ask_all(client: &Client, hosts: &[Host], req: &Request, start: Instant) -> Asking {
    let (tx, rx) = mpsc::channel();
    let children: Children = Arc::default();
    for (i, host) in hosts.iter().enumerate() {
        let (tx, host, req) = (tx.clone(), host.clone(), req.clone());
        let (root, children) = (client.data.root.clone(), Arc::clone(&children));
        std::thread::spawn(move || {
            let asked = Asked {
                i,
                host: &host,
                root: &root,
                start,
                children: &children,
            };
            let _ = tx.send((i, asked.ask(&req)));
        });
    }
    Asking {
        rx,
        children,
        n: hosts.len(),
    }
}

/// Collects the answers until every host answered or `deadline` passed: hosts still silent
/// then are [`Answer::Silent`], and their ssh is ended (it could wait minutes for a host that
/// does not answer, long after this command).
pub fn collect(asking: Asking, deadline: Instant) -> Vec<Answer> {
    let Asking { rx, children, n } = asking;
    let mut answers = vec![Answer::Silent; n];
    let mut left = n;
    while left > 0 {
        let wait = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(wait) {
            Ok((i, a)) => {
                if let Some(slot) = answers.get_mut(i) {
                    *slot = a;
                }
                left -= 1;
            }
            Err(_) => break,
        }
    }
    if let Ok(children) = children.lock() {
        for (i, pid) in children.iter() {
            if matches!(answers.get(*i), Some(Answer::Silent)) {
                // Its own process group (`SshConn::start`): ssh and anything it started.
                if let Ok(pid) = i32::try_from(*pid) {
                    let group = nix::unistd::Pid::from_raw(-pid);
                    let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL);
                }
            }
        }
    }
    answers
}

/// One host being asked, on its thread.
struct Asked<'a> {
    i: usize,
    host: &'a Host,
    root: &'a std::path::Path,
    start: Instant,
    children: &'a Children,
}

impl Asked<'_> {
    fn ask(&self, req: &Request) -> Answer {
        let mut conn = match SshConn::start(self.host, self.root) {
            Ok(c) => c,
            Err(e) => return Answer::Failed(e.to_string()),
        };
        if let Ok(mut c) = self.children.lock() {
            c.push((self.i, conn.pid()));
        }
        if let Err(e) = conn.read_hello(self.host) {
            return Answer::Failed(e.to_string());
        }
        let version = conn.version().to_string();
        let conn = Conn::Remote(Box::new(conn));
        let rows = crate::client::send_request_once(conn, req, &mut |_| {})
            .map_err(BatonError::from)
            .and_then(|reply| reply.into_answer(req))
            .and_then(Vec::<TerminalView>::try_from);
        match rows {
            Ok(rows) => Answer::Rows {
                rows,
                version,
                took: self.start.elapsed(),
            },
            Err(e) => Answer::Failed(e.message),
        }
    }
}

/// `baton ls`: this machine's rows, then each host's in the order of the config; `--json`
/// gives each row a `host` (null here), and a host offline is a line on stderr.
pub fn ls(client: &Client, all: bool, json: bool) -> Result<i32, BatonError> {
    let start = Instant::now();
    let config = load_config()?;
    let hosts: Vec<Host> = configured(&config).into_values().collect();
    let req = Request::Ls { all, table: !json };
    let asking = ask_all(client, &hosts, &req, start);
    let local = Vec::<TerminalView>::try_from(client.call(&req)?)?;
    let answers = collect(asking, start + config.remote.offline_after());
    let mut rows: Vec<HostedView> = local.into_iter().map(HostedView::here).collect();
    let mut offline = Vec::new();
    for (host, answer) in hosts.iter().zip(answers) {
        match answer {
            Answer::Rows { rows: r, .. } => {
                rows.extend(r.into_iter().map(|r| HostedView::on(&host.name, r)))
            }
            Answer::Failed(why) => offline.push((host.name.clone(), why)),
            Answer::Silent => offline.push((host.name.clone(), silent(&config))),
        }
    }
    if json {
        print_sorted(&json_rows(&rows, &offline));
        for (h, why) in &offline {
            out::side(&format!("baton: host {h} is offline: {why}"));
        }
        return Ok(0);
    }
    let refs: Vec<(Option<&str>, &TerminalView)> = (rows.iter())
        .map(|r| (r.host.as_deref(), &r.terminal))
        .collect();
    out::print(&render::ls_on_hosts(&refs, &offline, !hosts.is_empty()));
    Ok(0)
}

/// `ls --json`'s array: the terminals' rows, then a row per host offline (none: the rows
/// alone, as before hosts were marked).
fn json_rows(rows: &[HostedView], offline: &[(String, String)]) -> Vec<serde_json::Value> {
    let terminals = rows.iter().map(serde_json::to_value);
    let hosts = offline.iter().map(|(host, why)| {
        serde_json::to_value(OfflineHostView {
            host: host.clone(),
            offline: true,
            error: why.clone(),
        })
    });
    terminals.chain(hosts).filter_map(Result::ok).collect()
}

fn silent(config: &crate::config::Config) -> String {
    format!(
        "no answer within {} ms",
        config.remote.offline_after().as_millis()
    )
}

/// One row of `baton host ls --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostView {
    pub name: String,
    pub ssh: String,
    pub baton: Option<String>,
    pub data_dir: Option<String>,
    /// Whether its server answered within the bound.
    pub reachable: bool,
    /// From starting ssh to the server's answer (a first connection included).
    pub rtt_ms: Option<u64>,
    /// The remote baton's version.
    pub version: Option<String>,
    /// Its terminals (archived ones left out), as its `baton ls` counts them.
    pub terminals: Option<usize>,
    /// Why it is not reachable.
    pub error: Option<String>,
}

/// `baton host ls`: every configured host, asked at once.
pub fn host_ls(client: &Client, json: bool) -> Result<i32, BatonError> {
    let start = Instant::now();
    let config = load_config()?;
    let hosts: Vec<Host> = configured(&config).into_values().collect();
    let asking = ask_all(
        client,
        &hosts,
        &Request::Ls {
            all: false,
            table: true,
        },
        start,
    );
    let answers = collect(asking, start + config.remote.offline_after());
    let views: Vec<HostView> = hosts
        .iter()
        .zip(answers)
        .map(|(h, a)| host_view(h, a, &config))
        .collect();
    if json {
        print_json(&views);
    } else {
        out::print(&host_table(&views));
    }
    Ok(0)
}

fn host_view(h: &Host, a: Answer, config: &crate::config::Config) -> HostView {
    let mut v = HostView {
        name: h.name.clone(),
        ssh: h.ssh.clone(),
        baton: h.baton.clone(),
        data_dir: h.data_dir.clone(),
        reachable: false,
        rtt_ms: None,
        version: None,
        terminals: None,
        error: None,
    };
    match a {
        Answer::Rows {
            rows,
            version,
            took,
        } => {
            v.reachable = true;
            v.rtt_ms = Some(u64::try_from(took.as_millis()).unwrap_or(u64::MAX));
            v.version = Some(version);
            v.terminals = Some(rows.len());
        }
        Answer::Failed(why) => v.error = Some(why),
        Answer::Silent => v.error = Some(silent(config)),
    }
    v
}

/// `baton host ls`'s text. Pure.
pub fn host_table(views: &[HostView]) -> String {
    if views.is_empty() {
        return "no hosts yet (add one with `baton host add NAME SSH_TARGET`)\n".to_string();
    }
    let mut out = format!(
        "{:<12} {:<24} {:<8} {:<8} {:<10} {}\n",
        "HOST", "SSH", "STATE", "RTT", "BATON", "TERMINALS"
    );
    for v in views {
        let dash = || "-".to_string();
        out.push_str(&format!(
            "{:<12} {:<24} {:<8} {:<8} {:<10} {}\n",
            v.name,
            v.ssh,
            if v.reachable { "online" } else { "offline" },
            v.rtt_ms.map_or_else(dash, |ms| format!("{ms} ms")),
            v.version.clone().unwrap_or_else(dash),
            v.terminals.map_or_else(dash, |n| n.to_string()),
        ));
    }
    for v in views {
        if let Some(e) = &v.error {
            // Each error names its host.
            out.push_str(&format!("{e}\n"));
        }
    }
    out
}
