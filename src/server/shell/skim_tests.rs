//! Tests of `skim`.

use super::*;

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).unwrap()
}

/// Everything a client or copy mode can see of a screen, scrollback included.
fn seen(p: &mut vt100::Parser) -> (String, (u16, u16), Vec<String>, bool) {
    let s = p.screen_mut();
    let (_, cols) = s.size();
    s.set_scrollback(usize::MAX);
    let n = s.scrollback();
    let mut back = Vec::new();
    for off in (1..=n).rev() {
        s.set_scrollback(off);
        back.push(s.rows_formatted(0, cols.get()).next().unwrap_or_default());
    }
    s.set_scrollback(0);
    (
        s.contents_formatted(),
        s.cursor_position(),
        back,
        s.alternate_screen(),
    )
}

fn lines(n: usize, width: impl Fn(usize) -> usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        let w = width(i);
        let text = format!("{i:06} ").repeat(w / 7 + 1);
        out.extend_from_slice(&text.as_bytes()[..w]);
        out.extend_from_slice(b"\r\n");
    }
    out
}

#[test]
fn plain_prefix_stops_at_the_first_thing_that_is_not_a_whole_plain_line() {
    let cases: &[(&[u8], usize)] = &[
        (b"", 0),
        (b"abc", 0),
        (b"abc\r\n", 5),
        (b"abc\r\ndef", 5),
        (b"a\r\nb\r\n\x1b[31mred\r\n", 6),
        (b"a\r\nb\nc\r\n", 3),
        (b"a\r\nb\rc\r\n", 3),
        (b"a\r\n\tb\r\n", 3),
        (b"a\r\n\xc3\xa9\r\n", 3),
        (b"\r\n\r\n", 4),
    ];
    for (bytes, want) in cases {
        assert_eq!(
            plain_prefix(bytes),
            *want,
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn skimming_gives_the_state_a_full_parse_gives() {
    let n = 3000;
    let short = lines(n, |i| i % 13);
    let wrapping = lines(n, |i| if i % 7 == 0 { 45 } else { 5 + i % 9 });
    let blank = lines(n, |_| 0);
    let long_middle = lines(n, |i| if i == n / 2 { 19 } else { 3 });
    let same = lines(n, |_| 3)
        .iter()
        .map(|&b| if b.is_ascii_digit() { b'y' } else { b })
        .collect();
    // Before each run: a state to start from (sizes are rows, cols, scrollback).
    type State<'a> = (&'a str, (u16, u16, usize), &'a [u8]);
    let states: &[State] = &[
        ("fresh", (10, 20, 100), b""),
        (
            "prompt in color",
            (10, 20, 100),
            b"\x1b[1;32m$ \x1b[0mcat x\r\n\x1b[33m",
        ),
        ("cursor mid-screen", (10, 20, 100), b"\x1b[4;7Hxyz"),
        (
            "pending wrap",
            (10, 20, 100),
            b"\x1b[10;1H01234567890123456789",
        ),
        (
            "region below the top",
            (10, 20, 100),
            b"top\r\n\x1b[3;8r\x1b[5;1H",
        ),
        ("region from the top", (10, 20, 100), b"\x1b[1;6r\x1b[2;1H"),
        (
            "cursor below the region",
            (10, 20, 100),
            b"\x1b[2;5r\x1b[9;1Hlong old line here",
        ),
        (
            "cursor above the region",
            (10, 20, 100),
            b"\x1b[6;9r\x1b[1;1H",
        ),
        ("one-row region", (10, 20, 100), b"\x1b[4;4r\x1b[4;1H"),
        (
            "alternate screen",
            (10, 20, 100),
            b"main\r\n\x1b[?1049halt\r\n",
        ),
        ("no scrollback", (6, 30, 0), b"$ "),
        ("full scrollback", (5, 12, 40), &[b'x'; 0]),
        ("origin mode", (10, 20, 100), b"\x1b[3;8r\x1b[?6h\x1b[2;1H"),
    ];
    let runs: [(&str, &Vec<u8>); 5] = [
        ("short", &short),
        ("wrapping", &wrapping),
        ("blank", &blank),
        ("same", &same),
        ("one long line in the middle of", &long_middle),
    ];
    for (name, (rows, cols, sb), before) in states {
        for (run_name, run) in &runs {
            let fresh = || {
                let mut p = vt100::Parser::new(nz(*rows), nz(*cols), *sb);
                p.process(&lines(50, |i| i % 30));
                p.process(before);
                p
            };
            let mut full = fresh();
            full.process(run);
            let mut fast = fresh();
            process(&mut fast, run);
            assert_eq!(seen(&mut fast), seen(&mut full), "{name}, {run_name} lines");
        }
    }
}

#[test]
fn a_run_followed_by_anything_else_is_parsed_too() {
    let mut batch = lines(5000, |i| 10 + i % 50);
    batch.extend_from_slice(b"\x1b[31m$ \x1b[0m\x1b[6n partial");
    let mut full = vt100::Parser::new(nz(24), nz(80), 2000);
    full.process(&batch);
    let mut fast = vt100::Parser::new(nz(24), nz(80), 2000);
    process(&mut fast, &batch);
    assert_eq!(seen(&mut fast), seen(&mut full));
}

#[test]
fn the_middle_of_a_long_run_is_left_out() {
    // A run whose middle is not plain text would fail the full parse's comparison if it
    // were parsed: here a line the skim must not read.
    let run = lines(3000, |_| 8);
    let middle = run.len() / 2;
    let mut marked = run.clone();
    marked[middle..middle + 8].copy_from_slice(b"SKIPPED!");
    let mut p = vt100::Parser::new(nz(10), nz(20), 100);
    process(&mut p, &marked);
    let all = seen(&mut p);
    assert!(!all.2.iter().any(|r| r.contains("SKIPPED")));
    let mut q = vt100::Parser::new(nz(10), nz(20), 100);
    process(&mut q, &run);
    assert_eq!(seen(&mut q), all);
}
