//! The warm Codex app-server's command line and requests.
use super::*;
use crate::providers::SessionMode;
use crate::words::ProviderKind;
use pretty_assertions::assert_eq;
use std::path::PathBuf;

fn spec(sandbox: Option<&str>, add_dirs: &[&str], extra: &[&str]) -> RunSpec {
    RunSpec {
        provider: ProviderKind::Codex,
        bin: PathBuf::from("codex"),
        cwd: PathBuf::from("/w/t"),
        session: SessionMode::Resume {
            session_id: "T".into(),
        },
        model: Some("gpt-5.5".into()),
        system_text: "rules".into(),
        run_name: "baton-x".into(),
        run_dir: PathBuf::from("/d/runs"),
        permission_mode: None,
        sandbox: sandbox.map(str::to_owned),
        add_dirs: add_dirs.iter().map(PathBuf::from).collect(),
        extra_args: extra.iter().map(|s| s.to_string()).collect(),
        env: Vec::new(),
    }
}

fn strings(args: Option<Vec<OsString>>) -> Option<Vec<String>> {
    args.map(|a| a.iter().map(|s| s.to_string_lossy().into_owned()).collect())
}

#[test]
fn the_app_server_gets_the_runs_configuration_or_is_not_used() {
    let fence = [
        "-c",
        "sandbox_workspace_write.exclude_slash_tmp=true",
        "-c",
        "sandbox_workspace_write.exclude_tmpdir_env_var=true",
    ];
    let cases: Vec<(RunSpec, Option<Vec<&str>>)> = vec![
        (spec(None, &[], &[]), Some(vec!["app-server"])),
        (
            spec(Some("workspace-write"), &["/d/shots", "/d/t\"mp"], &fence),
            Some(vec![
                "app-server",
                "-c",
                "sandbox_mode=\"workspace-write\"",
                "-c",
                "sandbox_workspace_write.writable_roots=[\"/d/shots\",\"/d/t\\\"mp\"]",
                "-c",
                "sandbox_workspace_write.exclude_slash_tmp=true",
                "-c",
                "sandbox_workspace_write.exclude_tmpdir_env_var=true",
            ]),
        ),
        (
            spec(
                None,
                &[],
                &["--config=model_reasoning_effort=\"high\"", "--enable", "x"],
            ),
            Some(vec![
                "app-server",
                "--config",
                "model_reasoning_effort=\"high\"",
                "--enable",
                "x",
            ]),
        ),
        // exec-only flags, or a flag missing its value: such runs stay cold.
        (spec(None, &[], &["--full-auto"]), None),
        (spec(None, &[], &["--oss", "-c", "a=1"]), None),
        (spec(None, &[], &["-c"]), None),
    ];
    for (spec, want) in cases {
        let want = want.map(|w| w.into_iter().map(str::to_owned).collect::<Vec<_>>());
        assert_eq!(strings(app_args(&spec)), want, "{:?}", spec.extra_args);
    }
}

#[test]
fn each_turn_passes_the_sandbox_policy_exec_would_derive() {
    let fence = [
        "-c",
        "sandbox_workspace_write.exclude_slash_tmp=true",
        "--config",
        "sandbox_workspace_write.exclude_tmpdir_env_var = true",
    ];
    let cases = [
        (spec(None, &[], &[]), None),
        (
            spec(Some("workspace-write"), &["/d/shots"], &fence),
            Some(json!({
                "type": "workspaceWrite",
                "writableRoots": ["/d/shots"],
                "networkAccess": false,
                "excludeSlashTmp": true,
                "excludeTmpdirEnvVar": true,
            })),
        ),
        (
            spec(
                Some("workspace-write"),
                &[],
                &["-c", "sandbox_workspace_write.network_access=true"],
            ),
            Some(json!({
                "type": "workspaceWrite",
                "writableRoots": [],
                "networkAccess": true,
                "excludeSlashTmp": false,
                "excludeTmpdirEnvVar": false,
            })),
        ),
        (
            spec(Some("read-only"), &[], &[]),
            Some(json!({"type": "readOnly"})),
        ),
        (
            spec(Some("danger-full-access"), &[], &[]),
            Some(json!({"type": "dangerFullAccess"})),
        ),
    ];
    for (spec, want) in cases {
        assert_eq!(sandbox_policy(&spec), want, "{:?}", spec.sandbox);
    }
}

#[test]
fn requests_are_one_json_line_each() {
    let s = spec(Some("workspace-write"), &["/d/shots"], &[]);
    let resume: Value = serde_json::from_str(&resume_request(2, &s, "T", Some("gpt-5.5"))).unwrap();
    assert_eq!(
        resume,
        json!({"id": 2, "method": "thread/resume", "params": {
            "threadId": "T", "cwd": "/w/t", "approvalPolicy": "never", "excludeTurns": true,
            "model": "gpt-5.5", "sandbox": "workspace-write"}})
    );
    let turn = turn_request(3, &s, "T", None, "fix \"it\"\nnow", approval_policy(false));
    assert!(
        turn.ends_with('\n') && turn.matches('\n').count() == 1,
        "{turn}"
    );
    let turn: Value = serde_json::from_str(&turn).unwrap();
    assert_eq!(turn["params"]["input"][0]["text"], "fix \"it\"\nnow");
    assert_eq!(turn["params"]["sandboxPolicy"]["type"], "workspaceWrite");
    assert_eq!(turn["params"].get("model"), None);
    assert_eq!(turn["params"]["approvalPolicy"], "never");
    let asking = turn_request(3, &s, "T", None, "x", approval_policy(true));
    let asking: Value = serde_json::from_str(&asking).unwrap();
    assert_eq!(asking["params"]["approvalPolicy"], "on-request");
    let steer: Value = serde_json::from_str(&steer_request(4, "T", "U", "also this")).unwrap();
    assert_eq!(steer["params"]["expectedTurnId"], "U");
    let stop: Value = serde_json::from_str(&interrupt_request(5, "T", "U")).unwrap();
    assert_eq!(stop["params"], json!({"threadId": "T", "turnId": "U"}));
}

#[test]
fn answers_are_told_from_notifications_and_requests_of_its_own() {
    let ok = json!({"id": 3, "result": {"turn": {"id": "U"}}});
    let err = json!({"id": 3, "error": {"code": -32600, "message": "thread not found: T"}});
    let note = json!({"method": "turn/started", "params": {}});
    let ask = json!({"id": 0, "method": "item/commandExecution/requestApproval", "params": {}});
    assert_eq!(answer_to(&ok, 3), Some(Ok(&json!({"turn": {"id": "U"}}))));
    assert_eq!(answer_to(&ok, 4), None);
    assert_eq!(
        answer_to(&err, 3),
        Some(Err("thread not found: T (code -32600)".to_string()))
    );
    assert_eq!(answer_to(&note, 3), None);
    assert_eq!(answer_to(&ask, 0), None);
    assert_eq!(decline(&note), None);
    assert_eq!(decline(&ok), None);
    let reply: Value = serde_json::from_str(&decline(&ask).unwrap()).unwrap();
    assert_eq!(reply["id"], 0);
    assert_eq!(reply["error"]["code"], -32601);
}

#[test]
fn a_new_thread_is_started_with_the_system_text_as_its_developer_instructions() {
    let mut s = spec(Some("workspace-write"), &["/d/shots"], &[]);
    s.system_text = "say \"hi\"\nthen stop".into();
    let start: Value = serde_json::from_str(&start_request(2, &s, Some("gpt-5.5"))).unwrap();
    assert_eq!(
        start,
        json!({"id": 2, "method": "thread/start", "params": {
            "cwd": "/w/t", "approvalPolicy": "never", "model": "gpt-5.5",
            "sandbox": "workspace-write", "developerInstructions": "say \"hi\"\nthen stop"}})
    );
    s.system_text.clear();
    let bare: Value = serde_json::from_str(&start_request(2, &s, None)).unwrap();
    assert_eq!(bare["params"].get("developerInstructions"), None);
}

#[test]
fn the_opened_thread_is_the_resumed_one_or_the_one_started() {
    let started = json!({"thread": {"id": "N"}, "model": "gpt-5.5"});
    let nameless = json!({"thread": {"id": ""}});
    type Opened = Result<(String, Option<String>), String>;
    let cases: Vec<(Open, Result<&Value, String>, Opened)> = vec![
        (Open::Resume("T"), Ok(&started), Ok(("T".into(), None))),
        (
            Open::Resume("T"),
            Err("gone".into()),
            Err("thread/resume failed: gone".into()),
        ),
        (
            Open::Start,
            Ok(&started),
            Ok(("N".into(), Some("gpt-5.5".into()))),
        ),
        (
            Open::Start,
            Ok(&nameless),
            Err("thread/start answered no thread id".into()),
        ),
        (
            Open::Start,
            Err("bad".into()),
            Err("thread/start failed: bad".into()),
        ),
    ];
    for (open, answer, want) in cases {
        assert_eq!(opened(open, answer), want, "{open:?}");
    }
}
