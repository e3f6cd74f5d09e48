//! Text for the approvals inbox: `baton approvals`, `approve`, `deny`, and the lines `show`
//! gives a waiting request and the `--always` rules. Pure; see `render.rs`.

use crate::protocol::approvals::{ApprovalRuleView, ApprovalState, ApprovalView};
use crate::protocol::views::TerminalView;

/// `baton approvals`: one line per waiting request, then how to answer.
pub fn approvals(v: &Vec<ApprovalView>) -> String {
    if v.is_empty() {
        return "no request waits for approval\n".to_string();
    }
    let mut out = String::new();
    for a in v {
        out.push_str(&format!(
            "{}  {} ({})  {} {}  asked {}\n",
            a.id, a.terminal, a.provider, a.tool, a.target, a.asked_at
        ));
    }
    out.push_str("answer with `baton approve ID [--always]` or `baton deny ID [--reason TEXT]`\n");
    out
}

/// `baton approve` / `deny`: what was answered.
pub fn answered(a: &ApprovalView) -> String {
    let what = format!("{} {} of {}", a.tool, a.target, a.terminal);
    match a.state {
        ApprovalState::Approved if a.always => format!(
            "approved {}: {what}; the same from now on runs unasked (`baton show {}` lists the rule)\n",
            a.id, a.terminal
        ),
        ApprovalState::Approved => format!("approved {}: {what}\n", a.id),
        ApprovalState::Denied => format!(
            "denied {}: {what}; the model reads: {}\n",
            a.id,
            a.reason.as_deref().unwrap_or_default()
        ),
        ApprovalState::Waiting | ApprovalState::Expired => {
            format!("{} {}: {what}\n", a.id, state_word(a.state))
        }
    }
}

fn state_word(s: ApprovalState) -> &'static str {
    match s {
        ApprovalState::Waiting => "waiting",
        ApprovalState::Approved => "approved",
        ApprovalState::Denied => "denied",
        ApprovalState::Expired => "expired",
    }
}

/// The lines `show` adds: the request its turn waits on, the rules in force.
pub fn show_lines(v: &TerminalView) -> String {
    let mut out = String::new();
    if let Some(a) = &v.approval {
        out.push_str(&format!(
            "  approval:     {} waits: {} {} (baton approve {} / deny {})\n",
            a.id, a.tool, a.target, a.id, a.id
        ));
    }
    for r in &v.approval_rules {
        out.push_str(&format!("  always:       {}\n", rule(r, &v.name)));
    }
    out
}

fn rule(r: &ApprovalRuleView, name: &str) -> String {
    let scope = if r.folder { "in" } else { "on" };
    format!(
        "{} {scope} {} (remove: baton approvals {name} --forget {})",
        r.tool, r.target, r.id
    )
}
