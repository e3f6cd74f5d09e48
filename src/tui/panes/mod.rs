//! The panes' part of the state, as tmux's keys drive it: splitting the active pane (prefix `%`
//! left|right, `"` top/bottom), closing it (`x`: the pane goes, its terminal goes on), moving
//! the focus (`o`, the arrow keys, `;` the last pane, a click), zooming (`z`), resizing (Alt
//! and Ctrl with an arrow), swapping (`{` `}`) and the preset layouts (Space). The geometry is
//! `layout`'s and `resize`'s; any change of focus or of the tree ends a zoom, as in tmux.
//! A terminal chosen by name (prefix and a digit, a click in the list, `baton attach NAME`)
//! moves the focus to a pane that shows it already, as tmux's `select-window` does, rather
//! than showing it twice.

pub mod layout;
pub mod resize;

use crate::tui::app::{App, Effect, Pane};
use layout::{Side, Split};
use resize::Preset;

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
        let gone = self.active;
        self.last_pane =
            self.last_pane
                .filter(|l| *l != gone)
                .map(|l| if l > gone { l - 1 } else { l });
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
        self.next_endpoint = None;
        self.next_model = None;
        match self.focused_name() {
            Some(n) => self.show_effects(&n),
            None => Vec::new(),
        }
    }

    /// Terminal `name` chosen by name: the pane that shows it takes the focus, else the active
    /// pane shows it.
    pub(in crate::tui) fn choose(&mut self, name: &str) -> Vec<Effect> {
        let shown: Vec<Option<&str>> = self.panes.iter().map(|p| p.term.as_deref()).collect();
        match pane_showing(&shown, &self.layout.panes(), self.active, name) {
            Some(i) => self.select_pane(i),
            None => self.focus(name),
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

    /// Prefix and Alt/Ctrl with an arrow: the active pane's border moves that way.
    pub(in crate::tui) fn resize_pane(&mut self, side: Side, cells: u16) {
        if self
            .layout
            .resize(self.active, side, cells, self.panes_area)
        {
            self.zoomed = false;
        }
    }

    /// Prefix Space: the panes laid out by the next preset, the first in reading order as the
    /// main pane.
    pub(in crate::tui) fn next_layout(&mut self) {
        if self.panes.len() < 2 {
            self.say("one pane: nothing to lay out");
            return;
        }
        let next = Preset::after(self.preset);
        self.preset = Some(next);
        self.layout = resize::preset(next, &self.layout.panes(), self.panes_area);
        self.zoomed = false;
        self.say(format!("layout {}", next.name()));
    }

    /// Prefix `{` / `}`: the active pane changes places with the one before / after it in
    /// reading order, and keeps the focus (as tmux's `swap-pane -U` / `-D`).
    pub(in crate::tui) fn swap_pane(&mut self, later: bool) {
        let order = self.layout.panes();
        let n = order.len();
        let Some(at) = order.iter().position(|p| *p == self.active) else {
            return;
        };
        if n < 2 {
            self.say("one pane: nothing to swap");
            return;
        }
        let other = order[if later {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        }];
        self.layout.swap(self.active, other);
        self.zoomed = false;
    }

    /// Prefix `;`: the pane that had the focus before.
    pub(in crate::tui) fn select_last_pane(&mut self) -> Vec<Effect> {
        match self
            .last_pane
            .filter(|p| *p < self.panes.len() && *p != self.active)
        {
            Some(p) => self.select_pane(p),
            None => {
                self.say("no last pane");
                Vec::new()
            }
        }
    }

    /// Prefix `l`: the terminal focused before, in the active pane.
    pub(in crate::tui) fn focus_last_term(&mut self) -> Vec<Effect> {
        match self.last_term.clone().filter(|n| self.term(n).is_some()) {
            Some(name) => self.focus(&name),
            None => {
                self.say("no last terminal");
                Vec::new()
            }
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

/// The pane that shows terminal `name` (`shown`: each pane's terminal; `order`: the panes in
/// reading order): the active one if it does, else the first in reading order; None when no
/// pane shows it.
pub fn pane_showing(
    shown: &[Option<&str>],
    order: &[usize],
    active: usize,
    name: &str,
) -> Option<usize> {
    let shows = |i: &usize| shown.get(*i).copied().flatten() == Some(name);
    std::iter::once(active)
        .chain(order.iter().copied())
        .find(shows)
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;

/// Whole screens of panes (splits, zoom, the mouse through them).
#[cfg(test)]
mod screen_tests;
