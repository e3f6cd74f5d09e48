//! What the subcommands' runs (`cli`) share: a request's answer printed as text or `--json`, a
//! streamed turn, the server's start, stop and status.

use std::io::Read;

use serde::Serialize;

use super::out;
use super::render::{self, Out};
use super::Client;
use crate::error::{BatonError, EXIT_FAILED};
use crate::protocol::views::{ExtractedView, NotRunningView, StatusView, StoppingView};
use crate::protocol::{Answer, InstructionsAction, Reply, Request, SendEvent, Sent};
use crate::validate;
use crate::words::TurnStatus;

/// Prints a one-reply command's result: its view `T` as text, or (`--json`) as JSON.
pub fn simple<T: TryFrom<Answer, Error = BatonError>>(
    client: &Client,
    req: &Request,
    json: bool,
    text: fn(&T) -> String,
) -> Result<i32, BatonError> {
    shown(client, req, json, text).map(|_| 0)
}

/// [`simple`], handing the view back (for a command whose exit code depends on it).
pub fn shown<T: TryFrom<Answer, Error = BatonError>>(
    client: &Client,
    req: &Request,
    json: bool,
    text: fn(&T) -> String,
) -> Result<T, BatonError> {
    let mut answer = client.call(req)?;
    if json {
        print_sorted(&answer);
        return T::try_from(answer);
    }
    // A remote terminal is shown by the name it is addressed by: `HOST:NAME`.
    if let Some(name) = answer.names_mut().name {
        *name = client.shown_name(name);
    }
    let view = T::try_from(answer)?;
    out::print(&text(&view));
    Ok(view)
}

pub fn print_json(v: &impl Serialize) {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    out::json_line(&text);
}

/// `v` as `--json` prints an answer: its keys in alphabetical order at every level, as they
/// always were (read through a `serde_json::Value`, which keeps them so).
pub fn print_sorted(v: &impl Serialize) {
    match serde_json::to_value(v) {
        Ok(v) => print_json(&v),
        Err(e) => out::side(&format!("baton: cannot print the answer as JSON: {e}")),
    }
}

/// Where `baton send` gets its prompt: the argument, or stdin for `-`.
pub fn read_prompt(arg: Option<String>) -> Result<String, BatonError> {
    match arg.as_deref() {
        Some("-") => {
            let text = read_stdin("the prompt")?;
            validate::prompt(&text)?;
            Ok(text)
        }
        Some(p) => {
            validate::prompt(p)?;
            Ok(p.to_string())
        }
        None => Err(BatonError::bad_input(
            "no prompt: give it as an argument, or `-` to read it from stdin",
        )),
    }
}

/// Stdin as `what` (`the prompt`): UTF-8, at most [`validate::MAX_PROMPT_BYTES`] (read no
/// further: a larger one is refused as over the limit, whatever follows).
pub fn read_stdin(what: &str) -> Result<String, BatonError> {
    let limit = validate::MAX_PROMPT_BYTES;
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| BatonError::bad_input(format!("cannot read {what} from stdin: {e}")))?;
    if bytes.len() > limit {
        return Err(validate::too_big(&format!("{what} on stdin"), None));
    }
    validate::stdin_text(bytes, what)
}

/// `baton send`: streams the turn; exit 0 only when it completed.
pub fn send(client: &Client, req: Request, name: &str, json: bool) -> Result<i32, BatonError> {
    let write = |o: Out| match o {
        Out::Main(text) => out::print(&text),
        Out::Side(text) => out::side(&text),
    };
    let mut printer = render::Printer::default();
    let shown = client.shown_name(name);
    let name = shown.as_str();
    let final_reply = client.request(&req, |reply| {
        if let Reply::Event {
            event: SendEvent::Started { .. },
        } = reply
        {
            super::ctrl_c::started();
        }
        if json {
            out::json_line(&serde_json::to_string(reply).unwrap_or_default());
            return;
        }
        if let Reply::Event { event } = reply {
            printer.event(name, event).into_iter().for_each(write);
        }
    });
    printer.finish().into_iter().for_each(write);
    let final_reply = final_reply.map_err(|mut e| {
        if client.via.is_some() && e.message.starts_with(super::LOST) {
            e.message
                .push_str(&format!(": `baton watch {name}` picks its turn up again"));
        }
        e
    })?;
    let sent = Sent::try_from(final_reply.into_answer(&req)?)?;
    if json {
        // The final line as the server wrote it.
        let line = Reply::answered(Ok(sent.clone().into()));
        out::json_line(&serde_json::to_string(&line).unwrap_or_default());
    }
    match sent {
        Sent::Ended(summary) => {
            if !json {
                out::side(&render::summary_line(&summary));
            }
            // A turn was journalled, whatever failed in it (even a CLI that printed garbage:
            // `unusable_cli` tells that apart): exit 2 is kept for input refused before
            // anything changed.
            Ok(match summary.status {
                TurnStatus::Completed => 0,
                TurnStatus::Interrupted if super::ctrl_c::pressed() => {
                    super::ctrl_c::EXIT_INTERRUPTED
                }
                TurnStatus::Failed | TurnStatus::Interrupted => EXIT_FAILED,
            })
        }
        // A detached send answers with an acknowledgement, not a summary.
        Sent::Accepted(accepted) => {
            if !json {
                out::side(&render::accepted(&accepted));
            }
            Ok(0)
        }
    }
}

/// `baton instructions extract`: the kept lines on stdout, one per line (`--json`: the list and
/// the extractor that decided).
pub fn extract(
    client: &Client,
    prompt: String,
    provider: Option<String>,
    json: bool,
) -> Result<i32, BatonError> {
    let found = ExtractedView::try_from(client.call(&Request::Extract { prompt, provider })?)?;
    if json {
        print_sorted(&found);
    } else {
        for line in &found.lines {
            out::line(line);
        }
        out::side(&format!("(extractor: {})", found.extractor));
    }
    Ok(0)
}

pub fn instructions(
    client: &Client,
    name: String,
    action: InstructionsAction,
    json: bool,
) -> Result<i32, BatonError> {
    simple(
        client,
        &Request::Instructions { name, action },
        json,
        render::instructions,
    )
}

/// `baton server status`: says whether a server runs, without starting one.
pub fn server_status(client: &Client, json: bool) -> Result<i32, BatonError> {
    match client.connect_existing() {
        Some(stream) => {
            let reply = super::send_request(stream, &Request::Status, &mut |_| {})?;
            let status = StatusView::try_from(reply.into_answer(&Request::Status)?)?;
            if json {
                print_sorted(&status);
            } else {
                out::print(&render::status(&status));
            }
            Ok(0)
        }
        None => {
            if json {
                print_json(&NotRunningView {
                    running: false,
                    data_dir: client.data.root.to_string_lossy().into_owned(),
                });
            } else {
                out::line(&format!("not running ({})", client.data.root.display()));
            }
            Ok(EXIT_FAILED)
        }
    }
}

pub fn server_start(client: &Client) -> Result<i32, BatonError> {
    if client.connect_existing().is_some() {
        out::line(&format!("already running ({})", client.data.root.display()));
        return Ok(0);
    }
    client.start_server()?;
    out::line(&format!("started ({})", client.data.root.display()));
    Ok(0)
}

/// `baton server stop`: asks the server to stop and waits until it has let go of its lock.
pub fn server_stop(client: &Client) -> Result<i32, BatonError> {
    let Some(stream) = client.connect_existing() else {
        out::line("not running");
        return Ok(0);
    };
    let reply = super::send_request(stream, &Request::Stop, &mut |_| {})?;
    let stopping = StoppingView::try_from(reply.into_answer(&Request::Stop)?)?;
    wait_unlocked(client);
    match stopping.waiting {
        0 => out::line("stopped"),
        n => out::line(&format!(
            "stopped; {n} input{} wait{} and run when the server starts again",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" }
        )),
    }
    Ok(0)
}

/// Blocks until the server process has released its lock (it exits right after).
fn wait_unlocked(client: &Client) {
    use nix::fcntl::{Flock, FlockArg};
    if let Ok(f) = std::fs::File::open(client.data.lock_file()) {
        // A blocking shared lock is granted exactly when the server's exclusive lock is gone.
        let _ = Flock::lock(f, FlockArg::LockShared);
    }
}
