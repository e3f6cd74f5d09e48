//! What a rewind to turn T carries of the provider's history: exactly what the model had when
//! T was sent. The turns of T's session before T, cut out of a copy of that session (Claude:
//! `--resume-session-at` the entry T's prompt follows, at the first turn;
//! Codex: a copy cut back through its app-server now); nothing when T opened its session
//! (the standing text was all the model had), or, when T's session was itself a fork, that
//! fork's source; a local conversation's turns before T, copied. Where the CLI cannot cut its
//! session (its file is gone, the turns do not match), the rewind opens fresh and says why.

use std::path::Path;

use super::Carried;
use crate::error::BatonError;
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
    if target.provider == ProviderKind::Local {
        return Ok(Carried::Local(crate::server::turn::local::history(
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
            let after = turns
                .iter()
                .filter(|t| t.number > target.number && t.session_id.as_deref() == Some(&session))
                .count();
            let model = srv
                .store
                .sessions(&conv.id)?
                .into_iter()
                .rev()
                .find(|s| s.session_id == session)
                .and_then(|s| s.model);
            let cut = Cut {
                provider: target.provider,
                session_id: session,
                model,
                later_prompts: after,
                prompt: target.prompt.clone(),
                dir: conv.dir.clone(),
                system_text: conv.system_text.clone(),
            };
            if cut.provider == ProviderKind::Codex {
                // Cut through its app-server once the new checkout exists.
                return Ok(Carried::Codex {
                    thread: cut.session_id,
                    model: cut.model,
                    cut: Some((cut.later_prompts, cut.prompt)),
                });
            }
            match cut_session(srv, cut) {
                Ok(fork) => Ok(Carried::Session(fork)),
                Err(why) => {
                    notes.push(format!(
                        "the {} session cannot be cut back to before turn {} ({why}): a fresh conversation opens with the standing text",
                        target.provider, target.number
                    ));
                    Ok(Carried::Fresh)
                }
            }
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

fn cut_session(srv: &Server, cut: Cut) -> Result<SessionFork, String> {
    match cut.provider {
        ProviderKind::Claude => claude_cut(srv, cut),
        ProviderKind::Codex | ProviderKind::Local => {
            Err(format!("a {} session is not cut here", cut.provider))
        }
    }
}

/// Claude cuts at the fork's first run (`--resume-session-at`): find the entry before the
/// turn's prompt now, counting the prompts of the session file from its end.
fn claude_cut(srv: &Server, cut: Cut) -> Result<SessionFork, String> {
    use crate::providers::claude::session as claude_session;
    let dir = Path::new(&cut.dir);
    let path = crate::providers::claude::find_session_file(&srv.homes, dir, &cut.session_id)
        .ok_or_else(|| "its session file is gone".to_string())?;
    let text = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let count = claude_session::prompts(&String::from_utf8_lossy(&text)).len();
    let keep = count
        .checked_sub(cut.later_prompts + 1)
        .ok_or_else(|| format!("its session file holds {count} prompts, too few"))?;
    let at = claude_session::cut_point(&srv.homes, dir, &cut.session_id, keep, &cut.prompt)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "its session file holds nothing before the turn".to_string())?;
    Ok(SessionFork {
        provider: ProviderKind::Claude,
        session_id: cut.session_id,
        model: cut.model,
        at: Some(at),
        ready: false,
        system_text: Some(cut.system_text),
    })
}
