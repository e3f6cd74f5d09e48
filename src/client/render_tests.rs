//! Tests of `render`.

use super::*;
use crate::words::ProviderKind;
use pretty_assertions::assert_eq;

#[test]
fn summary_names_provider_session_context_and_rotation() {
    let s = TurnSummary {
        turn_id: "t".into(),
        number: 2,
        status: TurnStatus::Completed,
        error: None,
        provider: ProviderKind::Claude,
        session_id: Some("abc".into()),
        model: None,
        conversation: 1,
        conversation_id: "c".into(),
        opened: None,
        context: Some(ContextUsage {
            tokens: 90_200,
            window: 200_000,
        }),
        rotates_next: true,
        rotate_at: 0.45,
        unusable_cli: false,
        commit: None,
        cost: Some(crate::words::TurnCost {
            input_tokens: 90_100,
            cached_tokens: 80_000,
            output_tokens: 100,
            usd: Some(0.0421),
        }),
        elapsed_ms: 12_340,
    };
    assert_eq!(
        summary_line(&s),
        "── completed · claude · session abc · context 90,200 of 200,000 tokens (45.1%) · conversation 1 · 12.3 s · 90,100 in (80,000 cached) / 100 out tokens · $0.0421 · passed 45%: the next prompt opens a fresh conversation"
    );
}

#[test]
fn a_cost_names_its_tokens_and_money_only_where_the_cli_reports_it() {
    let cost = |cached, usd| crate::words::TurnCost {
        input_tokens: 10_135,
        cached_tokens: cached,
        output_tokens: 10,
        usd,
    };
    let rows = [
        (cost(0, None), "10,135 in / 10 out tokens"),
        (
            cost(8_000, None),
            "10,135 in (8,000 cached) / 10 out tokens",
        ),
        (
            cost(0, Some(0.00421)),
            "10,135 in / 10 out tokens · $0.0042",
        ),
    ];
    for (c, want) in rows {
        assert_eq!(cost_text(&c), want);
    }
    let cells = [
        (None, "-"),
        (Some(cost(0, None)), "11k tok"),
        (Some(cost(0, Some(1.5))), "$1.50"),
    ];
    for (c, want) in cells {
        assert_eq!(cost_cell(c.as_ref()), want);
    }
    // `ls` has room for both: the money reported and every turn's tokens.
    let ls_cells = [
        (None, "-"),
        (Some(cost(0, None)), "11k tok"),
        (Some(cost(0, Some(1.5))), "$1.50 · 11k tok"),
    ];
    for (c, want) in ls_cells {
        assert_eq!(ls_cost_cell(c.as_ref()), want);
    }
}

/// What a printer writes for `events`, stdout and stderr apart.
fn printed(events: &[SendEvent]) -> (String, Vec<String>) {
    let mut printer = Printer::default();
    let mut outs: Vec<Out> = events.iter().flat_map(|e| printer.event("t", e)).collect();
    outs.extend(printer.finish());
    let mut main = String::new();
    let mut side = Vec::new();
    for out in outs {
        match out {
            Out::Main(text) => main.push_str(&text),
            Out::Side(line) => side.push(line),
        }
    }
    (main, side)
}

fn turn(event: TurnEvent) -> SendEvent {
    SendEvent::Turn { event }
}

fn delta(text: &str, start: bool) -> SendEvent {
    turn(TurnEvent::Delta {
        text: text.into(),
        start,
    })
}

#[test]
fn deltas_print_as_they_come_and_read_like_whole_pieces() {
    let text = |t: &str| turn(TurnEvent::Text { text: t.into() });
    let tool = turn(TurnEvent::tool("Read", "a.rs".into()));
    let usage = turn(TurnEvent::Usage { tokens: 5 });
    let warning = turn(TurnEvent::Warning {
        message: "slow".into(),
    });
    let rows: Vec<(Vec<SendEvent>, &str, Vec<&str>)> = vec![
        (
            vec![text("one"), tool.clone(), text("two")],
            "one\n  ⚙ a.rs\ntwo\n",
            vec![],
        ),
        (
            vec![
                delta("o", true),
                delta("ne", false),
                usage.clone(),
                tool.clone(),
                delta("tw", true),
                delta("o", false),
            ],
            "one\n  ⚙ a.rs\ntwo\n",
            vec![],
        ),
        (
            vec![delta("one", true), delta("two", true), usage],
            "one\ntwo\n",
            vec![],
        ),
        (
            vec![delta("par", true), warning, delta("tial", false)],
            "par\ntial\n",
            vec!["  ! slow"],
        ),
        (vec![], "", vec![]),
    ];
    for (events, main, side) in rows {
        assert_eq!(
            printed(&events),
            (
                main.to_string(),
                side.iter().map(|s| s.to_string()).collect()
            ),
            "{events:?}"
        );
    }
}

#[test]
fn a_delta_is_written_at_once_without_waiting_for_its_line_end() {
    let mut printer = Printer::default();
    assert_eq!(
        printer.event("t", &delta("MOCK", true)),
        vec![Out::Main("MOCK".into())]
    );
    assert_eq!(
        printer.event("t", &delta("-REPLY", false)),
        vec![Out::Main("-REPLY".into())]
    );
    assert_eq!(printer.finish(), Some(Out::Main("\n".into())));
    assert_eq!(printer.finish(), None);
}

#[test]
fn thousands_separators() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1000), "1,000");
    assert_eq!(thousands(1_000_000), "1,000,000");
}

#[test]
fn server_status_says_whether_a_warden_runs_and_when_the_index_is_behind() {
    let view = |warden_pid, index_behind| crate::protocol::views::StatusView {
        running: true,
        pid: 10,
        data_dir: "/d".into(),
        uptime_secs: 3,
        terminals: 1,
        running_turns: 0,
        waiting_inputs: 0,
        version: "0".into(),
        warden_pid,
        index_behind,
        warm: Vec::new(),
        tracked_checkouts: 0,
        tracked_commits: 0,
        warm_budget_bytes: 0,
    };
    // (warden, index behind, a line it must hold, a line it must not)
    let cases = [
        (Some(11), false, "warden: pid 11 (", "index is behind"),
        (
            None,
            false,
            "warden: none (each CLI has a death signal",
            "index is behind",
        ),
        (
            Some(11),
            true,
            "the index is behind the journals (",
            "warden: none",
        ),
    ];
    for (warden, behind, has, lacks) in cases {
        let text = status(&view(warden, behind));
        assert!(text.starts_with("running: pid 10 "), "{text}");
        assert!(text.contains(has), "{text}");
        assert!(!text.contains(lacks), "{text}");
    }
}

#[test]
fn a_refusal_goes_to_stderr_and_results_and_subagent_text_print_nothing() {
    let turn = |event| SendEvent::Turn { event };
    let events = [
        turn(TurnEvent::ToolResult {
            id: "t".into(),
            output: "out".into(),
            is_error: false,
            parent: None,
        }),
        turn(TurnEvent::SubagentText {
            parent: "t".into(),
            text: "sub".into(),
        }),
        turn(TurnEvent::Denied {
            tool: "Bash".into(),
            target: "rm -rf build".into(),
        }),
    ];
    assert_eq!(
        printed(&events),
        (
            String::new(),
            vec![
                "  ! Bash(rm -rf build) was refused: allow it in Claude's settings \
                 (permissions.allow in .claude/settings.json) or add \"--allowedTools\", \
                 \"Bash(rm -rf build)\" to [providers.claude] args in baton's config.toml"
                    .to_string()
            ]
        )
    );
}

#[test]
fn server_status_lists_each_warm_cli_with_its_memory_and_the_change_tracker() {
    let warm = |memory_bytes| crate::protocol::views::WarmView {
        name: "api".into(),
        provider: crate::words::ProviderKind::Claude,
        pid: 42,
        session_id: "s".into(),
        turns: 3,
        idle_secs: 7,
        memory_bytes,
        own_bytes: memory_bytes.map(|b| b / 2),
    };
    let view = crate::protocol::views::StatusView {
        running: true,
        pid: 10,
        data_dir: "/d".into(),
        uptime_secs: 3,
        terminals: 1,
        running_turns: 0,
        waiting_inputs: 0,
        version: "0".into(),
        warden_pid: None,
        index_behind: false,
        warm: vec![warm(Some(155 * 1024 * 1024)), warm(None)],
        tracked_checkouts: 2,
        tracked_commits: 5,
        warm_budget_bytes: 2048 * 1024 * 1024,
    };
    let text = status(&view);
    assert!(
        text.contains("change tracker: 2 checkout(s) · 5 commit(s) from tracked changes\n"),
        "{text}"
    );
    assert!(
        text.contains("warm: api · claude pid 42 · 3 turn(s) · idle 7s · 155 MiB (77 MiB own)\n"),
        "{text}"
    );
    assert!(
        text.contains("warm CLIs' own memory: 77 MiB of 2048 MiB ([warm] memory_mb)\n"),
        "{text}"
    );
    assert!(text.contains("idle 7s · memory unknown\n"), "{text}");
}

#[test]
fn an_accepted_input_says_where_it_went() {
    let view = |position, mode, note: Option<&str>| AcceptedView {
        accepted: true,
        name: "t".into(),
        input: 4,
        position,
        mode,
        note: note.map(str::to_owned),
    };
    let cases = [
        (
            view(Some(2), crate::words::InputMode::Queue, None),
            "accepted as input 4 of t (queue, position 2); `baton queue t` shows it waiting, `baton watch t` follows the running turn",
        ),
        (
            view(None, crate::words::InputMode::Queue, None),
            "accepted as input 4 of t: its turn started (follow it with `baton watch t`)",
        ),
        (
            view(None, crate::words::InputMode::Steer, Some("it joined the running turn 3")),
            "accepted as input 4 of t (a steer)\n  note: it joined the running turn 3",
        ),
    ];
    for (v, want) in cases {
        assert_eq!(accepted(&v), want);
    }
}

#[test]
fn interrupt_names_the_turn_it_interrupted_or_the_exiting_cli_it_stopped() {
    let view = |stopped_exiting_cli: Option<i32>| InterruptedView {
        name: "t".into(),
        turn_id: "abc".into(),
        interrupted: stopped_exiting_cli.is_none(),
        stopped_exiting_cli,
    };
    let cases = [
        (view(None), "interrupted turn abc of t\n"),
        (
            view(Some(42)),
            "t's last turn had ended, but its CLI (pid 42) was still exiting: stopped\n",
        ),
    ];
    for (v, want) in cases {
        assert_eq!(interrupted(&v), want);
    }
}

/// A terminal view for `ls`: an idle claude terminal with `over`'s fields put over it.
fn ls_view(over: serde_json::Value) -> TerminalView {
    let mut v = serde_json::json!({
        "name": "t", "id": "id-t", "dir": "/w/t",
        "checkout": {"mode": "in_place", "source": "/w/t", "branch": null, "base_branch": null,
                     "base_commit": null, "worktree": null},
        "provider": "claude", "endpoint": null, "model": null, "brief": null, "state": "idle",
        "queued": 0, "queue": [], "created_at": "2026-01-01T00:00:00Z", "conversation": null,
        "sessions": [], "context": null, "instructions": [], "rotate_at": 0.45, "turns": 0,
        "last_turn": null, "archived": false,
    });
    for (k, x) in over.as_object().into_iter().flatten() {
        v[k] = x.clone();
    }
    serde_json::from_value(v).unwrap()
}

#[test]
fn ls_lines_up_each_row_under_its_header_with_and_without_hosts() {
    let views = [
        ls_view(
            serde_json::json!({"name": "api", "model": "opus", "state": "running",
            "context": {"tokens": 90_200, "window": 200_000, "fraction": 0.451, "rotates_next": true},
            "cost": {"input_tokens": 1000, "cached_tokens": 0, "output_tokens": 10, "usd": 0.5}}),
        ),
        ls_view(
            serde_json::json!({"name": "wéb-ünïcode", "provider": "codex", "archived": true,
            "dir": "/w/a\u{1b}b", "queue_held": true,
            "cost": {"input_tokens": 1500, "cached_tokens": 0, "output_tokens": 10, "usd": null}}),
        ),
        ls_view(
            serde_json::json!({"name": "a-name-longer-than-sixteen", "index_behind": true,
            "context": {"tokens": 1, "window": 0, "fraction": 0.0, "rotates_next": false}}),
        ),
    ];
    let rows: Vec<(Option<&str>, &TerminalView)> = vec![
        (None, &views[0]),
        (Some("box"), &views[1]),
        (None, &views[2]),
    ];
    let offline = [("far".to_string(), "timed out".to_string())];
    let plain = ls_on_hosts(&rows, &[], false);
    let hosts = ls_on_hosts(&rows, &offline, true);
    let tail = [
        "box:wéb-ünïcode: queue held after interrupt: `baton queue box:wéb-ünïcode run` (or r on a waiting input in the multiplexer) runs it",
        INDEX_BEHIND,
    ];
    // A long name or provider/model widens its column: every row stays under its header.
    let expected_plain = [
        "NAME                       PROVIDER                 STATE    CONTEXT         COST           DIR",
        "api                        claude/opus              running  45.1% (rotates) $0.50 · 2k tok /w/t",
        "wéb-ünïcode (archived)     codex                    idle     -               2k tok         /w/a<U+001B>b",
        "a-name-longer-than-sixteen claude                   idle     -               -              /w/t",
    ];
    let expected_hosts = [
        "HOST         NAME                       PROVIDER                 STATE    CONTEXT         COST           DIR",
        "-            api                        claude/opus              running  45.1% (rotates) $0.50 · 2k tok /w/t",
        "box          wéb-ünïcode (archived)     codex                    idle     -               2k tok         /w/a<U+001B>b",
        "-            a-name-longer-than-sixteen claude                   idle     -               -              /w/t",
    ];
    let lines = |rows: &[&str], more: &[&str]| {
        let all: Vec<&str> = rows.iter().chain(&tail).chain(more).copied().collect();
        format!("{}\n", all.join("\n"))
    };
    let expected_plain = lines(&expected_plain, &[]);
    let expected_hosts = lines(&expected_hosts, &["host far: offline (timed out)"]);
    assert_eq!(plain, expected_plain);
    assert_eq!(hosts, expected_hosts);
    assert_eq!(
        ls_on_hosts(&[], &offline, true),
        "no terminals yet (create one with `baton new NAME --dir DIR`)\nhost far: offline (timed out)\n"
    );
}

/// `ls`'s table asks for the terminals without what it does not show (`Request::Ls { table }`,
/// `TerminalView::for_table`): drawn from those, it is the same table.
#[test]
fn the_table_drawn_from_terminals_sent_for_it_is_the_same() {
    let full = ls_view(serde_json::json!({
        "name": "api", "state": "running", "model": "opus", "queued": 1, "queue_held": true,
        "queue": [{"input": 4, "position": 1, "prompt": "a long waiting prompt", "mode": "queue",
                   "provider": "claude", "model": null, "queued_at": "2026-01-01T00:00:01Z",
                   "held": true}],
        "conversation": {"id": "c3", "number": 3, "opened_reason": "size", "dir": "/w/t",
                         "opened_at": "2026-01-01T00:00:00Z", "title": "the title"},
        "sessions": [{"provider": "claude", "session_id": "s1", "model": "opus",
                      "reason": "fresh", "started_at": "2026-01-01T00:00:00Z"}],
        "instructions": ["never use unwrap", "answer in French"],
        "approval_rules": [{"id": "r1", "tool": "Bash", "target": "cargo test", "folder": false}],
        "context": {"tokens": 451, "window": 1000, "fraction": 0.451, "rotates_next": true},
        "cost": {"input_tokens": 2000, "cached_tokens": 0, "output_tokens": 10, "usd": 0.5},
    }));
    let sent = full.clone().for_table();
    assert!(sent.queue.is_empty() && sent.sessions.is_empty() && sent.instructions.is_empty());
    assert!(sent.conversation.is_none() && sent.approval_rules.is_empty());
    assert_eq!(sent.queued, 1, "the waiting input is still counted");
    for host_col in [false, true] {
        assert_eq!(
            ls_on_hosts(&[(Some("box"), &sent)], &[], host_col),
            ls_on_hosts(&[(Some("box"), &full)], &[], host_col),
        );
    }
}

#[test]
fn a_terminal_whose_cli_waits_to_start_says_how_many_are_ahead() {
    let rows = [
        (serde_json::json!({"state": "running"}), "running"),
        (
            serde_json::json!({"state": "running", "start_ahead": 0}),
            "waiting to start (0 ahead)",
        ),
        (
            serde_json::json!({"state": "running", "start_ahead": 3}),
            "waiting to start (3 ahead)",
        ),
    ];
    for (over, want) in rows {
        let v = ls_view(over);
        let listed = ls_on_hosts(&[(None, &v)], &[], false);
        let row = listed.lines().nth(1).unwrap_or_default();
        assert!(row.contains(&format!(" {want} ")), "{row:?}");
        assert!(
            show(&v).starts_with(&format!("t  ({want})\n")),
            "{}",
            show(&v)
        );
    }
}
