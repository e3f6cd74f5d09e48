//! Following a turn: a `send`'s replies, and `baton watch`'s (the terminal's running turn from
//! its start, found through the feed its runner made for the input it took, whether or not a
//! client sent it; with `next`, the next turn once one starts).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;

use super::feed::Feed;
use super::state::Server;
use super::wire::write_reply;
use crate::error::BatonError;

/// How often a `watch --next` waiting for a turn looks whether the server is stopping.
const STOP_CHECK: Duration = Duration::from_millis(500);

/// Writes every reply of `feed` to the client until the final one, waiting for new ones. A
/// client that goes away stops only the writing: the turn goes on.
pub async fn follow(feed: &Feed, write: &mut tokio::net::unix::OwnedWriteHalf) {
    let mut rx = feed.subscribe();
    let mut seen = 0;
    loop {
        rx.borrow_and_update();
        let (batch, done) = feed.since(seen);
        seen += batch.len();
        for r in &batch {
            if !write_reply(write, r).await {
                return;
            }
        }
        if done {
            // The final reply is out: a send's client has its summary.
            super::removal::crash_point("turn-replied");
            return;
        }
        if rx.changed().await.is_err() {
            return;
        }
    }
}

/// The feed of terminal `name`'s running turn; with `next` and none running, of the next one
/// to start (woken by the server's watch channel, which tells of every change).
pub async fn running(srv: &Arc<Server>, name: &str, next: bool) -> Result<Arc<Feed>, BatonError> {
    let t = srv.terminal(name)?;
    let rt = srv.runtime(&t.id);
    let mut changes = srv.watch.subscribe();
    loop {
        let feed = rt.taken().and_then(|n| {
            let feeds = rt.feeds.lock().unwrap_or_else(|p| p.into_inner());
            feeds.get(&n).cloned()
        });
        if let Some(feed) = feed {
            return Ok(feed);
        }
        if !next {
            return Err(BatonError::failed(format!(
                "{name} runs no turn now: `baton watch {name} --next` waits for its next one, `baton log {name}` shows the last"
            )));
        }
        if srv.shutting_down.load(Ordering::SeqCst) {
            return Err(BatonError::failed(
                "the baton server stopped before a turn started",
            ));
        }
        match tokio::time::timeout(STOP_CHECK, changes.recv()).await {
            Ok(Ok(_)) | Ok(Err(RecvError::Lagged(_))) | Err(_) => {}
            Ok(Err(RecvError::Closed)) => {
                return Err(BatonError::failed("the baton server stopped"));
            }
        }
    }
}
