//! The runtime server: one per data directory (held by `server.lock`), listening on
//! `server.sock` (0600), owning every running turn. Clients come and go; turns keep running.

mod approvals;
mod checkout;
mod exports;
mod extract;
mod feed;
pub mod fence;
mod follow;
mod forks;
mod handle;
mod hooks;
mod integrate;
mod peer;
mod prune;
mod read;
mod recover;
mod removal;
mod settings;
mod setup;
mod shell;
mod starting;
mod state;
mod steps;
mod terminals;
mod turn;
mod wire;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use nix::fcntl::{Flock, FlockArg};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use crate::config::Config;
use crate::error::BatonError;
use crate::paths::{open_private_append, DataDir};
use crate::protocol::{Reply, Request, WatchEvent};
use crate::store::Store;
use feed::Feed;
use state::Server;
use wire::write_reply;

/// The longest request line accepted (a prompt is at most 1 MiB, JSON-escaped).
const MAX_REQUEST_BYTES: usize = 8 * 1024 * 1024;
/// How long `server stop` waits for interrupted turns to record their end.
const STOP_GRACE: Duration = Duration::from_secs(10);
/// How long `server stop` then waits for the last replies to reach their clients.
const ANSWER_GRACE: Duration = Duration::from_secs(5);

/// Runs the server in the foreground until `server stop` or SIGTERM/SIGINT. Prints `ready` on
/// stdout once the socket accepts connections (the client that started it waits for that line).
pub fn run(data: DataDir, config: Config) -> Result<(), BatonError> {
    data.ensure()
        .map_err(|e| BatonError::failed(format!("cannot create {}: {e}", data.root.display())))?;
    let lock_file = open_private_append(&data.lock_file()).map_err(|e| {
        BatonError::failed(format!("cannot open {}: {e}", data.lock_file().display()))
    })?;
    let mut lock = match Flock::lock(lock_file, FlockArg::LockExclusiveNonblock) {
        Ok(l) => l,
        Err((_, _)) => {
            return Err(BatonError::failed(format!(
                "a baton server is already running for {} (see `baton server status`)",
                data.root.display()
            )))
        }
    };
    let _ = lock.set_len(0);
    let _ = writeln!(lock, "{}", std::process::id());
    // Before any CLI starts: it interrupts them if this server dies (`providers::warden`).
    match std::env::current_exe() {
        Ok(exe) => crate::providers::warden::start(exe),
        Err(e) => crate::log_line!(
            "baton server: cannot find its own binary for a warden ({e}); CLIs get a death signal instead"
        ),
    }
    let store = Store::open(data.clone())?;
    // The journals are the truth: a crash between a journal append and its index update, or a
    // lost index, is repaired here before anyone reads the index.
    let report = store.reindex()?;
    for s in &report.skipped {
        crate::log_line!("baton server: skipped unreadable journal line {s}");
    }
    for tid in &report.purged {
        crate::log_line!(
            "baton server: deleted terminals/{tid}/ (a crash had cut its prune short)"
        );
    }
    let srv = Arc::new(Server::new(store, config));
    recover::unfinished(&srv)?;
    checkout::at_start(&srv);
    removal::finish_removals(&srv);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| BatonError::failed(format!("cannot start the async runtime: {e}")))?;
    let result = runtime.block_on(serve(srv, data));
    drop(lock);
    result
}

async fn serve(srv: Arc<Server>, data: DataDir) -> Result<(), BatonError> {
    let sock = data.socket();
    let _ = std::fs::remove_file(&sock);
    let listener = UnixListener::bind(&sock)
        .map_err(|e| BatonError::failed(format!("cannot listen on {}: {e}", sock.display())))?;
    std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| BatonError::failed(format!("cannot protect {}: {e}", sock.display())))?;
    start_web(&srv).await;
    // The client that started this server reads this line; one that died meanwhile must not
    // stop the server (`println!` would panic on the closed pipe).
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "ready {}", std::process::id()).and_then(|()| stdout.flush());
    drop(stdout);
    // Handled before any CLI starts: a handled signal is back to its default in a child after
    // exec, so a server started with SIGINT ignored (`nohup`) gives its CLIs one that works.
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| BatonError::failed(e.to_string()))?;
    let mut int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .map_err(|e| BatonError::failed(e.to_string()))?;
    start_file_watch(&srv);
    match crate::git::Tracker::new(&data.tracker_cookies()) {
        Ok(t) => {
            let _ = srv.changes.set(Arc::new(t));
        }
        Err(e) => crate::log_line!(
            "baton server: no change tracker ({e}); each automatic commit walks its checkout"
        ),
    }
    prune::start_retention(&srv);
    // Input that waited through a stop or a crash runs now, in order.
    if let Ok(terminals) = srv.store.terminals() {
        for t in terminals {
            if srv.store.waiting_inputs(&t.id).is_ok_and(|w| !w.is_empty()) {
                turn::queue::wake(&srv, &t.id);
            }
        }
    }
    let own_uid = nix::unistd::geteuid().as_raw();
    let (stop_tx, mut stop_rx) = tokio::sync::watch::channel(false);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    accept(&srv, stream, &stop_tx, own_uid);
                }
            }
            _ = stop_rx.changed() => break,
            _ = term.recv() => {
                crate::log_line!("baton server: stopping on SIGTERM");
                break;
            }
            _ = int.recv() => {
                crate::log_line!("baton server: stopping on SIGINT");
                break;
            }
        }
    }
    shutdown(&srv).await;
    let _ = std::fs::remove_file(&sock);
    Ok(())
}

/// With `[web] port` set, the web client is served from the start, before the server says it
/// is ready (on that port, so an open page reconnects to a restarted server by itself); a
/// failure is logged, and `baton web` says it.
async fn start_web(srv: &Arc<Server>) {
    if srv.config.web.port.is_none() {
        return;
    }
    let data = srv.store.data_dir();
    if let Err(e) = crate::web::serve(&srv.web, data, &srv.config.web, None, false).await {
        crate::log_line!("baton server: {e}");
    }
}

/// Serves an accepted connection on its own task, or refuses it (logged in `server.log`)
/// when it comes from another user than the server's own (`own_uid`).
fn accept(
    srv: &Arc<Server>,
    stream: UnixStream,
    stop: &tokio::sync::watch::Sender<bool>,
    own_uid: u32,
) {
    let peer_uid = stream.peer_cred().ok().map(|c| c.uid());
    match peer::judge(own_uid, peer_uid) {
        Ok(()) => {
            tokio::spawn(connection(srv.clone(), stream, stop.clone()));
        }
        Err(why) => {
            crate::log_line!("baton server: refused a connection: {why}");
            tokio::spawn(peer::refuse(stream, why));
        }
    }
}

/// How long the file watcher waits for a burst of changes to settle.
const WATCH_QUIET: Duration = Duration::from_millis(200);

/// Watches every terminal's folder or worktree; a change is looked at between turns (a
/// terminal running a turn is left alone: its next send checks anyway).
fn start_file_watch(srv: &Arc<Server>) {
    let (tx, rx) = std::sync::mpsc::channel::<std::path::PathBuf>();
    match crate::git::Watch::new(tx, WATCH_QUIET) {
        Ok(w) => *srv.files.lock().unwrap_or_else(|p| p.into_inner()) = Some(w),
        Err(e) => {
            crate::log_line!(
                "baton server: no file watcher ({e}); moves are noticed at the next send"
            );
            return;
        }
    }
    if let Ok(terminals) = srv.store.terminals() {
        for t in &terminals {
            srv.watch_files(t);
        }
    }
    let (async_tx, mut async_rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while let Ok(path) = rx.recv() {
            if async_tx.send(path).is_err() {
                return;
            }
        }
    });
    let srv = srv.clone();
    tokio::spawn(async move {
        while let Some(key) = async_rx.recv().await {
            // Only the terminals this key is about (a rescan sends every key).
            for mut t in srv.watched_by(&key) {
                let rt = srv.runtime(&t.id);
                let Ok(_idle) = rt.turn_lock.try_lock() else {
                    continue;
                };
                if let Err(e) = checkout::refresh(&srv, &mut t) {
                    crate::log_line!("baton server: cannot follow {}: {}", t.name, e);
                }
            }
        }
    });
}

/// Interrupts running turns and waits (bounded) until each has journalled its end, ends the
/// feeds of input left waiting (it runs at the next start), then waits (bounded) until every
/// client is answered: a streaming send gets its turn's interrupted summary, never a closed
/// connection (the runtime's end would drop the tasks still writing).
async fn shutdown(srv: &Arc<Server>) {
    srv.shutting_down.store(true, Ordering::SeqCst);
    srv.shells.hang_up_all();
    // Idle warm CLIs exit at the EOF this gives them.
    srv.warm
        .drain()
        .into_iter()
        .for_each(crate::providers::warm::WarmCli::retire);
    let runtimes = srv.all_runtimes();
    for (_, rt) in &runtimes {
        let _ = rt.interrupt();
    }
    let wait_all = async {
        for (_, rt) in &runtimes {
            let _ = rt.turn_lock.lock().await;
        }
    };
    if tokio::time::timeout(STOP_GRACE, wait_all).await.is_err() {
        crate::log_line!("baton server: a turn did not record its end (or the CLI of one that did, exit) within {STOP_GRACE:?} of the stop; the next start closes it");
    }
    for (_, rt) in &runtimes {
        turn::queue::end_waiting_feeds(rt);
        // A CLI started for a turn that will not run now.
        rt.prestarted.retire();
    }
    if tokio::time::timeout(ANSWER_GRACE, srv.all_answered())
        .await
        .is_err()
    {
        crate::log_line!(
            "baton server: a client was still being answered {ANSWER_GRACE:?} after the stop"
        );
    }
}

async fn connection(srv: Arc<Server>, stream: UnixStream, stop: tokio::sync::watch::Sender<bool>) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read.take(MAX_REQUEST_BYTES as u64));
    let mut line = String::new();
    let reply = match reader.read_line(&mut line).await {
        Ok(0) => return,
        Ok(_) => match serde_json::from_str::<Request>(&line) {
            // Both ways: the client's input lines follow on the same connection.
            Ok(Request::Shell { name, rows, cols }) => match srv.terminal(&name) {
                Ok(t) => {
                    let env = setup::env(&srv, &t.id);
                    shell::attach(&srv.shells, &t, &env, (rows, cols), reader, &mut write).await
                }
                Err(error) => Some(Reply::Error { error }),
            },
            // Never ends by itself, so a stop does not wait for it (nor for a shell).
            Ok(Request::Watch) => {
                watch(&srv, &mut write).await;
                None
            }
            Ok(req) => {
                // A stop waits until this reply is written (see `shutdown`).
                let _answering = srv.answering();
                let kind = req.answer_kind();
                if let Some(answer) = handle::handle(&srv, req, &mut write, &stop).await {
                    debug_assert!(
                        answer.as_ref().map_or(true, |a| Some(a.kind()) == kind),
                        "a request answered with another than its answer kind"
                    );
                    wire::write_answer(&mut write, answer).await;
                }
                return;
            }
            Err(e) => Some(Reply::Error {
                error: BatonError::bad_input(format!("malformed request: {e}")),
            }),
        },
        Err(e) => Some(Reply::Error {
            error: BatonError::bad_input(format!("unreadable request: {e}")),
        }),
    };
    if let Some(r) = reply {
        write_reply(&mut write, &r).await;
    }
}

/// Streams every change to a watching client until it goes away.
async fn watch(srv: &Server, write: &mut tokio::net::unix::OwnedWriteHalf) {
    use tokio::sync::broadcast::error::RecvError;
    let (mut rx, mut replay) = subscribe_watcher(srv);
    loop {
        let snapshot = match read::ls(srv, true, false) {
            Ok(terminals) => Reply::Watch {
                event: WatchEvent::Terminals { terminals },
            },
            Err(error) => Reply::Error { error },
        };
        // The list, then each running turn from its start: a client that attaches (or fell
        // behind) mid-turn draws what the turn streamed before it came.
        let replies =
            std::iter::once(snapshot).chain(replay.drain(..).map(|event| Reply::Watch { event }));
        for r in replies {
            if !write_reply(write, &r).await {
                return;
            }
        }
        loop {
            let reply = match rx.recv().await {
                Ok(event) => Reply::Watch { event },
                Err(RecvError::Lagged(_)) => break,
                Err(RecvError::Closed) => return,
            };
            if !write_reply(write, &reply).await {
                return;
            }
        }
        (rx, replay) = subscribe_watcher(srv);
    }
}

/// A new subscription to the watch channel and what the running turns streamed before it. The
/// running feeds are held still while the client subscribes; a turn that started meanwhile
/// (its feed not among those held) makes it try again.
fn subscribe_watcher(
    srv: &Server,
) -> (
    tokio::sync::broadcast::Receiver<WatchEvent>,
    Vec<WatchEvent>,
) {
    loop {
        let before = running_feeds(srv);
        let ((rx, now), replay) =
            feed::replay_for_new_watcher(&before, || (srv.watch.subscribe(), running_feeds(srv)));
        let same =
            before.len() == now.len() && before.iter().zip(&now).all(|(a, b)| Arc::ptr_eq(a, b));
        if same {
            return (rx, replay);
        }
    }
}

/// The feed of each terminal's running turn (the input its runner took), in a stable order.
fn running_feeds(srv: &Server) -> Vec<Arc<Feed>> {
    let mut runtimes = srv.all_runtimes();
    runtimes.sort_by(|a, b| a.0.cmp(&b.0));
    runtimes
        .iter()
        .filter_map(|(_, rt)| {
            let n = rt.taken()?;
            let feeds = rt.feeds.lock().unwrap_or_else(|p| p.into_inner());
            feeds.get(&n).cloned()
        })
        .collect()
}
