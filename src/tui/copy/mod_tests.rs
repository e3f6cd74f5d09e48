//! Tests of copy mode's view: moves, selections over wrapped rows, search, pane cells mapped to
//! text, double clicks, the wheel, and the OSC 52 sequence.

use super::*;
use pretty_assertions::assert_eq;

fn view(rows: &[(&str, Wrap)]) -> CopyView {
    let rows = rows.iter().map(|(t, w)| Row::new(*t, *w)).collect();
    CopyView::new(0, rows, 2, 0, (0, 0))
}

fn keys(v: &mut CopyView, s: &str) -> Outcome {
    let mut last = Outcome::Stay;
    for c in s.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\x1b' => KeyCode::Esc,
            c => KeyCode::Char(c),
        };
        last = v.key(&KeyEvent::new(code, KeyModifiers::NONE));
    }
    last
}

fn sample() -> CopyView {
    view(&[
        ("› Add a health", Wrap::Hard),
        ("  endpoint please", Wrap::Reflow),
        ("Done: GET /health", Wrap::Hard),
        ("returns 200.", Wrap::Soft),
        ("", Wrap::Hard),
    ])
}

#[test]
fn moves_clamp_to_the_text_and_scroll_the_view() {
    let table: [(&str, Pos, usize); 9] = [
        ("l", (0, 1), 0),
        ("hhh", (0, 0), 0),
        ("j", (1, 0), 0),
        ("jj", (2, 0), 1),
        ("G", (4, 0), 3),
        ("Gk$", (3, 11), 3),
        ("$jjj", (3, 11), 2),
        ("Gg", (0, 0), 0),
        ("ww", (0, 6), 0),
    ];
    for (typed, cursor, top) in table {
        let mut v = sample();
        keys(&mut v, typed);
        assert_eq!((v.cursor, v.top), (cursor, top), "{typed}");
    }
    let mut v = sample();
    keys(&mut v, "$wwb");
    assert_eq!(v.cursor, (1, 2), "w crosses rows, b comes back");
}

#[test]
fn a_selection_copies_wrapped_rows_joined_back() {
    let table: [(&str, &str); 6] = [
        // Nothing selected: the cursor's row.
        ("y", "› Add a health"),
        ("wvlly", "Add"),
        // A transcript wrap: the indentation goes, one space joins.
        ("wwvj$y", "a health endpoint please"),
        // A terminal wrap joins with nothing; a hard line keeps its break.
        ("jjv$jy", "Done: GET /healthreturns 200."),
        ("jvjy", "  endpoint please\nD"),
        // Selecting backwards gives the same text.
        ("jj$vk0y", "  endpoint please\nDone: GET /health"),
    ];
    for (typed, want) in table {
        let mut v = sample();
        assert_eq!(keys(&mut v, typed), Outcome::Copy(want.into()), "{typed}");
    }
    let mut v = sample();
    assert_eq!(keys(&mut v, "\x1b"), Outcome::Leave);
    assert_eq!(keys(&mut v, "vv"), Outcome::Stay);
    assert_eq!(v.anchor, None, "v again clears the selection");
}

#[test]
fn question_mark_searches_up_and_n_goes_on_up_as_tmux_vi() {
    // Keys from the cursor at (4, 0), the last row → where the cursor ends, what is said.
    let table: [(&str, Pos, Outcome); 6] = [
        ("?health\n", (2, 11), Outcome::Stay),
        ("?health\nn", (0, 8), Outcome::Stay),
        ("?health\nnn", (2, 11), Outcome::Stay),
        ("?health\nN", (0, 8), Outcome::Stay),
        ("?health\nnN", (2, 11), Outcome::Stay),
        (
            "?nowhere\n",
            (4, 0),
            Outcome::Say("not found: nowhere".into()),
        ),
    ];
    for (typed, cursor, said) in table {
        let mut v = sample();
        v.set_cursor((4, 0));
        let last = keys(&mut v, typed);
        assert_eq!((v.cursor, last), (cursor, said), "{typed:?}");
    }
    // The prompt says which way it goes; `/` after `?` goes down again.
    let mut v = sample();
    keys(&mut v, "?he");
    assert_eq!(super::mode::hint(&v), "search up: he");
    keys(&mut v, "\x1b/he");
    assert_eq!(super::mode::hint(&v), "search down: he");
}

#[test]
fn search_forward_repeat_and_back() {
    let mut v = sample();
    keys(&mut v, "/health\n");
    assert_eq!(v.cursor, (0, 8));
    keys(&mut v, "n");
    assert_eq!(v.cursor, (2, 11));
    keys(&mut v, "n");
    assert_eq!(v.cursor, (0, 8), "wraps around");
    keys(&mut v, "N");
    assert_eq!(v.cursor, (2, 11));
    assert_eq!(
        keys(&mut v, "/nowhere\n"),
        Outcome::Say("not found: nowhere".into())
    );
    let mut v = sample();
    assert_eq!(
        keys(&mut v, "n"),
        Outcome::Say("no search yet: / searches down, ? up".into())
    );
    keys(&mut v, "/x\x1b");
    assert_eq!((v.prompt.clone(), v.last.clone()), (None, None));
    let mut v = view(&[("héllo wörld", Wrap::Hard)]);
    keys(&mut v, "/wö\n");
    assert_eq!(v.cursor, (0, 6), "columns count characters, not bytes");
    assert_eq!(keys(&mut v, "v$y"), Outcome::Copy("wörld".into()));
}

#[test]
fn pane_cells_map_to_places_in_the_text() {
    let rows = [
        ("zero", Wrap::Hard),
        ("one", Wrap::Hard),
        ("日本 語x", Wrap::Hard),
        ("three", Wrap::Hard),
        ("", Wrap::Hard),
    ];
    let rows = rows.iter().map(|(t, w)| Row::new(*t, *w)).collect();
    // Scrolled so that row 1 is the first shown.
    let v = CopyView::new(0, rows, 3, 1, (1, 0));
    let table: [((i32, i32), Pos); 10] = [
        ((0, 0), (1, 0)),
        ((2, 0), (1, 2)),
        ((40, 0), (1, 2)),
        // Wide characters take two columns each.
        ((1, 1), (2, 0)),
        ((2, 1), (2, 1)),
        ((4, 1), (2, 2)),
        ((6, 1), (2, 3)),
        ((7, 1), (2, 4)),
        // Above the pane: the rows before it; past the text: the last row.
        ((0, -1), (0, 0)),
        ((3, 9), (4, 0)),
    ];
    for ((dx, dy), want) in table {
        assert_eq!(v.pos_at(dx, dy), want, "{dx},{dy}");
    }
    let table = [
        ("", 3, 0),
        ("abc", 0, 0),
        ("abc", 2, 2),
        ("abc", 3, 3),
        ("a日b", 2, 1),
    ];
    for (text, x, want) in table {
        assert_eq!(col_at(text, x), want, "{text:?} {x}");
    }
}

#[test]
fn a_double_click_selects_the_word_under_it() {
    let table: [(Pos, Option<&str>); 6] = [
        ((2, 6), Some("GET")),
        ((2, 0), Some("Done:")),
        ((2, 14), Some("/health")),
        ((3, 3), Some("returns")),
        ((2, 5), None),
        ((4, 0), None),
    ];
    for (at, want) in table {
        let mut v = sample();
        let got = v.select_word(at).then(|| v.copied());
        assert_eq!(got.as_deref(), want, "{at:?}");
    }
}

#[test]
fn the_wheel_scrolls_the_view_and_keeps_the_cursor_in_it() {
    let mut v = sample();
    assert_eq!((v.top, v.height, v.cursor), (0, 2, (0, 0)));
    // (up, rows) → (top, cursor)
    let table: [(bool, usize, usize, Pos); 4] = [
        (false, 2, 2, (2, 0)),
        (false, 9, 3, (3, 0)),
        (true, 1, 2, (3, 0)),
        (true, 5, 0, (1, 0)),
    ];
    for (up, by, top, cursor) in table {
        v.scroll(up, by);
        assert_eq!((v.top, v.cursor), (top, cursor), "{up} {by}");
    }
}

#[test]
fn osc52_is_base64_between_the_escape_and_the_bell() {
    assert_eq!(osc52("hi"), b"\x1b]52;c;aGk=\x07".to_vec());
    assert_eq!(osc52("é\n"), b"\x1b]52;c;w6kK\x07".to_vec());
    assert_eq!(osc52(""), b"\x1b]52;c;\x07".to_vec());
}
