//! The client side of every subcommand: finding (or starting) the server, sending one request,
//! and reading its replies.

pub mod commands;
pub mod conn;
pub mod ctrl_c;
pub mod hosts;
pub mod manual;
pub mod out;
pub mod prune;
pub mod render;
mod render_approvals;
mod render_exports;
pub mod render_lane;
pub mod render_life;

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::BatonError;
use crate::paths::{open_private_append, DataDir, EnvDirs};
use crate::protocol::answer::OK_LINE;
use crate::protocol::{Answer, Reply, Request};
use conn::Conn;

/// The running binary, which a server is started from (and its warden and a remote host's
/// bridge after it).
fn this_binary() -> Result<PathBuf, BatonError> {
    std::env::current_exe()
        .map_err(|e| BatonError::failed(format!("cannot find the baton binary: {e}")))
}

/// How long a client waits for a server it started to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// Where the client finds its server, and the environment a server it starts gets.
#[derive(Debug, Clone)]
pub struct Client {
    pub data: DataDir,
    /// Extra environment for a server this client starts (the demo points PATH at the shims).
    pub server_env: Vec<(OsString, OsString)>,
    /// Another host whose server this client's requests go to, over ssh (`None`: this
    /// machine's).
    pub via: Option<hosts::Host>,
}

impl Client {
    pub fn from_env() -> Result<Client, BatonError> {
        let env = EnvDirs::from_env();
        if let Some(home) = env.relative_baton_home() {
            return Err(BatonError::bad_input(format!(
                "BATON_HOME is {:?}, a relative path: give it as an absolute one (e.g. BATON_HOME=\"$PWD/{}\"), or every directory would have a data directory of its own",
                home.display().to_string(),
                home.display()
            )));
        }
        let root = env.data_dir().ok_or_else(|| {
            BatonError::bad_input("cannot find a place for baton's data: set HOME or BATON_HOME")
        })?;
        let data = DataDir::new(root);
        if let Some(owner) = data.foreign_owner() {
            return Err(BatonError::bad_input(format!(
                "{} belongs to uid {owner}, not to you (uid {}): each user keeps a baton data directory of their own; set BATON_HOME to one of yours",
                data.root.display(),
                nix::unistd::geteuid()
            )));
        }
        Ok(Client {
            data,
            server_env: Vec::new(),
            via: None,
        })
    }

    /// This client, asking `host`'s server instead (the local data dir keeps ssh's control
    /// sockets).
    pub fn on_host(&self, host: hosts::Host) -> Client {
        Client {
            via: Some(host),
            ..self.clone()
        }
    }

    /// A connection to the server this client asks: this machine's (started when needed) or,
    /// through ssh, another host's.
    pub fn open(&self) -> Result<Conn, BatonError> {
        match &self.via {
            None => self.connect().map(Conn::Local),
            Some(host) => Ok(Conn::Remote(Box::new(hosts::ssh::SshConn::open(
                host,
                &self.data.root,
            )?))),
        }
    }

    /// Connects to the running server, starting one when there is none.
    pub fn connect(&self) -> Result<UnixStream, BatonError> {
        if let Some(s) = self.connect_existing() {
            return Ok(s);
        }
        self.start_server()?;
        UnixStream::connect(self.data.socket()).map_err(|e| {
            BatonError::failed(format!(
                "the baton server started but its socket {} refuses connections: {e} (see {})",
                self.data.socket().display(),
                self.data.log_file().display()
            ))
        })
    }

    /// Connects only if a server is already running. The lock says so: a server killed a
    /// moment ago may leave a socket that still accepts a connection and then resets it.
    pub fn connect_existing(&self) -> Option<UnixStream> {
        if !self.data.server_locked() {
            return None;
        }
        UnixStream::connect(self.data.socket()).ok()
    }

    /// Starts `baton server run` in the background and waits for its `ready` line.
    pub fn start_server(&self) -> Result<(), BatonError> {
        self.data.ensure().map_err(|e| {
            BatonError::failed(format!("cannot create {}: {e}", self.data.root.display()))
        })?;
        // A broken config would stop the server from starting: say so here, plainly.
        let mut env = EnvDirs::from_env();
        if let Some((_, v)) = self.server_env.iter().find(|(k, _)| k == "BATON_HOME") {
            env.baton_home = Some(v.clone());
        }
        crate::config::Config::load(env.config_file().as_deref())?;
        let exe = this_binary()?;
        let log = open_private_append(&self.data.log_file()).map_err(|e| {
            BatonError::failed(format!(
                "cannot open {}: {e}",
                self.data.log_file().display()
            ))
        })?;
        let mut cmd = Command::new(&exe);
        cmd.args(["server", "run"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log);
        for (k, v) in &self.server_env {
            cmd.env(k, v);
        }
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().map_err(|e| {
            BatonError::failed(format!(
                "cannot start the baton server ({}): {e}",
                exe.display()
            ))
        })?;
        let mut first = String::new();
        if let Some(out) = child.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut first);
        }
        if first.starts_with("ready") {
            return Ok(());
        }
        // It exited: either another server won the race (fine) or it failed (say why).
        let _ = child.wait();
        self.wait_for_socket().map_err(|_| {
            BatonError::failed(format!(
                "the baton server did not start: {} (full log: {})",
                last_log_line(&self.data.log_file()),
                self.data.log_file().display()
            ))
        })
    }

    /// Waits until a server started by someone else accepts connections.
    fn wait_for_socket(&self) -> Result<(), ()> {
        let deadline = Instant::now() + START_TIMEOUT;
        let mut pause = Duration::from_millis(5);
        while Instant::now() < deadline {
            if UnixStream::connect(self.data.socket()).is_ok() {
                return Ok(());
            }
            if !self.data.server_locked() {
                return Err(());
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(200));
        }
        Err(())
    }

    /// Sends `req` and calls `on_reply` for every reply until the final one, which is returned.
    pub fn request(
        &self,
        req: &Request,
        on_event: impl FnMut(&Reply),
    ) -> Result<Reply, BatonError> {
        self.request_final(req, on_event)?.into_reply()
    }

    /// [`Client::request`], its final reply as read off the connection.
    fn request_final(
        &self,
        req: &Request,
        mut on_event: impl FnMut(&Reply),
    ) -> Result<Final, BatonError> {
        let stream = self.open()?;
        let remote = stream.host().is_some();
        match send_request_once(stream, req, &mut on_event) {
            Err(Unanswered::Reset) if !remote => {
                // A server dying as it accepted: it never read the request (a read one would
                // have been answered or closed, not reset), so it is safe to ask a new one.
                self.wait_unlocked(START_TIMEOUT);
                let stream = self.connect()?;
                send_request_once(Conn::Local(stream), req, &mut on_event).map_err(BatonError::from)
            }
            Ok(Final::Reply(reply)) if remote => {
                // An error answered there says which host it came from.
                match *reply {
                    Reply::Error { error } => Ok(Final::Reply(Box::new(Reply::Error {
                        error: self.on_host_error(error),
                    }))),
                    other => Ok(Final::Reply(Box::new(other))),
                }
            }
            other => other.map_err(BatonError::from),
        }
    }

    /// An error the remote server answered, saying which host it came from.
    fn on_host_error(&self, mut error: BatonError) -> BatonError {
        if let Some(h) = &self.via {
            error.message = format!("on host {}: {}", h.name, error.message);
        }
        error
    }

    /// The name a terminal `name` of this client's server is shown by: `HOST:NAME` remotely.
    pub fn shown_name(&self, name: &str) -> String {
        match &self.via {
            None => name.to_string(),
            Some(h) => format!("{}:{name}", h.name),
        }
    }

    /// Waits (bounded) until no server holds the data directory's lock.
    fn wait_unlocked(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut pause = Duration::from_millis(5);
        while self.data.server_locked() && Instant::now() < deadline {
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(100));
        }
    }

    /// Like [`Client::request`] for a one-reply request, returning its answer (the view
    /// `req` is answered with, [`Request::answer_kind`]).
    pub fn call(&self, req: &Request) -> Result<Answer, BatonError> {
        self.request_final(req, |_| {})?.into_answer(req)
    }
}

/// A final reply as read off the connection: a line with an answer kept as its text, read
/// once, straight into the view its request expects ([`Final::into_answer`]; `baton ls` with
/// 100 terminals decodes no `Value` tree), or any other reply.
pub enum Final {
    /// A line starting with [`OK_LINE`].
    Line(String),
    Reply(Box<Reply>),
}

impl Final {
    /// The final reply, read whole.
    pub fn into_reply(self) -> Result<Reply, BatonError> {
        match self {
            Final::Line(line) => serde_json::from_str(&line).map_err(unreadable_reply),
            Final::Reply(r) => Ok(*r),
        }
    }

    /// The answer `req` ends with (or its error), read into its view.
    pub fn into_answer(self, req: &Request) -> Result<Answer, BatonError> {
        match (self, req.answer_kind()) {
            (Final::Line(line), Some(kind)) => kind.read_line(&line),
            (other, _) => other.into_reply()?.into_answer(req),
        }
    }
}

fn unreadable_reply(e: serde_json::Error) -> BatonError {
    BatonError::failed(format!("unreadable reply from the server: {e}"))
}

/// Why a request got no final reply.
enum Unanswered {
    /// The connection was reset before any reply: the server never read the request.
    Reset,
    Failed(BatonError),
}

impl From<Unanswered> for BatonError {
    fn from(u: Unanswered) -> BatonError {
        match u {
            Unanswered::Reset => BatonError::failed(
                "lost the connection to the baton server: it reset the connection (see server.log in the data directory)",
            ),
            Unanswered::Failed(e) => e,
        }
    }
}

impl From<BatonError> for Unanswered {
    fn from(e: BatonError) -> Unanswered {
        Unanswered::Failed(e)
    }
}

pub fn send_request(
    stream: UnixStream,
    req: &Request,
    on_event: &mut dyn FnMut(&Reply),
) -> Result<Reply, BatonError> {
    send_request_once(Conn::Local(stream), req, on_event)
        .map_err(BatonError::from)?
        .into_reply()
}

fn send_request_once(
    stream: Conn,
    req: &Request,
    on_event: &mut dyn FnMut(&Reply),
) -> Result<Final, Unanswered> {
    if let Some(host) = stream.host() {
        let host = host.to_string();
        return send_over(stream, req, on_event).map_err(|e| {
            Unanswered::Failed(match e {
                Unanswered::Reset => lost(&host, "the channel was reset"),
                Unanswered::Failed(e) if e.message.starts_with(CLOSED) => lost(&host, "ssh ended"),
                Unanswered::Failed(e) => e,
            })
        });
    }
    send_over(stream, req, on_event)
}

/// The start of the error a connection closed before its final reply gives.
const CLOSED: &str = "the baton server closed the connection before answering";

/// The error of a channel to `host` that ended before its final reply. What the request
/// started (a turn) belongs to that host's server and goes on there.
fn lost(host: &str, why: &str) -> BatonError {
    BatonError::failed(format!(
        "{LOST} {host} ({why}); anything it started goes on there"
    ))
}

/// How the error of a lost channel to another host starts.
pub const LOST: &str = "lost the connection to host";

fn send_over(
    mut stream: Conn,
    req: &Request,
    on_event: &mut dyn FnMut(&Reply),
) -> Result<Final, Unanswered> {
    let gone = |e: std::io::Error| {
        BatonError::failed(format!("lost the connection to the baton server: {e}"))
    };
    let mut line = serde_json::to_vec(req).map_err(|e| BatonError::failed(e.to_string()))?;
    line.push(b'\n');
    match stream.write_all(&line) {
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
            ) =>
        {
            // A bridge that could not reach its server answers and ends before the request
            // is written: that answer is the reply.
            if stream.host().is_some() {
                return read_final(BufReader::new(stream), on_event, gone)
                    .map_err(|_| Unanswered::Reset);
            }
            return Err(Unanswered::Reset);
        }
        other => other.map_err(gone)?,
    }
    read_final(BufReader::new(stream), on_event, gone)
}

/// Reads replies until the final one, each event to `on_event`; a line with an answer is
/// kept as its text ([`Final::Line`]).
fn read_final(
    mut reader: BufReader<Conn>,
    on_event: &mut dyn FnMut(&Reply),
    gone: impl Fn(std::io::Error) -> BatonError,
) -> Result<Final, Unanswered> {
    let mut replies = 0usize;
    loop {
        let mut buf = String::new();
        let n = match reader.read_line(&mut buf) {
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset && replies == 0 => {
                return Err(Unanswered::Reset)
            }
            other => other.map_err(&gone)?,
        };
        replies += 1;
        if n == 0 {
            return Err(Unanswered::Failed(BatonError::failed(format!(
                "{CLOSED} (see server.log in the data directory)"
            ))));
        }
        if buf.starts_with(OK_LINE) {
            return Ok(Final::Line(buf));
        }
        let reply: Reply = serde_json::from_str(&buf).map_err(unreadable_reply)?;
        match reply {
            Reply::Event { .. } | Reply::Watch { .. } | Reply::Shell { .. } => on_event(&reply),
            final_reply => return Ok(Final::Reply(Box::new(final_reply))),
        }
    }
}

fn last_log_line(path: &PathBuf) -> String {
    let mut text = String::new();
    if let Ok(mut f) = std::fs::File::open(path) {
        let _ = f.read_to_string(&mut text);
    }
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no output")
        .to_string()
}
