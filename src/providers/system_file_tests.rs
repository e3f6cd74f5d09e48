//! Tests of where a run's system text goes: the pure placing, the user's own profile, the sweep.

use super::*;
use pretty_assertions::assert_eq;

fn spec(provider: ProviderKind, session: SessionMode, text: &str) -> RunSpec {
    RunSpec {
        provider,
        bin: "cli".into(),
        cwd: "/w".into(),
        session,
        model: None,
        system_text: text.into(),
        run_name: run_name("t1", "u1"),
        run_dir: "/d/terminals/t1/runs".into(),
        permission_mode: None,
        sandbox: None,
        add_dirs: Vec::new(),
        extra_args: Vec::new(),
        env: Vec::new(),
    }
}

fn homes() -> ProviderHomes {
    ProviderHomes {
        claude: "/h/.claude".into(),
        codex: "/h/.codex".into(),
    }
}

/// A spec, the arguments it gets, and the file (path, contents) written for it.
type Row = (
    RunSpec,
    Vec<&'static str>,
    Option<(&'static str, &'static str)>,
);

#[test]
fn placing_table() {
    let new = SessionMode::New { session_id: None };
    let resume = SessionMode::Resume {
        session_id: "s".into(),
    };
    let fork = SessionMode::Fork {
        from: "s".into(),
        session_id: None,
        at: None,
    };
    let claude_file = "/d/terminals/t1/runs/baton-t1-u1.txt";
    let profile = "/h/.codex/baton-t1-u1.config.toml";
    let rows: Vec<Row> = vec![
        (
            spec(ProviderKind::Claude, new.clone(), "a\n"),
            vec!["--append-system-prompt-file", claude_file],
            Some((claude_file, "a\n")),
        ),
        (
            spec(ProviderKind::Claude, resume.clone(), "a"),
            vec!["--append-system-prompt-file", claude_file],
            Some((claude_file, "a")),
        ),
        (spec(ProviderKind::Claude, new.clone(), ""), vec![], None),
        (
            spec(ProviderKind::Codex, new.clone(), "say \"x\"\n"),
            vec!["-p", "baton-t1-u1"],
            Some((profile, "developer_instructions = \"say \\\"x\\\"\\n\"\n")),
        ),
        (
            spec(ProviderKind::Codex, fork, "a"),
            vec!["-p", "baton-t1-u1"],
            Some((profile, "developer_instructions = \"a\"\n")),
        ),
        (spec(ProviderKind::Codex, resume, "a"), vec![], None),
        (spec(ProviderKind::Codex, new.clone(), ""), vec![], None),
        (spec(ProviderKind::Local, new, "a"), vec![], None),
    ];
    for (spec, want_args, want_file) in rows {
        let got_args: Vec<String> = args(&spec)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        assert_eq!(got_args, want_args, "{spec:?}");
        let got_file = planned(&spec, &homes())
            .map(|(p, b)| (p.display().to_string(), String::from_utf8(b).unwrap()));
        let want_file = want_file.map(|(p, b)| (p.to_string(), b.to_string()));
        assert_eq!(got_file, want_file, "{spec:?}");
    }
}

#[test]
fn user_profile_table() {
    let rows: &[(&[&str], Option<&str>)] = &[
        (&[], None),
        (&["-c", "model=x"], None),
        (&["-p", "work"], Some("work")),
        (&["--profile", "work"], Some("work")),
        (&["--profile=work"], Some("work")),
        (&["-pwork"], Some("work")),
        (&["--pretty"], None),
        (&["-c", "a=1", "-p"], Some("")),
    ];
    for (args, want) in rows {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        assert_eq!(user_profile(&args), *want, "{args:?}");
    }
}

#[test]
fn sweep_removes_this_terminals_leftovers_only() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let codex = dir.path().join("codex");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::create_dir_all(&codex).unwrap();
    let keep = [
        "config.toml",
        "work.config.toml",
        "baton-t2-u1.config.toml",
        "baton-t1-u1.toml",
    ];
    for name in keep {
        std::fs::write(codex.join(name), "x").unwrap();
    }
    std::fs::write(codex.join("baton-t1-u1.config.toml"), "x").unwrap();
    std::fs::write(runs.join("baton-t1-u0.txt"), "x").unwrap();
    assert_eq!(sweep(&runs, &codex, "t1", None), 2);
    let mut left: Vec<String> = std::fs::read_dir(&codex)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    let mut want = keep.map(String::from).to_vec();
    want.sort();
    assert_eq!(left, want);
    assert_eq!(std::fs::read_dir(&runs).unwrap().count(), 0);
    // Nothing there: nothing to do.
    assert_eq!(sweep(&dir.path().join("none"), &codex, "t1", None), 0);
}

#[test]
fn a_sweep_keeps_the_file_of_the_cli_started_for_the_coming_run() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    for name in ["baton-t1-old.txt", "baton-t1-early.txt"] {
        std::fs::write(runs.join(name), "x").unwrap();
    }
    let early = runs.join("baton-t1-early.txt");
    assert_eq!(
        sweep(&runs, &dir.path().join("codex"), "t1", Some(&early)),
        1
    );
    let left: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, ["baton-t1-early.txt"]);
}

#[test]
fn write_replaces_a_leftover_and_the_file_goes_with_the_guard() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = spec(
        ProviderKind::Claude,
        SessionMode::New { session_id: None },
        "text",
    );
    s.run_dir = dir.path().join("runs");
    std::fs::create_dir_all(&s.run_dir).unwrap();
    let path = s.run_dir.join("baton-t1-u1.txt");
    std::fs::write(&path, "old, longer leftover").unwrap();
    let written = write(&s, &homes()).unwrap().unwrap();
    assert_eq!(written.path(), path);
    assert_eq!(std::fs::read(&path).unwrap(), b"text");
    drop(written);
    assert!(!path.exists());
}
