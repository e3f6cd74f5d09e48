//! The approvals inbox, its pure parts: what a CLI's permission request asks (the tool and its
//! target), the journal records of a request's life ([`ApprovalRecord`]), the `--always` rules
//! and whether one covers a new request ([`Rule::covers`]), and every request's state folded
//! from a terminal's journal ([`fold`]). The server's side is `server::approvals`; see
//! ARCHITECTURE.md ("The approvals inbox").

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One fact of a permission request's life, journalled in its terminal's journal as
/// `{"type": "approval", "event": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ApprovalRecord {
    /// A turn's CLI asked to run `tool` on `target` and waits.
    Asked {
        id: String,
        turn_id: String,
        tool: String,
        /// The path of a write, the command of a shell call, else what the CLI said of it.
        target: String,
        /// A write of a file (an `--always` answer then covers its folder).
        #[serde(default)]
        write: bool,
    },
    /// The request was answered: `by` the user (`user`) or the timeout (`timeout`).
    Answered {
        id: String,
        allow: bool,
        /// The same tool on the same target (a write: within its folder) is allowed for the
        /// rest of the terminal's life.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        always: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        by: String,
    },
    /// The turn ended while the request waited: never approved.
    Expired { id: String },
    /// The user removed the `--always` rule request `id`'s answer made.
    RuleRemoved { id: String },
}

/// Where a request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    Waiting,
    Approved,
    Denied,
    /// Its turn ended (or the server stopped) before an answer.
    Expired,
}

/// The tools whose target is a file they write.
const WRITE_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// What a request for `tool` with `input` asks about: (target, is a write). `description`: what
/// the CLI said of the call, for a tool baton knows nothing of.
pub fn target_of(tool: &str, input: &Value, description: Option<&str>) -> (String, bool) {
    let field = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    if WRITE_TOOLS.contains(&tool) {
        if let Some(path) = field("file_path").or_else(|| field("notebook_path")) {
            return (path, true);
        }
    }
    if let Some(cmd) = field("command") {
        return (cmd, false);
    }
    match description {
        Some(d) if !d.is_empty() => (d.to_string(), false),
        _ => (input.to_string(), false),
    }
}

/// An `--always` answer: what it allows from now on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The request whose answer made it.
    pub id: String,
    pub tool: String,
    /// The exact target, or (a write) the folder its files may be in.
    pub target: String,
    pub folder: bool,
}

impl Rule {
    fn of(asked: &Folded) -> Rule {
        let folder = asked.write;
        let target = if folder {
            std::path::Path::new(&asked.target)
                .parent()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default()
        } else {
            asked.target.clone()
        };
        Rule {
            id: asked.id.clone(),
            tool: asked.tool.clone(),
            target,
            folder,
        }
    }

    /// Whether this rule allows `tool` on `target` without asking.
    pub fn covers(&self, tool: &str, target: &str, write: bool) -> bool {
        if tool != self.tool {
            return false;
        }
        if self.folder && write {
            let dir = self.target.trim_end_matches('/');
            return target
                .strip_prefix(dir)
                .is_some_and(|rest| rest.starts_with('/') && !rest.contains("/../"));
        }
        !self.folder && target == self.target
    }
}

/// A request as the journal tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folded {
    pub id: String,
    pub turn_id: String,
    pub tool: String,
    pub target: String,
    pub write: bool,
    pub asked_at: String,
    pub state: ApprovalState,
    pub answered_at: Option<String>,
    pub by: Option<String>,
    pub reason: Option<String>,
    pub always: bool,
    /// Its `--always` rule was removed.
    pub rule_removed: bool,
}

/// Every request of one journal, in the order asked, from its `(at, record)` pairs. A request
/// with no answer is `Waiting` here: the caller knows whether its turn still waits.
pub fn fold<'a>(records: impl IntoIterator<Item = (&'a str, &'a ApprovalRecord)>) -> Vec<Folded> {
    let mut out: Vec<Folded> = Vec::new();
    for (at, r) in records {
        match r {
            ApprovalRecord::Asked {
                id,
                turn_id,
                tool,
                target,
                write,
            } => out.push(Folded {
                id: id.clone(),
                turn_id: turn_id.clone(),
                tool: tool.clone(),
                target: target.clone(),
                write: *write,
                asked_at: at.to_string(),
                state: ApprovalState::Waiting,
                answered_at: None,
                by: None,
                reason: None,
                always: false,
                rule_removed: false,
            }),
            ApprovalRecord::Answered {
                id,
                allow,
                always,
                reason,
                by,
            } => {
                if let Some(f) = waiting(&mut out, id) {
                    f.state = if *allow {
                        ApprovalState::Approved
                    } else {
                        ApprovalState::Denied
                    };
                    f.answered_at = Some(at.to_string());
                    f.by = Some(by.clone());
                    f.reason = reason.clone();
                    f.always = *always && *allow;
                }
            }
            ApprovalRecord::Expired { id } => {
                if let Some(f) = waiting(&mut out, id) {
                    f.state = ApprovalState::Expired;
                    f.answered_at = Some(at.to_string());
                }
            }
            ApprovalRecord::RuleRemoved { id } => {
                if let Some(f) = out.iter_mut().find(|f| &f.id == id) {
                    f.rule_removed = true;
                }
            }
        }
    }
    out
}

/// The request `id` if it has no answer yet: a second answer changes nothing.
fn waiting<'a>(out: &'a mut [Folded], id: &str) -> Option<&'a mut Folded> {
    out.iter_mut()
        .find(|f| f.id == id && f.state == ApprovalState::Waiting)
}

/// The `--always` rules in force, oldest first.
pub fn rules(folded: &[Folded]) -> Vec<Rule> {
    folded
        .iter()
        .filter(|f| f.always && f.state == ApprovalState::Approved && !f.rule_removed)
        .map(Rule::of)
        .collect()
}

#[cfg(test)]
#[path = "approvals_tests.rs"]
mod tests;
