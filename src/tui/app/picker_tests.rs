//! Tests of the tree picker: motions, the filter (by name or title, any case), Enter focusing
//! the pane that shows the terminal or showing it in the active pane, Esc closing.

use super::*;
use crate::tui::testing::app_with;
use crate::tui::testing::views::terminal;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;
use serde_json::json;

fn app() -> App {
    app_with(vec![
        terminal(json!({"name": "api", "state": "running"})),
        terminal(json!({"name": "web", "conversation": {"number": 1, "title": "Fix the Login"}})),
        terminal(json!({"name": "docs"})),
    ])
}

fn names(app: &App) -> Vec<String> {
    let Mode::Picker(p) = &app.mode else {
        return Vec::new();
    };
    app.picked(p).iter().map(|t| t.info.name.clone()).collect()
}

fn at(app: &App) -> Option<usize> {
    match &app.mode {
        Mode::Picker(p) => Some(p.at),
        _ => None,
    }
}

fn press(app: &mut App, keys: &[KeyCode]) {
    for k in keys {
        app.picker_key(KeyEvent::new(*k, KeyModifiers::NONE));
    }
}

#[test]
fn motions_and_the_filter_pick_a_terminal() {
    use KeyCode::{Backspace, Char, Down, Up};
    // Keys typed in the picker → the terminals kept, the cursor.
    let table: Vec<(Vec<KeyCode>, Vec<&str>, usize)> = vec![
        (vec![], vec!["api", "web", "docs"], 0),
        (vec![Char('j'), Down], vec!["api", "web", "docs"], 2),
        (
            vec![Down, Down, Down, Char('k')],
            vec!["api", "web", "docs"],
            1,
        ),
        (vec![Up], vec!["api", "web", "docs"], 0),
        // Any character that is not a motion filters; the title counts, any case.
        (vec![Char('D')], vec!["docs"], 0),
        (vec![Char('l'), Char('o'), Char('g')], vec!["web"], 0),
        // After `/`, j and k filter too.
        (vec![Char('/'), Char('k')], vec![], 0),
        (vec![Char('x'), Backspace], vec!["api", "web", "docs"], 0),
        (vec![Char('/'), Char('p'), Down], vec!["api"], 0),
    ];
    for (keys, want, cursor) in table {
        let mut app = app();
        app.open_picker();
        press(&mut app, &keys);
        assert_eq!(names(&app), want, "{keys:?}");
        assert_eq!(at(&app), Some(cursor), "{keys:?}");
    }
}

#[test]
fn enter_shows_the_terminal_in_the_active_pane_and_esc_closes() {
    use KeyCode::{Char, Enter, Esc};
    let mut app = app();
    app.open_picker();
    press(&mut app, &[Char('w'), Enter]);
    assert_eq!(app.mode, Mode::Normal);
    assert_eq!(app.focused_name().as_deref(), Some("web"));
    // It opens on the focused terminal; Esc leaves the focus alone.
    app.open_picker();
    assert_eq!(at(&app), Some(1));
    press(&mut app, &[Char('j'), Esc]);
    assert_eq!(app.mode, Mode::Normal);
    assert_eq!(app.focused_name().as_deref(), Some("web"));
    // Nothing kept: Enter only closes.
    app.open_picker();
    press(&mut app, &[Char('z'), Enter]);
    assert_eq!(app.mode, Mode::Normal);
    assert_eq!(app.focused_name().as_deref(), Some("web"));
}
