//! The new-terminal form: name, directory, provider, brief. Pure state.

use crate::protocol::Request;
use crate::words::ProviderKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Name,
    Dir,
    Provider,
    Brief,
}

impl Field {
    pub const ALL: [Field; 4] = [Field::Name, Field::Dir, Field::Provider, Field::Brief];

    pub fn label(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Dir => "dir",
            Field::Provider => "provider",
            Field::Brief => "brief",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewForm {
    pub name: String,
    pub dir: String,
    pub provider: ProviderKind,
    pub brief: String,
    pub focus: Field,
    /// The server's answer to the last attempt, when it refused.
    pub error: Option<String>,
    /// Sent; waiting for the server.
    pub busy: bool,
}

impl NewForm {
    pub fn new(dir: &str) -> NewForm {
        NewForm {
            name: String::new(),
            dir: dir.to_string(),
            provider: Default::default(),
            brief: String::new(),
            focus: Field::Name,
            error: None,
            busy: false,
        }
    }

    pub fn value(&self, f: Field) -> String {
        match f {
            Field::Name => self.name.clone(),
            Field::Dir => self.dir.clone(),
            Field::Provider => format!("‹ {} ›", self.provider),
            Field::Brief => self.brief.clone(),
        }
    }

    fn text_mut(&mut self) -> Option<&mut String> {
        match self.focus {
            Field::Name => Some(&mut self.name),
            Field::Dir => Some(&mut self.dir),
            Field::Brief => Some(&mut self.brief),
            Field::Provider => None,
        }
    }

    pub fn next_field(&mut self, forward: bool) {
        let i = Field::ALL
            .iter()
            .position(|f| *f == self.focus)
            .unwrap_or(0);
        let n = Field::ALL.len();
        self.focus = Field::ALL[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }];
    }

    pub fn cycle_provider(&mut self) {
        self.provider = self.provider.next_cli();
    }

    /// A typed character: into the focused text field; on the provider field, space cycles.
    pub fn type_char(&mut self, c: char) {
        match self.text_mut() {
            Some(t) => t.push(c),
            None if c == ' ' => self.cycle_provider(),
            None => {}
        }
    }

    pub fn paste(&mut self, s: &str) {
        if let Some(t) = self.text_mut() {
            t.push_str(&s.replace(['\n', '\r'], " "));
        }
    }

    /// Empties the focused text field (Ctrl-U).
    pub fn clear(&mut self) {
        if let Some(t) = self.text_mut() {
            t.clear();
        }
    }

    pub fn backspace(&mut self) {
        if let Some(t) = self.text_mut() {
            t.pop();
        }
    }

    /// The request that creates the terminal (an empty name lets the server pick the
    /// directory's name).
    pub fn request(&self) -> Request {
        let name = self.name.trim();
        let brief = self.brief.trim();
        Request::New {
            name: (!name.is_empty()).then(|| name.to_string()),
            dir: self.dir.trim().to_string(),
            provider: Some(self.provider.to_string()),
            model: None,
            brief: (!brief.is_empty()).then(|| brief.to_string()),
            in_place: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn fills_a_new_request() {
        let mut f = NewForm::new("/w");
        for c in "api".chars() {
            f.type_char(c);
        }
        f.next_field(true);
        f.next_field(true);
        f.type_char(' ');
        f.next_field(true);
        f.paste("Backend\nservice");
        assert_eq!(
            f.request(),
            Request::New {
                name: Some("api".into()),
                dir: "/w".into(),
                provider: Some("codex".into()),
                model: None,
                brief: Some("Backend service".into()),
                in_place: false,
            }
        );
    }
}
