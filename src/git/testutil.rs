//! Test helpers: real repositories in temp dirs, and the git command line to check that
//! plain git agrees with what baton did (tests only; the library never runs git).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use git2::{Repository, RepositoryInitOptions, Signature};

/// A repository at `dir` on branch `main` with one commit holding README.md, and a local
/// identity so commits do not depend on the machine's global git config.
pub fn repo_with_commit(dir: &Path) -> Repository {
    let repo = empty_repo(dir);
    write(&dir.join("README.md"), "hello\n");
    commit_all(&repo, "initial");
    repo
}

/// A repository at `dir` on branch `main` with no commit.
pub fn empty_repo(dir: &Path) -> Repository {
    fs::create_dir_all(dir).unwrap();
    let mut opts = RepositoryInitOptions::new();
    opts.initial_head("main");
    let repo = Repository::init_opts(dir, &opts).unwrap();
    {
        let mut cfg = repo.config().unwrap();
        cfg.set_str("user.name", "Test User").unwrap();
        cfg.set_str("user.email", "test@example.com").unwrap();
    }
    repo
}

/// Stages everything and commits on HEAD, like `git add -A && git commit`.
pub fn commit_all(repo: &Repository, message: &str) -> git2::Oid {
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.update_all(["*"], None).unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = Signature::now("Test User", "test@example.com").unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
        .unwrap()
}

pub fn write(path: &Path, text: &str) {
    if let Some(p) = path.parent() {
        fs::create_dir_all(p).unwrap();
    }
    fs::write(path, text).unwrap();
}

pub fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

/// Runs the git command line in `dir` with no global or system config, and returns stdout.
/// Panics with git's stderr when it fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_output(dir, args);
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn git_output(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Cli User")
        .env("GIT_AUTHOR_EMAIL", "cli@example.com")
        .env("GIT_COMMITTER_NAME", "Cli User")
        .env("GIT_COMMITTER_EMAIL", "cli@example.com")
        .output()
        .unwrap()
}

/// `git status --porcelain` in `dir`: empty when the checkout is clean.
pub fn status(dir: &Path) -> String {
    git(dir, &["status", "--porcelain"])
}

/// A fresh temp dir and a repository in `<tmp>/repo`, with a place for worktrees in
/// `<tmp>/data/worktrees`.
pub struct Fixture {
    pub tmp: tempfile::TempDir,
    pub repo: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        repo_with_commit(&repo);
        Fixture { tmp, repo }
    }

    /// Where a terminal's worktree goes.
    pub fn slot(&self, name: &str) -> PathBuf {
        self.tmp.path().join("data").join("worktrees").join(name)
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }
}

/// True when permission bits do not stop this process from writing (root), so read-only
/// tests cannot be simulated with chmod.
pub fn chmod_is_ignored(dir: &Path) -> bool {
    let probe = dir.join(".chmod-probe");
    let ok = fs::write(&probe, "x").is_ok();
    let _ = fs::remove_file(&probe);
    ok
}

/// chmod -R a-w (or back to u+w).
pub fn set_writable(dir: &Path, writable: bool) {
    let mode = if writable { "u+w" } else { "a-w" };
    let ok = Command::new("chmod")
        .args(["-R", mode])
        .arg(dir)
        .status()
        .unwrap();
    assert!(ok.success());
}
