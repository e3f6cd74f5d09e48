//! Tests of the claude adapter against the captured CLI output.
use super::*;
use pretty_assertions::assert_eq;

pub(in crate::providers) fn capture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/captures/claude-code")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn exit_of(name: &str) -> ExitInfo {
    let rc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("fixtures/captures/claude-code/{name}.rc")),
    )
    .map_or(0, |rc| rc.trim().parse().unwrap());
    let stderr = capture_opt(&format!("{name}.stderr"));
    ExitInfo {
        code: Some(rc),
        signal: None,
        stderr_tail: stderr,
        interrupted: false,
    }
}

fn capture_opt(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/captures/claude-code")
            .join(name),
    )
    .unwrap_or_default()
}

/// The shared test home, with a project folder to run in.
pub(in crate::providers) struct Home {
    _home: crate::providers::testing::Home,
    pub(in crate::providers) homes: ProviderHomes,
    pub(in crate::providers) cwd: PathBuf,
}

pub(in crate::providers) fn home() -> Home {
    let home = crate::providers::testing::home();
    let cwd = home.dir.path().join("proj1");
    std::fs::create_dir_all(&cwd).unwrap();
    Home {
        cwd: std::fs::canonicalize(&cwd).unwrap(),
        homes: home.homes.clone(),
        _home: home,
    }
}

fn parse(name: &str) -> (ClaudeParser, Vec<TurnEvent>) {
    let mut parser = ClaudeParser::new();
    let events = capture(&format!("{name}.stdout"))
        .lines()
        .flat_map(|l| parser.feed(l))
        .collect();
    (parser, events)
}

fn run(name: &str, home: &Home) -> (Vec<TurnEvent>, TurnOutcome) {
    let (parser, events) = parse(name);
    (
        events,
        parser.finish(&exit_of(name), &home.homes, &home.cwd),
    )
}

fn spec(session: SessionMode) -> RunSpec {
    RunSpec {
        provider: super::super::ProviderKind::Claude,
        bin: "claude".into(),
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

fn strings(args: Vec<OsString>) -> Vec<String> {
    args.into_iter().map(|a| a.into_string().unwrap()).collect()
}

#[test]
fn args_table() {
    let base = "-p --output-format stream-json --verbose --include-partial-messages --input-format stream-json --replay-user-messages";
    let new_id = SessionMode::New {
        session_id: Some("id-1".into()),
    };
    let resume = SessionMode::Resume {
        session_id: "id-2".into(),
    };
    let full = RunSpec {
        model: Some("claude-opus-4-8[1m]".into()),
        system_text: "- house rules\nline two".into(),
        permission_mode: Some("acceptEdits".into()),
        add_dirs: vec!["/shots".into(), "/tmp dir".into()],
        extra_args: vec!["--max-turns".into(), "3".into()],
        ..spec(resume.clone())
    };
    let rows: Vec<(RunSpec, Vec<String>)> = vec![
        (spec(SessionMode::New { session_id: None }), vec![]),
        (
            spec(new_id.clone()),
            vec!["--session-id", "id-1"]
                .into_iter()
                .map(String::from)
                .collect(),
        ),
        (spec(resume.clone()), vec!["--resume".into(), "id-2".into()]),
        (
            spec(SessionMode::Fork {
                from: "id-2".into(),
                session_id: Some("id-3".into()),
                at: None,
            }),
            ["--resume", "id-2", "--fork-session", "--session-id", "id-3"]
                .map(String::from)
                .to_vec(),
        ),
        (
            spec(SessionMode::Fork {
                from: "id-2".into(),
                session_id: Some("id-3".into()),
                at: Some("uuid-7".into()),
            }),
            [
                "--resume",
                "id-2",
                "--fork-session",
                "--session-id",
                "id-3",
                "--resume-session-at",
                "uuid-7",
            ]
            .map(String::from)
            .to_vec(),
        ),
        (
            RunSpec {
                model: Some("sonnet".into()),
                system_text: "rules".into(),
                ..spec(new_id)
            },
            [
                "--session-id",
                "id-1",
                "--model",
                "sonnet",
                "--append-system-prompt-file",
                "/data/terminals/t/runs/baton-t-u.txt",
            ]
            .map(String::from)
            .to_vec(),
        ),
        (
            full,
            [
                "--resume",
                "id-2",
                "--model",
                "claude-opus-4-8[1m]",
                "--append-system-prompt-file",
                "/data/terminals/t/runs/baton-t-u.txt",
                "--permission-mode",
                "acceptEdits",
                "--add-dir=/shots",
                "--add-dir=/tmp dir",
                "--max-turns",
                "3",
            ]
            .map(String::from)
            .to_vec(),
        ),
    ];
    for (spec, tail) in rows {
        let mut want: Vec<String> = base.split(' ').map(String::from).collect();
        want.extend(tail);
        assert_eq!(strings(args(&spec)), want);
    }
}

#[test]
fn run1_hello_reports_session_text_usage_and_window() {
    let home = home();
    let (events, outcome) = run("run1-hello", &home);
    let id = "8dffe31f-5134-40ee-9e54-ebb94b51af0b";
    let text = "MOCK-REPLY #1 model=claude-opus-5-5 last_user=hello";
    assert_eq!(
        events,
        vec![
            TurnEvent::Session {
                session_id: id.into(),
                model: Some("claude-opus-5-5".into())
            },
            TurnEvent::Text { text: text.into() },
            TurnEvent::Usage {
                tokens: 1001 + 2001 + 3001 + 1
            },
            TurnEvent::End {
                status: TurnStatus::Completed,
                error: None
            },
        ]
    );
    assert_eq!(
        outcome,
        TurnOutcome {
            status: Some(TurnStatus::Completed),
            error: None,
            session_id: Some(id.into()),
            model: Some("claude-opus-5-5".into()),
            // No session file here: the stream's own output count is all there is.
            context: Some(ContextUsage {
                tokens: 1001 + 2001 + 3001 + 1,
                window: 1_000_000
            }),
            session_not_found: false,
            answer: text.into(),
            // The result's usage over the turn, and its total_cost_usd.
            cost: Some(crate::words::TurnCost {
                input_tokens: 1001 + 2001 + 3001,
                cached_tokens: 3001,
                output_tokens: 41,
                usd: Some(0.0154292),
            }),
        }
    );
}

#[test]
fn tooluse_context_is_the_last_call_with_its_final_output_from_the_session_file() {
    let home = home();
    let id = "b868a233-cb59-492d-a502-8da5d8381056";
    let (events, outcome) = run("tooluse", &home);
    assert_eq!(
        events[1],
        TurnEvent::ToolUse {
            name: "Read".into(),
            summary: "Read /home/dev/proj1/note.txt".into(),
            id: Some("toolu_mock_1".into()),
            parent: None,
            edits: vec![],
        }
    );
    // Without the session file: the stream's partial output count of the last call.
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 1002 + 2002 + 3002 + 1,
            window: 1_000_000
        })
    );
    let file = session_file(&home.homes, &home.cwd, id);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, capture(&format!("sessions/tooluse-{id}.jsonl"))).unwrap();
    let (_, outcome) = run("tooluse", &home);
    // Not result.usage (2003+4003+6003+83), which sums both calls.
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 1002 + 2002 + 3002 + 42,
            window: 1_000_000
        })
    );
    assert_eq!(outcome.status, Some(TurnStatus::Completed));
}

#[test]
fn session_file_of_another_request_is_not_used() {
    let home = home();
    let id = "b868a233-cb59-492d-a502-8da5d8381056";
    // A session file whose last call is the FIRST one: its counts do not match the stream's.
    let lines: Vec<String> = capture(&format!("sessions/tooluse-{id}.jsonl"))
        .lines()
        .map(String::from)
        .collect();
    let cut = lines
        .iter()
        .rposition(|l| l.contains("\"output_tokens\":42"))
        .unwrap();
    let file = session_file(&home.homes, &home.cwd, id);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, lines[..cut].join("\n")).unwrap();
    let (_, outcome) = run("tooluse", &home);
    assert_eq!(
        outcome.context.map(|c| c.tokens),
        Some(1002 + 2002 + 3002 + 1)
    );
}

#[test]
fn resume_missing_is_session_not_found() {
    let home = home();
    for name in ["resume-missing", "v197-resume-missing"] {
        let (events, outcome) = run(name, &home);
        let error = "No conversation found with session ID: 11111111-2222-4333-8444-555555555555";
        assert_eq!(
            events,
            vec![TurnEvent::End {
                status: TurnStatus::Failed,
                error: Some(error.into())
            }]
        );
        assert!(outcome.session_not_found, "{name}");
        assert_eq!(outcome.status, Some(TurnStatus::Failed));
        assert_eq!(outcome.context, None);
    }
    // Only stderr says so (a CLI that printed no result line).
    let exit = ExitInfo {
        code: Some(1),
        stderr_tail: capture("resume-missing.stderr"),
        ..ExitInfo::default()
    };
    let outcome = ClaudeParser::new().finish(&exit, &home.homes, &home.cwd);
    assert!(outcome.session_not_found);
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
}

#[test]
fn resume_notuuid_fails_with_the_cli_message() {
    let home = home();
    let (_, outcome) = run("resume-notuuid", &home);
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    assert!(!outcome.session_not_found);
    assert!(outcome
        .error
        .unwrap()
        .starts_with("Error: --resume requires a valid session ID"));
}

#[test]
fn api_errors_fail_with_the_result_text_and_no_usage() {
    let home = home();
    let rows = [
        ("err-529", "API Error: 529 mock forced failure.", true),
        (
            "err-401",
            "Failed to authenticate. API Error: 401 mock forced failure",
            true,
        ),
        ("err-400-prompt_too_long", "Prompt is too long", false),
    ];
    for (name, error_start, retried) in rows {
        let (events, outcome) = run(name, &home);
        assert_eq!(outcome.status, Some(TurnStatus::Failed), "{name}");
        assert!(
            outcome.error.as_deref().unwrap().starts_with(error_start),
            "{name}: {:?}",
            outcome.error
        );
        assert_eq!(
            outcome.context, None,
            "{name}: the synthetic message has no real usage"
        );
        assert_eq!(outcome.answer, "", "{name}");
        assert!(!events
            .iter()
            .any(|e| matches!(e, TurnEvent::Usage { .. } | TurnEvent::Text { .. })));
        let warned = events
            .iter()
            .any(|e| matches!(e, TurnEvent::Warning { .. }));
        assert_eq!(warned, retried, "{name}");
    }
    let (events, _) = run("err-529", &home);
    assert_eq!(
        events[1],
        TurnEvent::Warning {
            message: "claude API error 529 (overloaded), retry 1/1".into()
        }
    );
}

#[test]
fn maxturns_fails_with_the_errors_list() {
    let home = home();
    let (_, outcome) = run("maxturns1", &home);
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    assert_eq!(
        outcome.error.as_deref(),
        Some("Reached maximum number of turns (1)")
    );
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 1004 + 2004 + 3004 + 1,
            window: 1_000_000
        })
    );
}

#[test]
fn result_error_falls_back_to_status_and_reason() {
    let value: Value = serde_json::json!({"api_error_status": 500, "terminal_reason": "api_error"});
    assert_eq!(
        result_error(&value, &[]),
        "claude failed: API error 500, terminal_reason api_error"
    );
    assert_eq!(
        result_error(&serde_json::json!({}), &[]),
        "claude reported an error without details"
    );
}

#[test]
fn v197_window_comes_from_the_1m_key() {
    let home = home();
    let id = "49557436-d9e3-4bce-8089-ed1f5437ce4e";
    let file = session_file(&home.homes, &home.cwd, id);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        capture(&format!("sessions/v2.1.197-hello-{id}.jsonl")),
    )
    .unwrap();
    let (_, outcome) = run("v197-hello", &home);
    assert_eq!(outcome.model.as_deref(), Some("claude-opus-4-8[1m]"));
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 1004 + 2004 + 3004 + 44,
            window: 1_000_000
        })
    );
}

#[test]
fn window_choice_table() {
    let windows = |pairs: &[(&str, u64)]| pairs.iter().map(|(k, w)| (k.to_string(), *w)).collect();
    let usage = CallUsage {
        input: 1,
        cache_creation: 0,
        cache_read: 0,
        output: 0,
    };
    type Row<'a> = (
        Option<&'a str>,
        Option<&'a str>,
        Vec<(String, u64)>,
        Option<u64>,
    );
    let rows: Vec<Row> = vec![
        (
            Some("a"),
            Some("b"),
            windows(&[("b", 2), ("a", 1)]),
            Some(1),
        ),
        (None, Some("b"), windows(&[("b", 2), ("a", 1)]), Some(2)),
        (
            Some("x"),
            Some("m"),
            windows(&[("m[1m]", 7), ("z", 9)]),
            Some(7),
        ),
        (Some("x"), Some("y"), windows(&[("only", 5)]), Some(5)),
        (
            Some("x"),
            Some("y"),
            windows(&[("p", 5), ("q", 8)]),
            Some(8),
        ),
        (Some("x"), None, Vec::new(), None),
    ];
    for (init, last, windows, want) in rows {
        let parser = ClaudeParser {
            init_model: init.map(String::from),
            last_call: Some((usage, None, last.map(String::from))),
            result: Some(ResultLine {
                status: TurnStatus::Completed,
                error: None,
                session_id: None,
                windows,
                cost: None,
                total_usd: None,
            }),
            ..ClaudeParser::default()
        };
        assert_eq!(parser.window(), want, "{init:?} {last:?}");
    }
}

#[test]
fn out_partial_uses_the_message_delta_output() {
    let home = home();
    let (events, outcome) = run("out-partial", &home);
    let delta = |text: &str, start| TurnEvent::Delta {
        text: text.into(),
        start,
    };
    assert_eq!(
        events,
        vec![
            TurnEvent::Session {
                session_id: "e99267ca-07d7-4f4f-95dc-50f7231ba9ed".into(),
                model: Some("claude-opus-5-5".into())
            },
            // The call's start already says what it was sent.
            TurnEvent::Usage {
                tokens: 1018 + 2018 + 3018 + 1
            },
            delta("MOCK-REPLY #18 model=claude", true),
            delta("-opus-5-5 last_user=partial", false),
            // The full `assistant` message adds its usage, not its text again.
            TurnEvent::Usage {
                tokens: 1018 + 2018 + 3018 + 1
            },
            TurnEvent::End {
                status: TurnStatus::Completed,
                error: None
            },
        ]
    );
    assert_eq!(outcome.status, Some(TurnStatus::Completed));
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 1018 + 2018 + 3018 + 58,
            window: 1_000_000
        })
    );
}

#[test]
fn a_2_1_197_turn_takes_its_output_count_from_the_stream_before_its_session_file_is_written() {
    // 2.1.197 writes the turn's session entries a few ms after its result (no file at all
    // after a first turn), and its stream events carry no `api_message_id`.
    let home = home();
    let stdout = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/captures/fork/claude/2.1.197/01-turn1/stdout.jsonl"),
    )
    .unwrap();
    assert!(!stdout.contains("api_message_id"));
    let mut parser = ClaudeParser::new();
    for line in stdout.lines() {
        parser.feed(line);
    }
    let exit = ExitInfo {
        code: Some(0),
        signal: None,
        stderr_tail: String::new(),
        interrupted: false,
    };
    let outcome = parser.finish(&exit, &home.homes, &home.cwd);
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 1022 + 2022 + 3022 + 62,
            window: 1_000_000
        })
    );
}

#[test]
fn garbage_and_early_exits_give_clear_errors() {
    let home = home();
    let mut parser = ClaudeParser::new();
    assert!(parser.feed("hello, I am not claude").is_empty());
    assert!(parser.feed("[1,2]").is_empty());
    let exit = ExitInfo {
        code: Some(0),
        stderr_tail: "usage: fake\n".into(),
        ..ExitInfo::default()
    };
    let outcome = parser.finish(&exit, &home.homes, &home.cwd);
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    assert_eq!(
        outcome.error.as_deref(),
        Some("claude printed no stream-json events (is it a real Claude Code CLI?): 2 other stdout lines, then it exited with rc 0: usage: fake")
    );
    // Dies mid-turn: init seen, no result.
    let (mut parser, _) = parse("run1-hello");
    parser.result = None;
    let exit = ExitInfo {
        code: None,
        signal: Some(9),
        ..ExitInfo::default()
    };
    let outcome = parser.finish(&exit, &home.homes, &home.cwd);
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    assert_eq!(
        outcome.error.as_deref(),
        Some("claude exited with signal 9 (SIGKILL) (stderr was empty) before reporting the turn's result")
    );
}

#[test]
fn interrupts_are_interrupted_unless_the_turn_completed() {
    let home = home();
    let rows = [
        (
            ExitInfo {
                signal: Some(2),
                ..ExitInfo::default()
            },
            TurnStatus::Interrupted,
        ),
        (
            ExitInfo {
                code: Some(130),
                ..ExitInfo::default()
            },
            TurnStatus::Interrupted,
        ),
        (
            ExitInfo {
                code: Some(1),
                interrupted: true,
                ..ExitInfo::default()
            },
            TurnStatus::Interrupted,
        ),
        (
            ExitInfo {
                code: Some(1),
                ..ExitInfo::default()
            },
            TurnStatus::Failed,
        ),
    ];
    for (exit, want) in rows {
        let (mut parser, _) = parse("run1-hello");
        parser.result = None;
        assert_eq!(
            parser.finish(&exit, &home.homes, &home.cwd).status,
            Some(want),
            "{exit:?}"
        );
    }
    let (parser, _) = parse("run1-hello");
    let exit = ExitInfo {
        code: Some(0),
        interrupted: true,
        ..ExitInfo::default()
    };
    assert_eq!(
        parser.finish(&exit, &home.homes, &home.cwd).status,
        Some(TurnStatus::Completed)
    );
}

#[test]
fn encode_cwd_matches_claude_code() {
    assert_eq!(encode_cwd(Path::new("/home/dev/proj1")), "-home-dev-proj1");
    assert_eq!(encode_cwd(Path::new("/a/my_proj.v2/é")), "-a-my-proj-v2--");
    // Outside the BMP: two UTF-16 units, two dashes (JavaScript's regex without /u).
    assert_eq!(encode_cwd(Path::new("/x/😀")), "-x---");
    // Expected values computed by Claude Code's own sanitizePath under Node.
    let long = format!("/{}", "a".repeat(250));
    assert_eq!(
        encode_cwd(Path::new(&long)),
        format!("-{}-feo44x", "a".repeat(199))
    );
    let wide = format!("/home/dev/{}/x😀{}", "é".repeat(120), "b".repeat(90));
    let want = format!("-home-dev-{}x--{}-qvna8p", "-".repeat(121), "b".repeat(66));
    assert_eq!(encode_cwd(Path::new(&wide)), want);
    assert_eq!(to_base36(0), "0");
    assert_eq!(to_base36(2_147_483_648), "zik0zk");
}

#[test]
fn session_lookup_finds_the_cwd_dir_then_any_project() {
    let home = home();
    let id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
    assert!(!session_exists(&home.homes, &home.cwd, id));
    let other = home.homes.claude.join("projects/-elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join(format!("{id}.jsonl")), "").unwrap();
    assert!(
        !session_exists(&home.homes, &home.cwd, id),
        "an empty file is no session"
    );
    std::fs::write(other.join(format!("{id}.jsonl")), "{}\n").unwrap();
    assert!(session_exists(&home.homes, &home.cwd, id));
    assert!(!session_exists(&home.homes, &home.cwd, "../-elsewhere/x"));
    let direct = session_file(&home.homes, &home.cwd, id);
    assert_eq!(
        direct
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap(),
        encode_cwd(&home.cwd)
    );
}

#[test]
fn one_line_cuts_on_char_boundaries() {
    assert_eq!(one_line("ééé", 2), "éé…");
    assert_eq!(one_line("  short  ", 10), "short");
    assert_eq!(one_line("", 10), "");
}

#[test]
fn a_real_interrupted_run_is_interrupted_and_keeps_its_partial_answer() {
    // Real Claude Code exits 0 after SIGINT, ending with an error result (`aborted_streaming`).
    for version in ["2.1.332", "2.1.197"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
            "fixtures/captures/real-sigint/claude-{version}-sigint.stdout.jsonl"
        ));
        let mut parser = ClaudeParser::new();
        for line in std::fs::read_to_string(path).unwrap().lines() {
            parser.feed(line);
        }
        let exit = ExitInfo {
            code: Some(0),
            signal: None,
            stderr_tail: String::new(),
            interrupted: true,
        };
        let h = home();
        let outcome = parser.finish(&exit, &h.homes, &h.cwd);
        assert_eq!(outcome.status, Some(TurnStatus::Interrupted), "{version}");
        assert_eq!(outcome.error, None, "{version}");
        assert!(
            outcome.answer.starts_with("STANDIN-REPLY"),
            "{version}: {}",
            outcome.answer
        );
    }
}

/// Feeds the capture at `rel` (under `fixtures/captures/`) and finishes it with `exit`.
fn fixture_outcome(rel: &str, exit: &ExitInfo) -> (Vec<TurnEvent>, TurnOutcome) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/captures")
        .join(rel);
    let mut parser = ClaudeParser::new();
    let mut events = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        events.extend(parser.feed(line));
    }
    let h = home();
    (events, parser.finish(exit, &h.homes, &h.cwd))
}

fn sigint_exit() -> ExitInfo {
    ExitInfo {
        code: Some(0),
        signal: None,
        stderr_tail: String::new(),
        interrupted: true,
    }
}

#[test]
fn a_compaction_is_a_notice_and_leaves_its_post_tokens_in_context() {
    let exit = ExitInfo {
        interrupted: false,
        ..sigint_exit()
    };
    let (events, outcome) = fixture_outcome("compact/claude-2.1.332-compact.stdout.jsonl", &exit);
    assert_eq!(outcome.status, Some(TurnStatus::Completed));
    let notices: Vec<&TurnEvent> = events
        .iter()
        .filter(|e| matches!(e, TurnEvent::Notice { .. }))
        .collect();
    assert_eq!(
        notices,
        [&TurnEvent::Notice {
            message: "claude compacted the conversation (/compact): context 6,060 → 2,627 tokens"
                .into()
        }]
    );
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 2627,
            window: 1_000_000
        })
    );
    // The result's `usage` counts nothing; the compaction's two calls are in
    // `model_usage_since_last_result`.
    let cost = outcome.cost.unwrap();
    assert_eq!(
        (cost.input_tokens, cost.cached_tokens, cost.output_tokens),
        (2013 + 4013 + 6013, 6013, 93)
    );
    assert!((cost.usd.unwrap() - 0.0311796).abs() < 1e-9);
}

#[test]
fn an_interrupted_turn_counts_the_tokens_the_cli_reported() {
    // (capture, input incl. cache, cached, output): 2.1.332 reports the interrupted call in
    // `model_usage_since_last_result`; 2.1.197's result counts nothing, its stream has the call.
    let rows = [
        (
            "compact/claude-2.1.332-sigint-partial.stdout.jsonl",
            1009 + 2009 + 3009,
            3009,
            2,
        ),
        (
            "real-sigint/claude-2.1.332-sigint.stdout.jsonl",
            1013 + 2013 + 3013,
            3013,
            13,
        ),
        (
            "real-sigint/claude-2.1.197-sigint.stdout.jsonl",
            1023 + 2023 + 3023,
            3023,
            1,
        ),
    ];
    for (rel, input, cached, output) in rows {
        let (_, outcome) = fixture_outcome(rel, &sigint_exit());
        assert_eq!(outcome.status, Some(TurnStatus::Interrupted), "{rel}");
        let cost = outcome.cost.unwrap();
        assert_eq!(
            (cost.input_tokens, cost.cached_tokens, cost.output_tokens),
            (input, cached, output),
            "{rel}"
        );
    }
}

#[test]
fn the_last_call_is_found_past_each_tail_read() {
    let dir = tempfile::tempdir().unwrap();
    let assistant = |output: u64, pad: usize| {
        serde_json::json!({"type": "assistant", "message": {"model": "m", "content": "x".repeat(pad),
            "usage": {"input_tokens": 1, "output_tokens": output}}})
        .to_string()
    };
    let filler = |bytes: usize| {
        serde_json::json!({"type": "user", "message": {"content": "y".repeat(bytes)}}).to_string()
    };
    let cases = [
        // (what follows the last call, the last call's own size)
        ("a few lines", 100, 10),
        (
            "a last call larger than the first tail",
            100,
            SESSION_TAILS[0] as usize * 2,
        ),
        (
            "a tool result larger than the first tail",
            SESSION_TAILS[0] as usize * 3,
            10,
        ),
        (
            "a tool result larger than the second tail",
            SESSION_TAILS[1] as usize + 10,
            10,
        ),
        (
            "a tool result larger than the largest tail",
            SESSION_TAILS[2] as usize + 10,
            10,
        ),
    ];
    for (what, after, own) in cases {
        let file = dir.path().join("s.jsonl");
        let text = [assistant(1, 10), assistant(7, own), filler(after)].join("\n") + "\n";
        std::fs::write(&file, text).unwrap();
        let (_, call) = last_call_in_session_file(&file).unwrap_or_else(|| panic!("{what}: none"));
        assert_eq!(call.output, 7, "{what}");
    }
    let file = dir.path().join("none.jsonl");
    std::fs::write(&file, filler(10) + "\n").unwrap();
    assert_eq!(last_call_in_session_file(&file), None);
}

#[test]
fn wild_token_counts_saturate_instead_of_wrapping() {
    let usage = CallUsage {
        input: u64::MAX,
        cache_creation: 1,
        cache_read: u64::MAX,
        output: 7,
    };
    assert_eq!(usage.total(), u64::MAX);
}

#[test]
fn a_turns_money_is_its_own_not_the_running_total() {
    let v = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
    let usage = r#""usage":{"input_tokens":1}"#;
    // (result line, the process's previous total, the turn's money)
    let rows: Vec<(String, Option<f64>, Option<f64>)> = vec![
        // 2.1.197, the first turn of a process: the total is the turn's.
        (
            format!(r#"{{{usage},"total_cost_usd":0.02}}"#),
            None,
            Some(0.02),
        ),
        // 2.1.197, a further turn of a warm process: the total less the last one.
        (
            format!(r#"{{{usage},"total_cost_usd":0.05}}"#),
            Some(0.02),
            Some(0.03),
        ),
        // 2.1.332 says what this result cost: a resumed session's total holds earlier ones.
        (
            format!(
                r#"{{{usage},"total_cost_usd":0.0315884,"model_usage_since_last_result":{{"m":{{"costUSD":0.0158088}}}}}}"#
            ),
            None,
            Some(0.0158088),
        ),
        (
            format!(
                r#"{{{usage},"total_cost_usd":0.5,"model_usage_since_last_result":{{"a":{{"costUSD":0.25}},"b":{{"costUSD":0.125}}}}}}"#
            ),
            Some(0.1),
            Some(0.375),
        ),
        // An interrupted call billed nothing.
        (
            format!(r#"{{{usage},"total_cost_usd":0.5,"model_usage_since_last_result":{{}}}}"#),
            None,
            Some(0.0),
        ),
        // A total below the last one (never seen) is not a negative cost.
        (
            format!(r#"{{{usage},"total_cost_usd":0.01}}"#),
            Some(0.02),
            Some(0.0),
        ),
        (format!(r#"{{{usage}}}"#), Some(0.02), None),
    ];
    for (line, before, want) in rows {
        let got = result_cost(&v(&line), before).and_then(|c| c.usd);
        match (got, want) {
            (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{line}: {g} != {w}"),
            (g, w) => assert_eq!(g, w, "{line}"),
        }
    }
}

#[test]
fn each_turn_of_a_captured_process_costs_what_it_cost() {
    // Two turns in one process, and a resumed session's first turn: each result's own money.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/captures/steer");
    let cases: [(&str, &[f64]); 3] = [
        ("two-turns-2.1.332", &[0.015545999999999999, 0.0155752]),
        ("two-turns-2.1.197", &[0.02025725, 0.020294]),
        ("resume-two-turns-2.1.332", &[0.0158088]),
    ];
    for (case, want) in cases {
        let text = std::fs::read_to_string(dir.join(case).join("stdout.jsonl")).unwrap();
        let mut before = None;
        let mut got = Vec::new();
        for line in text.lines().filter(|l| l.contains(r#""type":"result""#)) {
            let mut parser = ClaudeParser::after(std::path::Path::new("/home/dev/proj"), before);
            parser.feed(line);
            got.push(
                parser
                    .result
                    .as_ref()
                    .and_then(|r| r.cost)
                    .and_then(|c| c.usd),
            );
            before = parser.total_usd();
        }
        assert_eq!(got.len(), want.len(), "{case}");
        for (g, w) in got.iter().zip(want) {
            let g = g.unwrap_or(-1.0);
            assert!((g - w).abs() < 1e-9, "{case}: {g} != {w}");
        }
    }
}
