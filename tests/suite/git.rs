//! The git workflow end to end with real git: a worktree per terminal, one commit per changing
//! turn with its trailers, folders that become repositories, moved and deleted worktrees,
//! diff/merge/revert/rm, and the refusals.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::common::*;

fn new_in(w: &World, name: &str, dir: &Path) -> serde_json::Value {
    w.ok(&["new", name, "--dir", dir.to_str().unwrap()]);
    w.show(name)
}

fn dir_of(w: &World, name: &str) -> PathBuf {
    PathBuf::from(w.show(name)["dir"].as_str().unwrap())
}

#[test]
fn two_terminals_on_one_repository_never_touch_each_others_files() {
    let w = World::new();
    let repo = repo(&w, "repo");
    let a = new_in(&w, "a", &repo);
    new_in(&w, "b", &repo);
    assert_eq!(a["checkout"]["mode"], "worktree");
    assert_eq!(a["checkout"]["branch"], "baton/a");
    assert_eq!(a["checkout"]["base_branch"], "main");
    let (da, db) = (dir_of(&w, "a"), dir_of(&w, "b"));
    assert_ne!(da, repo);
    assert_ne!(da, db);
    w.send("a", "write a [[write:a.txt]]");
    w.send("b", "write b [[write:b.txt]]");
    assert_eq!(w.invocations()[0]["cwd"], da.to_str().unwrap());
    assert!(da.join("a.txt").exists() && !da.join("b.txt").exists());
    assert!(db.join("b.txt").exists() && !db.join("a.txt").exists());
    assert!(!repo.join("a.txt").exists() && !repo.join("b.txt").exists());
    let list = git(&w, &repo, &["worktree", "list", "--porcelain"]);
    assert!(
        list.contains(da.to_str().unwrap()) && list.contains("branch refs/heads/baton/a"),
        "{list}"
    );
    assert!(
        list.contains(db.to_str().unwrap()) && list.contains("branch refs/heads/baton/b"),
        "{list}"
    );
    assert_eq!(
        git(&w, &da, &["status", "--porcelain"]),
        "",
        "everything was committed"
    );
}

#[test]
fn each_changing_turn_is_one_commit_with_all_trailers() {
    let w = World::new();
    let repo = repo(&w, "repo");
    new_in(&w, "t", &repo);
    let dir = dir_of(&w, "t");
    w.send("t", "Add the health endpoint [[write:health.rs]] [[write:debug.log]]\nKeep it small.\nAnd tested.");
    w.send("t", "What does it do?");
    w.send("t", "Second change [[write:other.rs]]");
    let log = git(&w, &repo, &["log", "--format=%s", "main..baton/t"]);
    assert_eq!(
        log.lines().count(),
        2,
        "one commit per changing turn: {log}"
    );
    let first = git(&w, &repo, &["log", "-1", "--format=%B", "baton/t~1"]);
    assert!(first.starts_with("Add the health endpoint [[write:health.rs]] [[write:debug.log]]\n\nKeep it small.\nAnd tested."), "{first}");
    let trailers = git(
        &w,
        &repo,
        &["log", "-1", "--format=%(trailers:only,unfold)", "baton/t~1"],
    );
    let show = w.show("t");
    let session = show["sessions"][0]["session_id"].as_str().unwrap();
    for want in [
        "Baton-Terminal: t".to_string(),
        format!(
            "Baton-Conversation: {}",
            show["conversation"]["id"].as_str().unwrap()
        ),
        "Baton-Provider: claude".to_string(),
        format!("Baton-Session: {session}"),
        "Baton-Turn: 1".to_string(),
    ] {
        assert!(trailers.contains(&want), "{want} missing in {trailers}");
    }
    let files = git(
        &w,
        &repo,
        &["show", "--name-only", "--format=", "baton/t~1"],
    );
    assert_eq!(files.trim(), "health.rs", "gitignored files stay out");
    assert!(dir.join("debug.log").exists());
    let author = git(&w, &repo, &["log", "-1", "--format=%an <%ae>", "baton/t"]);
    assert_eq!(author.trim(), "Repo Owner <owner@example.com>");
    let turns = w.json(&["log", "t"])["turns"].clone();
    assert!(turns[0]["commit"].is_string());
    assert!(turns[1]["commit"].is_null());
}

#[test]
fn a_folder_git_inited_mid_session_moves_into_a_worktree_with_its_files() {
    let w = World::new();
    let folder = w.project("plain");
    let t = new_in(&w, "t", &folder);
    assert_eq!(t["checkout"]["mode"], "folder");
    w.send("t", "start [[write:notes.txt]]");
    assert!(folder.join("notes.txt").exists());
    git(&w, &folder, &["init", "-q", "-b", "main"]);
    git(&w, &folder, &["add", "notes.txt"]);
    git(&w, &folder, &["commit", "-q", "-m", "first"]);
    std::fs::write(folder.join("draft.txt"), "work in progress\n").unwrap();
    // While git is busy in the folder the move waits, and says why.
    let head = git(&w, &folder, &["rev-parse", "HEAD"]);
    std::fs::write(folder.join(".git/MERGE_HEAD"), head).unwrap();
    let (_, err) = w.send("t", "go on");
    assert!(err.contains("waits"), "{err}");
    assert_eq!(w.show("t")["checkout"]["mode"], "folder");
    std::fs::remove_file(folder.join(".git/MERGE_HEAD")).unwrap();
    let (_, err) = w.send("t", "and now?");
    assert!(err.contains("became a git repository"), "{err}");
    let show = w.show("t");
    assert_eq!(show["checkout"]["mode"], "worktree");
    assert_eq!(show["conversation"]["number"], 2);
    assert_eq!(show["conversation"]["opened_reason"], "moved");
    let dir = dir_of(&w, "t");
    assert_eq!(w.last_invocation()["cwd"], dir.to_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(dir.join("draft.txt")).unwrap(),
        "work in progress\n"
    );
    assert!(
        folder.join("draft.txt").exists(),
        "the original stays where the user left it"
    );
}

#[test]
fn git_worktree_move_is_followed_and_opens_a_fresh_conversation() {
    let w = World::new();
    let repo = repo(&w, "repo");
    new_in(&w, "t", &repo);
    w.send("t", "hello there");
    let old = dir_of(&w, "t");
    let new = w.tmp.path().join("work/moved-here");
    git(
        &w,
        &repo,
        &[
            "worktree",
            "move",
            old.to_str().unwrap(),
            new.to_str().unwrap(),
        ],
    );
    let (_, err) = w.send("t", "still there?");
    assert!(err.contains("moved"), "{err}");
    let new = new.canonicalize().unwrap();
    assert_eq!(dir_of(&w, "t"), new);
    assert_eq!(w.last_invocation()["cwd"], new.to_str().unwrap());
    let show = w.show("t");
    assert_eq!(show["conversation"]["number"], 2);
    assert_eq!(show["conversation"]["opened_reason"], "moved");
    let argv = w.last_invocation()["argv"].clone();
    assert!(
        !argv.to_string().contains(old.to_str().unwrap()),
        "old paths are never passed: {argv}"
    );
}

#[test]
fn a_deleted_worktree_is_recreated_from_its_branch() {
    let w = World::new();
    let repo = repo(&w, "repo");
    new_in(&w, "t", &repo);
    w.send("t", "write it [[write:kept.txt]]");
    let dir = dir_of(&w, "t");
    std::fs::remove_dir_all(&dir).unwrap();
    let (_, err) = w.send("t", "where did it go?");
    assert!(err.contains("recreated"), "{err}");
    assert!(dir_of(&w, "t").join("kept.txt").exists(), "no work lost");
}

#[test]
fn diff_merge_and_revert_do_what_they_say() {
    let w = World::new();
    let repo = repo(&w, "repo");
    new_in(&w, "t", &repo);
    w.send("t", "first [[write:a.txt]]");
    w.send("t", "second [[write:b.txt]]");
    let stat = w.ok(&["diff", "t"]);
    assert!(stat.contains("a.txt") && stat.contains("b.txt"), "{stat}");
    let patch = w.ok(&["diff", "t", "--patch"]);
    assert!(patch.contains("+written by shim"), "{patch}");
    w.ok(&["revert", "t", "2"]);
    assert!(!dir_of(&w, "t").join("b.txt").exists());
    let out = w.run(&["revert", "t", "9"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // A dirty target checkout refuses the merge and changes nothing.
    std::fs::write(repo.join("README.md"), "# edited by hand\n").unwrap();
    let before = git(&w, &repo, &["rev-parse", "main"]);
    let out = w.run(&["merge", "t"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(git(&w, &repo, &["rev-parse", "main"]), before);
    git(&w, &repo, &["checkout", "README.md"]);
    w.ok(&["merge", "t"]);
    assert!(repo.join("a.txt").exists() && !repo.join("b.txt").exists());
    let msg = git(&w, &repo, &["log", "-1", "--format=%B", "main"]);
    assert!(msg.contains("first [[write:a.txt]]"), "{msg}");
    assert_eq!(git(&w, &repo, &["status", "--porcelain"]), "");
}

#[test]
fn rm_commits_leftovers_keeps_the_branch_and_is_refused_while_running() {
    let w = World::new();
    let repo = repo(&w, "repo");
    new_in(&w, "t", &repo);
    let dir = dir_of(&w, "t");
    let child = w.spawn(&["send", "t", "long [[hang]]"]);
    w.wait_for("the turn to run", || w.show("t")["state"] == "running");
    let out = w.run(&["rm", "t"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    w.ok(&["interrupt", "t"]);
    child.wait_with_output().unwrap();
    std::fs::write(dir.join("by-hand.txt"), "left behind\n").unwrap();
    w.ok(&["rm", "t"]);
    assert!(!dir.exists());
    let files = git(&w, &repo, &["show", "--name-only", "--format=", "baton/t"]);
    assert!(files.contains("by-hand.txt"), "{files}");
    assert!(!git(&w, &repo, &["worktree", "list"]).contains(dir.to_str().unwrap()));
    assert_eq!(w.json(&["ls"]), serde_json::json!([]));
    // The name is free again; an unmerged branch is not deleted without --force.
    new_in(&w, "u", &repo);
    w.send("u", "work [[write:u.txt]]");
    let out = w.run(&["rm", "u", "--delete-branch"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    w.ok(&["rm", "u", "--delete-branch", "--force"]);
    assert!(!git(&w, &repo, &["branch", "--list"]).contains("baton/u"));
}

#[test]
fn in_place_runs_in_the_repository_itself_without_commits() {
    let w = World::new();
    let repo = repo(&w, "repo");
    w.ok(&["new", "t", "--dir", repo.to_str().unwrap(), "--in-place"]);
    assert_eq!(w.show("t")["checkout"]["mode"], "in_place");
    w.send("t", "here [[write:here.txt]]");
    assert!(repo.join("here.txt").exists());
    assert_eq!(git(&w, &repo, &["log", "--format=%s"]).trim(), "init");
}

#[test]
fn bad_repositories_are_refused_and_change_nothing() {
    let w = World::new();
    let empty = w.project("empty");
    git(&w, &empty, &["init", "-q", "-b", "main"]);
    let detached = repo(&w, "detached");
    git(&w, &detached, &["checkout", "-q", "--detach"]);
    let taken = repo(&w, "taken");
    git(&w, &taken, &["branch", "baton/t"]);
    for (dir, needle) in [
        (&empty, "no commit"),
        (&detached, "detached"),
        (&taken, "baton/t"),
    ] {
        let out = w.run(&["new", "t", "--dir", dir.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{}",
            text(&out)
        );
        assert_eq!(w.json(&["ls"]), serde_json::json!([]));
    }
    assert_eq!(git(&w, &taken, &["worktree", "list"]).lines().count(), 1);
}

#[test]
fn the_watcher_follows_a_moved_worktree_before_the_next_send() {
    let w = World::new();
    let repo = repo(&w, "repo");
    new_in(&w, "t", &repo);
    let old = dir_of(&w, "t");
    let new = w.tmp.path().join("work/elsewhere");
    git(
        &w,
        &repo,
        &[
            "worktree",
            "move",
            old.to_str().unwrap(),
            new.to_str().unwrap(),
        ],
    );
    let new = new.canonicalize().unwrap();
    w.wait_for("the terminal to follow its worktree", || {
        dir_of(&w, "t") == new
    });
    assert_eq!(w.invocations().len(), 0);
}

#[test]
fn after_a_merge_diff_lists_only_what_the_branch_still_adds() {
    let w = World::new();
    let repo = repo(&w, "repo");
    new_in(&w, "t", &repo);
    w.send("t", "first [[write:a.txt]]");
    w.ok(&["merge", "t"]);
    let d = w.json(&["diff", "t"]);
    assert_eq!(d["diff"], "", "{d}");
    let tip = git(&w, &repo, &["rev-parse", "baton/t"]);
    assert_eq!(d["since"], tip.trim());
    assert_eq!(d["merged"], true, "{d}");
    let said = w.ok(&["diff", "t"]);
    assert_eq!(said, "nothing left to merge: all of baton/t is merged\n");
    let out = w.run(&["merge", "t"]);
    assert!(text(&out).contains("nothing to merge"), "{}", text(&out));
    w.send("t", "second [[write:b.txt]]");
    let stat = w.ok(&["diff", "t"]);
    assert!(stat.contains("b.txt") && !stat.contains("a.txt"), "{stat}");
    let patch = w.json(&["diff", "t", "--patch"]);
    assert!(
        !patch["diff"].as_str().unwrap().contains("a.txt"),
        "{patch}"
    );
}

#[test]
fn every_commit_checks_only_the_tracked_changes() {
    // Debug builds track every checkout (release ones only those with ~4,000 files or more)
    // and check each tracked commit against a whole walk, so this runs the server's tracker.
    // The first turn's checkout is walked while that turn runs (`checkout::Prime`).
    let w = World::new();
    let repo = repo(&w, "repo");
    new_in(&w, "t", &repo);
    let dir = dir_of(&w, "t");
    w.send("t", "first [[write:a.txt]]");
    // The user's own edit between turns, in a folder made meanwhile.
    std::fs::create_dir_all(dir.join("notes/deep")).unwrap();
    std::fs::write(dir.join("notes/deep/mine.txt"), "mine\n").unwrap();
    w.send("t", "second [[write:src/b.txt]]");
    std::fs::remove_file(dir.join("a.txt")).unwrap();
    w.send("t", "third, no change of its own");
    let status = w.json(&["server", "status"]);
    assert_eq!(status["tracked_checkouts"], 1, "{status}");
    assert_eq!(status["tracked_commits"], 3, "{status}");
    let text = w.ok(&["server", "status"]);
    assert!(
        text.contains("change tracker: 1 checkout(s) · 3 commit(s) from tracked changes"),
        "{text}"
    );
    let files = |rev: &str| git(&w, &dir, &["show", "--name-status", "--format=", rev]);
    assert_eq!(files("HEAD~2"), "A\ta.txt\n");
    assert_eq!(files("HEAD~1"), "A\tnotes/deep/mine.txt\nA\tsrc/b.txt\n");
    assert_eq!(files("HEAD"), "D\ta.txt\n");
    assert_eq!(git(&w, &dir, &["status", "--porcelain"]), "");
}

#[test]
fn the_first_commit_after_a_server_start_finds_what_changed_while_none_ran() {
    let w = World::new();
    let repo = repo(&w, "repo");
    new_in(&w, "t", &repo);
    let dir = dir_of(&w, "t");
    w.send("t", "first [[write:a.txt]]");
    w.ok(&["server", "stop"]);
    std::fs::write(dir.join("offline.txt"), "made while no server ran\n").unwrap();
    std::fs::write(dir.join("a.txt"), "edited then too\n").unwrap();
    w.send("t", "second [[write:src/b.txt]]");
    let status = w.json(&["server", "status"]);
    assert_eq!(status["tracked_commits"], 1, "{status}");
    let files = git(&w, &dir, &["show", "--name-status", "--format=", "HEAD"]);
    assert_eq!(files, "M\ta.txt\nA\toffline.txt\nA\tsrc/b.txt\n");
    assert_eq!(git(&w, &dir, &["status", "--porcelain"]), "");
}

/// The permission bits of `p`.
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[test]
fn worktrees_are_private_like_the_rest_of_the_data_directory() {
    use std::os::unix::fs::PermissionsExt;
    let w = World::new();
    let repo = repo(&w, "repo");
    new_in(&w, "a", &repo);
    w.ok(&["fork", "a", "b"]);
    let home = w.data().join("worktrees");
    let (a, b) = (dir_of(&w, "a"), dir_of(&w, "b"));
    assert_eq!([mode(&home), mode(&a), mode(&b)], [0o700; 3]);
    // Made 0755 by an older baton: the next server start tightens them.
    for p in [&home, &a, &b] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    w.ok(&["server", "stop"]);
    w.ok(&["ls"]);
    assert_eq!([mode(&home), mode(&a), mode(&b)], [0o700; 3]);
}
