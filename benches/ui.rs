//! The multiplexer's speed: drawing a full 200×60 screen over a long transcript, a keystroke in
//! the composer reaching the screen, a 1 MB paste, a long answer streaming in token by token
//! over a long history, and a 10 MB answer. Prints the figures
//! (`cargo bench --bench ui`).

use std::time::{Duration, Instant};

use baton::protocol::{SendEvent, SessionStart, WatchEvent};
use baton::tui::app::{App, Msg, Tag};
use baton::tui::draw::draw;
use baton::tui::input::keys::Keys;
use baton::words::{ProviderKind, TurnEvent};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;

fn app_with_log(turns: usize, answer: &str) -> App {
    let mut app = App::new("baton", "/w/api", Keys::default());
    let t = json!({
        "name": "api", "id": "t1", "dir": "/w/api",
        "checkout": {"mode": "in_place", "source": "/w/api", "branch": null, "base_branch": null,
                     "base_commit": null, "worktree": null},
        "provider": "claude", "endpoint": null, "model": null, "brief": null, "state": "idle",
        "queued": 0, "queue": [], "created_at": "2026-01-01T00:00:00Z", "conversation": null, "sessions": [],
        "context": null, "instructions": [], "rotate_at": 0.45, "turns": turns, "last_turn": null,
    });
    let t = serde_json::from_value(t).expect("a terminal view");
    app.update(Msg::Watch(WatchEvent::Terminals { terminals: vec![t] }));
    let turns: Vec<_> = (1..=turns)
        .map(|n| {
            json!({"id": format!("turn{n}"), "number": n, "conversation": 1, "conversation_id": "c1",
                   "provider": "claude", "session_id": null, "model": null,
                   "prompt": format!("prompt number {n}: explain the module"),
                   "status": "completed", "error": null, "answer": answer,
                   "tools": ["Read src/main.rs", "Bash cargo test"], "notes": [],
                   "context": {"tokens": 1000 * n, "window": 200000},
                   "started_at": "2026-01-01T00:00:00Z", "finished_at": null, "commit": null,
                   "input": n, "mode": "direct", "rotates_next": false})
        })
        .collect();
    let log = json!({"name": "api", "rotate_at": 0.45, "turns": turns,
                     "conversations": [{"id": "c1", "number": 1, "opened_reason": "first", "dir": "/w/api",
                                        "opened_at": "2026-01-01T00:00:00Z", "retired_at": null,
                                        "sessions": []}]});
    let log = baton::protocol::AnswerKind::Log.read(log).unwrap();
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log)));
    app
}

fn time<F: FnMut()>(runs: u32, mut f: F) -> Duration {
    let start = Instant::now();
    for _ in 0..runs {
        f();
    }
    start.elapsed() / runs
}

fn main() {
    let paragraph = "The handler reads the request, checks the terminal's state and answers with \
                     the JSON the command line prints. "
        .repeat(8);
    let mut app = app_with_log(500, &paragraph);
    let mut term = Terminal::new(TestBackend::new(200, 60)).expect("backend");
    let first = Instant::now();
    term.draw(|f| draw(f, &mut app)).expect("draw");
    println!(
        "first draw, 200x60, 500 turns (wraps everything): {:?}",
        first.elapsed()
    );
    let redraw = time(200, || {
        term.draw(|f| draw(f, &mut app)).expect("draw");
    });
    println!("full redraw, 200x60, 500 turns: {redraw:?} per frame");

    let key = time(200, || {
        app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('x'),
            KeyModifiers::NONE,
        )));
        term.draw(|f| draw(f, &mut app)).expect("draw");
    });
    println!("keystroke in the composer to a drawn frame: {key:?}");

    // A large paste (bracketed: it arrives as one event): 1 MB of code, then a keystroke.
    let code = "    let value = compute(&input, 42).unwrap_or_default(); // a pasted line\n";
    let pasted = code.repeat((1 << 20) / code.len());
    let start = Instant::now();
    app.update(Msg::Paste(pasted));
    term.draw(|f| draw(f, &mut app)).expect("draw");
    println!(
        "1 MB paste into the composer to a drawn frame: {:?}",
        start.elapsed()
    );
    let key = time(20, || {
        app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('x'),
            KeyModifiers::NONE,
        )));
        term.draw(|f| draw(f, &mut app)).expect("draw");
    });
    println!("keystroke after that paste to a drawn frame: {key:?}");
    // The same megabyte on one line (minified JSON, say): the cursor's line is laid out whole.
    let mut app = app_with_log(1, "short");
    app.update(Msg::Paste(
        "{\"key\": [1, 2, 3], \"more\": true}, ".repeat(1 << 15),
    ));
    let key = time(20, || {
        app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('x'),
            KeyModifiers::NONE,
        )));
        term.draw(|f| draw(f, &mut app)).expect("draw");
    });
    println!("keystroke after a 1 MB one-line paste to a drawn frame: {key:?}");

    // Streaming: 2,000 chunks of an answer arrive on a terminal with 500 turns of history, a
    // frame drawn after each (the pane re-wraps what changed).
    let mut app = app_with_log(500, &paragraph);
    term.draw(|f| draw(f, &mut app)).expect("draw");
    let step = |event| {
        Msg::Watch(WatchEvent::Turn {
            name: "api".into(),
            event,
        })
    };
    app.update(step(SendEvent::Started {
        turn_id: "t".into(),
        number: 501,
        provider: ProviderKind::Claude,
        conversation: 1,
        opened: None,
        rotate_at: 0.45,
        session: SessionStart::Resume,
        prompt: "stream a long answer".into(),
    }));
    // Token by token, as Claude's partial messages come: deltas growing one answer piece
    // (a paragraph break every 20 deltas), a frame after each.
    let chunks = 2000;
    let start = Instant::now();
    for n in 0..chunks {
        let text = if n % 20 == 19 {
            format!("delta {n} ends a paragraph.\n\n")
        } else {
            format!("delta {n}: a few more words ")
        };
        app.update(step(SendEvent::Turn {
            event: TurnEvent::Delta {
                text,
                start: n == 0,
            },
        }));
        term.draw(|f| draw(f, &mut app)).expect("draw");
    }
    let took = start.elapsed();
    println!(
        "streaming {chunks} deltas over 500 turns, a frame each: {took:?} ({:?} per delta)",
        took / chunks
    );

    let big = "all work and no play makes a long answer ".repeat(10 * 1024 * 1024 / 41);
    let mut app = app_with_log(1, &big);
    let first = Instant::now();
    term.draw(|f| draw(f, &mut app)).expect("draw");
    println!("10 MB answer, first draw: {:?}", first.elapsed());
    let redraw = time(20, || {
        term.draw(|f| draw(f, &mut app)).expect("draw");
    });
    println!("10 MB answer, redraw: {redraw:?} per frame");
    let key = time(20, || {
        app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('x'),
            KeyModifiers::NONE,
        )));
        term.draw(|f| draw(f, &mut app)).expect("draw");
    });
    println!("10 MB answer, keystroke to a drawn frame: {key:?}");
}
