//! Tests of what keys do in the normal mode: an unbound key after the prefix named as the user
//! writes it, and Ctrl-C cancelling a draft before it interrupts.

use crossterm::event::KeyCode;
use pretty_assertions::assert_eq;

use crate::tui::app::{Effect, Tag};
use crate::tui::testing::{app_with, ctrl, key, terminal};

#[test]
fn an_unbound_key_after_the_prefix_is_named_as_the_user_writes_it() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    let table = [
        (
            key(KeyCode::Char('y')),
            "C-b y is not bound; C-b ? lists the keys",
        ),
        (ctrl('y'), "C-b C-y is not bound; C-b ? lists the keys"),
        (
            key(KeyCode::F(5)),
            "C-b F5 is not bound; C-b ? lists the keys",
        ),
    ];
    for (k, want) in table {
        app.update(ctrl('b'));
        app.update(k);
        assert_eq!(app.status, Some((want.to_string(), false)));
    }
}

#[test]
fn ctrl_c_cancels_the_draft_then_interrupts() {
    let mut app = app_with(vec![terminal("api", "claude", "running", None)]);
    app.composer.set_text("half a thought");
    assert_eq!(app.update(ctrl('c')), vec![]);
    assert_eq!(app.composer.text(), "");
    let fx = app.update(ctrl('c'));
    assert!(
        matches!(fx.as_slice(), [Effect::Call(Tag::Interrupt(n), _)] if n == "api"),
        "{fx:?}"
    );
    // While editing waiting input, Ctrl-C leaves the input as it was.
    app.composer.set_text("edited");
    app.editing = Some(("api".into(), 3));
    app.update(ctrl('c'));
    assert_eq!((app.composer.text(), app.editing.clone()), ("", None));
}

#[test]
fn esc_twice_clears_a_draft_when_nothing_runs_and_interrupts_when_a_turn_does() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    app.composer.set_text("a draft");
    app.update(key(KeyCode::Esc));
    assert_eq!(app.composer.text(), "a draft", "one Esc only arms");
    assert_eq!(
        app.status,
        Some(("Esc again clears the draft".into(), false))
    );
    app.update(key(KeyCode::Esc));
    assert_eq!(app.composer.text(), "");
    // A key in between disarms it.
    app.composer.set_text("again");
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Char('!')));
    app.update(key(KeyCode::Esc));
    assert_eq!(app.composer.text(), "again!");

    let mut busy = app_with(vec![terminal("api", "claude", "running", None)]);
    busy.composer.set_text("a draft");
    let fx = busy.update(key(KeyCode::Esc));
    assert!(
        matches!(fx.as_slice(), [Effect::Call(Tag::Interrupt(_), _)]),
        "{fx:?}"
    );
    assert_eq!(busy.composer.text(), "a draft");
}

#[test]
fn ctrl_t_asks_once_for_the_steps_of_turns_the_log_has_one_line_per_call_of() {
    use crate::protocol::Request;
    use crate::tui::app::Msg;
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    // The log read while folded asks for nothing.
    let fx = app.update(Msg::Reply(
        Tag::Log("api".into()),
        Ok(crate::tui::testing::log()),
    ));
    assert_eq!(fx, vec![]);
    // Expanded: turn 1 (a tool call, no result) is asked for; the others have no tool call.
    let fx = app.update(ctrl('t'));
    let want = Effect::Call(
        Tag::Steps("api".into(), 1),
        Request::Steps {
            name: "api".into(),
            turn: 1,
        },
    );
    assert_eq!(fx, vec![want]);
    // Folded and expanded again, or the log read again: not asked twice.
    assert_eq!(app.update(ctrl('t')), vec![]);
    assert_eq!(app.update(ctrl('t')), vec![]);
    let fx = app.update(Msg::Reply(
        Tag::Log("api".into()),
        Ok(crate::tui::testing::log()),
    ));
    assert_eq!(fx, vec![]);
}
