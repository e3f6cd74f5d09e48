//! Tests of the composer: moving by characters and lines, the history of prompts, wrapping and the
//! cursor's place, pastes, and the kill keys.

use super::*;
use pretty_assertions::assert_eq;

fn typed(s: &str) -> Composer {
    let mut c = Composer::default();
    c.insert_str(s);
    c
}

#[test]
fn editing_moves_by_characters() {
    let mut c = typed("héllo");
    c.left();
    c.left();
    c.backspace();
    c.insert_char('L');
    c.end();
    c.insert_char('!');
    assert_eq!(c.text(), "héLlo!");
}

#[test]
fn up_and_down_keep_the_column() {
    let mut c = typed("abcdef\nxy\nlonger line");
    c.up();
    assert_eq!((c.on_first_line(), c.on_last_line()), (false, false));
    c.up();
    c.insert_char('_');
    assert_eq!(c.text(), "ab_cdef\nxy\nlonger line");
    c.down();
    c.down();
    c.insert_char('^');
    assert_eq!(c.text(), "ab_cdef\nxy\nlo^nger line");
}

#[test]
fn history_browses_and_returns_to_the_draft() {
    let mut c = Composer::default();
    for p in ["one", "two"] {
        c.insert_str(p);
        c.take();
    }
    c.insert_str("draft");
    c.history_prev();
    assert_eq!(c.text(), "two");
    c.history_prev();
    c.history_prev();
    assert_eq!(c.text(), "one");
    c.history_next();
    assert_eq!(c.text(), "two");
    c.history_next();
    assert_eq!(c.text(), "draft");
}

#[test]
fn layout_wraps_and_places_the_cursor() {
    let c = typed("abcdef\nx");
    let (rows, cursor) = c.layout(4);
    assert_eq!(rows, vec!["abcd", "ef", "x"]);
    assert_eq!(cursor, (2, 1));
    let c = typed("abcd");
    assert_eq!(c.layout(4), (vec!["abcd".into(), String::new()], (1, 0)));
}

#[test]
fn the_window_is_the_layouts_rows_around_the_cursor() {
    // Short and wrapping lines, empty lines, wide characters and a tab.
    let text = "first line\n\nabcdefghijklmnopqrstuvwxyz\n中文字符中文字符\nx\ty\n\nend of it";
    for width in [1, 3, 5, 8, 40] {
        for height in [1, 2, 3, 7, 50] {
            for cursor in text.char_indices().map(|(i, _)| i).chain([text.len()]) {
                let c = Composer {
                    text: text.into(),
                    cursor,
                    ..Composer::default()
                };
                let (rows, (crow, ccol)) = c.layout(width);
                let first = (crow + 1).saturating_sub(height);
                let want: Vec<String> = rows.iter().skip(first).take(height).cloned().collect();
                let what = format!("width {width}, height {height}, cursor {cursor}");
                assert_eq!(
                    c.window(width, height),
                    (want, (crow - first, ccol)),
                    "{what}"
                );
                let cap = height + 2;
                assert_eq!(c.rows_up_to(width, cap), rows.len().min(cap), "{what}");
            }
        }
    }
}

#[test]
fn pasted_line_endings_become_newlines() {
    assert_eq!(typed("a\r\nb\rc").text(), "a\nb\nc");
}

#[test]
fn kill_word_and_line() {
    let mut c = typed("one two  ");
    c.kill_word();
    assert_eq!(c.text(), "one ");
    c.kill_to_start();
    assert_eq!(c.text(), "");
}

#[test]
fn ctrl_u_kills_to_the_line_start_then_the_whole_draft() {
    let long = "a line of a long paste\n".repeat(300);
    let rows: Vec<(&str, usize, &str)> = vec![
        // (draft, Ctrl-U presses with the cursor at the end, what is left)
        ("one line", 1, ""),
        ("first\nsecond", 1, "first\n"),
        ("first\nsecond", 2, ""),
        // A long paste: the last line, then everything.
        (&long, 1, ""),
        ("", 1, ""),
    ];
    for (draft, presses, left) in rows {
        let mut c = typed(draft);
        for _ in 0..presses {
            c.kill_to_start();
        }
        assert_eq!(c.text(), left, "{draft:?} after {presses}");
    }
    // In the middle of a line: only what is before the cursor goes.
    let mut c = typed("keep\nab|cd");
    c.home();
    c.right();
    c.right();
    c.kill_to_start();
    assert_eq!(c.text(), "keep\n|cd");
}
