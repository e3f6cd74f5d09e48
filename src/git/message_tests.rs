//! Table tests for the commit message and branch name rules.

use super::*;
use pretty_assertions::assert_eq;

fn t(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn commit_message_table() {
    let long = "word ".repeat(20); // 100 chars
    let long_cut = format!("{}…", "word ".repeat(14).trim_end()); // 69 chars + …
    let unbroken = "x".repeat(80);
    let rows: Vec<(&str, String, String)> = vec![
        (
            "one line",
            "Add a /health endpoint".into(),
            "Add a /health endpoint\n".into(),
        ),
        (
            "leading blank lines and spaces",
            "\n\n   Fix it  \nthen test".into(),
            "Fix it\n\nthen test".into(),
        ),
        (
            "body keeps inner blank lines, drops edges",
            "Subject\n\n\nPara 1\n\nPara 2\n\n".into(),
            "Subject\n\nPara 1\n\nPara 2".into(),
        ),
        (
            "long subject cut at a word, whole line opens the body",
            long.clone(),
            format!("{long_cut}\n\n{}", long.trim_end()),
        ),
        (
            "long word cut mid-word at 71 chars plus ellipsis",
            unbroken.clone(),
            format!("{}…\n\n{unbroken}", "x".repeat(71)),
        ),
        ("empty prompt", "  \n \n".into(), "(empty prompt)\n".into()),
        (
            "control characters are dropped",
            "Fix\u{1b}[31m red\r\nnext".into(),
            "Fix[31m red\n\nnext".into(),
        ),
    ];
    for (what, prompt, want) in rows {
        let got = commit_message(&prompt, &[]);
        assert_eq!(got.trim_end(), want.trim_end(), "{what}");
    }
}

#[test]
fn subject_never_exceeds_72_chars_even_with_multibyte_text() {
    for prompt in ["é".repeat(100), "日本語 ".repeat(30), "a".repeat(72)] {
        let msg = commit_message(&prompt, &[]);
        let subject = msg.lines().next().unwrap_or_default();
        assert!(subject.chars().count() <= SUBJECT_MAX, "{subject}");
    }
    let exact = "a".repeat(72);
    assert_eq!(commit_message(&exact, &[]), format!("{exact}\n"));
}

#[test]
fn body_is_cut_at_whole_lines_with_a_count() {
    let line = "y".repeat(99); // 100 chars with its newline
    let prompt = format!("Subject\n{}", vec![line.as_str(); 30].join("\n"));
    let msg = commit_message(&prompt, &[]);
    let body: Vec<&str> = msg.lines().skip(2).collect();
    assert_eq!(body.len(), 21);
    assert!(body[..20].iter().all(|l| *l == line));
    assert_eq!(body[20], "[… 10 more lines of the prompt not shown]");
}

#[test]
fn a_single_huge_body_line_is_cut_inside() {
    let prompt = format!("Subject\n{}\nlast", "z".repeat(5000));
    let msg = commit_message(&prompt, &[]);
    let body: Vec<&str> = msg.lines().skip(2).collect();
    assert_eq!(
        body,
        vec![
            format!("{}…", "z".repeat(BODY_MAX)).as_str(),
            "[… 1 more line of the prompt not shown]"
        ]
    );
}

#[test]
fn trailers_close_the_message() {
    let info = CommitInfo::for_turn("Do it\nplease", "api", "c1", "claude", "s-9", "3");
    assert_eq!(
        info.message(),
        "Do it\n\nplease\n\nBaton-Terminal: api\nBaton-Conversation: c1\nBaton-Provider: claude\nBaton-Session: s-9\nBaton-Turn: 3\n"
    );
}

#[test]
fn trailer_keys_and_values_are_kept_on_one_line() {
    let msg = commit_message("S", &t(&[("Bad Key:", "multi\nline  value")]));
    assert_eq!(msg, "S\n\nBad-Key-: multi line value\n");
    assert_eq!(trailer_value(&msg, "bad-key-"), Some("multi line value"));
}

#[test]
fn trailer_value_reads_only_the_last_paragraph() {
    let msg = "S\n\nBaton-Turn: 1 (in the body)\n\nBaton-Turn: 2\nBaton-Session: x\n";
    assert_eq!(trailer_value(msg, "Baton-Turn"), Some("2"));
    assert_eq!(trailer_value(msg, "Baton-Missing"), None);
}

#[test]
fn squash_message_lists_subjects() {
    let got = squash_message("baton/api", &["One".into(), "Two".into()]);
    assert_eq!(got, "Merge baton/api (squashed)\n\n- One\n- Two\n");
    assert_eq!(squash_message("baton/x", &[]), "Merge baton/x (squashed)\n");
}

#[test]
fn branch_name_table() {
    let rows = [
        ("api", Some("baton/api")),
        ("my terminal", Some("baton/my-terminal")),
        ("a~b^c:d?e*f[g\\h", Some("baton/a-b-c-d-e-f-g-h")),
        (".hidden", Some("baton/-hidden")),
        ("ends.", Some("baton/ends-")),
        ("x.lock", Some("baton/x.lock-")),
        ("at@{x", Some("baton/at-{x")),
        ("a..b", Some("baton/a-.b")),
        ("日本", Some("baton/日本")),
        ("@", None),
        ("   ", None),
    ];
    for (name, want) in rows {
        assert_eq!(branch_name(name).as_deref(), want, "{name:?}");
    }
}
