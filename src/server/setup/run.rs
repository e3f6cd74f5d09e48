//! Runs a set-up command: `sh -c` in the new worktree, in a process group of its own, its
//! stdout and stderr into `setup.log` (0600), stopped (the whole group) after its timeout.

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use super::super::state::Server;
use crate::protocol::views::SetupState;

/// How much of the output `log` shows.
const TAIL: u64 = 16 * 1024;

pub struct Job {
    pub tid: String,
    pub dir: PathBuf,
    pub command: String,
    pub timeout: Duration,
    pub env: Vec<(String, String)>,
    pub log: PathBuf,
}

pub async fn run(srv: Arc<Server>, job: Job) {
    let (state, code, note) = match started(&job) {
        Err(e) => (
            SetupState::Failed,
            None,
            Some(format!("the set-up `{}` could not start: {e}", job.command)),
        ),
        Ok(mut child) => match stoppable(&srv, &job.tid, &mut child, job.timeout).await {
            // `rm`: the worktree it runs in goes.
            None => {
                stop(&mut child).await;
                let note = format!(
                    "the set-up `{}` was stopped: the terminal was removed",
                    job.command
                );
                (SetupState::Interrupted, None, Some(note))
            }
            Some(Err(_)) => {
                stop(&mut child).await;
                let note = format!(
                    "the set-up `{}` took longer than {} s and was stopped (raise setup_timeout_secs)",
                    job.command,
                    job.timeout.as_secs()
                );
                (SetupState::TimedOut, None, Some(note))
            }
            Some(Ok(exit)) => exited(&job, exit),
        },
    };
    crate::log_line!(
        "baton server: set-up of {} ended: {state:?} {code:?}",
        job.tid
    );
    super::finished(&srv, &job.tid, state, code, note);
}

/// How a set-up that ended by itself went: its state, exit code and what to say.
fn exited(
    job: &Job,
    exit: std::io::Result<std::process::ExitStatus>,
) -> (SetupState, Option<i32>, Option<String>) {
    match exit {
        Ok(status) if status.success() => (SetupState::Done, status.code(), None),
        Ok(status) => {
            let how = match status.code() {
                Some(c) => format!("exit code {c}"),
                None => "killed by a signal".to_string(),
            };
            let note = format!(
                "the set-up `{}` failed ({how}): its output is in `baton log`",
                job.command
            );
            (SetupState::Failed, status.code(), Some(note))
        }
        Err(e) => {
            let note = format!("the set-up `{}`: {e}", job.command);
            (SetupState::Failed, None, Some(note))
        }
    }
}

/// [`waited`], unless `rm` says to stop first (None).
async fn stoppable(
    srv: &Server,
    tid: &str,
    child: &mut tokio::process::Child,
    timeout: Duration,
) -> Option<Result<std::io::Result<std::process::ExitStatus>, tokio::time::error::Elapsed>> {
    let rt = srv.runtime(tid);
    tokio::select! {
        ended = waited(child, timeout) => Some(ended),
        () = rt.setup_stop.notified() => None,
    }
}

/// Waits for the command within `timeout`, its group told to the server's warden meanwhile:
/// a server that dies stops it (SIGINT to the group), as it stops a CLI.
pub(in crate::server) async fn waited(
    child: &mut tokio::process::Child,
    timeout: Duration,
) -> Result<std::io::Result<std::process::ExitStatus>, tokio::time::error::Elapsed> {
    let group = child.id().and_then(|p| i32::try_from(p).ok());
    let warden = crate::providers::warden::guard();
    if let (Some(w), Some(g)) = (warden, group) {
        w.watch(g);
    }
    let ended = tokio::time::timeout(timeout, child.wait()).await;
    if let (Some(w), Some(g), Ok(_)) = (warden, group, &ended) {
        w.release(g);
    }
    ended
}

fn started(job: &Job) -> std::io::Result<tokio::process::Child> {
    spawn(&job.dir, &job.command, &job.env, &job.log)
}

/// `sh -c command` in `dir`, in a process group of its own, its output into `log` (0600,
/// emptied first). The integration lane's check runs the same way.
pub(in crate::server) fn spawn(
    dir: &Path,
    command: &str,
    env: &[(String, String)],
    log: &Path,
) -> std::io::Result<tokio::process::Child> {
    let log = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(log)?;
    let mut cmd = tokio::process::Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .process_group(0)
        .kill_on_drop(false);
    // SAFETY: the closure runs between fork and exec and only calls sigaction, which is
    // async-signal-safe. A server started with SIGINT ignored (`nohup`, `cmd &` in a script)
    // would pass that on, and the warden's SIGINT would leave the set-up running.
    unsafe {
        cmd.pre_exec(|| {
            use nix::sys::signal::{signal, SigHandler, Signal};
            for sig in [Signal::SIGINT, Signal::SIGTERM] {
                signal(sig, SigHandler::SigDfl).map_err(std::io::Error::from)?;
            }
            Ok(())
        });
    }
    cmd.spawn()
}

/// Kills the command's whole group (what it started too) and reaps it.
pub(in crate::server) async fn stop(child: &mut tokio::process::Child) {
    let group = child.id().and_then(|p| i32::try_from(p).ok());
    if let Some(g) = group {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(g),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = child.wait().await;
    if let (Some(w), Some(g)) = (crate::providers::warden::guard(), group) {
        w.release(g);
    }
}

/// The last [`TAIL`] bytes of the output.
pub(in crate::server) fn tail(log: &Path) -> Option<String> {
    let mut f = fs::File::open(log).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
