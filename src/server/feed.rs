//! The replies of one `send`, kept in order so any number of clients can follow the turn from
//! its start without losing a line, however slow they read.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

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

    fn tell_watchers(&self, r: &Reply) {
        let Some((name, tx)) = &self.watchers else {
            return;
        };
        if tx.receiver_count() == 0 {
            return;
        }
        let event = match r {
            Reply::Event { event } => WatchEvent::Turn {
                name: name.clone(),
                event: event.clone(),
            },
            Reply::Ok { data } => match serde_json::from_value::<TurnSummary>(data.clone()) {
                Ok(summary) => WatchEvent::Finished {
                    name: name.clone(),
                    summary,
                },
                Err(_) => return,
            },
            Reply::Error { error } => WatchEvent::Refused {
                name: name.clone(),
                error: error.clone(),
            },
            Reply::Watch { .. } | Reply::Shell { .. } => return,
        };
        let _ = tx.send(event);
    }

    fn items(&self) -> std::sync::MutexGuard<'_, Vec<Reply>> {
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds an intermediate reply (an event).
    pub fn push(&self, r: Reply) {
        self.tell_watchers(&r);
        let n = {
            let mut items = self.items();
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
            items.push(r.clone());
            items.len()
        };
        self.tell_watchers(&r);
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
}
