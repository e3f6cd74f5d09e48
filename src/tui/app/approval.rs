//! The approvals inbox in the multiplexer: the focused terminal's waiting request answered by
//! keys that cannot be typed text (Alt-y allow once, Alt-a always, Alt-n deny; the composer's
//! text, if any, is the reason the model reads), the hint line saying so, and the bell / desktop
//! notification when a terminal out of view starts waiting. The request itself shows in the
//! turn's transcript (the turn's note naming it).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::protocol::approvals::ApprovalView;
use crate::protocol::Request;
use crate::tui::app::command::Answer;
use crate::tui::app::{App, Effect, Tag};

/// What a key says to a waiting request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalKey {
    Once,
    Always,
    Deny,
}

/// The key's meaning while the focused terminal waits for an answer (None: not an answer).
/// Pure.
pub fn approval_key(k: &KeyEvent) -> Option<ApprovalKey> {
    if k.modifiers != KeyModifiers::ALT {
        return None;
    }
    match k.code {
        KeyCode::Char('y') => Some(ApprovalKey::Once),
        KeyCode::Char('a') => Some(ApprovalKey::Always),
        KeyCode::Char('n') => Some(ApprovalKey::Deny),
        _ => None,
    }
}

/// The hint line while `a` waits.
pub fn hint(a: &ApprovalView) -> String {
    format!(
        "{} asks: {} {} · Alt-y allow · Alt-a always · Alt-n deny (the prompt typed is the reason)",
        a.terminal, a.tool, a.target
    )
}

/// The notification when terminal `name`, out of view, starts waiting on `a`.
pub fn notice(a: &ApprovalView) -> String {
    format!("{}: asks to {} {}", a.terminal, a.tool, a.target)
}

impl App {
    /// The focused terminal's waiting request.
    pub fn focused_approval(&self) -> Option<&ApprovalView> {
        self.focused().and_then(|t| t.info.approval.as_ref())
    }

    /// A key answering the focused terminal's waiting request; None: the key is not one.
    pub(in crate::tui) fn key_over_approval(&mut self, k: &KeyEvent) -> Option<Vec<Effect>> {
        let key = approval_key(k)?;
        let id = self.focused_approval()?.id.clone();
        let req = match key {
            ApprovalKey::Once => Request::Approve { id, always: false },
            ApprovalKey::Always => Request::Approve { id, always: true },
            ApprovalKey::Deny => {
                let typed = self.composer.text().trim().to_string();
                if !typed.is_empty() {
                    self.composer.clear();
                }
                Request::Deny {
                    id,
                    reason: (!typed.is_empty()).then_some(typed),
                }
            }
        };
        Some(vec![Effect::Call(Tag::Command(Answer::Approval), req)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::Msg;
    use crate::tui::testing::{announce, app_with, screen, terminal};
    use serde_json::json;

    fn waiting(name: &str) -> crate::protocol::views::TerminalView {
        let mut v = terminal(name, "claude", "running", None);
        v.approval = Some(
            serde_json::from_value(json!({"id": "a1b2c3d", "terminal": name,
                "provider": "claude", "tool": "Write", "target": "/w/out/o.txt",
                "asked_at": "2026-12-06T05:00:00.000Z", "state": "waiting"}))
            .unwrap(),
        );
        v
    }

    fn alt(c: char) -> Msg {
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT))
    }

    #[test]
    fn the_focused_terminals_request_is_answered_by_its_keys_and_marked_in_the_list() {
        let mut app = app_with(vec![waiting("api")]);
        let s = screen(&mut app, 120, 20);
        assert!(s.contains("? approval"), "{s}");
        assert!(
            s.contains("api asks: Write /w/out/o.txt · Alt-y allow"),
            "{s}"
        );
        let fx = app.update(alt('a'));
        let want = Request::Approve {
            id: "a1b2c3d".into(),
            always: true,
        };
        assert_eq!(fx, vec![Effect::Call(Tag::Command(Answer::Approval), want)]);
        // Deny: the composer's text is the reason, and leaves the composer.
        app.update(Msg::Paste("write it under docs/".into()));
        let fx = app.update(alt('n'));
        let want = Request::Deny {
            id: "a1b2c3d".into(),
            reason: Some("write it under docs/".into()),
        };
        assert_eq!(fx, vec![Effect::Call(Tag::Command(Answer::Approval), want)]);
        assert_eq!(app.composer.text(), "");
    }

    #[test]
    fn a_terminal_out_of_view_that_starts_waiting_notifies_once() {
        let mut app = app_with(vec![
            terminal("api", "claude", "idle", None),
            terminal("web", "claude", "running", None),
        ]);
        let fx = app.update(announce(waiting("web")));
        let notified: Vec<_> = fx
            .iter()
            .filter(|e| matches!(e, Effect::Notify { body, .. } if body == "web: asks to Write /w/out/o.txt"))
            .collect();
        assert_eq!(notified.len(), 1, "{fx:?}");
        let again = app.update(announce(waiting("web")));
        assert!(
            !again.iter().any(|e| matches!(e, Effect::Notify { .. })),
            "{again:?}"
        );
    }

    #[test]
    fn only_alt_y_a_n_answer() {
        let key = |c, m| KeyEvent::new(KeyCode::Char(c), m);
        let rows = [
            (key('y', KeyModifiers::ALT), Some(ApprovalKey::Once)),
            (key('a', KeyModifiers::ALT), Some(ApprovalKey::Always)),
            (key('n', KeyModifiers::ALT), Some(ApprovalKey::Deny)),
            (key('y', KeyModifiers::NONE), None),
            (key('y', KeyModifiers::CONTROL), None),
            (key('x', KeyModifiers::ALT), None),
        ];
        for (k, want) in rows {
            assert_eq!(approval_key(&k), want, "{k:?}");
        }
    }
}
