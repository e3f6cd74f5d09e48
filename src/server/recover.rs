//! What a server that starts finds of one that died: turns the journal started and never
//! finished. Before anything else runs in such a terminal, the turn's CLI (if it still runs:
//! the same pid with the same start time, as `TurnProcess` recorded) is stopped, its whole
//! process group, and the turn is journalled as interrupted with what it had streamed, read
//! back from its raw stream file with the provider's own parser. A turn whose CLI got to its
//! end (the stream holds its result) and exited before the server died is journalled as the
//! CLI ended it instead: its status, answer and context, as if the server had seen the exit.
//! The run's system-text file (`providers::system_file`) goes too.
//!
//! One accepted prompt, one turn. A turn's start (`turn_started`, with the CLI's
//! `turn_process`) is journalled and synced while the CLI loads; then `turn_prompted` is
//! written (not synced, no index write: `Store::append_mark`) and the prompt handed over at
//! once. What runs between the start's sync and the prompt's write, path by path:
//! - Claude cold (and a CLI started ahead of its turn, `prestart`): spawned (its system-text
//!   file written) before the start is journalled; after the sync only the gate's wake-up,
//!   the stream-json line on the stdin channel, and the stdin task's write.
//! - Claude warm: taken from the pool (`warm_for`, waiting for the pool to settle) before the
//!   start is journalled; after it, the same hops.
//! - `codex exec`: spawned (its profile written) before; after, the gated stdin's write.
//! - Codex app-server (warm): taken before; after, the `turn/start` request's write.
//! - A local endpoint: its start was journalled before the run was built and the endpoint's
//!   model list fetched (a network round trip); now the first request waits for its gate
//!   (`RunMsg::Prompting`), which opens once the mark is written.
//!
//! So for the CLIs the window was the start's sync itself (a kill during it leaves the line in
//! the file); it is now the few microseconds between the mark's write and the prompt's.
//!
//! A start without its mark, journalled in this boot (`turn_started`'s `boot`: a killed
//! server's unsynced lines are still in the file, so the mark is missing because it was never
//! written) and with an empty raw stream, never handed its prompt over: it is voided
//! (`turn_voided`), leaving no turn, no number spent, and its input first in the queue under
//! its number; the next runner runs it once. Any other start may have reached the model: it
//! ends as exactly one turn and is never run again by itself (`baton queue NAME retry` puts it
//! back). After a reboot (or in an older journal) a mark may be lost, so every start is closed
//! as interrupted. A start the journal lacks never reached a CLI: its input still waits.
//! Closing or voiding a turn writes its end last, so a crash during the recovery itself only
//! redoes it.

use std::path::Path;
use std::time::{Duration, Instant};

use super::state::Server;
use super::turn::tally::Tally;
use crate::error::BatonError;
use crate::providers::{self, process};
use crate::store::{Entry, Record};
use crate::words::{ProviderKind, SessionReason, TurnStatus};

/// How long a left-over CLI gets to stop on SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// Closes every unfinished turn of every terminal, or voids its start.
pub fn unfinished(srv: &Server) -> Result<(), BatonError> {
    for (tid, turn_id) in srv.store.unfinished_turns()? {
        close(srv, &tid, turn_id)?;
    }
    Ok(())
}

/// Whether `entries` mark turn `turn_id`'s prompt as gone out (`turn_prompted`).
fn prompted(entries: &[Entry], turn_id: &str) -> bool {
    entries
        .iter()
        .any(|e| matches!(&e.record, Record::TurnPrompted { turn_id: t } if t == turn_id))
}

/// What the journal's `turn_started` says of an unfinished turn.
struct Begun {
    provider: ProviderKind,
    conversation_id: String,
    /// The standing lines the session it opens carries (`turn_started`'s `standing`).
    standing: Vec<String>,
    /// The boot it was journalled in (`turn_started`'s `boot`).
    boot: Option<String>,
}

/// The start of turn `turn_id` in `entries`.
fn begun(entries: &[Entry], turn_id: &str) -> Option<Begun> {
    entries.iter().find_map(|e| match &e.record {
        Record::TurnStarted {
            turn_id: t,
            provider,
            conversation_id,
            standing,
            boot,
            ..
        } if t == turn_id => Some(Begun {
            provider: *provider,
            conversation_id: conversation_id.clone(),
            standing: standing.clone(),
            boot: boot.clone(),
        }),
        _ => None,
    })
}

/// How an unfinished turn is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closing {
    /// Its prompt never went out: the start is void and its input waits again.
    Voided,
    /// As its CLI ended it: the stream holds its result and the CLI had exited.
    AsEnded,
    /// Interrupted with what it had streamed; its prompt is not run again by itself.
    Interrupted,
}

/// What recovery knows of an unfinished turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Found {
    /// The journal holds its start (it names its provider).
    begun: bool,
    /// Its start was journalled in this boot: the journal read back holds every line the dead
    /// server wrote, so a missing mark was never written.
    same_boot: bool,
    /// `turn_prompted`: its prompt may have gone out.
    prompted: bool,
    /// Its raw stream holds at least a byte.
    streamed: bool,
    /// Its CLI still ran.
    still_ran: bool,
    /// Its stream holds its end.
    stream_ended: bool,
}

/// How an unfinished turn is closed. Never a second run: a start is void only when the journal
/// proves its prompt was not handed over (no mark, written before the prompt, in a journal
/// this boot wrote whole) and nothing streamed; otherwise it may have reached the model.
fn closing(f: Found) -> Closing {
    if f.begun && f.same_boot && !f.prompted && !f.streamed {
        return Closing::Voided;
    }
    match (f.begun, f.still_ran, f.stream_ended) {
        (true, false, true) => Closing::AsEnded,
        _ => Closing::Interrupted,
    }
}

/// Closes turn `turn_id` of terminal `tid`: its CLI stopped, its session journalled if the
/// stream named one the journal lacks, and its end journalled (last: a crash before it only
/// makes the next start do this again).
fn close(srv: &Server, tid: &str, turn_id: String) -> Result<(), BatonError> {
    let entries = srv.store.entries(tid).unwrap_or_default();
    let stopped = stop_leftover(&entries, &turn_id);
    // Its CLI is stopped: the system-text file the dead server wrote for it can go.
    crate::providers::system_file::sweep(&srv.run_dir(tid), &srv.homes.codex, tid, None);
    let begun = begun(&entries, &turn_id);
    // Read once: what it streamed, and (when it got to its end) how it ended.
    let text = std::fs::read(srv.turn_file(tid, &turn_id))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    // The directory the turn ran in: tool targets are shown relative to it.
    let dir = begun
        .as_ref()
        .and_then(|b| super::steps::conversation_dir(srv, tid, &b.conversation_id));
    let streamed = match &begun {
        Some(b) => streamed(&text, b.provider, dir.as_deref()),
        None => Streamed::default(),
    };
    let found = Found {
        begun: begun.is_some(),
        same_boot: begun
            .as_ref()
            .and_then(|b| b.boot.as_deref())
            .is_some_and(|b| Some(b) == process::boot_id()),
        prompted: prompted(&entries, &turn_id),
        streamed: !text.is_empty(),
        still_ran: stopped.is_some(),
        stream_ended: streamed.tally.ended,
    };
    let how = closing(found);
    if how == Closing::Voided {
        return void(srv, tid, turn_id);
    }
    if let Some(b) = &begun {
        record_session(srv, tid, &turn_id, b, &streamed.tally)?;
    }
    super::removal::crash_point("recovering");
    // Its files are committed as this turn, before anything else runs in its worktree.
    super::checkout::commit_recovered(srv, tid, &turn_id)?;
    let record = match (&begun, how) {
        (Some(b), Closing::AsEnded) => {
            let outcome = ended_outcome(srv, &text, b.provider, dir.as_deref());
            ended_record(turn_id, outcome, streamed.tally)
        }
        _ => {
            // The terminal's name as it is now, for the command the error names.
            let name = match srv.store.terminal(tid) {
                Ok(Some(t)) => t.name,
                _ => "NAME".to_string(),
            };
            interrupted_record(turn_id, stopped, streamed.tally, &name)
        }
    };
    srv.store.append(tid, record)?;
    Ok(())
}

/// Voids the start of turn `turn_id` of terminal `tid` (its prompt never went out): its empty
/// raw stream goes, then `turn_voided` (last: a crash before it only makes the next start do
/// this again) puts its input back at the head of the queue under its number.
fn void(srv: &Server, tid: &str, turn_id: String) -> Result<(), BatonError> {
    let _ = std::fs::remove_file(srv.turn_file(tid, &turn_id));
    super::removal::crash_point("recovering");
    crate::log_line!(
        "baton server: {tid}: turn {turn_id} never gave its CLI the prompt: its input waits again"
    );
    srv.store.append(tid, Record::TurnVoided { turn_id })?;
    Ok(())
}

/// Journals the session the stream of turn `turn_id` named when its conversation does not
/// have it yet (the dead server never saw it).
fn record_session(
    srv: &Server,
    tid: &str,
    turn_id: &str,
    begun: &Begun,
    tally: &Tally,
) -> Result<(), BatonError> {
    let Some((sid, model)) = &tally.session else {
        return Ok(());
    };
    let conv = &begun.conversation_id;
    if srv
        .store
        .sessions(conv)?
        .iter()
        .any(|s| s.session_id == *sid)
    {
        return Ok(());
    }
    srv.store.append(
        tid,
        Record::SessionStarted {
            conversation_id: conv.clone(),
            turn_id: turn_id.to_string(),
            provider: begun.provider,
            session_id: sid.clone(),
            model: model.clone(),
            reason: SessionReason::Fresh,
            // What the crashed turn's plan added is not journalled: later resumes get the
            // conversation's text (a Claude run's appended text changes; Codex kept its own).
            standing: begun.standing.clone(),
        },
    )?;
    Ok(())
}

/// The end of a turn whose CLI ended it before the server died: as the CLI ended it.
fn ended_record(turn_id: String, outcome: crate::providers::TurnOutcome, tally: Tally) -> Record {
    Record::TurnFinished {
        turn_id,
        status: outcome.status.unwrap_or(TurnStatus::Failed),
        error: outcome.error,
        session_id: outcome.session_id.or(tally.session.map(|(s, _)| s)),
        model: outcome.model,
        context: outcome.context,
        answer: tally.answer,
        tools: tally.tools,
        notes: vec![ENDED_NOTE.to_string()],
        cost: outcome.cost,
        // The dead server's clock is gone: the times in the journal say it.
        duration_ms: None,
    }
}

/// The end of a turn the server's death cut short: interrupted, saying whether its CLI
/// (`stopped`: its pid) still ran, and that its prompt (which may have reached the model) is
/// not run again unless the user asks.
fn interrupted_record(turn_id: String, stopped: Option<i32>, tally: Tally, name: &str) -> Record {
    let mut error = super::turn::retry::CRASH_ERROR.to_string();
    if let Some(pid) = stopped {
        error.push_str(&format!(
            " (its CLI, pid {pid}, was still running: stopped)"
        ));
    }
    error.push_str(&format!(
        ": its prompt may have reached the model, so it does not run again by itself (`baton queue {name} retry` puts it back)"
    ));
    Record::TurnFinished {
        turn_id,
        status: TurnStatus::Interrupted,
        error: Some(error),
        session_id: tally.session.map(|(s, _)| s),
        model: None,
        context: None,
        answer: tally.answer,
        tools: tally.tools,
        notes: vec![],
        cost: None,
        duration_ms: None,
    }
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

/// What a turn's raw stream holds.
#[derive(Debug, Default)]
pub(super) struct Streamed {
    /// Its events summed up, as the live turn sums them.
    pub(super) tally: Tally,
}

/// What raw stream `text` of a `provider` turn run in `dir` holds (an imported turn that was
/// still running: its old machine's directory is not at hand, so no `dir`).
pub(super) fn streamed(text: &str, provider: ProviderKind, dir: Option<&Path>) -> Streamed {
    Streamed {
        tally: Tally::of(&super::steps::events(text, provider, dir)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journalled_start_closes_as_one_turn_never_a_second_run() {
        use Closing::{AsEnded, Interrupted};
        // (begun, its CLI still ran, its stream holds its end) -> how it closes, once its
        // prompt may have gone out (marked).
        let table = [
            ((true, false, true), AsEnded),
            ((true, false, false), Interrupted),
            ((true, true, true), Interrupted),
            ((true, true, false), Interrupted),
            ((false, false, true), Interrupted),
            ((false, false, false), Interrupted),
            ((false, true, false), Interrupted),
        ];
        for ((begun, still_ran, stream_ended), want) in table {
            let f = Found {
                begun,
                same_boot: true,
                prompted: true,
                streamed: stream_ended,
                still_ran,
                stream_ended,
            };
            assert_eq!(closing(f), want, "{f:?}");
        }
    }

    #[test]
    fn a_start_is_void_only_when_the_journal_proves_its_prompt_never_went_out() {
        use Closing::{Interrupted, Voided};
        // (same boot, marked, streamed, its CLI still ran) -> how a journalled start closes.
        let table = [
            ((true, false, false, false), Voided),
            ((true, false, false, true), Voided),
            // Marked: it may have reached the model.
            ((true, true, false, false), Interrupted),
            ((true, true, false, true), Interrupted),
            // A byte streamed: the CLI ran.
            ((true, false, true, false), Interrupted),
            // Another boot (or an older journal, no boot): an unsynced mark may be lost.
            ((false, false, false, false), Interrupted),
            ((false, true, false, false), Interrupted),
        ];
        for ((same_boot, prompted, streamed, still_ran), want) in table {
            let f = Found {
                begun: true,
                same_boot,
                prompted,
                streamed,
                still_ran,
                stream_ended: false,
            };
            assert_eq!(closing(f), want, "{f:?}");
        }
        let unbegun = Found {
            begun: false,
            same_boot: false,
            prompted: false,
            streamed: false,
            still_ran: false,
            stream_ended: false,
        };
        assert_eq!(closing(unbegun), Interrupted);
    }
}
