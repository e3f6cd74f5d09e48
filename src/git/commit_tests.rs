//! Automatic commit tests against real repositories, checked with the git command line.

use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::super::testutil::*;
use super::super::{create_worktree, CommitInfo};
use super::*;

fn turn(prompt: &str, n: u32) -> String {
    CommitInfo::for_turn(prompt, "api", "conv-1", "claude", "sess-1", &n.to_string()).message()
}

#[test]
fn auto_commit_stages_new_modified_and_deleted_files_but_not_ignored_ones() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join(".gitignore"), "target/\n*.log\n");
    write(&wt.path.join("gone.txt"), "x\n");
    auto_commit(&wt.path, "ignore rules\n", &[])
        .unwrap()
        .unwrap();

    write(&wt.path.join("src/new.rs"), "fn main() {}\n");
    write(&wt.path.join("README.md"), "changed\n");
    write(&wt.path.join("target/out.bin"), "build output\n");
    write(&wt.path.join("debug.log"), "noise\n");
    fs::remove_file(wt.path.join("gone.txt")).unwrap();

    let id = auto_commit(&wt.path, &turn("Do the work", 1), &[])
        .unwrap()
        .unwrap();
    let files = git(&wt.path, &["show", "--name-status", "--format=", &id]);
    assert_eq!(files, "M\tREADME.md\nD\tgone.txt\nA\tsrc/new.rs\n");
    assert_eq!(status(&wt.path), "");
    assert_eq!(
        git(&wt.path, &["ls-files"]),
        ".gitignore\nREADME.md\nsrc/new.rs\n"
    );
    assert_eq!(git(&wt.path, &["rev-parse", "HEAD"]).trim(), id);
    assert_eq!(git(&f.repo, &["rev-parse", "baton/api"]).trim(), id);
}

#[test]
fn auto_commit_returns_none_and_writes_nothing_when_nothing_changed() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    assert_eq!(auto_commit(&wt.path, "nothing\n", &[]).unwrap(), None);
    write(&wt.path.join(".gitignore"), "*.log\n");
    auto_commit(&wt.path, "ignore logs\n", &[])
        .unwrap()
        .unwrap();
    let before = git(&f.repo, &["rev-parse", "baton/api"]);
    write(&wt.path.join("only.log"), "x\n");
    assert_eq!(auto_commit(&wt.path, "nothing\n", &[]).unwrap(), None);
    assert_eq!(git(&f.repo, &["rev-parse", "baton/api"]), before);
    assert_eq!(status(&wt.path), "");
}

#[test]
fn one_commit_per_changing_turn_with_every_trailer() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join("a.txt"), "1\n");
    auto_commit(&wt.path, &turn("First turn\nwith a body", 1), &[]).unwrap();
    assert_eq!(
        auto_commit(&wt.path, &turn("Just a question", 2), &[]).unwrap(),
        None
    );
    write(&wt.path.join("a.txt"), "3\n");
    let last = auto_commit(&wt.path, &turn("Third turn", 3), &[])
        .unwrap()
        .unwrap();

    let log = git(
        &f.repo,
        &[
            "log",
            "--format=%s|%(trailers:key=Baton-Turn,valueonly,separator=)",
            "main..baton/api",
        ],
    );
    assert_eq!(log, "Third turn|3\nFirst turn|1\n");
    let body = git(&f.repo, &["log", "-1", "--format=%B", &last]);
    let file = f.path("msg.txt");
    fs::write(&file, &body).unwrap();
    let parsed = git(
        &f.repo,
        &["interpret-trailers", "--parse", file.to_str().unwrap()],
    );
    assert_eq!(
        parsed,
        "Baton-Terminal: api\nBaton-Conversation: conv-1\nBaton-Provider: claude\nBaton-Session: sess-1\nBaton-Turn: 3\n"
    );
    let first_body = git(&f.repo, &["log", "-1", "--format=%b", "baton/api~1"]);
    assert!(
        first_body.starts_with("with a body\n\nBaton-Terminal: api\n"),
        "{first_body}"
    );
}

#[test]
fn auto_commit_author_is_the_configured_identity() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join("a.txt"), "1\n");
    let id = auto_commit(&wt.path, "x\n", &[]).unwrap().unwrap();
    let who = git(&f.repo, &["log", "-1", "--format=%an <%ae>|%cn <%ce>", &id]);
    assert_eq!(
        who,
        "Test User <test@example.com>|Test User <test@example.com>\n"
    );
}

#[test]
fn auto_commit_author_falls_back_to_baton_without_identity() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    let repo = repo_with_commit(&dir);
    {
        let cfg = repo.config().unwrap();
        let mut local = cfg.open_level(git2::ConfigLevel::Local).unwrap();
        local.remove("user.name").unwrap();
        local.remove("user.email").unwrap();
    }
    // The machine's global identity, if any, wins over the fallback, as with git itself.
    let want = match super::super::signature_from(&repo.config().unwrap().snapshot().unwrap()) {
        Some(s) => format!("{} <{}>\n", s.name().unwrap(), s.email().unwrap()),
        None => "baton <baton@localhost>\n".to_string(),
    };
    write(&dir.join("a.txt"), "1\n");
    let id = auto_commit(&dir, "x\n", &[]).unwrap().unwrap();
    assert_eq!(git(&dir, &["log", "-1", "--format=%an <%ae>", &id]), want);
}

#[test]
fn excluded_paths_such_as_screenshots_stay_out() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join("screenshots/s1.png"), "png");
    write(&wt.path.join("notes/keep.txt"), "keep\n");
    write(&wt.path.join("notes/private.txt"), "private\n");
    let shots = wt.path.join("screenshots");
    let exclude: [&Path; 2] = [&shots, Path::new("notes/private.txt")];
    let id = auto_commit(&wt.path, "x\n", &exclude).unwrap().unwrap();
    assert_eq!(
        git(&wt.path, &["show", "--name-only", "--format=", &id]),
        "notes/keep.txt\n"
    );
    // Only excluded changes left: nothing to commit.
    write(&wt.path.join("screenshots/s2.png"), "png");
    assert_eq!(auto_commit(&wt.path, "x\n", &exclude).unwrap(), None);
}

#[test]
fn auto_commit_in_a_subdirectory_commits_only_under_it() {
    let f = Fixture::new();
    let sub = f.repo.join("pkg");
    write(&sub.join("in.txt"), "in\n");
    write(&f.repo.join("out.txt"), "out\n");
    let id = auto_commit(&sub, "x\n", &[]).unwrap().unwrap();
    assert_eq!(
        git(&f.repo, &["show", "--name-only", "--format=", &id]),
        "pkg/in.txt\n"
    );
    assert_eq!(status(&f.repo), "?? out.txt\n");
}

#[test]
fn auto_commit_makes_the_first_commit_of_an_in_place_repository() {
    let tmp = tempfile::tempdir().unwrap();
    empty_repo(tmp.path());
    write(&tmp.path().join("a.txt"), "a\n");
    let id = auto_commit(tmp.path(), "first\n", &[]).unwrap().unwrap();
    assert_eq!(git(tmp.path(), &["rev-list", "--count", &id]), "1\n");
}

#[test]
fn auto_commit_refuses_detached_busy_and_not_a_repository() {
    let f = Fixture::new();
    let plain = f.path("plain");
    fs::create_dir_all(&plain).unwrap();
    assert!(auto_commit(&plain, "x\n", &[]).is_err());

    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join("a.txt"), "1\n");
    let repo = git2::Repository::open(&wt.path).unwrap();
    fs::write(repo.path().join("index.lock"), "").unwrap();
    let err = auto_commit(&wt.path, "x\n", &[]).unwrap_err();
    assert!(matches!(err, GitError::Busy { .. }), "{err}");
    fs::remove_file(repo.path().join("index.lock")).unwrap();

    git(&wt.path, &["checkout", "--detach", "-q"]);
    let err = auto_commit(&wt.path, "x\n", &[]).unwrap_err();
    assert!(matches!(err, GitError::Detached { .. }), "{err}");
    assert_eq!(status(&wt.path), "?? a.txt\n");
}

#[test]
fn auto_commit_on_a_read_only_checkout_fails_clearly_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    repo_with_commit(&dir);
    write(&dir.join("a.txt"), "1\n");
    let head = git(&dir, &["rev-parse", "HEAD"]);
    set_writable(&dir, false);
    if chmod_is_ignored(&dir.join(".git")) {
        // Running as root: permission bits do not stop writes, so this cannot be simulated.
        set_writable(&dir, true);
        return;
    }
    let result = auto_commit(&dir, "x\n", &[]);
    set_writable(&dir, true);
    let err = result.unwrap_err();
    assert!(matches!(err, GitError::ReadOnly { .. }), "{err}");
    assert!(err.to_string().contains("read-only"), "{err}");
    assert_eq!(git(&dir, &["rev-parse", "HEAD"]), head);
    assert_eq!(status(&dir), "?? a.txt\n");
}

#[test]
fn subjects_and_turn_commits_are_read_back_from_the_branch() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    let mut ids = Vec::new();
    for n in 1..=3 {
        write(&wt.path.join("a.txt"), &format!("{n}\n"));
        ids.push(
            auto_commit(&wt.path, &turn(&format!("Turn {n}"), n), &[])
                .unwrap()
                .unwrap(),
        );
    }
    assert_eq!(
        subjects_since(&wt).unwrap(),
        vec!["Turn 1", "Turn 2", "Turn 3"]
    );
    assert_eq!(
        commit_for_trailer(&wt, "Baton-Turn", "2").unwrap(),
        Some(ids[1].clone())
    );
    assert_eq!(commit_for_trailer(&wt, "Baton-Turn", "9").unwrap(), None);
}

#[test]
fn auto_commit_stages_links_and_a_nested_repository_as_git_add_does() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    // A link to a folder is staged as a link (status lists it; it is not a folder to walk).
    std::os::unix::fs::symlink("src", wt.path.join("src-link")).unwrap();
    write(&wt.path.join("src/lib.rs"), "pub fn f() {}\n");
    let id = auto_commit(&wt.path, &turn("Links", 1), &[])
        .unwrap()
        .unwrap();
    let files = git(&wt.path, &["show", "--name-status", "--format=", &id]);
    assert_eq!(files, "A\tsrc-link\nA\tsrc/lib.rs\n");
    let mode = git(&wt.path, &["ls-files", "-s", "src-link"]);
    assert!(mode.starts_with("120000 "), "{mode}");

    // A repository nested in the checkout (an agent's clone) stays out, untracked, and the
    // file changed beside it is committed (this used to fail every commit: "invalid path").
    repo_with_commit(&wt.path.join("vendor/inner"));
    write(&wt.path.join("README.md"), "changed again\n");
    let id = auto_commit(&wt.path, &turn("Nested", 2), &[])
        .unwrap()
        .unwrap();
    let files = git(&wt.path, &["show", "--name-status", "--format=", &id]);
    assert_eq!(files, "M\tREADME.md\n");
    assert_eq!(status(&wt.path), "?? vendor/\n");
}

#[test]
fn auto_commit_takes_hand_staged_changes_modes_and_a_file_that_became_a_folder() {
    use std::os::unix::fs::PermissionsExt;
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join("tool.sh"), "echo hi\n");
    write(&wt.path.join("notes"), "a file for now\n");
    auto_commit(&wt.path, &turn("Setup", 1), &[])
        .unwrap()
        .unwrap();
    // Staged by hand, then the worktree file put back: only the index differs from HEAD.
    write(&wt.path.join("README.md"), "staged by hand\n");
    git(&wt.path, &["add", "README.md"]);
    write(&wt.path.join("README.md"), "staged by hand\n");
    let id = auto_commit(&wt.path, &turn("Staged", 2), &[])
        .unwrap()
        .expect("the staged change is committed");
    let files = git(&wt.path, &["show", "--name-status", "--format=", &id]);
    assert_eq!(files, "M\tREADME.md\n");

    // An executable bit, and a file replaced by a folder of the same name.
    let tool = wt.path.join("tool.sh");
    fs::set_permissions(&tool, fs::Permissions::from_mode(0o755)).unwrap();
    fs::remove_file(wt.path.join("notes")).unwrap();
    write(&wt.path.join("notes/one.md"), "now a folder\n");
    let id = auto_commit(&wt.path, &turn("Modes", 3), &[])
        .unwrap()
        .unwrap();
    let files = git(&wt.path, &["show", "--name-status", "--format=", &id]);
    assert_eq!(files, "D\tnotes\nA\tnotes/one.md\nM\ttool.sh\n");
    let mode = git(&wt.path, &["ls-files", "-s", "tool.sh"]);
    assert!(mode.starts_with("100755 "), "{mode}");
    assert_eq!(status(&wt.path), "");
}
