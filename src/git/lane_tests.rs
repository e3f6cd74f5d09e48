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

/// A branch `name` from `main`'s tip where `write` are written and `delete` deleted; its tip.
fn branch_of(dir: &Path, name: &str, write_: &[(&str, &str)], delete: &[&str]) -> String {
    git(dir, &["checkout", "-q", "-b", name, "main"]);
    for (f, text) in write_ {
        write(&dir.join(f), text);
    }
    for f in delete {
        std::fs::remove_file(dir.join(f)).unwrap();
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", name]);
    let tip = git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    git(dir, &["checkout", "-q", "main"]);
    tip
}

#[test]
fn skipping_apart_pairs_keeps_the_pairwise_answers_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    let repo = repo_with_commit(&dir);
    write(&dir.join("lines.txt"), TEN);
    write(&dir.join("sub/a.txt"), "a\n");
    write(&dir.join("sub/b.txt"), "b\n");
    write(&dir.join("gone.txt"), TEN);
    commit_all(&repo, "files");
    let branches = [
        branch_of(&dir, "file-d", &[("d", "file\n")], &[]),
        branch_of(&dir, "folder-d", &[("d/x", "in a folder\n")], &[]),
        branch_of(&dir, "sub-a", &[("sub/a.txt", "A\n")], &[]),
        branch_of(&dir, "sub-b", &[("sub/b.txt", "B\n")], &[]),
        branch_of(&dir, "sub-gone", &[], &["sub/a.txt", "sub/b.txt"]),
        branch_of(&dir, "sub-new", &[("sub/c.txt", "c\n")], &[]),
        branch_of(&dir, "delete", &[], &["gone.txt"]),
        branch_of(
            &dir,
            "edit",
            &[("gone.txt", &TEN.replace("5\n", "five\n"))],
            &[],
        ),
        branch_of(&dir, "rename", &[("moved.txt", TEN)], &["lines.txt"]),
        branch_of(
            &dir,
            "lines",
            &[("lines.txt", &TEN.replace("2\n", "two\n"))],
            &[],
        ),
    ];
    let lane = Integration::open(&dir).unwrap();
    let (mut skipped, mut conflicting) = (0, 0);
    for (i, a) in branches.iter().enumerate() {
        for b in &branches[i + 1..] {
            let (x, y) = (oid(a).unwrap(), oid(b).unwrap());
            let full = match merged_tree(&repo, x, y).unwrap() {
                Merged::Clean(_) => Vec::new(),
                Merged::Conflicts(files) => files,
            };
            assert_eq!(lane.conflicts(a, b).unwrap(), full, "{a} {b}");
            let ancestor = merge_ancestor(&repo, x, y).unwrap();
            let apart = lane
                .touched(ancestor, x)
                .unwrap()
                .disjoint(&lane.touched(ancestor, y).unwrap());
            skipped += usize::from(apart);
            conflicting += usize::from(!full.is_empty());
            assert!(!apart || full.is_empty(), "{a} {b}: skipped a conflict");
        }
    }
    // file d against folder d/, and each deletion against an edit of what it deleted.
    assert_eq!(conflicting, 4);
    assert!(skipped >= 30, "{skipped} of 45 pairs skipped");
}

#[test]
fn what_a_side_touched_is_apart_only_when_no_path_or_folder_meets() {
    let of = |paths: &[&str]| Touched::of(paths.iter().map(|p| p.to_string()));
    // (one side, the other, apart)
    let rows: [(&[&str], &[&str], bool); 7] = [
        (&["a.txt"], &["b.txt"], true),
        (&["a.txt"], &["a.txt"], false),
        (&["d"], &["d/x"], false),
        (&["d/x"], &["d"], false),
        (&["d/e/x"], &["d"], false),
        (&["d/x"], &["d/y"], true),
        (&[], &["d"], true),
    ];
    for (a, b, want) in rows {
        assert_eq!(of(a).disjoint(&of(b)), want, "{a:?} {b:?}");
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
