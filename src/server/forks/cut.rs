//! What a rewind to turn T carries of the provider's history: exactly what the model had when
//! T was sent. The turns of T's session before T, cut out of a copy of that session (Claude:
//! `--resume-session-at` the entry T's prompt follows, at the first turn;
//! Codex: a copy cut back through its app-server now); nothing when T opened its session
//! (the standing text was all the model had), or, when T's session was itself a fork, that
//! fork's source; a local conversation's turns before T, copied. Where the CLI cannot cut its
//! session (its file is gone, the turns do not match), the rewind opens fresh and says why.

use std::path::Path;

use super::{Carried, CopyNow};
use crate::engine::system_text::session_text;
use crate::error::BatonError;
use crate::providers::{self, Carrying};
use crate::server::state::Server;
use crate::store::{ConversationView, Entry, Record, SessionFork, TerminalRow, TurnView};
use crate::words::{ProviderKind, SessionReason};

pub(super) async fn carry_before(
    srv: &Server,
    from: &TerminalRow,
    turns: &[TurnView],
    target: &TurnView,
    entries: &[Entry],
    notes: &mut Vec<String>,
) -> Result<Carried, BatonError> {
    let conv = srv
        .store
        .conversations(&from.id)?
        .into_iter()
        .find(|c| c.id == target.conversation_id)
        .ok_or_else(|| BatonError::failed("internal: the turn's conversation is not indexed"))?;
    let provider = providers::of(target.provider);
    if provider.carrying() == Carrying::History {
        return Ok(Carried::History(crate::server::turn::local::history(
            entries, &conv.id, &target.id,
        )));
    }
    let earlier: Vec<&TurnView> = turns
        .iter()
        .filter(|t| t.conversation_id == conv.id && t.number < target.number)
        .collect();
    // The session T ran in; a turn that failed before its CLI said one ran in the last one.
    let session = target
        .session_id
        .clone()
        .or_else(|| earlier.iter().rev().find_map(|t| t.session_id.clone()));
    let Some(session) = session else {
        return Ok(nothing_before(&conv));
    };
    match started_by(entries, &session) {
        // T opened its session: the model had the standing text, or the fork's source.
        Some((turn_id, reason)) if turn_id == target.id => {
            if reason == SessionReason::Fork {
                Ok(conv.fork.clone().map_or(Carried::Nothing, Carried::again))
            } else {
                Ok(Carried::Nothing)
            }
        }
        _ => {
            let kept = srv.store.session(&conv.id, &session)?;
            let cut = Cut {
                provider: target.provider,
                later_prompts: turns
                    .iter()
                    .filter(|t| {
                        t.number > target.number && t.session_id.as_deref() == Some(&session)
                    })
                    .count(),
                model: kept.model,
                session_id: session,
                prompt: target.prompt.clone(),
                dir: conv.dir.clone(),
                system_text: session_text(&conv.system_text, &kept.standing),
            };
            Ok(cut_back(srv, cut, target.number, notes))
        }
    }
}

/// What a rewind carries of the session `cut` cuts back before turn `number`: a copy cut at
/// the fork's first run, or now, once the new checkout exists; where it cannot be cut, a fresh
/// conversation, and a note says why.
fn cut_back(srv: &Server, cut: Cut, number: u32, notes: &mut Vec<String>) -> Carried {
    let provider = providers::of(cut.provider);
    match provider.carrying() {
        Carrying::Now => {
            return Carried::Now(CopyNow {
                provider: cut.provider,
                session_id: cut.session_id,
                model: cut.model,
                cut: Some((cut.later_prompts, cut.prompt)),
            })
        }
        Carrying::AtFirstRun | Carrying::History => {}
    }
    let dir = Path::new(&cut.dir);
    let at = provider.cut_point(
        &srv.homes,
        dir,
        &cut.session_id,
        cut.later_prompts,
        &cut.prompt,
    );
    match at {
        Ok(at) => Carried::Session(SessionFork {
            provider: cut.provider,
            session_id: cut.session_id,
            model: cut.model,
            at: Some(at),
            ready: false,
            system_text: Some(cut.system_text),
        }),
        Err(why) => {
            notes.push(format!(
                "the {} session cannot be cut back to before turn {number} ({why}): a fresh conversation opens with the standing text",
                cut.provider
            ));
            Carried::Fresh
        }
    }
}

/// A conversation that had no session before the turn: it had what it opened with.
fn nothing_before(conv: &ConversationView) -> Carried {
    conv.fork.clone().map_or(Carried::Nothing, Carried::again)
}

/// The turn that started session `id`, and why.
fn started_by(entries: &[Entry], id: &str) -> Option<(String, SessionReason)> {
    entries.iter().find_map(|e| match &e.record {
        Record::SessionStarted {
            session_id,
            turn_id,
            reason,
            ..
        } if session_id == id => Some((turn_id.clone(), *reason)),
        _ => None,
    })
}

/// A session to cut back to just before the prompt `prompt`, which `later_prompts` prompts
/// followed in it.
struct Cut {
    provider: ProviderKind,
    session_id: String,
    model: Option<String>,
    later_prompts: usize,
    prompt: String,
    /// Where the session ran.
    dir: String,
    /// The system text of the conversation it ran in.
    system_text: String,
}
