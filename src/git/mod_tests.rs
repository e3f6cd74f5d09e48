//! Tests of `inspect` and the shared helpers.

use super::testutil::*;
use super::*;
use pretty_assertions::assert_eq;

#[test]
fn inspect_reports_each_state_with_the_root() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    fs::create_dir_all(&plain).unwrap();
    assert_eq!(inspect(&plain).unwrap(), RepoState::NotRepo);

    let empty = tmp.path().join("empty");
    empty_repo(&empty);
    assert_eq!(
        inspect(&empty).unwrap(),
        RepoState::NoCommit {
            root: empty.clone()
        }
    );

    let full = tmp.path().join("full");
    let repo = repo_with_commit(&full);
    let head = repo.head().unwrap().target().unwrap().to_string();
    let sub = full.join("src/deep");
    fs::create_dir_all(&sub).unwrap();
    assert_eq!(
        inspect(&sub).unwrap(),
        RepoState::Branch {
            root: full.clone(),
            branch: "main".into(),
            head: head.clone()
        }
    );

    repo.set_head_detached(repo.head().unwrap().target().unwrap())
        .unwrap();
    assert_eq!(inspect(&full).unwrap(), RepoState::Detached { root: full });
}

#[test]
fn inspect_of_a_missing_directory_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let err = inspect(&tmp.path().join("nope")).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[test]
fn inspect_of_a_bare_repository_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    git2::Repository::init_bare(tmp.path().join("b.git")).unwrap();
    let err = inspect(&tmp.path().join("b.git")).unwrap_err();
    assert!(matches!(err, GitError::Bare { .. }), "{err}");
}

#[test]
fn signature_prefers_the_configured_identity_else_baton() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("config");
    fs::write(&file, "").unwrap();
    let mut cfg = git2::Config::open(&file).unwrap();
    assert!(signature_from(&cfg).is_none());
    cfg.set_str("user.name", "Ada").unwrap();
    assert!(
        signature_from(&cfg).is_none(),
        "a name without an email is not an identity"
    );
    cfg.set_str("user.email", "ada@example.com").unwrap();
    let sig = signature_from(&cfg).unwrap();
    assert_eq!(
        (sig.name().unwrap(), sig.email().unwrap()),
        ("Ada", "ada@example.com")
    );
}

#[test]
fn ensure_idle_reports_a_running_git_command() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo_with_commit(tmp.path());
    assert!(ensure_idle(&repo).is_ok());
    fs::write(repo.path().join("index.lock"), "").unwrap();
    let err = ensure_idle(&repo).unwrap_err();
    assert!(err.to_string().contains("index.lock"), "{err}");
}

#[test]
fn worktree_record_round_trips_through_json() {
    let wt = Worktree {
        path: "/d/w".into(),
        branch: "baton/api".into(),
        base_commit: "abc".into(),
        base_branch: "main".into(),
        repo: "/r".into(),
        name: "baton-api".into(),
    };
    let json = serde_json::to_string(&wt).unwrap();
    assert_eq!(
        json,
        r#"{"path":"/d/w","branch":"baton/api","base_commit":"abc","base_branch":"main","repo":"/r","name":"baton-api"}"#
    );
    assert_eq!(serde_json::from_str::<Worktree>(&json).unwrap(), wt);
}
