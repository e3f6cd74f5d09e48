//! `baton send`: its arguments, their own parser (the hot path's: it skips building every
//! other subcommand's) and the run.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::client::{commands, ctrl_c, hosts, Client};
use crate::error::BatonError;
use crate::protocol::{Request, SendModeArg, SendRequest};

/// `baton send …` alone: the hot path's parser. Building every subcommand's arguments, as the
/// whole command line does, costs a send about 0.5 ms of CPU (`perf stat`), 0.2 to 0.3 ms of
/// its wall on a 2-core machine (a send against a `watch`, both refused at the same point).
#[derive(Parser)]
#[command(name = "baton")]
struct SendOnly {
    #[command(subcommand)]
    cmd: SendCmd,
}

#[derive(Subcommand)]
enum SendCmd {
    Send(SendArgs),
}

/// `args` (the whole command line, program name first) as a `send`, when they are one this
/// parser takes. Anything it refuses (a typo, `--help`, another subcommand) is `None`: the
/// full command line parses it again, so its messages are the whole command line's.
pub fn parse(args: &[OsString]) -> Option<SendArgs> {
    if args.get(1).is_none_or(|a| a != "send") {
        return None;
    }
    match SendOnly::try_parse_from(args) {
        Ok(SendOnly {
            cmd: SendCmd::Send(send),
        }) => Some(send),
        Err(_) => None,
    }
}

/// Runs the send (streaming its turn unless `--detach`); the exit code.
pub fn run(client: &Client, args: SendArgs) -> Result<i32, BatonError> {
    let (c, name) = hosts::route(client, &args.name)?;
    let (json, detach) = (args.json, args.detach);
    let req = args.request(&c, name.clone())?;
    if !detach {
        ctrl_c::install(&c, &name, false);
    }
    commands::send(&c, req, &name, json)
}

/// `baton send`'s arguments.
#[derive(Args)]
pub struct SendArgs {
    pub name: String,
    pub prompt: Option<String>,
    /// Switch the terminal's provider from this turn on
    #[arg(long)]
    pub provider: Option<String>,
    /// Switch the terminal's model from this turn on (`default`: back to the provider's default)
    #[arg(long)]
    pub model: Option<String>,
    /// Move the terminal's runs to this directory from this turn on (a fresh conversation opens)
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// While a turn runs: wait and start the next turn (the default)
    #[arg(long, conflicts_with_all = ["steer", "jump"])]
    pub queue: bool,
    /// While a turn runs: join it before its next model call where the CLI can take it
    /// (else it runs next)
    #[arg(long, conflicts_with = "jump")]
    pub steer: bool,
    /// While a turn runs: interrupt it (its partial output is kept) and run this next
    #[arg(long)]
    pub jump: bool,
    /// Retire the live conversation first: this prompt opens a fresh one (the standing text,
    /// nothing summarized)
    #[arg(long, conflicts_with = "steer")]
    pub fresh: bool,
    /// Return once the prompt is accepted (journalled); prints its input number
    #[arg(long)]
    pub detach: bool,
    /// Print the stream as JSON lines
    #[arg(long)]
    pub json: bool,
}

impl SendArgs {
    /// The request to `client`'s server, for the bare `name`.
    pub fn request(mut self, client: &Client, name: String) -> Result<Request, BatonError> {
        let dir = match client.via {
            None => self.dir.take().map(absolute),
            Some(_) if self.dir.is_none() => None,
            Some(_) => remote_dir(client, self.dir.take())?,
        };
        let prompt = commands::read_prompt(self.prompt.take())?;
        Ok(self.request_of(name, prompt, dir))
    }

    /// The request for the bare `name`, with the prompt and the directory (absolute where the
    /// server runs) already found (the `:` prompt finds them its own way).
    pub fn request_of(self, name: String, prompt: String, dir: Option<String>) -> Request {
        let mode = match (self.steer, self.jump) {
            (true, _) => SendModeArg::Steer,
            (_, true) => SendModeArg::Jump,
            _ => SendModeArg::Queue,
        };
        Request::Send {
            name,
            send: SendRequest {
                prompt,
                provider: self.provider,
                model: self.model,
                dir,
                mode,
                fresh: self.fresh,
            },
            detach: self.detach,
        }
    }
}

/// A directory on another host: it must be given, and absolute there (this machine's current
/// directory means nothing on it).
pub fn remote_dir(client: &Client, dir: Option<PathBuf>) -> Result<Option<String>, BatonError> {
    let host = client.via.as_ref().map_or("", |h| h.name.as_str());
    match dir {
        Some(d) if d.is_absolute() => Ok(Some(d.to_string_lossy().into_owned())),
        _ => Err(BatonError::bad_input(format!(
            "give --dir as an absolute path on host {host} (e.g. --dir /home/me/project)"
        ))),
    }
}

/// `path` made absolute against the current directory, as the server (elsewhere) needs it.
pub fn absolute(path: PathBuf) -> String {
    std::path::absolute(&path)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
#[path = "send_tests.rs"]
mod tests;
