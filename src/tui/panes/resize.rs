//! Changing the layout tree's shape without adding or taking panes, as tmux's commands do:
//! `resize-pane` (prefix and Alt/Ctrl with an arrow: a border moves by cells), `swap-pane`
//! (prefix `{` / `}`: two panes change places) and the preset layouts of `next-layout`
//! (prefix Space). Pure: table-tested.
//!
//! Which border moves, as tmux's `layout_resize_pane` picks it: the pane's right (bottom)
//! border, or its left (top) one when it has none; the arrow says which way it goes. A border
//! never moves so far that a pane on either side gets less than `MIN_WIDTH`×`MIN_HEIGHT`.

use ratatui::layout::Rect;

use super::layout::{first_cells, parts, Node, Side, Split, HALF, MIN_HEIGHT, MIN_WIDTH, WHOLE};

/// tmux's preset layouts, in the order `next-layout` cycles them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    EvenHorizontal,
    EvenVertical,
    MainHorizontal,
    MainVertical,
    Tiled,
}

impl Preset {
    pub const ALL: [Preset; 5] = [
        Preset::EvenHorizontal,
        Preset::EvenVertical,
        Preset::MainHorizontal,
        Preset::MainVertical,
        Preset::Tiled,
    ];

    /// The name tmux gives it.
    pub fn name(self) -> &'static str {
        match self {
            Preset::EvenHorizontal => "even-horizontal",
            Preset::EvenVertical => "even-vertical",
            Preset::MainHorizontal => "main-horizontal",
            Preset::MainVertical => "main-vertical",
            Preset::Tiled => "tiled",
        }
    }

    /// The one after `last` (none yet: the first), as `next-layout` goes.
    pub fn after(last: Option<Preset>) -> Preset {
        let at = last.and_then(|l| Preset::ALL.iter().position(|p| *p == l));
        let next = at.map_or(0, |i| (i + 1) % Preset::ALL.len());
        Preset::ALL[next]
    }
}

/// tmux's `main-pane-height` and `main-pane-width` defaults.
const MAIN_HEIGHT: u16 = 24;
const MAIN_WIDTH: u16 = 80;

/// `panes` (in reading order, the first one the main pane) laid out as `preset` in `area`.
pub fn preset(preset: Preset, panes: &[usize], area: Rect) -> Node {
    let Some((main, rest)) = panes.split_first() else {
        return Node::default();
    };
    if rest.is_empty() {
        return Node::Pane(*main);
    }
    match preset {
        Preset::EvenHorizontal => chain(Split::Beside, panes),
        Preset::EvenVertical => chain(Split::Below, panes),
        Preset::MainHorizontal => Node::Split {
            dir: Split::Below,
            first: Box::new(Node::Pane(*main)),
            second: Box::new(chain(Split::Beside, rest)),
            share: main_share(area.height, MAIN_HEIGHT, MIN_HEIGHT),
        },
        Preset::MainVertical => Node::Split {
            dir: Split::Beside,
            first: Box::new(Node::Pane(*main)),
            second: Box::new(chain(Split::Below, rest)),
            share: main_share(area.width, MAIN_WIDTH, MIN_WIDTH),
        },
        Preset::Tiled => {
            let cols = (1..=panes.len())
                .find(|c| c * c >= panes.len())
                .unwrap_or(1);
            let rows: Vec<Node> = panes
                .chunks(cols)
                .map(|row| chain(Split::Beside, row))
                .collect();
            chain_nodes(Split::Below, rows)
        }
    }
}

/// The main pane's share: tmux's fixed size where the others keep their minimum, else half.
fn main_share(size: u16, main: u16, min_rest: u16) -> u16 {
    let cells = main.min(size.saturating_sub(min_rest));
    if size == 0 || cells * 2 < size {
        return HALF;
    }
    share_for(cells, size)
}

/// The share whose rounding down gives the first part exactly `cells` of `size`.
fn share_for(cells: u16, size: u16) -> u16 {
    let share = (u32::from(cells) * u32::from(WHOLE)).div_ceil(u32::from(size.max(1)));
    u16::try_from(share).unwrap_or(WHOLE).min(WHOLE)
}

/// The panes one after the other along `dir`, each an equal part.
fn chain(dir: Split, panes: &[usize]) -> Node {
    chain_nodes(dir, panes.iter().map(|p| Node::Pane(*p)).collect())
}

fn chain_nodes(dir: Split, mut nodes: Vec<Node>) -> Node {
    let n = nodes.len();
    if n <= 1 {
        return nodes.pop().unwrap_or_default();
    }
    let first = nodes.remove(0);
    let share = u16::try_from(usize::from(WHOLE).div_ceil(n)).unwrap_or(HALF);
    Node::Split {
        dir,
        first: Box::new(first),
        second: Box::new(chain_nodes(dir, nodes)),
        share,
    }
}

/// One split on the way from the root to a pane: its direction, whether the pane is in its
/// first part, and the area it cuts.
struct Step {
    dir: Split,
    in_first: bool,
    area: Rect,
}

impl Node {
    /// Moves pane `pane`'s border towards `side` by `cells` (in `area`, where the tree is
    /// drawn). False when it cannot move: no border that way, or the panes there are at their
    /// minimum.
    pub fn resize(&mut self, pane: usize, side: Side, cells: u16, area: Rect) -> bool {
        let mut path = Vec::new();
        if !self.path_to(pane, area, &mut path) {
            return false;
        }
        let axis = match side {
            Side::Left | Side::Right => Split::Beside,
            Side::Up | Side::Down => Split::Below,
        };
        let along: Vec<usize> = (0..path.len()).filter(|i| path[*i].dir == axis).collect();
        let Some(depth) = along
            .iter()
            .rev()
            .find(|i| path[**i].in_first)
            .or(along.last())
            .copied()
        else {
            return false;
        };
        let size = match axis {
            Split::Beside => path[depth].area.width,
            Split::Below => path[depth].area.height,
        };
        let turns: Vec<bool> = path[..depth].iter().map(|s| s.in_first).collect();
        let Some(Node::Split {
            first,
            second,
            share,
            ..
        }) = self.at_mut(&turns)
        else {
            return false;
        };
        let pick = |m: (u16, u16)| if axis == Split::Beside { m.0 } else { m.1 };
        let (lo, hi) = (
            pick(first.min_size()),
            size.saturating_sub(pick(second.min_size())),
        );
        if lo > hi {
            return false;
        }
        let now = first_cells(size, *share);
        let to = match side {
            Side::Left | Side::Up => now.saturating_sub(cells),
            Side::Right | Side::Down => now.saturating_add(cells),
        }
        .clamp(lo, hi);
        if to == now {
            return false;
        }
        *share = share_for(to, size);
        true
    }

    fn path_to(&self, pane: usize, area: Rect, path: &mut Vec<Step>) -> bool {
        match self {
            Node::Pane(p) => *p == pane,
            Node::Split {
                dir,
                first,
                second,
                share,
            } => {
                let (a, b) = parts(area, *dir, *share);
                for (in_first, child, part) in [(true, first, a), (false, second, b)] {
                    path.push(Step {
                        dir: *dir,
                        in_first,
                        area,
                    });
                    if child.path_to(pane, part, path) {
                        return true;
                    }
                    path.pop();
                }
                false
            }
        }
    }

    /// The node reached by taking the first (true) or second part at each split.
    fn at_mut(&mut self, turns: &[bool]) -> Option<&mut Node> {
        let Some((take_first, rest)) = turns.split_first() else {
            return Some(self);
        };
        match self {
            Node::Pane(_) => None,
            Node::Split { first, second, .. } => {
                if *take_first {
                    first.at_mut(rest)
                } else {
                    second.at_mut(rest)
                }
            }
        }
    }

    /// Panes `a` and `b` change places (each keeps its terminal, face and focus).
    pub fn swap(&mut self, a: usize, b: usize) {
        match self {
            Node::Pane(p) if *p == a => *p = b,
            Node::Pane(p) if *p == b => *p = a,
            Node::Pane(_) => {}
            Node::Split { first, second, .. } => {
                first.swap(a, b);
                second.swap(a, b);
            }
        }
    }
}

#[cfg(test)]
#[path = "resize_tests.rs"]
mod tests;
