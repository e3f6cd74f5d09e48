//! A turn's CLI asking the user before a call it would otherwise refuse: what it asks
//! ([`Asked`], sent on as [`super::RunMsg::Asked`]) and how the answer goes back to the same CLI
//! ([`Answerer`]). The inbox that decides is the server's (`server::approvals`).

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
    /// Claude's `request_id`.
    request_id: String,
    /// The call's input, given back unchanged with an allow.
    input: Value,
    lines: UnboundedSender<String>,
}

impl PartialEq for Answerer {
    fn eq(&self, other: &Answerer) -> bool {
        self.request_id == other.request_id && self.lines.same_channel(&other.lines)
    }
}

impl Answerer {
    pub(crate) fn claude(
        request_id: &str,
        input: Value,
        lines: &UnboundedSender<String>,
    ) -> Answerer {
        Answerer {
            request_id: request_id.to_string(),
            input,
            lines: lines.clone(),
        }
    }

    /// Hands `verdict` to the CLI; false when its stdin is gone (the turn ended).
    pub fn answer(&self, verdict: &Verdict) -> bool {
        let line = super::claude::ask::response_line(&self.request_id, verdict, &self.input);
        self.lines.send(line).is_ok()
    }

    /// The CLI's stdin is gone: nobody waits for an answer any more.
    pub fn gone(&self) -> bool {
        self.lines.is_closed()
    }
}
