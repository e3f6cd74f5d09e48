//! Names as a command line uses them: no whitespace in a new name (one an older baton accepted
//! still works), "did you mean" for a mistyped one, and one terminal per plain folder.

use super::common::*;

#[test]
fn a_name_with_a_space_is_refused_where_a_name_enters() {
    let w = World::new();
    let dir = w.project("p");
    let d = dir.to_str().unwrap();
    refused(&w, &["new", "my api", "--dir", d], "it contains whitespace");
    w.ok(&["new", "api", "--dir", d]);
    refused(&w, &["rename", "api", "my api"], "it contains whitespace");
    assert_eq!(w.json(&["ls"]).as_array().unwrap().len(), 1);
}

#[test]
fn a_name_with_a_space_from_before_still_works_for_ls_rename_and_rm() {
    let w = World::new();
    w.new_terminal("old", "claude");
    w.ok(&["server", "stop"]);
    // A journal written by a baton that accepted spaces; the index is rebuilt from it.
    let terminals = w.data().join("terminals");
    let journal = std::fs::read_dir(&terminals)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    std::fs::write(
        &journal,
        text.replace("\"name\":\"old\"", "\"name\":\"my old\""),
    )
    .unwrap();
    std::fs::remove_file(w.data().join("index.db")).unwrap();
    assert!(w.ok(&["ls"]).contains("my old"));
    w.ok(&["show", "my old"]);
    w.ok(&["rename", "my old", "my-old"]);
    w.ok(&["rm", "my-old"]);
    assert_eq!(w.json(&["ls"]), serde_json::json!([]));
}

#[test]
fn a_mistyped_name_gets_a_did_you_mean() {
    let w = World::new();
    w.new_terminal("review", "claude");
    refused(&w, &["show", "rewiew"], "did you mean \"review\"?");
    refused(&w, &["send", "reveiw", "hi"], "did you mean \"review\"?");
    refused(
        &w,
        &["show", "billing"],
        "no terminal named \"billing\" (see `baton ls`",
    );
}

#[test]
fn a_second_terminal_in_one_plain_folder_is_refused_naming_the_first() {
    let w = World::new();
    let dir = w.project("shared");
    let d = dir.to_str().unwrap();
    w.ok(&["new", "one", "--dir", d]);
    refused(
        &w,
        &["new", "two", "--dir", d],
        "is already the folder of terminal \"one\"",
    );
    refused(
        &w,
        &["new", "--dir", d],
        "is already the folder of terminal \"one\"",
    );
    assert_eq!(w.json(&["ls"]).as_array().unwrap().len(), 1);
    // In a repository each terminal gets its own worktree: no refusal.
    let repo = repo(&w, "repo");
    let r = repo.to_str().unwrap();
    w.ok(&["new", "a", "--dir", r]);
    w.ok(&["new", "b", "--dir", r]);
}
