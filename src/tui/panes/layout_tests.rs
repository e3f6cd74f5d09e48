//! Tests of the layout tree: splits halve, closes give the place to the sibling, the pane on each
//! side, the walk order, and windows too small to split.

use super::*;
use pretty_assertions::assert_eq;

fn r(x: u16, y: u16, w: u16, h: u16) -> Rect {
    Rect::new(x, y, w, h)
}

/// 0 | (1 / (2 | 3)): a pane left, the right half split top/bottom, its bottom split again.
fn nested() -> Node {
    let mut t = Node::Pane(0);
    assert!(t.split(0, Split::Beside, 1));
    assert!(t.split(1, Split::Below, 2));
    assert!(t.split(2, Split::Beside, 3));
    t
}

#[test]
fn splits_halve_the_pane_they_split() {
    let area = r(0, 0, 80, 24);
    type Case<'a> = (&'a [(usize, Split)], Vec<(usize, Rect)>);
    let table: [Case; 4] = [
        (&[], vec![(0, area)]),
        (
            &[(0, Split::Beside)],
            vec![(0, r(0, 0, 40, 24)), (1, r(40, 0, 40, 24))],
        ),
        (
            &[(0, Split::Below), (0, Split::Below)],
            vec![
                (0, r(0, 0, 80, 6)),
                (2, r(0, 6, 80, 6)),
                (1, r(0, 12, 80, 12)),
            ],
        ),
        (
            &[(0, Split::Beside), (1, Split::Below), (2, Split::Beside)],
            vec![
                (0, r(0, 0, 40, 24)),
                (1, r(40, 0, 40, 12)),
                (2, r(40, 12, 20, 12)),
                (3, r(60, 12, 20, 12)),
            ],
        ),
    ];
    for (splits, want) in table {
        let mut t = Node::Pane(0);
        for (n, (pane, dir)) in splits.iter().enumerate() {
            assert!(t.split(*pane, *dir, n + 1), "{splits:?}");
        }
        assert_eq!(t.rects(area), want, "{splits:?}");
    }
    // An odd size: the second half takes the extra cell.
    let mut t = Node::Pane(0);
    t.split(0, Split::Beside, 1);
    assert_eq!(
        t.rects(r(3, 1, 9, 5)),
        vec![(0, r(3, 1, 4, 5)), (1, r(7, 1, 5, 5))]
    );
    assert!(!t.split(7, Split::Below, 2), "no such pane");
}

#[test]
fn closing_gives_the_place_to_the_sibling_and_renumbers() {
    // (closed, tree after as panes in order, focus after)
    let table: [(usize, Vec<usize>, Option<usize>); 4] = [
        // 0 goes: its sibling (1 / (2 | 3)) takes the screen, renumbered 0 / (1 | 2).
        (0, vec![0, 1, 2], Some(0)),
        // 1 goes: (2 | 3) moves up beside 0; focus goes to its first pane.
        (1, vec![0, 1, 2], Some(1)),
        // 3 goes: 2 takes the bottom right.
        (3, vec![0, 1, 2], Some(2)),
        (9, vec![0, 1, 2, 3], None),
    ];
    for (closed, order, focus) in table {
        let mut t = nested();
        assert_eq!(t.close(closed), focus, "close {closed}");
        assert_eq!(t.panes(), order, "close {closed}");
    }
    let mut t = nested();
    t.close(1);
    assert_eq!(
        t.rects(r(0, 0, 80, 24)),
        vec![
            (0, r(0, 0, 40, 24)),
            (1, r(40, 0, 20, 24)),
            (2, r(60, 0, 20, 24))
        ]
    );
    // Closing the second of a pair focuses the nearest pane of the first: (0 / 1) | 2.
    let mut t = Node::Pane(0);
    t.split(0, Split::Beside, 1);
    t.split(0, Split::Below, 2);
    assert_eq!(t.panes(), vec![0, 2, 1]);
    assert_eq!(t.close(1), Some(1), "pane 2 (now 1), the bottom left");
    let mut alone = Node::Pane(0);
    assert_eq!(alone.close(0), None, "the last pane stays");
    assert_eq!(alone, Node::Pane(0));
}

#[test]
fn focus_moves_to_the_pane_on_that_side_and_wraps() {
    let rects = nested().rects(r(0, 0, 80, 24));
    let table = [
        // Right of 0 are 1 and 2: 2 covers the middle of 0's edge.
        (0, Side::Right, Some(2)),
        // Nothing left of 0: around to the far right, at the same height.
        (0, Side::Left, Some(3)),
        (0, Side::Up, None),
        (1, Side::Left, Some(0)),
        (1, Side::Down, Some(3)),
        (1, Side::Up, Some(3)),
        (2, Side::Up, Some(1)),
        (2, Side::Right, Some(3)),
        (2, Side::Left, Some(0)),
        (3, Side::Left, Some(2)),
        (3, Side::Right, Some(0)),
        (3, Side::Up, Some(1)),
        (7, Side::Up, None),
    ];
    for (from, side, want) in table {
        assert_eq!(neighbour(&rects, from, side), want, "{from} {side:?}");
    }
    // Two panes on the right: moving right takes the one at the middle of the edge.
    let rects = [
        (0, r(0, 0, 40, 10)),
        (1, r(40, 0, 40, 4)),
        (2, r(40, 4, 40, 20)),
    ];
    assert_eq!(neighbour(&rects, 0, Side::Right), Some(2));
    let rects = [
        (0, r(0, 0, 40, 10)),
        (1, r(40, 0, 40, 7)),
        (2, r(40, 7, 40, 20)),
    ];
    assert_eq!(neighbour(&rects, 0, Side::Right), Some(1));
}

#[test]
fn prefix_o_walks_in_reading_order() {
    let t = nested();
    let walk: Vec<usize> = (0..4).map(|p| next(&t, p)).collect();
    assert_eq!(walk, vec![1, 2, 3, 0]);
    assert_eq!(next(&Node::Pane(0), 0), 0);
}

#[test]
fn small_windows_show_the_focused_pane_alone() {
    let t = nested();
    assert_eq!(t.min_size(), (4 * MIN_WIDTH, 2 * MIN_HEIGHT));
    let table = [
        (r(0, 0, 80, 24), 2, false, 4),
        (r(0, 0, 80, 24), 2, true, 1),
        (r(0, 0, 23, 24), 2, false, 1),
        (r(0, 0, 24, 6), 3, false, 4),
        (r(0, 0, 24, 5), 3, false, 1),
        (r(0, 0, 0, 0), 1, false, 1),
    ];
    for (area, focused, zoomed, count) in table {
        let got = shown(&t, area, focused, zoomed);
        assert_eq!(got.len(), count, "{area:?} zoomed {zoomed}");
        if count == 1 {
            assert_eq!(got, vec![(focused, area)]);
        }
    }
    let table = [
        (r(0, 0, 12, 3), Split::Beside, true),
        (r(0, 0, 11, 30), Split::Beside, false),
        (r(0, 0, 80, 6), Split::Below, true),
        (r(0, 0, 80, 5), Split::Below, false),
        (Rect::default(), Split::Below, true),
    ];
    for (area, dir, want) in table {
        assert_eq!(room_to_split(area, dir), want, "{area:?} {dir:?}");
    }
}
