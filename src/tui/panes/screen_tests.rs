//! Snapshot tests of panes: nested splits with their own terminals and faces, zoom and close,
//! tiny windows, and the mouse (drags, double clicks, the wheel) mapped through splits and
//! scroll offsets to the text under the pointer; a 10 MB answer at any window size.

use crossterm::event::{KeyCode, KeyModifiers};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::tui::app::{App, Effect, Msg, Tag};
use crate::tui::testing::views;
use crate::tui::testing::{app_with, cell_style, key, log, prefix, screen, terminal};

#[test]
fn nested_splits_show_their_own_terminals_and_faces() {
    let mut app = app_with(vec![
        terminal("api", "claude", "idle", None),
        terminal("web", "codex", "idle", None),
        terminal("docs", "claude", "running", None),
    ]);
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log())));
    let empty = views::log_data(json!({}));
    app.update(Msg::Reply(Tag::Log("web".into()), Ok(empty.clone())));
    app.update(Msg::Reply(Tag::Log("docs".into()), Ok(empty)));
    screen(&mut app, 100, 18);
    let fx = prefix(&mut app, '%');
    assert!(
        matches!(&fx[..], [Effect::Call(Tag::Log(n), _)] if n == "web"),
        "{fx:?}"
    );
    prefix(&mut app, '"');
    // The bottom right pane shows the diff face of its terminal.
    prefix(&mut app, 'g');
    let want = "\
┌ terminals ───────────────┐┌ 0 api · claude · conversation 2 …┐┌ 1 web · codex · conversation 2 ·…┐
│0 api                 idle││── conversation 2 · rotated: the …││No turns yet: type a prompt below │
│  claude   ctx –          ││› Add a test                      ││                                  │
│1 web                 idle││Added tests/health.rs.            ││                                  │
│  codex    ctx –          ││── completed · claude · context   ││                                  │
│2 docs           ● running││   6.0% of 200,000                ││                                  │
│  claude   ctx –          ││                                  │└──────────────────────────────────┘
│                          ││── provider switched to codex · s…│╔ ▶ 2 docs · diff · reading… ══════╗
│                          ││› Review it                       │║reading the diff…                 ║
│                          ││── failed · codex · context not   │║                                  ║
│                          ││   reported                       │║                                  ║
│                          ││   API error 400                  │║                                  ║
│                          ││                                  │║                                  ║
│                          │└──────────────────────────────────┘╚══════════════════════════════════╝
│                          │┌ prompt → docs · claude · Tab: provider · Enter queues ───────────────┐
│                          ││                                                                      │
└──────────────────────────┘└──────────────────────────────────────────────────────────────────────┘
 baton  Enter queue · M-s steer · M-j jump · ↑ waiting list · Esc interrupt · PgUp/PgDn scroll · C-…
";
    assert_eq!(screen(&mut app, 100, 18), want);
    // The focused pane is marked without colours (a double line, ▶ in its title) and cyan.
    use ratatui::style::Color;
    assert_eq!(cell_style(&mut app, 100, 18, 70, 7).fg, Some(Color::Cyan));
    assert_eq!(cell_style(&mut app, 100, 18, 70, 6).fg, Some(Color::Reset));
    // Zoomed, the focused pane takes the whole area and says so.
    prefix(&mut app, 'z');
    let s = screen(&mut app, 100, 18);
    assert!(
        s.contains("╔ ▶ 2 docs · diff · reading… · zoomed (C-b z) ═══"),
        "{s}"
    );
    assert!(!s.contains("1 web · codex"), "{s}");
    prefix(&mut app, 'z');
    // Closing the diff pane gives its place back to the pane above.
    prefix(&mut app, 'x');
    let s = screen(&mut app, 100, 18);
    let row = |n: usize| s.lines().nth(n).unwrap_or("").to_string();
    assert!(
        row(0).ends_with("┐╔ ▶ 1 web · codex · conversation 2…╗"),
        "{s}"
    );
    assert!(
        row(7).ends_with("│║                                  ║"),
        "{s}"
    );
    assert!(
        row(13).ends_with("┘╚══════════════════════════════════╝"),
        "{s}"
    );
    assert!(!s.contains("2 docs · diff"), "{s}");
    assert_eq!(app.focused_name().as_deref(), Some("web"));
}

#[test]
fn a_tiny_window_with_several_splits_shows_the_focused_pane() {
    let mut app = app_with(vec![
        terminal("api", "claude", "idle", None),
        terminal("web", "codex", "idle", None),
    ]);
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log())));
    screen(&mut app, 120, 40);
    for c in ['%', '"', '%', '"', '%'] {
        prefix(&mut app, c);
    }
    assert_eq!(app.panes.len(), 6);
    prefix(&mut app, 'o');
    for (w, h) in [
        (20, 5),
        (1, 1),
        (5, 2),
        (30, 8),
        (60, 12),
        (24, 40),
        (400, 120),
    ] {
        screen(&mut app, w, h);
    }
    let want = "\
╔ ▶ 0 api · claude …╗
┌ prompt → api · cl…┐
│                   │
└───────────────────┘
 baton  Enter send ·…
";
    assert_eq!(screen(&mut app, 21, 5), want);
    // Keys that move the focus work on the layout even while it cannot be shown.
    prefix(&mut app, 'o');
    assert_eq!(app.active, 1);
    let s = screen(&mut app, 21, 5);
    assert!(s.starts_with("╔ ▶ 1 web · codex ·…╗"), "{s}");
}

fn mouse(kind: crossterm::event::MouseEventKind, x: u16, y: u16) -> crossterm::event::MouseEvent {
    crossterm::event::MouseEvent {
        kind,
        column: x,
        row: y,
        modifiers: KeyModifiers::NONE,
    }
}

/// Where `text` starts on the drawn screen (column in cells, row).
fn find(screen: &str, text: &str) -> (u16, u16) {
    find_from(screen, text, 0)
}

/// Where `text` first shows on the screen from row `from` on.
fn find_from(screen: &str, text: &str, from: u16) -> (u16, u16) {
    for (y, line) in screen.lines().enumerate().skip(usize::from(from)) {
        if let Some(i) = line.find(text) {
            return (
                crate::tui::transcript::lines::str_width(&line[..i]) as u16,
                y as u16,
            );
        }
    }
    panic!("{text:?} not on the screen:\n{screen}");
}

#[test]
fn a_drag_over_a_pane_selects_what_was_under_the_mouse_and_copies_it() {
    use crossterm::event::{MouseButton, MouseEventKind as K};
    use ratatui::style::Color;
    let mut app = app_with(vec![
        terminal("api", "claude", "idle", None),
        terminal("web", "codex", "idle", None),
    ]);
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log())));
    prefix(&mut app, '%');
    assert_eq!(app.active, 1);
    let s = screen(&mut app, 100, 23);
    let (x, y) = find(&s, "Added tests/health.rs.");
    // The press focuses the left pane; the drag enters copy mode and selects.
    app.update(Msg::Mouse(mouse(K::Down(MouseButton::Left), x, y)));
    assert_eq!(app.active, 0);
    assert_eq!(app.mode, crate::tui::app::Mode::Normal);
    app.update(Msg::Mouse(mouse(K::Drag(MouseButton::Left), x + 10, y)));
    app.update(Msg::Mouse(mouse(K::Drag(MouseButton::Left), x + 21, y)));
    assert!(matches!(app.mode, crate::tui::app::Mode::Copy(_)));
    assert_eq!(
        cell_style(&mut app, 100, 23, x + 5, y).bg,
        Some(Color::Yellow)
    );
    // The same text (the focus moved, and with it the double line: the borders aside).
    let row = |s: &str| s.lines().nth(y as usize).map(|l| l.replace('║', "│"));
    assert_eq!(row(&screen(&mut app, 100, 23)), row(&s));
    let fx = app.update(Msg::Mouse(mouse(K::Up(MouseButton::Left), x + 21, y)));
    assert_eq!(fx, vec![Effect::Clipboard("Added tests/health.rs.".into())]);
    assert_eq!(app.mode, crate::tui::app::Mode::Normal);

    // Upwards across a wrapped summary line: the rows join back as one line.
    let (x, y) = find(&s, "6.0% of 200,000");
    let (x0, y0) = find_from(&s, "context", y - 1);
    assert_eq!(y0 + 1, y, "the summary wraps in the narrow pane:\n{s}");
    app.update(Msg::Mouse(mouse(K::Down(MouseButton::Left), x + 14, y)));
    app.update(Msg::Mouse(mouse(K::Drag(MouseButton::Left), x0, y0)));
    let fx = app.update(Msg::Mouse(mouse(K::Up(MouseButton::Left), x0, y0)));
    assert_eq!(
        fx,
        vec![Effect::Clipboard("context 6.0% of 200,000".into())]
    );

    // A click without a drag copies nothing and leaves the mode as it was.
    app.update(Msg::Mouse(mouse(K::Down(MouseButton::Left), x, y)));
    assert_eq!(
        app.update(Msg::Mouse(mouse(K::Up(MouseButton::Left), x, y))),
        vec![]
    );
    assert_eq!(app.mode, crate::tui::app::Mode::Normal);
}

#[test]
fn the_mouse_maps_through_the_scroll_offset_double_clicks_copy_a_word_and_the_wheel_scrolls() {
    use crossterm::event::{MouseButton, MouseEventKind as K};
    use std::time::{Duration, Instant};
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log())));
    screen(&mut app, 90, 14);
    app.update(key(KeyCode::PageUp));
    let s = screen(&mut app, 90, 14);
    let (x, y) = find(&s, "/health returns");
    let t0 = Instant::now();
    let down = |app: &mut App, at: Instant| {
        let fx = app.on_mouse_at(mouse(K::Down(MouseButton::Left), x + 2, y), at);
        app.on_mouse_at(mouse(K::Up(MouseButton::Left), x + 2, y), at);
        fx
    };
    assert_eq!(down(&mut app, t0), vec![]);
    // Too slow for a double click.
    assert_eq!(down(&mut app, t0 + Duration::from_secs(1)), vec![]);
    let fx = down(&mut app, t0 + Duration::from_millis(1200));
    assert_eq!(fx, vec![Effect::Clipboard("/health".into())]);
    assert_eq!(app.mode, crate::tui::app::Mode::Normal);

    // In copy mode the wheel moves the copy view, not the pane behind it.
    prefix(&mut app, '[');
    let top = |app: &App| match &app.mode {
        crate::tui::app::Mode::Copy(v) => v.top,
        _ => usize::MAX,
    };
    let before = top(&app);
    app.update(Msg::Mouse(mouse(K::ScrollDown, x, y)));
    assert_eq!(top(&app), before + 3);
    app.update(Msg::Mouse(mouse(K::ScrollUp, x, y)));
    assert_eq!(top(&app), before);
    // A press outside the pane leaves copy mode; the wheel then scrolls the pane again.
    app.update(Msg::Mouse(mouse(K::Down(MouseButton::Left), 0, 9)));
    assert_eq!(app.mode, crate::tui::app::Mode::Normal);
    let scroll = app.panes[0].scroll;
    app.update(Msg::Mouse(mouse(K::ScrollDown, x, y)));
    assert_eq!(app.panes[0].scroll, scroll.saturating_sub(3));
}

#[test]
fn a_ten_megabyte_answer_draws_at_any_size_and_scrolls() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    let answer = format!(
        "{}THE-END",
        "all work and no play makes a long answer ".repeat(10 * 1024 * 1024 / 41)
    );
    let log = views::log_data(json!({
        "name": "api",
        "conversations": [{"number": 1, "opened_reason": "first"}],
        "turns": [{"number": 1, "conversation": 1, "provider": "claude", "prompt": "write a lot",
                   "status": "completed", "answer": answer, "tools": [], "notes": []}],
    }));
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log)));
    for (w, h) in [(20, 5), (400, 120), (120, 40)] {
        screen(&mut app, w, h);
    }
    assert!(screen(&mut app, 120, 40).contains("THE-END"));
    app.update(key(KeyCode::PageUp));
    let up = screen(&mut app, 120, 40);
    assert!(
        !up.contains("THE-END") && up.contains("all work and no play"),
        "{up}"
    );
}

#[test]
fn the_focused_pane_shows_without_colours_by_its_double_line_and_mark() {
    let mut app = app_with(vec![
        terminal("api", "claude", "idle", None),
        terminal("web", "codex", "idle", None),
    ]);
    prefix(&mut app, '%');
    prefix(&mut app, 'o');
    // The symbols alone (no colour): api's pane, focused, is the double one with the mark.
    let want = "\
┌ terminals ───────────────┐╔ ▶ 0 api · claude · c…╗┌ 1 web · codex · conv…┐
│0 api                 idle│║reading the history…  ║│reading the history…  │
│  claude   ctx –          │║                      ║│                      │
│1 web                 idle│║                      ║│                      │
│  codex    ctx –          │╚══════════════════════╝└──────────────────────┘
│                          │┌ prompt → api · claude · Tab: provider ───────┐
│                          ││                                              │
└──────────────────────────┘└──────────────────────────────────────────────┘
 baton  Enter send · Alt-Enter newline · Tab provider · C-b s shell · C-b c…
";
    assert_eq!(screen(&mut app, 76, 9), want);
    prefix(&mut app, 'o');
    let s = screen(&mut app, 76, 9);
    let first = s.lines().next().unwrap_or("");
    assert!(
        first.contains("┌ 0 api · claude") && first.contains("╔ ▶ 1 web · codex"),
        "{s}"
    );
    assert_eq!(s.matches('▶').count(), 1, "{s}");
    // One pane: nothing to tell apart, nothing marked.
    prefix(&mut app, 'x');
    let s = screen(&mut app, 76, 9);
    assert!(!s.contains('▶') && !s.contains('╔'), "{s}");
}
