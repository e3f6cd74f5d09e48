//! Lock files a cut-short commit leaves, against real repositories: found, cleared, and the
//! worktree left as plain git sees a clean one; the user's own locks never touched.

use std::fs;

use pretty_assertions::assert_eq;

use super::super::testutil::*;
use super::super::{auto_commit, create_worktree};
use super::*;

fn git_dir(wt: &Worktree) -> PathBuf {
    super::linked_git_dir(wt).unwrap()
}

#[test]
fn a_branch_lock_left_by_a_cut_short_commit_is_cleared_and_the_next_commit_works() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    let lock = f.repo.join(".git/refs/heads/baton/api.lock");
    fs::write(&lock, "").unwrap();
    write(&wt.path.join("a.txt"), "a\n");
    assert!(auto_commit(&wt.path, "one\n", &[]).is_err(), "git refuses");
    assert_eq!(left_locks(&wt), vec![lock.clone()]);
    assert_eq!(clear_left_locks(&wt).unwrap(), vec![lock.clone()]);
    assert!(!lock.exists());
    assert_eq!(left_locks(&wt), Vec::<PathBuf>::new());
    let id = auto_commit(&wt.path, "one\n", &[]).unwrap().unwrap();
    assert_eq!(
        git(&wt.path, &["show", "--name-only", "--format=", &id]),
        "a.txt\n"
    );
}

#[test]
fn an_index_lock_left_after_head_moved_is_cleared_and_the_worktree_is_clean() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    let index = git_dir(&wt).join("index");
    let before = fs::read(&index).unwrap();
    write(&wt.path.join("a.txt"), "a\n");
    write(&wt.path.join("README.md"), "changed\n");
    auto_commit(&wt.path, "one\n", &[]).unwrap().unwrap();
    // What a kill inside the index write leaves: HEAD moved, the old index, its lock.
    fs::write(&index, before).unwrap();
    fs::write(git_dir(&wt).join("index.lock"), "").unwrap();
    assert_ne!(status(&wt.path), "");
    let cleared = clear_left_locks(&wt).unwrap();
    assert_eq!(cleared, [git_dir(&wt).join("index.lock")]);
    assert_eq!(status(&wt.path), "", "as clean as after a whole commit");
    write(&wt.path.join("b.txt"), "b\n");
    let id = auto_commit(&wt.path, "two\n", &[]).unwrap().unwrap();
    assert_eq!(
        git(&wt.path, &["show", "--name-only", "--format=", &id]),
        "b.txt\n"
    );
}

#[test]
fn settling_the_index_keeps_what_was_staged_by_hand() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join("c.txt"), "c\n");
    git(&wt.path, &["add", "c.txt"]);
    fs::write(git_dir(&wt).join("index.lock"), "").unwrap();
    clear_left_locks(&wt).unwrap();
    assert_eq!(status(&wt.path), "A  c.txt\n");
}

#[test]
fn the_main_checkouts_locks_and_other_branches_are_never_baton_s() {
    let f = Fixture::new();
    let mine = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    fs::write(f.repo.join(".git/index.lock"), "").unwrap();
    fs::write(f.repo.join(".git/refs/heads/main.lock"), "").unwrap();
    let main = Worktree {
        path: f.repo.clone(),
        branch: "main".into(),
        ..mine.clone()
    };
    assert_eq!(left_locks(&main), Vec::<PathBuf>::new());
    assert_eq!(clear_left_locks(&main).unwrap(), Vec::<PathBuf>::new());
    assert!(f.repo.join(".git/index.lock").exists());
    // A crafted journal's branch cannot point anywhere else.
    let climbing = Worktree {
        branch: "baton/../main".into(),
        ..mine.clone()
    };
    assert_eq!(left_locks(&climbing), Vec::<PathBuf>::new());
    assert_eq!(left_locks(&mine), Vec::<PathBuf>::new());
}
