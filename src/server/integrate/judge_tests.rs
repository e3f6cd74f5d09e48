use std::path::Path;
use std::time::Duration;

use pretty_assertions::assert_eq;

use super::*;

fn user(check: Option<&str>, timeout: Option<u64>) -> RepoConfig {
    RepoConfig {
        check: check.map(str::to_string),
        check_timeout_secs: timeout,
        ..RepoConfig::default()
    }
}

fn file(check: &str, timeout: Option<u64>, trusted: bool) -> FileFacts {
    FileFacts::Found {
        file: IntegrateFile {
            check: Some(check.to_string()),
            check_timeout_secs: timeout,
        },
        trusted,
    }
}

#[test]
fn the_check_comes_from_the_user_else_a_trusted_file() {
    let path = Path::new("/r/.baton.toml");
    let ten = Duration::from_secs(DEFAULT_CHECK_TIMEOUT_SECS);
    // (user's table, the file, check run, how many notes)
    type Row<'a> = (
        Option<RepoConfig>,
        FileFacts,
        Option<(&'a str, Duration)>,
        usize,
    );
    let rows: Vec<Row<'_>> = vec![
        (None, FileFacts::Absent, None, 0),
        (
            Some(user(Some("cargo test"), Some(5))),
            FileFacts::Absent,
            Some(("cargo test", Duration::from_secs(5))),
            0,
        ),
        (
            None,
            file("make check", None, true),
            Some(("make check", ten)),
            0,
        ),
        // untrusted: said, not run
        (None, file("make check", None, false), None, 1),
        // the user's command wins and needs no trust; the file's timeout still holds
        (
            Some(user(Some("cargo test"), None)),
            file("make check", Some(9), false),
            Some(("cargo test", Duration::from_secs(9))),
            0,
        ),
        (None, FileFacts::Invalid("line 1: oops".into()), None, 1),
        (Some(user(Some("  "), None)), FileFacts::Absent, None, 0),
    ];
    for (u, facts, want, notes) in rows {
        let (run, said) = check_plan(u.as_ref(), &facts, path);
        let run = run.as_ref().map(|(c, t)| (c.as_str(), *t));
        assert_eq!((run, said.len()), (want, notes), "{u:?} {facts:?}");
    }
}

fn member(name: &str, skip: Option<&str>) -> Member {
    Member {
        name: name.into(),
        branch: format!("baton/{name}"),
        tip: skip.is_none().then(|| format!("tip-{name}")),
        skip: skip.map(str::to_string),
        note: None,
    }
}

#[test]
fn each_terminal_is_judged_by_what_the_lane_found() {
    let members = [
        member("a", None),
        member("b", None),
        member("c", None),
        member("d", None),
        member("e", Some("gone")),
        member("f", None),
    ];
    let f = Facts {
        members: &members,
        with_base: vec![vec![], vec![], vec![], vec!["x.rs".into()], vec![], vec![]],
        // a and b conflict pairwise: a merged first, b conflicted in the lane
        pairs: vec![(0, 1, vec!["y.rs".into()])],
        lane: vec![
            LaneStep::Merged,
            LaneStep::Conflicts(vec!["y.rs".into()]),
            LaneStep::CheckFailed("boom".into()),
            LaneStep::Conflicts(vec!["x.rs".into()]),
            LaneStep::Skipped,
            LaneStep::Merged,
        ],
    };
    type Got = (String, LaneStatus, Vec<String>, bool, Vec<String>, bool);
    let got: Vec<Got> = judge(&f)
        .into_iter()
        .map(|v| {
            (
                v.name,
                v.status,
                v.conflicts_with,
                v.conflicts_with_base,
                v.files,
                v.merged,
            )
        })
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        vec![
            (
                "a".into(),
                LaneStatus::Conflict,
                s(&["b"]),
                false,
                s(&["y.rs"]),
                true
            ),
            (
                "b".into(),
                LaneStatus::Conflict,
                s(&["a"]),
                false,
                s(&["y.rs"]),
                false
            ),
            (
                "c".into(),
                LaneStatus::CheckFailed,
                s(&[]),
                false,
                s(&[]),
                false
            ),
            (
                "d".into(),
                LaneStatus::Conflict,
                s(&[]),
                true,
                s(&["x.rs"]),
                false
            ),
            (
                "e".into(),
                LaneStatus::Skipped,
                s(&[]),
                false,
                s(&[]),
                false
            ),
            ("f".into(), LaneStatus::Clean, s(&[]), false, s(&[]), true),
        ]
    );
}
