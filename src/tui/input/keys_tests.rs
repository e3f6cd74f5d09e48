//! Tests of the key bindings: the prefix, what each key after it does, key names as tmux writes
//! them, and `[ui.keys]` applied or refused with the key at fault.

use super::*;

fn key(c: char, m: KeyModifiers) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), m)
}

fn config(text: &str) -> Result<Keys, String> {
    let c = crate::config::Config::parse(text)?;
    Keys::from_config(&c.ui.keys, false).map_err(|e| e.to_string())
}

#[test]
fn prefix_follows_tmux() {
    assert!(Keys::for_env(false)
        .prefix
        .matches(&key('b', KeyModifiers::CONTROL)));
    assert!(Keys::for_env(true)
        .prefix
        .matches(&key('a', KeyModifiers::CONTROL)));
    assert!(!Keys::for_env(true)
        .prefix
        .matches(&key('a', KeyModifiers::NONE)));
}

#[test]
fn keys_after_the_prefix() {
    let keys = Keys::default();
    let table = [
        ('c', KeyModifiers::NONE, Some(PrefixAction::NewTerminal)),
        ('3', KeyModifiers::NONE, Some(PrefixAction::Jump(3))),
        ('%', KeyModifiers::SHIFT, Some(PrefixAction::SplitBeside)),
        ('d', KeyModifiers::NONE, Some(PrefixAction::Detach)),
        ('n', KeyModifiers::CONTROL, Some(PrefixAction::Next)),
        ('s', KeyModifiers::NONE, Some(PrefixAction::ToggleShell)),
        ('g', KeyModifiers::NONE, Some(PrefixAction::ToggleDiff)),
        (',', KeyModifiers::NONE, Some(PrefixAction::Rename)),
        ('X', KeyModifiers::SHIFT, Some(PrefixAction::Remove)),
        ('[', KeyModifiers::NONE, Some(PrefixAction::CopyMode)),
        ('x', KeyModifiers::NONE, Some(PrefixAction::ClosePane)),
        ('z', KeyModifiers::NONE, Some(PrefixAction::Zoom)),
        ('o', KeyModifiers::NONE, Some(PrefixAction::NextPane)),
        ('b', KeyModifiers::CONTROL, None),
        ('Z', KeyModifiers::SHIFT, None),
    ];
    for (c, m, want) in table {
        assert_eq!(keys.action(&key(c, m)), want, "{c} {m:?}");
    }
    let arrows = [
        (KeyCode::Left, Some(PrefixAction::Select(Side::Left))),
        (KeyCode::Right, Some(PrefixAction::Select(Side::Right))),
        (KeyCode::Up, Some(PrefixAction::Select(Side::Up))),
        (KeyCode::Down, Some(PrefixAction::Select(Side::Down))),
        (KeyCode::Home, None),
    ];
    for (code, want) in arrows {
        let k = KeyEvent::new(code, KeyModifiers::NONE);
        assert_eq!(keys.action(&k), want, "{code:?}");
    }
}

#[test]
fn key_names_parse_as_tmux_writes_them() {
    type Want = Result<(char, bool, bool), ()>;
    let table: [(&str, Want); 20] = [
        ("c", Ok(('c', false, false))),
        ("C-Space", Ok((' ', true, false))),
        ("C-space", Ok((' ', true, false))),
        ("Ctrl-a", Ok(('a', true, false))),
        ("ctrl+B", Ok(('b', true, false))),
        ("^b", Ok(('b', true, false))),
        ("Alt-x", Ok(('x', false, true))),
        ("Ctrl-Alt-x", Ok(('x', true, true))),
        ("C-1", Err(())),
        ("Ctrl-", Err(())),
        ("X", Ok(('X', false, false))),
        ("\"", Ok(('"', false, false))),
        ("-", Ok(('-', false, false))),
        ("C-a", Ok(('a', true, false))),
        ("C-A", Ok(('a', true, false))),
        ("M-x", Ok(('x', false, true))),
        ("C-M-x", Ok(('x', true, true))),
        ("M-Space", Ok((' ', false, true))),
        ("C-", Err(())),
        ("", Err(())),
    ];
    for (name, want) in table {
        let got = Key::parse(name)
            .map(|k| (k.ch, k.ctrl, k.alt))
            .map_err(|_| ());
        assert_eq!(got, want, "{name:?}");
        if let Ok(k) = Key::parse(name) {
            assert_eq!(Key::parse(&k.label()), Ok(k), "{name:?} round trip");
            assert!(k.matches(&k.event()), "{name:?}");
        }
    }
    assert!(Key::parse("C-%").is_err());
}

#[test]
fn configured_keys_replace_the_defaults() {
    let keys = config("[ui.keys]\nprefix = \"C-Space\"\n").unwrap();
    assert!(keys.prefix.matches(&key(' ', KeyModifiers::CONTROL)));
    assert_eq!(keys.hint(PrefixAction::Help), "C-Space ?");
    let keys = config("[ui.keys]\nprefix = \"C-%\"\n").err();
    assert!(keys.is_some_and(|e| e.contains("prefix")));
    let keys = config("[ui.keys]\nprefix = \"C-q\"\nnext = \"M-n\"\nnew = \"N\"\n").unwrap();
    assert!(keys.prefix.matches(&key('q', KeyModifiers::CONTROL)));
    let table = [
        ('n', KeyModifiers::ALT, Some(PrefixAction::Next)),
        ('N', KeyModifiers::SHIFT, Some(PrefixAction::NewTerminal)),
        ('c', KeyModifiers::NONE, None),
        ('n', KeyModifiers::NONE, None),
        ('p', KeyModifiers::NONE, Some(PrefixAction::Prev)),
    ];
    for (c, m, want) in table {
        assert_eq!(keys.action(&key(c, m)), want, "{c} {m:?}");
    }
    assert_eq!(keys.hint(PrefixAction::Next), "C-q M-n");
    assert!(keys.help().iter().any(|(k, _)| k == "C-q N"));
}

#[test]
fn bad_configured_keys_are_refused_naming_the_key() {
    let table = [
        ("next = \"c\"", "next = \"c\" is already the key of new"),
        ("new = \"n\"", "next = \"n\" is already the key of new"),
        ("help = \"C-b\"", "help = \"C-b\" is the prefix key"),
        (
            "prefix = \"C-n\"\nnext = \"C-n\"",
            "next = \"C-n\" is the prefix key",
        ),
        ("copy = \"5\"", "copy = \"5\": the digits jump"),
        (
            "rename = \"Hyper-r\"",
            "[ui.keys] rename: \"Hyper-r\" is not a key",
        ),
        ("prefix = \"xy\"", "[ui.keys] prefix: \"xy\" is not a key"),
        ("unzoom = \"u\"", "unzoom"),
        (
            "zoom = \"x\"",
            "zoom = \"x\" is already the key of close_pane",
        ),
    ];
    for (text, want) in table {
        let e = config(&format!("[ui.keys]\n{text}\n")).unwrap_err();
        assert!(e.contains(want), "{text}: {e}");
        assert!(!e.contains('\n'), "{text}: one line: {e}");
    }
}

#[test]
fn every_action_has_a_config_entry() {
    let names: Vec<&str> = KeysConfig::default()
        .entries()
        .iter()
        .map(|(n, _)| *n)
        .collect();
    let actions: Vec<&str> = ACTIONS.iter().map(|(_, n, _)| *n).collect();
    assert_eq!(names, actions);
}

#[test]
fn config_errors_read_as_whole_lines() {
    let table = [
        (
            "prefix = \"xy\"",
            r#"[ui.keys] prefix: "xy" is not a key (one character, C-x for Ctrl, M-x for Alt)"#,
        ),
        (
            "new = \"C-%\"",
            r#"[ui.keys] new: "C-%": Ctrl goes only with a letter or Space (C-a … C-z, C-Space)"#,
        ),
        (
            "help = \"C-b\"",
            r#"[ui.keys] help = "C-b" is the prefix key"#,
        ),
        (
            "copy = \"5\"",
            r#"[ui.keys] copy = "5": the digits jump to terminals"#,
        ),
        (
            "next = \"c\"",
            r#"[ui.keys] next = "c" is already the key of new"#,
        ),
    ];
    for (text, want) in table {
        assert_eq!(
            config(&format!("[ui.keys]\n{text}\n")).err().as_deref(),
            Some(want),
            "{text}"
        );
    }
}

#[test]
fn keys_are_named_as_the_user_writes_them() {
    let table = [
        (KeyCode::Char('l'), KeyModifiers::NONE, "l"),
        (KeyCode::Char('L'), KeyModifiers::SHIFT, "L"),
        (KeyCode::Char('x'), KeyModifiers::CONTROL, "C-x"),
        (KeyCode::Char(' '), KeyModifiers::CONTROL, "C-Space"),
        (KeyCode::Enter, KeyModifiers::ALT, "M-Enter"),
        (KeyCode::Up, KeyModifiers::SHIFT, "S-Up"),
        (KeyCode::F(5), KeyModifiers::NONE, "F5"),
        (KeyCode::Esc, KeyModifiers::NONE, "Escape"),
        (KeyCode::BackTab, KeyModifiers::SHIFT, "S-Tab"),
    ];
    for (code, m, want) in table {
        assert_eq!(event_label(&KeyEvent::new(code, m)), want, "{code:?} {m:?}");
    }
}
