//! Terminals on other hosts in the UI's state: each configured host is a second source of
//! watch events, its terminals kept under `HOST:NAME` (a local name never holds `:`), so names
//! can clash across hosts. Requests for them leave with the bare name (`io::hosts` routes
//! them); the list groups them under a header per host that says when it is offline. See
//! ARCHITECTURE.md, "Other hosts".

use crate::protocol::views::TerminalView;
use crate::protocol::{Answer, Request, WatchEvent};
use crate::tui::app::watch::live_title;
use crate::tui::app::{App, Effect, TermView};
use crate::tui::shell::ShellStatus;

/// How this client's connection to a host stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// Not answered yet.
    Connecting,
    Online,
    /// It does not answer (why); the UI retries with a backoff.
    Offline(String),
}

/// One configured host, as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostLink {
    pub name: String,
    pub link: Link,
}

/// What a host's connection says.
#[derive(Debug, Clone, PartialEq)]
pub enum HostMsg {
    Watch(Box<WatchEvent>),
    /// The connection failed or ended (why); a new one is tried later.
    Lost(String),
}

/// A row of the terminal list: a host's header, or entry `n` of [`App::listed`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListRow {
    Host(HostLink),
    Term(usize),
}

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

fn qualify_view(host: &str, mut v: TerminalView) -> TerminalView {
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

impl App {
    /// The hosts the list shows, in the order given (by name).
    pub fn set_hosts(&mut self, names: impl IntoIterator<Item = String>) {
        self.hosts = names
            .into_iter()
            .map(|name| HostLink {
                name,
                link: Link::Connecting,
            })
            .collect();
    }

    /// Where terminal `name` goes in the list: this machine's first, then host by host.
    pub(in crate::tui) fn group(&self, name: &str) -> usize {
        match host_of(name) {
            None => 0,
            Some(h) => {
                1 + self
                    .hosts
                    .iter()
                    .position(|l| l.name == h)
                    .unwrap_or(self.hosts.len())
            }
        }
    }

    /// The list's rows: this machine's terminals, then each host's header and terminals.
    pub fn list_rows(&self) -> Vec<ListRow> {
        let listed = self.listed();
        let mut rows = Vec::new();
        let mut next = 0;
        while next < listed.len() && host_of(&listed[next].info.name).is_none() {
            rows.push(ListRow::Term(next));
            next += 1;
        }
        for h in &self.hosts {
            rows.push(ListRow::Host(h.clone()));
            while next < listed.len() && host_of(&listed[next].info.name) == Some(&h.name) {
                rows.push(ListRow::Term(next));
                next += 1;
            }
        }
        rows.extend((next..listed.len()).map(ListRow::Term));
        rows
    }

    /// The entry of the list at row `y` of its inside (a header is one row, an entry two).
    pub fn list_hit(&self, y: usize) -> Option<usize> {
        let mut top = 0;
        for row in self.list_rows() {
            let (height, entry) = match row {
                ListRow::Host(_) => (1, None),
                ListRow::Term(n) => (2, Some(n)),
            };
            if y < top + height {
                return entry;
            }
            top += height;
        }
        None
    }

    /// What host `host`'s connection said.
    pub(super) fn on_host(&mut self, host: &str, msg: HostMsg) -> Vec<Effect> {
        match msg {
            HostMsg::Lost(why) => {
                self.set_link(host, Link::Offline(why));
                Vec::new()
            }
            HostMsg::Watch(ev) => match *ev {
                WatchEvent::Terminals { terminals } => self.on_host_list(host, terminals),
                ev => self.on_watch(qualify_event(host, ev)),
            },
        }
    }

    /// Host `host`'s full list: at each (re)connection, so it is online again, what it shows
    /// is read again (a turn that ran on while it was out of reach comes whole), and its
    /// shells attach again.
    fn on_host_list(&mut self, host: &str, terminals: Vec<TerminalView>) -> Vec<Effect> {
        self.set_link(host, Link::Online);
        let terminals: Vec<TerminalView> = terminals
            .into_iter()
            .map(|t| qualify_view(host, t))
            .collect();
        self.replace_terms(Some(host), &terminals);
        // A shell face its lost channel left says so: it attaches again through the new one.
        for t in (self.terms.iter_mut()).filter(|t| host_of(&t.info.name) == Some(host)) {
            if t.shell
                .as_ref()
                .is_some_and(|v| matches!(v.status, ShellStatus::Lost(_)))
            {
                t.shell = None;
            }
        }
        let mut fx = Vec::new();
        // `baton attach HOST:NAME`: focused once its host has listed it.
        if (self.attach_to.as_deref()).is_some_and(|n| host_of(n) == Some(host)) {
            if let Some(name) = self.attach_to.take() {
                fx.extend(self.attach_focus(&name));
            }
        }
        if self.panes.iter().all(|p| p.term.is_none()) {
            if let Some(name) = self.listed().first().map(|t| t.info.name.clone()) {
                fx.extend(self.focus(&name));
            }
        }
        fx.extend(self.reread_shown());
        fx
    }

    fn set_link(&mut self, host: &str, link: Link) {
        if let Some(h) = self.hosts.iter_mut().find(|h| h.name == host) {
            h.link = link;
        }
    }

    /// A source's full list (`host`: `None` for this machine's): its terminals replace the
    /// ones it had, the other sources' stay. Steps may have been lost: the history is read
    /// again when shown, and a turn still running is read again when it ends.
    pub(super) fn replace_terms(&mut self, host: Option<&str>, terminals: &[TerminalView]) {
        let mut terms = Vec::new();
        for v in terminals {
            let mut t = match self.terms.iter().position(|t| t.info.name == v.name) {
                Some(i) => self.terms.remove(i),
                None => TermView::new(v.clone()),
            };
            t.set_info(v.clone());
            live_title(&mut t);
            t.log_requested = false;
            t.transcript.fell_behind();
            terms.push(t);
        }
        self.terms.retain(|t| host_of(&t.info.name) != host);
        self.terms.extend(terms);
    }
}

#[cfg(test)]
#[path = "hosts_tests.rs"]
mod tests;
