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

fn prefix_mod(app: &mut App, code: KeyCode, mods: KeyModifiers) {
    prefix(app, KeyCode::Null);
    app.prefix_armed = true;
    app.update(Msg::Key(KeyEvent::new(code, mods)));
}

#[test]
fn alt_and_ctrl_arrows_resize_the_active_pane_by_five_and_by_one() {
    let mut app = app(&["api", "web"]);
    prefix(&mut app, KeyCode::Char('%'));
    let width = |app: &App| app.layout.rects(app.panes_area)[1].1.width;
    assert_eq!(width(&app), 40);
    // The right pane's left border goes left: it grows by 5, then by 1; right gives 1 back.
    let table = [
        (KeyCode::Left, KeyModifiers::ALT, 45),
        (KeyCode::Left, KeyModifiers::CONTROL, 46),
        (KeyCode::Right, KeyModifiers::CONTROL, 45),
        (KeyCode::Up, KeyModifiers::ALT, 45),
    ];
    for (code, mods, want) in table {
        prefix_mod(&mut app, code, mods);
        assert_eq!(width(&app), want, "{code:?} {mods:?}");
    }
    // The resized layout is what a detach saves and the next client restores.
    let saved = crate::tui::app::saved::Saved {
        layout: Some(app.saved_layout()),
        ..Default::default()
    };
    let json = serde_json::to_string(&saved).unwrap();
    let mut again = App::new("baton", "/w/api", Keys::default());
    again.restore(serde_json::from_str(&json).unwrap());
    assert!(again.saved_layout.is_some());
    let mut again = {
        let mut a = self::app(&["api", "web"]);
        a.restore(serde_json::from_str(&json).unwrap());
        assert!(a.bring_back_layout());
        a
    };
    again.panes_area = app.panes_area;
    assert_eq!(width(&again), 45);
}

#[test]
fn space_cycles_the_presets_and_braces_swap_keeping_the_focus() {
    let mut app = app(&["api", "web", "docs"]);
    prefix(&mut app, KeyCode::Char('%'));
    prefix(&mut app, KeyCode::Char('"'));
    let heights = |app: &App| -> Vec<u16> {
        app.layout
            .rects(app.panes_area)
            .iter()
            .map(|(_, r)| r.height)
            .collect()
    };
    prefix(&mut app, KeyCode::Char(' '));
    assert_eq!(app.status, Some(("layout even-horizontal".into(), false)));
    assert_eq!(heights(&app), vec![24, 24, 24]);
    prefix(&mut app, KeyCode::Char(' '));
    assert_eq!(app.status, Some(("layout even-vertical".into(), false)));
    assert_eq!(heights(&app), vec![8, 8, 8]);
    // The active pane (docs, last) swaps with the one after it (around: the first) and keeps
    // the focus; `{` brings it back.
    assert_eq!(app.active, 2);
    prefix(&mut app, KeyCode::Char('}'));
    assert_eq!(
        shown(&app),
        vec![(2, Some("docs")), (1, Some("web")), (0, Some("api"))]
    );
    assert_eq!(app.focused_name().as_deref(), Some("docs"));
    prefix(&mut app, KeyCode::Char('{'));
    assert_eq!(
        shown(&app),
        vec![(0, Some("api")), (1, Some("web")), (2, Some("docs"))]
    );
}

#[test]
fn semicolon_goes_back_to_the_last_pane_and_l_to_the_last_terminal() {
    let mut app = app(&["api", "web", "docs"]);
    prefix(&mut app, KeyCode::Char(';'));
    assert_eq!(app.status, Some(("no last pane".into(), false)));
    prefix(&mut app, KeyCode::Char('%'));
    assert_eq!(app.active, 1);
    prefix(&mut app, KeyCode::Char(';'));
    assert_eq!(app.active, 0);
    prefix(&mut app, KeyCode::Char(';'));
    assert_eq!(app.active, 1);
    // The last terminal: web's pane shows docs, then `l` brings web back, then docs again.
    prefix(&mut app, KeyCode::Char('n'));
    assert_eq!(app.focused_name().as_deref(), Some("docs"));
    prefix(&mut app, KeyCode::Char('l'));
    assert_eq!(app.focused_name().as_deref(), Some("web"));
    prefix(&mut app, KeyCode::Char('l'));
    assert_eq!(app.focused_name().as_deref(), Some("docs"));
    // A closed pane is no last pane.
    prefix(&mut app, KeyCode::Char(';'));
    assert_eq!(app.active, 0);
    prefix(&mut app, KeyCode::Char('x'));
    prefix(&mut app, KeyCode::Char(';'));
    assert_eq!(app.status, Some(("no last pane".into(), false)));
}

#[test]
fn the_pane_showing_a_chosen_terminal_is_the_active_one_else_the_first_in_reading_order() {
    let shown = [Some("api"), Some("web"), None, Some("web")];
    // Reading order: 3 before 1 (pane 3 was swapped to the left).
    let order = [0, 3, 1, 2];
    // (active pane, the terminal chosen, the pane that takes the focus)
    let table = [
        (0, "api", Some(0)),
        (0, "web", Some(3)),
        (1, "web", Some(1)),
        (2, "web", Some(3)),
        (1, "api", Some(0)),
        (0, "docs", None),
        (2, "docs", None),
    ];
    for (active, name, want) in table {
        assert_eq!(
            pane_showing(&shown, &order, active, name),
            want,
            "{active} {name}"
        );
    }
}

#[test]
fn prefix_and_a_digit_focus_the_pane_that_shows_that_terminal() {
    let mut app = app(&["api", "web", "docs"]);
    prefix(&mut app, KeyCode::Char('%'));
    assert_eq!(shown(&app), vec![(0, Some("api")), (1, Some("web"))]);
    // (digit, focused pane after, what the panes show)
    let table = [
        ('0', 0, [Some("api"), Some("web")]),
        ('1', 1, [Some("api"), Some("web")]),
        ('1', 1, [Some("api"), Some("web")]),
        // docs is in no pane: the focused one shows it.
        ('2', 1, [Some("api"), Some("docs")]),
        ('0', 0, [Some("api"), Some("docs")]),
        ('2', 1, [Some("api"), Some("docs")]),
    ];
    for (digit, active, panes) in table {
        prefix(&mut app, KeyCode::Char(digit));
        assert_eq!(app.active, active, "{digit}");
        let terms: Vec<Option<&str>> = app.panes.iter().map(|p| p.term.as_deref()).collect();
        assert_eq!(terms, panes, "{digit}");
    }
}

#[test]
fn a_terminal_picked_in_the_tree_focuses_the_pane_that_shows_it() {
    let mut app = app(&["api", "web", "docs"]);
    prefix(&mut app, KeyCode::Char('%'));
    assert_eq!(app.active, 1);
    let pick = |app: &mut App, name: &str| {
        prefix(app, KeyCode::Char('w'));
        for c in name.chars() {
            app.update(Msg::Key(KeyEvent::new(
                KeyCode::Char(c),
                KeyModifiers::NONE,
            )));
        }
        app.update(Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)));
    };
    // api is in pane 0: it takes the focus, and no pane changes what it shows.
    pick(&mut app, "api");
    assert_eq!(app.active, 0);
    assert_eq!(shown(&app), vec![(0, Some("api")), (1, Some("web"))]);
    // docs is in no pane: the focused one shows it.
    pick(&mut app, "docs");
    assert_eq!(app.active, 0);
    assert_eq!(shown(&app), vec![(0, Some("docs")), (1, Some("web"))]);
}
