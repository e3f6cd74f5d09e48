//! The socket's framing: one JSON value per line, written whole.

use tokio::io::AsyncWriteExt;

use crate::error::BatonError;
use crate::protocol::answer::OK_LINE;
use crate::protocol::{Answer, Reply};

/// Writes `r` as one line; false when the client is gone.
pub async fn write_reply(w: &mut tokio::net::unix::OwnedWriteHalf, r: &Reply) -> bool {
    let mut line = match serde_json::to_vec(r) {
        Ok(l) => l,
        Err(_) => return false,
    };
    line.push(b'\n');
    w.write_all(&line).await.is_ok()
}

/// Writes a request's final reply ([`answer_line`]); false when the client is gone.
/// The first allocation of an answer's line, in bytes (below the allocator's `mmap` threshold).
const ANSWER_ROOM: usize = 64 * 1024;

pub async fn write_answer(
    w: &mut tokio::net::unix::OwnedWriteHalf,
    answer: Result<Answer, BatonError>,
) -> bool {
    match answer_line(answer) {
        Ok(line) => w.write_all(&line).await.is_ok(),
        Err(error) => write_reply(w, &Reply::Error { error }).await,
    }
}

/// A request's final line: an answer as `{"reply":"ok","data":VIEW}`, the view serialized
/// straight onto it (no `serde_json::Value` built first, as [`Reply::answered`] does), so a
/// client reads it straight into the view (`AnswerKind::read_line`); else the error.
pub fn answer_line(answer: Result<Answer, BatonError>) -> Result<Vec<u8>, BatonError> {
    let a = answer?;
    // A listing of 100 terminals (~120 kB) grows it once, not a dozen times.
    let mut line = Vec::with_capacity(ANSWER_ROOM);
    line.extend_from_slice(OK_LINE.as_bytes());
    serde_json::to_writer(&mut line, &a)
        .map_err(|e| BatonError::failed(format!("internal: {e}")))?;
    line.extend_from_slice(b"}\n");
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::views::PongView;
    use crate::protocol::Request;
    use crate::tui::testing::views;

    #[test]
    fn an_answer_line_reads_back_as_the_reply_and_straight_into_its_view() {
        let rows: Vec<(Request, Answer)> = vec![
            (Request::Ping, PongView { pong: true }.into()),
            (
                Request::Ls {
                    all: false,
                    table: false,
                },
                vec![views::terminal(serde_json::json!({"name": "a"}))].into(),
            ),
        ];
        for (req, answer) in rows {
            let line = answer_line(Ok(answer.clone())).unwrap();
            let text = String::from_utf8(line).unwrap();
            assert!(
                text.ends_with("}\n") && text.matches('\n').count() == 1,
                "{text}"
            );
            let reply: Reply = serde_json::from_str(&text).unwrap();
            assert_eq!(reply, Reply::answered(Ok(answer.clone())), "{req:?}");
            let kind = req.answer_kind().unwrap();
            assert_eq!(kind.read_line(&text).unwrap(), answer, "{req:?}");
        }
        let refused = answer_line(Err(BatonError::bad_input("no such terminal")));
        assert_eq!(refused.unwrap_err().message, "no such terminal");
    }
}
