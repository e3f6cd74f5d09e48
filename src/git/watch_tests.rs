//! Watcher tests: real file-system events, waited for with deadlines.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;

use super::super::testutil::*;
use super::super::{create_worktree, inspect, locate, Located, RepoState};
use super::*;

const QUIET: Duration = Duration::from_millis(100);
const DEADLINE: Duration = Duration::from_secs(10);

/// Waits for `key` to be reported, failing after the deadline.
fn wait_for(rx: &Receiver<PathBuf>, key: &Path) {
    let end = Instant::now() + DEADLINE;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(k) if k == key => return,
            Ok(_) => continue,
            Err(e) => panic!("no report for {} ({e})", key.display()),
        }
    }
}

/// Everything reported within `window`.
fn drain(rx: &Receiver<PathBuf>, window: Duration) -> Vec<PathBuf> {
    let end = Instant::now() + window;
    let mut out = Vec::new();
    while let Ok(k) = rx.recv_timeout(end.saturating_duration_since(Instant::now())) {
        out.push(k);
    }
    out
}

#[test]
fn a_folder_is_reported_on_git_init_and_on_its_first_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("proj");
    write(&folder.join("a.txt"), "a\n");
    let (tx, rx) = mpsc::channel();
    let watch = Watch::new(tx, QUIET).unwrap();
    watch.add_folder(&folder).unwrap();

    git(&folder, &["init", "-q", "-b", "main"]);
    wait_for(&rx, &folder);
    assert!(matches!(
        inspect(&folder).unwrap(),
        RepoState::NoCommit { .. }
    ));
    drain(&rx, QUIET * 3);

    // The first commit only touches files inside .git: seen because .git is watched now.
    git(&folder, &["add", "a.txt"]);
    git(&folder, &["commit", "-q", "-m", "init"]);
    wait_for(&rx, &folder);
    let end = Instant::now() + DEADLINE;
    while !matches!(inspect(&folder).unwrap(), RepoState::Branch { .. }) {
        assert!(
            Instant::now() < end,
            "never became a repository with a commit"
        );
        drain(&rx, QUIET);
    }
}

#[test]
fn bursts_of_events_are_reported_once_settled() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("busy");
    fs::create_dir_all(&folder).unwrap();
    let (tx, rx) = mpsc::channel();
    let watch = Watch::new(tx, QUIET).unwrap();
    watch.add_folder(&folder).unwrap();
    for i in 0..50 {
        write(&folder.join(format!("f{i}.txt")), "x");
    }
    wait_for(&rx, &folder);
    let more = drain(&rx, QUIET * 5);
    assert!(
        more.len() <= 2,
        "50 writes gave {} more reports",
        more.len()
    );
}

#[test]
fn a_moved_or_deleted_worktree_is_reported() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    let (tx, rx) = mpsc::channel();
    let watch = Watch::new(tx, QUIET).unwrap();
    watch.add_worktree(&wt).unwrap();

    let moved = f.path("moved-api");
    git(
        &f.repo,
        &[
            "worktree",
            "move",
            wt.path.to_str().unwrap(),
            moved.to_str().unwrap(),
        ],
    );
    wait_for(&rx, &wt.path);
    assert_eq!(locate(&wt), Located::Moved(moved.clone()));

    let wt = Worktree { path: moved, ..wt };
    watch.remove(&f.slot("api"));
    watch.add_worktree(&wt).unwrap();
    drain(&rx, QUIET * 3);
    fs::remove_dir_all(&wt.path).unwrap();
    wait_for(&rx, &wt.path);
    assert_eq!(locate(&wt), Located::Gone);
}

#[test]
fn removed_keys_are_no_longer_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    fs::create_dir_all(&a).unwrap();
    fs::create_dir_all(&b).unwrap();
    let (tx, rx) = mpsc::channel();
    let watch = Watch::new(tx, QUIET).unwrap();
    watch.add_folder(&a).unwrap();
    watch.add_folder(&b).unwrap();
    watch.remove(&a);
    write(&a.join("x"), "x");
    write(&b.join("y"), "y");
    wait_for(&rx, &b);
    assert_eq!(drain(&rx, QUIET * 5), Vec::<PathBuf>::new());
    drop(watch);
}

#[test]
fn adding_a_missing_folder_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (tx, _rx) = mpsc::channel();
    let watch = Watch::new(tx, QUIET).unwrap();
    let err = watch.add_folder(&tmp.path().join("nope")).unwrap_err();
    assert!(err.to_string().contains("cannot watch"), "{err}");
}
