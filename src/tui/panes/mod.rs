//! The panes' part of the state, as tmux's keys drive it: splitting the active pane (prefix `%`
//! left|right, `"` top/bottom), closing it (`x`: the pane goes, its terminal goes on), moving
//! the focus (`o`, the arrow keys, a click) and zooming (`z`). The geometry is `layout`'s; any
//! change of focus or of the tree ends a zoom, as in tmux.

pub mod layout;

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
            .listed()
            .into_iter()
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
#[path = "mod_tests.rs"]
mod tests;

/// Whole screens of panes (splits, zoom, the mouse through them).
#[cfg(test)]
mod screen_tests;
