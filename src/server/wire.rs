//! The socket's framing: one JSON value per line, written whole.

use tokio::io::AsyncWriteExt;

use crate::protocol::Reply;

/// Writes `r` as one line; false when the client is gone.
pub async fn write_reply(w: &mut tokio::net::unix::OwnedWriteHalf, r: &Reply) -> bool {
    let mut line = match serde_json::to_vec(r) {
        Ok(l) => l,
        Err(_) => return false,
    };
    line.push(b'\n');
    w.write_all(&line).await.is_ok()
}
