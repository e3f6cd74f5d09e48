//! The UI's connections to other hosts: per configured host, one long-lived ssh channel
//! (`hosts::ssh`, over the host's master connection) carrying that host's watch stream, opened
//! again with a backoff when it fails or drops, on its own thread (the UI never waits on a
//! host). Requests for a remote terminal go to its host with the bare name. See
//! ARCHITECTURE.md, "Other hosts".

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::sync::mpsc::Sender;

use crate::client::conn::Conn;
use crate::client::hosts::Host;
use crate::client::Client;
use crate::error::BatonError;
use crate::protocol::{Reply, Request};
use crate::tui::app::hosts::HostMsg;
use crate::tui::app::Msg;

pub use crate::client::hosts::{retry_after, RETRY_MAX};

/// Starts the thread that follows `host`'s watch stream for as long as the UI runs.
pub fn spawn_watch(client: &Client, host: Host, tx: Sender<Msg>) {
    let client = client.on_host(host.clone());
    std::thread::spawn(move || {
        let mut failures = 0u32;
        loop {
            let (why, listed) = follow(&client, &host.name, &tx);
            if listed {
                failures = 0;
            }
            let lost = Msg::Host(host.name.clone(), HostMsg::Lost(why));
            if tx.send(lost).is_err() {
                return;
            }
            std::thread::sleep(retry_after(failures));
            failures = failures.saturating_add(1);
        }
    });
}

/// Follows one channel's watch stream until it ends: why it ended, and whether the host's
/// list came (the host answered).
fn follow(client: &Client, host: &str, tx: &Sender<Msg>) -> (String, bool) {
    let mut conn = match client.open() {
        Ok(c) => c,
        Err(e) => return (e.message, false),
    };
    if let Err(e) = write_request(&mut conn, &Request::Watch) {
        return (e, false);
    }
    let mut listed = false;
    for line in BufReader::new(conn).lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => return (format!("lost the connection: {e}"), listed),
        };
        let ev = match serde_json::from_str::<Reply>(&line) {
            Ok(Reply::Watch { event }) => event,
            Ok(Reply::Error { error }) => return (error.message, listed),
            Ok(Reply::Ok { .. } | Reply::Event { .. } | Reply::Shell { .. }) => continue,
            Err(e) => return (format!("unreadable line from the host: {e}"), listed),
        };
        listed = true;
        if tx
            .send(Msg::Host(host.to_string(), HostMsg::Watch(Box::new(ev))))
            .is_err()
        {
            return ("the UI ended".into(), listed);
        }
    }
    ("the connection ended".into(), listed)
}

/// Writes one request line on a connection.
pub fn write_request(conn: &mut Conn, req: &Request) -> Result<(), String> {
    let mut line = serde_json::to_vec(req).map_err(|e| e.to_string())?;
    line.push(b'\n');
    conn.write_all(&line)
        .and_then(|()| conn.flush())
        .map_err(|e| format!("cannot talk to the host: {e}"))
}

/// The configured hosts by name, which requests for their terminals go to.
pub type Hosts = BTreeMap<String, Host>;

/// The client a request for host `host` goes through, or why there is none.
pub fn client_for(client: &Client, hosts: &Hosts, host: &str) -> Result<Client, BatonError> {
    match hosts.get(host) {
        Some(h) => Ok(client.on_host(h.clone())),
        None => Err(BatonError::failed(format!(
            "no host {host} is configured any more (see `baton host ls`)"
        ))),
    }
}

#[cfg(test)]
#[path = "hosts_tests.rs"]
mod tests;
