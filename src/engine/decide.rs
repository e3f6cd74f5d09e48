//! Rules 1–4 of the send path (DESIGN.md): directory moved → size → provider switch → resume.
//! A `local` endpoint keeps baton's own loop and is never rotated (rule 2 does not apply when
//! this turn or the last session is local: its history is trimmed per request instead).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::words::{ContextUsage, ProviderKind};

/// A conversation is retired once its context passed this fraction of the model's window.
pub const ROTATE_FRACTION: f64 = 0.45;

/// Why a fresh conversation opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpenReason {
    /// The terminal's first conversation.
    First,
    /// The directory runs use changed (rule 1).
    Moved,
    /// The context passed 45% of the window (rule 2).
    Size,
}

impl OpenReason {
    pub fn as_str(self) -> &'static str {
        match self {
            OpenReason::First => "first",
            OpenReason::Moved => "moved",
            OpenReason::Size => "size",
        }
    }
}

/// Why a fresh provider session starts inside the live conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionReason {
    /// The conversation has no session yet (it just opened, or no turn got one).
    Fresh,
    /// The last turn ran on another provider (rule 3).
    Switch,
    /// The session to resume is gone from disk (rule 4's fallback).
    Lost,
}

impl SessionReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionReason::Fresh => "fresh",
            SessionReason::Switch => "switch",
            SessionReason::Lost => "lost",
        }
    }
}

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
}

/// Everything the send path looks at.
#[derive(Debug, Clone, PartialEq)]
pub struct SendFacts {
    pub conversation: Option<ConversationFacts>,
    /// Where this turn's run would happen.
    pub run_dir: PathBuf,
    /// The provider this turn runs on.
    pub provider: ProviderKind,
    /// Whether the CLI's file for `conversation.session` still exists.
    pub session_on_disk: bool,
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
    if conv.dir != facts.run_dir {
        return Decision::OpenConversation {
            reason: OpenReason::Moved,
        };
    }
    let local = facts.provider == ProviderKind::Local
        || conv
            .session
            .as_ref()
            .is_some_and(|s| s.provider == ProviderKind::Local);
    if !local && conv.context.as_ref().is_some_and(over_limit) {
        return Decision::OpenConversation {
            reason: OpenReason::Size,
        };
    }
    match &conv.session {
        None => Decision::NewSession {
            reason: SessionReason::Fresh,
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
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use ProviderKind::{Claude, Codex, Local};

    fn conv(
        dir: &str,
        ctx: Option<(u64, u64)>,
        session: Option<(ProviderKind, &str)>,
    ) -> ConversationFacts {
        ConversationFacts {
            dir: PathBuf::from(dir),
            context: ctx.map(|(tokens, window)| ContextUsage { tokens, window }),
            session: session.map(|(provider, id)| SessionFact {
                provider,
                session_id: id.to_string(),
            }),
        }
    }

    fn open(reason: OpenReason) -> Decision {
        Decision::OpenConversation { reason }
    }
    fn new(reason: SessionReason) -> Decision {
        Decision::NewSession { reason }
    }
    fn resume(id: &str) -> Decision {
        Decision::Resume {
            session_id: id.to_string(),
        }
    }

    #[test]
    fn every_row_of_the_send_path() {
        let s = Some((Claude, "s1"));
        // (what, live conversation, run dir, provider, session file on disk, decision)
        type Case = (
            &'static str,
            Option<ConversationFacts>,
            &'static str,
            ProviderKind,
            bool,
            Decision,
        );
        let cases: Vec<Case> = vec![
            (
                "no conversation yet",
                None,
                "/a",
                Claude,
                false,
                open(OpenReason::First),
            ),
            (
                "directory moved",
                Some(conv("/a", None, s)),
                "/b",
                Claude,
                true,
                open(OpenReason::Moved),
            ),
            (
                "moved wins over size",
                Some(conv("/a", Some((900, 1000)), s)),
                "/b",
                Claude,
                true,
                open(OpenReason::Moved),
            ),
            (
                "44.9% resumes",
                Some(conv("/a", Some((449, 1000)), s)),
                "/a",
                Claude,
                true,
                resume("s1"),
            ),
            (
                "exactly 45% resumes",
                Some(conv("/a", Some((450, 1000)), s)),
                "/a",
                Claude,
                true,
                resume("s1"),
            ),
            (
                "45.1% rotates",
                Some(conv("/a", Some((451, 1000)), s)),
                "/a",
                Claude,
                true,
                open(OpenReason::Size),
            ),
            (
                "size wins over switch",
                Some(conv("/a", Some((451, 1000)), s)),
                "/a",
                Codex,
                true,
                open(OpenReason::Size),
            ),
            (
                "unknown window never rotates",
                Some(conv("/a", Some((451, 0)), s)),
                "/a",
                Claude,
                true,
                resume("s1"),
            ),
            (
                "provider switch",
                Some(conv("/a", Some((10, 1000)), s)),
                "/a",
                Codex,
                true,
                new(SessionReason::Switch),
            ),
            (
                "switch ignores the other CLI's files",
                Some(conv("/a", None, s)),
                "/a",
                Codex,
                false,
                new(SessionReason::Switch),
            ),
            (
                "session file deleted",
                Some(conv("/a", Some((10, 1000)), s)),
                "/a",
                Claude,
                false,
                new(SessionReason::Lost),
            ),
            (
                "no session yet in conversation",
                Some(conv("/a", None, None)),
                "/a",
                Codex,
                false,
                new(SessionReason::Fresh),
            ),
            (
                "codex resumes codex",
                Some(conv("/a", Some((100, 258400)), Some((Codex, "t1")))),
                "/a",
                Codex,
                true,
                resume("t1"),
            ),
            (
                "local never rotates on size",
                Some(conv("/a", Some((900, 1000)), Some((Local, "l1")))),
                "/a",
                Local,
                true,
                resume("l1"),
            ),
            (
                "a switch to local keeps the conversation past 45%",
                Some(conv("/a", Some((900, 1000)), s)),
                "/a",
                Local,
                true,
                new(SessionReason::Switch),
            ),
            (
                "a switch away from a full local loop keeps the conversation",
                Some(conv("/a", Some((900, 1000)), Some((Local, "l1")))),
                "/a",
                Claude,
                false,
                new(SessionReason::Switch),
            ),
            (
                "local still follows a moved directory",
                Some(conv("/a", Some((10, 1000)), Some((Local, "l1")))),
                "/b",
                Local,
                true,
                open(OpenReason::Moved),
            ),
        ];
        for (what, conversation, run_dir, provider, on_disk, want) in cases {
            let facts = SendFacts {
                conversation,
                run_dir: PathBuf::from(run_dir),
                provider,
                session_on_disk: on_disk,
            };
            assert_eq!(decide(&facts), want, "{what}");
        }
    }

    #[test]
    fn the_rotation_line_is_strictly_greater_than_45_percent() {
        let at = |tokens, window| over_limit(&ContextUsage { tokens, window });
        assert!(!at(89_800, 200_000)); // 44.9%
        assert!(!at(90_000, 200_000)); // 45.0%
        assert!(at(90_200, 200_000)); // 45.1%
        assert!(!at(116_021, 258_400)); // 44.9% of Codex's reported window
        assert!(at(116_538, 258_400)); // 45.1%
    }
}
