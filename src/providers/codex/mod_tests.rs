//! Tests of the codex adapter against the captured CLI output.
use super::*;
use crate::providers::testing::{home, Home};
use pretty_assertions::assert_eq;

fn capture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/captures/codex")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

impl Home {
    /// Places a rollout capture where Codex would have written it for `thread`.
    fn rollout(&self, day: &str, capture_name: &str, thread: &str) -> PathBuf {
        let dir = self.homes.codex.join("sessions").join(day);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("rollout-2026-11-29T11-46-55-{thread}.jsonl"));
        std::fs::write(&file, capture(capture_name)).unwrap();
        file
    }
}

fn parse(name: &str) -> (CodexParser, Vec<TurnEvent>) {
    let mut parser = CodexParser::new();
    let events = capture(name).lines().flat_map(|l| parser.feed(l)).collect();
    (parser, events)
}

fn ok_exit() -> ExitInfo {
    ExitInfo {
        code: Some(0),
        ..ExitInfo::default()
    }
}

const MODEL_WARNING: &str = "Model metadata for `mock-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.";

fn spec(session: SessionMode) -> RunSpec {
    RunSpec {
        provider: super::super::ProviderKind::Codex,
        bin: "codex".into(),
        cwd: "/w".into(),
        session,
        model: None,
        system_text: String::new(),
        run_name: "baton-t-u".into(),
        run_dir: "/data/terminals/t/runs".into(),
        permission_mode: None,
        sandbox: None,
        add_dirs: Vec::new(),
        extra_args: Vec::new(),
        env: Vec::new(),
    }
}

#[test]
fn args_table() {
    let new = SessionMode::New { session_id: None };
    let resume = SessionMode::Resume {
        session_id: "01a2-uuid".into(),
    };
    let full = |session| RunSpec {
        model: Some("gpt-5.5".into()),
        system_text: "rules \"quoted\"\nline".into(),
        sandbox: Some("workspace-write".into()),
        add_dirs: vec!["/shots".into()],
        extra_args: vec![
            "-c".into(),
            "sandbox_workspace_write.exclude_slash_tmp=true".into(),
        ],
        ..spec(session)
    };
    let head = ["exec", "--json", "--skip-git-repo-check"];
    let full_opts = [
        "-m",
        "gpt-5.5",
        "-p",
        "baton-t-u",
        "--sandbox",
        "workspace-write",
        "--add-dir",
        "/shots",
        "-c",
        "sandbox_workspace_write.exclude_slash_tmp=true",
    ];
    let rows: Vec<(RunSpec, Vec<&str>)> = vec![
        // No text, no profile.
        (spec(new.clone()), vec![]),
        (spec(resume.clone()), vec!["resume", "01a2-uuid"]),
        (
            spec(SessionMode::Fork {
                from: "01a2-uuid".into(),
                session_id: None,
                at: None,
            }),
            vec!["fork", "01a2-uuid", "-"],
        ),
        (full(new), full_opts.to_vec()),
        (
            full(SessionMode::Fork {
                from: "01a2-uuid".into(),
                session_id: None,
                at: None,
            }),
            [&full_opts[..], &["fork", "01a2-uuid", "-"]].concat(),
        ),
        // A resume replays the rollout's developer message: no profile.
        (
            full(resume),
            [&full_opts[..2], &full_opts[4..], &["resume", "01a2-uuid"]].concat(),
        ),
    ];
    for (spec, tail) in rows {
        let got: Vec<String> = args(&spec)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        let want: Vec<String> = head
            .iter()
            .chain(tail.iter())
            .map(|s| s.to_string())
            .collect();
        assert_eq!(got, want);
    }
}

#[test]
fn developer_instructions_survive_a_toml_parse() {
    let samples = [
        "",
        "plain",
        "quotes \" and ' and ''' and \"\"\" here",
        "back\\slash \\n not a newline, C:\\path",
        "multi\nline\r\n\ttabbed",
        "control \u{1}\u{8}\u{c}\u{1b}\u{7f} chars",
        "unicode: é 😀 \u{2028}",
        "  leading and trailing spaces  ",
        "key = \"value\"\n[table]\n",
    ];
    for text in samples {
        let arg = format!("developer_instructions={}", toml_basic_string(text));
        // Codex splits at the first `=`, trims, and parses `_x_ = <value>` as TOML.
        let value = arg.split_once('=').unwrap().1.trim();
        let table: toml::Table = toml::from_str(&format!("_x_ = {value}")).unwrap();
        assert_eq!(table["_x_"].as_str(), Some(text));
    }
}

#[test]
fn success_reads_context_and_model_from_the_rollout() {
    let home = home();
    let thread = "01a22721-2de9-7bb3-bb7a-acb98d244678";
    let (parser, events) = parse("exec-json-success.stdout.jsonl");
    let text = "MOCK REPLY #1 to: Say hello to the research harness";
    assert_eq!(
        events,
        vec![
            TurnEvent::Session {
                session_id: thread.into(),
                model: None
            },
            TurnEvent::Warning {
                message: MODEL_WARNING.into()
            },
            TurnEvent::Text { text: text.into() },
            TurnEvent::End {
                status: TurnStatus::Completed,
                error: None
            },
        ]
    );
    home.rollout("2026/11/29", "rollout-turn1.jsonl", thread);
    assert_eq!(
        parser.finish(&ok_exit(), &home.homes, None),
        TurnOutcome {
            status: Some(TurnStatus::Completed),
            error: None,
            session_id: Some(thread.into()),
            model: Some("mock-model".into()),
            // The rollout's last token_count, not turn.completed.usage.
            context: Some(ContextUsage {
                tokens: 10145,
                window: 258400
            }),
            session_not_found: false,
            answer: text.into(),
            // turn.completed's usage; Codex reports no money.
            cost: Some(crate::words::TurnCost {
                input_tokens: 10135,
                cached_tokens: 0,
                output_tokens: 10,
                usd: None,
            }),
        }
    );
}

#[test]
fn tool_call_context_is_the_last_call_not_the_thread_total() {
    let home = home();
    let thread = "01a22721-c5b9-7223-a62f-33c0fbffe0e7";
    let (parser, events) = parse("exec-json-tool-call.stdout.jsonl");
    let shell = TurnEvent::ToolUse {
        name: "shell".into(),
        summary: "Shell echo hello-from-tool && pwd".into(),
        id: Some("item_1".into()),
        parent: None,
        edits: vec![],
    };
    let output = TurnEvent::ToolResult {
        id: "item_1".into(),
        output:
            "pyenv: cannot rehash: /usr/local/bin isn't writable\nhello-from-tool\n/home/dev/ws\n"
                .into(),
        is_error: false,
        parent: None,
    };
    assert!(events.contains(&output), "{events:?}");
    assert_eq!(
        events.iter().filter(|e| **e == shell).count(),
        1,
        "{events:?}"
    );
    home.rollout("2026/11/29", "rollout-tool-call.jsonl", thread);
    let outcome = parser.finish(&ok_exit(), &home.homes, None);
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 10261,
            window: 258400
        })
    );
    assert_eq!(outcome.answer, "MOCK REPLY #12: command finished.");
}

#[test]
fn resumed_thread_uses_the_latest_turn_and_checks_the_echo() {
    let home = home();
    let thread = "01a22722-f4ac-7162-8cd9-27bc304639c1";
    home.rollout("2026/11/29", "rollout-3-turns-resumed.jsonl", thread);
    let mut parser = CodexParser::new();
    parser.feed(&format!(
        r#"{{"type":"thread.started","thread_id":"{thread}"}}"#
    ));
    parser.feed(r#"{"type":"turn.completed","usage":{"input_tokens":30651}}"#);
    let outcome = parser.finish(&ok_exit(), &home.homes, Some(thread));
    assert_eq!(outcome.status, Some(TurnStatus::Completed));
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 10301,
            window: 258400
        })
    );
    // `turn.completed.usage` is the thread's running total (30651 in): the turn's own tokens
    // are the rollout's last total less the one before the turn began.
    assert_eq!(
        outcome.cost,
        Some(crate::words::TurnCost {
            input_tokens: 30651 - 20357,
            cached_tokens: 0,
            output_tokens: 21 - 14,
            usd: None,
        })
    );

    // Codex started a new thread instead (a non-UUID or unknown name).
    let (parser, _) = parse("exec-json-success.stdout.jsonl");
    let outcome = parser.finish(&ok_exit(), &home.homes, Some(thread));
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    assert_eq!(
        outcome.session_id.as_deref(),
        Some("01a22721-2de9-7bb3-bb7a-acb98d244678")
    );
    assert_eq!(
        outcome.error.as_deref(),
        Some("codex started a different thread (01a22721-2de9-7bb3-bb7a-acb98d244678) instead of resuming 01a22722-f4ac-7162-8cd9-27bc304639c1")
    );
}

#[test]
fn resume_of_an_unknown_thread_is_session_not_found() {
    let home = home();
    let exit = ExitInfo {
        code: Some(1),
        stderr_tail: capture("resume-nonexistent-uuid.stderr.txt"),
        ..ExitInfo::default()
    };
    let id = "11111111-2222-4333-8444-555555555555";
    let outcome = CodexParser::new().finish(&exit, &home.homes, Some(id));
    assert!(outcome.session_not_found);
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    assert_eq!(
        outcome.error.as_deref(),
        Some("codex has no thread 11111111-2222-4333-8444-555555555555 to resume (rc 1: Error: thread/resume: thread/resume failed: no rollout found for thread id 11111111-2222-4333-8444-555555555555 (code -32600))")
    );
}

#[test]
fn failed_turns_carry_the_message_and_reconnects_are_warnings() {
    let home = home();
    let rows = [
        (
            "exec-json-FAIL400.stdout.jsonl",
            1,
            "{\"error\": {\"message\": \"mock bad request\"",
        ),
        (
            "exec-json-FAIL401.stdout.jsonl",
            6,
            "unexpected status 401 Unauthorized",
        ),
        ("exec-json-FAILCTX.stdout.jsonl", 1, "Codex ran out of room"),
        (
            "exec-json-http500.stdout.jsonl",
            6,
            "We’re currently experiencing high demand",
        ),
        (
            "exec-json-response-failed.stdout.jsonl",
            6,
            "stream disconnected before completion",
        ),
        (
            "exec-json-transport-error.stdout.jsonl",
            6,
            "stream disconnected before completion",
        ),
    ];
    for (name, warnings, error) in rows {
        let (parser, events) = parse(name);
        let count = events
            .iter()
            .filter(|e| matches!(e, TurnEvent::Warning { .. }))
            .count();
        assert_eq!(
            count,
            warnings + 1,
            "{name}: plus the model metadata warning"
        );
        let exit = ExitInfo {
            code: Some(1),
            ..ExitInfo::default()
        };
        let outcome = parser.finish(&exit, &home.homes, None);
        assert_eq!(outcome.status, Some(TurnStatus::Failed), "{name}");
        assert!(
            outcome.error.as_deref().unwrap().starts_with(error),
            "{name}: {:?}",
            outcome.error
        );
        assert!(!outcome.session_not_found);
    }
}

#[test]
fn sigint_is_interrupted() {
    let home = home();
    let thread = "01a22724-0434-7f53-b400-9c37c50c0ebe";
    home.rollout("2026/11/29", "rollout-sigint-aborted.jsonl", thread);
    let (parser, _) = parse("exec-json-sigint.stdout.jsonl");
    let exit = ExitInfo {
        code: Some(1),
        interrupted: true,
        ..ExitInfo::default()
    };
    let outcome = parser.finish(&exit, &home.homes, None);
    assert_eq!(outcome.status, Some(TurnStatus::Interrupted));
    assert_eq!(
        outcome.context, None,
        "the aborted turn recorded no token count"
    );
    assert_eq!(outcome.model.as_deref(), Some("mock-model"));
    // Not interrupted by us: a dying CLI.
    let (parser, _) = parse("exec-json-sigint.stdout.jsonl");
    let exit = ExitInfo {
        code: Some(1),
        stderr_tail: "panicked at x\n".into(),
        ..ExitInfo::default()
    };
    let outcome = parser.finish(&exit, &home.homes, None);
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    assert_eq!(
        outcome.error.as_deref(),
        Some("codex exited with rc 1: panicked at x before the turn ended")
    );
}

#[test]
fn garbage_gives_a_clear_error() {
    let home = home();
    let mut parser = CodexParser::new();
    assert!(parser.feed("Usage: codex [OPTIONS]").is_empty());
    assert!(parser.feed("{\"no_type\": 1}").is_empty());
    let exit = ExitInfo {
        code: Some(2),
        stderr_tail: "error: unexpected argument\n".into(),
        ..ExitInfo::default()
    };
    let outcome = parser.finish(&exit, &home.homes, None);
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    assert_eq!(
        outcome.error.as_deref(),
        Some("codex printed no JSON events (is it a real Codex CLI?): 2 other stdout lines, then it exited with rc 2: error: unexpected argument")
    );
}

#[test]
fn find_rollout_prefers_the_newest_day() {
    let home = home();
    let thread = "01a22721-2de9-7bb3-bb7a-acb98d244678";
    home.rollout("2025/12/31", "rollout-turn1.jsonl", thread);
    let newest = home.rollout("2026/01/02", "rollout-turn1.jsonl", thread);
    home.rollout("2026/01/01", "rollout-turn1.jsonl", "other-thread");
    assert_eq!(find_rollout(&home.homes.codex, thread), Some(newest));
    assert_eq!(find_rollout(&home.homes.codex, "missing"), None);
    assert_eq!(find_rollout(&home.dir.path().join("nowhere"), thread), None);
}

#[test]
fn item_summaries() {
    let rows = [
        (
            r#"{"id":"1","type":"command_execution","command":"/bin/bash -lc 'echo '\"'\"'hi'\"'\"''"}"#,
            "shell",
            "Shell echo 'hi'",
        ),
        (
            r#"{"id":"2","type":"command_execution","command":"ls -la"}"#,
            "shell",
            "Shell ls -la",
        ),
        (
            r#"{"id":"3","type":"command_execution","command":"/bin/zsh -lc \"cargo test\""}"#,
            "shell",
            "Shell cargo test",
        ),
        (
            r#"{"id":"4","type":"file_change","changes":[{"path":"a.rs","kind":"update"},{"path":"b.rs","kind":"add"}]}"#,
            "patch",
            "Edit a.rs, Add b.rs",
        ),
        (
            r#"{"id":"5","type":"mcp_tool_call","server":"docs","tool":"search"}"#,
            "mcp",
            "docs.search",
        ),
        (
            r#"{"id":"6","type":"web_search","query":"rust tokio"}"#,
            "web_search",
            "rust tokio",
        ),
        (
            r#"{"id":"7","type":"new_kind","x":1}"#,
            "new_kind",
            "{\"x\":1}",
        ),
    ];
    let mut parser = CodexParser::new();
    for (item, name, summary) in rows {
        let line = format!(r#"{{"type":"item.started","item":{item}}}"#);
        let want = vec![TurnEvent::ToolUse {
            name: name.into(),
            summary: summary.into(),
            id: Some(item[7..8].to_string()),
            parent: None,
            edits: vec![],
        }];
        assert_eq!(parser.feed(&line), want);
        // The completion of the same item is not reported again (a command's brings its
        // result, below).
        let done = parser.feed(&line.replace("item.started", "item.completed"));
        assert!(
            done.iter()
                .all(|e| matches!(e, TurnEvent::ToolResult { .. })),
            "{done:?}"
        );
    }
    assert_eq!(
        unwrap_shell("/bin/bash -lc 'a' 'b'"),
        "/bin/bash -lc 'a' 'b'"
    );
    assert_eq!(unwrap_shell("/bin/bash -lc 'open"), "/bin/bash -lc 'open");
    // The script of a command holding quotes, as the real CLI quotes it.
    assert_eq!(
        unwrap_shell(r#"/bin/bash -lc "grep -n 'pub fn' src/invoices.rs""#),
        "grep -n 'pub fn' src/invoices.rs"
    );
    assert_eq!(
        unwrap_shell(r#"/bin/bash -lc 'grep -n '"'"'pub fn'"'"' src/x.rs'"#),
        "grep -n 'pub fn' src/x.rs"
    );
}

#[test]
fn a_failed_turn_with_a_blank_message_still_says_it_failed() {
    for message in ["", "   "] {
        let mut parser = CodexParser::new();
        let line = serde_json::json!({"type": "turn.failed", "error": {"message": message}});
        let events = parser.feed(&line.to_string());
        let error = events.iter().find_map(|e| match e {
            TurnEvent::End { error, .. } => error.clone(),
            _ => None,
        });
        assert_eq!(
            error.as_deref(),
            Some("codex reported a failed turn"),
            "{message:?}"
        );
    }
}

#[test]
fn completed_items_bring_their_results() {
    let rows: Vec<(&str, Vec<TurnEvent>)> = vec![
        (
            r#"{"id":"c1","type":"command_execution","command":"/bin/bash -lc 'cargo test'","aggregated_output":"ok\n","exit_code":0,"status":"completed"}"#,
            vec![TurnEvent::ToolResult {
                id: "c1".into(),
                output: "ok\n".into(),
                is_error: false,
                parent: None,
            }],
        ),
        (
            r#"{"id":"c2","type":"command_execution","command":"false","aggregated_output":"","exit_code":1,"status":"failed"}"#,
            vec![TurnEvent::ToolResult {
                id: "c2".into(),
                output: "(exit code 1)".into(),
                is_error: true,
                parent: None,
            }],
        ),
        (
            r#"{"id":"p1","type":"file_change","changes":[{"path":"/w/src/a.rs","kind":"update"}],"status":"completed"}"#,
            vec![TurnEvent::ToolResult {
                id: "p1".into(),
                output: super::PATCH_APPLIED.into(),
                is_error: false,
                parent: None,
            }],
        ),
        (
            r#"{"id":"p2","type":"file_change","changes":[{"path":"/w/src/a.rs","kind":"update"}],"status":"failed"}"#,
            vec![TurnEvent::ToolResult {
                id: "p2".into(),
                output: "the patch was not applied".into(),
                is_error: true,
                parent: None,
            }],
        ),
    ];
    for (item, want) in rows {
        let mut parser = CodexParser::in_dir(Path::new("/w"));
        parser.feed(&format!(r#"{{"type":"item.started","item":{item}}}"#));
        let done = parser.feed(&format!(r#"{{"type":"item.completed","item":{item}}}"#));
        assert_eq!(done, want, "{item}");
    }
}

#[test]
fn patch_paths_are_relative_to_the_checkout() {
    let mut parser = CodexParser::in_dir(Path::new("/w"));
    let line = r#"{"type":"item.started","item":{"id":"p","type":"file_change","changes":[{"path":"/w/src/a.rs","kind":"update"},{"path":"/elsewhere/b","kind":"delete"}],"status":"in_progress"}}"#;
    let events = parser.feed(line);
    assert!(
        matches!(&events[..], [TurnEvent::ToolUse { summary, .. }] if summary == "Edit src/a.rs, Delete /elsewhere/b"),
        "{events:?}"
    );
}

#[test]
fn a_turns_own_tokens_come_from_the_rollout_whatever_its_shape() {
    let count = |input: u64, output: u64| {
        format!(
            r#"{{"type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{input},"cached_input_tokens":0,"output_tokens":{output}}},"last_token_usage":{{"total_tokens":{}}},"model_context_window":1000}}}}}}"#,
            input + output
        )
    };
    let started = r#"{"type":"event_msg","payload":{"type":"task_started"}}"#;
    let context = r#"{"type":"turn_context","payload":{"model":"m"}}"#;
    let cost = |input, output| {
        Some(crate::words::TurnCost {
            input_tokens: input,
            cached_tokens: 0,
            output_tokens: output,
            usd: None,
        })
    };
    let cases: Vec<(Vec<String>, Option<crate::words::TurnCost>)> = vec![
        // The first turn: its total is its own.
        (
            vec![started.into(), context.into(), count(100, 5)],
            cost(100, 5),
        ),
        // Two calls in the turn: the last total less the previous turn's.
        (
            vec![
                started.into(),
                count(100, 5),
                started.into(),
                context.into(),
                count(250, 8),
                count(420, 12),
            ],
            cost(320, 7),
        ),
        // A turn that failed before any count has none of its own.
        (
            vec![
                started.into(),
                count(100, 5),
                started.into(),
                context.into(),
            ],
            None,
        ),
    ];
    for (lines, want) in cases {
        let (facts, done) = scan_rollout(&lines.join("\n"), true);
        assert!(done);
        assert_eq!(facts.turn_tokens, want, "{lines:?}");
    }
}

#[test]
fn a_thread_another_codex_holds_is_said_plainly() {
    let home = home();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/captures/codex-warm/w10-mix-cold.stderr.txt");
    let exit = ExitInfo {
        code: Some(1),
        stderr_tail: std::fs::read_to_string(path).unwrap(),
        ..ExitInfo::default()
    };
    let id = "01a234cb-5b15-7c12-872d-95455e3e5925";
    let outcome = CodexParser::new().finish(&exit, &home.homes, Some(id));
    assert!(
        !outcome.session_not_found,
        "the thread is there: no fresh one"
    );
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    let error = outcome.error.unwrap();
    assert!(
        error.starts_with(&format!(
            "codex could not open thread {id}: another Codex process has it open"
        )),
        "{error}"
    );
    assert!(error.contains("already has an active writer"), "{error}");
}
