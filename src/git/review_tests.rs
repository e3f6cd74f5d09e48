//! Diff, squash-merge and revert tests against real repositories, checked with git.

use pretty_assertions::assert_eq;

use super::super::testutil::*;
use super::super::{auto_commit, create_worktree, squash_message, subjects_since};
use super::*;

/// A repository with a terminal `api` that made two turns: a.txt created, then changed.
fn two_turns() -> (Fixture, Worktree, Vec<String>) {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    write(&wt.path.join("a.txt"), "one\n");
    let c1 = auto_commit(&wt.path, "Create a\n", &[]).unwrap().unwrap();
    write(&wt.path.join("a.txt"), "one\ntwo\n");
    write(&wt.path.join("b.txt"), "b\n");
    let c2 = auto_commit(&wt.path, "Grow a, add b\n", &[])
        .unwrap()
        .unwrap();
    (f, wt, vec![c1, c2])
}

fn rev(dir: &std::path::Path, what: &str) -> String {
    git(dir, &["rev-parse", what]).trim().to_string()
}

#[test]
fn diff_shows_the_branch_against_where_it_started() {
    let (f, wt, _) = two_turns();
    let stat = diff(&wt, false).unwrap().text;
    assert!(stat.contains("a.txt | 2 ++"), "{stat}");
    assert!(stat.contains("2 files changed, 3 insertions(+)"), "{stat}");
    assert!(stat.contains("create mode 100644 b.txt"), "{stat}");
    let patch = diff(&wt, true).unwrap().text;
    let git_patch = git(&f.repo, &["diff", &wt.base_commit, "baton/api"]);
    assert!(
        patch.contains("+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"),
        "{patch}"
    );
    let strip = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !l.starts_with("index "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(strip(&patch), strip(&git_patch));
}

#[test]
fn diff_mentions_uncommitted_files_and_is_empty_without_work() {
    let f = Fixture::new();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    assert_eq!(diff(&wt, false).unwrap().text, "");
    write(&wt.path.join("wip.txt"), "x\n");
    assert_eq!(
        diff(&wt, true).unwrap().text,
        "(1 file with uncommitted changes not shown: they are committed after the next turn)\n"
    );
}

#[test]
fn merge_squash_lands_the_branch_as_one_commit_in_the_base_checkout() {
    let (f, wt, _) = two_turns();
    let before = rev(&f.repo, "main");
    assert!(!diff(&wt, false).unwrap().merged);
    let message = squash_message(&wt.branch, &subjects_since(&wt).unwrap());
    let id = merge_squash(&wt, &message).unwrap();
    assert_eq!(rev(&f.repo, "main"), id);
    assert_eq!(rev(&f.repo, "main~1"), before);
    assert_eq!(
        git(&f.repo, &["log", "-1", "--format=%B", "main"]),
        format!(
            "Merge baton/api (squashed)\n\n- Create a\n- Grow a, add b\n\nBaton-Squashed: {}\n\n",
            rev(&f.repo, "baton/api")
        )
    );
    assert_eq!(read(&f.repo.join("a.txt")), "one\ntwo\n");
    assert_eq!(status(&f.repo), "");
    assert_eq!(git(&f.repo, &["diff", "main", "baton/api"]), "");
    let left = diff(&wt, true).unwrap();
    assert_eq!((left.text.as_str(), left.merged), ("", true));
    assert_eq!(left.since, rev(&f.repo, "baton/api"));

    let err = merge_squash(&wt, "again\n").unwrap_err();
    assert!(matches!(err, GitError::NothingToMerge { .. }), "{err}");

    // More work after a squash merge merges cleanly again.
    write(&wt.path.join("a.txt"), "one\ntwo\nthree\n");
    std::fs::remove_file(wt.path.join("b.txt")).unwrap();
    auto_commit(&wt.path, "Third\n", &[]).unwrap().unwrap();
    // Only what is new since the first merge: its diff and the squash message's subjects.
    assert_eq!(subjects_since(&wt).unwrap(), vec!["Third".to_string()]);
    let stat = diff(&wt, false).unwrap().text;
    assert!(stat.contains("a.txt") && stat.contains("b.txt"), "{stat}");
    merge_squash(&wt, "second merge\n").unwrap();
    assert_eq!(diff(&wt, false).unwrap().text, "");
    assert_eq!(read(&f.repo.join("a.txt")), "one\ntwo\nthree\n");
    assert!(!f.repo.join("b.txt").exists());
    assert_eq!(status(&f.repo), "");
}

#[test]
fn a_fork_never_merged_is_diffed_against_its_merge_base_not_a_merge() {
    let (f, wt, commits) = two_turns();
    let fork = super::super::create_worktree_at(&wt, "fork", &f.slot("fork"), &commits[1]).unwrap();
    let found = diff(&fork, false).unwrap();
    assert_eq!(found.since, wt.base_commit);
    assert_ne!(found.since, fork.base_commit);
    assert!(!found.merged);
}

#[test]
fn merge_squash_refuses_a_dirty_base_checkout_and_changes_nothing() {
    let (f, wt, _) = two_turns();
    write(&f.repo.join("README.md"), "local edit\n");
    let before = rev(&f.repo, "main");
    let err = merge_squash(&wt, "m\n").unwrap_err();
    assert!(matches!(err, GitError::Dirty { .. }), "{err}");
    assert!(err.to_string().contains("README.md"), "{err}");
    assert_eq!(rev(&f.repo, "main"), before);
    assert_eq!(status(&f.repo), " M README.md\n");
    assert!(!f.repo.join("a.txt").exists());
}

#[test]
fn merge_squash_refuses_untracked_files_in_the_way_unless_identical() {
    let (f, wt, _) = two_turns();
    write(&f.repo.join("b.txt"), "different\n");
    let err = merge_squash(&wt, "m\n").unwrap_err();
    assert!(
        matches!(err, GitError::Dirty { ref files, .. } if files == &["b.txt"]),
        "{err}"
    );
    assert_eq!(read(&f.repo.join("b.txt")), "different\n");

    write(&f.repo.join("b.txt"), "b\n");
    write(&f.repo.join("a.txt"), "one\ntwo\n");
    merge_squash(&wt, "m\n").unwrap();
    assert_eq!(status(&f.repo), "");
}

#[test]
fn merge_squash_refuses_conflicts_and_changes_nothing() {
    let (f, wt, _) = two_turns();
    let repo = git2::Repository::open(&f.repo).unwrap();
    write(&f.repo.join("a.txt"), "main's own a\n");
    commit_all(&repo, "main adds a");
    let before = rev(&f.repo, "main");
    let err = merge_squash(&wt, "m\n").unwrap_err();
    assert!(
        matches!(err, GitError::Conflict { ref files, .. } if files == &["a.txt"]),
        "{err}"
    );
    assert_eq!(rev(&f.repo, "main"), before);
    assert_eq!(status(&f.repo), "");
    assert_eq!(read(&f.repo.join("a.txt")), "main's own a\n");
}

#[test]
fn merge_squash_into_a_base_branch_nobody_has_checked_out_moves_only_the_ref() {
    let (f, wt, _) = two_turns();
    git(&f.repo, &["switch", "-q", "-c", "other"]);
    let id = merge_squash(&wt, "m\n").unwrap();
    assert_eq!(rev(&f.repo, "main"), id);
    assert!(!f.repo.join("a.txt").exists());
    assert_eq!(status(&f.repo), "");
}

#[test]
fn the_squash_trailer_joins_an_existing_trailer_paragraph() {
    let rows = [
        ("Subject\n", "Subject\n\nK: v\n"),
        ("Subject\n\nBody text\n", "Subject\n\nBody text\n\nK: v\n"),
        (
            "Subject\n\nOther-Key: x\n",
            "Subject\n\nOther-Key: x\nK: v\n",
        ),
        ("", "K: v\n"),
    ];
    for (message, want) in rows {
        assert_eq!(with_trailer(message, "K", "v"), want, "{message:?}");
    }
}

#[test]
fn revert_undoes_one_turn_on_the_branch() {
    let (f, wt, ids) = two_turns();
    let id = revert(&wt, &ids[1]).unwrap();
    assert_eq!(rev(&wt.path, "HEAD"), id);
    assert_eq!(rev(&f.repo, "baton/api"), id);
    assert_eq!(read(&wt.path.join("a.txt")), "one\n");
    assert!(!wt.path.join("b.txt").exists());
    assert_eq!(status(&wt.path), "");
    assert_eq!(
        git(&f.repo, &["log", "-1", "--format=%B", &id]),
        format!(
            "Revert \"Grow a, add b\"\n\nThis reverts commit {}.\n\n",
            ids[1]
        )
    );
    let err = revert(&wt, &ids[1]).unwrap_err();
    assert!(matches!(err, GitError::NothingToRevert { .. }), "{err}");
    assert_eq!(status(&f.repo), "");
}

#[test]
fn revert_refuses_foreign_commits_conflicts_and_a_dirty_worktree() {
    let (f, wt, ids) = two_turns();
    let before = rev(&f.repo, "baton/api");
    for foreign in [wt.base_commit.as_str(), "main", "no-such-commit"] {
        let err = revert(&wt, foreign).unwrap_err();
        assert!(
            matches!(err, GitError::NotOnBranch { .. }),
            "{foreign}: {err}"
        );
    }
    let err = revert(&wt, &ids[0]).unwrap_err();
    assert!(matches!(err, GitError::Conflict { .. }), "{err}");
    write(&wt.path.join("b.txt"), "edited by hand\n");
    let err = revert(&wt, &ids[1]).unwrap_err();
    assert!(matches!(err, GitError::Dirty { .. }), "{err}");
    assert_eq!(rev(&f.repo, "baton/api"), before);
    assert_eq!(read(&wt.path.join("b.txt")), "edited by hand\n");
}
