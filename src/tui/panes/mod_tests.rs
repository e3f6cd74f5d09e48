//! Tests of the panes' part of the state: nested splits showing new terminals, focus moves and
//! closes, zoom, and panes too small to split.

use super::*;
use crate::protocol::WatchEvent;
use crate::tui::app::Msg;
use crate::tui::input::keys::Keys;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;
use ratatui::layout::Rect;
use serde_json::json;

fn app(names: &[&str]) -> App {
    let mut app = App::new("baton", "/w/api", Keys::default());
    let terms = names
        .iter()
        .map(|n| crate::tui::testing::views::terminal(json!({"name": n})))
        .collect();
    app.update(Msg::Watch(WatchEvent::Terminals { terminals: terms }));
    app.panes_area = Rect::new(0, 0, 80, 24);
    app
}

fn prefix(app: &mut App, code: KeyCode) {
    app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('b'),
        KeyModifiers::CONTROL,
    )));
    app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn shown(app: &App) -> Vec<(usize, Option<&str>)> {
    app.layout
        .panes()
        .into_iter()
        .map(|p| (p, app.panes[p].term.as_deref()))
        .collect()
}

#[test]
fn splits_nest_and_each_new_pane_shows_a_terminal_not_yet_shown() {
    let mut app = app(&["api", "web", "docs"]);
    prefix(&mut app, KeyCode::Char('%'));
    prefix(&mut app, KeyCode::Char('"'));
    assert_eq!(
        shown(&app),
        vec![(0, Some("api")), (1, Some("web")), (2, Some("docs"))]
    );
    assert_eq!(app.active, 2);
    assert_eq!(
        app.layout.rects(app.panes_area),
        vec![
            (0, Rect::new(0, 0, 40, 24)),
            (1, Rect::new(40, 0, 40, 12)),
            (2, Rect::new(40, 12, 40, 12)),
        ]
    );
    // Every terminal shown: the new pane shows the focused one.
    prefix(&mut app, KeyCode::Char('%'));
    assert_eq!(app.panes[3].term.as_deref(), Some("docs"));
}

#[test]
fn arrows_and_o_move_the_focus_and_x_closes_the_focused_pane() {
    let mut app = app(&["api", "web", "docs"]);
    prefix(&mut app, KeyCode::Char('%'));
    prefix(&mut app, KeyCode::Char('"'));
    // (key, focused pane after, its terminal)
    let table = [
        (KeyCode::Up, 1, "web"),
        (KeyCode::Left, 0, "api"),
        // Both right panes touch it: the one at the middle of its edge.
        (KeyCode::Right, 2, "docs"),
        // Nothing below: around to the top.
        (KeyCode::Down, 1, "web"),
        (KeyCode::Down, 2, "docs"),
        (KeyCode::Char('o'), 0, "api"),
        (KeyCode::Char('o'), 1, "web"),
        (KeyCode::Left, 0, "api"),
    ];
    for (code, pane, name) in table {
        prefix(&mut app, code);
        assert_eq!(app.active, pane, "{code:?}");
        assert_eq!(app.focused_name().as_deref(), Some(name), "{code:?}");
    }
    // Closing the left pane: the right column takes the window, its top pane the focus.
    prefix(&mut app, KeyCode::Char('x'));
    assert_eq!(shown(&app), vec![(0, Some("web")), (1, Some("docs"))]);
    assert_eq!(app.focused_name().as_deref(), Some("web"));
    assert_eq!(app.terms.len(), 3, "the terminal goes on");
    prefix(&mut app, KeyCode::Char('x'));
    prefix(&mut app, KeyCode::Char('x'));
    assert_eq!(shown(&app), vec![(0, Some("docs"))]);
    assert_eq!(app.status, Some(("the last pane stays".into(), false)));
}

#[test]
fn zoom_toggles_and_ends_when_the_focus_or_the_tree_changes() {
    let mut app = app(&["api", "web"]);
    prefix(&mut app, KeyCode::Char('z'));
    assert!(!app.zoomed, "one pane");
    prefix(&mut app, KeyCode::Char('%'));
    prefix(&mut app, KeyCode::Char('z'));
    assert!(app.zoomed);
    prefix(&mut app, KeyCode::Char('z'));
    assert!(!app.zoomed);
    for code in [KeyCode::Left, KeyCode::Char('o'), KeyCode::Char('"')] {
        prefix(&mut app, KeyCode::Char('z'));
        assert!(app.zoomed);
        prefix(&mut app, code);
        assert!(!app.zoomed, "{code:?}");
    }
}

#[test]
fn a_pane_too_small_is_not_split() {
    let mut app = app(&["api", "web"]);
    app.panes_area = Rect::new(0, 0, 11, 40);
    prefix(&mut app, KeyCode::Char('%'));
    assert_eq!(app.panes.len(), 1);
    assert!(app
        .status
        .as_ref()
        .is_some_and(|(s, _)| s.contains("no room")));
    prefix(&mut app, KeyCode::Char('"'));
    assert_eq!(app.panes.len(), 2);
}
