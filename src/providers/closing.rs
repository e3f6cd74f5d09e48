//! A CLI whose turn is over while its process exits: a Claude turn that ended cleanly at its
//! result (completed, nothing of it still to come: the test a warm CLI passes) is answered and
//! recorded at once, its stdin closed, while the CLI winds down (a Python or Node process
//! takes milliseconds to exit, more when it flushes telemetry); so is a cold Codex turn at its
//! `turn.completed` (`codex exec` takes 60-130 ms more to exit; an app-server started for its
//! thread starts once it has exited). The terminal keeps it in its [`ClosingSlot`]; once the
//! turn is over (its input no longer taken, the terminal idle), the terminal's runner waits
//! for the exit there, still holding the turn lock, so the next turn (and a CLI started ahead
//! of it) starts only after: a terminal never has two CLIs at once.
//! Whatever the CLI printed meanwhile goes to the end of the turn's raw stream. See
//! ARCHITECTURE.md ("The send path").
//!
//! A change that needs the terminal quiet (`rm`, `fork`, `rewind`, `rename`) waits for that
//! exit (`server::terminals::settled`), which [`EXIT_GRACE`] bounds; `rm` does not wait for a
//! CLI whose checkout it removes: it stops it ([`ClosingSlot::hurry`]), its turn being
//! recorded already, and neither does `baton interrupt`, asked while no turn runs. `baton
//! export`, which takes no turn lock, waits for it through [`ClosingSlot::exited`] (2.1.197
//! writes the turn to its session file just before it exits). Input that
//! waits longer than [`SLOW_EXIT`] for the exit is told why ([`ClosingSlot::mark_slow`]).

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::Notify;

use super::process::Spawned;
use super::system_file::Written;

/// How long a CLI whose turn ended may take to close its stdout, and then to exit, before it
/// is stopped.
const EXIT_GRACE: Duration = Duration::from_secs(10);

/// How long a CLI whose turn ended exits before the input waiting for it is told why it waits
/// (a CLI exits in milliseconds when all is well: saying nothing then keeps the usual send quiet).
pub const SLOW_EXIT: Duration = Duration::from_secs(1);

/// A CLI whose stdin is closed after its turn's result, until it has exited.
pub struct Closing {
    pub pid: i32,
    child: Spawned,
    /// Its stdin's line writer, kept until it has exited (None: its stdin closed with its
    /// prompt, as `codex exec`'s does).
    lines: Option<UnboundedSender<String>>,
    /// The system text file it was started with, removed once it has exited.
    system_file: Option<Written>,
    /// Told once it has exited (what starts only then: a Codex thread's app-server).
    exited: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Closing {
    /// Closes the CLI's stdin (it exits at EOF) and holds it until [`Closing::wait`].
    pub(crate) fn new(
        child: Spawned,
        lines: UnboundedSender<String>,
        close: &Arc<Notify>,
        system_file: Option<Written>,
    ) -> Closing {
        close.notify_one();
        Closing {
            pid: child.pid,
            child,
            lines: Some(lines),
            system_file,
            exited: None,
        }
    }

    /// Holds a CLI whose stdin closed after its prompt (`codex exec`) until [`Closing::wait`],
    /// which tells `exited` once it has exited.
    pub(crate) fn exiting(
        child: Spawned,
        system_file: Option<Written>,
        exited: tokio::sync::oneshot::Sender<()>,
    ) -> Closing {
        Closing {
            pid: child.pid,
            child,
            lines: None,
            system_file,
            exited: Some(exited),
        }
    }

    /// Waits until the CLI has exited (stopped if it will not, or once `hurry` completes:
    /// [`Spawned::close_out`]) and returns the stdout lines it printed after its result, for
    /// the turn's raw stream: none from a CLI that ended its turn cleanly, but whatever comes
    /// is kept.
    pub async fn wait(self, hurry: impl std::future::Future<Output = ()>) -> Vec<String> {
        let Closing {
            child,
            lines,
            system_file,
            exited,
            ..
        } = self;
        let after = child
            .close_out(EXIT_GRACE, "a CLI whose turn had ended", hurry)
            .await;
        drop(lines);
        drop(system_file);
        if let Some(exited) = exited {
            let _ = exited.send(());
        }
        after
    }
}

/// Where a terminal keeps the CLI of its last turn, and that turn's raw stream file, until the
/// CLI has exited.
#[derive(Default)]
pub struct ClosingSlot {
    cli: Mutex<Option<(Closing, PathBuf)>>,
    /// From [`ClosingSlot::put`] until [`ClosingSlot::wait`] has seen the CLI exit (while the
    /// slot [`ClosingSlot::is_exiting`]).
    exiting: Mutex<Option<Exiting>>,
    /// Told when that ends, for [`ClosingSlot::exited`].
    gone: Notify,
}

/// The last turn's CLI while it exits.
#[derive(Debug, Clone)]
pub struct Exiting {
    pub pid: i32,
    /// The turn it ran, which is recorded already.
    pub turn_id: String,
    /// Whether it has exited for longer than [`SLOW_EXIT`] ([`ClosingSlot::mark_slow`]).
    pub slow: bool,
    /// What [`ClosingSlot::hurry`] notifies, one for each CLI put here: a notification meant
    /// for one never stops the next.
    hurry: Arc<Notify>,
}

impl std::fmt::Debug for ClosingSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pid = self.lock().as_ref().map(|(c, _)| c.pid);
        f.debug_tuple("ClosingSlot").field(&pid).finish()
    }
}

impl ClosingSlot {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(Closing, PathBuf)>> {
        self.cli.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Option<Exiting>> {
        self.exiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `cli`, which ran turn `turn_id` whose raw stream is `raw`, until
    /// [`ClosingSlot::wait`].
    pub fn put(&self, cli: Closing, raw: PathBuf, turn_id: &str) {
        *self.state() = Some(Exiting {
            pid: cli.pid,
            turn_id: turn_id.to_string(),
            slow: false,
            hurry: Arc::new(Notify::new()),
        });
        if let Some((old, raw)) = self.lock().replace((cli, raw)) {
            tokio::spawn(keep_after(old, raw, Arc::new(Notify::new())));
        }
    }

    /// Stops the last turn's CLI if it is still exiting, instead of waiting for it to exit by
    /// itself (its turn is recorded already): for `rm`, which removes the checkout it runs
    /// in, and `baton interrupt`. Returns that CLI.
    pub fn hurry(&self) -> Option<Exiting> {
        let exiting = self.state().clone()?;
        exiting.hurry.notify_one();
        Some(exiting)
    }

    /// Whether the last turn's CLI is still exiting.
    pub fn is_exiting(&self) -> bool {
        self.state().is_some()
    }

    /// The last turn's CLI, once it has exited for longer than [`SLOW_EXIT`].
    pub fn slow(&self) -> Option<Exiting> {
        self.state().as_ref().filter(|e| e.slow).cloned()
    }

    /// Marks the CLI still exiting as slow ([`ClosingSlot::slow`]) and returns it: for the
    /// `slow` call of [`ClosingSlot::wait`], which marks it under a lock of its own (the
    /// server's inputs lock), so that input told under that lock is told once.
    pub fn mark_slow(&self) -> Option<Exiting> {
        let mut state = self.state();
        let exiting = state.as_mut()?;
        exiting.slow = true;
        Some(exiting.clone())
    }

    /// Waits until the last turn's CLI has exited, if one was left exiting; calls `slow` once
    /// if it still runs after [`SLOW_EXIT`].
    pub async fn wait(&self, slow: impl FnOnce()) {
        let closing = self.lock().take();
        let hurry = self.state().as_ref().map(|e| e.hurry.clone());
        if let (Some((cli, raw)), Some(hurry)) = (closing, hurry) {
            let exited = keep_after(cli, raw, hurry);
            tokio::pin!(exited);
            if tokio::time::timeout(SLOW_EXIT, &mut exited).await.is_err() {
                slow();
                exited.await;
            }
        }
        *self.state() = None;
        self.gone.notify_waiters();
    }

    /// Resolves once the last turn's CLI is not exiting any more (at once if it is not): for a
    /// reader of its session file that must not race the CLI's last writes (`baton export`).
    pub async fn exited(&self) {
        loop {
            let gone = self.gone.notified();
            tokio::pin!(gone);
            // Registered before the look, so an end between the two is not missed.
            gone.as_mut().enable();
            if !self.is_exiting() {
                return;
            }
            gone.await;
        }
    }
}

/// Waits until `cli` has exited (stopped once `hurry` is notified); lines it printed after its
/// result (none, from a CLI whose turn ended cleanly) go to the end of the raw stream `raw`,
/// verbatim and synced.
async fn keep_after(cli: Closing, raw: PathBuf, hurry: Arc<Notify>) {
    let pid = cli.pid;
    let after = cli.wait(hurry.notified()).await;
    if after.is_empty() {
        return;
    }
    crate::log_line!(
        "baton server: the CLI (pid {pid}) printed {} lines after its turn's result: kept in {}",
        after.len(),
        raw.display()
    );
    let appended = tokio::task::spawn_blocking(move || {
        let mut file = crate::paths::open_private_append(&raw)?;
        for line in &after {
            file.write_all(line.as_bytes())?;
            file.write_all(b"\n")?;
        }
        file.sync_data()
    })
    .await;
    if !matches!(appended, Ok(Ok(()))) {
        crate::log_line!(
            "baton server: the lines the CLI (pid {pid}) printed after its result could not be kept"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::process::{self, Stdin};

    /// `sh -c script` in `dir`, as a CLI whose turn just ended: its stdin closed.
    fn closing(dir: &std::path::Path, script: &str) -> Closing {
        let (lines, more) = tokio::sync::mpsc::unbounded_channel();
        let close = Arc::new(tokio::sync::Notify::new());
        let child = process::spawn_with(
            std::path::Path::new("/bin/sh"),
            &["-c".into(), script.into()],
            dir,
            None,
            &[],
            Stdin::Open {
                first: Vec::new(),
                more,
                close: close.clone(),
            },
        )
        .unwrap();
        Closing::new(child, lines, &close, None)
    }

    #[tokio::test]
    async fn lines_a_cli_prints_after_its_result_go_to_the_end_of_the_raw_stream() {
        let dir = tempfile::tempdir().unwrap();
        let raw = dir.path().join("turn.jsonl");
        std::fs::write(&raw, "{\"type\":\"result\"}\n").unwrap();
        let slot = ClosingSlot::default();
        let cli = closing(dir.path(), "cat > /dev/null; echo late; echo later");
        slot.put(cli, raw.clone(), "turn");
        assert!(slot.is_exiting());
        slot.wait(|| panic!("exits at once")).await;
        assert!(!slot.is_exiting());
        assert_eq!(
            std::fs::read_to_string(&raw).unwrap(),
            "{\"type\":\"result\"}\nlate\nlater\n"
        );
    }

    #[tokio::test]
    async fn a_reader_waits_for_the_exit_that_the_runner_sees() {
        let dir = tempfile::tempdir().unwrap();
        let slot = ClosingSlot::default();
        slot.exited().await;
        // Exits once told to (its stdin closed: `cat` ends, then it reads the fifo).
        let fifo = dir.path().join("go");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let cli = closing(dir.path(), "cat > /dev/null; read x < go");
        slot.put(cli, dir.path().join("turn.jsonl"), "turn");
        let reader = async {
            slot.exited().await;
            assert!(!slot.is_exiting(), "resolved only once the CLI is gone");
        };
        let runner = async {
            tokio::task::yield_now().await;
            assert!(slot.is_exiting());
            let go = fifo.clone();
            std::thread::spawn(move || std::fs::write(go, "\n").unwrap());
            slot.wait(|| {}).await;
        };
        tokio::time::timeout(EXIT_GRACE, async { tokio::join!(reader, runner) })
            .await
            .expect("the reader is told of the exit");
        slot.exited().await;
    }

    #[tokio::test]
    async fn a_hurried_cli_is_stopped_instead_of_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let slot = ClosingSlot::default();
        // Exits only on a signal, long after its stdin closed.
        let cli = closing(dir.path(), "cat > /dev/null; exec sleep 600");
        slot.put(cli, dir.path().join("turn.jsonl"), "turn");
        assert_eq!(slot.hurry().map(|e| e.turn_id), Some("turn".to_string()));
        tokio::time::timeout(EXIT_GRACE / 2, slot.wait(|| {}))
            .await
            .expect("stopped, not waited for");
        assert!(!slot.is_exiting());
        assert!(slot.hurry().is_none(), "nothing left to stop");
    }

    #[tokio::test]
    async fn a_cli_slow_to_exit_is_told_once_and_stays_slow_until_it_exited() {
        let dir = tempfile::tempdir().unwrap();
        let slot = ClosingSlot::default();
        let cli = closing(dir.path(), "cat > /dev/null; exec sleep 600");
        let pid = cli.pid;
        slot.put(cli, dir.path().join("turn.jsonl"), "turn");
        assert!(slot.slow().is_none());
        let (told, slow) = tokio::sync::oneshot::channel();
        let waited = slot.wait(move || {
            told.send(()).unwrap();
        });
        let watched = async {
            slow.await.unwrap();
            assert!(slot.slow().is_none(), "marked only by the caller");
            assert_eq!(slot.mark_slow().map(|e| e.pid), Some(pid));
            assert_eq!(slot.slow().map(|e| e.pid), Some(pid));
            slot.hurry();
        };
        tokio::join!(waited, watched);
        assert!(slot.slow().is_none() && slot.mark_slow().is_none());
    }
}
