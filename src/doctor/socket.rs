//! The server check: a `server.sock` left behind with no server holding `server.lock` is stale
//! (`--fix` removes it; the next server makes a new one), and a socket that no one answers
//! while the lock is held is a hung server (reported, never touched: it may still be running
//! turns). The lock is an flock, so a server that died holds nothing.

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use super::report::{Check, Status};
use super::{Fix, Found};
use crate::paths::DataDir;
use crate::protocol::{data_as, views::StatusView, Reply, Request};

/// How long a running server may take to answer `status`.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// What is at `server.sock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SockFile {
    Absent,
    Socket,
    /// A file, folder or link baton did not make.
    Other,
}

/// What a server that holds the lock did when asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// It answered `status` (its pid).
    Answered(u32),
    /// It did not (why).
    Silent(String),
}

/// The finding for the socket's state; `answer` is asked only when the lock is held and the
/// socket exists.
pub fn judge(sock: SockFile, locked: bool, answer: Option<&Answer>) -> (Status, String, bool) {
    match (sock, locked, answer) {
        (SockFile::Absent, false, _) => (Status::Ok, "no server runs, none left a socket".into(), false),
        (SockFile::Socket, false, _) => (
            Status::Fault,
            "a socket left behind: no server holds server.lock (--fix removes it; the next server makes a new one)".into(),
            true,
        ),
        (SockFile::Other, _, _) => (
            Status::Fault,
            "not a socket (baton did not make it): move it away by hand; the server cannot listen while it is there".into(),
            false,
        ),
        (SockFile::Absent, true, _) => (
            Status::Fault,
            "a process holds server.lock (its pid is in the file) but there is no socket: a server that hangs while starting; stop that process, then run any command".into(),
            false,
        ),
        (SockFile::Socket, true, Some(Answer::Answered(pid))) => {
            (Status::Ok, format!("the server (pid {pid}) answers"), false)
        }
        (SockFile::Socket, true, Some(Answer::Silent(why)) ) => (
            Status::Fault,
            format!("the server holds server.lock but does not answer ({why}): it hangs; stop it (its pid is in server.lock) and run any command, or see server.log"),
            false,
        ),
        (SockFile::Socket, true, None) => (Status::Ok, "a server runs".into(), false),
    }
}

pub fn check(data: &DataDir, locked: bool) -> Vec<Found> {
    let path = data.socket();
    let sock = match std::fs::symlink_metadata(&path) {
        Err(_) => SockFile::Absent,
        Ok(m) if m.file_type().is_socket() => SockFile::Socket,
        Ok(_) => SockFile::Other,
    };
    let answer = (sock == SockFile::Socket && locked).then(|| ask(&path));
    let (status, detail, stale) = judge(sock, locked, answer.as_ref());
    vec![
        Found::new(Check::Server, status, path.display().to_string(), detail)
            .fixed_by(stale.then_some(Fix::RemoveSocket)),
    ]
}

/// Asks the server at `path` for its status, waiting at most [`ANSWER_WITHIN`].
fn ask(path: &Path) -> Answer {
    let silent = |e: &dyn std::fmt::Display| Answer::Silent(e.to_string());
    let mut stream = match UnixStream::connect(path) {
        Ok(s) => s,
        Err(e) => return silent(&format!("connecting: {e}")),
    };
    let _ = stream.set_read_timeout(Some(ANSWER_WITHIN));
    let _ = stream.set_write_timeout(Some(ANSWER_WITHIN));
    let mut line = serde_json::to_vec(&Request::Status).unwrap_or_default();
    line.push(b'\n');
    if let Err(e) = stream.write_all(&line) {
        return silent(&format!("writing: {e}"));
    }
    let mut reply = String::new();
    match BufReader::new(stream).read_line(&mut reply) {
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            return silent(&format!("no answer within {}s", ANSWER_WITHIN.as_secs()))
        }
        Err(e) => return silent(&format!("reading: {e}")),
        Ok(_) => {}
    }
    match serde_json::from_str::<Reply>(&reply) {
        Ok(Reply::Ok { data }) => match data_as::<StatusView>(data) {
            Ok(s) => Answer::Answered(s.pid),
            Err(e) => silent(&e),
        },
        Ok(_) => silent(&"an unexpected reply"),
        Err(_) if reply.is_empty() => silent(&"it closed the connection"),
        Err(e) => silent(&e),
    }
}

/// Removes the stale socket at `path`, once it is still a socket.
pub fn remove_stale(path: &Path) -> std::io::Result<()> {
    let m = std::fs::symlink_metadata(path)?;
    if !m.file_type().is_socket() {
        return Err(std::io::Error::other(
            "it is no longer a socket; left as it is",
        ));
    }
    std::fs::remove_file(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_socket_is_stale_only_when_no_server_holds_the_lock() {
        let answered = Answer::Answered(7);
        let silent = Answer::Silent("timed out".into());
        let rows = [
            (SockFile::Absent, false, None, Status::Ok, false),
            (SockFile::Socket, false, None, Status::Fault, true),
            (SockFile::Other, false, None, Status::Fault, false),
            (SockFile::Other, true, None, Status::Fault, false),
            (SockFile::Absent, true, None, Status::Fault, false),
            (SockFile::Socket, true, Some(&answered), Status::Ok, false),
            (SockFile::Socket, true, Some(&silent), Status::Fault, false),
        ];
        for (sock, locked, answer, status, fix) in rows {
            let (s, _, f) = judge(sock, locked, answer);
            assert_eq!((s, f), (status, fix), "{sock:?} locked={locked} {answer:?}");
        }
    }
}
