//! Tests of the standing instructions overlay: selecting, removing, editing and adding.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;

use super::{Outcome, Standing, Step};
use crate::protocol::InstructionsAction;

fn k(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn typed(s: &mut Standing, text: &str, lines: &[String]) {
    for c in text.chars() {
        assert_eq!(s.key(&k(KeyCode::Char(c)), lines), Outcome::Stay);
    }
}

fn edit(number: Option<u32>, text: &str) -> Step {
    Step::Edit {
        number,
        text: text.into(),
    }
}

#[test]
fn keys_move_the_selection_ask_before_removing_and_open_the_editor() {
    let lines: Vec<String> = ["Use tabs.", "Never push.", "Write tests."]
        .map(String::from)
        .into();
    use KeyCode::*;
    // (selected before, step before, key) → (outcome, selected after, step after)
    let rows: [(usize, Step, KeyCode, Outcome, usize, Step); 14] = [
        (0, Step::Browse, Down, Outcome::Stay, 1, Step::Browse),
        (2, Step::Browse, Char('j'), Outcome::Stay, 2, Step::Browse),
        (1, Step::Browse, Char('k'), Outcome::Stay, 0, Step::Browse),
        (0, Step::Browse, Up, Outcome::Stay, 0, Step::Browse),
        (
            1,
            Step::Browse,
            Char('d'),
            Outcome::Stay,
            1,
            Step::ConfirmRemove,
        ),
        (
            1,
            Step::ConfirmRemove,
            Char('y'),
            Outcome::Change(InstructionsAction::Rm { number: 2 }),
            1,
            Step::Browse,
        ),
        (
            1,
            Step::ConfirmRemove,
            Char('n'),
            Outcome::Stay,
            1,
            Step::Browse,
        ),
        (
            1,
            Step::Browse,
            Char('e'),
            Outcome::Stay,
            1,
            edit(Some(2), "Never push."),
        ),
        (
            2,
            Step::Browse,
            Enter,
            Outcome::Stay,
            2,
            edit(Some(3), "Write tests."),
        ),
        (0, Step::Browse, Char('a'), Outcome::Stay, 0, edit(None, "")),
        (1, edit(Some(2), "x"), Esc, Outcome::Stay, 1, Step::Browse),
        (
            1,
            edit(Some(2), "x"),
            Backspace,
            Outcome::Stay,
            1,
            edit(Some(2), ""),
        ),
        (0, Step::Browse, Esc, Outcome::Close, 0, Step::Browse),
        // A selection past the end (the server removed lines meanwhile) is pulled back.
        (7, Step::Browse, Char('x'), Outcome::Close, 2, Step::Browse),
    ];
    for (selected, step, key, want, want_selected, want_step) in rows {
        let mut s = Standing {
            selected,
            step: step.clone(),
        };
        let got = s.key(&k(key), &lines);
        assert_eq!(
            (got, s.selected, s.step),
            (want, want_selected, want_step),
            "{selected} {step:?} {key:?}"
        );
    }
}

#[test]
fn enter_in_the_editor_saves_an_edit_or_an_addition() {
    let lines: Vec<String> = vec!["Never push.".into()];
    let mut s = Standing::default();
    s.key(&k(KeyCode::Char('e')), &lines);
    typed(&mut s, " to main", &lines);
    assert_eq!(
        s.key(&k(KeyCode::Enter), &lines),
        Outcome::Change(InstructionsAction::Edit {
            number: 1,
            text: "Never push. to main".into()
        })
    );
    assert_eq!(s.step, Step::Browse);

    s.key(&k(KeyCode::Char('a')), &lines);
    s.paste("Answer briefly.\nsecond line dropped");
    assert_eq!(
        s.key(&k(KeyCode::Enter), &lines),
        Outcome::Change(InstructionsAction::Add {
            text: "Answer briefly.".into()
        })
    );
}

#[test]
fn with_no_lines_only_adding_is_offered() {
    let none: Vec<String> = Vec::new();
    for key in [KeyCode::Char('d'), KeyCode::Char('e'), KeyCode::Enter] {
        let mut s = Standing::default();
        assert_eq!(s.key(&k(key), &none), Outcome::Close, "{key:?}");
    }
    let mut s = Standing::default();
    assert_eq!(s.key(&k(KeyCode::Char('a')), &none), Outcome::Stay);
    assert_eq!(s.step, edit(None, ""));
}

#[test]
fn the_overlay_asks_the_server_as_baton_instructions_does_and_says_a_refusal() {
    use crate::protocol::Request;
    use crate::tui::app::{Effect, Msg, Tag};
    use crate::tui::testing::{app_with, ctrl, key, screen, terminal};
    let mut t = terminal("api", "claude", "idle", None);
    t.instructions = vec!["Use tabs.".into(), "Never push.".into()];
    let mut app = app_with(vec![t]);
    app.update(ctrl('b'));
    app.update(key(KeyCode::Char('i')));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Char('d')));
    assert!(screen(&mut app, 90, 20).contains("remove instruction 2? y/n"));
    let fx = app.update(key(KeyCode::Char('y')));
    let want = Effect::Call(
        Tag::Instructions("api".into()),
        Request::Instructions {
            name: "api".into(),
            action: InstructionsAction::Rm { number: 2 },
        },
    );
    assert_eq!(fx, vec![want]);
    let refused = crate::error::BatonError::bad_input("api has no instruction 2");
    app.update(Msg::Reply(Tag::Instructions("api".into()), Err(refused)));
    let s = screen(&mut app, 90, 20);
    assert!(s.contains("api has no instruction 2"), "{s}");
    assert!(s.contains("standing instructions of api"), "{s}");

    app.update(key(KeyCode::Char('a')));
    for c in "Answer briefly.".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    assert!(screen(&mut app, 90, 20).contains(" add: Answer briefly."));
}
