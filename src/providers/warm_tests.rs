//! Table tests of the warm pool's pure decisions: which turn fits a warm process, which
//! process goes first.

use super::*;
use std::time::{Duration, Instant};

fn spec() -> RunSpec {
    RunSpec {
        provider: crate::words::ProviderKind::Claude,
        bin: PathBuf::from("/bin/claude"),
        cwd: PathBuf::from("/w/t"),
        session: SessionMode::Resume {
            session_id: "s-1".into(),
        },
        model: None,
        system_text: "rules".into(),
        run_name: "baton-t-1".into(),
        run_dir: PathBuf::from("/d/runs"),
        permission_mode: Some("acceptEdits".into()),
        sandbox: None,
        add_dirs: vec![PathBuf::from("/d/shots")],
        extra_args: Vec::new(),
        env: Vec::new(),
    }
}

#[test]
fn a_turn_fits_the_process_of_its_session_and_command_line_only() {
    let key = WarmKey::of(&spec(), None, "s-1".into(), Some("opus".into()));
    type Change = fn(&mut RunSpec);
    let cases: Vec<(&str, Change, Result<(), Misfit>)> = vec![
        ("the same", |_| {}, Ok(())),
        (
            "another run's file name",
            |s| s.run_name = "baton-t-2".into(),
            Ok(()),
        ),
        (
            "the model it reported",
            |s| s.model = Some("opus".into()),
            Ok(()),
        ),
        (
            "another model",
            |s| s.model = Some("haiku".into()),
            Err(Misfit::OtherModel),
        ),
        (
            "a fresh session",
            |s| {
                s.session = SessionMode::New {
                    session_id: Some("s-2".into()),
                }
            },
            Err(Misfit::NotResume),
        ),
        (
            "a fork",
            |s| {
                s.session = SessionMode::Fork {
                    from: "s-1".into(),
                    session_id: None,
                    at: None,
                }
            },
            Err(Misfit::NotResume),
        ),
        (
            "another session",
            |s| {
                s.session = SessionMode::Resume {
                    session_id: "s-9".into(),
                }
            },
            Err(Misfit::OtherSession),
        ),
        (
            "a moved checkout",
            |s| s.cwd = PathBuf::from("/w/u"),
            Err(Misfit::OtherDir),
        ),
        (
            "another system text",
            |s| s.system_text = "rules 2".into(),
            Err(Misfit::OtherSystemText),
        ),
        (
            "another binary",
            |s| s.bin = PathBuf::from("/bin/c2"),
            Err(Misfit::OtherCommandLine),
        ),
        (
            "another permission mode",
            |s| s.permission_mode = None,
            Err(Misfit::OtherCommandLine),
        ),
        (
            "extra flags",
            |s| s.extra_args = vec!["--x".into()],
            Err(Misfit::OtherCommandLine),
        ),
        (
            "another environment",
            |s| s.env = vec![("A".into(), "1".into())],
            Err(Misfit::OtherCommandLine),
        ),
        (
            "another sandbox",
            |s| s.sandbox = Some("read-only".into()),
            Err(Misfit::OtherCommandLine),
        ),
        (
            "the other provider",
            |s| s.provider = crate::words::ProviderKind::Codex,
            Err(Misfit::OtherCommandLine),
        ),
    ];
    for (what, change, want) in cases {
        let mut s = spec();
        change(&mut s);
        assert_eq!(key.fits(&s, None), want, "{what}");
    }
    assert_eq!(
        key.fits(&spec(), Some(std::ffi::OsStr::new("/other/bin"))),
        Err(Misfit::OtherCommandLine),
        "another PATH"
    );
}

#[test]
fn the_longest_idle_go_first_to_stay_within_the_limit() {
    let t0 = Instant::now();
    let at = |s: u64| t0 + Duration::from_secs(s);
    let used = vec![
        ("b".to_string(), at(2)),
        ("a".to_string(), at(1)),
        ("c".to_string(), at(3)),
    ];
    let cases: Vec<(usize, Vec<&str>)> = vec![
        (3, vec![]),
        (5, vec![]),
        (2, vec!["a"]),
        (1, vec!["a", "b"]),
        (0, vec!["a", "b", "c"]),
    ];
    for (limit, want) in cases {
        assert_eq!(evict(&used, limit), want, "limit {limit}");
    }
    assert!(evict(&[], 0).is_empty());
}

#[tokio::test]
async fn a_turn_waits_for_the_warm_process_being_started_for_its_terminal() {
    let pool = std::sync::Arc::new(WarmPool::default());
    // Nothing being started: no wait.
    pool.settled("t").await;
    let guard = pool.starting("t").expect("the first start");
    assert!(pool.starting("t").is_none(), "one start at a time");
    let (tx, mut rx) = tokio::sync::oneshot::channel();
    let waiter = {
        let pool = pool.clone();
        tokio::spawn(async move {
            pool.settled("t").await;
            let _ = tx.send(());
        })
    };
    // Another terminal does not wait for this one.
    pool.settled("u").await;
    tokio::task::yield_now().await;
    assert!(rx.try_recv().is_err(), "it waits while the start runs");
    drop(guard);
    waiter.await.unwrap();
    assert!(pool.starting("t").is_some(), "free again");
}
