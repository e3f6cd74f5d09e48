//! What the approvals inbox shows: a permission request ([`ApprovalView`], listed by `baton
//! approvals`, answered by `approve` / `deny`, the waiting one in `show`/`ls`) and an
//! `--always` rule ([`ApprovalRuleView`], listed by `show`).

use serde::{Deserialize, Serialize};

pub use crate::approvals::ApprovalState;
use crate::words::ProviderKind;

/// One permission request of a turn's CLI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalView {
    /// What `baton approve` / `deny` take.
    pub id: String,
    /// The terminal's name.
    pub terminal: String,
    pub provider: ProviderKind,
    pub tool: String,
    /// The path of a write, the command of a shell call, else what the CLI said of it.
    pub target: String,
    pub asked_at: String,
    pub state: ApprovalState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_at: Option<String>,
    /// Who answered: `user`, `timeout`, or `rule ID` (an `--always` answer covered it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// A denial's reason, as the model read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub always: bool,
}

/// An `--always` answer in force for the rest of its terminal's life.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRuleView {
    /// The request whose answer made it (what `baton approvals NAME --forget ID` takes).
    pub id: String,
    pub tool: String,
    /// The exact target, or (`folder`) the folder a write's file may be in.
    pub target: String,
    pub folder: bool,
}
