//! A turn's CLI asking the user before a call it would otherwise refuse: what it asks
//! ([`Asked`], sent on as [`super::RunMsg::Asked`]) and how the answer goes back to the same CLI
//! ([`Answerer`]: Claude's `control_response`, a Codex app-server's decision). The inbox that
//! decides is the server's (`server::approvals`).

use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

/// The user's answer to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    /// Refused; `message` is the tool's answer the model reads.
    Deny {
        message: String,
    },
}

/// A permission request of the running turn's CLI.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    pub tool: String,
    /// See [`crate::approvals::target_of`].
    pub target: String,
    pub write: bool,
    pub answerer: Answerer,
}

/// Writes the answer to one request on its CLI's stdin.
#[derive(Debug, Clone)]
pub struct Answerer {
    to: To,
    lines: UnboundedSender<String>,
}

/// Whose request it is, and what its answer names.
#[derive(Debug, Clone, PartialEq)]
enum To {
    /// Claude's `request_id`, and the call's input, given back unchanged with an allow.
    Claude { request_id: String, input: Value },
    /// A Codex app-server's JSON-RPC request `id`, of `turn` on `thread` (a deny's reason
    /// follows as a steer of it).
    Codex {
        id: Value,
        thread: String,
        turn: String,
    },
}

impl PartialEq for Answerer {
    fn eq(&self, other: &Answerer) -> bool {
        self.to == other.to && self.lines.same_channel(&other.lines)
    }
}

impl Answerer {
    pub(crate) fn claude(
        request_id: &str,
        input: Value,
        lines: &UnboundedSender<String>,
    ) -> Answerer {
        Answerer {
            to: To::Claude {
                request_id: request_id.to_string(),
                input,
            },
            lines: lines.clone(),
        }
    }

    pub(crate) fn codex(
        id: Value,
        thread: &str,
        turn: &str,
        lines: &UnboundedSender<String>,
    ) -> Answerer {
        Answerer {
            to: To::Codex {
                id,
                thread: thread.to_string(),
                turn: turn.to_string(),
            },
            lines: lines.clone(),
        }
    }

    /// Hands `verdict` to the CLI; false when its stdin is gone (the turn ended).
    pub fn answer(&self, verdict: &Verdict) -> bool {
        let lines = match &self.to {
            To::Claude { request_id, input } => {
                vec![super::claude::ask::response_line(
                    request_id, verdict, input,
                )]
            }
            To::Codex { id, thread, turn } => {
                super::codex::ask::answer_lines(id, thread, turn, verdict)
            }
        };
        lines.into_iter().all(|line| self.lines.send(line).is_ok())
    }

    /// The CLI's stdin is gone: nobody waits for an answer any more.
    pub fn gone(&self) -> bool {
        self.lines.is_closed()
    }
}
