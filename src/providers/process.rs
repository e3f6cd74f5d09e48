//! Provider child processes: finding the binary, spawning it in its own process group with the
//! prompt on stdin, reading its stdout line by line, keeping its stderr tail, and signalling it.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::task::JoinHandle;

/// How much of a child's stderr is kept (the end of it).
const STDERR_TAIL_BYTES: usize = 8 * 1024;
/// After the child exited, how long to wait for a stderr pipe that a grandchild keeps open.
const STDERR_GRACE: Duration = Duration::from_secs(2);
/// After the child exited, how long to keep reading what it left on stdout.
const STDOUT_GRACE: Duration = Duration::from_secs(5);

/// How a provider process ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExitInfo {
    /// Exit code, when it exited normally.
    pub code: Option<i32>,
    /// The signal that killed it, if any.
    pub signal: Option<i32>,
    /// The last ~8 KiB of its stderr.
    pub stderr_tail: String,
    /// The caller interrupted the run (it set the flag before sending SIGINT).
    pub interrupted: bool,
}

impl ExitInfo {
    /// Builds the exit info from a process status.
    pub fn from_status(status: ExitStatus, stderr_tail: String, interrupted: bool) -> ExitInfo {
        ExitInfo {
            code: status.code(),
            signal: status.signal(),
            stderr_tail,
            interrupted,
        }
    }

    /// The run ended because of an interrupt: the caller said so, the process died of SIGINT,
    /// or it exited with the shell convention for it (130).
    pub fn was_interrupted(&self) -> bool {
        self.interrupted || self.signal == Some(Signal::SIGINT as i32) || self.code == Some(130)
    }

    /// `rc 1`, `signal 9 (SIGKILL)`, or `an unknown status`.
    pub fn describe(&self) -> String {
        match (self.code, self.signal) {
            (Some(code), _) => format!("rc {code}"),
            (None, Some(sig)) => match Signal::try_from(sig) {
                Ok(s) => format!("signal {sig} ({})", s.as_str()),
                Err(_) => format!("signal {sig}"),
            },
            (None, None) => "an unknown status".to_string(),
        }
    }

    /// The stderr line that best says what went wrong: the last one mentioning an error, else
    /// the last non-blank one (a backtrace after the error line would otherwise hide it).
    pub fn last_stderr_line(&self) -> Option<&str> {
        let lines = || {
            self.stderr_tail
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
        };
        lines()
            .rfind(|l| l.to_ascii_lowercase().contains("error"))
            .or_else(|| lines().next_back())
    }

    /// `rc 1: Error: something` (or just `rc 1` when stderr was empty).
    pub fn describe_with_stderr(&self) -> String {
        match self.last_stderr_line() {
            Some(line) => format!("{}: {line}", self.describe()),
            None => format!("{} (stderr was empty)", self.describe()),
        }
    }
}

/// Resolves a provider binary. A name containing `/` is used as is (made absolute) when it is an
/// executable file; a bare name is looked up in `path_var` (the process's own `PATH` if None).
pub fn find_bin(bin: impl AsRef<OsStr>, path_var: Option<&OsStr>) -> Option<PathBuf> {
    let bin = bin.as_ref();
    if bin.is_empty() {
        return None;
    }
    if bin.as_bytes().contains(&b'/') {
        let path = Path::new(bin);
        // The child runs in another directory: a relative path must not be re-resolved there.
        return is_executable(path).then(|| std::path::absolute(path).unwrap_or(path.into()));
    }
    let own_path;
    let path_var = match path_var {
        Some(p) => p,
        None => {
            own_path = std::env::var_os("PATH")?;
            own_path.as_os_str()
        }
    };
    std::env::split_paths(path_var)
        // An empty PATH entry means "the current directory": never trust that for a provider.
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(bin))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Sends SIGINT to the process group `pid` leads (every provider child leads its own).
pub fn interrupt(pid: i32) -> std::io::Result<()> {
    signal_group(pid, Signal::SIGINT)
}

/// Sends SIGKILL to the process group `pid` leads (a CLI left by a crashed server that would
/// not stop).
pub fn kill(pid: i32) -> std::io::Result<()> {
    signal_group(pid, Signal::SIGKILL)
}

/// When process `pid` started, in clock ticks since boot (`/proc/PID/stat` field 22), and
/// whether it still runs (a zombie does not): what tells it from a later process that got the
/// same pid. None when there is no such process.
pub fn start_time(pid: i32) -> Option<(u64, bool)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let state = fields.first()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((start, *state != "Z" && *state != "X"))
}

/// Sends SIGTERM to the process group `pid` leads (server shutdown).
pub fn terminate(pid: i32) -> std::io::Result<()> {
    signal_group(pid, Signal::SIGTERM)
}

fn signal_group(pid: i32, signal: Signal) -> std::io::Result<()> {
    // killpg(0) would signal baton's own group, and a negative id is not a group.
    if pid <= 1 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "refusing to send {} to process group {pid}",
                signal.as_str()
            ),
        ));
    }
    killpg(Pid::from_raw(pid), signal).map_err(std::io::Error::from)
}

/// A running provider child: its pid (= process group id), its stdout lines, and the tasks that
/// feed its stdin, drain its stderr and wait for its exit.
pub struct Spawned {
    pub pid: i32,
    stdout: BufReader<ChildStdout>,
    /// Bytes of a line being read; kept across calls so a cancelled read loses nothing.
    line: Vec<u8>,
    exit_task: JoinHandle<std::io::Result<ExitStatus>>,
    status: Option<ExitStatus>,
    /// When the child exited, stdout is read only until this deadline (a grandchild may hold it).
    drain_deadline: Option<tokio::time::Instant>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    stderr_task: JoinHandle<()>,
    stdin_task: JoinHandle<std::io::Result<()>>,
}

/// The machine's boot id, read once (None where `/proc` does not say it). A turn's start
/// keeps it: recovery trusts a missing unsynced line only within the boot that wrote the
/// start (`server::recover`).
pub fn boot_id() -> Option<&'static str> {
    static BOOT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    BOOT.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    })
    .as_deref()
}

/// Starts `bin` with `args` (a list, never a shell) in `cwd`, in its own process group, and
/// writes `prompt` to its stdin then closes it. `path_var`, when given, becomes the child's PATH.
pub fn spawn(
    bin: &Path,
    args: &[OsString],
    cwd: &Path,
    path_var: Option<&OsStr>,
    env: &[(String, String)],
    prompt: Vec<u8>,
) -> std::io::Result<Spawned> {
    spawn_with(bin, args, cwd, path_var, env, Stdin::Once(prompt))
}

/// What a child reads on stdin.
pub enum Stdin {
    /// Nothing until `go` is sent, then `then`; EOF at once if `go` is dropped unsent. The
    /// CLI starts while its turn's start is being journalled, and reads its prompt only once
    /// that is on disk.
    Gated {
        go: tokio::sync::oneshot::Receiver<()>,
        then: Box<Stdin>,
    },
    /// These bytes, then EOF.
    Once(Vec<u8>),
    /// These bytes, then each line sent on `more`, until `close` is notified (or every sender
    /// is gone): a CLI that takes further input while it runs (Claude's stream-json input).
    Open {
        first: Vec<u8>,
        more: tokio::sync::mpsc::UnboundedReceiver<String>,
        close: Arc<tokio::sync::Notify>,
    },
}

/// Like [`spawn`], with stdin as `stdin` says.
pub fn spawn_with(
    bin: &Path,
    args: &[OsString],
    cwd: &Path,
    path_var: Option<&OsStr>,
    env: &[(String, String)],
    stdin: Stdin,
) -> std::io::Result<Spawned> {
    let mut cmd = tokio::process::Command::new(bin);
    cmd.args(args)
        .current_dir(cwd)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // A turn outlives a dropped future: the caller interrupts or terminates it by pid.
        .kill_on_drop(false);
    if let Some(path) = path_var {
        cmd.env("PATH", path);
    }
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    // The CLI is interrupted when the server dies (however it dies), so it never goes on
    // writing its session unwatched; the next server start stops whatever is left (see
    // `server::recover`). The server's warden does that for the CLI's whole group (the tools
    // it started too); the child also sets a death signal itself, so a server and warden
    // killed together (`kill -9` of both) do not leave it running. That costs a `fork` where
    // `posix_spawn` would do (code runs between fork and exec). The signal follows the thread
    // that spawns: CLIs are spawned from the runtime's workers, which live as long as it.
    let warden = super::warden::guard();
    death_signal(&mut cmd);
    let mut child = cmd.spawn()?;
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .ok_or_else(|| std::io::Error::other("the child exited before its pid was read"))?;
    // Told before this returns, so before the CLI is given its prompt (a gated stdin).
    if let Some(w) = warden {
        if !w.watch(pid) {
            crate::log_line!("baton server: no warden watches pid {pid}");
        }
    }
    let (Some(pipe), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(std::io::Error::other("the child's pipes were not set up"));
    };
    // Its own task: a child that prints a lot before reading a large prompt must not deadlock.
    let stdin_task = tokio::spawn(feed_stdin(pipe, stdin));
    let stderr_tail = Arc::new(Mutex::new(Vec::new()));
    let stderr_task = tokio::spawn(drain_stderr(stderr, Arc::clone(&stderr_tail)));
    let exit_task = tokio::spawn(async move {
        let status = child.wait().await;
        // Reaped: its pid (the group's id) may be reused from now on.
        if let (Some(w), Ok(_)) = (warden, &status) {
            w.release(pid);
        }
        status
    });
    Ok(Spawned {
        pid,
        stdout: BufReader::new(stdout),
        line: Vec::new(),
        exit_task,
        status: None,
        drain_deadline: None,
        stderr_tail,
        stderr_task,
        stdin_task,
    })
}

/// Makes `cmd`'s child set its own death signal (and SIGINT, SIGTERM back to their defaults).
fn death_signal(cmd: &mut tokio::process::Command) {
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs between fork and exec and only calls sigaction, prctl, getppid
    // and kill, which are async-signal-safe. A server started with SIGINT ignored (`nohup`,
    // `cmd &` in a script) would otherwise pass that on, and interrupting the CLI would
    // silently do nothing.
    unsafe {
        cmd.pre_exec(move || {
            for sig in [Signal::SIGINT, Signal::SIGTERM] {
                nix::sys::signal::signal(sig, nix::sys::signal::SigHandler::SigDfl)
                    .map_err(std::io::Error::from)?;
            }
            nix::sys::prctl::set_pdeathsig(Signal::SIGINT).map_err(std::io::Error::from)?;
            // The server died between fork and prctl: nobody would ever signal this child.
            if nix::unistd::getppid() != parent {
                return Err(std::io::Error::other("the baton server is gone"));
            }
            Ok(())
        });
    }
}

async fn feed_stdin(pipe: ChildStdin, stdin: Stdin) -> std::io::Result<()> {
    match stdin {
        Stdin::Once(prompt) => write_prompt(pipe, prompt).await,
        Stdin::Open { first, more, close } => write_lines(pipe, first, more, close).await,
        Stdin::Gated { go, then } => match go.await {
            Ok(()) => Box::pin(feed_stdin(pipe, *then)).await,
            // Dropping the pipe closes it: the CLI reads no prompt and exits.
            Err(_) => Ok(()),
        },
    }
}

async fn write_prompt(mut stdin: ChildStdin, prompt: Vec<u8>) -> std::io::Result<()> {
    let written = stdin.write_all(&prompt).await;
    let closed = stdin.shutdown().await;
    // Dropping the handle closes the pipe: the CLI reads the prompt until EOF.
    drop(stdin);
    match written.and(closed) {
        // The child exited without reading it all; its exit status tells the story.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes `first`, then every line of `more` as it comes, until `close`; then EOF.
async fn write_lines(
    mut stdin: ChildStdin,
    first: Vec<u8>,
    mut more: tokio::sync::mpsc::UnboundedReceiver<String>,
    close: Arc<tokio::sync::Notify>,
) -> std::io::Result<()> {
    let mut written = stdin.write_all(&first).await;
    while written.is_ok() {
        tokio::select! {
            biased;
            line = more.recv() => match line {
                Some(line) => written = stdin.write_all(line.as_bytes()).await,
                None => break,
            },
            _ = close.notified() => break,
        }
    }
    let closed = stdin.shutdown().await;
    drop(stdin);
    match written.and(closed) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Adds `chunk` to `tail`, keeping about its last `max` bytes (false: the lock is poisoned).
pub(super) fn keep_tail(tail: &Mutex<Vec<u8>>, chunk: &[u8], max: usize) -> bool {
    let Ok(mut kept) = tail.lock() else {
        return false;
    };
    kept.extend_from_slice(chunk);
    if kept.len() > 2 * max {
        let cut = kept.len() - max;
        kept.drain(..cut);
    }
    true
}

async fn drain_stderr(mut stderr: ChildStderr, tail: Arc<Mutex<Vec<u8>>>) {
    let mut buf = vec![0u8; 8192];
    loop {
        match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) if !keep_tail(&tail, &buf[..n], STDERR_TAIL_BYTES) => break,
            Ok(_) => {}
        }
    }
}

impl Spawned {
    /// Whether the child has exited (and was reaped).
    pub fn has_exited(&self) -> bool {
        self.status.is_some() || self.exit_task.is_finished()
    }

    /// The next stdout line without its line ending (lossy UTF-8), or None at end of stream.
    /// Once the child has exited, what is left in the pipe is read for a short grace period
    /// only, so a grandchild holding stdout open cannot hang the turn.
    pub async fn next_line(&mut self) -> std::io::Result<Option<String>> {
        loop {
            if let Some(deadline) = self.drain_deadline {
                let read = self.stdout.read_until(b'\n', &mut self.line);
                return match tokio::time::timeout_at(deadline, read).await {
                    Ok(read) => self.take_line(read?),
                    Err(_) => Ok(None),
                };
            }
            tokio::select! {
                read = self.stdout.read_until(b'\n', &mut self.line) => return self.take_line(read?),
                status = &mut self.exit_task => {
                    self.status = Some(status.map_err(std::io::Error::other)??);
                    self.drain_deadline = Some(tokio::time::Instant::now() + STDOUT_GRACE);
                }
            }
        }
    }

    fn take_line(&mut self, read: usize) -> std::io::Result<Option<String>> {
        if read == 0 && self.line.is_empty() {
            return Ok(None);
        }
        let mut line = std::mem::take(&mut self.line);
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        Ok(Some(String::from_utf8_lossy(&line).into_owned()))
    }

    /// Waits for a child whose stdin was closed to exit, returning the stdout lines it still
    /// printed: terminated (its group) when its stdout has not closed within `grace`, or as
    /// soon as `hurry` completes, and killed when it has not exited `grace` after that. `what`
    /// names it in the server's log.
    pub async fn close_out(
        mut self,
        grace: Duration,
        what: &str,
        hurry: impl std::future::Future<Output = ()>,
    ) -> Vec<String> {
        let pid = self.pid;
        let mut after = Vec::new();
        let drained = tokio::time::timeout(grace, async {
            tokio::select! {
                () = async {
                    while let Ok(Some(line)) = self.next_line().await {
                        after.push(line);
                    }
                } => true,
                () = hurry => false,
            }
        })
        .await;
        let why = match drained {
            Ok(true) => None,
            Ok(false) => Some("is stopped before it exited"),
            Err(_) => Some("did not exit: stopping it"),
        };
        if let Some(why) = why {
            crate::log_line!("baton server: {what} (pid {pid}) {why}");
            let _ = terminate(pid);
        }
        if tokio::time::timeout(grace, self.wait(|| false))
            .await
            .is_err()
        {
            let _ = kill(pid);
        }
        after
    }

    /// Waits for the child to exit and collects its stderr tail, giving a grandchild that still
    /// holds the pipe a short grace period. `interrupted` is whether the caller interrupted it.
    pub async fn wait(self, interrupted: impl FnOnce() -> bool) -> std::io::Result<ExitInfo> {
        let Spawned {
            status,
            exit_task,
            stderr_tail,
            mut stderr_task,
            stdin_task,
            ..
        } = self;
        let status = match status {
            Some(status) => status,
            None => exit_task.await.map_err(std::io::Error::other)??,
        };
        if tokio::time::timeout(STDERR_GRACE, &mut stderr_task)
            .await
            .is_err()
        {
            stderr_task.abort();
        }
        stdin_task.abort();
        let tail = match stderr_tail.lock() {
            Ok(kept) => tail_string(&kept),
            Err(_) => String::new(),
        };
        Ok(ExitInfo::from_status(status, tail, interrupted()))
    }
}

fn tail_string(bytes: &[u8]) -> String {
    let start = bytes.len().saturating_sub(STDERR_TAIL_BYTES);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// The last `max` bytes of a file as text, starting at a line boundary (the whole file when it
/// is smaller). Session files grow to many megabytes; what adapters need sits at the end.
pub fn read_file_tail(path: &Path, max: u64) -> std::io::Result<(String, bool)> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(max);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    if start > 0 {
        let first_newline = bytes
            .iter()
            .position(|b| *b == b'\n')
            .map_or(bytes.len(), |p| p + 1);
        bytes.drain(..first_newline);
    }
    // Valid text (nearly always) is kept as read, not copied.
    let text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok((text, start == 0))
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
