//! What each provider answers through the [`Provider`] interface, pinned per provider: a
//! change to one of these rows changes what the server, the doctor or an export does.

use std::path::Path;

use super::*;
use crate::config::Config;
use crate::providers::{of, RunSpec, SessionMode};
use pretty_assertions::assert_eq;

#[test]
fn every_kind_is_registered_once_in_order() {
    let kinds: Vec<ProviderKind> = crate::providers::all().map(|p| p.kind()).collect();
    assert_eq!(kinds, ProviderKind::all().collect::<Vec<_>>());
    for k in ProviderKind::all() {
        assert_eq!(of(k).kind(), k);
    }
}

/// One provider's yes/no answers, in one row.
#[derive(Debug, PartialEq)]
struct Answers {
    carrying: Carrying,
    baton_names_sessions: bool,
    prestarts: bool,
    steers_cold: bool,
    one_writer: bool,
    session_files: bool,
    parser: bool,
    oneshot: bool,
}

fn answers(p: &dyn Provider) -> Answers {
    Answers {
        carrying: p.carrying(),
        baton_names_sessions: matches!(
            p.new_session(),
            SessionMode::New {
                session_id: Some(_)
            }
        ),
        prestarts: p.prestarts(),
        steers_cold: p.steers_cold(),
        one_writer: p.one_writer(),
        session_files: p.session_files().is_some(),
        parser: p.parser(None).is_some(),
        oneshot: p.oneshot_args(None).is_some(),
    }
}

#[test]
fn what_each_provider_does() {
    use ProviderKind::*;
    let row = |carrying, names, prestarts, one_writer, files| Answers {
        carrying,
        baton_names_sessions: names,
        prestarts,
        steers_cold: prestarts,
        one_writer,
        session_files: files,
        parser: files,
        oneshot: files,
    };
    let rows = [
        (Claude, row(Carrying::AtFirstRun, true, true, false, true)),
        (Codex, row(Carrying::Now, false, false, true, true)),
        (Local, row(Carrying::History, true, false, false, false)),
    ];
    for (kind, want) in rows {
        assert_eq!(answers(of(kind)), want, "{kind}");
    }
}

#[test]
fn a_steer_note_says_where_the_steer_went() {
    use ProviderKind::*;
    let rows = [
        (Claude, true, "handed to the running claude turn: claude reads it with its next tool result (a turn with no more tool calls takes it right after its answer, in the same session)"),
        (Claude, false, "the running claude turn cannot take it yet: it runs next"),
        (Codex, true, "handed to the running codex turn: codex reads it before its next model call"),
        (Codex, false, "codex exec cannot take input mid-turn: it runs next"),
        (Local, false, "a local endpoint's turn cannot take input mid-turn: it runs next"),
    ];
    for (kind, handed, note) in rows {
        assert_eq!(of(kind).steer_note(handed), note, "{kind} {handed}");
    }
}

#[test]
fn settings_come_from_each_providers_own_section() {
    use ProviderKind::*;
    let c = Config::parse(
        "[providers.claude]\nbin = \"/opt/claude\"\nwarm = 1\n[providers.codex]\nsandbox = \"read-only\"\nwarm_idle_secs = 5\n",
    )
    .unwrap();
    let rows = [
        (Claude, "/opt/claude", 1, 600, Some("acceptEdits"), None),
        (Codex, "codex", usize::MAX, 5, None, Some("read-only")),
        (Local, "local", 0, 600, None, None),
    ];
    for (kind, bin, warm, idle, permission_mode, sandbox) in rows {
        let p = of(kind);
        assert_eq!(
            (
                p.bin(&c),
                p.warm_limit(&c),
                p.warm_idle(&c).as_secs(),
                p.permission_mode(&c),
                p.sandbox(&c)
            ),
            (
                bin.to_string(),
                warm,
                idle,
                permission_mode.map(String::from),
                sandbox.map(String::from)
            ),
            "{kind}"
        );
    }
}

#[test]
fn a_warm_codex_app_server_waits_less_by_default_than_a_warm_claude() {
    use ProviderKind::*;
    let c = Config::parse("").unwrap();
    let idle = [Claude, Codex, Local].map(|k| of(k).warm_idle(&c).as_secs());
    assert_eq!(idle, [600, 120, 600]);
}

#[test]
fn only_codexs_workspace_write_sandbox_is_probed() {
    use ProviderKind::*;
    let config = |toml: &str| Config::parse(toml).unwrap();
    let rows = [
        (
            Codex,
            config(""),
            WriteFence::Probe {
                mode: "workspace-write".into(),
            },
        ),
        (
            Codex,
            config("[providers.codex]\nsandbox = \"read-only\"\n"),
            WriteFence::Unchecked("sandbox read-only (as configured): nothing to probe".into()),
        ),
        (
            Codex,
            config("[providers.codex]\nsandbox = \"\"\n"),
            WriteFence::Unchecked("no --sandbox (as configured): the CLI's own default".into()),
        ),
        (
            Claude,
            config(""),
            WriteFence::Unchecked(
                "permission mode acceptEdits: the CLI confines edits itself; no sandbox to probe"
                    .into(),
            ),
        ),
        (
            Local,
            config(""),
            WriteFence::Unchecked("baton's own write fence".into()),
        ),
    ];
    for (kind, c, want) in rows {
        assert_eq!(of(kind).write_fence(&c), want, "{kind}");
    }
}

fn spec(provider: ProviderKind, sandbox: Option<&str>) -> RunSpec {
    RunSpec {
        provider,
        bin: "bin".into(),
        cwd: "/w".into(),
        session: SessionMode::New { session_id: None },
        model: None,
        system_text: String::new(),
        run_name: "r".into(),
        run_dir: "/runs".into(),
        permission_mode: None,
        sandbox: sandbox.map(String::from),
        add_dirs: Vec::new(),
        extra_args: vec!["--x".into()],
        env: Vec::new(),
    }
}

#[test]
fn a_fenced_codex_run_keeps_its_temporary_files_inside_the_fence() {
    use ProviderKind::*;
    assert!(of(Codex).fenced(&spec(Codex, Some("workspace-write"))));
    assert!(!of(Codex).fenced(&spec(Codex, Some("danger-full-access"))));
    assert!(!of(Claude).fenced(&spec(Claude, Some("workspace-write"))));
    let mut s = spec(Codex, Some("workspace-write"));
    of(Codex).fence_tmp(&mut s, Path::new("/t/tmp"));
    assert_eq!(
        (s.extra_args, s.add_dirs, s.env),
        (
            [
                "-c",
                "sandbox_workspace_write.exclude_slash_tmp=true",
                "-c",
                "sandbox_workspace_write.exclude_tmpdir_env_var=true",
                "--x"
            ]
            .map(String::from)
            .to_vec(),
            vec![Path::new("/t/tmp").to_path_buf()],
            vec![("TMPDIR".to_string(), "/t/tmp".to_string())]
        )
    );
}

#[test]
fn codexs_sandbox_is_probed_with_a_run_of_its_own() {
    let codex = of(ProviderKind::Codex);
    assert_eq!(codex.fence_probe(), ["sandbox", "--", "true"]);
    assert!(codex
        .fence_broken("no user namespaces")
        .starts_with("Codex's sandbox cannot start on this machine (no user namespaces): "));
    assert!(of(ProviderKind::Claude).fence_probe().is_empty());
}

#[test]
fn a_oneshot_run_keeps_no_session_and_pins_the_model() {
    let args = |kind, model| -> Option<Vec<String>> {
        of(kind)
            .oneshot_args(model)
            .map(|a| a.iter().map(|s| s.to_string_lossy().into_owned()).collect())
    };
    let claude = "-p --output-format stream-json --verbose --no-session-persistence --max-turns 1";
    let codex = "exec --json --skip-git-repo-check --ephemeral --sandbox read-only";
    let words = |s: &str| Some(s.split(' ').map(String::from).collect::<Vec<_>>());
    assert_eq!(args(ProviderKind::Claude, None), words(claude));
    assert_eq!(
        args(ProviderKind::Claude, Some("opus")),
        words(&format!("{claude} --model opus"))
    );
    assert_eq!(
        args(ProviderKind::Codex, Some("gpt-5.5")),
        words(&format!("{codex} -m gpt-5.5"))
    );
    assert_eq!(args(ProviderKind::Local, Some("m")), None);
}

#[test]
fn a_codex_turn_asks_from_an_app_server_unless_it_forks() {
    let resume = SessionMode::Resume {
        session_id: "T".into(),
    };
    let new = SessionMode::New { session_id: None };
    let fork = SessionMode::Fork {
        from: "T".into(),
        session_id: None,
        at: None,
    };
    for (kind, session, want) in [
        (ProviderKind::Codex, resume.clone(), true),
        (ProviderKind::Codex, new.clone(), true),
        (ProviderKind::Codex, fork, false),
        (ProviderKind::Claude, resume, false),
        (ProviderKind::Local, new, false),
    ] {
        let mut s = spec(kind, None);
        s.session = session.clone();
        assert_eq!(of(kind).asks_in_server(&s), want, "{kind:?} {session:?}");
    }
}
