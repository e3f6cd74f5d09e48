//! Terminal names across hosts, pure: a host's terminals are named `HOST:NAME` on this side
//! (a local name never holds `:`), its events and answers qualified so, and a request for
//! `HOST:NAME` routed to that host with the bare name. Shared by the multiplexer
//! (`tui::app::hosts`) and the web client (`web::hosts`). See ARCHITECTURE.md, "Other hosts".

use crate::protocol::views::TerminalView;
use crate::protocol::{Answer, Request, WatchEvent};

/// The host a UI-side terminal name is on (`None`: this machine). Pure.
pub fn host_of(name: &str) -> Option<&str> {
    name.split_once(':').map(|(h, _)| h)
}

/// The name terminal `name` of host `host` has in the UI.
pub fn qualified(host: &str, name: &str) -> String {
    format!("{host}:{name}")
}

/// A new name typed for terminal `of`: on `of`'s host when it names none. Pure.
pub fn on_same_host(of: &str, new: String) -> String {
    match host_of(of) {
        Some(h) if host_of(&new).is_none() => qualified(h, &new),
        _ => new,
    }
}

/// Where a UI-side terminal name's requests go: its host (if any) and its bare name. Pure.
pub fn split(name: &str) -> (Option<&str>, &str) {
    match name.split_once(':') {
        Some((h, n)) => (Some(h), n),
        None => (None, name),
    }
}

/// A watch event of host `host` with every terminal name as the UI keeps it. Pure.
pub fn qualify_event(host: &str, ev: WatchEvent) -> WatchEvent {
    let q = |n: String| qualified(host, &n);
    match ev {
        WatchEvent::Terminals { terminals } => WatchEvent::Terminals {
            terminals: terminals
                .into_iter()
                .map(|t| qualify_view(host, t))
                .collect(),
        },
        WatchEvent::Terminal { terminal } => WatchEvent::Terminal {
            terminal: Box::new(qualify_view(host, *terminal)),
        },
        WatchEvent::Turn { name, event } => WatchEvent::Turn {
            name: q(name),
            event,
        },
        WatchEvent::Finished { name, summary } => WatchEvent::Finished {
            name: q(name),
            summary,
        },
        WatchEvent::Renamed { name, new_name } => WatchEvent::Renamed {
            name: q(name),
            new_name: q(new_name),
        },
        WatchEvent::Removed { name } => WatchEvent::Removed { name: q(name) },
        WatchEvent::Refused { name, error } => WatchEvent::Refused {
            name: q(name),
            error,
        },
    }
}

pub fn qualify_view(host: &str, mut v: TerminalView) -> TerminalView {
    v.name = qualified(host, &v.name);
    v
}

/// An answer of host `host`: the terminal names it holds (the one it is about, the one it came
/// from) as the UI keeps them. Pure.
pub fn qualify_answer(host: &str, mut answer: Answer) -> Answer {
    let names = answer.names_mut();
    for n in [names.name, names.from].into_iter().flatten() {
        *n = qualified(host, n);
    }
    answer
}

/// The terminal name a request is about, to route it and strip its host. Exhaustive, so a
/// new request says here whether it names a terminal.
pub fn request_names(req: &mut Request) -> Vec<&mut String> {
    match req {
        Request::Send { name, .. }
        | Request::Queue { name, .. }
        | Request::QueueRun { name }
        | Request::QueueRetry { name }
        | Request::Show { name }
        | Request::Log { name }
        | Request::Steps { name, .. }
        | Request::Instructions { name, .. }
        | Request::Interrupt { name }
        | Request::Follow { name, .. }
        | Request::Diff { name, .. }
        | Request::Merge { name }
        | Request::Revert { name, .. }
        | Request::Rm { name, .. }
        | Request::Title { name, .. }
        | Request::Archive { name, .. }
        | Request::Export { name, .. }
        | Request::Shell { name, .. }
        | Request::Forget { name, .. } => vec![name],
        Request::Approvals { name } | Request::Integrate { name, .. } => {
            name.iter_mut().collect()
        }
        Request::Rename { name, new_name } => vec![name, new_name],
        Request::Fork { name, new } | Request::Rewind { name, new, .. } => {
            let mut names = vec![name];
            names.extend(new.as_mut());
            names
        }
        Request::Ping
        | Request::New { .. }
        | Request::Ls { .. }
        | Request::Import { .. }
        | Request::Extract { .. }
        | Request::Prune { .. }
        | Request::Status
        | Request::Stop
        | Request::Reindex
        | Request::Web { .. }
        // An approval's id is this host's: the request goes to this host's server.
        | Request::Approve { .. }
        | Request::Deny { .. }
        | Request::Watch => Vec::new(),
    }
}

/// The host a request goes to, and the request with bare names: the first name says the host,
/// and a `HOST:` on the others (a rename's new name) is dropped. Pure.
pub fn route(mut req: Request) -> (Option<String>, Request) {
    let mut names = request_names(&mut req);
    let Some(first) = names.first() else {
        return (None, req);
    };
    let Some(host) = host_of(first).map(str::to_string) else {
        return (None, req);
    };
    let prefix = format!("{host}:");
    for n in names.iter_mut() {
        if let Some(bare) = n.strip_prefix(&prefix) {
            **n = bare.to_string();
        }
    }
    (Some(host), req)
}
