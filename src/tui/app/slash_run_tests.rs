//! The composer's slash commands as keys drive them: what Enter sends or runs, Tab's
//! completion, and the title's hint.

use crossterm::event::KeyCode;
use pretty_assertions::assert_eq;

use crate::protocol::{Request, SendRequest};
use crate::tui::app::{App, Effect, Mode, Tag};
use crate::tui::testing::{app_with, key, terminal};

fn typed(app: &mut App, s: &str) {
    for c in s.chars() {
        app.update(key(KeyCode::Char(c)));
    }
}

fn enter(app: &mut App, s: &str) -> Vec<Effect> {
    typed(app, s);
    app.update(key(KeyCode::Enter))
}

fn sent(prompt: &str, send: SendRequest) -> Vec<Effect> {
    vec![Effect::Call(
        Tag::Send {
            name: "api".into(),
            prompt: prompt.into(),
        },
        Request::Send {
            name: "api".into(),
            send,
            detach: true,
        },
    )]
}

fn api() -> App {
    app_with(vec![terminal("api", "claude", "idle", None)])
}

#[test]
fn batons_commands_act_on_the_focused_terminal_and_others_reach_the_cli_as_typed() {
    let mut app = api();
    let fork = Request::Fork {
        name: "api".into(),
        new: Some("x".into()),
    };
    assert_eq!(
        enter(&mut app, "/fork x"),
        vec![Effect::Call(Tag::Fork("api".into()), fork)]
    );
    assert!(app.composer.is_empty());
    let plain = |p: &str| sent(p, SendRequest::new(p));
    assert_eq!(enter(&mut app, "/foo bar"), plain("/foo bar"));
    assert_eq!(enter(&mut app, "//fork x"), plain("/fork x"));
    // A wrong use says so and keeps the text to mend.
    assert_eq!(enter(&mut app, "/rewind"), vec![]);
    assert_eq!(app.composer.text(), "/rewind");
    assert!(matches!(&app.status, Some((e, true)) if e == "usage: /rewind N [NEW]"));
}

#[test]
fn new_model_and_provider_go_with_the_next_prompt_only() {
    let mut app = api();
    assert_eq!(enter(&mut app, "/new"), vec![]);
    assert_eq!(enter(&mut app, "/model opus"), vec![]);
    assert_eq!(enter(&mut app, "/provider local:qwen"), vec![]);
    let want = SendRequest {
        provider: Some("local:qwen".into()),
        model: Some("opus".into()),
        fresh: true,
        ..SendRequest::new("hi")
    };
    assert_eq!(enter(&mut app, "hi"), sent("hi", want));
    assert_eq!(
        enter(&mut app, "again"),
        sent("again", SendRequest::new("again"))
    );
    assert_eq!(enter(&mut app, "/help"), vec![]);
    assert!(matches!(app.mode, Mode::Help { .. }));
}

#[test]
fn tab_completes_a_slash_command_and_switches_provider_otherwise() {
    let mut app = api();
    typed(&mut app, "/in");
    app.update(key(KeyCode::Tab));
    assert_eq!(app.composer.text(), "/instructions");
    app.update(key(KeyCode::Tab));
    assert_eq!(app.composer.text(), "/interrupt");
    assert_eq!(app.next_provider, None);
    app.composer.clear();
    app.update(key(KeyCode::Tab));
    assert_eq!(app.next_provider, Some(crate::words::ProviderKind::Codex));
}
