//! The panes' part of the state, as tmux's keys drive it: splitting the active pane (prefix `%`
//! left|right, `"` top/bottom), closing it (`x`: the pane goes, its terminal goes on), moving
//! the focus (`o`, the arrow keys, a click) and zooming (`z`). The geometry is `layout`'s; any
//! change of focus or of the tree ends a zoom, as in tmux.

pub mod layout;

#[cfg(test)]
mod screen_tests;

use crate::tui::app::{App, Effect, Pane};
use layout::{Side, Split};

impl App {
    /// Prefix `%` / `"`: the active pane gives half its area to a new pane, which takes the
    /// focus and shows a terminal no pane shows yet (else the same one).
    pub(in crate::tui) fn split_pane(&mut self, dir: Split) -> Vec<Effect> {
        let area = self
            .layout
            .rects(self.panes_area)
            .into_iter()
            .find(|(p, _)| *p == self.active)
            .map(|(_, r)| r)
            .unwrap_or_default();
        if !layout::room_to_split(area, dir) {
            self.say("no room to split this pane (close one, or make the window larger)");
            return Vec::new();
        }
        let new = self.panes.len();
        if !self.layout.split(self.active, dir, new) {
            return Vec::new();
        }
        self.panes.push(Pane::default());
        self.zoomed = false;
        let shown = self.focused_name();
        let next = self
            .terms
            .iter()
            .map(|t| t.info.name.clone())
            .find(|n| !self.visible(n))
            .or(shown);
        self.active = new;
        match next {
            Some(name) => self.focus(&name),
            None => Vec::new(),
        }
    }

    /// Prefix `x`: the active pane goes; its neighbour takes its place and the focus.
    pub(in crate::tui) fn close_pane(&mut self) -> Vec<Effect> {
        let Some(heir) = self.layout.close(self.active) else {
            self.say("the last pane stays");
            return Vec::new();
        };
        if self.active < self.panes.len() {
            self.panes.remove(self.active);
        }
        self.zoomed = false;
        // The heir is already renumbered; make it differ from `active` so the focus moves.
        self.active = usize::MAX;
        self.select_pane(heir)
    }

    /// Pane `i` takes the focus (a click, `o`, an arrow).
    pub fn select_pane(&mut self, i: usize) -> Vec<Effect> {
        if i == self.active || i >= self.panes.len() {
            return Vec::new();
        }
        self.active = i;
        self.zoomed = false;
        self.next_provider = None;
        self.next_model = None;
        match self.focused_name() {
            Some(n) => self.show_effects(&n),
            None => Vec::new(),
        }
    }

    /// Prefix `o`: the next pane in reading order.
    pub(in crate::tui) fn next_pane(&mut self) -> Vec<Effect> {
        let next = layout::next(&self.layout, self.active);
        self.select_pane(next)
    }

    /// Prefix and an arrow: the pane on that side (wrapping around, as tmux does).
    pub(in crate::tui) fn select_side(&mut self, side: Side) -> Vec<Effect> {
        let rects = self.layout.rects(self.panes_area);
        match layout::neighbour(&rects, self.active, side) {
            Some(p) => self.select_pane(p),
            None => Vec::new(),
        }
    }

    /// Prefix `z`: the active pane fills the panes' area, or goes back to its place.
    pub(in crate::tui) fn toggle_zoom(&mut self) {
        if self.panes.len() < 2 {
            self.say("one pane: nothing to zoom");
            return;
        }
        self.zoomed = !self.zoomed;
    }
}

#[cfg(test)]
mod tests {
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
}
