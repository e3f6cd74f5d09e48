//! The transport to another host: the system's `ssh`, run as a child with piped stdin and
//! stdout, joined on the far side to that host's server by `baton server bridge` (see
//! ARCHITECTURE.md, "Other hosts").
//!
//! Why a plain `std::process` child and not the `openssh` crate: the client is synchronous std
//! code (a `UnixStream` and blocking reads), and `openssh` would bring a tokio runtime into
//! every client for one pipe; its default `KnownHosts::Add` accepts unknown host keys (we leave
//! host-key policy to the user's ssh configuration and never pass such options); and the one
//! multiplexed connection per host it offers is what `ControlMaster` gives through ssh's own
//! options here. The command line is built by [`ssh_args`] from words (never a local shell
//! string); the remote command is necessarily one string for the remote shell, built from words
//! quoted by `shlex` ([`remote_command`]). Prompts never go in any argv: they travel inside the
//! channel as JSON lines, as on the local socket.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use super::{Host, HostError};
use crate::protocol::{Hello, PROTOCOL_VERSION};

/// Longest control socket path ssh can bind: `sun_path` is 104 bytes on the BSDs and macOS
/// (108 on Linux), and ssh adds a 17-byte random suffix while it creates the socket.
const SOCKET_PATH_MAX: usize = 104;
/// What `%C` expands to (a SHA-1 in hex) plus ssh's temporary suffix (`.` and 16 characters).
const CONTROL_NAME_LEN: usize = 40 + 17;
/// Seconds a master connection stays up after its last session ends.
const CONTROL_PERSIST_SECS: u32 = 60;
/// A link that went silent (a sleeping laptop, a dropped route: no reset ever comes) is given
/// up after this many seconds times [`SERVER_ALIVE_COUNT`], so the multiplexer shows the host
/// offline and reconnects instead of waiting on a dead channel for TCP's quarter of an hour.
const SERVER_ALIVE_SECS: u32 = 10;
const SERVER_ALIVE_COUNT: u32 = 3;

/// Where the control sockets of the master connections live (`<data>/ssh`), or `None` when
/// a socket there would not fit a Unix socket path (then each command connects on its own).
pub fn control_dir(data_root: &Path) -> Option<PathBuf> {
    let dir = data_root.join("ssh");
    let len = dir.as_os_str().len() + 1 + CONTROL_NAME_LEN;
    (len <= SOCKET_PATH_MAX).then_some(dir)
}

/// The arguments of `ssh` reaching `target` and running `remote` there: batch mode (never a
/// password prompt), keepalives that end a silent link, one master connection per host when
/// `control` is given, no TTY. No host-key option: that policy is the user's ssh
/// configuration.
pub fn ssh_args(control: Option<&Path>, target: &str, remote: &str) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "-o".into(),
        "BatchMode=yes".into(),
        "-o".into(),
        format!("ServerAliveInterval={SERVER_ALIVE_SECS}").into(),
        "-o".into(),
        format!("ServerAliveCountMax={SERVER_ALIVE_COUNT}").into(),
    ];
    if let Some(dir) = control {
        let mut path = OsString::from("ControlPath=");
        path.push(dir.join("%C"));
        args.extend([
            "-o".into(),
            "ControlMaster=auto".into(),
            "-o".into(),
            path,
            "-o".into(),
            format!("ControlPersist={CONTROL_PERSIST_SECS}").into(),
        ]);
    }
    args.extend(["-T".into(), target.into(), "--".into(), remote.into()]);
    args
}

/// The command the remote shell runs: `baton server bridge [--data-dir D]`, each word quoted.
pub fn remote_command(baton: &str, data_dir: Option<&str>) -> Result<String, HostError> {
    let mut words = vec![baton, "server", "bridge"];
    if let Some(d) = data_dir {
        words.extend(["--data-dir", d]);
    }
    shlex::try_join(words).map_err(|_| HostError::Unquotable {
        word: baton.to_string(),
    })
}

/// Why ssh ended before the bridge said hello.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// The remote shell found no baton at that path (exit 127 or 126).
    NoBaton,
    /// ssh itself failed: unreachable, refused, keys or host key (exit 255).
    Unreachable(String),
    /// Something else ended it (its last line on stderr).
    Other(String),
}

/// [`Ended`] from ssh's exit code and stderr. Pure.
pub fn judge_end(code: Option<i32>, stderr: &str) -> Ended {
    let last = stderr
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no message")
        .to_string();
    match code {
        Some(127 | 126) => Ended::NoBaton,
        _ if stderr.contains("command not found") => Ended::NoBaton,
        Some(255) => Ended::Unreachable(last),
        Some(c) => Ended::Other(format!("exit {c}: {last}")),
        None => Ended::Other(format!("ssh was killed by a signal: {last}")),
    }
}

/// One ssh channel to a host's bridge: Read is what the server behind it answers, Write what
/// it is asked.
pub struct SshConn {
    host: String,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Disconnected once ssh's stderr has been read to its end.
    stderr_done: mpsc::Receiver<()>,
    hello: Option<Hello>,
}

/// How long an ended ssh's stderr is waited for.
const STDERR_WAIT: Duration = Duration::from_secs(2);
/// How much of ssh's stderr is kept for an error message.
const STDERR_KEPT: usize = 16 * 1024;

impl SshConn {
    /// Starts ssh to `host` and reads the bridge's hello, refusing another protocol.
    pub fn open(host: &Host, data_root: &Path) -> Result<SshConn, HostError> {
        let mut conn = SshConn::start(host, data_root)?;
        conn.read_hello(host)?;
        Ok(conn)
    }

    /// Starts ssh to `host`; [`SshConn::read_hello`] must come next.
    pub fn start(host: &Host, data_root: &Path) -> Result<SshConn, HostError> {
        let control = control_dir(data_root);
        if let Some(dir) = &control {
            crate::paths::ensure_private_dir(dir).map_err(|e| HostError::Local {
                what: format!("cannot create {}: {e}", dir.display()),
            })?;
        }
        let remote = remote_command(host.baton(), host.data_dir.as_deref())?;
        let mut cmd = Command::new("ssh");
        cmd.args(ssh_args(control.as_deref(), &host.ssh, &remote))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group: Ctrl-c at the terminal is this command's to handle (it asks
        // the remote server to interrupt the turn), not a signal that kills the channel.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => HostError::NoSsh,
            _ => HostError::Local {
                what: format!("cannot start ssh: {e}"),
            },
        })?;
        let (Some(stdin), Some(stdout), Some(err)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(HostError::Local {
                what: "ssh started without its pipes".into(),
            });
        };
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&stderr);
        let (done, stderr_done) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            drain(err, &kept);
            drop(done);
        });
        Ok(SshConn {
            host: host.name.clone(),
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            stderr,
            stderr_done,
            hello: None,
        })
    }

    /// Its input, for a writer on another thread while reads stay here (a shell's channel);
    /// dropping it ends the channel's input, and the bridge then ends the channel.
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// The ssh child's pid, which is also its process group's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Reads the bridge's hello, refusing another protocol.
    pub fn read_hello(&mut self, host: &Host) -> Result<(), HostError> {
        let hello = self.hello(host)?;
        self.hello = Some(hello);
        Ok(())
    }

    fn hello(&mut self, host: &Host) -> Result<Hello, HostError> {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).unwrap_or(0);
        if n == 0 {
            return Err(self.ended(host));
        }
        let hello: Hello = serde_json::from_str(&line).map_err(|_| HostError::Bridge {
            host: host.name.clone(),
            detail: format!("it printed {:?} instead of its hello", line.trim()),
        })?;
        if hello.protocol != PROTOCOL_VERSION {
            return Err(HostError::Protocol {
                host: host.name.clone(),
                version: hello.baton,
                protocol: hello.protocol,
            });
        }
        Ok(hello)
    }

    /// Why the channel ended before its hello: ssh's exit code and stderr.
    fn ended(&mut self, host: &Host) -> HostError {
        let status = self.child.wait().ok().and_then(|s| s.code());
        // Bounded: a process ssh left behind could hold its stderr open.
        let _ = self.stderr_done.recv_timeout(STDERR_WAIT);
        let stderr = self.stderr_text();
        match judge_end(status, &stderr) {
            Ended::NoBaton => HostError::NoBaton {
                host: host.name.clone(),
                path: host.baton().to_string(),
            },
            Ended::Unreachable(detail) => HostError::Unreachable {
                host: host.name.clone(),
                target: host.ssh.clone(),
                detail,
            },
            Ended::Other(detail) => HostError::Bridge {
                host: host.name.clone(),
                detail,
            },
        }
    }

    fn stderr_text(&self) -> String {
        match self.stderr.lock() {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(_) => String::new(),
        }
    }

    pub fn host(&self) -> &str {
        &self.host
    }

    /// The remote baton's version, as its hello said.
    pub fn version(&self) -> &str {
        self.hello.as_ref().map_or("", |h| h.baton.as_str())
    }
}

fn drain(mut err: impl Read, kept: &Mutex<Vec<u8>>) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = err.read(&mut buf) {
        if n == 0 {
            return;
        }
        if let Ok(mut k) = kept.lock() {
            let room = STDERR_KEPT.saturating_sub(k.len());
            k.extend_from_slice(&buf[..n.min(room)]);
        }
    }
}

impl Read for SshConn {
    /// Reads, acting first on any Ctrl-c pressed while it waits (`ctrl_c::wait_readable`).
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.stdout.buffer().is_empty() {
            crate::client::ctrl_c::wait_readable(self.stdout.get_ref().as_fd());
        }
        self.stdout.read(buf)
    }
}

impl Write for SshConn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.stdin {
            Some(s) => s.write(buf),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.stdin {
            Some(s) => s.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for SshConn {
    /// Ends this channel only: the master connection stays for the next command, and what
    /// the request started belongs to the remote server and goes on there.
    fn drop(&mut self) {
        self.stdin.take();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
#[path = "ssh_tests.rs"]
mod tests;
