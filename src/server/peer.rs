//! Who may talk to the server: its own user only. The socket's mode (0600 in a 0700 folder)
//! is the first fence, but a mode can be opened by hand; so every accepted connection's peer
//! uid (`SO_PEERCRED`) is checked too, and another user's is refused before it is read.

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::net::UnixStream;

use super::wire::write_reply;
use crate::error::BatonError;
use crate::protocol::Reply;

/// How long a refused client gets to send its request line, which is read and dropped so the
/// refusal is not lost to a reset (Linux resets a peer whose data was left unread).
const DRAIN: Duration = Duration::from_secs(2);
/// The most of a refused client's request that is read (and dropped).
const DRAIN_BYTES: u64 = 64 * 1024;

/// Whether a connection from `peer` (its uid, `None` when the kernel could not say) may talk
/// to a server running as `own`; the refusal says why and what to do. Pure.
pub fn judge(own: u32, peer: Option<u32>) -> Result<(), String> {
    match peer {
        Some(uid) if uid == own => Ok(()),
        Some(uid) => Err(format!(
            "this baton server belongs to uid {own} and answers no other user (the connection came from uid {uid}); run baton as that user, or use your own data directory (BATON_HOME)"
        )),
        None => Err(format!(
            "this baton server belongs to uid {own} and could not learn which user connected, so it refused the connection; run baton as that user"
        )),
    }
}

/// Refuses `stream`: its request line (if it comes soon) is dropped unread, then one error
/// line saying `why` is written and the connection closed.
pub async fn refuse(stream: UnixStream, why: String) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read.take(DRAIN_BYTES));
    let mut line = Vec::new();
    let _ = tokio::time::timeout(DRAIN, reader.read_until(b'\n', &mut line)).await;
    let reply = Reply::Error {
        error: BatonError::failed(why),
    };
    write_reply(&mut write, &reply).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_servers_own_uid_is_answered() {
        let rows = [
            (1000, Some(1000), None),
            (0, Some(0), None),
            (1000, Some(65534), Some("from uid 65534")),
            (0, Some(1000), Some("belongs to uid 0")),
            (1000, None, Some("could not learn")),
        ];
        for (own, peer, refused) in rows {
            match (judge(own, peer), refused) {
                (Ok(()), None) => {}
                (Err(why), Some(needle)) => {
                    assert!(why.contains(needle), "{own} {peer:?}: {why}");
                    assert!(why.contains("run baton as that user"), "{why}");
                }
                (got, want) => panic!("{own} {peer:?}: got {got:?}, want refusal {want:?}"),
            }
        }
    }
}
