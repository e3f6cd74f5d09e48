use std::path::Path;

use git2::Repository;
use pretty_assertions::assert_eq;

use super::*;
use crate::git::testutil::{commit_all, git, git_output, read, repo_with_commit, write};

/// A branch `name` from `main`'s tip with `files` written and committed; its tip.
fn branch_with(repo: &Repository, dir: &Path, name: &str, files: &[(&str, &str)]) -> String {
    git(dir, &["checkout", "-q", "-b", name, "main"]);
    for (f, text) in files {
        write(&dir.join(f), text);
    }
    let tip = commit_all(repo, name).to_string();
    git(dir, &["checkout", "-q", "main"]);
    tip
}

const TEN: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

#[test]
fn pairwise_conflicts_are_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    let repo = repo_with_commit(&dir);
    write(&dir.join("lines.txt"), TEN);
    commit_all(&repo, "lines");
    let top = branch_with(
        &repo,
        &dir,
        "top",
        &[("lines.txt", &TEN.replace("2\n", "two\n"))],
    );
    let bottom = branch_with(
        &repo,
        &dir,
        "bottom",
        &[("lines.txt", &TEN.replace("9\n", "nine\n"))],
    );
    let other = branch_with(&repo, &dir, "other", &[("other.txt", "x\n")]);
    let add_a = branch_with(&repo, &dir, "add-a", &[("new.txt", "a\n")]);
    let add_b = branch_with(&repo, &dir, "add-b", &[("new.txt", "b\n")]);
    let add_same = branch_with(&repo, &dir, "add-same", &[("new.txt", "a\n")]);
    let both = branch_with(
        &repo,
        &dir,
        "both",
        &[("lines.txt", &TEN.replace("2\n", "deux\n"))],
    );
    let lane = Integration::open(&dir).unwrap();
    let none: Vec<String> = Vec::new();
    // (a, b, conflicting paths)
    let rows = [
        (&top, &bottom, none.clone()),
        (&top, &other, none.clone()),
        (&add_a, &add_same, none.clone()),
        (&add_a, &add_b, vec!["new.txt".to_string()]),
        (&top, &both, vec!["lines.txt".to_string()]),
    ];
    for (a, b, want) in rows {
        assert_eq!(lane.conflicts(a, b).unwrap(), want, "{a} {b}");
        assert_eq!(lane.conflicts(b, a).unwrap(), want, "{b} {a}");
    }
}

#[test]
fn merges_chain_into_commits_no_ref_points_to() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    let repo = repo_with_commit(&dir);
    let base = lane_tip(&dir);
    let a = branch_with(&repo, &dir, "a", &[("a.txt", "a\n")]);
    let b = branch_with(&repo, &dir, "b", &[("b.txt", "b\n")]);
    let c = branch_with(&repo, &dir, "c", &[("a.txt", "c\n")]);
    let refs = git(&dir, &["show-ref"]);
    let lane = Integration::open(&dir).unwrap();
    let Step::Clean(one) = lane.merge(&base, &a).unwrap() else {
        panic!("a merges")
    };
    let Step::Clean(two) = lane.merge(&one, &b).unwrap() else {
        panic!("b merges")
    };
    assert_eq!(
        lane.merge(&two, &c).unwrap(),
        Step::Conflicts(vec!["a.txt".into()])
    );
    // A branch already in the lane brings nothing: the lane stays as it was.
    assert_eq!(lane.merge(&two, &a).unwrap(), Step::Clean(two.clone()));
    assert_eq!(
        git(&dir, &["ls-tree", "--name-only", &two]),
        "README.md\na.txt\nb.txt\n"
    );
    assert_eq!(git(&dir, &["show-ref"]), refs, "no ref moved or appeared");
    assert_eq!(lane.tip("a"), Some(a));
    assert_eq!(lane.tip("gone"), None);
}

fn lane_tip(dir: &Path) -> String {
    git(dir, &["rev-parse", "main"]).trim().to_string()
}

#[test]
fn the_lane_worktree_is_detached_reused_and_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    let repo = repo_with_commit(&dir);
    let base = lane_tip(&dir);
    let a = branch_with(&repo, &dir, "a", &[("a.txt", "a\n")]);
    let into = tmp.path().join("lanes").join("r-1234");
    let refs = git(&dir, &["show-ref"]);
    check_out_lane(&dir, &into, &a).unwrap();
    assert_eq!(read(&into.join("a.txt")), "a\n");
    assert_eq!(git(&into, &["rev-parse", "HEAD"]).trim(), a);
    let on_branch = git_output(&into, &["symbolic-ref", "-q", "HEAD"])
        .status
        .success();
    assert!(!on_branch, "detached");
    assert_eq!(git(&dir, &["show-ref"]), refs, "no branch left behind");
    // Reused: an untracked file goes, an ignored one stays, the commit's files are put back.
    write(&into.join("stray.txt"), "x\n");
    std::fs::create_dir_all(into.join("target")).unwrap();
    let exclude = dir.join(".git/info/exclude");
    write(&exclude, "target/\n");
    write(&into.join("target/out"), "built\n");
    check_out_lane(&dir, &into, &base).unwrap();
    assert!(!into.join("a.txt").exists() && !into.join("stray.txt").exists());
    assert_eq!(read(&into.join("target/out")), "built\n");
    assert_eq!(git(&into, &["rev-parse", "HEAD"]).trim(), base);
    // Deleted by hand: made again.
    std::fs::remove_dir_all(&into).unwrap();
    check_out_lane(&dir, &into, &a).unwrap();
    assert_eq!(read(&into.join("a.txt")), "a\n");
    remove_lane(&dir, &into).unwrap();
    assert!(!into.exists());
    let list = git(&dir, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains("r-1234"), "{list}");
    assert_eq!(git(&dir, &["show-ref"]), refs);
}
