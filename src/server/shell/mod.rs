//! Shells: each terminal has a real shell in its checkout, owned by the server (as in tmux,
//! shells outlive the clients that show them), started by the first [`Request::Shell`] for it.
//!
//! Per shell: the PTY master, one `std::thread` blocked on reads that forwards chunks over a
//! bounded channel (`blocking_send`, so a flood of output waits for the server instead of
//! piling up), one `std::thread` that writes input, and a task (the pump) that feeds each chunk
//! to the server's own `vt100` screen (with the scrollback) and tells the attached clients'
//! tasks. The server's screen answers the queries programs send (cursor position `ESC[6n`,
//! device status and attributes), attached or not, so nothing hangs waiting.
//!
//! Clients are sent frames of that screen (see [`frames`]), as tmux does, not the shell's
//! bytes: a client's task wakes when the screen changed, sends what differs from what the
//! client holds, and waits at least [`FRAME`] before the next. So a flood of output costs one
//! parse (the server's) however many clients watch, and a slow client never slows the shell,
//! the server or other clients: it just gets fewer, larger frames.
//!
//! Size: one PTY has one size. The latest client to resize or to type sets it (tmux's
//! `window-size latest`); the others are sent the screen at that size and draw it clipped or
//! padded.
//!
//! [`Request::Shell`]: crate::protocol::Request::Shell

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use portable_pty::{native_pty_system, CommandBuilder, MasterPty, PtySize};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{mpsc, watch};
use tokio::time::{Duration, Instant};

mod frames;
mod skim;
use frames::{nonzero, Frame, Mirror};

use super::wire::write_reply;
use crate::error::BatonError;
use crate::protocol::{Reply, ShellEvent, ShellInput};
use crate::store::TerminalRow;

/// Bytes read from the PTY at a time.
const READ_CHUNK: usize = 16 * 1024;
/// Chunks the PTY reader may be ahead of the pump (at most 16 MB: a flood piles up here
/// while a batch is parsed, and the next batch takes it all).
const PTY_QUEUE: usize = 1024;
/// Output parsed at once, at most (queued chunks are joined up to this).
const BATCH: usize = 4 << 20;
/// The shortest time between two frames to one client (at most 125 a second).
const FRAME: Duration = Duration::from_millis(8);
/// Rows of scrollback the server keeps per shell (copy mode reads them).
const SCROLLBACK: usize = 2000;
/// Input writes waiting for the shell to read them.
const INPUT_QUEUE: usize = 256;
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
    fn open(
        &self,
        tid: &str,
        dir: &Path,
        size: PtySize,
        env: &[(String, String)],
    ) -> Result<Arc<Shell>, BatonError> {
        let mut map = lock(&self.map);
        if let Some(s) = map.get(tid) {
            if lock(&s.state).exited.is_none() {
                return Ok(s.clone());
            }
        }
        let shell = Shell::spawn(dir, size, env)?;
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
    /// Bumped whenever the screen changed or the shell ended; clients' tasks wait on it.
    changed: watch::Sender<u64>,
    /// To the thread that writes to the PTY.
    input: mpsc::Sender<Vec<u8>>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    /// The shell's process group (it leads its own session).
    pid: Option<u32>,
}

struct ShellState {
    parser: vt100::Parser<Answers>,
    /// Set once the shell ended, with its exit code.
    exited: Option<Option<i32>>,
}

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

fn pty_error(what: &str, e: impl std::fmt::Display) -> BatonError {
    BatonError::failed(format!("cannot {what} the shell: {e}"))
}

impl Shell {
    /// Starts `$SHELL` (else `/bin/sh`) in `dir` on a new PTY, with its reader, writer and pump.
    fn spawn(
        dir: &Path,
        size: PtySize,
        env: &[(String, String)],
    ) -> Result<Arc<Shell>, BatonError> {
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
        for (k, v) in env {
            cmd.env(k, v);
        }
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
            SCROLLBACK,
            Answers::default(),
        );
        let shell = Arc::new(Shell {
            state: Mutex::new(ShellState {
                parser,
                exited: None,
            }),
            changed: watch::Sender::new(0),
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
        drop(st);
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// The frame that brings `mirror` to the screen as it is (None: nothing changed), and
    /// the exit code once the shell ended (`Some(None)`: it ended without one).
    fn frame(&self, mirror: &mut Mirror) -> (Option<Frame>, Option<Option<i32>>) {
        let st = lock(&self.state);
        (mirror.frame(st.parser.screen()), st.exited)
    }

    fn history(&self) -> ShellEvent {
        let st = lock(&self.state);
        let screen = st.parser.screen();
        let (rows, cols) = screen.size();
        ShellEvent::History {
            rows: rows.get(),
            cols: cols.get(),
            data: B64.encode(frames::history(screen)),
        }
    }
}

/// The line a frame is sent as.
fn frame_event(frame: Frame) -> ShellEvent {
    match frame {
        Frame::Screen {
            rows,
            cols,
            cursor: (r, c),
            bytes,
        } => ShellEvent::Screen {
            rows,
            cols,
            cursor: [r, c],
            data: B64.encode(bytes),
        },
        Frame::Diff(bytes) => ShellEvent::Output {
            data: B64.encode(bytes),
        },
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

/// Feeds each chunk to the server's screen and wakes the clients' tasks; records the exit at
/// the end.
async fn pump(
    shell: Arc<Shell>,
    mut rx: mpsc::Receiver<Vec<u8>>,
    waited: tokio::sync::oneshot::Receiver<std::io::Result<portable_pty::ExitStatus>>,
) {
    while let Some(mut batch) = rx.recv().await {
        // Whatever else is queued goes in the same batch: a flood is parsed in large runs.
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(more) => batch.extend_from_slice(&more),
                Err(_) => break,
            }
        }
        let answers = {
            let mut st = lock(&shell.state);
            skim::process(&mut st.parser, &batch);
            std::mem::take(&mut st.parser.callbacks_mut().out)
        };
        shell.changed.send_modify(|n| *n = n.wrapping_add(1));
        if !answers.is_empty() {
            // Best effort: a shell that reads no input gets no answer either.
            let _ = shell.input.try_send(answers);
        }
    }
    let code = match waited.await {
        Ok(Ok(status)) => i32::try_from(status.exit_code()).ok(),
        _ => None,
    };
    lock(&shell.state).exited = Some(code);
    shell.changed.send_modify(|n| *n = n.wrapping_add(1));
}

/// What the client's input task asks of the connection's writer.
enum Wanted {
    /// The scrollback and screen ([`ShellEvent::History`]).
    History,
    /// The connection ends, with the error to send if the client wrote something unreadable.
    Gone(Option<BatonError>),
}

/// Serves a [`crate::protocol::Request::Shell`] connection until the client goes away or the
/// shell ends. Returns the error to send when the shell cannot be opened.
pub async fn attach(
    shells: &Shells,
    t: &TerminalRow,
    env: &[(String, String)],
    (rows, cols): (u16, u16),
    reader: BufReader<tokio::io::Take<OwnedReadHalf>>,
    write: &mut OwnedWriteHalf,
) -> Option<Reply> {
    let size = pty_size(rows, cols);
    let mut tries = 0;
    let mut mirror = Mirror::new();
    let (shell, first) = loop {
        let shell = match shells.open(&t.id, Path::new(&t.dir), size, env) {
            Ok(s) => s,
            Err(error) => return Some(Reply::Error { error }),
        };
        shell.resize(size);
        match shell.frame(&mut mirror) {
            (Some(first), None) => break (shell, first),
            // It ended just now: start another, once.
            _ if tries == 0 => {
                tries += 1;
                mirror = Mirror::new();
            }
            _ => {
                return Some(Reply::Error {
                    error: BatonError::failed("the shell exits as soon as it starts"),
                })
            }
        }
    };
    let mut changed = shell.changed.subscribe();
    changed.mark_unchanged();
    if !write_reply(
        write,
        &Reply::Shell {
            event: frame_event(first),
        },
    )
    .await
    {
        return None;
    }
    let (wanted_tx, mut wanted) = mpsc::channel::<Wanted>(4);
    let input = tokio::spawn(read_input(shell.clone(), reader, size, wanted_tx));
    let mut last = Instant::now();
    loop {
        let event = tokio::select! {
            woke = changed.changed() => {
                if woke.is_err() {
                    break; // the shell is gone (the server is stopping)
                }
                // Frames are paced: whatever changes meanwhile goes in the next one.
                tokio::time::sleep_until(last + FRAME).await;
                changed.mark_unchanged();
                match shell.frame(&mut mirror) {
                    (frame, None) => match frame {
                        Some(frame) => frame_event(frame),
                        None => continue,
                    },
                    (frame, Some(code)) => {
                        // The last of the screen first, then the exit.
                        if let Some(frame) = frame {
                            let last = Reply::Shell { event: frame_event(frame) };
                            write_reply(write, &last).await;
                        }
                        let exited = Reply::Shell { event: ShellEvent::Exited { code } };
                        write_reply(write, &exited).await;
                        break;
                    }
                }
            }
            w = wanted.recv() => match w {
                Some(Wanted::History) => shell.history(),
                Some(Wanted::Gone(Some(error))) => {
                    write_reply(write, &Reply::Error { error }).await;
                    break;
                }
                Some(Wanted::Gone(None)) | None => break,
            },
        };
        if !write_reply(write, &Reply::Shell { event }).await {
            break;
        }
        last = Instant::now();
    }
    input.abort();
    None
}

/// Reads the client's input lines until it goes away or writes something unreadable.
/// `size` is what this client asked for; typing makes it the shell's size again.
async fn read_input(
    shell: Arc<Shell>,
    mut reader: BufReader<tokio::io::Take<OwnedReadHalf>>,
    mut size: PtySize,
    wanted: mpsc::Sender<Wanted>,
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
                    shell.resize(size);
                    if shell.input.send(bytes).await.is_err() {
                        break None;
                    }
                }
                Err(e) => break Some(BatonError::bad_input(format!("input is not base64: {e}"))),
            },
            Ok(ShellInput::Resize([rows, cols])) => {
                size = pty_size(rows, cols);
                shell.resize(size);
            }
            Ok(ShellInput::History) => {
                if wanted.send(Wanted::History).await.is_err() {
                    break None;
                }
            }
            Err(e) => break Some(BatonError::bad_input(format!("malformed shell input: {e}"))),
        }
    };
    let _ = wanted.send(Wanted::Gone(why)).await;
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
