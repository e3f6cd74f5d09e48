//! Tests of what names and prompts are accepted, and of default names.

use super::*;

#[test]
fn names() {
    let ok = ["api", "web-2", "my_term", "v1.2", "日本"];
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
fn prompts() {
    assert!(prompt("hello").is_ok());
    assert!(prompt("  \n\t").is_err());
    assert!(prompt(&"x".repeat(MAX_PROMPT_BYTES + 1)).is_err());
    assert!(prompt_bytes(vec![0x66, 0xff]).is_err());
    assert_eq!(prompt_bytes("é".as_bytes().to_vec()).unwrap(), "é");
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
