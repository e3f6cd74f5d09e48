//! The page's requests handed to the server's socket as any client's: the same `Request`
//! JSON in, the same `Reply` lines out, so one protocol (and the socket's peer rule) serves
//! every client. Which requests a page may send is [`allowed`].

use std::path::Path;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::UnixStream;

use crate::error::BatonError;
use crate::protocol::{Reply, Request};

/// Whether a page may send `req` (pure). Not what names files on the server (`export`'s
/// `out`, `import`'s zip), stops it, or needs a connection of its own (`watch` is the event
/// stream; a `send` is taken detached, its turn followed there; `follow`, `shell`).
pub fn allowed(req: &Request) -> bool {
    match req {
        Request::Ping
        | Request::New { .. }
        | Request::Send { .. }
        | Request::Queue { .. }
        | Request::QueueRun { .. }
        | Request::QueueRetry { .. }
        | Request::Ls { .. }
        | Request::Show { .. }
        | Request::Log { .. }
        | Request::Steps { .. }
        | Request::Instructions { .. }
        | Request::Interrupt { .. }
        | Request::Diff { .. }
        | Request::Merge { .. }
        | Request::Revert { .. }
        | Request::Rm { .. }
        | Request::Rename { .. }
        | Request::Title { .. }
        | Request::Fork { .. }
        | Request::Rewind { .. }
        | Request::Archive { .. }
        | Request::Approvals { .. }
        | Request::Approve { .. }
        | Request::Deny { .. }
        | Request::Forget { .. }
        | Request::Status => true,
        Request::Follow { .. }
        | Request::Integrate { .. }
        | Request::Prune { .. }
        | Request::Export { .. }
        | Request::Import { .. }
        | Request::Extract { .. }
        | Request::Stop
        | Request::Reindex
        | Request::Watch
        | Request::Web { .. }
        | Request::Shell { .. } => false,
    }
}

/// A page's `send` is taken detached: its turn reaches the page on the event stream.
pub fn detach(req: &mut Request) {
    if let Request::Send { detach, .. } = req {
        *detach = true;
    }
}

/// `req`'s final reply line, as the socket wrote it ([`detach`]ed).
pub async fn call(sock: &Path, mut req: Request) -> Result<String, BatonError> {
    detach(&mut req);
    let mut lines = open(sock, &req).await?;
    while let Some(line) = next(&mut lines).await? {
        // A detached send has no events; any other line before the final one is skipped.
        if let Ok(Reply::Ok { .. } | Reply::Error { .. }) = serde_json::from_str(&line) {
            return Ok(line);
        }
    }
    Err(BatonError::failed("the server closed the connection"))
}

/// The socket's `watch` lines, one per change, until the server goes.
pub async fn watch(sock: &Path) -> Result<Lines<BufReader<UnixStream>>, BatonError> {
    open(sock, &Request::Watch).await
}

pub async fn next(lines: &mut Lines<BufReader<UnixStream>>) -> Result<Option<String>, BatonError> {
    lines
        .next_line()
        .await
        .map_err(|e| BatonError::failed(format!("reading the server's socket: {e}")))
}

async fn open(sock: &Path, req: &Request) -> Result<Lines<BufReader<UnixStream>>, BatonError> {
    let mut stream = UnixStream::connect(sock).await.map_err(|e| {
        BatonError::failed(format!(
            "cannot reach the server at {}: {e}",
            sock.display()
        ))
    })?;
    let mut line = serde_json::to_string(req)
        .map_err(|e| BatonError::failed(format!("cannot write the request: {e}")))?;
    line.push('\n');
    stream
        .write_all(line.as_bytes())
        .await
        .map_err(|e| BatonError::failed(format!("writing to the server's socket: {e}")))?;
    Ok(BufReader::new(stream).lines())
}
