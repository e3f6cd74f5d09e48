//! A server that dies in the middle of git work: inside a turn's automatic commit (the lock
//! files git leaves, at `BATON_CRASH_AT` points), and mid-turn with files changed. The next
//! start clears baton's own locks, commits the cut turn's files as that turn, and the turns
//! after commit as before.

use std::path::{Path, PathBuf};

use super::common::*;
use super::queue::{all_done, detach};

/// Waits until no server answers (it died at its crash point).
fn server_died(w: &World) {
    w.wait_for("the server to die at its crash point", || {
        w.run(&["server", "status"]).status.code() != Some(0)
    });
}

/// Terminal t's worktree.
fn worktree(w: &World) -> PathBuf {
    PathBuf::from(w.show("t")["dir"].as_str().unwrap())
}

/// The files commit `commit` changed, as git lists them.
fn files_of(w: &World, dir: &Path, commit: &serde_json::Value) -> String {
    let commit = commit
        .as_str()
        .unwrap_or_else(|| panic!("no commit: {commit}"));
    git(w, dir, &["show", "--name-only", "--format=", commit])
}

/// The lock files git may leave of terminal t's branch in `repo` and of its worktree `dir`
/// (read without a baton command: one would start the server).
fn locks(w: &World, repo: &Path, dir: &Path) -> Vec<PathBuf> {
    let git_dir = PathBuf::from(git(w, dir, &["rev-parse", "--absolute-git-dir"]).trim());
    [
        repo.join(".git/refs/heads/baton/t.lock"),
        git_dir.join("index.lock"),
    ]
    .into_iter()
    .filter(|p| p.exists())
    .collect()
}

#[test]
fn a_server_dead_inside_a_commit_leaves_no_lock_and_each_turn_keeps_its_own_commit() {
    // `commit-ref`: git holds the branch's lock, HEAD not moved yet; `commit-index`: HEAD
    // moved, the index's lock held, the index not written yet.
    for (provider, point) in [
        ("claude", "commit-ref"),
        ("claude", "commit-index"),
        ("codex", "commit-ref"),
        ("codex", "commit-index"),
    ] {
        let mut w = World::new();
        let repo = w.new_repo_terminal("t", "repo", provider);
        let dir = worktree(&w);
        w.ok(&["server", "stop"]);
        w.env.push(("BATON_CRASH_AT".into(), point.into()));
        detach(&w, "t", "one [[write:one.txt]]", &[]);
        server_died(&w);
        w.env.clear();
        assert!(
            !locks(&w, &repo, &dir).is_empty(),
            "{point}: the crash left a lock"
        );
        let (_, err) = w.send("t", "two [[write:two.txt]]");
        assert!(!err.contains("commit failed"), "{provider} {point}: {err}");
        let log = w.json(&["log", "t"]);
        let [one, two] = [&log["turns"][0], &log["turns"][1]];
        assert_eq!(
            files_of(&w, &dir, &one["commit"]),
            "one.txt\n",
            "{point}: {one}"
        );
        assert_eq!(
            files_of(&w, &dir, &two["commit"]),
            "two.txt\n",
            "{point}: {two}"
        );
        assert_eq!(locks(&w, &repo, &dir), Vec::<PathBuf>::new(), "{point}");
        assert_eq!(git(&w, &dir, &["status", "--porcelain"]), "", "{point}");
    }
}

#[test]
fn a_server_killed_again_inside_the_recovery_commit_still_makes_one_commit_for_the_turn() {
    let mut w = World::new();
    let repo = w.new_repo_terminal("t", "repo", "claude");
    let dir = worktree(&w);
    w.ok(&["server", "stop"]);
    w.env.push(("BATON_CRASH_AT".into(), "commit-ref".into()));
    detach(&w, "t", "one [[write:one.txt]]", &[]);
    server_died(&w);
    // Each start recovers the turn and dies inside its commit again.
    for _ in 0..2 {
        assert!(!w.run(&["ls"]).status.success());
        server_died(&w);
        assert!(!locks(&w, &repo, &dir).is_empty());
    }
    w.env.clear();
    w.send("t", "two [[write:two.txt]]");
    let subjects = git(&w, &dir, &["log", "--format=%s", "main..baton/t"]);
    assert_eq!(subjects, "two [[write:two.txt]]\none [[write:one.txt]]\n");
    let one = &w.json(&["log", "t"])["turns"][0];
    assert_eq!(files_of(&w, &dir, &one["commit"]), "one.txt\n", "{one}");
}

#[test]
fn a_removal_cut_short_inside_its_commit_is_finished_at_the_next_start() {
    let mut w = World::new();
    let repo = w.new_repo_terminal("t", "repo", "claude");
    let dir = worktree(&w);
    std::fs::write(dir.join("left.txt"), "by hand\n").unwrap();
    w.ok(&["server", "stop"]);
    w.env.push(("BATON_CRASH_AT".into(), "commit-ref".into()));
    assert!(!w.run(&["rm", "t"]).status.success());
    server_died(&w);
    w.env.clear();
    assert_eq!(
        w.json(&["ls"]),
        serde_json::json!([]),
        "the removal finished"
    );
    assert!(!dir.exists());
    let files = git(&w, &repo, &["show", "--name-only", "--format=", "baton/t"]);
    assert_eq!(
        files, "left.txt\n",
        "the leftover was committed on the kept branch"
    );
}

#[test]
fn a_turn_a_server_crash_cut_short_is_committed_as_that_turn_and_reverts() {
    // A warm CLI of each provider, and a cold Claude CLI (which holds its turn as well).
    for (provider, cold) in [("claude", false), ("codex", false), ("claude", true)] {
        let w = World::new();
        if cold {
            w.cold();
        }
        w.new_repo_terminal("t", "repo", provider);
        w.send("t", "one [[write:one.txt]]");
        let dir = worktree(&w);
        // A warm CLI holds the turn once its file is written; the server dies meanwhile.
        detach(&w, "t", "two [[write:two.txt]] [[hold:go]]", &[]);
        w.wait_for("the turn to write its file", || {
            dir.join("two.txt").exists()
        });
        kill_server(&w);
        w.send("t", "three [[write:three.txt]]");
        w.wait_for("every turn to end", || all_done(&w, "t", 3));
        let log = w.json(&["log", "t"]);
        let [two, three] = [&log["turns"][1], &log["turns"][2]];
        assert_eq!(two["status"], "interrupted", "{provider}: {two}");
        assert_eq!(
            files_of(&w, &dir, &two["commit"]),
            "two.txt\n",
            "{provider}"
        );
        assert_eq!(
            files_of(&w, &dir, &three["commit"]),
            "three.txt\n",
            "{provider}"
        );
        w.ok(&["revert", "t", "2"]);
        assert!(!dir.join("two.txt").exists(), "{provider}: reverted");
        assert!(dir.join("three.txt").exists(), "{provider}");
    }
}
