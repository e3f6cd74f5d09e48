//! Shells: each terminal has a real shell in its checkout, owned by the server (as in tmux,
//! shells outlive the clients that show them), started by the first [`Request::Shell`] for it.
//!
//! Per shell: the PTY master, one `std::thread` blocked on reads that forwards chunks over a
//! bounded channel (`blocking_send`, so a flood of output waits for the server instead of
//! piling up), one `std::thread` that writes input, and a task (the pump) that feeds each chunk
//! to the server's own `vt100` screen and to every attached client. The server's screen is what
//! a client attaching later is shown first, and what answers the queries programs send (cursor
//! position `ESC[6n`, device status and attributes), attached or not, so nothing hangs waiting.
//!
//! A client gets output through its own bounded queue. One that falls behind (queue full) is
//! not buffered for: it misses output until it has written what it had, then gets the whole
//! screen again (a [`ShellEvent::Screen`]) and goes on from there. So a slow client never
//! slows the shell, the server or other clients.
//!
//! [`Request::Shell`]: crate::protocol::Request::Shell

use std::collections::HashMap;
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use portable_pty::{native_pty_system, CommandBuilder, MasterPty, PtySize};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc::{self, error::TrySendError};

use super::state::Server;
use super::write_reply;
use crate::error::BatonError;
use crate::protocol::{Reply, ShellEvent, ShellInput};

/// Bytes read from the PTY at a time.
const READ_CHUNK: usize = 64 * 1024;
/// Chunks the PTY reader may be ahead of the pump.
const PTY_QUEUE: usize = 16;
/// Chunks queued for one client before it is resynced from the screen instead.
const CLIENT_QUEUE: usize = 64;
/// Input writes waiting for the shell to read them.
const INPUT_QUEUE: usize = 256;
/// Output sent to a client in one line, at most (several chunks are joined when it lags).
const BATCH_BYTES: usize = 256 * 1024;
/// The longest input line a client may write (a large paste, base64).
const MAX_INPUT_LINE: u64 = 16 * 1024 * 1024;
/// Screens are clamped to this size.
const MAX_SIDE: u16 = 1000;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Every terminal's shell, by terminal id.
#[derive(Default)]
pub struct Shells {
    map: Mutex<HashMap<String, Arc<Shell>>>,
}

impl Shells {
    /// The terminal's shell, started in `dir` when it has none or its last one exited.
    fn open(&self, tid: &str, dir: &Path, size: PtySize) -> Result<Arc<Shell>, BatonError> {
        let mut map = lock(&self.map);
        if let Some(s) = map.get(tid) {
            if lock(&s.state).exited.is_none() {
                return Ok(s.clone());
            }
        }
        let shell = Shell::spawn(dir, size)?;
        map.insert(tid.to_string(), shell.clone());
        Ok(shell)
    }

    /// Hangs up every shell (the server is stopping).
    pub fn hang_up_all(&self) {
        let shells: Vec<Arc<Shell>> = lock(&self.map).drain().map(|(_, s)| s).collect();
        for s in shells {
            s.hang_up();
        }
    }

    /// Hangs up terminal `tid`'s shell, if it has one (the terminal is removed).
    pub fn hang_up(&self, tid: &str) {
        let shell = lock(&self.map).remove(tid);
        if let Some(s) = shell {
            s.hang_up();
        }
    }
}

/// One running shell.
pub struct Shell {
    state: Mutex<ShellState>,
    /// To the thread that writes to the PTY.
    input: mpsc::Sender<Vec<u8>>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    /// The shell's process group (it leads its own session).
    pid: Option<u32>,
}

struct ShellState {
    parser: vt100::Parser<Answers>,
    subscribers: Vec<Subscriber>,
    /// Set once the shell ended, with its exit code.
    exited: Option<Option<i32>>,
}

struct Subscriber {
    tx: mpsc::Sender<Arc<Vec<u8>>>,
    /// Its queue was full: it gets the screen again instead of what it missed.
    lagged: Arc<AtomicBool>,
}

impl Subscriber {
    /// Queues a chunk; false once the client is gone.
    fn offer(&self, chunk: &Arc<Vec<u8>>) -> bool {
        if self.lagged.load(Ordering::SeqCst) {
            return !self.tx.is_closed();
        }
        match self.tx.try_send(chunk.clone()) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                self.lagged.store(true, Ordering::SeqCst);
                true
            }
            Err(TrySendError::Closed(_)) => false,
        }
    }
}

/// What one client is sent: chunks of output, shared between clients.
type ClientQueue = mpsc::Receiver<Arc<Vec<u8>>>;

/// Answers to the terminal queries programs send, collected while output is parsed.
#[derive(Default)]
pub struct Answers {
    pub out: Vec<u8>,
}

impl vt100::Callbacks for Answers {
    fn unhandled_csi(
        &mut self,
        screen: &mut vt100::Screen,
        i1: Option<u8>,
        _i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        let first = params.first().and_then(|p| p.first()).copied().unwrap_or(0);
        match (i1, c, first) {
            // Cursor position report.
            (None, 'n', 6) => {
                let (row, col) = screen.cursor_position();
                self.out
                    .extend_from_slice(format!("\x1b[{};{}R", row + 1, col + 1).as_bytes());
            }
            // Device status: OK.
            (None, 'n', 5) => self.out.extend_from_slice(b"\x1b[0n"),
            // Primary device attributes: a VT220-class terminal.
            (None, 'c', 0) => self.out.extend_from_slice(b"\x1b[?62;22c"),
            // Secondary device attributes.
            (Some(b'>'), 'c', 0) => self.out.extend_from_slice(b"\x1b[>1;10;0c"),
            _ => {}
        }
    }
}

fn pty_size(rows: u16, cols: u16) -> PtySize {
    PtySize {
        rows: rows.clamp(1, MAX_SIDE),
        cols: cols.clamp(1, MAX_SIDE),
        pixel_width: 0,
        pixel_height: 0,
    }
}

fn nonzero(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap_or(NonZeroU16::MIN)
}

fn pty_error(what: &str, e: impl std::fmt::Display) -> BatonError {
    BatonError::failed(format!("cannot {what} the shell: {e}"))
}

impl Shell {
    /// Starts `$SHELL` (else `/bin/sh`) in `dir` on a new PTY, with its reader, writer and pump.
    fn spawn(dir: &Path, size: PtySize) -> Result<Arc<Shell>, BatonError> {
        let pair = native_pty_system()
            .openpty(size)
            .map_err(|e| pty_error("open a terminal for", e))?;
        let program = std::env::var_os("SHELL")
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "/bin/sh".into());
        let mut cmd = CommandBuilder::new(program);
        cmd.cwd(dir);
        cmd.env("TERM", "xterm-256color");
        cmd.env("COLORTERM", "truecolor");
        let mut child = pair
            .slave
            .spawn_command(cmd)
            .map_err(|e| pty_error(&format!("start (in {})", dir.display()), e))?;
        // The reader sees EOF only once every slave handle is closed.
        drop(pair.slave);
        let reader = pair
            .master
            .try_clone_reader()
            .map_err(|e| pty_error("read from", e))?;
        let writer = pair
            .master
            .take_writer()
            .map_err(|e| pty_error("write to", e))?;
        let (out_tx, out_rx) = mpsc::channel(PTY_QUEUE);
        let (in_tx, in_rx) = mpsc::channel(INPUT_QUEUE);
        std::thread::spawn(move || read_pty(reader, out_tx));
        std::thread::spawn(move || write_pty(writer, in_rx));
        let parser = vt100::Parser::new_with_callbacks(
            nonzero(size.rows),
            nonzero(size.cols),
            0,
            Answers::default(),
        );
        let shell = Arc::new(Shell {
            state: Mutex::new(ShellState {
                parser,
                subscribers: Vec::new(),
                exited: None,
            }),
            input: in_tx,
            master: Mutex::new(pair.master),
            pid: child.process_id(),
        });
        // A thread of its own, not `spawn_blocking`: the runtime's shutdown waits for those, and
        // a shell that ignores SIGHUP must not keep the server from stopping.
        let (waited_tx, waited) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let _ = waited_tx.send(child.wait());
        });
        tokio::spawn(pump(shell.clone(), out_rx, waited));
        Ok(shell)
    }

    fn hang_up(&self) {
        if let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGHUP,
            );
        }
    }

    /// Resizes the PTY (the shell gets SIGWINCH) and the server's screen.
    fn resize(&self, size: PtySize) {
        let mut st = lock(&self.state);
        let (rows, cols) = st.parser.screen().size();
        if (rows.get(), cols.get()) == (size.rows, size.cols) {
            return;
        }
        st.parser.set_size(nonzero(size.rows), nonzero(size.cols));
        let _ = lock(&self.master).resize(size);
    }

    /// A new client: the screen it starts from and its queue (None once the shell ended).
    fn subscribe(&self) -> Option<(ShellEvent, ClientQueue, Arc<AtomicBool>)> {
        let mut st = lock(&self.state);
        if st.exited.is_some() {
            return None;
        }
        let (tx, rx) = mpsc::channel(CLIENT_QUEUE);
        let lagged = Arc::new(AtomicBool::new(false));
        st.subscribers.push(Subscriber {
            tx,
            lagged: lagged.clone(),
        });
        Some((screen_event(st.parser.screen()), rx, lagged))
    }

    /// The screen again for a client that fell behind; its output resumes from here.
    fn resync(&self, lagged: &AtomicBool) -> ShellEvent {
        let st = lock(&self.state);
        lagged.store(false, Ordering::SeqCst);
        screen_event(st.parser.screen())
    }

    fn exit_code(&self) -> Option<i32> {
        lock(&self.state).exited.flatten()
    }
}

/// Escape sequences that redraw `screen` on a blank terminal of its size.
pub fn screen_event(screen: &vt100::Screen) -> ShellEvent {
    let (rows, cols) = screen.size();
    let mut data = String::new();
    if screen.alternate_screen() {
        data.push_str("\x1b[?1049h");
    }
    data.push_str(&screen.state_formatted());
    let (r, c) = screen.cursor_position();
    ShellEvent::Screen {
        rows: rows.get(),
        cols: cols.get(),
        cursor: [r, c],
        data: B64.encode(data.as_bytes()),
    }
}

/// The PTY reader's thread: blocking reads, forwarded in order over a bounded channel.
fn read_pty(mut reader: Box<dyn Read + Send>, tx: mpsc::Sender<Vec<u8>>) {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if tx.blocking_send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // EIO once the shell and everything it started closed the terminal.
            Err(_) => return,
        }
    }
}

/// The PTY writer's thread.
fn write_pty(mut writer: Box<dyn Write + Send>, mut rx: mpsc::Receiver<Vec<u8>>) {
    while let Some(bytes) = rx.blocking_recv() {
        if writer
            .write_all(&bytes)
            .and_then(|_| writer.flush())
            .is_err()
        {
            return;
        }
    }
}

/// Feeds each chunk to the server's screen and every client; records the exit at the end.
async fn pump(
    shell: Arc<Shell>,
    mut rx: mpsc::Receiver<Vec<u8>>,
    waited: tokio::sync::oneshot::Receiver<std::io::Result<portable_pty::ExitStatus>>,
) {
    while let Some(chunk) = rx.recv().await {
        let chunk = Arc::new(chunk);
        let answers = {
            let mut st = lock(&shell.state);
            st.parser.process(&chunk);
            st.subscribers.retain(|s| s.offer(&chunk));
            std::mem::take(&mut st.parser.callbacks_mut().out)
        };
        if !answers.is_empty() {
            // Best effort: a shell that reads no input gets no answer either.
            let _ = shell.input.try_send(answers);
        }
    }
    let code = match waited.await {
        Ok(Ok(status)) => i32::try_from(status.exit_code()).ok(),
        _ => None,
    };
    let mut st = lock(&shell.state);
    st.exited = Some(code);
    // Closing the queues tells each client, once it wrote what was queued.
    st.subscribers.clear();
}

/// Serves a [`crate::protocol::Request::Shell`] connection until the client goes away or the
/// shell ends. Returns the error to send when the shell cannot be opened.
pub async fn attach(
    srv: &Server,
    name: &str,
    (rows, cols): (u16, u16),
    reader: BufReader<tokio::io::Take<OwnedReadHalf>>,
    write: &mut OwnedWriteHalf,
) -> Option<Reply> {
    let t = match srv.terminal(name) {
        Ok(t) => t,
        Err(error) => return Some(Reply::Error { error }),
    };
    let size = pty_size(rows, cols);
    let mut tries = 0;
    let (shell, first, mut rx, lagged) = loop {
        let shell = match srv.shells.open(&t.id, Path::new(&t.dir), size) {
            Ok(s) => s,
            Err(error) => return Some(Reply::Error { error }),
        };
        shell.resize(size);
        match shell.subscribe() {
            Some((first, rx, lagged)) => break (shell, first, rx, lagged),
            // It ended just now: start another, once.
            None if tries == 0 => tries += 1,
            None => {
                return Some(Reply::Error {
                    error: BatonError::failed("the shell exits as soon as it starts"),
                })
            }
        }
    };
    if !write_reply(write, &Reply::Shell { event: first }).await {
        return None;
    }
    let (gone_tx, mut gone_rx) = tokio::sync::oneshot::channel::<Option<BatonError>>();
    let input = tokio::spawn(read_input(shell.clone(), reader, gone_tx));
    loop {
        let chunk = tokio::select! {
            c = rx.recv() => c,
            gone = &mut gone_rx => {
                if let Ok(Some(error)) = gone {
                    write_reply(write, &Reply::Error { error }).await;
                }
                return None;
            }
        };
        let Some(first) = chunk else {
            let code = shell.exit_code();
            write_reply(
                write,
                &Reply::Shell {
                    event: ShellEvent::Exited { code },
                },
            )
            .await;
            input.abort();
            return None;
        };
        let mut batch = first.to_vec();
        while batch.len() < BATCH_BYTES {
            match rx.try_recv() {
                Ok(more) => batch.extend_from_slice(&more),
                Err(_) => break,
            }
        }
        let out = Reply::Shell {
            event: ShellEvent::Output {
                data: B64.encode(&batch),
            },
        };
        if !write_reply(write, &out).await {
            break;
        }
        if lagged.load(Ordering::SeqCst) {
            // What is still queued is older than the screen it gets instead.
            while rx.try_recv().is_ok() {}
            let screen = Reply::Shell {
                event: shell.resync(&lagged),
            };
            if !write_reply(write, &screen).await {
                break;
            }
        }
    }
    input.abort();
    None
}

/// Reads the client's input lines until it goes away (None) or writes something unreadable.
async fn read_input(
    shell: Arc<Shell>,
    mut reader: BufReader<tokio::io::Take<OwnedReadHalf>>,
    gone: tokio::sync::oneshot::Sender<Option<BatonError>>,
) {
    let mut line = String::new();
    let why = loop {
        line.clear();
        reader.get_mut().set_limit(MAX_INPUT_LINE);
        match reader.read_line(&mut line).await {
            Ok(0) => break None,
            Ok(_) => {}
            Err(e) => break Some(BatonError::bad_input(format!("unreadable input: {e}"))),
        }
        if !line.ends_with('\n') && reader.get_ref().limit() == 0 {
            break Some(BatonError::bad_input("a shell input line is too long"));
        }
        match serde_json::from_str::<ShellInput>(&line) {
            Ok(ShellInput::Input(data)) => match B64.decode(data.trim()) {
                Ok(bytes) => {
                    if shell.input.send(bytes).await.is_err() {
                        break None;
                    }
                }
                Err(e) => break Some(BatonError::bad_input(format!("input is not base64: {e}"))),
            },
            Ok(ShellInput::Resize([rows, cols])) => shell.resize(pty_size(rows, cols)),
            Err(e) => break Some(BatonError::bad_input(format!("malformed shell input: {e}"))),
        }
    };
    let _ = gone.send(why);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(output: &[u8]) -> Vec<u8> {
        let mut p =
            vt100::Parser::new_with_callbacks(nonzero(24), nonzero(80), 0, Answers::default());
        p.process(output);
        std::mem::take(&mut p.callbacks_mut().out)
    }

    #[test]
    fn cursor_position_and_device_queries_are_answered() {
        assert_eq!(answers(b"ab\r\ncd\x1b[6n"), b"\x1b[2;3R");
        assert_eq!(answers(b"\x1b[5n"), b"\x1b[0n");
        assert_eq!(answers(b"\x1b[c"), b"\x1b[?62;22c");
        assert_eq!(answers(b"\x1b[>c"), b"\x1b[>1;10;0c");
        assert_eq!(answers(b"\x1b[31mred\x1b[0m"), b"");
    }

    #[test]
    fn binary_garbage_parses_without_panicking() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let garbage: Vec<u8> = (0..200_000)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        let _ = answers(&garbage);
    }

    #[test]
    fn the_screen_event_redraws_the_same_screen() {
        let mut p = vt100::Parser::new(nonzero(5), nonzero(20), 0);
        p.process(b"\x1b[1;32mgreen\x1b[0m plain\r\nsecond line\x1b[?2004h");
        let ShellEvent::Screen {
            rows,
            cols,
            cursor,
            data,
        } = screen_event(p.screen())
        else {
            panic!("not a screen");
        };
        assert_eq!((rows, cols, cursor), (5, 20, [1, 11]));
        let mut q = vt100::Parser::new(nonzero(rows), nonzero(cols), 0);
        q.process(&B64.decode(data).unwrap());
        assert_eq!(q.screen().contents(), p.screen().contents());
        assert_eq!(q.screen().cursor_position(), (1, 11));
        assert!(q.screen().bracketed_paste());
        assert!(q.screen().cell(0, 0).unwrap().bold());
    }
}
