//! Worktree life-cycle tests against real repositories, checked with the git command line.

use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::super::testutil::*;
use super::super::{auto_commit, merge_squash, RepoState};
use super::*;

fn head_of(dir: &Path) -> String {
    match crate::git::inspect(dir).unwrap() {
        RepoState::Branch { head, .. } => head,
        other => panic!("not on a branch: {other:?}"),
    }
}

fn branches(repo: &Path) -> String {
    git(repo, &["branch", "--list", "--format=%(refname:short)"])
}

#[test]
fn create_worktree_makes_a_branch_and_a_worktree_git_knows() {
    let f = Fixture::new();
    let into = f.slot("api");
    let wt = create_worktree(&f.repo.join("."), "api", &into).unwrap();
    assert_eq!(
        wt,
        Worktree {
            path: into.clone(),
            branch: "baton/api".into(),
            base_commit: head_of(&f.repo),
            base_branch: "main".into(),
            repo: f.repo.clone(),
            name: "baton-api".into(),
        }
    );
    let list = git(&f.repo, &["worktree", "list", "--porcelain"]);
    assert!(
        list.contains(&format!("worktree {}\n", into.display())),
        "{list}"
    );
    assert!(list.contains("branch refs/heads/baton/api\n"), "{list}");
    assert_eq!(read(&into.join("README.md")), "hello\n");
    assert_eq!(
        git(&into, &["rev-parse", "--abbrev-ref", "HEAD"]),
        "baton/api\n"
    );
    assert_eq!(status(&into), "");
    assert_eq!(status(&f.repo), "");
    assert_eq!(git(&f.repo, &["worktree", "prune", "--dry-run", "-v"]), "");
    git(&f.repo, &["fsck", "--no-progress"]);
}

#[test]
fn create_worktree_from_a_subdirectory_and_odd_names() {
    let f = Fixture::new();
    fs::create_dir_all(f.repo.join("src")).unwrap();
    let wt = create_worktree(&f.repo.join("src"), "my terminal", &f.slot("t")).unwrap();
    assert_eq!(
        (wt.branch.as_str(), wt.name.as_str()),
        ("baton/my-terminal", "baton-my-terminal")
    );
    assert_eq!(wt.repo, f.repo);
}

#[test]
fn create_worktree_refusals_change_nothing() {
    let f = Fixture::new();
    let empty = f.path("empty");
    empty_repo(&empty);
    let plain = f.path("plain");
    fs::create_dir_all(&plain).unwrap();
    let detached = f.path("detached");
    let d = repo_with_commit(&detached);
    d.set_head_detached(d.head().unwrap().target().unwrap())
        .unwrap();
    create_worktree(&f.repo, "taken", &f.slot("taken")).unwrap();
    let occupied = f.slot("occupied");
    fs::create_dir_all(&occupied).unwrap();

    let cases: Vec<(&Path, &str, std::path::PathBuf, &str)> = vec![
        (&empty, "a", f.slot("a"), "has no commit yet"),
        (&plain, "b", f.slot("b"), "is not inside a git repository"),
        (&detached, "c", f.slot("c"), "detached HEAD"),
        (
            &f.repo,
            "taken",
            f.slot("taken2"),
            "branch baton/taken already exists",
        ),
        (
            &f.repo,
            "d",
            occupied.clone(),
            "already exists: baton will not put",
        ),
        (
            &f.repo,
            "@",
            f.slot("e"),
            "cannot be made into a git branch name",
        ),
    ];
    for (dir, name, into, want) in cases {
        let before = branches(&f.repo);
        let err = create_worktree(dir, name, &into).unwrap_err().to_string();
        assert!(err.contains(want), "{name}: {err}");
        assert_eq!(branches(&f.repo), before, "{name}");
        assert!(!into.exists() || into == occupied, "{name}");
    }
    let list = git(&f.repo, &["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 2, "{list}");
    assert_eq!(branches(&empty), "");
}

#[test]
fn a_taken_branch_in_a_worktree_suggests_commands_that_free_it() {
    let f = Fixture::new();
    create_worktree(&f.repo, "taken", &f.slot("taken")).unwrap();
    // `git branch -D` alone is refused while the worktree has the branch checked out.
    assert!(!git_output(&f.repo, &["branch", "-D", "baton/taken"])
        .status
        .success());
    let err = create_worktree(&f.repo, "taken", &f.slot("taken2")).unwrap_err();
    assert!(matches!(err, GitError::BranchInWorktree { .. }), "{err}");
    let text = err.to_string();
    let suggested = text
        .rsplit_once('(')
        .and_then(|(_, s)| s.strip_suffix(')'))
        .unwrap();
    for command in suggested.split(" && ") {
        let args: Vec<&str> = command.split(' ').collect();
        assert_eq!(args[0], "git", "{command}");
        git(&f.repo, &args[1..]);
    }
    create_worktree(&f.repo, "taken", &f.slot("taken3")).unwrap();
}

#[test]
fn create_worktree_on_a_read_only_repository_fails_clearly() {
    let f = Fixture::new();
    set_writable(&f.repo, false);
    if chmod_is_ignored(&f.repo.join(".git")) {
        // Running as root: permission bits do not stop writes, so this cannot be simulated.
        set_writable(&f.repo, true);
        return;
    }
    let err = create_worktree(&f.repo, "ro", &f.slot("ro")).unwrap_err();
    set_writable(&f.repo, true);
    assert!(matches!(err, GitError::ReadOnly { .. }), "{err}");
    assert_eq!(branches(&f.repo), "main\n");
}

#[test]
fn two_terminals_never_touch_each_others_files() {
    let f = Fixture::new();
    let a = create_worktree(&f.repo, "a", &f.slot("a")).unwrap();
    let b = create_worktree(&f.repo, "b", &f.slot("b")).unwrap();
    write(&a.path.join("README.md"), "from a\n");
    write(&a.path.join("a.txt"), "a\n");
    write(&b.path.join("b.txt"), "b\n");
    let ca = auto_commit(&a.path, "a's turn\n", &[]).unwrap();
    assert!(ca.is_some());
    assert_eq!(read(&b.path.join("README.md")), "hello\n");
    assert!(!b.path.join("a.txt").exists());
    assert_eq!(status(&b.path), "?? b.txt\n");
    auto_commit(&b.path, "b's turn\n", &[]).unwrap();
    assert_eq!(git(&a.path, &["ls-files"]), "README.md\na.txt\n");
    assert_eq!(git(&b.path, &["ls-files"]), "README.md\nb.txt\n");
    assert_eq!(status(&f.repo), "");
    assert_eq!(read(&f.repo.join("README.md")), "hello\n");
    assert_eq!(git(&f.repo, &["rev-list", "--count", "main"]), "1\n");
}

#[test]
fn locate_follows_git_worktree_move_and_repair() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    assert_eq!(locate(&wt), Located::Here);

    let moved = f.path("elsewhere/api");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    git(
        &f.repo,
        &[
            "worktree",
            "move",
            wt.path.to_str().unwrap(),
            moved.to_str().unwrap(),
        ],
    );
    assert_eq!(locate(&wt), Located::Moved(moved.clone()));
    let wt = Worktree { path: moved, ..wt };
    assert_eq!(locate(&wt), Located::Here);

    // Rename the parent, then tell git (from the main checkout).
    let renamed = f.path("renamed/api");
    fs::rename(f.path("elsewhere"), f.path("renamed")).unwrap();
    assert_eq!(
        locate(&wt),
        Located::Gone,
        "before repair git still has the old path"
    );
    git(&f.repo, &["worktree", "repair", renamed.to_str().unwrap()]);
    assert_eq!(locate(&wt), Located::Moved(renamed.clone()));
    assert_eq!(status(&renamed), "");

    fs::remove_dir_all(&renamed).unwrap();
    let wt = Worktree {
        path: renamed,
        ..wt
    };
    assert_eq!(locate(&wt), Located::Gone);
}

#[test]
fn locate_finds_the_branch_checked_out_by_hand_elsewhere() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    let p = wt.path.to_str().unwrap().to_string();
    git(&f.repo, &["worktree", "remove", &p]);
    let other = f.path("by-hand");
    git(
        &f.repo,
        &["worktree", "add", other.to_str().unwrap(), "baton/api"],
    );
    assert_eq!(locate(&wt), Located::Moved(other));
}

#[test]
fn recreate_brings_a_deleted_worktree_back_from_its_branch() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join("work.txt"), "done\n");
    auto_commit(&wt.path, "work\n", &[]).unwrap();
    fs::remove_dir_all(&wt.path).unwrap();
    assert_eq!(locate(&wt), Located::Gone);

    let into = f.slot("api-2");
    let back = recreate(&wt, &into).unwrap();
    assert_eq!(
        back,
        Worktree {
            path: into.clone(),
            ..wt.clone()
        }
    );
    assert_eq!(read(&into.join("work.txt")), "done\n");
    assert_eq!(status(&into), "");
    let list = git(&f.repo, &["worktree", "list", "--porcelain"]);
    assert!(
        !list.contains(&format!("worktree {}\n", wt.path.display())),
        "{list}"
    );
    assert!(
        list.contains(&format!("worktree {}\n", into.display())),
        "{list}"
    );
    assert_eq!(locate(&back), Located::Here);
    // Still there: recreate changes nothing.
    assert_eq!(recreate(&back, &f.slot("api-3")).unwrap(), back);
    assert!(!f.slot("api-3").exists());
}

#[test]
fn recreate_refuses_a_locked_worktree_and_a_missing_branch() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    git(
        &f.repo,
        &[
            "worktree",
            "lock",
            "--reason",
            "on a usb disk",
            wt.path.to_str().unwrap(),
        ],
    );
    fs::remove_dir_all(&wt.path).unwrap();
    let err = recreate(&wt, &f.slot("new")).unwrap_err();
    assert!(matches!(err, GitError::Locked { .. }), "{err}");
    assert!(err.to_string().contains("on a usb disk"), "{err}");
    assert!(!f.slot("new").exists());

    git(&f.repo, &["worktree", "unlock", wt.path.to_str().unwrap()]);
    git(&f.repo, &["worktree", "prune"]);
    git(&f.repo, &["branch", "-D", "baton/api"]);
    let err = recreate(&wt, &f.slot("new")).unwrap_err();
    assert!(matches!(err, GitError::BranchMissing { .. }), "{err}");
}

#[test]
fn remove_commits_leftovers_keeps_the_branch_and_spares_other_worktrees() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    let other = create_worktree(&f.repo, "other", &f.slot("other")).unwrap();
    write(&other.path.join("mine.txt"), "uncommitted\n");
    write(&wt.path.join("left.txt"), "left over\n");

    let removed = remove(&wt, "Leftovers of api\n", &[], false, false).unwrap();
    let commit = removed.committed.clone().unwrap();
    assert_eq!(
        removed,
        Removed {
            committed: Some(commit.clone()),
            path: Some(wt.path.clone()),
            branch_deleted: false
        }
    );
    assert!(!wt.path.exists());
    assert_eq!(git(&f.repo, &["show", "baton/api:left.txt"]), "left over\n");
    assert_eq!(
        git(&f.repo, &["log", "-1", "--format=%s", "baton/api"]),
        "Leftovers of api\n"
    );
    let list = git(&f.repo, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains("baton/api"), "{list}");
    assert_eq!(read(&other.path.join("mine.txt")), "uncommitted\n");
    assert_eq!(locate(&other), Located::Here);
    git(&f.repo, &["cat-file", "-e", &commit]);
}

#[test]
fn remove_with_delete_branch_refuses_unmerged_work_unless_forced() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join("new.txt"), "work\n");
    let err = remove(&wt, "left\n", &[], true, false).unwrap_err();
    assert!(matches!(err, GitError::Unmerged { .. }), "{err}");
    assert!(wt.path.join("new.txt").exists(), "nothing changed");
    assert_eq!(status(&wt.path), "?? new.txt\n");

    let id = auto_commit(&wt.path, "work\n", &[]).unwrap().unwrap();
    assert!(remove(&wt, "left\n", &[], true, false).is_err());
    merge_squash(&wt, "Merge\n").unwrap();
    let removed = remove(&wt, "left\n", &[], true, false).unwrap();
    assert!(removed.branch_deleted);
    assert_eq!(branches(&f.repo), "main\n");
    git(&f.repo, &["cat-file", "-e", &id]);

    let wt2 = create_worktree(&f.repo, "b", &f.slot("b")).unwrap();
    write(&wt2.path.join("x.txt"), "x\n");
    let forced = remove(&wt2, "left\n", &[], true, true).unwrap();
    let kept = forced.committed.unwrap();
    git(&f.repo, &["cat-file", "-e", &kept]);
    assert_eq!(branches(&f.repo), "main\n");
}

#[test]
fn remove_refuses_a_locked_worktree() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join("x.txt"), "x\n");
    git(&f.repo, &["worktree", "lock", wt.path.to_str().unwrap()]);
    let err = remove(&wt, "left\n", &[], false, false).unwrap_err();
    assert!(
        matches!(err, GitError::Locked { reason: None, .. }),
        "{err}"
    );
    assert_eq!(status(&wt.path), "?? x.txt\n");
}

#[test]
fn remove_of_a_deleted_worktree_prunes_it() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    fs::remove_dir_all(&wt.path).unwrap();
    let removed = remove(&wt, "left\n", &[], false, false).unwrap();
    assert_eq!(removed.path, None);
    assert_eq!(
        git(&f.repo, &["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
    assert_eq!(branches(&f.repo), "baton/api\nmain\n");
}

#[test]
fn create_worktree_from_starts_at_the_commit_when_the_repository_has_it() {
    let f = Fixture::new();
    let first = head_of(&f.repo);
    write(&f.repo.join("later.txt"), "later\n");
    git(&f.repo, &["add", "."]);
    git(&f.repo, &["commit", "-q", "-m", "later"]);
    let head = head_of(&f.repo);
    let missing = "0123456789abcdef0123456789abcdef01234567";
    let cases = [
        ("a", Some(first.as_str()), first.as_str(), true),
        ("b", Some(missing), head.as_str(), false),
        ("c", None, head.as_str(), false),
    ];
    for (name, start, want, found) in cases {
        let (wt, started_there) =
            create_worktree_from(&f.repo, name, &f.slot(name), start).unwrap();
        assert_eq!(
            (wt.base_commit.as_str(), started_there),
            (want, found),
            "{name}"
        );
        assert_eq!(wt.branch, format!("baton/{name}"));
    }
    assert!(commit_exists(&f.repo, &first));
    assert_eq!(resolve_commit(&f.repo, "main"), Some(head.clone()));
    assert_eq!(resolve_commit(&f.repo, "baton/a"), Some(first.clone()));
    assert_eq!(resolve_commit(&f.repo, "origin/nowhere"), None);
    assert!(!commit_exists(&f.repo, missing));
    assert!(check_branch_free_in(&f.repo, "a").is_err());
    assert!(check_branch_free_in(&f.repo, "z").is_ok());
}
