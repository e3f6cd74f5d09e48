//! Where panes go, as tmux lays them out: a tree whose leaves are panes and whose inner nodes
//! split their area in two halves, left|right or top/bottom (splitting a pane halves it; closing
//! one gives its place to its sibling). From the tree: each pane's rectangle, the pane next to
//! another in a direction, and the order `prefix o` walks. Pure: table-tested.
//!
//! Decisions made here (the UI as a whole: see ARCHITECTURE.md): a pane needs `MIN_WIDTH`×`MIN_HEIGHT` cells
//! (its border and a little text); a split that would make smaller halves is refused, and a
//! window too small for the whole tree shows the focused pane alone (as a zoom would) rather
//! than slivers. Moving focus past the last pane in a direction wraps around, as tmux does.

use ratatui::layout::Rect;

/// Narrowest pane drawn in a split: its border and four columns of text.
pub const MIN_WIDTH: u16 = 6;
/// Lowest pane drawn in a split: its border and one row of text.
pub const MIN_HEIGHT: u16 = 3;

/// How a node splits its area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Left | right (tmux `%`).
    Beside,
    /// Top / bottom (tmux `"`).
    Below,
}

/// A direction to move the focus in (prefix and an arrow key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
    Up,
    Down,
}

/// The layout tree: a pane (by its index in `App::panes`), or an area split in two halves.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Node {
    Pane(usize),
    Split {
        dir: Split,
        first: Box<Node>,
        second: Box<Node>,
        /// The first part's share of the area, in ten-thousandths (`HALF` until resized or
        /// laid out by a preset). Saved layouts from before resizing have none: halves.
        #[serde(default = "half", skip_serializing_if = "is_half")]
        share: u16,
    },
}

/// A share of one half: what a split starts with.
pub const HALF: u16 = 5000;
/// The whole of an area, as shares count it.
pub const WHOLE: u16 = 10_000;

fn half() -> u16 {
    HALF
}

fn is_half(s: &u16) -> bool {
    *s == HALF
}

impl Default for Node {
    fn default() -> Node {
        Node::Pane(0)
    }
}

impl Node {
    /// The panes in reading order (left before right, top before bottom): `prefix o` walks it.
    pub fn panes(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<usize>) {
        match self {
            Node::Pane(p) => out.push(*p),
            Node::Split { first, second, .. } => {
                first.collect(out);
                second.collect(out);
            }
        }
    }

    fn first_pane(&self) -> usize {
        match self {
            Node::Pane(p) => *p,
            Node::Split { first, .. } => first.first_pane(),
        }
    }

    fn last_pane(&self) -> usize {
        match self {
            Node::Pane(p) => *p,
            Node::Split { second, .. } => second.last_pane(),
        }
    }

    /// Pane `pane` gives the right (or bottom) half of its area to pane `new`. False when
    /// `pane` is not in the tree.
    pub fn split(&mut self, pane: usize, dir: Split, new: usize) -> bool {
        match self {
            Node::Pane(p) if *p == pane => {
                *self = Node::Split {
                    dir,
                    first: Box::new(Node::Pane(pane)),
                    second: Box::new(Node::Pane(new)),
                    share: HALF,
                };
                true
            }
            Node::Pane(_) => false,
            Node::Split { first, second, .. } => {
                first.split(pane, dir, new) || second.split(pane, dir, new)
            }
        }
    }

    /// Takes pane `pane` out: its sibling takes the whole of their area. The panes after it are
    /// renumbered (`App::panes` loses that entry too). Returns the pane to focus next (the
    /// nearest one of the sibling, renumbered), or None when `pane` is the last one or absent.
    pub fn close(&mut self, pane: usize) -> Option<usize> {
        let heir = self.remove(pane)?;
        self.renumber(pane);
        Some(if heir > pane { heir - 1 } else { heir })
    }

    fn remove(&mut self, pane: usize) -> Option<usize> {
        let Node::Split { first, second, .. } = self else {
            return None;
        };
        let (keep, heir) = if **first == Node::Pane(pane) {
            let heir = second.first_pane();
            (std::mem::take(second), heir)
        } else if **second == Node::Pane(pane) {
            let heir = first.last_pane();
            (std::mem::take(first), heir)
        } else {
            return first.remove(pane).or_else(|| second.remove(pane));
        };
        *self = *keep;
        Some(heir)
    }

    fn renumber(&mut self, gone: usize) {
        match self {
            Node::Pane(p) => {
                if *p > gone {
                    *p -= 1;
                }
            }
            Node::Split { first, second, .. } => {
                first.renumber(gone);
                second.renumber(gone);
            }
        }
    }

    /// Each pane's rectangle in `area`: a split gives its first part its share, rounded down
    /// (halves: the first the smaller one when the size is odd, as tmux does).
    pub fn rects(&self, area: Rect) -> Vec<(usize, Rect)> {
        let mut out = Vec::new();
        self.place(area, &mut out);
        out
    }

    fn place(&self, area: Rect, out: &mut Vec<(usize, Rect)>) {
        match self {
            Node::Pane(p) => out.push((*p, area)),
            Node::Split {
                dir,
                first,
                second,
                share,
            } => {
                let (a, b) = parts(area, *dir, *share);
                first.place(a, out);
                second.place(b, out);
            }
        }
    }

    /// The smallest area (width, height) in which every pane gets its minimum.
    pub fn min_size(&self) -> (u16, u16) {
        match self {
            Node::Pane(_) => (MIN_WIDTH, MIN_HEIGHT),
            Node::Split {
                dir,
                first,
                second,
                share,
            } => {
                let (a, b) = (first.min_size(), second.min_size());
                // Each part must get its minimum from its share (halves: the larger one twice).
                let along = |a: u16, b: u16| needed(a, *share).max(needed(b, WHOLE - *share));
                match dir {
                    Split::Beside => (along(a.0, b.0), a.1.max(b.1)),
                    Split::Below => (a.0.max(b.0), along(a.1, b.1)),
                }
            }
        }
    }
}

/// The smallest size of which `share` (ten-thousandths) rounded down is at least `min`.
fn needed(min: u16, share: u16) -> u16 {
    let share = u32::from(share.clamp(1, WHOLE));
    let size = (u32::from(min) * u32::from(WHOLE)).div_ceil(share);
    u16::try_from(size).unwrap_or(u16::MAX)
}

/// How many of `size` cells the first part gets for `share`.
pub fn first_cells(size: u16, share: u16) -> u16 {
    let cells = u32::from(size) * u32::from(share.min(WHOLE)) / u32::from(WHOLE);
    u16::try_from(cells).unwrap_or(size)
}

/// `area` cut in two for a split, the first part getting `share` of it.
pub(super) fn parts(area: Rect, dir: Split, share: u16) -> (Rect, Rect) {
    match dir {
        Split::Beside => {
            let w = first_cells(area.width, share);
            (
                Rect::new(area.x, area.y, w, area.height),
                Rect::new(area.x + w, area.y, area.width - w, area.height),
            )
        }
        Split::Below => {
            let h = first_cells(area.height, share);
            (
                Rect::new(area.x, area.y, area.width, h),
                Rect::new(area.x, area.y + h, area.width, area.height - h),
            )
        }
    }
}

/// What is drawn where: every pane of the tree, or only `focused` over the whole area when
/// zoomed or when the window is too small for the tree.
pub fn shown(tree: &Node, area: Rect, focused: usize, zoomed: bool) -> Vec<(usize, Rect)> {
    let (w, h) = tree.min_size();
    if zoomed || area.width < w || area.height < h {
        return vec![(focused, area)];
    }
    tree.rects(area)
}

/// A pane drawn at `area` (its last drawing; empty: not known yet) has room to be split.
pub fn room_to_split(area: Rect, dir: Split) -> bool {
    if area.is_empty() {
        return true;
    }
    match dir {
        Split::Beside => area.width >= MIN_WIDTH * 2,
        Split::Below => area.height >= MIN_HEIGHT * 2,
    }
}

/// The pane next to `from` on `side`: among the panes touching that edge and overlapping it
/// across, the one covering the middle of `from`'s edge (else the one overlapping most). Past
/// the last pane it wraps around to the far side, as tmux does. None when `from` is alone in
/// that direction.
pub fn neighbour(rects: &[(usize, Rect)], from: usize, side: Side) -> Option<usize> {
    let (_, cur) = rects.iter().find(|(p, _)| *p == from)?;
    let across = |r: &Rect| match side {
        Side::Left | Side::Right => overlap(cur.y, cur.bottom(), r.y, r.bottom()),
        Side::Up | Side::Down => overlap(cur.x, cur.right(), r.x, r.right()),
    };
    // How far each pane is in that direction (None: not on that side).
    let ahead = |r: &Rect| -> Option<u16> {
        match side {
            Side::Left => (r.right() <= cur.x).then(|| cur.x - r.right()),
            Side::Right => (r.x >= cur.right()).then(|| r.x - cur.right()),
            Side::Up => (r.bottom() <= cur.y).then(|| cur.y - r.bottom()),
            Side::Down => (r.y >= cur.bottom()).then(|| r.y - cur.bottom()),
        }
    };
    // Wrapping: the panes on the far side, farthest first.
    let behind = |r: &Rect| -> Option<u16> {
        let far = match side {
            Side::Left => r.x >= cur.right(),
            Side::Right => r.right() <= cur.x,
            Side::Up => r.y >= cur.bottom(),
            Side::Down => r.bottom() <= cur.y,
        };
        let dist = match side {
            Side::Left => u16::MAX - r.right(),
            Side::Right => r.x,
            Side::Up => u16::MAX - r.bottom(),
            Side::Down => r.y,
        };
        far.then_some(dist)
    };
    let mid = match side {
        Side::Left | Side::Right => cur.y + cur.height / 2,
        Side::Up | Side::Down => cur.x + cur.width / 2,
    };
    let covers_mid = |r: &Rect| match side {
        Side::Left | Side::Right => r.y <= mid && mid < r.bottom(),
        Side::Up | Side::Down => r.x <= mid && mid < r.right(),
    };
    let pick = |dist: &dyn Fn(&Rect) -> Option<u16>| {
        rects
            .iter()
            .filter(|(p, r)| *p != from && across(r) > 0)
            .filter_map(|(p, r)| dist(r).map(|d| (d, !covers_mid(r), u16::MAX - across(r), *p)))
            .min()
            .map(|(.., p)| p)
    };
    pick(&ahead).or_else(|| pick(&behind))
}

/// How many cells the spans [a0, a1) and [b0, b1) share.
fn overlap(a0: u16, a1: u16, b0: u16, b1: u16) -> u16 {
    a1.min(b1).saturating_sub(a0.max(b0))
}

/// The pane after `from` in reading order (`prefix o`), wrapping.
pub fn next(tree: &Node, from: usize) -> usize {
    let order = tree.panes();
    let at = order.iter().position(|p| *p == from).unwrap_or(0);
    order
        .get((at + 1) % order.len().max(1))
        .copied()
        .unwrap_or(from)
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;
