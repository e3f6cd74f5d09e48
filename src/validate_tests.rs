//! Tests of what names and prompts are accepted, and of default names.

use super::*;

#[test]
fn names() {
    let ok = ["api", "web-2", "my_term", "v1.2", "日本", "a b"];
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
        ("-a", "`-`"),
    ];
    for (n, why) in bad {
        let e = terminal_name(n).unwrap_err();
        assert!(e.message.contains(why), "{n:?}: {}", e.message);
        assert_eq!(e.exit_code(), 2);
    }
    assert!(terminal_name(&"x".repeat(65)).is_err());
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
fn default_names_from_dirs() {
    use std::path::Path;
    assert_eq!(name_from_dir(Path::new("/src/api")), "api");
    assert_eq!(name_from_dir(Path::new("/")), "main");
    assert_eq!(name_from_dir(Path::new("/x/-weird")), "weird");
}
