//! `baton ls`'s table as a user reads it: every row under its header whatever a name or a
//! provider/model holds, the COST of a terminal that ran on both providers counting the
//! tokens of each, and the table asking the server for what it shows alone.

use pretty_assertions::assert_eq;

use super::common::*;

/// Where each column of `header` starts (in chars: the table is ASCII but for `·`).
fn starts(header: &str) -> Vec<usize> {
    let chars: Vec<char> = header.chars().collect();
    (0..chars.len())
        .filter(|&i| chars[i] != ' ' && (i == 0 || chars[i - 1] == ' '))
        .collect()
}

#[test]
fn ls_all_keeps_every_column_aligned_and_counts_both_providers_tokens() {
    let w = World::new();
    w.new_terminal("docs-rw", "claude");
    w.send("docs-rw", "one");
    w.ok(&["archive", "docs-rw"]);
    w.new_terminal("api", "claude");
    w.ok(&[
        "send",
        "api",
        "one",
        "--model",
        "claude-sonnet-9-long-preview",
    ]);
    w.ok(&["send", "api", "two", "--provider", "codex"]);
    let out = w.ok(&["ls", "--all"]);
    let lines: Vec<&str> = out.lines().collect();
    let cols = starts(lines[0]);
    assert_eq!(cols.len(), 6, "{out}");
    for row in &lines[1..3] {
        let chars: Vec<char> = row.chars().collect();
        for &c in &cols[1..] {
            assert!(
                chars.get(c).is_some_and(|ch| *ch != ' ') && chars[c - 1] == ' ',
                "column at {c} out of line:\n{out}"
            );
        }
    }
    // api's money is Claude's turn's; its tokens are both turns'.
    let api = w.json(&["ls"])[0]["cost"].clone();
    let tokens = api["input_tokens"].as_u64().unwrap() + api["output_tokens"].as_u64().unwrap();
    let row = lines.iter().find(|l| l.starts_with("api ")).unwrap();
    let cell = format!(
        "${:.2} · {}k tok",
        api["usd"].as_f64().unwrap(),
        tokens.div_ceil(1000)
    );
    assert!(row.contains(&cell), "{cell}:\n{out}");
}

/// `baton ls` asks for its table's terminals alone (`{"cmd":"ls","table":true}`): what the table
/// does not show, and what grows with use (standing instructions, waiting prompts, sessions),
/// stays on the server; `ls --json` (and a request without `table`) has all of it.
#[test]
fn ls_asks_the_server_for_what_its_table_shows_and_ls_json_for_everything() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.ok(&["instructions", "t", "add", "Keep it short."]);
    w.ok(&["send", "t", "hello"]);
    let full = &w.json(&["ls"])[0];
    assert_eq!(full["instructions"][0], "Keep it short.");
    assert_eq!(full["sessions"].as_array().map(Vec::len), Some(1));
    assert_eq!(full["conversation"]["number"], 1);
    let asked = |line: &str| w.request(line)["data"][0].clone();
    assert_eq!(
        asked(r#"{"cmd":"ls"}"#)["instructions"],
        full["instructions"]
    );
    let table = asked(r#"{"cmd":"ls","table":true}"#);
    assert_eq!(table["instructions"], serde_json::json!([]));
    assert_eq!(table["sessions"], serde_json::json!([]));
    assert!(table["conversation"].is_null(), "{table}");
    assert_eq!(
        (&table["name"], &table["turns"]),
        (&full["name"], &full["turns"])
    );
    assert_eq!(table["context"], full["context"]);
    let shown = w.ok(&["ls"]);
    assert!(
        shown.lines().nth(1).unwrap_or_default().starts_with("t "),
        "{shown}"
    );
}
