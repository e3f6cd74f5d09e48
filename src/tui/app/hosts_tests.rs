//! Terminals of other hosts in the state: names qualified on the way in and bare on the way
//! out, each source's list replacing only its own terminals, the list grouped by host with a
//! header that says offline, and clicks landing on the entry under them.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::protocol::views::ForkView;
use crate::protocol::{Answer, Request, SendRequest, WatchEvent};
use crate::tui::app::{Effect, Msg, Tag};
use crate::tui::testing::{app_with, screen, terminal};

fn send(name: &str) -> Request {
    Request::Send {
        name: name.into(),
        send: SendRequest::new("hi"),
        detach: false,
    }
}

#[test]
fn a_request_goes_to_the_host_its_terminal_is_on_with_bare_names() {
    let rename = |a: &str, b: &str| Request::Rename {
        name: a.into(),
        new_name: b.into(),
    };
    let fork = |a: &str, b: Option<&str>| Request::Fork {
        name: a.into(),
        new: b.map(str::to_string),
    };
    let table = [
        (send("api"), (None, send("api"))),
        (send("box:t"), (Some("box"), send("t"))),
        (rename("box:t", "box:u"), (Some("box"), rename("t", "u"))),
        (rename("box:t", "u"), (Some("box"), rename("t", "u"))),
        (
            fork("box:t", Some("box:f")),
            (Some("box"), fork("t", Some("f"))),
        ),
        (fork("box:t", None), (Some("box"), fork("t", None))),
        (Request::Watch, (None, Request::Watch)),
    ];
    for (req, (host, want)) in table {
        let (got_host, got) = route(req.clone());
        assert_eq!((got_host.as_deref(), got), (host, want), "{req:?}");
    }
}

#[test]
fn a_hosts_events_and_replies_name_its_terminals_host_colon_name() {
    let ev = WatchEvent::Renamed {
        name: "t".into(),
        new_name: "u".into(),
    };
    assert_eq!(
        qualify_event("box", ev),
        WatchEvent::Renamed {
            name: "box:t".into(),
            new_name: "box:u".into()
        }
    );
    let gone = qualify_event("box", WatchEvent::Removed { name: "t".into() });
    assert_eq!(
        gone,
        WatchEvent::Removed {
            name: "box:t".into()
        }
    );
    let fork = |name: &str, from: &str| -> Answer {
        let v: ForkView = serde_json::from_value(json!({
            "name": name, "from": from, "from_turn": 2, "branch": null, "worktree": null,
            "session_mode": "forked"
        }))
        .unwrap();
        v.into()
    };
    assert_eq!(
        qualify_answer("box", fork("f", "t")),
        fork("box:f", "box:t")
    );
    // A list's rows keep their names (the watch stream's lists are qualified apart).
    let listed = Answer::from(vec![terminal("t", "claude", "idle", None)]);
    assert_eq!(qualify_answer("box", listed.clone()), listed);
    assert_eq!(split("box:t"), (Some("box"), "t"));
    assert_eq!(on_same_host("box:t", "u".into()), "box:u");
    assert_eq!(on_same_host("box:t", "box:u".into()), "box:u");
    assert_eq!(on_same_host("t", "u".into()), "u");
    assert_eq!(split("api"), (None, "api"));
}

/// The UI with local `api` and `t`, hosts `box` and `far`, and `box`'s `t` listed.
fn two_sources() -> App {
    let mut app = app_with(vec![
        terminal("api", "claude", "idle", None),
        terminal("t", "claude", "idle", None),
    ]);
    app.set_hosts(["box".to_string(), "far".to_string()]);
    let list = WatchEvent::Terminals {
        terminals: vec![terminal("t", "codex", "running", None)],
    };
    app.update(Msg::Host("box".into(), HostMsg::Watch(Box::new(list))));
    app
}

fn names(app: &App) -> Vec<String> {
    app.listed().iter().map(|t| t.info.name.clone()).collect()
}

#[test]
fn each_sources_list_replaces_only_its_own_terminals_and_names_may_clash_across_hosts() {
    let mut app = two_sources();
    assert_eq!(names(&app), ["api", "t", "box:t"]);
    assert_eq!(
        app.term("box:t").map(|t| t.info.provider.as_str()),
        Some("codex")
    );
    // This machine's list again (after falling behind): box's terminal stays.
    let local = WatchEvent::Terminals {
        terminals: vec![terminal("api", "claude", "idle", None)],
    };
    app.update(Msg::Watch(local));
    assert_eq!(names(&app), ["api", "box:t"]);
    // A local terminal made later is still listed before the hosts' ones.
    let made = WatchEvent::Terminal {
        terminal: Box::new(terminal("web", "claude", "idle", None)),
    };
    app.update(Msg::Watch(made));
    assert_eq!(names(&app), ["api", "web", "box:t"]);
    let empty = WatchEvent::Terminals { terminals: vec![] };
    app.update(Msg::Host("box".into(), HostMsg::Watch(Box::new(empty))));
    assert_eq!(names(&app), ["api", "web"]);
}

#[test]
fn a_hosts_turn_steps_reach_its_terminal_and_a_send_from_it_names_the_host() {
    let mut app = two_sources();
    let started = WatchEvent::Finished {
        name: "t".into(),
        summary: crate::tui::testing::views::summary(json!({"number": 1})),
    };
    app.update(Msg::Host("box".into(), HostMsg::Watch(Box::new(started))));
    // The local `t` was never touched by box's turn.
    assert_eq!(app.term("t").unwrap().unseen, None);
    assert!(app.term("box:t").unwrap().unseen.is_some());
    app.focus("box:t");
    app.composer.insert_str("hello");
    let fx = app.update(crate::tui::testing::key(crossterm::event::KeyCode::Enter));
    let sent = fx.iter().find_map(|e| match e {
        Effect::Call(Tag::Send { name, .. }, Request::Send { name: to, .. }) => {
            Some((name.clone(), to.clone()))
        }
        _ => None,
    });
    assert_eq!(sent, Some(("box:t".into(), "box:t".into())));
}

#[test]
fn the_list_groups_terminals_under_their_host_and_says_which_is_offline() {
    let mut app = two_sources();
    app.update(Msg::Host("far".into(), HostMsg::Lost("refused".into())));
    let rows = app.list_rows();
    let link = |name: &str, link: Link| {
        ListRow::Host(HostLink {
            name: name.into(),
            link,
        })
    };
    assert_eq!(
        rows,
        [
            ListRow::Term(0),
            ListRow::Term(1),
            link("box", Link::Online),
            ListRow::Term(2),
            link("far", Link::Offline("refused".into())),
        ]
    );
    // One row per header, two per entry, inside the border.
    let hits: Vec<Option<usize>> = (0..9).map(|y| app.list_hit(y)).collect();
    assert_eq!(
        hits,
        [
            Some(0),
            Some(0),
            Some(1),
            Some(1),
            None,
            Some(2),
            Some(2),
            None,
            None
        ]
    );
    let s = screen(&mut app, 100, 12);
    let list: Vec<String> = s
        .lines()
        .skip(1)
        .take(7)
        .map(|l| {
            l.chars()
                .skip(1)
                .take(26)
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect();
    assert_eq!(
        list,
        [
            "0 api                 idle",
            "  claude   ctx –",
            "1 t                   idle",
            "  claude   ctx –",
            "── box",
            "2 box:t          ● running",
            "  codex    ctx –",
        ]
    );
    assert!(s.contains("── far · offline"), "{s}");
    // Back online: the next list says so.
    let list = WatchEvent::Terminals { terminals: vec![] };
    app.update(Msg::Host("far".into(), HostMsg::Watch(Box::new(list))));
    assert_eq!(app.hosts[1].link, Link::Online);
}

#[test]
fn attaching_to_a_remote_terminal_focuses_it_once_its_host_lists_it() {
    let mut app = App::new(
        "baton",
        "/w/elsewhere",
        crate::tui::input::keys::Keys::default(),
    );
    app.set_hosts(["box".to_string(), "far".to_string()]);
    app.attach_to = Some("box:t".into());
    let local = WatchEvent::Terminals {
        terminals: vec![terminal("api", "claude", "idle", None)],
    };
    app.update(Msg::Watch(local));
    // Not offered a terminal here, not told box:t is missing: box has not listed yet.
    assert_eq!(app.mode, crate::tui::app::Mode::Normal);
    assert_eq!(app.status, None);
    let far = WatchEvent::Terminals { terminals: vec![] };
    app.update(Msg::Host("far".into(), HostMsg::Watch(Box::new(far))));
    assert_eq!(app.attach_to.as_deref(), Some("box:t"));
    let list = WatchEvent::Terminals {
        terminals: vec![terminal("t", "claude", "idle", None)],
    };
    let fx = app.update(Msg::Host("box".into(), HostMsg::Watch(Box::new(list))));
    assert_eq!(app.focused_name().as_deref(), Some("box:t"));
    assert_eq!(app.attach_to, None);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Call(Tag::Log(n), _) if n == "box:t")),
        "{fx:?}"
    );
}

#[test]
fn a_shell_face_its_host_dropped_attaches_again_when_the_host_lists_again() {
    use crate::tui::shell::{ShellUpdate, ShellView};
    let mut app = two_sources();
    let lost = |app: &mut App, name: &str| {
        let mut v = ShellView::new(1, 10, 40);
        v.apply(ShellUpdate::Lost(
            "the connection to the server ended".into(),
        ));
        app.term_mut(name).unwrap().shell = Some(v);
    };
    lost(&mut app, "box:t");
    lost(&mut app, "t");
    app.update(Msg::Host("box".into(), HostMsg::Lost("ssh ended".into())));
    assert!(app.term("box:t").unwrap().shell.is_some());
    let list = WatchEvent::Terminals {
        terminals: vec![terminal("t", "codex", "idle", None)],
    };
    app.update(Msg::Host("box".into(), HostMsg::Watch(Box::new(list))));
    // box's is opened again at the next drawing; the local one waits for Enter as before.
    assert_eq!(app.term("box:t").unwrap().shell, None);
    assert!(app.term("t").unwrap().shell.is_some());
}

#[test]
fn interrupting_stays_said_until_that_terminals_turn_ends() {
    let mut app = two_sources();
    app.focus("box:t");
    let _ = app.interrupt();
    let said = Some(("interrupting box:t…".to_string(), false));
    assert_eq!(app.status, said);
    let finished = || {
        Box::new(WatchEvent::Finished {
            name: "t".into(),
            summary: crate::tui::testing::views::summary(json!({"number": 1})),
        })
    };
    // This machine's `t` ending says nothing of box:t's interrupt (both read "interrupting t").
    app.update(Msg::Watch(*finished()));
    assert_eq!(app.status, said);
    // Its end clears it, though the user looks at another terminal by then.
    app.focus("t");
    app.update(Msg::Host("box".into(), HostMsg::Watch(finished())));
    assert_eq!(app.status, None);
    // Other news stays until the next key.
    app.say("accepted as input 3");
    app.update(Msg::Host("box".into(), HostMsg::Watch(finished())));
    assert_eq!(app.status, Some(("accepted as input 3".into(), false)));
}
