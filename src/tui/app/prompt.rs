//! The command prompt's part of the state (prefix `:`): the line typed in the status line,
//! the request it makes (`command::parse`), and its answer put in one line there. A command
//! the UI already makes itself (new, rename, rm, fork, rewind, archive, interrupt) goes through
//! the same reply as its key, so the panes follow (a new terminal or a fork takes the focus, a
//! renamed one keeps its panes); the others show the CLI's own text for their answer.

use crossterm::event::{KeyCode, KeyEvent};

use super::command::{self, Answer};
use super::manage::{line_key, LineKey};
use crate::client::render;
use crate::error::BatonError;
use crate::protocol::{Answer as Answered, Request};
use crate::tui::app::{App, Effect, Mode, Tag};

impl App {
    /// Prefix `:`: an empty prompt in the status line.
    pub(in crate::tui) fn open_prompt(&mut self) {
        self.mode = Mode::Command {
            text: String::new(),
        };
    }

    pub(in crate::tui) fn prompt_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        let Mode::Command { text } = &mut self.mode else {
            return Vec::new();
        };
        // Backspace on an empty prompt leaves it, as tmux's does.
        if k.code == KeyCode::Backspace && text.is_empty() {
            self.mode = Mode::Normal;
            return Vec::new();
        }
        match line_key(text, &k) {
            LineKey::Cancel => self.mode = Mode::Normal,
            LineKey::Edited => {}
            LineKey::Enter => {
                let line = std::mem::take(text);
                self.mode = Mode::Normal;
                return self.run_command(&line);
            }
        }
        Vec::new()
    }

    /// The request a typed line makes, or its error in the status line.
    pub(in crate::tui) fn run_command(&mut self, line: &str) -> Vec<Effect> {
        let home = std::env::var("HOME").ok();
        match command::parse(line, &self.cwd, home.as_deref()) {
            Ok(Some((request, answer))) => self.call_command(line, request, answer),
            Ok(None) => Vec::new(),
            Err(e) => {
                self.error(e.to_string());
                Vec::new()
            }
        }
    }

    /// The request made, said in the status line while it runs (`shown`: what was typed).
    pub(in crate::tui) fn call_command(
        &mut self,
        shown: &str,
        request: Request,
        answer: Answer,
    ) -> Vec<Effect> {
        let tag = match &request {
            Request::New { .. } => Tag::New,
            Request::Rename { name, new_name } => Tag::Rename(name.clone(), new_name.clone()),
            Request::Rm { name, .. } => Tag::Remove(name.clone()),
            Request::Fork { name, .. } => Tag::Fork(name.clone()),
            Request::Rewind { name, .. } => Tag::Rewind(name.clone()),
            Request::Archive { name, .. } => Tag::Archive(name.clone()),
            _ => Tag::Command(answer),
        };
        self.say(format!("{}…", shown.trim()));
        vec![Effect::Call(tag, request)]
    }

    /// A command's answer, in one line of the status line.
    pub(in crate::tui) fn on_command_reply(
        &mut self,
        answer: Answer,
        result: Result<Answered, BatonError>,
    ) {
        let text = result.and_then(|v| one_line(answer, v));
        match text {
            Ok(text) => self.say(text),
            Err(e) => self.error(e.message),
        }
    }
}

/// The CLI's text for the answer, its lines joined.
fn one_line(answer: Answer, v: Answered) -> Result<String, BatonError> {
    let text = match answer {
        Answer::Accepted => text(v, render::accepted)?,
        Answer::Titled => text(v, render::titled)?,
        Answer::Interrupted => text(v, render::interrupted)?,
        Answer::Merged => text(v, render::merge)?,
        Answer::Reverted => text(v, render::revert)?,
        Answer::Instructions => text(v, render::instructions)?,
        Answer::Queue => text(v, render::queue)?,
        Answer::Created => text(v, render::show)?,
        Answer::Renamed => text(v, render::renamed)?,
        Answer::Forked => text(v, render::forked)?,
        Answer::Rewound => text(v, render::rewound)?,
        Answer::Archived => text(v, render::archived)?,
        Answer::Removed => text(v, render::removed)?,
        Answer::Cost => text(v, super::cost::line)?,
        Answer::Approval => text(v, render::answered)?,
        Answer::Integrated => text(v, crate::client::render_lane::integrated)?,
    };
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    Ok(lines.join(" · "))
}

fn text<T: TryFrom<Answered, Error = BatonError>>(
    v: Answered,
    f: fn(&T) -> String,
) -> Result<String, BatonError> {
    Ok(f(&T::try_from(v)?))
}
