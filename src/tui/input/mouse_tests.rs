//! Tests of the mouse's geometry: clicks on the list's rows, offsets into a pane's text,
//! and which presses keep a drag.

use super::*;
use crossterm::event::KeyModifiers;

#[test]
fn list_clicks_hit_rows_inside_the_border() {
    let area = Rect::new(0, 0, 28, 10);
    let table = [
        ((5, 0), None),
        ((5, 1), Some(0)),
        ((5, 2), Some(1)),
        ((5, 3), Some(2)),
        ((0, 3), None),
        ((27, 3), None),
        ((5, 9), None),
    ];
    for ((x, y), want) in table {
        assert_eq!(list_row(area, Position::new(x, y)), want, "{x},{y}");
    }
    assert_eq!(list_row(Rect::default(), Position::new(0, 0)), None);
}

#[test]
fn offsets_count_from_the_first_text_cell() {
    let area = Rect::new(10, 4, 20, 8);
    let table = [((11, 5), (0, 0)), ((15, 7), (4, 2)), ((10, 4), (-1, -1))];
    for ((x, y), want) in table {
        assert_eq!(offset(area, Position::new(x, y)), want, "{x},{y}");
    }
}

#[test]
fn a_press_elsewhere_forgets_a_drag_and_other_buttons_only_focus() {
    let mut app = App::new("baton", "/w", crate::tui::input::keys::Keys::default());
    let ev = |kind| MouseEvent {
        kind,
        column: 1,
        row: 1,
        modifiers: KeyModifiers::NONE,
    };
    app.on_mouse(ev(MouseEventKind::Down(MouseButton::Right)));
    assert_eq!(app.mouse.press, None);
    app.on_mouse(ev(MouseEventKind::Drag(MouseButton::Left)));
    assert_eq!(app.mode, Mode::Normal);
    assert_eq!(
        app.on_mouse(ev(MouseEventKind::Up(MouseButton::Left))),
        vec![]
    );
}
