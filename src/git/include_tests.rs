//! `.worktreeinclude` against real repositories: what is copied, what is said.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::super::create_worktree;
use super::super::testutil::*;
use super::*;

#[test]
fn only_ignored_matches_are_copied_with_their_modes_and_each_oddity_is_said() {
    let f = Fixture::new();
    write(
        &f.repo.join(".gitignore"),
        ".env\nnode_modules/\nout-link\nin-link\n",
    );
    write(
        &f.repo.join(INCLUDE_FILE),
        "# what a worktree needs\n.env\nnode_modules/\nREADME.md\nmissing.txt\nout-link\nin-link\n",
    );
    commit_all(&git2::Repository::open(&f.repo).unwrap(), "ignore");
    write(&f.repo.join(".env"), "KEY=1\n");
    fs::set_permissions(f.repo.join(".env"), fs::Permissions::from_mode(0o600)).unwrap();
    write(&f.repo.join("node_modules/a/b.js"), "x\n");
    std::os::unix::fs::symlink("/etc/hostname", f.repo.join("out-link")).unwrap();
    std::os::unix::fs::symlink(".env", f.repo.join("in-link")).unwrap();
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();

    let done = copy_included(&wt);

    let root = f.repo.canonicalize().unwrap();
    assert_eq!(
        done,
        Included {
            copied: [".env", "in-link", "node_modules/a/b.js"]
                .map(PathBuf::from)
                .to_vec(),
            notes: vec![
                format!(".worktreeinclude: pattern \"missing.txt\" matches nothing in {}", root.display()),
                ".worktreeinclude: README.md is not ignored by git, so it was not copied (git carries it already, or add it to .gitignore)".into(),
                ".worktreeinclude: out-link is a symlink out of the repository: not copied".into(),
            ],
        }
    );
    let env = wt.path.join(".env");
    assert_eq!(read(&env), "KEY=1\n");
    assert_eq!(
        fs::metadata(&env).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        fs::read_link(wt.path.join("in-link")).unwrap(),
        PathBuf::from(".env")
    );
    assert_eq!(read(&wt.path.join("node_modules/a/b.js")), "x\n");
    assert_eq!(status(&wt.path), "", "what is copied stays ignored");
}

#[test]
fn no_file_copies_nothing_and_says_nothing() {
    let f = Fixture::new();
    write(&f.repo.join(".env"), "KEY=1\n");
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    assert_eq!(copy_included(&wt), Included::default());
}

#[test]
fn a_copy_that_fails_leaves_nothing_of_itself() {
    // `conf` is a file in HEAD (so in the new worktree) but a folder of ignored files in the
    // main checkout: `a/x.txt` is copied, then `conf/b.txt` cannot be (ENOTDIR, even as root).
    let f = Fixture::new();
    write(&f.repo.join(".gitignore"), "a/\nconf/\n");
    write(&f.repo.join(INCLUDE_FILE), "a/\nconf/\n");
    write(&f.repo.join("conf"), "tracked\n");
    commit_all(&git2::Repository::open(&f.repo).unwrap(), "ignore");
    fs::remove_file(f.repo.join("conf")).unwrap();
    write(&f.repo.join("a/x.txt"), "a\n");
    write(&f.repo.join("conf/b.txt"), "b\n");
    let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
    let done = copy_included(&wt);
    assert!(done.copied.is_empty(), "{done:?}");
    assert_eq!(done.notes.len(), 1, "{done:?}");
    assert!(done.notes[0].contains("cannot copy conf/b.txt"), "{done:?}");
    assert!(!wt.path.join("a").exists(), "the half copy was removed");
}
