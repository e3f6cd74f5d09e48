//! One channel per configured host for the whole web server, whatever the number of pages:
//! a thread following that host's `watch` over ssh (`SshConn`, a `baton server bridge` there),
//! its lines fanned out to every page's event stream. [`Channels::follow_all`] gives a page the
//! channel of each configured host, opening those none follows yet; the last page's handle
//! dropped ends it (its ssh's process group killed).
//!
//! The thread is the one owner of the host's state ([`HostState`], `web::replay`): each line
//! is folded in and broadcast under one lock, and a page joins under the same lock, so it gets
//! the replay (link line, the host's list, its running turns' steps) and then every later line,
//! none twice and none missed. The broadcast is bounded and never waits: a page that falls
//! behind (`Lagged`) joins again and is sent a fresh replay, as the socket's watch sends a
//! lagging client a fresh `terminals` snapshot, while the other pages go on.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use futures_util::Stream;
use tokio::sync::broadcast;

use super::hosts::{configured, watch_event};
use super::replay::HostState;
use crate::client::hosts::ssh::SshConn;
use crate::client::hosts::{retry_after, Host};
use crate::protocol::Request;

/// How many lines a page may fall behind before it is sent a fresh replay.
const BEHIND: usize = 1024;

/// The channels open now, one per host (by its config: a host whose `[hosts.NAME]` changed
/// gets another for the pages that open since).
#[derive(Default)]
pub struct Channels {
    open: Mutex<Vec<(Host, Weak<Channel>)>>,
}

impl Channels {
    /// The channel of each configured host (the config read afresh), shared with every page
    /// following it; opened for those none follows.
    pub fn follow_all(&self, root: &Path) -> Vec<Arc<Channel>> {
        let hosts = configured();
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.retain(|(_, c)| c.strong_count() > 0);
        hosts
            .into_iter()
            .map(|host| {
                let found = open.iter().find(|(h, _)| *h == host);
                if let Some(c) = found.and_then(|(_, c)| c.upgrade()) {
                    return c;
                }
                let c = Channel::open(host.clone(), root);
                open.push((host, Arc::downgrade(&c)));
                c
            })
            .collect()
    }
}

/// One host's channel, shared by the pages following it; the last one dropped ends it.
pub struct Channel {
    shared: Arc<Shared>,
}

/// What the channel's thread and its pages share.
struct Shared {
    closed: AtomicBool,
    /// The ssh of the channel open now (its pid, its process group's id).
    child: Mutex<Option<u32>>,
    /// The host's state and the broadcast to its pages, changed together.
    state: Mutex<(HostState, broadcast::Sender<String>)>,
}

impl Shared {
    fn new(host: &str) -> Arc<Shared> {
        Arc::new(Shared {
            closed: AtomicBool::new(false),
            child: Mutex::new(None),
            state: Mutex::new((HostState::new(host), broadcast::channel(BEHIND).0)),
        })
    }

    fn state(&self) -> MutexGuard<'_, (HostState, broadcast::Sender<String>)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A change of the host's state, its line to every page following now.
    fn publish(&self, change: impl FnOnce(&mut HostState) -> String) {
        let mut s = self.state();
        let line = change(&mut s.0);
        // No page may be there (between the last page's leaving and the thread's end).
        let _ = s.1.send(line);
    }
}

impl Drop for Channel {
    /// Its ssh is killed: the thread waiting on an idle channel would never notice otherwise.
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::SeqCst);
        if let Some(pid) = self.shared.child.lock().ok().and_then(|p| *p) {
            kill_group(pid);
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

impl Channel {
    /// Starts following `host` on a thread of its own.
    fn open(host: Host, root: &Path) -> Arc<Channel> {
        let shared = Shared::new(&host.name);
        let follow = Follow {
            host,
            root: root.to_path_buf(),
            shared: Arc::clone(&shared),
        };
        std::thread::spawn(move || follow.run());
        Arc::new(Channel { shared })
    }

    /// What a page joining now is told first, and the live lines after it.
    fn join(&self) -> (VecDeque<String>, broadcast::Receiver<String>) {
        let s = self.shared.state();
        (s.0.replay().into(), s.1.subscribe())
    }
}

/// A page's lines of `channel`: its replay, then the live lines (a fresh replay whenever the
/// page fell behind), for as long as the page holds the stream.
pub fn lines(channel: Arc<Channel>) -> impl Stream<Item = String> {
    let (replay, rx) = channel.join();
    futures_util::stream::unfold(
        (channel, replay, rx),
        |(channel, mut replay, mut rx)| async move {
            loop {
                if let Some(line) = replay.pop_front() {
                    return Some((line, (channel, replay, rx)));
                }
                match rx.recv().await {
                    Ok(line) => return Some((line, (channel, replay, rx))),
                    Err(broadcast::error::RecvError::Lagged(_)) => (replay, rx) = channel.join(),
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        },
    )
}

/// One host followed for every page, on its thread.
struct Follow {
    host: Host,
    root: PathBuf,
    shared: Arc<Shared>,
}

impl Follow {
    /// Channel after channel (another after [`retry_after`] when one fails or ends), until the
    /// last page leaves.
    fn run(self) {
        let mut failures = 0u32;
        while !self.closed() {
            let (why, listed) = self.follow();
            if listed {
                failures = 0;
            }
            self.shared.publish(|s| s.offline(&why));
            std::thread::sleep(retry_after(failures));
            failures = failures.saturating_add(1);
        }
    }

    fn closed(&self) -> bool {
        self.shared.closed.load(Ordering::SeqCst)
    }

    /// One channel's watch, until it ends: why, and whether the host's list came.
    fn follow(&self) -> (String, bool) {
        let mut conn = match SshConn::open(&self.host, &self.root) {
            Ok(c) => c,
            Err(e) => return (e.to_string(), false),
        };
        self.set_child(Some(conn.pid()));
        // The last page left while the channel opened: `Channel`'s drop did not see this child.
        let ended = if self.closed() {
            ("the pages left".into(), false)
        } else {
            self.watch(&mut conn)
        };
        // Forgotten before the drop reaps it: its pid may be another process's after.
        self.set_child(None);
        ended
    }

    fn set_child(&self, pid: Option<u32>) {
        if let Ok(mut c) = self.shared.child.lock() {
            *c = pid;
        }
    }

    /// The host's watch asked for on `conn`, each line folded and passed on until it ends.
    fn watch(&self, conn: &mut SshConn) -> (String, bool) {
        let mut line = serde_json::to_vec(&Request::Watch).unwrap_or_default();
        line.push(b'\n');
        if let Err(e) = conn.write_all(&line).and_then(|()| conn.flush()) {
            return (format!("cannot talk to the host: {e}"), false);
        }
        let mut listed = false;
        for line in BufReader::new(conn).lines() {
            let line = match line {
                Ok(l) => l,
                Err(e) => return (format!("lost the connection: {e}"), listed),
            };
            let Some(event) = watch_event(&self.host.name, &line) else {
                continue;
            };
            if !listed {
                self.shared.publish(HostState::online);
            }
            listed = true;
            self.shared.publish(|s| s.event(event));
        }
        ("the connection ended".into(), listed)
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;

    /// A page that reads nothing while the channel passes on more than it may fall behind: the
    /// channel never waits for it, the page that reads sees every line, and the slow one, when
    /// it reads again, is sent a fresh replay (the state now) instead of what it missed.
    #[tokio::test]
    async fn a_page_that_falls_behind_holds_nobody_back_and_is_sent_a_fresh_replay() {
        let shared = Shared::new("box");
        let channel = Arc::new(Channel {
            shared: Arc::clone(&shared),
        });
        let mut slow = Box::pin(lines(Arc::clone(&channel)));
        let mut fast = Box::pin(lines(Arc::clone(&channel)));
        let connecting = r#""link":"connecting""#;
        assert!(slow.next().await.unwrap().contains(connecting));
        assert!(fast.next().await.unwrap().contains(connecting));
        for n in 0..BEHIND + 10 {
            shared.publish(|s| s.offline(&format!("try {n}")));
            assert!(fast.next().await.unwrap().contains(&format!("try {n}")));
        }
        let last = format!("try {}", BEHIND + 9);
        let resent = slow.next().await.unwrap();
        assert!(resent.contains(&last), "{resent}");
        shared.publish(HostState::online);
        for page in [&mut slow, &mut fast] {
            assert!(page.next().await.unwrap().contains(r#""link":"online""#));
        }
    }
}
