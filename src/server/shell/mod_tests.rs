//! Tests of `shell`.

use super::*;

fn answers(output: &[u8]) -> Vec<u8> {
    let mut p = vt100::Parser::new_with_callbacks(nonzero(24), nonzero(80), 0, Answers::default());
    p.process(output);
    std::mem::take(&mut p.callbacks_mut().out)
}

#[test]
fn cursor_position_and_device_queries_are_answered() {
    assert_eq!(answers(b"ab\r\ncd\x1b[6n"), b"\x1b[2;3R");
    assert_eq!(answers(b"\x1b[5n"), b"\x1b[0n");
    assert_eq!(answers(b"\x1b[c"), b"\x1b[?62;22c");
    assert_eq!(answers(b"\x1b[>c"), b"\x1b[>1;10;0c");
    assert_eq!(answers(b"\x1b[31mred\x1b[0m"), b"");
}

#[test]
fn binary_garbage_parses_without_panicking() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let garbage: Vec<u8> = (0..200_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect();
    let _ = answers(&garbage);
}

#[test]
fn the_screen_event_redraws_the_same_screen() {
    let mut p = vt100::Parser::new(nonzero(5), nonzero(20), 0);
    p.process(b"\x1b[1;32mgreen\x1b[0m plain\r\nsecond line\x1b[?2004h");
    let ShellEvent::Screen {
        rows,
        cols,
        cursor,
        data,
    } = frame_event(frames::whole(p.screen()))
    else {
        panic!("not a screen");
    };
    assert_eq!((rows, cols, cursor), (5, 20, [1, 11]));
    let mut q = vt100::Parser::new(nonzero(rows), nonzero(cols), 0);
    q.process(&B64.decode(data).unwrap());
    assert_eq!(q.screen().contents(), p.screen().contents());
    assert_eq!(q.screen().cursor_position(), (1, 11));
    assert!(q.screen().bracketed_paste());
    assert!(q.screen().cell(0, 0).unwrap().bold());
}
