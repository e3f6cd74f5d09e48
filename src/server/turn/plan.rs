//! The send path's facts, gathered for one turn, and its decision carried out: which
//! conversation the turn runs in (opening one when the engine says so) and how its provider
//! session starts, with the standing instructions a new session adds to the conversation's
//! system text. The decision itself is `engine::decide` (pure); this is its IO side.

use std::path::{Path, PathBuf};

use super::super::state::{Server, TermRuntime};
use crate::engine::{self, ConversationFacts, Decision, ForkFact, SendFacts, SessionFact};
use crate::error::BatonError;
use crate::providers::{self, SessionMode};
use crate::store::{ConversationView, Record, SessionFork, TerminalRow};
use crate::words::{OpenReason, ProviderKind, SessionReason};

/// What the send path settled on for this turn.
pub(super) struct Plan {
    pub(super) conversation: ConversationView,
    pub(super) opened: Option<OpenReason>,
    pub(super) mode: SessionMode,
    pub(super) session_reason: Option<SessionReason>,
    pub(super) pinned_model: Option<String>,
    /// The standing instructions the session's system text adds to the conversation's: for a
    /// new session in a conversation that was open already, the lines the terminal has now
    /// that the conversation's text lacks; for a resume, what its session started with.
    pub(super) standing: Vec<String>,
}

impl Plan {
    /// The system text of the turn's session, byte-identical on every turn of that session.
    pub(super) fn system_text(&self) -> String {
        engine::system_text::session_text(&self.conversation.system_text, &self.standing)
    }
}

/// The send path's decision for a turn of `term` now, with the live conversation.
fn decide(
    srv: &Server,
    term: &TerminalRow,
    fresh: bool,
) -> Result<(Decision, Option<ConversationView>), BatonError> {
    let run_dir = PathBuf::from(&term.dir);
    let live = srv.store.live_conversation(&term.id)?;
    let facts_conv = match live.as_ref() {
        Some(c) => Some(conversation_facts(srv, c)?),
        None => None,
    };
    let session_on_disk = match facts_conv.as_ref() {
        Some(ConversationFacts {
            session: Some(s), ..
        }) if s.provider == term.provider => session_on_disk(srv, s, &run_dir),
        Some(ConversationFacts {
            session: None,
            fork: Some(f),
            ..
        }) if f.provider == term.provider => {
            let s = SessionFact {
                provider: f.provider,
                session_id: f.session_id.clone(),
            };
            session_on_disk(srv, &s, &run_dir)
        }
        _ => false,
    };
    let facts = SendFacts {
        conversation: facts_conv,
        run_dir: run_dir.clone(),
        provider: term.provider,
        session_on_disk,
        fresh,
    };
    Ok((engine::decide(&facts), live))
}

/// Gathers the facts, asks the send path, and opens a conversation when it says so.
pub(super) async fn plan(
    srv: &Server,
    rt: &TermRuntime,
    term: &TerminalRow,
    fresh: bool,
) -> Result<Plan, BatonError> {
    let run_dir = PathBuf::from(&term.dir);
    let (decision, live) = decide(srv, term, fresh)?;
    let (conversation, opened) = match (&decision, live) {
        (Decision::OpenConversation { reason }, prev) => {
            // The fresh conversation opens with every line of the prompts before it.
            super::super::extract::settle(rt).await;
            let number = prev.map_or(0, |p| p.number) + 1;
            let opening = Opening {
                number,
                reason: *reason,
                title: None,
                fork: None,
            };
            (
                open_conversation(srv, term, &run_dir, opening)?,
                Some(*reason),
            )
        }
        (_, Some(c)) => (c, None),
        (_, None) => {
            return Err(BatonError::failed(
                "internal: no live conversation to continue",
            ))
        }
    };
    let mut standing = Vec::new();
    let (mode, session_reason, pinned_model) = match decision {
        Decision::Resume { session_id } => {
            let kept = srv.store.session(&conversation.id, &session_id)?;
            standing = kept.standing;
            (SessionMode::Resume { session_id }, None, kept.model)
        }
        Decision::NewSession { reason } => {
            // It has none of the conversation's history, so none of the prompts its later
            // rules came from: it gets them all, the prompts before this one's included.
            super::super::extract::settle(rt).await;
            standing = not_carried(srv, term, &conversation)?;
            (new_mode(term.provider), Some(reason), None)
        }
        Decision::Fork { fork } => {
            let mode = if fork.ready {
                SessionMode::Resume {
                    session_id: fork.session_id.clone(),
                }
            } else {
                let session_id = match new_mode(term.provider) {
                    SessionMode::New { session_id } => session_id,
                    _ => None,
                };
                SessionMode::Fork {
                    from: fork.session_id.clone(),
                    session_id,
                    at: fork.at.clone(),
                }
            };
            let pinned = conversation.fork.as_ref().and_then(|f| f.model.clone());
            (mode, Some(SessionReason::Fork), pinned)
        }
        Decision::OpenConversation { .. } => {
            (new_mode(term.provider), Some(SessionReason::Fresh), None)
        }
    };
    Ok(Plan {
        conversation,
        opened,
        mode,
        session_reason,
        pinned_model,
        standing,
    })
}

/// The standing instructions terminal `term` has now that `conversation`'s system text lacks:
/// what a provider session starting in it now adds to that text.
pub(super) fn not_carried(
    srv: &Server,
    term: &TerminalRow,
    conversation: &ConversationView,
) -> Result<Vec<String>, BatonError> {
    let current = instruction_lines(srv, &term.id)?;
    Ok(engine::system_text::not_carried(
        &conversation.system_text,
        &current,
    ))
}

/// Terminal `tid`'s standing instructions now, oldest first.
fn instruction_lines(srv: &Server, tid: &str) -> Result<Vec<String>, BatonError> {
    Ok(srv
        .store
        .instructions(tid)?
        .into_iter()
        .map(|i| i.text)
        .collect())
}

/// The plan of a turn of `term` resuming its live conversation's session, when that is what
/// the send path decides now (None when a conversation or a session would open, which takes a
/// journal record). For starting the CLI ahead of the turn (`prestart`); the turn plans again.
pub(super) fn predict(srv: &Server, term: &TerminalRow) -> Result<Option<Plan>, BatonError> {
    let (Decision::Resume { session_id }, Some(conversation)) = decide(srv, term, false)? else {
        return Ok(None);
    };
    let kept = srv.store.session(&conversation.id, &session_id)?;
    Ok(Some(Plan {
        conversation,
        opened: None,
        mode: SessionMode::Resume { session_id },
        session_reason: None,
        pinned_model: kept.model,
        standing: kept.standing,
    }))
}

pub(super) fn new_mode(provider: ProviderKind) -> SessionMode {
    providers::of(provider).new_session()
}

fn conversation_facts(srv: &Server, c: &ConversationView) -> Result<ConversationFacts, BatonError> {
    let state = srv.store.conversation_state(&c.id)?;
    Ok(ConversationFacts {
        dir: PathBuf::from(&c.dir),
        context: state.context,
        session: state.session.map(|(provider, session_id)| SessionFact {
            provider,
            session_id,
        }),
        fork: c.fork.as_ref().map(|f| ForkFact {
            provider: f.provider,
            session_id: f.session_id.clone(),
            at: f.at.clone(),
            ready: f.ready,
        }),
    })
}

fn session_on_disk(srv: &Server, s: &SessionFact, cwd: &Path) -> bool {
    providers::of(s.provider).session_on_disk(&srv.homes, cwd, &s.session_id)
}

/// The system text a conversation of terminal `term` opening in `run_dir` for `reason` is
/// frozen with.
pub fn system_text(
    srv: &Server,
    tid: &str,
    brief: Option<&str>,
    run_dir: &Path,
    reason: OpenReason,
    instructions: &[String],
) -> String {
    let mut text = engine::system_text::build(run_dir, &srv.screenshots(tid), brief, instructions);
    if matches!(reason, OpenReason::Fork | OpenReason::Rewind) {
        text.push_str(&engine::system_text::carried_over(run_dir));
    }
    text
}

/// A conversation about to open: its number and why, and what a fork carries into it.
struct Opening {
    number: u32,
    reason: OpenReason,
    title: Option<String>,
    fork: Option<SessionFork>,
}

/// Journals a fresh conversation for terminal `term`, running in `run_dir`, frozen with the
/// terminal's brief and its standing instructions now.
fn open_conversation(
    srv: &Server,
    term: &TerminalRow,
    run_dir: &Path,
    opening: Opening,
) -> Result<ConversationView, BatonError> {
    let instructions = instruction_lines(srv, &term.id)?;
    let Opening {
        number,
        reason,
        title,
        fork,
    } = opening;
    let system_text = system_text(
        srv,
        &term.id,
        term.brief.as_deref(),
        run_dir,
        reason,
        &instructions,
    );
    let id = uuid::Uuid::now_v7().to_string();
    let entry = srv.store.append(
        &term.id,
        Record::ConversationOpened {
            conversation_id: id.clone(),
            number,
            reason,
            dir: run_dir.to_string_lossy().into_owned(),
            system_text: system_text.clone(),
            title: title.clone(),
            fork: fork.clone(),
        },
    )?;
    Ok(ConversationView {
        id,
        number,
        opened_reason: reason.as_str().to_string(),
        dir: run_dir.to_string_lossy().into_owned(),
        system_text,
        opened_at: entry.at,
        retired_at: None,
        title,
        fork,
    })
}
