//! `baton server bridge [--data-dir D]`, the far side of an ssh channel: it says hello (its
//! version and [`PROTOCOL_VERSION`]) on stdout, then joins stdin and stdout to the server
//! socket of that data directory, starting the server when none runs (`Client::connect`).
//! It only copies bytes: what a request started belongs to the server, so a channel that
//! drops ends the bridge and nothing else (see ARCHITECTURE.md, "Other hosts").

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;

use crate::client::Client;
use crate::error::BatonError;
use crate::paths::DataDir;
use crate::protocol::{Hello, Reply, PROTOCOL_VERSION};

/// Runs the bridge until either side ends; the exit code.
pub fn run(data_dir: Option<PathBuf>) -> Result<i32, BatonError> {
    let client = match data_dir {
        Some(d) => Client {
            data: DataDir::new(d.clone()),
            // The server it starts reads this data directory's config.
            server_env: vec![("BATON_HOME".into(), d.into_os_string())],
            via: None,
        },
        None => Client::from_env()?,
    };
    let hello = Hello {
        baton: env!("CARGO_PKG_VERSION").to_string(),
        protocol: PROTOCOL_VERSION,
    };
    // Before the server is reached: the client learns the version even if no server starts.
    if write_line(&hello).is_err() {
        return Ok(1);
    }
    let socket = match client.connect() {
        Ok(s) => s,
        Err(error) => {
            let _ = write_line(&Reply::Error { error });
            return Ok(1);
        }
    };
    let replies = socket
        .try_clone()
        .map_err(|e| BatonError::failed(format!("cannot share the server socket: {e}")))?;
    // The server's side ends with its final reply (or a `watch` the client leaves): then
    // the whole bridge ends, whatever stdin still holds.
    std::thread::spawn(move || {
        copy_out(replies);
        std::process::exit(0);
    });
    copy_in(socket);
    // The client's side ended (its channel dropped): closing the socket tells the server.
    Ok(0)
}

fn write_line(v: &impl serde::Serialize) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(v).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut out = std::io::stdout().lock();
    out.write_all(&line)?;
    out.flush()
}

/// Requests from the channel to the server, until the channel ends.
fn copy_in(mut socket: UnixStream) {
    let mut input = std::io::stdin().lock();
    let mut buf = [0u8; 16 * 1024];
    while let Ok(n) = input.read(&mut buf) {
        if n == 0 || socket.write_all(&buf[..n]).is_err() {
            return;
        }
    }
}

/// Replies from the server to the channel, each chunk flushed as it comes (a turn streams).
fn copy_out(mut socket: UnixStream) {
    let mut out = std::io::stdout().lock();
    let mut buf = [0u8; 16 * 1024];
    while let Ok(n) = socket.read(&mut buf) {
        if n == 0 || out.write_all(&buf[..n]).is_err() || out.flush().is_err() {
            return;
        }
    }
}
