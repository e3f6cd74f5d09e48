//! The replies of one `send`, kept in order so any number of clients can follow the turn from
//! its start without losing a line, however slow they read.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use tokio::sync::broadcast;

use crate::protocol::{Reply, TurnSummary, WatchEvent};

pub struct Feed {
    items: Mutex<Vec<Reply>>,
    done: AtomicBool,
    version: watch::Sender<usize>,
    /// The terminal's name and the server's watch channel: every step is also told to
    /// watching clients.
    watchers: Option<(String, broadcast::Sender<WatchEvent>)>,
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feed")
            .field("done", &self.done.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

impl Feed {
    pub fn new(name: String, watchers: broadcast::Sender<WatchEvent>) -> Feed {
        Feed {
            items: Mutex::new(Vec::new()),
            done: AtomicBool::new(false),
            version: watch::channel(0).0,
            watchers: Some((name, watchers)),
        }
    }

    /// The terminal the feed's turn runs on.
    pub fn name(&self) -> String {
        self.watchers
            .as_ref()
            .map(|(n, _)| n.clone())
            .unwrap_or_default()
    }

    /// Tells watching clients of `r`. Called with the items locked, so a client that joins
    /// (see [`replay_for_new_watcher`]) gets each reply exactly once: in its replay, or live.
    fn tell_watchers(&self, r: &Reply) {
        let Some((_, tx)) = &self.watchers else {
            return;
        };
        if tx.receiver_count() == 0 {
            return;
        }
        if let Some(event) = self.watch_event(r) {
            let _ = tx.send(event);
        }
    }

    /// What watching clients are told of reply `r`.
    fn watch_event(&self, r: &Reply) -> Option<WatchEvent> {
        let (name, _) = self.watchers.as_ref()?;
        let name = name.clone();
        Some(match r {
            Reply::Event { event } => WatchEvent::Turn {
                name,
                event: event.clone(),
            },
            Reply::Ok { data } => match serde_json::from_value::<TurnSummary>(data.clone()) {
                Ok(summary) => WatchEvent::Finished { name, summary },
                Err(_) => return None,
            },
            Reply::Error { error } => WatchEvent::Refused {
                name,
                error: error.clone(),
            },
            Reply::Watch { .. } | Reply::Shell { .. } => return None,
        })
    }

    fn items(&self) -> std::sync::MutexGuard<'_, Vec<Reply>> {
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds an intermediate reply (an event).
    pub fn push(&self, r: Reply) {
        let n = {
            let mut items = self.items();
            self.tell_watchers(&r);
            items.push(r);
            items.len()
        };
        self.version.send_replace(n);
    }

    /// Adds the final reply; followers stop after it. A feed has one final reply: a second
    /// (a stop ending the feeds of waiting input while a runner ends its own) is dropped.
    pub fn finish(&self, r: Reply) {
        let n = {
            let mut items = self.items();
            if self.done.swap(true, Ordering::SeqCst) {
                return;
            }
            self.tell_watchers(&r);
            items.push(r);
            items.len()
        };
        self.version.send_replace(n);
    }

    /// Whether the final reply is in.
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::SeqCst)
    }

    pub fn subscribe(&self) -> watch::Receiver<usize> {
        self.version.subscribe()
    }

    /// The replies after the first `seen`, and whether the final one is among all replies so far.
    pub fn since(&self, seen: usize) -> (Vec<Reply>, bool) {
        let items = self.items();
        let batch = items.get(seen..).map(<[Reply]>::to_vec).unwrap_or_default();
        (batch, self.done.load(Ordering::SeqCst))
    }
}

/// A client starts watching while the turns of `feeds` run: `subscribe` is called with every
/// feed held still, and what those feeds said so far comes back as the client's replay, so it
/// draws each running turn from its start and misses no step nor gets one twice.
pub fn replay_for_new_watcher<T>(
    feeds: &[Arc<Feed>],
    subscribe: impl FnOnce() -> T,
) -> (T, Vec<WatchEvent>) {
    let held: Vec<_> = feeds.iter().map(|f| (f, f.items())).collect();
    let rx = subscribe();
    let replay = held
        .iter()
        .filter(|(f, _)| !f.is_done())
        .flat_map(|(f, items)| items.iter().filter_map(|r| f.watch_event(r)))
        .collect();
    (rx, replay)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::BatonError;

    #[test]
    fn a_feed_keeps_its_first_final_reply_only() {
        let feed = Feed::new("t".into(), broadcast::channel(4).0);
        assert!(!feed.is_done());
        let first = Reply::Error {
            error: BatonError::failed("first"),
        };
        feed.finish(first.clone());
        feed.finish(Reply::Error {
            error: BatonError::failed("second"),
        });
        assert!(feed.is_done());
        assert_eq!(feed.since(0), (vec![first], true));
    }

    fn note(n: u32) -> Reply {
        Reply::Event {
            event: crate::protocol::SendEvent::Note {
                message: format!("step {n}"),
            },
        }
    }

    #[test]
    fn a_watcher_that_joins_mid_turn_gets_every_step_once() {
        let (tx, _keep) = broadcast::channel(16);
        let running = Arc::new(Feed::new("t".into(), tx.clone()));
        let ended = Arc::new(Feed::new("u".into(), tx.clone()));
        running.push(note(1));
        running.push(note(2));
        ended.push(note(9));
        ended.finish(Reply::Error {
            error: BatonError::failed("gone"),
        });
        let (mut rx, replay) = replay_for_new_watcher(&[running.clone(), ended], || tx.subscribe());
        running.push(note(3));
        let mut seen = replay;
        while let Ok(e) = rx.try_recv() {
            seen.push(e);
        }
        let want: Vec<WatchEvent> = (1..=3)
            .filter_map(|n| running.watch_event(&note(n)))
            .collect();
        assert_eq!(
            seen, want,
            "steps 1 and 2 replayed, 3 live; the ended feed not at all"
        );
    }
}
