//! Turns that read like the CLIs' own, in a real client: a tool call's line names the tool and
//! its target relative to the checkout, C-t expands the focused terminal's calls into their
//! results and small diffs and folds them back, a refused call says where to allow it, a
//! subagent's work sits under the call that started it, the answer's Markdown is rendered, and
//! the turn line says how long the turn took and what it cost, ticking while it runs.

use super::*;

/// The screen row holding `text` (panics with the screen when none does).
fn row_with<'a>(screen: &'a str, text: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no row holds {text:?}:\n{screen}"))
}

#[test]
fn ctrl_t_expands_tool_calls_into_results_and_diffs_and_folds_them_back() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_api(&w);
    ui.type_text("fix it [[tool:Edit:src/server.rs]] [[tool:Bash:cargo test]]");
    ui.keys(&["Enter"]);
    let s = ui.wait_for("── completed · claude");
    // Folded: one line per call, the path relative to the checkout; no result, no diff.
    assert!(s.contains("⚙ Edit src/server.rs"), "{s}");
    assert!(s.contains("⚙ Bash cargo test"), "{s}");
    assert!(!s.contains("+ new line"), "{s}");
    assert!(!s.contains("output line 1"), "{s}");

    ui.keys(&["C-t"]);
    let s = ui.wait_for("+ new line");
    assert!(s.contains("- old line"), "{s}");
    assert!(s.contains("└ The file"), "the edit's result:\n{s}");
    // A long result: its first lines, then how many were left out.
    assert!(s.contains("└ cargo test: output line 1"), "{s}");
    assert!(s.contains("cargo test: output line 6"), "{s}");
    assert!(!s.contains("cargo test: output line 7"), "{s}");
    assert!(s.contains("… 2 more lines"), "{s}");
    assert!(
        s.contains("tool calls expanded"),
        "the status line says so:\n{s}"
    );
    // The diff's rows sit under their call, indented.
    let (_, edit_row) = locate(&s, "⚙ Edit src/server.rs");
    let (_, minus_row) = locate(&s, "- old line");
    assert_eq!(minus_row, edit_row + 1, "{s}");

    ui.keys(&["C-t"]);
    let s = ui.wait_until("folded again", |s| {
        s.contains("tool calls folded") && !s.contains("+ new line")
    });
    assert!(s.contains("⚙ Edit src/server.rs"), "{s}");
    assert!(!s.contains("output line 1"), "{s}");
}

#[test]
fn turns_this_client_never_watched_expand_too_read_back_from_their_raw_streams() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    // Refused outright, as before the approvals inbox (by default it would ask).
    std::fs::write(
        w.data().join("config.toml"),
        "[approvals]\nask = \"never\"\n",
    )
    .unwrap();
    let dir = w.new_terminal("api", "claude");
    // Run before any client, and again after a server restart: only the log has them.
    w.send(
        "api",
        "fix it [[tool:Edit:src/server.rs]] [[tool:Bash:cargo test]]",
    );
    w.ok(&["server", "stop"]);
    w.send("api", "look [[deny:Bash:rm -rf build]]");
    let ui = Tmux::start(&w, &dir, "");
    // Folded, the log's one line per call.
    let s = ui.wait_for("⚙ Bash rm -rf build");
    assert!(s.contains("⚙ Edit src/server.rs"), "{s}");
    assert!(!s.contains("+ new line"), "{s}");
    ui.keys(&["C-t"]);
    let s = ui.wait_until("both turns read back", |s| {
        s.contains("+ new line") && s.contains("was refused")
    });
    assert!(s.contains("- old line"), "{s}");
    assert!(s.contains("└ cargo test: output line 1"), "{s}");
    assert!(s.contains("… 2 more lines"), "{s}");
    // The refusal is drawn once, where the stream had it.
    assert_eq!(
        s.matches("Bash(rm -rf build) was refused").count(),
        1,
        "{s}"
    );
    // Folded and expanded again: drawn from what was read, not asked for twice.
    ui.keys(&["C-t"]);
    ui.wait_until("folded", |s| !s.contains("+ new line"));
    ui.keys(&["C-t"]);
    ui.wait_for("+ new line");
}

#[test]
fn a_refused_call_says_where_to_allow_it_and_subagent_work_nests_under_its_call() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    // Refused outright, as before the approvals inbox (by default it would ask).
    std::fs::write(
        w.data().join("config.toml"),
        "[approvals]\nask = \"never\"\n",
    )
    .unwrap();
    let ui = client_on_api(&w);
    ui.type_text("look [[tool:Task:find the tests]] [[deny:Bash:rm -rf build]]");
    ui.keys(&["Enter"]);
    let s = ui.wait_for("── completed · claude");
    let refusal = row_with(&s, "Bash(rm -rf build) was refused");
    assert!(
        refusal.contains("! Bash(rm -rf build) was refused: allow it in"),
        "{s}"
    );
    assert!(s.contains("permissions.allow"), "{s}");
    // The subagent's call is indented under the Agent call (the real CLIs name the tool
    // `Agent`; a foreground subagent's answer is only in the call's result).
    let (task_x, task_y) = locate(&s, "⚙ Agent find the tests");
    let (read_x, read_y) = locate(&s, "⚙ Read a.txt");
    assert_eq!((read_x, read_y), (task_x + 2, task_y + 1), "{s}");
    // The subagent's text is not the answer.
    let log = w.json(&["log", "api"]);
    let answer = log["turns"][0]["answer"].as_str().unwrap_or_default();
    assert!(!answer.contains("Subagent done"), "{answer}");
}

#[test]
fn an_answer_in_markdown_is_drawn_rendered() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_api(&w);
    let reply = "# Plan of work\n\nSome **bold** words and `code`.\n\n\
                 ```rust\nfn main() { let x = 1; }\n```\n\n- first item\n- second item";
    w.ok(&["send", "api", &format!("[[reply:{reply}]]")]);
    let s = ui.wait_for("── completed · claude");
    // The answer's rows: after the prompt (which shows the Markdown as typed).
    let answer: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.contains("second item]]"))
        .skip(1)
        .collect();
    let answer = answer.join("\n");
    let heading = row_with(&answer, "Plan of work");
    assert!(
        !heading.contains('#'),
        "the heading's marker is dropped:\n{s}"
    );
    assert!(answer.contains("Some bold words and code."), "{s}");
    assert!(
        answer.contains("  fn main() { let x = 1; }"),
        "the code block, indented:\n{s}"
    );
    assert!(
        !answer.contains("```"),
        "the fence lines are not drawn:\n{s}"
    );
    assert!(!answer.contains("**"), "{s}");
    assert!(
        answer.contains("• first item") && answer.contains("• second item"),
        "{s}"
    );
}

#[test]
fn the_turn_line_ticks_while_it_runs_and_ends_with_time_tokens_and_cost() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_api(&w);
    let go = w.tmp.path().join("answer-go");
    ui.type_text(&format!(
        "[[reply:HALF then the rest]] [[hold:{}]]",
        go.display()
    ));
    ui.keys(&["Enter"]);
    // The elapsed time moves on by itself while nothing streams.
    ui.wait_until("a running turn at 1 s", |s| s.contains("… working · 1 s"));
    let s = ui.wait_until("a running turn at 2 s", |s| s.contains("… working · 2 s"));
    // The call's start said what it was sent: the context shows while the turn runs.
    assert!(
        row_with(&s, "… working · 2 s").contains(" tokens in context"),
        "{s}"
    );
    std::fs::write(&go, "").unwrap();
    let s = ui.wait_for("── completed · claude");
    let line = row_with(&s, "── completed · claude");
    // `· 2.1 s · 6,003 in (3,001 cached) / 41 out tokens · $0.02`, wrapped or not.
    let tail: String = s
        .lines()
        .skip_while(|l| !l.contains("── completed"))
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(tail.contains(" s · "), "elapsed time:\n{line}\n{s}");
    assert!(tail.contains("cached) /"), "tokens:\n{s}");
    assert!(tail.contains("out tokens · $"), "cost:\n{s}");
    assert!(!s.contains("… working"), "{s}");
}

#[test]
fn codex_commands_and_patches_read_as_tool_lines_with_their_output() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    // An exec turn (with the inbox on, a new thread's first turn runs on an app-server, whose
    // patch item carries its diff, shown as such).
    w.exec_only();
    let dir = w.new_terminal("web", "codex");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("prompt → web");
    ui.type_text("go [[tool:Bash:cargo build]] [[tool:Edit:src/lib.rs]]");
    ui.keys(&["Enter"]);
    let s = ui.wait_for("── completed · codex");
    assert!(s.contains("⚙ Shell cargo build"), "{s}");
    assert!(
        s.contains("⚙ Edit src/lib.rs"),
        "the patch, relative to the checkout:\n{s}"
    );
    ui.keys(&["C-t"]);
    let s = ui.wait_for("└ cargo build: output line 1");
    // Codex names a patch's files, not the change: the expanded call says where to see it.
    assert!(
        s.contains("└ applied (Codex reports which files a patch changed"),
        "{s}"
    );
}
