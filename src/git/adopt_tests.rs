//! Tests of a plain folder moving into a worktree once it became a repository.

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::super::testutil::*;
use super::super::worktree::discard_new;
use super::super::{auto_commit, locate, merge_squash, Located};
use super::*;

/// A plain folder the agent wrote into, then `git init` and a commit of only some files.
fn folder_with_partial_commit(tmp: &Path) -> PathBuf {
    let folder = tmp.join("proj");
    write(&folder.join("a.txt"), "a v1\n");
    write(&folder.join(".gitignore"), "build/\n");
    write(&folder.join("b.txt"), "agent wrote b\n");
    write(&folder.join("notes/c.txt"), "agent wrote c\n");
    write(&folder.join("build/out.bin"), "ignored\n");
    write(&folder.join("gone.txt"), "to be deleted\n");
    git(&folder, &["init", "-q", "-b", "main"]);
    git(&folder, &["add", "a.txt", ".gitignore", "gone.txt"]);
    git(&folder, &["commit", "-q", "-m", "init"]);
    write(&folder.join("a.txt"), "a v2, not committed\n");
    fs::remove_file(folder.join("gone.txt")).unwrap();
    folder
}

#[test]
fn uncommitted_work_comes_along_and_the_originals_stay() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = folder_with_partial_commit(tmp.path());
    let into = tmp.path().join("data/wt/proj");
    let adopted = adopt_folder(&folder, "proj", &into).unwrap();
    let p = |s: &str| PathBuf::from(s);
    assert_eq!(
        adopted.carried,
        vec![p("a.txt"), p("b.txt"), p("gone.txt"), p("notes/c.txt")]
    );
    assert_eq!(adopted.dir, into);
    assert_eq!(adopted.worktree.path, into);
    assert_eq!(adopted.worktree.branch, "baton/proj");
    assert_eq!(locate(&adopted.worktree), Located::Here);

    assert_eq!(read(&into.join("a.txt")), "a v2, not committed\n");
    assert_eq!(read(&into.join("b.txt")), "agent wrote b\n");
    assert_eq!(read(&into.join("notes/c.txt")), "agent wrote c\n");
    assert!(!into.join("gone.txt").exists());
    assert!(
        !into.join("build").exists(),
        "ignored files stay in the folder"
    );
    // Nothing hidden: the folder is exactly as the user left it.
    assert_eq!(read(&folder.join("b.txt")), "agent wrote b\n");
    assert_eq!(read(&folder.join("a.txt")), "a v2, not committed\n");
    assert!(folder.join("build/out.bin").exists());
    assert_eq!(
        status(&folder),
        " M a.txt\n D gone.txt\n?? b.txt\n?? notes/\n"
    );

    // The carried work is uncommitted in the worktree until the next automatic commit.
    assert_eq!(
        status(&into),
        " M a.txt\n D gone.txt\n?? b.txt\n?? notes/\n"
    );
    let id = auto_commit(&into, "next turn\n", &[]).unwrap().unwrap();
    let files = git(&into, &["show", "--name-status", "--format=", &id]);
    assert_eq!(files, "M\ta.txt\nA\tb.txt\nD\tgone.txt\nA\tnotes/c.txt\n");
}

#[test]
fn a_subfolder_of_the_new_repository_runs_in_the_same_subfolder() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("mono");
    let folder = root.join("svc");
    write(&folder.join("main.py"), "print(1)\n");
    write(&root.join("other/x.txt"), "not the terminal's\n");
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["commit", "-q", "--allow-empty", "-m", "init"]);
    let into = tmp.path().join("wt");
    let adopted = adopt_folder(&folder, "svc", &into).unwrap();
    assert_eq!(adopted.dir, into.join("svc"));
    assert_eq!(adopted.carried, vec![PathBuf::from("svc/main.py")]);
    assert_eq!(read(&into.join("svc/main.py")), "print(1)\n");
    assert!(!into.join("other").exists());
}

#[test]
fn symlinks_and_executable_bits_are_kept() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("p");
    write(&folder.join("run.sh"), "#!/bin/sh\n");
    fs::set_permissions(folder.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("run.sh", folder.join("link")).unwrap();
    git(&folder, &["init", "-q", "-b", "main"]);
    git(&folder, &["commit", "-q", "--allow-empty", "-m", "init"]);
    let into = tmp.path().join("wt");
    adopt_folder(&folder, "p", &into).unwrap();
    let mode = fs::metadata(into.join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111);
    assert_eq!(
        fs::read_link(into.join("link")).unwrap(),
        PathBuf::from("run.sh")
    );
}

#[test]
fn the_move_waits_while_git_is_busy_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = folder_with_partial_commit(tmp.path());
    let into = tmp.path().join("wt");
    let gitdir = folder.join(".git");
    let head = git(&folder, &["rev-parse", "HEAD"]);
    for (file, want) in [
        ("MERGE_HEAD", "a merge is in progress"),
        ("index.lock", "a git command is running"),
    ] {
        fs::write(gitdir.join(file), &head).unwrap();
        let err = adopt_folder(&folder, "proj", &into).unwrap_err();
        assert!(matches!(err, GitError::Busy { .. }), "{err}");
        assert!(err.to_string().contains(want), "{err}");
        fs::remove_file(gitdir.join(file)).unwrap();
        assert!(!into.exists());
        assert_eq!(
            git(&folder, &["branch", "--list", "--format=%(refname:short)"]),
            "main\n"
        );
    }
    assert!(adopt_folder(&folder, "proj", &into).is_ok());
}

#[test]
fn the_move_waits_for_a_first_commit_or_a_branch() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("p");
    write(&folder.join("a.txt"), "a\n");
    let into = tmp.path().join("wt");
    let err = adopt_folder(&folder, "p", &into).unwrap_err();
    assert!(matches!(err, GitError::NotRepo { .. }), "{err}");
    git(&folder, &["init", "-q", "-b", "main"]);
    let err = adopt_folder(&folder, "p", &into).unwrap_err();
    assert!(matches!(err, GitError::NoCommit { .. }), "{err}");
    git(&folder, &["commit", "-q", "--allow-empty", "-m", "init"]);
    git(&folder, &["checkout", "-q", "--detach"]);
    let err = adopt_folder(&folder, "p", &into).unwrap_err();
    assert!(matches!(err, GitError::Detached { .. }), "{err}");
    assert!(!into.exists());
}

#[test]
fn discard_new_undoes_a_fresh_worktree_entirely() {
    let f = Fixture::new();
    let wt = crate::git::create_worktree(&f.repo, "x", &f.slot("x")).unwrap();
    discard_new(&wt);
    assert!(!wt.path.exists());
    assert_eq!(
        git(&f.repo, &["branch", "--list", "--format=%(refname:short)"]),
        "main\n"
    );
    let list = git(&f.repo, &["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 1, "{list}");
}

#[test]
fn carried_files_merge_back_over_their_identical_originals() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("p");
    write(&folder.join("agent.txt"), "written before git init\n");
    git(&folder, &["init", "-q", "-b", "main"]);
    git(&folder, &["commit", "-q", "--allow-empty", "-m", "init"]);
    let adopted = adopt_folder(&folder, "p", &tmp.path().join("wt")).unwrap();
    auto_commit(&adopted.dir, "turn\n", &[]).unwrap().unwrap();
    merge_squash(&adopted.worktree, "land\n").unwrap();
    assert_eq!(status(&folder), "");
    assert_eq!(git(&folder, &["ls-files"]), "agent.txt\n");
}
