//! The UI's threads: one blocks on the watch socket, one on the keyboard, and each request to
//! the server runs on its own short-lived thread; all of them feed one channel, so the main
//! loop sleeps until something happens (an idle client uses no CPU).

use std::io::{BufRead, BufReader, Write};
use std::sync::mpsc::Sender;

use crossterm::event::Event;

use super::app::{Msg, Tag};
use crate::client::{send_request, Client};
use crate::error::BatonError;
use crate::protocol::{Reply, Request};

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
                Ok(Reply::Ok { .. } | Reply::Event { .. }) => continue,
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
/// blocks the UI, however slow the server is.
pub fn spawn_call(client: &Client, tag: Tag, req: Request, tx: Sender<Msg>) {
    let client = client.clone();
    std::thread::spawn(move || {
        // Only an already running server: the UI never starts a second one behind the user's
        // back after the first went away.
        let result = match client.connect_existing() {
            None => Err(BatonError::failed("the baton server is not running")),
            Some(stream) => match send_request(stream, &req, &mut |_| {}) {
                Ok(Reply::Ok { data }) => Ok(data),
                Ok(Reply::Error { error }) => Err(error),
                Ok(Reply::Event { .. } | Reply::Watch { .. }) => Err(BatonError::failed(
                    "the server answered with an event instead of a result",
                )),
                Err(e) => Err(e),
            },
        };
        let _ = tx.send(Msg::Reply(tag, result));
    });
}
