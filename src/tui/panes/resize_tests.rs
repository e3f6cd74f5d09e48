//! Tests of resizing, swapping and the preset layouts: which border moves and how far, the
//! minimum it stops at, and each preset's rectangles.

use super::*;
use pretty_assertions::assert_eq;

fn r(x: u16, y: u16, w: u16, h: u16) -> Rect {
    Rect::new(x, y, w, h)
}

/// 0 | (1 / 2): a pane left, the right half split top/bottom.
fn three() -> Node {
    let mut t = Node::Pane(0);
    assert!(t.split(0, Split::Beside, 1));
    assert!(t.split(1, Split::Below, 2));
    t
}

#[test]
fn a_resize_moves_the_panes_border_by_cells_and_stops_at_the_minimum() {
    let area = r(0, 0, 80, 24);
    // (pane, side, cells) → the rectangles after, or None: nothing moved.
    type Case = ((usize, Side, u16), Option<Vec<(usize, Rect)>>);
    let table: Vec<Case> = vec![
        // The left pane's right border goes right: it grows.
        (
            (0, Side::Right, 5),
            Some(vec![
                (0, r(0, 0, 45, 24)),
                (1, r(45, 0, 35, 12)),
                (2, r(45, 12, 35, 12)),
            ]),
        ),
        // The right pane has no right border: its left one moves, left makes it grow.
        (
            (2, Side::Left, 1),
            Some(vec![
                (0, r(0, 0, 39, 24)),
                (1, r(39, 0, 41, 12)),
                (2, r(39, 12, 41, 12)),
            ]),
        ),
        // Up/down moves the border between 1 and 2 (1's bottom, or 2's top).
        (
            (1, Side::Down, 5),
            Some(vec![
                (0, r(0, 0, 40, 24)),
                (1, r(40, 0, 40, 17)),
                (2, r(40, 17, 40, 7)),
            ]),
        ),
        (
            (2, Side::Up, 1),
            Some(vec![
                (0, r(0, 0, 40, 24)),
                (1, r(40, 0, 40, 11)),
                (2, r(40, 11, 40, 13)),
            ]),
        ),
        // No border up/down for pane 0; far past the minimum stops there.
        ((0, Side::Up, 5), None),
        (
            (0, Side::Left, 100),
            Some(vec![
                (0, r(0, 0, 6, 24)),
                (1, r(6, 0, 74, 12)),
                (2, r(6, 12, 74, 12)),
            ]),
        ),
        ((9, Side::Left, 1), None),
    ];
    for ((pane, side, cells), want) in table {
        let mut t = three();
        let moved = t.resize(pane, side, cells, area);
        assert_eq!(moved, want.is_some(), "{pane} {side:?} {cells}");
        if let Some(want) = want {
            assert_eq!(t.rects(area), want, "{pane} {side:?} {cells}");
        }
    }
    // At its minimum, a further resize that way moves nothing.
    let mut t = three();
    assert!(t.resize(0, Side::Left, 100, area));
    assert!(!t.resize(0, Side::Left, 1, area));
}

#[test]
fn a_resized_layout_keeps_its_proportions_in_another_window_and_reads_back() {
    let mut t = three();
    assert!(t.resize(0, Side::Right, 20, r(0, 0, 80, 24)));
    assert_eq!(t.rects(r(0, 0, 160, 24))[0], (0, r(0, 0, 120, 24)));
    let json = serde_json::to_string(&t).unwrap();
    assert_eq!(serde_json::from_str::<Node>(&json).unwrap(), t);
    // Halves are written as before resizing was possible, and such a tree reads as halves.
    let old = r#"{"split":{"dir":"beside","first":{"pane":0},"second":{"pane":1}}}"#;
    let mut halves = Node::Pane(0);
    assert!(halves.split(0, Split::Beside, 1));
    assert_eq!(serde_json::from_str::<Node>(old).unwrap(), halves);
    assert_eq!(serde_json::to_string(&halves).unwrap(), old);
}

#[test]
fn swapping_two_panes_exchanges_their_places() {
    let mut t = three();
    t.swap(0, 2);
    assert_eq!(t.panes(), vec![2, 1, 0]);
    t.swap(1, 7);
    assert_eq!(t.panes(), vec![2, 7, 0]);
}

#[test]
fn presets_lay_the_panes_out_as_tmux_does() {
    let area = r(0, 0, 120, 36);
    let table: Vec<(Preset, Vec<(usize, Rect)>)> = vec![
        (
            Preset::EvenHorizontal,
            vec![
                (0, r(0, 0, 40, 36)),
                (1, r(40, 0, 40, 36)),
                (2, r(80, 0, 40, 36)),
            ],
        ),
        (
            Preset::EvenVertical,
            vec![
                (0, r(0, 0, 120, 12)),
                (1, r(0, 12, 120, 12)),
                (2, r(0, 24, 120, 12)),
            ],
        ),
        (
            Preset::MainHorizontal,
            vec![
                (0, r(0, 0, 120, 24)),
                (1, r(0, 24, 60, 12)),
                (2, r(60, 24, 60, 12)),
            ],
        ),
        (
            Preset::MainVertical,
            vec![
                (0, r(0, 0, 80, 36)),
                (1, r(80, 0, 40, 18)),
                (2, r(80, 18, 40, 18)),
            ],
        ),
        (
            Preset::Tiled,
            vec![
                (0, r(0, 0, 60, 18)),
                (1, r(60, 0, 60, 18)),
                (2, r(0, 18, 120, 18)),
            ],
        ),
    ];
    for (p, want) in table {
        assert_eq!(
            preset(p, &[0, 1, 2], area).rects(area),
            want,
            "{}",
            p.name()
        );
    }
    // Four tiled: two by two. One pane: the pane alone, whatever the preset.
    let tiled = preset(Preset::Tiled, &[0, 1, 2, 3], r(0, 0, 80, 24)).rects(r(0, 0, 80, 24));
    assert_eq!(
        tiled,
        vec![
            (0, r(0, 0, 40, 12)),
            (1, r(40, 0, 40, 12)),
            (2, r(0, 12, 40, 12)),
            (3, r(40, 12, 40, 12)),
        ]
    );
    assert_eq!(preset(Preset::MainVertical, &[3], area), Node::Pane(3));
    // A main pane where tmux's size leaves the others too little: half.
    let small = preset(Preset::MainHorizontal, &[0, 1], r(0, 0, 80, 20)).rects(r(0, 0, 80, 20));
    assert_eq!(small[0], (0, r(0, 0, 80, 17)));
    let tiny = preset(Preset::MainHorizontal, &[0, 1], r(0, 0, 80, 8)).rects(r(0, 0, 80, 8));
    assert_eq!(tiny[0], (0, r(0, 0, 80, 5)));
}

#[test]
fn next_layout_cycles_the_presets_in_tmux_order() {
    let mut last = None;
    let names: Vec<&str> = (0..6)
        .map(|_| {
            let p = Preset::after(last);
            last = Some(p);
            p.name()
        })
        .collect();
    assert_eq!(
        names,
        [
            "even-horizontal",
            "even-vertical",
            "main-horizontal",
            "main-vertical",
            "tiled",
            "even-horizontal"
        ]
    );
}
