//! `baton prune` and retention: only archived, idle terminals old enough go, with their
//! worktree and `terminals/<id>/`; a branch only when merged or forced; `--dry-run` changes
//! nothing; one failure stops nothing else; a crash half-way is finished at the next start;
//! `[storage] retention_days` prunes in the background of a server that answers at once.
//!
//! Terminals are made old the way time enters baton: the journal's `at` stamps, rewritten
//! while the server is stopped (the next start rebuilds the index from them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use regex::Regex;
use serde_json::{json, Value};

use super::common::*;

const LONG_AGO: &str = "2020-01-01T00:00:00.000Z";

fn id_of(w: &World, name: &str) -> String {
    w.show(name)["id"].as_str().unwrap().to_string()
}

fn worktree_of(w: &World, name: &str) -> PathBuf {
    PathBuf::from(w.show(name)["checkout"]["worktree"].as_str().unwrap())
}

fn folder_of(w: &World, tid: &str) -> PathBuf {
    w.data().join("terminals").join(tid)
}

/// Stops the server and dates every entry of these terminals' journals `LONG_AGO`.
fn age(w: &World, names: &[&str]) {
    let ids: Vec<String> = names.iter().map(|n| id_of(w, n)).collect();
    w.ok(&["server", "stop"]);
    let stamp = Regex::new(r#""at":"[^"]*""#).unwrap();
    for tid in ids {
        let path = folder_of(w, &tid).join("journal.jsonl");
        let text = std::fs::read_to_string(&path).unwrap();
        let old = stamp.replace_all(&text, format!(r#""at":"{LONG_AGO}""#).as_str());
        std::fs::write(&path, old.as_bytes()).unwrap();
    }
}

/// `prune ARGS --json`: exit code and report.
fn prune(w: &World, args: &[&str]) -> (Option<i32>, Value) {
    let mut a = vec!["prune"];
    a.extend_from_slice(args);
    a.push("--json");
    let out = w.run(&a);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code(), v)
}

/// Everything prune may touch: every file of baton's data (bytes), the index as `ls --all`
/// shows it, the repository's worktrees and branches.
fn state(w: &World, repo: &Path) -> (BTreeMap<PathBuf, Vec<u8>>, Value, String, String) {
    let files = read_dir_files(&w.data().join("terminals"))
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    (
        files,
        w.json(&["ls", "--all"]),
        git(w, repo, &["worktree", "list", "--porcelain"]),
        git(w, repo, &["branch", "--list"]),
    )
}

fn branches(w: &World, repo: &Path) -> Vec<String> {
    git(w, repo, &["branch", "--list", "--format=%(refname:short)"])
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn prune_removes_only_archived_idle_old_terminals_and_dry_run_changes_nothing() {
    let w = World::new();
    let repo = repo(&w, "repo");
    let r = repo.to_str().unwrap();
    for name in ["merged", "unmerged", "live", "recent"] {
        w.ok(&["new", name, "--dir", r]);
    }
    let plain = w.new_terminal("plain", "claude");
    std::fs::write(plain.join("notes.txt"), "the user's own\n").unwrap();
    w.send("unmerged", "write it [[write:work.txt]]");
    for name in ["merged", "unmerged", "plain", "recent"] {
        w.ok(&["archive", name]);
    }
    let worktrees = [worktree_of(&w, "merged"), worktree_of(&w, "unmerged")];
    let ids: Vec<String> = ["merged", "unmerged", "plain"]
        .iter()
        .map(|n| id_of(&w, n))
        .collect();
    age(&w, &["merged", "unmerged", "plain", "live"]);

    let before = state(&w, &repo);
    let (code, dry) = prune(&w, &["--dry-run"]);
    assert_eq!(code, Some(0), "{dry}");
    assert_eq!(state(&w, &repo), before, "a dry run changed something");
    let text_dry = w.ok(&["prune", "--dry-run"]);
    assert!(
        text_dry.ends_with(
            "dry run, nothing changed: 3 would be removed, 2 skipped (1 not archived), 0 failed\n"
        ),
        "{text_dry}"
    );
    // A dry run says what would happen, never that it happened.
    assert!(
        text_dry.contains("branch baton/merged would be deleted)"),
        "{text_dry}"
    );
    assert!(!text_dry.contains("merged deleted"), "{text_dry}");
    assert_eq!(state(&w, &repo), before, "a dry run changed something");

    let (code, done) = prune(&w, &[]);
    assert_eq!(code, Some(0), "{done}");
    for (report, dry_run) in [(&dry, true), (&done, false)] {
        assert_eq!(report["dry_run"], dry_run);
        assert_eq!(report["older_than_days"], 30);
        // In the order `ls` lists them: by creation (all long ago), then name.
        assert_eq!(
            names_of(&report["removed"]),
            ["merged", "plain", "unmerged"]
        );
        let branch_of = |i: usize| {
            let r = &report["removed"][i];
            (
                r["branch"].clone(),
                r["branch_deleted"].clone(),
                r["kept_branch"].clone(),
            )
        };
        assert_eq!(
            branch_of(0),
            (json!("baton/merged"), json!(true), json!(null))
        );
        assert_eq!(branch_of(1), (json!(null), json!(false), json!(null)));
        assert_eq!(
            branch_of(2),
            (
                json!("baton/unmerged"),
                json!(false),
                json!("baton/unmerged")
            )
        );
        assert_eq!(report["removed"][0]["last_activity"], LONG_AGO);
        assert_eq!(
            report["removed"][2]["worktree"],
            json!(worktrees[1].to_str().unwrap())
        );
        assert_eq!(report["skipped"].as_array().unwrap().len(), 1, "{report}");
        assert_eq!(report["skipped"][0]["name"], "recent");
        assert_eq!(report["skipped"][0]["reason"], "too_recent");
        assert_eq!(report["failed"], json!([]));
        assert_eq!(
            report["counts"],
            json!({"removed": 3, "skipped": 2, "not_archived": 1, "failed": 0})
        );
    }

    assert_eq!(names_of(&w.json(&["ls", "--all"])), ["live", "recent"]);
    for wt in &worktrees {
        assert!(!wt.exists(), "{} is still there", wt.display());
    }
    for tid in &ids {
        assert!(
            !folder_of(&w, tid).exists(),
            "terminals/{tid} is still there"
        );
    }
    assert_eq!(
        branches(&w, &repo),
        ["baton/live", "baton/recent", "baton/unmerged", "main"]
    );
    // A plain folder is the user's: only baton's data of it went.
    assert_eq!(
        std::fs::read_to_string(plain.join("notes.txt")).unwrap(),
        "the user's own\n"
    );
    // The index rebuilt from what is left says the same, and the names are free again.
    let listed = w.json(&["ls", "--all"]);
    w.ok(&["reindex"]);
    assert_eq!(w.json(&["ls", "--all"]), listed);
    w.ok(&["server", "stop"]);
    assert_eq!(w.json(&["ls", "--all"]), listed);
    w.ok(&["new", "merged", "--dir", r]);
}

#[test]
fn prune_skips_a_running_terminal_goes_on_past_a_failure_and_force_deletes_unmerged_branches() {
    let w = World::new();
    let repo = repo(&w, "repo");
    let r = repo.to_str().unwrap();
    for name in ["locked", "unmerged"] {
        w.ok(&["new", name, "--dir", r]);
    }
    w.send("unmerged", "write it [[write:work.txt]]");
    let held_dir = w.new_terminal("busy", "claude");
    let held = w.spawn(&["send", "busy", "[[hold:go]] held"]);
    w.wait_for("the turn to run", || w.show("busy")["state"] == "running");
    let locked_wt = worktree_of(&w, "locked");
    git(
        &w,
        &repo,
        &["worktree", "lock", locked_wt.to_str().unwrap()],
    );
    for name in ["locked", "unmerged", "busy"] {
        w.ok(&["archive", name]);
    }

    let (code, report) = prune(&w, &["--older-than", "0", "--force"]);
    assert_eq!(code, Some(1), "a failure exits 1: {report}");
    assert_eq!(names_of(&report["removed"]), ["unmerged"]);
    assert_eq!(report["removed"][0]["branch_deleted"], true);
    assert_eq!(report["removed"][0]["kept_branch"], json!(null));
    assert_eq!(
        report["skipped"],
        json!([{"name": "busy", "reason": "running",
                "last_activity": report["skipped"][0]["last_activity"]}])
    );
    assert_eq!(names_of(&report["failed"]), ["locked"]);
    let error = report["failed"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("locked") && error.contains("git worktree unlock"),
        "{error}"
    );
    assert_eq!(
        report["counts"],
        json!({"removed": 1, "skipped": 1, "not_archived": 0, "failed": 1})
    );
    // The failed one is untouched; the forced branch is gone.
    assert!(locked_wt.exists());
    assert_eq!(names_of(&w.json(&["ls", "--all"])), ["locked", "busy"]);
    assert_eq!(branches(&w, &repo), ["baton/locked", "main"]);

    std::fs::write(held_dir.join("go"), "").unwrap();
    let out = held.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

/// Runs `prune` with the server set to die at `point`; a restart finishes the removal and
/// frees the terminal's folder.
fn crash_prune_at(point: &str) {
    let mut w = World::new();
    w.new_terminal("gone", "claude");
    w.ok(&["archive", "gone"]);
    let tid = id_of(&w, "gone");
    w.ok(&["server", "stop"]);
    w.env.push(("BATON_CRASH_AT".into(), point.into()));
    let out = w.run(&["prune", "--older-than", "0"]);
    assert!(
        !out.status.success(),
        "prune survived {point}: {}",
        text(&out)
    );
    w.env.clear();
    assert_eq!(w.json(&["ls", "--all"]), json!([]), "after {point}");
    let said = match point {
        "rm-started" => "finished removing gone",
        _ => "a crash had cut its prune short",
    };
    assert!(
        server_log(&w).contains(said),
        "after {point}: {}",
        server_log(&w)
    );
    assert!(
        !folder_of(&w, &tid).exists(),
        "terminals/{tid} after {point}"
    );
}

#[test]
fn a_prune_cut_short_by_a_crash_is_finished_and_purged_at_the_next_start() {
    crash_prune_at("rm-started");
    crash_prune_at("rm-removed");
}

fn retention_world(days: u32) -> (World, String) {
    let w = World::new();
    w.new_terminal("old", "claude");
    w.ok(&["archive", "old"]);
    let tid = id_of(&w, "old");
    age(&w, &["old"]);
    std::fs::write(
        w.data().join("config.toml"),
        format!("[storage]\nretention_days = {days}\n"),
    )
    .unwrap();
    w.ok(&["server", "start"]);
    // The server is ready and answers while retention runs (or not) behind it.
    assert_eq!(w.json(&["server", "status"])["running"], true);
    (w, tid)
}

fn server_log(w: &World) -> String {
    std::fs::read_to_string(w.data().join("server.log")).unwrap_or_default()
}

#[test]
fn retention_prunes_old_archived_terminals_after_the_server_starts() {
    let (w, tid) = retention_world(1);
    w.wait_for("retention to prune old", || {
        w.json(&["ls", "--all"]) == json!([])
    });
    // `ls` forgets it at the removal's first step; its folder goes at the last.
    w.wait_for("retention to delete old's folder", || {
        !folder_of(&w, &tid).exists()
    });
    w.wait_for("retention's report in server.log", || {
        server_log(&w).contains("retention: 1 removed (old), 0 skipped, 0 failed")
    });
}

#[test]
fn retention_days_zero_keeps_archived_terminals() {
    let (w, tid) = retention_world(0);
    assert_eq!(names_of(&w.json(&["ls", "--all"])), ["old"]);
    // Retention says it is on before the server is ready; with 0 it never started.
    assert!(!server_log(&w).contains("retention"), "{}", server_log(&w));
    assert!(folder_of(&w, &tid).exists());
}
