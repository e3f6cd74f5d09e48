//! Tests of what names and prompts are accepted, and of default names.

use super::*;

#[test]
fn names() {
    let ok = [
        "api",
        "web-2",
        "my_term",
        "v1.2",
        "日本",
        "cafe\u{301}",
        "한국",
    ];
    for n in ok {
        assert!(terminal_name(n).is_ok(), "{n:?} should be accepted");
    }
    let bad = [
        ("", "empty"),
        ("   ", "empty"),
        ("a/b", "slash"),
        ("..", "`..`"),
        ("a..b", "`..`"),
        (".", "`.`"),
        ("a\u{7}b", "control"),
        ("a\nb", "control"),
        (" a", "whitespace"),
        ("a b", "whitespace"),
        ("a\u{3000}b", "whitespace"),
        ("-a", "`-`"),
        ("box:api", "`:`"),
        // Marks with nothing to sit on: a blank in `ls`, or drawn over the column before.
        ("\u{301}", "combining mark"),
        ("\u{301}\u{301}\u{302}", "combining mark"),
        ("\u{301}api", "combining mark"),
        ("\u{20DD}", "combining mark"),
    ];
    for (n, why) in bad {
        let e = terminal_name(n).unwrap_err();
        assert!(e.message.contains(why), "{n:?}: {}", e.message);
        assert_eq!(e.exit_code(), 2);
    }
    assert!(terminal_name(&"x".repeat(65)).is_err());
}

#[test]
fn names_with_invisible_or_direction_changing_characters_are_refused() {
    let rows = [
        ("evil\u{202E}gnp", 0x202E),
        ("zero\u{200B}width", 0x200B),
        ("\u{2066}iso", 0x2066),
        ("iso\u{2069}", 0x2069),
        ("bom\u{FEFF}", 0xFEFF),
        ("soft\u{AD}hyphen", 0xAD),
        ("tag\u{E0041}", 0xE0041),
        ("line\u{2028}sep", 0x2028),
        ("para\u{2029}sep", 0x2029),
        ("joiner\u{200D}", 0x200D),
    ];
    for (n, code) in rows {
        let e = terminal_name(n).unwrap_err();
        let want = format!("U+{code:04X}");
        assert!(e.message.contains(&want), "{n:?}: {}", e.message);
        assert!(e.message.contains("retype it"), "{}", e.message);
        assert!(
            !e.message.contains(char::from_u32(code).unwrap()),
            "shown raw: {}",
            e.message
        );
        assert_eq!(e.exit_code(), 2);
    }
    assert_eq!(hidden_char("日本 é 🙂 a b"), None);
}

#[test]
fn titles_refuse_what_names_refuse() {
    assert!(title("fix the bug", 200).is_ok());
    assert!(title("", 200).is_err());
    assert!(title("a\nb", 200).is_err());
    assert!(title(&"x".repeat(201), 200).is_err());
    let e = title("abc\u{202E}def", 200).unwrap_err();
    assert!(e.message.contains("U+202E"), "{}", e.message);
    assert_eq!(e.exit_code(), 2);
}

#[test]
fn prompts_with_a_nul_are_refused_and_others_keep_every_character() {
    let e = prompt("before\0after").unwrap_err();
    assert_eq!(
        e.message,
        "the prompt contains a NUL character (U+0000) at byte 6: remove it (`tr -d '\\000'` on a piped prompt)"
    );
    assert_eq!(e.exit_code(), 2);
    assert!(prompt("tab\there, \u{1b}[31mcolour\u{1b}[0m, crlf\r\n").is_ok());
}

#[test]
fn an_oversized_prompt_says_its_size_and_the_limit() {
    let rows = [
        (
            Some(20 * 1024 * 1024),
            "the prompt is 20.0 MiB (20971520 bytes), more than the 1 MiB limit (1048576 bytes): send a shorter one, or write it to a file and point the agent at the file",
        ),
        (
            None,
            "the prompt is more than the 1 MiB limit (1048576 bytes): send a shorter one, or write it to a file and point the agent at the file",
        ),
    ];
    for (size, want) in rows {
        assert_eq!(too_big("the prompt", size).message, want);
    }
    let e = prompt(&"x".repeat(MAX_PROMPT_BYTES + 1)).unwrap_err();
    assert!(
        e.message
            .starts_with("the prompt is 1.0 MiB (1048577 bytes), more"),
        "{}",
        e.message
    );
}

#[test]
fn prompts() {
    assert!(prompt("hello").is_ok());
    assert!(prompt("  \n\t").is_err());
    assert!(prompt(&"x".repeat(MAX_PROMPT_BYTES + 1)).is_err());
    assert!(stdin_text(vec![0x66, 0xff], "the prompt").is_err());
    assert_eq!(
        stdin_text("é".as_bytes().to_vec(), "the prompt").unwrap(),
        "é"
    );
}

#[test]
fn arguments_that_are_not_utf8_are_named() {
    use std::os::unix::ffi::OsStringExt;
    let args = |v: &[&[u8]]| -> Vec<std::ffi::OsString> {
        v.iter()
            .map(|a| std::ffi::OsString::from_vec(a.to_vec()))
            .collect()
    };
    let cases: [(&[&[u8]], Option<&str>); 4] = [
        (&[b"baton", b"send", b"t", b"fine"], None),
        (&[b"\xff", b"ls"], None), // the program's own name is not checked
        (
            &[b"baton", b"send", b"t", b"ok \xff"],
            Some("argument 3 (\"ok \u{fffd}\") is not valid UTF-8 (byte 3 is not)"),
        ),
        (
            &[b"baton", b"new", b"n\xc3", b"--dir", b"\xff"],
            Some("argument 2 (\"n\u{fffd}\") is not valid UTF-8 (byte 1 is not)"),
        ),
    ];
    for (argv, want) in cases {
        let got = non_utf8_argument(&args(argv)).map(|e| e.to_string());
        match (got, want) {
            (None, None) => {}
            (Some(got), Some(want)) => assert!(got.starts_with(want), "{got}"),
            (got, want) => panic!("{argv:?}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn default_names_from_dirs() {
    use std::path::Path;
    assert_eq!(name_from_dir(Path::new("/src/api")), "api");
    assert_eq!(name_from_dir(Path::new("/")), "main");
    assert_eq!(name_from_dir(Path::new("/x/-weird")), "weird");
    assert_eq!(name_from_dir(Path::new("/x/ab\u{202E}cd")), "ab-cd");
    assert_eq!(name_from_dir(Path::new("/x/10:30")), "10-30");
    assert_eq!(name_from_dir(Path::new("/x/My Project ")), "My-Project");
}
