//! What a server that starts finds of one that died: turns the journal started and never
//! finished. Before anything else runs in such a terminal, the turn's CLI (if it still runs:
//! the same pid with the same start time, as `TurnProcess` recorded) is stopped, its whole
//! process group, and the turn is journalled as interrupted with what it had streamed, read
//! back from its raw stream file with the provider's own parser. A turn whose CLI got to its
//! end (the stream holds its result) and exited before the server died is journalled as the
//! CLI ended it instead: its status, answer and context, as if the server had seen the exit.
//! The run's system-text file (`providers::system_file`) goes too.

use std::path::Path;
use std::time::{Duration, Instant};

use super::state::Server;
use crate::error::BatonError;
use crate::providers::{self, process};
use crate::store::{Entry, Record};
use crate::words::{ProviderKind, SessionReason, TurnEvent, TurnStatus};

/// How long a left-over CLI gets to stop on SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// Closes every unfinished turn of every terminal.
pub fn unfinished(srv: &Server) -> Result<(), BatonError> {
    for (tid, turn_id) in srv.store.unfinished_turns()? {
        let entries = srv.store.entries(&tid).unwrap_or_default();
        let stopped = stop_leftover(&entries, &turn_id);
        // Its CLI is stopped: the system-text file the dead server wrote for it can go.
        crate::providers::system_file::sweep(&srv.run_dir(&tid), &srv.homes.codex, &tid, None);
        let provider = entries.iter().find_map(|e| match &e.record {
            Record::TurnStarted {
                turn_id: t,
                provider,
                conversation_id,
                ..
            } if *t == turn_id => Some((*provider, conversation_id.clone())),
            _ => None,
        });
        let input = entries.iter().find_map(|e| match &e.record {
            Record::TurnStarted {
                turn_id: t, input, ..
            } if *t == turn_id => *input,
            _ => None,
        });
        // Read once: what it streamed, and (when it got to its end) how it ended.
        let text = std::fs::read(srv.turn_file(&tid, &turn_id))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        // The directory the turn ran in: tool targets are shown relative to it.
        let dir = provider
            .as_ref()
            .and_then(|(_, conv)| super::steps::conversation_dir(srv, &tid, conv));
        let streamed = match provider {
            Some((p, _)) => streamed(&text, p, dir.as_deref()),
            None => Streamed::default(),
        };
        if let (Some((p, conv)), Some((sid, model))) = (&provider, &streamed.session) {
            let known = srv
                .store
                .sessions(conv)?
                .iter()
                .any(|s| s.session_id == *sid);
            if !known {
                srv.store.append(
                    &tid,
                    Record::SessionStarted {
                        conversation_id: conv.clone(),
                        turn_id: turn_id.clone(),
                        provider: *p,
                        session_id: sid.clone(),
                        model: model.clone(),
                        reason: SessionReason::Fresh,
                    },
                )?;
            }
        }
        let mut error = "the baton server stopped while this turn ran".to_string();
        if let Some(pid) = stopped {
            error.push_str(&format!(
                " (its CLI, pid {pid}, was still running: stopped)"
            ));
        }
        // A CLI that printed nothing never reached the model (both CLIs print their session
        // before the first model call): the prompt goes back to the queue, first, as new input.
        let requeued = match input {
            Some(n) if streamed.lines == 0 => requeue(srv, &tid, n)?,
            _ => None,
        };
        if let Some(m) = requeued {
            error.push_str(&format!(
                " before its CLI printed anything: the prompt runs again as input {m}"
            ));
        }
        let session_id = streamed.session.clone().map(|(s, _)| s);
        let ended = match (&provider, stopped, streamed.ended) {
            (Some((p, _)), None, true) => Some(ended_outcome(srv, &text, *p, dir.as_deref())),
            _ => None,
        };
        let record = match ended {
            Some(outcome) => Record::TurnFinished {
                turn_id,
                status: outcome.status.unwrap_or(TurnStatus::Failed),
                error: outcome.error,
                session_id: outcome.session_id.or(session_id),
                model: outcome.model,
                context: outcome.context,
                answer: streamed.answer,
                tools: streamed.tools,
                notes: vec![ENDED_NOTE.to_string()],
                cost: outcome.cost,
            },
            None => Record::TurnFinished {
                turn_id,
                status: TurnStatus::Interrupted,
                error: Some(error),
                session_id,
                model: None,
                context: None,
                answer: streamed.answer,
                tools: streamed.tools,
                notes: vec![],
                cost: None,
            },
        };
        srv.store.append(&tid, record)?;
    }
    Ok(())
}

/// The note of a turn whose end is read back from its stream.
const ENDED_NOTE: &str =
    "the baton server stopped after the CLI ended this turn, before it recorded the end: read back from the CLI's stream";

/// What the provider's parser makes of the whole raw stream `text` of a turn whose CLI exited after
/// its result: the exit itself was not seen, and a CLI that prints its result exits 0.
fn ended_outcome(
    srv: &Server,
    text: &str,
    provider: ProviderKind,
    dir: Option<&Path>,
) -> crate::providers::TurnOutcome {
    let exit = process::ExitInfo {
        code: Some(0),
        signal: None,
        stderr_tail: String::new(),
        interrupted: false,
    };
    let Some(mut parser) = providers::of(provider).parser(dir) else {
        return providers::TurnOutcome::default();
    };
    text.lines().for_each(|l| drop(parser.feed(l)));
    parser.finish(&exit, &srv.homes, dir.unwrap_or(Path::new("")), None)
}

/// The directory conversation `conversation` of terminal `tid` runs in, when the index has it.
/// Stops turn `turn_id`'s CLI if it still runs; returns its pid when it did.
fn stop_leftover(entries: &[Entry], turn_id: &str) -> Option<i32> {
    let (pid, start_time) = entries.iter().rev().find_map(|e| match &e.record {
        Record::TurnProcess {
            turn_id: t,
            pid,
            start_time,
        } if t == turn_id => Some((*pid, *start_time)),
        _ => None,
    })?;
    let alive = || process::start_time(pid).is_some_and(|(t, running)| t == start_time && running);
    if !alive() {
        return None;
    }
    let _ = process::terminate(pid);
    let deadline = Instant::now() + STOP_GRACE;
    while alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    // The group too: tools the CLI started may outlive it.
    let _ = process::kill(pid);
    Some(pid)
}

/// Puts input `n`'s prompt back at the head of terminal `tid`'s queue as a new input (numbers
/// are never reused); returns its number.
fn requeue(srv: &Server, tid: &str, n: u32) -> Result<Option<u32>, BatonError> {
    let Some(old) = srv.store.input(tid, n)? else {
        return Ok(None);
    };
    let m = srv.store.last_input_number(tid)? + 1;
    srv.store.append(
        tid,
        Record::InputAccepted {
            input: m,
            prompt: old.prompt,
            mode: old.mode,
            direct: false,
            provider: old.provider,
            endpoint: old.endpoint,
            model: old.model,
            dir: old.dir,
            // Its turn had started, so a fresh conversation it asked for is already open.
            fresh: false,
        },
    )?;
    srv.store.append(
        tid,
        Record::InputMoved {
            input: m,
            position: 1,
        },
    )?;
    Ok(Some(m))
}

/// What a turn's raw stream holds.
#[derive(Debug, Default)]
pub(super) struct Streamed {
    /// How many lines the CLI printed.
    pub(super) lines: usize,
    pub(super) answer: String,
    pub(super) tools: Vec<String>,
    /// The provider session it ran in, and that session's model.
    pub(super) session: Option<(String, Option<String>)>,
    /// The CLI reported the turn's end (its result).
    pub(super) ended: bool,
}

/// What raw stream `text` of a `provider` turn run in `dir` holds (an imported turn that was
/// still running: its old machine's directory is not at hand, so no `dir`).
pub(super) fn streamed(text: &str, provider: ProviderKind, dir: Option<&Path>) -> Streamed {
    // The echo of the prompt comes as the CLI reads it, before its session and any model call.
    let p = providers::of(provider);
    let printed = |l: &&str| !p.is_echo(l);
    let mut out = Streamed {
        lines: text.lines().filter(printed).count(),
        ..Streamed::default()
    };
    for ev in super::steps::events(text, provider, dir) {
        ev.add_to_answer(&mut out.answer);
        match ev {
            TurnEvent::ToolUse { summary, .. } => out.tools.push(summary),
            TurnEvent::Session { session_id, model } => out.session = Some((session_id, model)),
            TurnEvent::End { .. } => out.ended = true,
            TurnEvent::Text { .. }
            | TurnEvent::Delta { .. }
            | TurnEvent::ToolResult { .. }
            | TurnEvent::Denied { .. }
            | TurnEvent::SubagentText { .. }
            | TurnEvent::Usage { .. }
            | TurnEvent::Warning { .. } => {}
        }
    }
    out
}
