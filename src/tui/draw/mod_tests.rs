//! Snapshot tests of whole screens: the state is built through the same messages the server
//! and keyboard send, drawn on ratatui's test backend, and compared as text.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;

use crate::protocol::{
    AnswerKind, Request, SendEvent, SendRequest, SessionStart, TurnSummary, WatchEvent,
};
use crate::tui::app::{App, Effect, Msg, Tag};
use crate::tui::draw::draw;
use crate::tui::input::keys::Keys;
use crate::tui::testing::{
    announce, app_with, cell_style, ctrl, key, log, prefix, queued, screen, terminal, views,
};
use crate::words::OpenReason;
use crate::words::{ContextUsage, ProviderKind, TurnEvent, TurnStatus};

fn typed(app: &mut App, s: &str) -> Vec<Effect> {
    let mut fx = Vec::new();
    for c in s.chars() {
        fx.extend(app.update(key(KeyCode::Char(c))));
    }
    fx
}

#[test]
fn list_transcript_and_dividers() {
    let mut app = app_with(vec![
        terminal("api", "claude", "idle", Some((12000, 200000))),
        terminal("web", "codex", "running", Some((120000, 258400))),
    ]);
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log())));
    let want = "\
┌ terminals ───────────────┐┌ 0 api · claude · conversation 2 · idle ────────────────────┐
│0 api                 idle││── conversation 1 ──────────────────────────────────────────│
│  claude   █····┃····   6%││› Add a /health endpoint                                    │
│1 web            ● running││  ⚙ Read src/main.rs                                        │
│  codex    █████┃····  46%││Done: GET /health returns 200.                              │
│                          ││── completed · claude · context 50.0% of 200,000 · the next │
│                          ││   prompt opens a fresh conversation                        │
│                          ││                                                            │
│                          ││── conversation 2 · rotated: the last one passed 45% of the…│
│                          ││› Add a test                                                │
│                          ││Added tests/health.rs.                                      │
│                          ││── completed · claude · context 6.0% of 200,000             │
│                          ││                                                            │
│                          ││── provider switched to codex · same conversation ──────────│
│                          ││› Review it                                                 │
│                          ││── failed · codex · context not reported                    │
│                          ││   API error 400                                            │
│                          ││                                                            │
│                          │└────────────────────────────────────────────────────────────┘
│                          │┌ prompt → api · claude · Tab: provider ─────────────────────┐
│                          ││                                                            │
└──────────────────────────┘└────────────────────────────────────────────────────────────┘
 baton  Enter send · Alt-Enter newline · Tab provider · C-b s shell · C-b c new · C-b ? h…
";
    assert_eq!(screen(&mut app, 90, 23), want);
}

fn started(number: u32, prompt: &str) -> WatchEvent {
    WatchEvent::Turn {
        name: "api".into(),
        event: SendEvent::Started {
            turn_id: format!("t{number}"),
            number,
            provider: ProviderKind::Claude,
            conversation: 1,
            opened: (number == 1).then_some(OpenReason::First),
            rotate_at: 0.45,
            session: SessionStart::Fresh,
            prompt: prompt.to_string(),
        },
    }
}

fn text(s: &str) -> WatchEvent {
    WatchEvent::Turn {
        name: "api".into(),
        event: SendEvent::Turn {
            event: TurnEvent::Text { text: s.into() },
        },
    }
}

#[test]
fn a_prompt_streams_and_the_servers_waiting_input_shows_below_the_transcript() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    app.update(Msg::Reply(
        Tag::Log("api".into()),
        Ok(views::log_data(json!({}))),
    ));
    let fx = typed(&mut app, "hello");
    assert!(fx.is_empty());
    let fx = app.update(key(KeyCode::Enter));
    assert!(matches!(&fx[..], [Effect::Call(Tag::Send { name, .. }, _)] if name == "api"));
    app.update(announce(queued("api", "running", &[])));
    app.update(Msg::Watch(started(1, "hello")));
    app.update(Msg::Watch(text("MOCK-PARTIAL before hang")));
    // A second prompt goes to the server at once, whatever the terminal does.
    typed(&mut app, "second one");
    match &app.update(key(KeyCode::Enter))[..] {
        [Effect::Call(Tag::Send { .. }, Request::Send { send, detach, .. })] => {
            assert_eq!(send, &SendRequest::new("second one"));
            assert!(detach);
        }
        other => panic!("expected the prompt sent at once: {other:?}"),
    }
    // The list below the transcript is the server's (it says so for every client).
    app.update(announce(queued("api", "running", &[(2, "second one")])));
    let want = "\
┌ 0 api · claude · conversation 2 · running ───┐
│── conversation 1 ────────────────────────────│
│› hello                                       │
│MOCK-PARTIAL before hang                      │
│  … working                                   │
│                                              │
│                                              │
│⏸ waiting 1 · #2: second one                  │
└──────────────────────────────────────────────┘
┌ prompt → api · claude · Tab: provider · Ente…┐
│                                              │
└──────────────────────────────────────────────┘
 baton  Enter queue · M-s steer · M-j jump · ↑ …
";
    assert_eq!(screen(&mut app, 48, 13), want);
    // The turn ends and the server starts the waiting input: this client sends nothing.
    let summary = TurnSummary {
        turn_id: "t1".into(),
        number: 1,
        status: TurnStatus::Interrupted,
        error: Some("interrupted".into()),
        provider: ProviderKind::Claude,
        session_id: None,
        model: None,
        conversation: 1,
        conversation_id: "c".into(),
        opened: None,
        rotate_at: 0.45,
        context: Some(ContextUsage {
            tokens: 10,
            window: 100,
        }),
        rotates_next: false,
        commit: None,
        unusable_cli: false,
        cost: None,
        elapsed_ms: 0,
    };
    let fx = app.update(Msg::Watch(WatchEvent::Finished {
        name: "api".into(),
        summary,
    }));
    assert!(fx.is_empty(), "in view: no bell");
    assert!(app
        .update(announce(queued("api", "running", &[])))
        .is_empty());
    app.update(Msg::Watch(started(2, "second one")));
    let s = screen(&mut app, 48, 13);
    assert!(!s.contains("⏸ waiting"), "{s}");
    assert!(s.contains("› second one"), "{s}");
}

#[test]
fn a_turn_ending_out_of_view_marks_the_list_and_rings() {
    let mut app = app_with(vec![
        terminal("api", "claude", "idle", None),
        terminal("web", "codex", "running", None),
    ]);
    let summary = TurnSummary {
        turn_id: "x".into(),
        number: 1,
        status: TurnStatus::Failed,
        error: None,
        provider: ProviderKind::Codex,
        session_id: None,
        model: None,
        conversation: 1,
        conversation_id: "c".into(),
        opened: None,
        context: None,
        rotates_next: false,
        rotate_at: 0.45,
        commit: None,
        unusable_cli: false,
        cost: None,
        elapsed_ms: 0,
    };
    let fx = app.update(Msg::Watch(WatchEvent::Finished {
        name: "web".into(),
        summary,
    }));
    assert_eq!(
        fx,
        vec![Effect::Notify {
            title: "baton".into(),
            body: "web: turn 1 failed".into()
        }]
    );
    let s = screen(&mut app, 70, 8);
    assert!(s.contains("1 web             ✗ failed"), "{s}");
    // Its next turn runs: the list says so at once, though web was never shown.
    app.update(announce(terminal("web", "codex", "running", None)));
    let s = screen(&mut app, 70, 8);
    assert!(s.contains("1 web            ● running"), "{s}");
}

#[test]
fn composer_grows_with_lines_and_shows_the_provider_switch() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    typed(&mut app, "first line");
    app.update(Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT)));
    typed(&mut app, "second");
    app.update(key(KeyCode::Tab));
    let s = screen(&mut app, 50, 10);
    let want = "\
┌ 0 api · claude · conversation 2 · idle ────────┐
│reading the history…                            │
│                                                │
│                                                │
└────────────────────────────────────────────────┘
┌ prompt → api · codex (provider switch) · Tab: …┐
│first line                                      │
│second                                          │
└────────────────────────────────────────────────┘
 baton  Enter send · Alt-Enter newline · Tab prov…
";
    assert_eq!(s, want);
}

#[test]
fn ctrl_o_sets_the_model_for_the_next_prompts_shown_in_the_title_and_sent() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    app.update(Msg::Reply(
        Tag::Log("api".into()),
        Ok(views::log_data(json!({}))),
    ));
    app.update(key(KeyCode::Tab));
    app.update(ctrl('o'));
    typed(&mut app, "gpt-5.5");
    let s = screen(&mut app, 60, 8);
    assert!(
        s.contains(" baton  model for the next prompt: gpt-5.5"),
        "{s}"
    );
    app.update(key(KeyCode::Enter));
    let want = "\
┌ 0 api · claude · conversation 2 · idle ─────────────────┐
│No turns yet: type a prompt below and press Enter.       │
│                                                         │
└─────────────────────────────────────────────────────────┘
┌ prompt → api · codex/gpt-5.5 (provider + model change) …┐
│                                                         │
└─────────────────────────────────────────────────────────┘
 baton  Enter send · Alt-Enter newline · Tab provider · C-…
";
    assert_eq!(screen(&mut app, 59, 8), want);
    // Reopened, the entry is prefilled with the choice; Esc leaves it as it was.
    app.update(ctrl('o'));
    assert!(screen(&mut app, 60, 8).contains("model for the next prompt: gpt-5.5"));
    app.update(key(KeyCode::Esc));
    assert_eq!(app.next_model.as_deref(), Some("gpt-5.5"));
    typed(&mut app, "first");
    let fx = app.update(key(KeyCode::Enter));
    match &fx[..] {
        [Effect::Call(Tag::Send { .. }, Request::Send { send, .. })] => {
            assert_eq!(send.provider.as_deref(), Some("codex"));
            assert_eq!(send.model.as_deref(), Some("gpt-5.5"));
        }
        other => panic!("expected a send: {other:?}"),
    }
    assert_eq!(app.next_model, None, "the choice goes with the prompt");
    // A prompt sent while the turn runs carries the model chosen when it was typed, and the
    // server's list shows it.
    app.update(announce(queued("api", "running", &[])));
    app.update(Msg::Watch(started(1, "first")));
    app.update(ctrl('o'));
    typed(&mut app, "opus");
    app.update(key(KeyCode::Enter));
    typed(&mut app, "second");
    match &app.update(key(KeyCode::Enter))[..] {
        [Effect::Call(Tag::Send { .. }, Request::Send { send, .. })] => {
            let (prompt, provider, model) = (&send.prompt, &send.provider, &send.model);
            assert_eq!(prompt, "second");
            assert_eq!(provider, &None);
            assert_eq!(model.as_deref(), Some("opus"));
        }
        other => panic!("expected the prompt sent at once: {other:?}"),
    }
    let mut v = queued("api", "running", &[(2, "second")]);
    v.queue[0].model = Some("opus".into());
    app.update(announce(v));
    let s = screen(&mut app, 59, 12);
    assert!(s.contains("⏸ waiting 1 · #2 (opus): second"), "{s}");
    // Emptied, the entry clears the choice back to the terminal's model.
    app.update(ctrl('o'));
    app.update(ctrl('u'));
    app.update(key(KeyCode::Enter));
    assert_eq!(app.next_model, None);
    let s = screen(&mut app, 59, 12);
    assert!(s.contains("┌ prompt → api · claude · Tab: provider"), "{s}");
}

#[test]
fn help_overlay_lists_the_keys() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    app.update(ctrl('b'));
    app.update(key(KeyCode::Char('?')));
    // A wide screen shows every line whole, in a box as wide as its longest line.
    let s = screen(&mut app, 200, 70);
    assert!(s.contains("┌ keys ─"), "no scrolling needed:\n{s}");
    let top = s.lines().find(|l| l.contains("┌ keys")).unwrap_or_default();
    let from = top.find("┌ keys").unwrap_or_default();
    let width = top[from..].chars().take_while(|c| *c != '┐').count() + 1;
    assert!((100..200).contains(&width), "{width}:\n{s}");
    for k in [
        "C-b c",
        "C-b d",
        "Alt-Enter",
        "C-c",
        "C-u / C-w",
        "C-e",
        "M-s",
        "M-j",
        "Up (empty composer)",
        "C-o",
        "PageUp / PageDown",
        "C-b z / C-b x",
        "C-b ←↑↓→ / o",
        "mouse drag / double click",
        "C-b f",
        "C-b a / C-b A",
        "M-f",
        "M-r",
        "Esc Esc (empty composer)",
        "/fork [NEW]",
        "/other, //text",
    ] {
        assert!(s.contains(k), "help misses {k}:\n{s}");
    }
    // A small screen scrolls it: the last line is reached with G, the first again with g.
    let s = screen(&mut app, 80, 20);
    assert!(s.contains(" keys 1–18 of "), "{s}");
    assert!(!s.contains("mouse drag / double click"), "{s}");
    app.update(key(KeyCode::Char('G')));
    let s = screen(&mut app, 80, 20);
    assert!(s.contains("mouse drag / double click"), "{s}");
    assert!(!s.contains("C-b c "), "{s}");
    app.update(key(KeyCode::Up));
    app.update(key(KeyCode::Char('g')));
    assert!(screen(&mut app, 80, 20).contains("C-b c "));
    // The wheel scrolls it too.
    app.update(Msg::Mouse(crossterm::event::MouseEvent {
        kind: crossterm::event::MouseEventKind::ScrollDown,
        column: 40,
        row: 10,
        modifiers: KeyModifiers::NONE,
    }));
    let s = screen(&mut app, 80, 20);
    assert!(s.contains(" keys 4–21 of "), "{s}");
    app.update(key(KeyCode::Char('q')));
    assert!(!screen(&mut app, 80, 20).contains("PageUp / PageDown"));
}

#[test]
fn the_instructions_overlay_lists_the_focused_terminals_rules_numbered() {
    let mut t = terminal("api", "claude", "idle", None);
    t.instructions = vec![
        "Never use unwrap in library code.".into(),
        "以后所有回答都用中文。".into(),
    ];
    let mut app = app_with(vec![t]);
    app.update(ctrl('b'));
    app.update(key(KeyCode::Char('i')));
    let s = screen(&mut app, 90, 20);
    assert!(s.contains("standing instructions of api"), "{s}");
    assert!(s.contains(" 1. Never use unwrap in library code."), "{s}");
    // (the text dump puts each wide character's second cell as a space)
    assert!(s.contains(" 2. 以 后 所 有"), "{s}");
    // The list follows the server: a new line shows up on the next change.
    let mut t = terminal("api", "claude", "idle", None);
    t.instructions = vec![
        "Never use unwrap in library code.".into(),
        "以后所有回答都用中文。".into(),
        "Answer briefly.".into(),
    ];
    app.update(Msg::Watch(WatchEvent::Terminal {
        terminal: Box::new(t),
    }));
    assert!(screen(&mut app, 90, 20).contains(" 3. Answer briefly."));
    app.update(key(KeyCode::Char('q')));
    assert!(!screen(&mut app, 90, 20).contains("standing instructions of api"));
}

#[test]
fn the_offer_and_the_new_terminal_form() {
    let mut app = App::new("baton", "/w/elsewhere", Keys::default());
    app.update(Msg::Watch(WatchEvent::Terminals {
        terminals: vec![terminal("api", "claude", "idle", None)],
    }));
    let s = screen(&mut app, 160, 8);
    assert!(
        s.contains("No terminal works in /w/elsewhere: Enter creates one here with the prompt typed · C-y create · C-e edit first · Esc no"),
        "{s}"
    );
    // Typing goes to the composer, for the terminal the offer would create.
    typed(&mut app, "fix it");
    let s = screen(&mut app, 160, 8);
    assert!(
        s.contains("┌ prompt → a new terminal here · Enter creates it and sends"),
        "{s}"
    );
    assert!(s.contains("│fix it"), "{s}");
    app.update(ctrl('e'));
    typed(&mut app, "docs");
    let s = screen(&mut app, 100, 12);
    let want_rows = [
        "│     name: docs",
        "│      dir: /w/elsewhere",
        "│ provider: ‹ claude ›",
    ];
    for r in want_rows {
        assert!(s.contains(r), "missing {r:?}:\n{s}");
    }
    let fx = app.update(key(KeyCode::Enter));
    assert!(matches!(&fx[..], [Effect::Call(Tag::New, _)]), "{fx:?}");
}

#[test]
fn tiny_and_huge_windows_draw_without_panicking() {
    let mut app = app_with(vec![
        terminal(
            "a-very-long-terminal-name-indeed",
            "claude",
            "running",
            Some((1, 2)),
        ),
        terminal("web", "codex", "idle", None),
    ]);
    app.update(Msg::Reply(
        Tag::Log("a-very-long-terminal-name-indeed".into()),
        Ok(log()),
    ));
    // No terminal works in the current directory: the offer comes first; decline it.
    app.update(key(KeyCode::Esc));
    typed(&mut app, &"x".repeat(500));
    for (w, h) in [(20, 5), (1, 1), (5, 2), (400, 120), (60, 3)] {
        screen(&mut app, w, h);
    }
    app.update(ctrl('b'));
    app.update(key(KeyCode::Char('?')));
    screen(&mut app, 20, 5);
    app.update(key(KeyCode::Esc));
    let want = "\
┌ 0 a-very-long-te…┐
┌ prompt → a-very-…┐
│xxxxxxxxxxxxxx    │
└──────────────────┘
 baton  Enter queue…
";
    assert_eq!(screen(&mut app, 20, 5), want);
}

#[test]
fn scrolling_up_stops_following_and_ctrl_end_follows_again() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log())));
    screen(&mut app, 100, 10);
    app.update(key(KeyCode::PageUp));
    let s = screen(&mut app, 100, 10);
    assert!(s.contains("(C-End: follow)"), "{s}");
    app.update(Msg::Key(KeyEvent::new(KeyCode::End, KeyModifiers::CONTROL)));
    let s = screen(&mut app, 100, 10);
    assert!(!s.contains("(C-End: follow)"), "{s}");
    assert!(s.contains("API error 400"), "{s}");
}

fn finished(name: &str) -> Msg {
    let summary = TurnSummary {
        turn_id: "x".into(),
        number: 1,
        status: TurnStatus::Completed,
        error: None,
        provider: ProviderKind::Claude,
        session_id: None,
        model: None,
        conversation: 1,
        conversation_id: "c".into(),
        opened: None,
        context: None,
        rotates_next: false,
        rotate_at: 0.45,
        commit: None,
        unusable_cli: false,
        cost: None,
        elapsed_ms: 0,
    };
    Msg::Watch(WatchEvent::Finished {
        name: name.into(),
        summary,
    })
}

const PATCH: &str = "diff --git a/a.txt b/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+written by shim\n";

#[test]
fn the_diff_face_reads_the_patch_and_again_when_a_turn_ends() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    let diff_call = Effect::Call(
        Tag::Diff("api".into()),
        Request::Diff {
            name: "api".into(),
            patch: true,
        },
    );
    assert_eq!(prefix(&mut app, 'g'), vec![diff_call.clone()]);
    let s = screen(&mut app, 70, 10);
    assert!(s.contains("reading the diff…"), "{s}");
    let data =
        json!({"name": "api", "branch": "baton/api", "base_commit": "0123456789ab", "diff": PATCH});
    let data = views::answer(AnswerKind::Diff, data);
    app.update(Msg::Reply(Tag::Diff("api".into()), Ok(data)));
    let want = "\
┌ terminals ───────────────┐┌ 0 api · diff · against base 0123456 · …┐
│0 api                 idle││diff --git a/a.txt b/a.txt              │
│  claude   ctx –          ││new file mode 100644                    │
│                          ││--- /dev/null                           │
│                          ││+++ b/a.txt                             │
│                          │└────────────────────────────────────────┘
│                          │┌ prompt → api · claude · Tab: provider ─┐
│                          ││                                        │
└──────────────────────────┘└────────────────────────────────────────┘
";
    let s = screen(&mut app, 70, 10);
    assert_eq!(
        s.lines().take(9).collect::<Vec<_>>().join("\n") + "\n",
        want
    );
    // Scrolling down shows the rest, colored.
    app.update(key(KeyCode::PageDown));
    let s = screen(&mut app, 70, 10);
    assert!(s.contains("+written by shim"), "{s}");
    // A turn ending reads it again; the transcript face comes back with prefix g.
    assert_eq!(app.update(finished("api")), vec![diff_call]);
    prefix(&mut app, 'g');
    assert_eq!(app.update(finished("api")), vec![]);
    // A terminal without a worktree: the server's reason.
    prefix(&mut app, 'g');
    let err = crate::error::BatonError::bad_input("api works in place: no branch");
    app.update(Msg::Reply(Tag::Diff("api".into()), Err(err)));
    let s = screen(&mut app, 70, 10);
    assert!(s.contains("│api works in place: no branch"), "{s}");
    assert!(s.contains("┌ 0 api · diff ─"), "{s}");
}

#[test]
fn diff_lines_are_colored() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    prefix(&mut app, 'g');
    let data = json!({"name": "api", "branch": "baton/api", "base_commit": "0123", "diff": "@@ -1 +1 @@\n-old\n+new\n"});
    let data = views::answer(AnswerKind::Diff, data);
    app.update(Msg::Reply(Tag::Diff("api".into()), Ok(data)));
    let mut t = Terminal::new(TestBackend::new(70, 10)).unwrap();
    t.draw(|f| draw(f, &mut app)).unwrap();
    let buf = t.backend().buffer().clone();
    use ratatui::style::Color;
    assert_eq!(buf[(29, 1)].fg, Color::Cyan);
    assert_eq!(buf[(29, 2)].fg, Color::Red);
    assert_eq!(buf[(29, 3)].fg, Color::Green);
}

#[test]
fn the_diff_face_reads_again_when_its_terminal_changes_and_says_when_all_is_merged() {
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    prefix(&mut app, 'g');
    let data = json!({"name": "api", "branch": "baton/api", "base_commit": "0123456789ab",
        "since": "0123456789ab", "diff": PATCH});
    app.update(Msg::Reply(
        Tag::Diff("api".into()),
        Ok(views::answer(AnswerKind::Diff, data)),
    ));
    // `baton merge` (from anywhere) announces the terminal: its diff is read again.
    let changed = Msg::Watch(WatchEvent::Terminal {
        terminal: Box::new(terminal("api", "claude", "idle", None)),
    });
    let fx = app.update(changed);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Call(Tag::Diff(n), _) if n == "api")),
        "{fx:?}"
    );
    let data = json!({"name": "api", "branch": "baton/api", "base_commit": "0123456789ab",
        "since": "89abcdef0123", "merged": true, "diff": ""});
    app.update(Msg::Reply(
        Tag::Diff("api".into()),
        Ok(views::answer(AnswerKind::Diff, data)),
    ));
    let s = screen(&mut app, 100, 10);
    assert!(
        s.contains("nothing left to merge: all of baton/api is merged"),
        "{s}"
    );
    assert!(
        s.contains("against 89abcde, last merged (base 0123456)"),
        "{s}"
    );
}

#[test]
fn rename_and_remove_from_the_status_line() {
    let mut app = app_with(vec![
        terminal("api", "claude", "idle", None),
        terminal("web", "codex", "idle", None),
    ]);
    prefix(&mut app, ',');
    for _ in 0..3 {
        app.update(key(KeyCode::Backspace));
    }
    typed(&mut app, "backend");
    let s = screen(&mut app, 70, 8);
    assert!(
        s.lines().last().unwrap().contains("rename api to: backend"),
        "{s}"
    );
    let fx = app.update(key(KeyCode::Enter));
    let want = Effect::Call(
        Tag::Rename("api".into(), "backend".into()),
        Request::Rename {
            name: "api".into(),
            new_name: "backend".into(),
        },
    );
    assert_eq!(fx, vec![want]);
    // The server announces it (before or after the reply: both are fine).
    app.update(Msg::Watch(WatchEvent::Renamed {
        name: "api".into(),
        new_name: "backend".into(),
    }));
    app.update(Msg::Reply(
        Tag::Rename("api".into(), "backend".into()),
        Ok(views::answer(
            AnswerKind::Renamed,
            json!({"name": "backend", "old_name": "api"}),
        )),
    ));
    assert_eq!(app.focused_name().as_deref(), Some("backend"));
    let s = screen(&mut app, 70, 8);
    assert!(s.contains("0 backend"), "{s}");
    assert!(s.contains("renamed api to backend"), "{s}");

    // Remove: asked first; n keeps it.
    prefix(&mut app, 'X');
    let s = screen(&mut app, 90, 8);
    assert!(
        s.contains("remove backend? its work is committed and its branch kept · y/n"),
        "{s}"
    );
    assert_eq!(app.update(key(KeyCode::Char('n'))), vec![]);
    prefix(&mut app, 'X');
    let fx = app.update(key(KeyCode::Char('y')));
    assert!(
        matches!(&fx[..], [Effect::Call(Tag::Remove(n), Request::Rm { force: false, delete_branch: false, .. })] if n == "backend"),
        "{fx:?}"
    );
    // Refused while running: the server's words.
    let err = crate::error::BatonError::bad_input("backend is running a turn");
    app.update(Msg::Reply(Tag::Remove("backend".into()), Err(err)));
    let s = screen(&mut app, 70, 8);
    assert!(s.contains("backend: backend is running a turn"), "{s}");
    app.update(Msg::Reply(
        Tag::Remove("backend".into()),
        Ok(views::answer(
            AnswerKind::Removed,
            json!({"name": "backend", "removed": true, "branch": "baton/backend"}),
        )),
    ));
    assert_eq!(app.terms.len(), 1);
    assert_eq!(app.focused_name().as_deref(), Some("web"));
    let s = screen(&mut app, 100, 8);
    assert!(
        s.contains("removed backend (its work is on branch baton/backend)"),
        "{s}"
    );
}

#[test]
fn copy_mode_searches_selects_across_a_wrap_and_copies_with_osc52() {
    use ratatui::style::{Color, Modifier};
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log())));
    screen(&mut app, 90, 23);
    prefix(&mut app, '[');
    typed(&mut app, "/the next");
    let searching = screen(&mut app, 90, 23);
    assert!(
        searching.ends_with(" baton  search down: the next\n"),
        "{searching}"
    );
    app.update(key(KeyCode::Enter));
    typed(&mut app, "vj$");
    let got = screen(&mut app, 90, 23);
    let want = "\
┌ terminals ───────────────┐┌ 0 api · claude · conversation 2 · idle ────────────────────┐
│0 api                 idle││── conversation 1 ──────────────────────────────────────────│
│  claude   ctx –          ││› Add a /health endpoint                                    │
│                          ││  ⚙ Read src/main.rs                                        │
│                          ││Done: GET /health returns 200.                              │
│                          ││── completed · claude · context 50.0% of 200,000 · the next │
│                          ││   prompt opens a fresh conversation                        │
│                          ││                                                            │
│                          ││── conversation 2 · rotated: the last one passed 45% of the…│
│                          ││› Add a test                                                │
│                          ││Added tests/health.rs.                                      │
│                          ││── completed · claude · context 6.0% of 200,000             │
│                          ││                                                            │
│                          ││── provider switched to codex · same conversation ──────────│
│                          ││› Review it                                                 │
│                          ││── failed · codex · context not reported                    │
│                          ││   API error 400                                            │
│                          ││                                                            │
│                          │└────────────────────────────────────────────────────────────┘
│                          │┌ prompt → api · claude · Tab: provider ─────────────────────┐
│                          ││                                                            │
└──────────────────────────┘└────────────────────────────────────────────────────────────┘
 baton  copy mode [6/17]: hjkl/w/b move · v select · y copy · / ? search down/up · n/N ag…
";
    assert_eq!(got, want);
    // "the next" starts at column 51 of row 5 (the pane's text starts at x = 29).
    let mut bg = |x: u16, y: u16| cell_style(&mut app, 90, 23, 29 + x, y).bg;
    assert_eq!(bg(51, 5), Some(Color::Yellow), "selection start");
    assert_eq!(bg(50, 5), Some(Color::Reset));
    assert_eq!(bg(3, 6), Some(Color::Yellow), "wrapped row");
    let cursor = cell_style(&mut app, 90, 23, 29 + 35, 6);
    assert!(
        cursor.add_modifier.contains(Modifier::REVERSED),
        "{cursor:?}"
    );
    let fx = app.update(key(KeyCode::Char('y')));
    let text = "the next prompt opens a fresh conversation";
    assert_eq!(fx, vec![Effect::Clipboard(text.into())]);
    assert_eq!(app.mode, crate::tui::app::Mode::Normal);
    let after = screen(&mut app, 90, 23);
    assert!(after.ends_with(" baton  copied 42 characters\n"), "{after}");
    // q and Esc leave without copying.
    prefix(&mut app, '[');
    assert_eq!(app.update(key(KeyCode::Char('q'))), vec![]);
    assert_eq!(app.mode, crate::tui::app::Mode::Normal);
}

#[test]
fn the_help_overlay_and_hints_show_remapped_keys() {
    let cfg =
        crate::config::Config::parse("[ui.keys]\nprefix = \"C-q\"\nnew = \"N\"\nnext = \"M-n\"\n")
            .unwrap();
    let mut app = App::new(
        "baton",
        "/w/api",
        Keys::from_config(&cfg.ui.keys, false).unwrap(),
    );
    app.update(Msg::Watch(WatchEvent::Terminals {
        terminals: vec![terminal("api", "claude", "idle", None)],
    }));
    app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('q'),
        KeyModifiers::CONTROL,
    )));
    app.update(key(KeyCode::Char('?')));
    let s = screen(&mut app, 100, 14);
    let top: Vec<&str> = s.lines().take(6).collect();
    let want = [
        "┌ keys 1–12 of 78 · ↑↓ PageUp/PageDown scroll ─────────────────────────────────────────────────────┐",
        "│ C-q N                        new terminal (name, dir, provider, brief)                           │",
        "│ C-q s                        shell face: a shell in the terminal's checkout (keys go to it;      │",
        "│                              again: back)                                                        │",
        "│ C-q C-q                      send the prefix key itself to the shell                             │",
        "│ C-q g                        diff face: what its branch adds to its base commit (again: back)    │",
    ];
    assert_eq!(top, want);
    assert!(s.contains("│ C-q M-n / C-q p "), "{s}");
    // The status line's hints come from the same table.
    app.update(key(KeyCode::Char('z')));
    let s = screen(&mut app, 160, 14);
    assert!(s.contains("C-q N new · C-q ? help · C-q M-n/p"), "{s}");
}

#[test]
fn an_empty_pane_says_how_its_worktree_set_up_goes() {
    let mut term = terminal("api", "claude", "idle", None);
    term.setup = Some(crate::protocol::views::SetupView {
        command: Some("npm ci".into()),
        state: crate::protocol::views::SetupState::Running,
        ..Default::default()
    });
    let mut app = app_with(vec![term]);
    app.update(Msg::Reply(
        Tag::Log("api".into()),
        Ok(views::log_data(json!({}))),
    ));
    let s = screen(&mut app, 120, 8);
    assert!(
        s.contains("│set-up `npm ci`: running (the first turn waits for it) · No turns yet"),
        "{s}"
    );
}
