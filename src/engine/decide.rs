//! Rules 1–4 of the send path (ARCHITECTURE.md, "The send path"): directory moved → size →
//! provider switch → resume, after the user's own ask for a fresh conversation (`--fresh`).
//! A conversation that a fork or rewind opened and that has no session of its own yet forks
//! the original's session on its first turn (rule 4, when the provider is the same).
//! A `local` endpoint keeps baton's own loop and is never rotated (rule 2 does not apply when
//! this turn or the last session is local: its history is trimmed per request instead).

use std::path::PathBuf;

use crate::words::{ContextUsage, OpenReason, ProviderKind, SessionReason};

/// A conversation is retired once its context passed this fraction of the model's window.
pub const ROTATE_FRACTION: f64 = 0.45;

/// The provider session the live conversation last ran in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFact {
    pub provider: ProviderKind,
    pub session_id: String,
}

/// What is known about the live conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationFacts {
    /// The directory its runs used.
    pub dir: PathBuf,
    /// The context as reported at the end of its last turn that reported one.
    pub context: Option<ContextUsage>,
    /// The session of its most recent turn that had one.
    pub session: Option<SessionFact>,
    /// The session it was forked from (a fork or rewind of another terminal): its first
    /// session starts as a copy of that one.
    pub fork: Option<ForkFact>,
}

/// The session a forked conversation starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForkFact {
    pub provider: ProviderKind,
    pub session_id: String,
    /// Where to cut the copy back to (Claude `--resume-session-at`), for a rewind.
    pub at: Option<String>,
    /// The copy already exists (made when the fork was asked for): resume it.
    pub ready: bool,
}

/// Everything the send path looks at.
#[derive(Debug, Clone, PartialEq)]
pub struct SendFacts {
    pub conversation: Option<ConversationFacts>,
    /// Where this turn's run would happen.
    pub run_dir: PathBuf,
    /// The provider this turn runs on.
    pub provider: ProviderKind,
    /// Whether the CLI's file for `conversation.session` (or, with no session yet, for
    /// `conversation.fork`) still exists.
    pub session_on_disk: bool,
    /// The user asked for a fresh conversation with this turn (`send --fresh`).
    pub fresh: bool,
}

/// What to do before the turn starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Retire the live conversation (if any) and open a fresh one with a fresh session.
    OpenConversation { reason: OpenReason },
    /// Keep the conversation, start a new provider session in it.
    NewSession { reason: SessionReason },
    /// Resume this provider session.
    Resume { session_id: String },
    /// Start the conversation's first session as a fork of another terminal's session.
    Fork { fork: ForkFact },
}

/// True once `context` passed the rotation line.
pub fn over_limit(context: &ContextUsage) -> bool {
    context.window > 0 && context.fraction() > ROTATE_FRACTION
}

pub fn decide(facts: &SendFacts) -> Decision {
    let Some(conv) = &facts.conversation else {
        return Decision::OpenConversation {
            reason: OpenReason::First,
        };
    };
    if facts.fresh {
        return Decision::OpenConversation {
            reason: OpenReason::Manual,
        };
    }
    if conv.dir != facts.run_dir {
        return Decision::OpenConversation {
            reason: OpenReason::Moved,
        };
    }
    // An endpoint's history is baton's own, trimmed per request: it never rotates.
    let local =
        !facts.provider.is_cli() || conv.session.as_ref().is_some_and(|s| !s.provider.is_cli());
    if !local && conv.context.as_ref().is_some_and(over_limit) {
        return Decision::OpenConversation {
            reason: OpenReason::Size,
        };
    }
    match &conv.session {
        None => match &conv.fork {
            Some(f) if f.provider != facts.provider => Decision::NewSession {
                reason: SessionReason::Switch,
            },
            Some(_) if !facts.session_on_disk => Decision::NewSession {
                reason: SessionReason::Lost,
            },
            Some(f) => Decision::Fork { fork: f.clone() },
            None => Decision::NewSession {
                reason: SessionReason::Fresh,
            },
        },
        Some(s) if s.provider != facts.provider => Decision::NewSession {
            reason: SessionReason::Switch,
        },
        Some(_) if !facts.session_on_disk => Decision::NewSession {
            reason: SessionReason::Lost,
        },
        Some(s) => Decision::Resume {
            session_id: s.session_id.clone(),
        },
    }
}

#[cfg(test)]
#[path = "decide_tests.rs"]
mod tests;
