//! One key as the config and the status line write it: parsed from tmux's names and the
//! usual spellings (`C-a`, `Ctrl+a`, `^a`, `M-x`, `C-Space`), matched against key events, and
//! an event named back as the user writes it (`C-b y is not bound`).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key name that is not one (`Key::parse`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyNameError {
    #[error("{name:?} is not a key (one character, C-x for Ctrl, M-x for Alt)")]
    NotAKey { name: String },
    #[error("{name:?}: Ctrl goes only with a letter or Space (C-a … C-z, C-Space)")]
    CtrlWithoutLetter { name: String },
}

/// One key: a character, with Ctrl and/or Alt (`c`, `%`, `C-a`, `M-x`, `C-M-x`, `Space`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub ch: char,
    pub ctrl: bool,
    pub alt: bool,
}

impl Key {
    pub const fn plain(ch: char) -> Key {
        Key {
            ch,
            ctrl: false,
            alt: false,
        }
    }

    pub const fn ctrl(ch: char) -> Key {
        Key {
            ch,
            ctrl: true,
            alt: false,
        }
    }

    pub const fn alt(ch: char) -> Key {
        Key {
            ch,
            ctrl: false,
            alt: true,
        }
    }

    /// Reads a key name as tmux writes it (`C-` for Ctrl, `M-` for Alt, then one character or
    /// `Space`), and as people also write it: `Ctrl-`, `Ctrl+`, `^` (`^b`), `Alt-`, `Meta-`,
    /// any case for the modifier and for `Space`.
    pub fn parse(name: &str) -> Result<Key, KeyNameError> {
        let bad = || KeyNameError::NotAKey {
            name: name.to_string(),
        };
        let mut key = Key::plain(' ');
        let mut rest = name;
        loop {
            if let Some(r) = strip_modifier(rest, &["c-", "ctrl-", "ctrl+", "control-", "^"]) {
                key.ctrl = true;
                rest = r;
            } else if let Some(r) = strip_modifier(rest, &["m-", "alt-", "alt+", "meta-"]) {
                key.alt = true;
                rest = r;
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        key.ch = match (chars.next(), chars.next()) {
            _ if rest.eq_ignore_ascii_case("space") => ' ',
            (Some(c), None) if !c.is_control() && (c != ' ' || key.ctrl || key.alt) => c,
            _ => return Err(bad()),
        };
        // Ctrl-Space is a key terminals send (NUL); Ctrl with other non-letters is not.
        if key.ctrl && key.ch != ' ' {
            if !key.ch.is_ascii_alphabetic() {
                return Err(KeyNameError::CtrlWithoutLetter {
                    name: name.to_string(),
                });
            }
            key.ch = key.ch.to_ascii_lowercase();
        }
        Ok(key)
    }

    /// The event is this key (Shift is part of the character, so it is not compared).
    pub fn matches(self, k: &KeyEvent) -> bool {
        let KeyCode::Char(c) = k.code else {
            return false;
        };
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        let c = if ctrl { c.to_ascii_lowercase() } else { c };
        c == self.ch && ctrl == self.ctrl && alt == self.alt
    }

    /// The event a terminal would send for this key.
    pub fn event(self) -> KeyEvent {
        let mut m = KeyModifiers::NONE;
        if self.ctrl {
            m |= KeyModifiers::CONTROL;
        }
        if self.alt {
            m |= KeyModifiers::ALT;
        }
        KeyEvent::new(KeyCode::Char(self.ch), m)
    }

    pub fn label(self) -> String {
        let ch = if self.ch == ' ' {
            "Space".to_string()
        } else {
            self.ch.to_string()
        };
        format!(
            "{}{}{ch}",
            if self.ctrl { "C-" } else { "" },
            if self.alt { "M-" } else { "" }
        )
    }
}

/// `name` without a leading modifier spelled one of `prefixes` (any case), when a key follows.
fn strip_modifier<'a>(name: &'a str, prefixes: &[&str]) -> Option<&'a str> {
    prefixes.iter().find_map(|p| {
        let head = name.get(..p.len())?;
        let rest = &name[p.len()..];
        (head.eq_ignore_ascii_case(p) && !rest.is_empty()).then_some(rest)
    })
}

/// A key as the user writes it, tmux's way (`l`, `C-x`, `M-Enter`, `Up`, `F5`): the status
/// line names a key that is not bound this way.
pub fn event_label(k: &KeyEvent) -> String {
    let mut out = String::new();
    if k.modifiers.contains(KeyModifiers::CONTROL) {
        out.push_str("C-");
    }
    if k.modifiers.contains(KeyModifiers::ALT) {
        out.push_str("M-");
    }
    let named = match k.code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) => {
            if k.modifiers.contains(KeyModifiers::CONTROL) {
                c.to_ascii_lowercase().to_string()
            } else {
                c.to_string()
            }
        }
        KeyCode::F(n) => format!("F{n}"),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::BackTab => "S-Tab".into(),
        KeyCode::Esc => "Escape".into(),
        KeyCode::Backspace => "BSpace".into(),
        KeyCode::Delete => "Delete".into(),
        KeyCode::Insert => "Insert".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::PageUp => "PageUp".into(),
        KeyCode::PageDown => "PageDown".into(),
        KeyCode::Up => "Up".into(),
        KeyCode::Down => "Down".into(),
        KeyCode::Left => "Left".into(),
        KeyCode::Right => "Right".into(),
        _ => "that key".into(),
    };
    if !matches!(k.code, KeyCode::Char(_))
        && k.modifiers.contains(KeyModifiers::SHIFT)
        && k.code != KeyCode::BackTab
    {
        out.push_str("S-");
    }
    out.push_str(&named);
    out
}
