//! Tests of what a client keeps across a detach: a draft per terminal through focus changes,
//! panes and renames; the drafts written back; the layout saved and brought back.

use super::*;
use crate::protocol::WatchEvent;
use crate::tui::app::{Effect, Msg, Tag};
use crate::tui::input::keys::Keys;
use crate::tui::testing::{app_with, ctrl, key, prefix, sent, terminal};
use crossterm::event::KeyCode;
use pretty_assertions::assert_eq;

fn typed(app: &mut App, s: &str) {
    for c in s.chars() {
        app.update(key(KeyCode::Char(c)));
    }
}

fn three() -> App {
    let mut app = app_with(vec![
        terminal("api", "claude", "idle", None),
        terminal("web", "codex", "idle", None),
        terminal("db", "claude", "idle", None),
    ]);
    app.panes_area = ratatui::layout::Rect::new(0, 0, 80, 24);
    app
}

#[test]
fn each_terminal_keeps_its_own_draft_and_enter_sends_it_there() {
    let mut app = three();
    assert_eq!(app.focused_name().as_deref(), Some("api"));
    typed(&mut app, "for api");
    prefix(&mut app, 'n');
    assert_eq!(app.focused_name().as_deref(), Some("web"));
    assert_eq!(app.composer.text(), "", "api's draft does not follow");
    typed(&mut app, "for web");
    // A pane of its own shows db: its composer starts empty; back to web's pane, web's draft.
    prefix(&mut app, '%');
    assert_eq!(app.focused_name().as_deref(), Some("api"));
    assert_eq!(app.composer.text(), "for api");
    prefix(&mut app, 'o');
    assert_eq!(app.composer.text(), "for web");
    let fx = app.update(key(KeyCode::Enter));
    assert_eq!(sent(&fx), Some(("web".into(), "for web".into())));
    prefix(&mut app, 'o');
    let fx = app.update(key(KeyCode::Enter));
    assert_eq!(sent(&fx), Some(("api".into(), "for api".into())));
}

#[test]
fn a_renamed_terminal_keeps_its_draft_and_a_removed_one_drops_it() {
    let mut app = three();
    typed(&mut app, "api's words");
    prefix(&mut app, 'n');
    typed(&mut app, "web's words");
    app.update(Msg::Watch(WatchEvent::Renamed {
        name: "api".into(),
        new_name: "backend".into(),
    }));
    app.update(Msg::Watch(WatchEvent::Removed { name: "web".into() }));
    assert_eq!(app.focused_name().as_deref(), Some("backend"));
    assert_eq!(app.composer.text(), "api's words");
    let changes = app.changed_drafts();
    assert_eq!(
        changes,
        vec![("backend".into(), Some("api's words".into()))]
    );
}

#[test]
fn an_edit_of_waiting_input_is_not_kept_as_a_draft() {
    let mut app = three();
    app.composer.set_text("edited text");
    app.editing = Some(("api".into(), 4));
    prefix(&mut app, 'n');
    assert_eq!(app.editing, None);
    prefix(&mut app, 'p');
    assert_eq!(app.composer.text(), "", "the edit left the input as it was");
}

#[test]
fn only_the_drafts_this_client_changed_are_written_back() {
    let mut app = App::new("baton", "/w/api", Keys::default());
    let file = Saved {
        drafts: [("api", "old api"), ("web", "web typed"), ("gone", "x")]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        ..Saved::default()
    };
    app.restore(file.clone());
    app.update(Msg::Watch(WatchEvent::Terminals {
        terminals: vec![
            terminal("api", "claude", "idle", None),
            terminal("web", "claude", "idle", None),
        ],
    }));
    assert_eq!(
        app.composer.text(),
        "old api",
        "api's draft comes back on focus"
    );
    app.update(ctrl('u'));
    app.update(ctrl('u'));
    typed(&mut app, "new api");
    let changes = app.changed_drafts();
    assert_eq!(changes, vec![("api".into(), Some("new api".into()))]);
    // Another client emptied web's draft meanwhile: this one does not bring it back.
    let mut on_disk = file;
    on_disk.drafts.remove("web");
    let out = merged(on_disk, changes, app.saved_layout());
    let drafts: Vec<(&str, &str)> = out
        .drafts
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(drafts, vec![("api", "new api"), ("gone", "x")]);
}

#[test]
fn the_layout_comes_back_with_its_faces_focus_and_zoom() {
    let mut app = three();
    prefix(&mut app, '%');
    prefix(&mut app, 's');
    prefix(&mut app, '"');
    prefix(&mut app, 'g');
    prefix(&mut app, 'z');
    let before = app.saved_layout();
    assert_eq!(before.panes.len(), 3);
    assert!(before.zoomed);

    let mut again = App::new("baton", "/elsewhere", Keys::default());
    again.restore(Saved {
        layout: Some(before.clone()),
        ..Saved::default()
    });
    let fx = again.update(Msg::Watch(WatchEvent::Terminals {
        terminals: vec![
            terminal("api", "claude", "idle", None),
            terminal("web", "codex", "idle", None),
            terminal("db", "claude", "idle", None),
        ],
    }));
    assert_eq!(again.saved_layout(), before);
    // No terminal works in /elsewhere: the offer to make one stands, over the layout.
    assert!(again.offer.is_some());
    let diff_read = fx
        .iter()
        .any(|e| matches!(e, Effect::Call(Tag::Diff(_), _)));
    assert!(diff_read, "the diff face reads its diff: {fx:?}");

    // A terminal removed meanwhile leaves its pane empty; a broken tree is not used.
    let mut fewer = App::new("baton", "/elsewhere", Keys::default());
    fewer.restore(Saved {
        layout: Some(before.clone()),
        ..Saved::default()
    });
    fewer.update(Msg::Watch(WatchEvent::Terminals {
        terminals: vec![
            terminal("api", "claude", "idle", None),
            terminal("web", "codex", "idle", None),
        ],
    }));
    let terms: Vec<Option<&str>> = fewer.panes.iter().map(|p| p.term.as_deref()).collect();
    assert_eq!(terms, vec![Some("api"), Some("web"), None]);
    let mut broken = before;
    broken.panes.pop();
    let mut app = App::new("baton", "/w/api", Keys::default());
    app.restore(Saved {
        layout: Some(broken),
        ..Saved::default()
    });
    assert_eq!(app.saved_layout, None);
}

#[test]
fn text_typed_for_a_terminal_not_announced_yet_stays_with_it() {
    // A rewind's reply focuses the new terminal and puts the prompt in the composer before
    // the server announces that terminal.
    let mut app = three();
    app.focus("api-2");
    app.composer.set_text("the rewound prompt");
    app.update(crate::tui::testing::announce(terminal(
        "api-2", "claude", "idle", None,
    )));
    assert_eq!(app.focused_name().as_deref(), Some("api-2"));
    assert_eq!(app.composer.text(), "the rewound prompt");
}

#[test]
fn after_a_write_only_later_changes_are_this_clients() {
    let mut app = three();
    typed(&mut app, "for api");
    let before = app.save_point();
    prefix(&mut app, 'n');
    assert_ne!(
        app.save_point(),
        before,
        "a draft put aside is worth writing"
    );
    app.saved();
    assert_eq!(app.changed_drafts(), vec![]);
    typed(&mut app, "for web");
    assert_eq!(
        app.changed_drafts(),
        vec![("web".into(), Some("for web".into()))]
    );
}

#[test]
fn the_focus_comes_back_where_it_was_left_whatever_the_folder() {
    // Panes api (a shell face) | web, as a client left them with the focus on pane `left`.
    let layout = |left: usize| {
        let mut app = three();
        prefix(&mut app, 's');
        prefix(&mut app, '%');
        if left == 0 {
            prefix(&mut app, 'o');
        }
        app.saved_layout()
    };
    // (focus left on, the folder `baton` is run in, `baton attach NAME`, the focus after)
    type Case<'a> = (usize, &'a str, Option<&'a str>, usize);
    let table: [Case; 7] = [
        // The bug: run from web's folder, the keys meant for api's shell went to web.
        (0, "/w/web", None, 0),
        (0, "/w/api", None, 0),
        (1, "/w/api", None, 1),
        (1, "/w/web", None, 1),
        (0, "/elsewhere", None, 0),
        // Another pane is asked for by name.
        (0, "/w/web", Some("web"), 1),
        (1, "/w/api", Some("api"), 0),
    ];
    for (left, cwd, attach, want) in table {
        let mut again = App::new("baton", cwd, Keys::default());
        again.restore(Saved {
            layout: Some(layout(left)),
            ..Saved::default()
        });
        again.attach_to = attach.map(str::to_string);
        again.update(Msg::Watch(WatchEvent::Terminals {
            terminals: vec![
                terminal("api", "claude", "idle", None),
                terminal("web", "codex", "idle", None),
            ],
        }));
        assert_eq!(again.active, want, "{left} {cwd} {attach:?}");
        assert_eq!(again.panes.len(), 2);
        assert!(again.panes[0].shell, "api's pane keeps its shell face");
        assert_eq!(again.shell_focused(), want == 0, "{left} {cwd} {attach:?}");
    }
}

#[test]
fn attach_name_focuses_the_pane_showing_it_else_the_active_pane_shows_it() {
    // Panes api | web, the focus on web, as a client left them.
    let mut app = three();
    prefix(&mut app, '%');
    let left = app.saved_layout();
    assert_eq!(left.active, 1);
    let list = || {
        Msg::Watch(WatchEvent::Terminals {
            terminals: vec![
                terminal("api", "claude", "idle", None),
                terminal("web", "codex", "idle", None),
                terminal("db", "claude", "idle", None),
            ],
        })
    };
    // (NAME, the focused pane after, what the panes show, whether the offer shows)
    type Case<'a> = (&'a str, usize, [&'a str; 2], bool);
    let table: [Case; 3] = [
        ("api", 0, ["api", "web"], false),
        ("web", 1, ["api", "web"], false),
        ("db", 1, ["api", "db"], false),
    ];
    for (name, active, shown, offer) in table {
        let mut again = App::new("baton", "/elsewhere", Keys::default());
        again.restore(Saved {
            layout: Some(left.clone()),
            ..Saved::default()
        });
        again.attach_to = Some(name.to_string());
        again.update(list());
        assert_eq!(again.active, active, "{name}");
        let terms: Vec<&str> = again
            .panes
            .iter()
            .filter_map(|p| p.term.as_deref())
            .collect();
        assert_eq!(terms, shown, "{name}");
        assert_eq!(again.offer.is_some(), offer, "{name}");
        assert_eq!(again.focused_name().as_deref(), Some(name));
    }
    // Without a saved layout: the one pane shows it.
    let mut fresh = App::new("baton", "/elsewhere", Keys::default());
    fresh.attach_to = Some("db".into());
    fresh.update(list());
    assert_eq!(fresh.focused_name().as_deref(), Some("db"));
}

#[test]
fn keys_typed_before_the_first_list_stay_in_the_composer() {
    let list = || {
        Msg::Watch(WatchEvent::Terminals {
            terminals: vec![terminal("api", "claude", "idle", None)],
        })
    };
    // (the draft kept for api, what the composer holds once api has the focus)
    let table = [
        (None, "word3 here"),
        (Some("kept draft"), "kept draft\nword3 here"),
    ];
    for (draft, composer) in table {
        let mut app = App::new("baton", "/w/api", Keys::default());
        app.restore(Saved {
            drafts: draft
                .map(|d| ("api".to_string(), d.to_string()))
                .into_iter()
                .collect(),
            ..Saved::default()
        });
        typed(&mut app, "word3 here");
        app.update(list());
        assert_eq!(app.focused_name().as_deref(), Some("api"));
        assert_eq!(app.composer.text(), composer, "{draft:?}");
    }
}
