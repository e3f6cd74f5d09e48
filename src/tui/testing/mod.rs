//! Helpers shared by the UI's tests: views written as the few fields a test cares about
//! (`views`), and the state built and drawn through the same messages the server and the
//! keyboard send.

pub mod views;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::{json, Value};

use crate::protocol::views::TerminalView;
use crate::protocol::WatchEvent;
use crate::protocol::{Request, SendRequest};
use crate::tui::app::{App, Effect, Msg, Tag};
use crate::tui::draw::draw;
use crate::tui::input::keys::Keys;

/// A terminal of the list: `name` on `provider` in `state`, in conversation 2, with `ctx` as
/// (tokens, window) when it reported its context.
pub fn terminal(name: &str, provider: &str, state: &str, ctx: Option<(u64, u64)>) -> TerminalView {
    let context = ctx.map_or(Value::Null, |(t, w)| json!({"tokens": t, "window": w}));
    views::terminal(json!({"name": name, "provider": provider, "state": state,
                                "conversation": {"number": 2}, "context": context}))
}

/// `name` in `state` with `waiting` on the server (input number, prompt), next to run first.
pub fn queued(name: &str, state: &str, waiting: &[(u32, &str)]) -> TerminalView {
    let queue: Vec<Value> = waiting
        .iter()
        .enumerate()
        .map(|(i, (input, prompt))| {
            json!({"input": input, "position": i + 1, "prompt": prompt, "mode": "queue",
                   "provider": "claude", "model": null, "queued_at": "2026-01-01T00:00:00Z"})
        })
        .collect();
    views::terminal(
        json!({"name": name, "state": state, "conversation": {"number": 2},
                           "queued": queue.len(), "queue": queue}),
    )
}

/// The server's announcement of a changed terminal.
pub fn announce(v: TerminalView) -> Msg {
    Msg::Watch(WatchEvent::Terminal {
        terminal: Box::new(v),
    })
}

/// The UI after the server announced `terms`.
pub fn app_with(terms: Vec<TerminalView>) -> App {
    let mut app = App::new("baton", "/w/api", Keys::default());
    app.update(Msg::Watch(WatchEvent::Terminals { terminals: terms }));
    app
}

/// The answer to `log api`: three turns over two conversations, the last failed.
pub fn log() -> crate::protocol::Answer {
    views::log_data(json!({
        "name": "api",
        "conversations": [
            {"number": 1, "opened_reason": "first"},
            {"number": 2, "opened_reason": "size"},
        ],
        "turns": [
            {"number": 1, "conversation": 1, "provider": "claude", "prompt": "Add a /health endpoint",
             "status": "completed", "answer": "Done: GET /health returns 200.", "tools": ["Read src/main.rs"],
             "notes": [], "context": {"tokens": 100000, "window": 200000}},
            {"number": 2, "conversation": 2, "provider": "claude", "prompt": "Add a test",
             "status": "completed", "answer": "Added tests/health.rs.", "tools": [], "notes": [],
             "context": {"tokens": 12000, "window": 200000}},
            {"number": 3, "conversation": 2, "provider": "codex", "prompt": "Review it",
             "status": "failed", "error": "API error 400", "answer": null, "tools": [], "notes": [],
             "context": null},
        ]
    }))
}

/// The screen drawn at `w`×`h`, as text (trailing spaces trimmed).
pub fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, app)).unwrap();
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..h {
        let mut row = String::new();
        for x in 0..w {
            row.push_str(buf[(x, y)].symbol());
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

/// The terminal and prompt of the send among `fx` (Enter's).
pub fn sent(fx: &[Effect]) -> Option<(String, String)> {
    fx.iter().find_map(|e| match e {
        Effect::Call(
            Tag::Send { .. },
            Request::Send {
                name,
                send: SendRequest { prompt, .. },
                ..
            },
        ) => Some((name.clone(), prompt.clone())),
        _ => None,
    })
}

/// A key pressed without modifiers.
pub fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// A key pressed with Ctrl.
pub fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// The default prefix (C-b), then the key `c`.
pub fn prefix(app: &mut App, c: char) -> Vec<Effect> {
    app.update(ctrl('b'));
    app.update(key(KeyCode::Char(c)))
}

/// The style of cell (`x`, `y`) of the screen drawn at `w`×`h`.
pub fn cell_style(app: &mut App, w: u16, h: u16, x: u16, y: u16) -> ratatui::style::Style {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, app)).unwrap();
    t.backend().buffer()[(x, y)].style()
}
