//! The UI's threads: one blocks on the watch socket, one on the keyboard, each request to
//! the server runs on its own short-lived thread (those whose order matters, on one thread
//! in turn: [`OrderedCalls`]), and each shell shown has a connection with a reading and a
//! writing thread; all of them feed one channel, so the main loop sleeps until something
//! happens (an idle client uses no CPU) and never waits on the server.

pub mod hosts;
pub mod notify;
pub mod saved;
pub mod signals;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc::Sender;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;

use crossterm::event::Event;

use crate::client::{send_request, Client};
use crate::error::BatonError;
use crate::protocol::{Reply, Request, ShellEvent, ShellInput};
use crate::tui::app::{Msg, Tag};
use crate::tui::shell::ShellUpdate;

/// Starts the thread that follows the server's watch stream. When the stream ends the server
/// is gone: the UI is told and exits.
pub fn spawn_watch(client: &Client, tx: Sender<Msg>) -> Result<(), BatonError> {
    let mut stream = client.connect()?;
    let mut line = serde_json::to_vec(&Request::Watch)
        .map_err(|e| BatonError::failed(format!("cannot encode the watch request: {e}")))?;
    line.push(b'\n');
    stream
        .write_all(&line)
        .map_err(|e| BatonError::failed(format!("cannot talk to the baton server: {e}")))?;
    std::thread::spawn(move || {
        let reader = BufReader::new(stream);
        for line in reader.lines() {
            let line = match line {
                Ok(l) => l,
                Err(e) => {
                    let _ = tx.send(Msg::ServerGone(format!("lost the connection: {e}")));
                    return;
                }
            };
            let msg = match serde_json::from_str::<Reply>(&line) {
                Ok(Reply::Watch { event }) => Msg::Watch(event),
                Ok(Reply::Error { error }) => Msg::ServerGone(error.message),
                Ok(Reply::Ok { .. } | Reply::Event { .. } | Reply::Shell { .. }) => continue,
                Err(e) => Msg::ServerGone(format!("unreadable line from the server: {e}")),
            };
            let gone = matches!(msg, Msg::ServerGone(_));
            if tx.send(msg).is_err() || gone {
                return;
            }
        }
        let _ = tx.send(Msg::ServerGone("the baton server stopped".into()));
    });
    Ok(())
}

/// Starts the thread that reads keys, pastes, mouse and resizes.
pub fn spawn_input(tx: Sender<Msg>) {
    std::thread::spawn(move || loop {
        let msg = match crossterm::event::read() {
            Ok(Event::Key(k)) => Msg::Key(k),
            Ok(Event::Paste(s)) => Msg::Paste(s),
            Ok(Event::Mouse(m)) => Msg::Mouse(m),
            Ok(Event::Resize(..)) => Msg::Resize,
            Ok(Event::FocusGained | Event::FocusLost) => continue,
            Err(e) => Msg::ServerGone(format!("cannot read the keyboard: {e}")),
        };
        let stop = matches!(msg, Msg::ServerGone(_));
        if tx.send(msg).is_err() || stop {
            return;
        }
    });
}

/// Runs one request on its own thread; its reply comes back as [`Msg::Reply`]. A request never
/// blocks the UI, however slow the server is. A request naming a terminal of another host goes
/// to that host with the bare name.
pub fn spawn_call(
    client: &Client,
    hosts: &hosts::Hosts,
    ordered: &mut OrderedCalls,
    tag: Tag,
    req: Request,
    tx: Sender<Msg>,
) {
    let in_order = OrderedCalls::wants(&req);
    let (host, req) = crate::tui::app::hosts::route(req);
    let remote = host.map(|h| (hosts::client_for(client, hosts, &h), h));
    let client = client.clone();
    let call = move || {
        let result = match remote {
            Some((Ok(remote), host)) => remote
                .call(&req)
                .map(|answer| crate::tui::app::hosts::qualify_answer(&host, answer)),
            Some((Err(e), _)) => Err(e),
            // Only an already running server: the UI never starts a second one behind the
            // user's back after the first went away.
            None => match client.connect_existing() {
                None => Err(BatonError::failed("the baton server is not running")),
                Some(stream) => {
                    send_request(stream, &req, &mut |_| {}).and_then(|r| r.into_answer(&req))
                }
            },
        };
        let _ = tx.send(Msg::Reply(tag, result));
    };
    if in_order {
        ordered.run(Box::new(call));
    } else {
        std::thread::spawn(call);
    }
}

/// A request's work, run on a thread of its own or in turn.
type Call = Box<dyn FnOnce() + Send>;

/// The requests whose order is the user's (prompts, changes to waiting input, interrupts) run
/// one at a time, in the order they were made, on one thread: each on a thread of its own,
/// two prompts typed fast could reach the server in either order and be queued so.
#[derive(Default)]
pub struct OrderedCalls {
    queue: Option<Sender<Call>>,
}

impl OrderedCalls {
    /// Whether `req` must keep its place among the others. Pure.
    pub fn wants(req: &Request) -> bool {
        matches!(
            req,
            Request::Send { .. }
                | Request::Queue { .. }
                | Request::QueueRun { .. }
                | Request::QueueRetry { .. }
                | Request::Interrupt { .. }
        )
    }

    /// Runs `call` after every call given before it.
    fn run(&mut self, call: Call) {
        let queue = self.queue.get_or_insert_with(|| {
            let (tx, rx) = std::sync::mpsc::channel::<Call>();
            std::thread::spawn(move || rx.into_iter().for_each(|call| call()));
            tx
        });
        // The thread only ends if a call panicked: the ones after start a new one.
        if let Err(std::sync::mpsc::SendError(call)) = queue.send(call) {
            self.queue = None;
            self.run(call);
        }
    }
}

/// This client's shell connections, by terminal name: what is typed goes to each one's
/// writing thread, so a shell that does not read never blocks the UI.
#[derive(Default)]
pub struct ShellConns {
    conns: HashMap<String, std::sync::mpsc::Sender<ShellInput>>,
}

/// Bytes the shell connection's reader buffers.
const SHELL_READ_BUFFER: usize = 256 * 1024;

impl ShellConns {
    /// Attaches to terminal `name`'s shell; what it says comes back as [`Msg::Shell`] with
    /// `id`. An earlier connection for the same terminal is closed. A remote terminal's shell
    /// is reached through its host's channel, opened on the writing thread (ssh may take a
    /// while; what is typed meanwhile waits in the channel).
    pub fn open(
        &mut self,
        client: &Client,
        hosts: &hosts::Hosts,
        name: &str,
        id: u64,
        size: (u16, u16),
        tx: Sender<Msg>,
    ) {
        self.conns.remove(name);
        let (host, bare) = crate::tui::app::hosts::split(name);
        let req = Request::Shell {
            name: bare.to_string(),
            rows: size.0,
            cols: size.1,
        };
        let (in_tx, in_rx) = std::sync::mpsc::channel::<ShellInput>();
        let opener = match host {
            None => ShellOpener::Local(client.connect_existing()),
            Some(h) => ShellOpener::Remote(hosts::client_for(client, hosts, h)),
        };
        self.conns.insert(name.to_string(), in_tx);
        let name = name.to_string();
        std::thread::spawn(move || {
            let (reader, writer) = match opener.open(&req) {
                Ok(halves) => halves,
                Err(why) => {
                    let _ = tx.send(Msg::Shell(name, id, ShellUpdate::Lost(why)));
                    return;
                }
            };
            let name_r = name.clone();
            std::thread::spawn(move || read_shell(reader, &name_r, id, &tx));
            write_shell(writer, in_rx);
        });
    }

    /// Lets go of terminal `name`'s shell connection (the server's shell goes on).
    pub fn forget(&mut self, name: &str) {
        self.conns.remove(name);
    }

    pub fn input(&self, name: &str, bytes: &[u8]) {
        if let Some(tx) = self.conns.get(name) {
            let _ = tx.send(ShellInput::Input(B64.encode(bytes)));
        }
    }

    pub fn resize(&self, name: &str, rows: u16, cols: u16) {
        if let Some(tx) = self.conns.get(name) {
            let _ = tx.send(ShellInput::Resize([rows, cols]));
        }
    }

    /// Asks for the shell's scrollback (a [`ShellUpdate::History`] follows).
    pub fn history(&self, name: &str) {
        if let Some(tx) = self.conns.get(name) {
            let _ = tx.send(ShellInput::History);
        }
    }
}

/// How a shell connection is made: this machine's server socket (if its server runs), or a
/// channel through another host's client.
enum ShellOpener {
    Local(Option<std::os::unix::net::UnixStream>),
    Remote(Result<Client, BatonError>),
}

/// The writing half of a shell connection.
enum ShellWriter {
    Local(std::os::unix::net::UnixStream),
    Remote(std::process::ChildStdin),
}

type ShellReader = Box<dyn Read + Send>;

impl ShellOpener {
    /// Opens the connection and sends `req` on it: its reading and writing halves.
    fn open(self, req: &Request) -> Result<(ShellReader, ShellWriter), String> {
        let cannot = |e: String| format!("cannot open the shell: {e}");
        let mut line = serde_json::to_vec(req).map_err(|e| cannot(e.to_string()))?;
        line.push(b'\n');
        match self {
            ShellOpener::Local(None) => Err("the baton server is not running".into()),
            ShellOpener::Local(Some(mut stream)) => {
                stream.write_all(&line).map_err(|e| cannot(e.to_string()))?;
                let reader = stream.try_clone().map_err(|e| cannot(e.to_string()))?;
                Ok((Box::new(reader), ShellWriter::Local(stream)))
            }
            ShellOpener::Remote(client) => {
                let client = client.map_err(|e| e.message)?;
                let mut conn = match client.open().map_err(|e| e.message)? {
                    crate::client::conn::Conn::Remote(c) => c,
                    crate::client::conn::Conn::Local(_) => {
                        return Err(cannot("no channel to the host".into()))
                    }
                };
                conn.write_all(&line)
                    .and_then(|()| conn.flush())
                    .map_err(|e| cannot(e.to_string()))?;
                let stdin = conn
                    .take_stdin()
                    .ok_or_else(|| cannot("the channel has no input".into()))?;
                Ok((conn, ShellWriter::Remote(stdin)))
            }
        }
    }
}

/// The shell connection's writing thread: what the UI types and resizes, until the UI lets
/// go of the shell (or the connection ends).
fn write_shell(mut writer: ShellWriter, inputs: std::sync::mpsc::Receiver<ShellInput>) {
    for input in inputs {
        let Ok(mut line) = serde_json::to_vec(&input) else {
            continue;
        };
        line.push(b'\n');
        let written = match &mut writer {
            ShellWriter::Local(s) => s.write_all(&line),
            ShellWriter::Remote(s) => s.write_all(&line).and_then(|()| s.flush()),
        };
        if written.is_err() {
            break;
        }
    }
    // The UI let go of this shell (or the server went away): the reader ends too (a remote
    // channel ends once its input is closed, when `writer` drops).
    if let ShellWriter::Local(s) = &writer {
        let _ = s.shutdown(std::net::Shutdown::Both);
    }
}

/// The shell connection's reading thread: decodes each line for the main loop.
fn read_shell(stream: ShellReader, name: &str, id: u64, tx: &Sender<Msg>) {
    let mut reader = BufReader::with_capacity(SHELL_READ_BUFFER, stream);
    let mut line = String::new();
    let decode = |data: &str| {
        B64.decode(data)
            .map_err(|e| format!("unreadable output: {e}"))
    };
    let why = loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => break "the connection to the server ended".to_string(),
            Ok(_) => {}
            Err(e) => break format!("lost the connection: {e}"),
        }
        let update = match serde_json::from_str::<Reply>(&line) {
            Ok(Reply::Shell { event }) => match event {
                ShellEvent::Screen {
                    rows, cols, data, ..
                } => decode(&data).map(|bytes| ShellUpdate::Screen { rows, cols, bytes }),
                ShellEvent::Output { data } => decode(&data).map(ShellUpdate::Output),
                ShellEvent::History { rows, cols, data } => {
                    decode(&data).map(|bytes| ShellUpdate::History { rows, cols, bytes })
                }
                ShellEvent::Exited { code } => Ok(ShellUpdate::Exited(code)),
            },
            Ok(Reply::Error { error }) => Err(error.message),
            Ok(_) => continue,
            Err(e) => Err(format!("unreadable line from the server: {e}")),
        };
        match update {
            Ok(u) => {
                let exited = matches!(u, ShellUpdate::Exited(_));
                if tx.send(Msg::Shell(name.to_string(), id, u)).is_err() || exited {
                    return;
                }
            }
            Err(why) => break why,
        }
    };
    let _ = tx.send(Msg::Shell(name.to_string(), id, ShellUpdate::Lost(why)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_user_types_keeps_its_order_and_reads_do_not_wait_for_it() {
        let send = Request::Send {
            name: "t".into(),
            send: serde_json::from_value(serde_json::json!({"prompt": "p"})).unwrap(),
            detach: true,
        };
        let cases = [
            (send, true),
            (Request::Interrupt { name: "t".into() }, true),
            (Request::Ping, false),
        ];
        for (req, want) in cases {
            assert_eq!(OrderedCalls::wants(&req), want, "{req:?}");
        }
    }

    #[test]
    fn ordered_calls_run_in_the_order_they_were_made() {
        let mut ordered = OrderedCalls::default();
        let (done, seen) = std::sync::mpsc::channel();
        let (open, gate) = std::sync::mpsc::channel::<()>();
        let first = done.clone();
        // The first call is slow: the second, made meanwhile, still runs after it.
        ordered.run(Box::new(move || {
            gate.recv().unwrap();
            first.send(1).unwrap();
        }));
        ordered.run(Box::new(move || done.send(2).unwrap()));
        open.send(()).unwrap();
        let order: Vec<i32> = seen.iter().take(2).collect();
        assert_eq!(order, [1, 2]);
    }
}
