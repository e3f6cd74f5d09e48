//! Tests of the new-terminal offer: what each key means over it, and the three
//! prompts typed at once (none of their letters taken as an answer).

use super::*;
use crate::protocol::views::TerminalView;
use crate::protocol::WatchEvent;
use crate::tui::app::saved::Saved;
use crate::tui::app::Msg;
use crate::tui::input::keys::Keys;
use crate::tui::testing::{ctrl, key, prefix, sent, terminal, views};
use pretty_assertions::assert_eq;
use serde_json::json;

fn k(code: KeyCode, m: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, m)
}

#[test]
fn each_key_over_the_offer() {
    let none = KeyModifiers::NONE;
    let c = KeyModifiers::CONTROL;
    // (key, the composer is blank, what it does)
    let table = [
        (k(KeyCode::Char('y'), none), true, OfferKey::Type),
        (k(KeyCode::Char('e'), none), true, OfferKey::Type),
        (k(KeyCode::Char('n'), none), true, OfferKey::Type),
        (
            k(KeyCode::Char('R'), KeyModifiers::SHIFT),
            true,
            OfferKey::Type,
        ),
        (
            k(KeyCode::Enter, none),
            false,
            OfferKey::Create { send: true },
        ),
        (
            k(KeyCode::Enter, none),
            true,
            OfferKey::Create { send: false },
        ),
        (k(KeyCode::Enter, KeyModifiers::ALT), false, OfferKey::Type),
        (
            k(KeyCode::Char('y'), c),
            false,
            OfferKey::Create { send: false },
        ),
        (k(KeyCode::Char('e'), c), false, OfferKey::Edit),
        (k(KeyCode::Esc, none), false, OfferKey::Decline),
        (k(KeyCode::Char('c'), c), true, OfferKey::Decline),
        (k(KeyCode::Char('c'), c), false, OfferKey::Type),
        (k(KeyCode::Char('u'), c), false, OfferKey::Type),
        (k(KeyCode::Char('t'), c), false, OfferKey::Ignore),
        (k(KeyCode::Up, none), true, OfferKey::Ignore),
        (k(KeyCode::Up, none), false, OfferKey::Type),
        (k(KeyCode::Backspace, none), false, OfferKey::Type),
        (k(KeyCode::Tab, none), false, OfferKey::Ignore),
    ];
    for (key, blank, want) in table {
        assert_eq!(offer_key(&key, blank), want, "{key:?} blank={blank}");
    }
}

/// Opened in /w/here, where no terminal works; `other` works elsewhere and has the pane.
fn opened() -> App {
    let mut app = App::new("baton", "/w/here", Keys::default());
    app.update(Msg::Watch(WatchEvent::Terminals {
        terminals: vec![terminal("other", "claude", "idle", None)],
    }));
    app
}

fn typed(app: &mut App, s: &str) -> Vec<Effect> {
    s.chars()
        .flat_map(|c| app.update(key(KeyCode::Char(c))))
        .collect()
}

fn created(app: &mut App) -> Vec<Effect> {
    let view: TerminalView = views::terminal(json!({"name": "here", "dir": "/w/here"}));
    app.update(Msg::Reply(Tag::New, Ok(view.into())))
}

fn asks_new(fx: &[Effect]) -> bool {
    fx.iter()
        .any(|e| matches!(e, Effect::Call(Tag::New, Request::New { dir, .. }) if dir == "/w/here"))
}

#[test]
fn a_prompt_typed_at_once_over_the_offer_becomes_the_new_terminals_first_prompt() {
    for prompt in [
        "Refactor the parser please",
        "yesterday the build broke",
        "now write tests",
    ] {
        let mut app = opened();
        assert!(
            app.offer.is_some(),
            "no terminal works here: the offer stands"
        );
        assert_eq!(app.focused_name().as_deref(), Some("other"));
        let fx = typed(&mut app, prompt);
        assert_eq!(fx, vec![], "{prompt}: no letter answers");
        assert_eq!(app.mode, Mode::Normal, "{prompt}");
        assert_eq!(app.composer.text(), prompt);
        let fx = app.update(key(KeyCode::Enter));
        assert!(asks_new(&fx), "{prompt}: {fx:?}");
        assert_eq!(sent(&fx), None, "nothing goes to other");
        let fx = created(&mut app);
        assert_eq!(sent(&fx), Some(("here".into(), prompt.into())));
        assert_eq!(app.offer, None);
        assert!(app.offered.contains("/w/here"));
        // other's draft was never touched.
        assert_eq!(app.drafts.get("other"), None);
    }
}

#[test]
fn chords_answer_the_offer_and_the_draft_stays_whole() {
    // C-y: created, the draft waits in its composer.
    let mut app = opened();
    typed(&mut app, "a draft");
    assert!(asks_new(&app.update(ctrl('y'))));
    let fx = created(&mut app);
    assert_eq!(sent(&fx), None);
    assert_eq!(app.focused_name().as_deref(), Some("here"));
    assert_eq!(app.composer.text(), "a draft");

    // C-e: the form; Esc there comes back to the offer.
    let mut app = opened();
    typed(&mut app, "a draft");
    app.update(ctrl('e'));
    assert!(matches!(app.mode, Mode::NewTerminal(_)));
    app.update(key(KeyCode::Esc));
    assert_eq!(app.mode, Mode::Normal);
    assert!(app.offer.is_some());
    assert_eq!(app.composer.text(), "a draft");

    // Esc declines: the draft moves to the composer of the terminal shown; not asked again.
    let mut app = opened();
    typed(&mut app, "a draft");
    assert_eq!(app.update(key(KeyCode::Esc)), vec![]);
    assert_eq!(app.offer, None);
    assert_eq!(app.composer.text(), "a draft");
    let fx = app.update(key(KeyCode::Enter));
    assert_eq!(sent(&fx), Some(("other".into(), "a draft".into())));
    let mut again = App::new("baton", "/w/here", Keys::default());
    again.restore(Saved {
        offered: app.offered.clone(),
        ..Saved::default()
    });
    again.update(Msg::Watch(WatchEvent::Terminals {
        terminals: vec![terminal("other", "claude", "idle", None)],
    }));
    assert_eq!(again.offer, None, "asked once per folder");
}

#[test]
fn moving_to_a_terminal_sets_the_offer_aside_and_a_refusal_leaves_it_standing() {
    let mut app = App::new("baton", "/w/here", Keys::default());
    app.update(Msg::Watch(WatchEvent::Terminals {
        terminals: vec![
            terminal("other", "claude", "idle", None),
            terminal("web", "claude", "idle", None),
        ],
    }));
    typed(&mut app, "for web");
    prefix(&mut app, 'n');
    assert_eq!(app.offer, None);
    assert!(app.offered.contains("/w/here"));
    assert_eq!(app.focused_name().as_deref(), Some("web"));
    assert_eq!(app.composer.text(), "for web");

    let mut app = opened();
    typed(&mut app, "keep me");
    app.update(key(KeyCode::Enter));
    let refused = crate::error::BatonError::failed("no room");
    app.update(Msg::Reply(Tag::New, Err(refused)));
    assert_eq!(app.offer, Some(Offer::default()));
    assert_eq!(app.composer.text(), "keep me");
}

#[test]
fn an_enter_typed_before_the_first_list_sends_only_where_it_was_meant() {
    // (opened in, `baton attach NAME`, what the prompt does once the list came)
    let table = [
        ("/w/api", None, "sent to api"),
        ("/w/here", Some("web"), "sent to web"),
        ("/w/here", None, "creates here"),
        ("/w/here", Some("nope"), "waits"),
    ];
    for (cwd, attach, want) in table {
        let mut app = App::new("baton", cwd, Keys::default());
        app.attach_to = attach.map(str::to_string);
        typed(&mut app, "fix it");
        assert_eq!(app.update(key(KeyCode::Enter)), vec![], "{cwd} {attach:?}");
        let fx = app.update(Msg::Watch(WatchEvent::Terminals {
            terminals: vec![
                terminal("api", "claude", "idle", None),
                terminal("web", "claude", "idle", None),
            ],
        }));
        let got = match (sent(&fx), asks_new(&fx)) {
            (Some((name, prompt)), false) if prompt == "fix it" => format!("sent to {name}"),
            (None, true) => "creates here".to_string(),
            (None, false) if app.composer.text() == "fix it" => "waits".to_string(),
            other => format!("{other:?}"),
        };
        assert_eq!(got, want, "{cwd} {attach:?}");
    }
}

#[test]
fn a_draft_typed_over_the_offer_is_kept_across_a_detach() {
    let mut app = opened();
    typed(&mut app, "half a prompt");
    let changes = app.changed_drafts();
    assert_eq!(
        changes,
        vec![("/w/here".to_string(), Some("half a prompt".to_string()))]
    );
    let kept = crate::tui::app::saved::merged(Saved::default(), changes, app.saved_layout());
    let mut again = App::new("baton", "/w/here", Keys::default());
    again.restore(kept);
    again.update(Msg::Watch(WatchEvent::Terminals {
        terminals: vec![terminal("other", "claude", "idle", None)],
    }));
    assert!(again.offer.is_some());
    assert_eq!(again.composer.text(), "half a prompt");
    // Declined: it moves to other's composer, and the folder's entry goes.
    again.update(key(KeyCode::Esc));
    assert_eq!(again.composer.text(), "half a prompt");
    assert!(again
        .changed_drafts()
        .contains(&("/w/here".to_string(), None)));
}
