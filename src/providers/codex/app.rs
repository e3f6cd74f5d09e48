//! Forking and rewinding a Codex thread through `codex app-server` (JSON-RPC over stdio).
//!
//! `codex exec` can fork a thread but neither tells the fork its new checkout (a fork keeps the
//! original's developer message; `-c developer_instructions=` and `thread/fork
//! developerInstructions` are both ignored) nor cuts it. One short app-server session does
//! both, without calling the model: `initialize`, `initialized`, `thread/turns/list` of the
//! source (when cutting: turn K must be the expected prompt), `thread/fork` run in the NEW
//! checkout (`lastTurnId` = turn K-1 when cutting), `thread/inject_items` with one developer
//! message holding baton's system text, then `thread/turns/list` of the fork to check the cut.
//! Baton then resumes the new thread with `codex exec … resume ID -` as any other. The facts
//! and the why: `fixtures/captures/fork/codex/README.md`.
//!
//! Blocking (the server calls it in `spawn_blocking`). The child runs in its own process
//! group, dies with the thread that started it, and is killed when the session is dropped or
//! runs past its deadline.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::providers::{process, ProviderError};
use crate::words::ProviderKind;

/// The whole app-server session (start to exit) must fit in this.
pub const FORK_TIMEOUT: Duration = Duration::from_secs(30);
/// How much of the app-server's stderr is kept for an error message.
const STDERR_TAIL_BYTES: usize = 16 * 1024;
/// A thread with more pages of turns than this is not listed further (a loop guard).
const MAX_TURN_PAGES: usize = 1000;

/// Fork `thread_id` into a new thread that runs in `cwd` and is told `system_text`.
pub struct ForkRequest<'a> {
    /// The codex binary.
    pub bin: &'a Path,
    /// Extra environment for the child (e.g. `CODEX_HOME`); may be empty.
    pub env: &'a [(OsString, OsString)],
    /// The NEW checkout: the app-server runs there and the fork records it as its cwd.
    pub cwd: &'a Path,
    pub thread_id: &'a str,
    /// Baton's developer text for the new checkout, injected after the kept turns.
    pub system_text: &'a str,
    pub model: Option<&'a str>,
    /// Cut the fork to its first turns (None: keep every turn).
    pub keep: Option<Keep<'a>>,
}

/// Keep the first `turns` turns; the turn after them must be `next_prompt`. Or, counted from
/// the end ([`Keep::before_last`]): keep every turn before the one that `later` turns follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keep<'a> {
    pub turns: usize,
    /// Counted from the end: the turn cut at has this many turns after it (`turns` is then
    /// worked out from the thread's turn list).
    pub later: Option<usize>,
    /// The user text of turn `turns` (0-based): the first one cut off, to check the match.
    pub next_prompt: &'a str,
}

impl<'a> Keep<'a> {
    /// Keep the first `turns` turns.
    pub fn first(turns: usize, next_prompt: &'a str) -> Keep<'a> {
        Keep {
            turns,
            later: None,
            next_prompt,
        }
    }

    /// Keep every turn before the one that `later` turns follow (which must be `next_prompt`).
    pub fn before_last(later: usize, next_prompt: &'a str) -> Keep<'a> {
        Keep {
            turns: 0,
            later: Some(later),
            next_prompt,
        }
    }
}

/// What went wrong talking to `codex app-server`.
#[derive(Debug, thiserror::Error)]
pub enum AppServerError {
    #[error("codex app-server did not answer {method} within {secs} s")]
    Timeout { method: String, secs: u64 },
    #[error("codex app-server exited before answering {method}{stderr}")]
    Exited { method: String, stderr: String },
    #[error("codex app-server refused {method}: {message} (code {code})")]
    Rpc {
        method: String,
        code: i64,
        message: String,
    },
    #[error("codex app-server's answer to {method} has no {field}")]
    Reply { method: String, field: &'static str },
    #[error("keeping 0 turns of thread {thread} is not a fork: start a new thread instead")]
    KeepNothing { thread: String },
    #[error(
        "thread {thread} has {found} turns: keeping {keep} needs turn {keep} (0-based) to cut at"
    )]
    TooFewTurns {
        thread: String,
        found: usize,
        keep: usize,
    },
    #[error("turn {index} (0-based) of thread {thread} is {found:?}, not the prompt to cut at ({expected:?}): nothing was forked")]
    Mismatch {
        thread: String,
        index: usize,
        found: String,
        expected: String,
    },
    #[error("the fork {fork} holds turns {found:?} instead of {expected:?}")]
    WrongCut {
        fork: String,
        found: Vec<String>,
        expected: Vec<String>,
    },
    #[error("codex app-server named the fork's rollout {0} but it is not on disk")]
    NoRollout(PathBuf),
    #[error("talking to codex app-server failed: {0}")]
    Io(#[from] std::io::Error),
}

impl From<AppServerError> for ProviderError {
    fn from(error: AppServerError) -> Self {
        ProviderError::Io {
            provider: ProviderKind::Codex,
            source: std::io::Error::other(error),
        }
    }
}

/// Forks the thread as the request says and returns the new thread's id; its rollout is on
/// disk when this returns. With `keep`, the fork holds exactly the first `keep.turns` turns,
/// or nothing is forked and the mismatch is the error.
pub fn fork_thread(req: &ForkRequest) -> Result<String, ProviderError> {
    fork_thread_within(req, FORK_TIMEOUT)
}

fn fork_thread_within(req: &ForkRequest, timeout: Duration) -> Result<String, ProviderError> {
    if let Some(keep) = req.keep {
        if keep.turns == 0 && keep.later.is_none() {
            return Err(AppServerError::KeepNothing {
                thread: req.thread_id.to_owned(),
            }
            .into());
        }
    }
    let mut session = Session::start(req.bin, req.env, req.cwd, timeout)?;
    session.call("initialize", initialize_params())?;
    session.notify("initialized")?;
    let kept = match req.keep {
        Some(keep) => {
            let enough = keep.later.map_or(keep.turns + 1, |_| usize::MAX);
            let turns = list_turns(&mut session, req.thread_id, enough)?;
            let keep = match keep.later {
                None => keep,
                Some(later) => Keep {
                    turns: turns.len().checked_sub(later + 1).ok_or_else(|| {
                        AppServerError::TooFewTurns {
                            thread: req.thread_id.to_owned(),
                            found: turns.len(),
                            keep: later + 1,
                        }
                    })?,
                    later: None,
                    ..keep
                },
            };
            Some(check_keep(req.thread_id, &turns, keep)?.to_vec())
        }
        None => None,
    };
    let last_turn = kept.as_ref().and_then(|k| k.last()).map(|t| t.id.as_str());
    let reply = session.call("thread/fork", fork_params(req, last_turn))?;
    let fork = ForkedThread::from_reply(&reply)?;
    session.call(
        "thread/inject_items",
        inject_params(&fork.id, req.system_text),
    )?;
    if let Some(kept) = &kept {
        let got = list_turns(&mut session, &fork.id, kept.len() + 1)?;
        check_cut(&fork.id, &got, kept)?;
    }
    session.finish()?;
    if let Some(path) = &fork.path {
        if !path.is_file() {
            return Err(AppServerError::NoRollout(path.clone()).into());
        }
    }
    Ok(fork.id)
}

// ---- the messages (pure)

fn initialize_params() -> Value {
    json!({"clientInfo": {"name": "baton", "version": env!("CARGO_PKG_VERSION")}})
}

/// One JSON-RPC request line (with its newline).
fn request_line(id: u64, method: &str, params: &Value) -> String {
    let mut line =
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    line.push('\n');
    line
}

fn notification_line(method: &str) -> String {
    let mut line = json!({"jsonrpc": "2.0", "method": method}).to_string();
    line.push('\n');
    line
}

fn fork_params(req: &ForkRequest, last_turn_id: Option<&str>) -> Value {
    let mut params = json!({
        "threadId": req.thread_id,
        "cwd": req.cwd.to_string_lossy(),
        "excludeTurns": true,
    });
    if let Some(model) = req.model {
        params["model"] = json!(model);
    }
    if let Some(turn) = last_turn_id {
        params["lastTurnId"] = json!(turn);
    }
    params
}

fn inject_params(thread_id: &str, system_text: &str) -> Value {
    json!({
        "threadId": thread_id,
        "items": [{
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": system_text}],
        }],
    })
}

fn turns_params(thread_id: &str, cursor: Option<&str>) -> Value {
    let mut params = json!({"threadId": thread_id, "sortDirection": "asc"});
    if let Some(cursor) = cursor {
        params["cursor"] = json!(cursor);
    }
    params
}

/// What one line the app-server printed is, seen from a request with id `id`.
#[derive(Debug, PartialEq)]
enum Incoming {
    /// The answer to our request.
    Result(Value),
    /// Our request failed.
    Error { code: i64, message: String },
    /// A request of the server's own (it needs an answer, or it waits).
    ServerRequest(Value),
    /// A notification, another request's answer, or a line that is not JSON: skipped.
    Other,
}

fn classify(line: &str, id: u64) -> Incoming {
    let Ok(msg) = serde_json::from_str::<Value>(line) else {
        return Incoming::Other;
    };
    let Some(obj) = msg.as_object() else {
        return Incoming::Other;
    };
    match (obj.get("id"), obj.get("method")) {
        (Some(rid), Some(_)) => Incoming::ServerRequest(rid.clone()),
        (Some(rid), None) if rid.as_u64() == Some(id) => {
            if let Some(error) = obj.get("error") {
                Incoming::Error {
                    code: error["code"].as_i64().unwrap_or_default(),
                    message: error["message"].as_str().unwrap_or_default().to_owned(),
                }
            } else {
                Incoming::Result(obj.get("result").cloned().unwrap_or(Value::Null))
            }
        }
        _ => Incoming::Other,
    }
}

/// A turn as `thread/turns/list` shows it: its id and its user text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TurnInfo {
    id: String,
    /// The text parts of its first `userMessage` item, joined by newlines.
    user_text: String,
}

/// The turns of one `thread/turns/list` page and the cursor of the next (None: last page).
fn parse_turns(result: &Value) -> Result<(Vec<TurnInfo>, Option<String>), AppServerError> {
    let data = result["data"]
        .as_array()
        .ok_or_else(|| AppServerError::Reply {
            method: "thread/turns/list".into(),
            field: "data",
        })?;
    let mut turns = Vec::with_capacity(data.len());
    for turn in data {
        let id = turn["id"].as_str().ok_or_else(|| AppServerError::Reply {
            method: "thread/turns/list".into(),
            field: "data[].id",
        })?;
        let user = turn["items"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|item| item["type"] == "userMessage");
        let user_text = user
            .and_then(|u| u["content"].as_array())
            .into_iter()
            .flatten()
            .filter(|c| c["type"] == "text")
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        turns.push(TurnInfo {
            id: id.to_owned(),
            user_text,
        });
    }
    let next = result["nextCursor"].as_str().map(str::to_owned);
    Ok((turns, next))
}

/// The turns to keep (the first `keep.turns`), once turn `keep.turns` is known to be the
/// expected prompt. Trailing whitespace does not count.
fn check_keep<'t>(
    thread: &str,
    turns: &'t [TurnInfo],
    keep: Keep,
) -> Result<&'t [TurnInfo], AppServerError> {
    if keep.turns == 0 {
        return Err(AppServerError::KeepNothing {
            thread: thread.to_owned(),
        });
    }
    let Some(next) = turns.get(keep.turns) else {
        return Err(AppServerError::TooFewTurns {
            thread: thread.to_owned(),
            found: turns.len(),
            keep: keep.turns,
        });
    };
    if next.user_text.trim_end() != keep.next_prompt.trim_end() {
        return Err(AppServerError::Mismatch {
            thread: thread.to_owned(),
            index: keep.turns,
            found: next.user_text.clone(),
            expected: keep.next_prompt.to_owned(),
        });
    }
    Ok(&turns[..keep.turns])
}

/// The fork must list exactly the kept turns (same ids, same order).
fn check_cut(fork: &str, got: &[TurnInfo], kept: &[TurnInfo]) -> Result<(), AppServerError> {
    let ids = |t: &[TurnInfo]| t.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
    if ids(got) != ids(kept) {
        return Err(AppServerError::WrongCut {
            fork: fork.to_owned(),
            found: ids(got),
            expected: ids(kept),
        });
    }
    Ok(())
}

/// The new thread of a `thread/fork` answer.
#[derive(Debug, PartialEq, Eq)]
struct ForkedThread {
    id: String,
    /// Where Codex wrote its rollout (an "unstable" field: may be missing).
    path: Option<PathBuf>,
}

impl ForkedThread {
    fn from_reply(result: &Value) -> Result<Self, AppServerError> {
        let thread = &result["thread"];
        let id = thread["id"]
            .as_str()
            .filter(|id| !id.is_empty())
            .ok_or_else(|| AppServerError::Reply {
                method: "thread/fork".into(),
                field: "thread.id",
            })?;
        Ok(ForkedThread {
            id: id.to_owned(),
            path: thread["path"].as_str().map(PathBuf::from),
        })
    }
}

/// Every turn of `thread` from the first, page by page, stopping once `enough` are known.
fn list_turns(
    session: &mut Session,
    thread: &str,
    enough: usize,
) -> Result<Vec<TurnInfo>, AppServerError> {
    let mut turns = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_TURN_PAGES {
        let reply = session.call("thread/turns/list", turns_params(thread, cursor.as_deref()))?;
        let (page, next) = parse_turns(&reply)?;
        turns.extend(page);
        match next {
            Some(next) if turns.len() < enough => cursor = Some(next),
            _ => break,
        }
    }
    Ok(turns)
}

// ---- the process

/// A running `codex app-server`: requests out through a writer thread, lines in through a
/// reader thread, one deadline for everything.
struct Session {
    child: Child,
    pid: i32,
    /// Dropping it closes the child's stdin (the app-server exits at EOF).
    to_stdin: Option<Sender<String>>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<Vec<u8>>>,
    deadline: Instant,
    timeout: Duration,
    next_id: u64,
}

/// The `codex app-server` command, in a process group of its own, that dies with the thread
/// that started it.
fn app_server(bin: &Path, env: &[(OsString, OsString)], cwd: &Path) -> Command {
    let mut cmd = Command::new(bin);
    cmd.arg("app-server")
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs between fork and exec and only calls sigaction, prctl and
    // getppid, which are async-signal-safe. The child dies with the thread that started
    // it (PR_SET_PDEATHSIG follows the thread): that thread waits for it in `finish` or
    // kills it on drop, so the child never outlives this session.
    unsafe {
        cmd.pre_exec(move || {
            use nix::sys::signal::{signal, SigHandler, Signal};
            for sig in [Signal::SIGINT, Signal::SIGTERM] {
                signal(sig, SigHandler::SigDfl).map_err(std::io::Error::from)?;
            }
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(std::io::Error::from)?;
            if nix::unistd::getppid() != parent {
                return Err(std::io::Error::other("baton is gone"));
            }
            Ok(())
        });
    }
    cmd
}

/// Why `bin` did not start in `cwd`: not installed, or the new checkout is missing.
fn spawn_error(bin: &Path, cwd: &Path, source: std::io::Error) -> ProviderError {
    if source.kind() == std::io::ErrorKind::NotFound && !bin.exists() {
        return ProviderError::NotFound {
            provider: ProviderKind::Codex,
            bin: bin.display().to_string(),
            hint: ProviderKind::Codex.install_hint(),
        };
    }
    let source = if cwd.is_dir() {
        source
    } else {
        std::io::Error::new(
            source.kind(),
            format!("the new checkout {} is missing ({source})", cwd.display()),
        )
    };
    ProviderError::Spawn {
        provider: ProviderKind::Codex,
        bin: bin.display().to_string(),
        source,
    }
}

impl Session {
    fn start(
        bin: &Path,
        env: &[(OsString, OsString)],
        cwd: &Path,
        timeout: Duration,
    ) -> Result<Self, ProviderError> {
        let mut cmd = app_server(bin, env, cwd);
        let mut child = cmd
            .spawn()
            .map_err(|source| spawn_error(bin, cwd, source))?;
        let pid = i32::try_from(child.id()).unwrap_or(0);
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(AppServerError::Io(std::io::Error::other(
                "the app-server's pipes were not set up",
            ))
            .into());
        };
        let (to_stdin, from_us) = mpsc::channel::<String>();
        std::thread::spawn(move || write_lines(stdin, from_us));
        let (to_us, lines) = mpsc::channel::<String>();
        std::thread::spawn(move || read_lines(stdout, to_us));
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr_tail);
        std::thread::spawn(move || drain_stderr(stderr, tail));
        Ok(Session {
            child,
            pid,
            to_stdin: Some(to_stdin),
            lines,
            stderr: stderr_tail,
            deadline: Instant::now() + timeout,
            timeout,
            next_id: 0,
        })
    }

    fn send(&mut self, line: String) -> Result<(), AppServerError> {
        let sent = self.to_stdin.as_ref().map(|tx| tx.send(line));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => Err(AppServerError::Io(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the app-server's stdin is closed",
            ))),
        }
    }

    fn notify(&mut self, method: &str) -> Result<(), AppServerError> {
        self.send(notification_line(method))
    }

    /// Sends one request and waits for its answer, skipping notifications and refusing any
    /// request of the server's own.
    fn call(&mut self, method: &str, params: Value) -> Result<Value, AppServerError> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(request_line(id, method, &params))?;
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(AppServerError::Timeout {
                        method: method.to_owned(),
                        secs: self.timeout.as_secs(),
                    })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(AppServerError::Exited {
                        method: method.to_owned(),
                        stderr: self.stderr_summary(),
                    })
                }
            };
            match classify(&line, id) {
                Incoming::Result(result) => return Ok(result),
                Incoming::Error { code, message } => {
                    return Err(AppServerError::Rpc {
                        method: method.to_owned(),
                        code,
                        message,
                    })
                }
                Incoming::ServerRequest(rid) => {
                    let refusal = json!({"jsonrpc": "2.0", "id": rid, "error": {
                        "code": -32601, "message": "baton answers no server requests"}});
                    self.send(format!("{refusal}\n"))?;
                }
                Incoming::Other => {}
            }
        }
    }

    /// Closes stdin and waits (until the deadline) for the app-server to exit.
    fn finish(mut self) -> Result<(), AppServerError> {
        self.to_stdin = None;
        loop {
            if self.child.try_wait()?.is_some() {
                return Ok(());
            }
            if Instant::now() >= self.deadline {
                return Err(AppServerError::Timeout {
                    method: "its exit".into(),
                    secs: self.timeout.as_secs(),
                });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// `: <the last stderr line that says error, else the last one>`, or "" when none.
    fn stderr_summary(&self) -> String {
        // Give the reader a moment: the child just closed stdout and is still writing stderr.
        std::thread::sleep(Duration::from_millis(50));
        let bytes = match self.stderr.lock() {
            Ok(kept) => kept.clone(),
            Err(_) => return String::new(),
        };
        let text = strip_ansi(&String::from_utf8_lossy(&bytes));
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let line = lines
            .iter()
            .rev()
            .find(|l| l.to_ascii_lowercase().contains("error"))
            .or(lines.last());
        line.map(|l| format!(": {l}")).unwrap_or_default()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.to_stdin = None;
        if matches!(self.child.try_wait(), Ok(None)) {
            if self.pid > 1 {
                let _ = process::kill(self.pid);
            }
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn write_lines(mut stdin: std::process::ChildStdin, lines: Receiver<String>) {
    for line in lines {
        if stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .is_err()
        {
            break;
        }
    }
}

fn read_lines(stdout: std::process::ChildStdout, tx: Sender<String>) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf).trim_end().to_owned();
                if tx.send(line).is_err() {
                    break;
                }
            }
        }
    }
}

fn drain_stderr(mut stderr: std::process::ChildStderr, tail: Arc<Mutex<Vec<u8>>>) {
    let mut buf = [0u8; 4096];
    loop {
        match stderr.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) if !process::keep_tail(&tail, &buf[..n], STDERR_TAIL_BYTES) => break,
            Ok(_) => {}
        }
    }
}

/// Text without ANSI colour sequences (`ESC [ … letter`): Codex colours its log lines.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;
