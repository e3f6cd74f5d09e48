//! The arguments of the commands on a terminal's input and standing text (queue,
//! instructions): each builds its request (the `:` prompt builds the same) and runs it.

use clap::{Args, Subcommand};

use super::terminal::on;
use crate::client::{commands, render, Client};
use crate::error::BatonError;
use crate::protocol::{InstructionsAction, QueueAction, QueueChange, Request};

#[derive(Args)]
pub struct QueueArgs {
    pub name: String,
    #[command(subcommand)]
    pub action: Option<QueueCmd>,
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum QueueCmd {
    /// Replace waiting input N's text (`-` or nothing: read it from stdin)
    Edit { input: u32, text: Option<String> },
    /// Withdraw waiting input N
    Rm { input: u32 },
    /// Move waiting input N to POSITION (1 = next to run)
    Move { input: u32, position: u32 },
    /// Hand waiting input N to the running turn
    Steer { input: u32 },
    /// Interrupt the running turn and run waiting input N next
    Jump { input: u32 },
    /// Run the queue held after an interrupt (an interrupt holds waiting input)
    Run,
    /// Put the prompt of the latest turn a crash of the server cut short back in the queue,
    /// first (it never runs again by itself: it may have reached the model)
    Retry,
}

impl QueueArgs {
    /// The request; `text` gives an edit's text from what was typed (the command line reads
    /// stdin for none or `-`).
    pub fn request<E>(
        self,
        text: impl FnOnce(Option<String>) -> Result<String, E>,
    ) -> Result<Request, E> {
        let change = match self.action {
            None => None,
            Some(QueueCmd::Run) => return Ok(Request::QueueRun { name: self.name }),
            Some(QueueCmd::Retry) => return Ok(Request::QueueRetry { name: self.name }),
            Some(QueueCmd::Edit { input, text: typed }) => {
                Some((input, QueueAction::Edit { text: text(typed)? }))
            }
            Some(QueueCmd::Rm { input }) => Some((input, QueueAction::Rm)),
            Some(QueueCmd::Move { input, position }) => {
                Some((input, QueueAction::Move { position }))
            }
            Some(QueueCmd::Steer { input }) => Some((input, QueueAction::Steer)),
            Some(QueueCmd::Jump { input }) => Some((input, QueueAction::Jump)),
        };
        Ok(Request::Queue {
            name: self.name,
            change: change.map(|(input, action)| QueueChange { input, action }),
        })
    }

    pub(super) fn run(mut self, client: &Client) -> Result<i32, BatonError> {
        let c = on(client, &mut self.name)?;
        let json = self.json;
        let read = |typed: Option<String>| {
            commands::read_prompt(Some(typed.unwrap_or_else(|| "-".into())))
        };
        commands::simple(&c, &self.request(read)?, json, render::queue)
    }
}

#[derive(Args)]
pub struct InstructionsArgs {
    /// A terminal, or `extract`
    pub name: String,
    #[command(subcommand)]
    pub action: Option<InstrCmd>,
    /// With `extract`: the provider a model-backed extractor asks (default: claude)
    #[arg(long)]
    pub provider: Option<String>,
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum InstrCmd {
    /// Add a line by hand (`-`: read it from stdin)
    Add { text: String },
    /// Remove line N (as numbered by the list)
    Rm { number: u32 },
    /// Replace line N's text, keeping its place (`-`: read it from stdin)
    Edit { number: u32, text: String },
    /// Remove every line
    Clear,
}

impl InstructionsArgs {
    /// `baton instructions extract` (no action): the extractor on a prompt read from stdin,
    /// not a terminal's list.
    pub fn is_extract(&self) -> bool {
        self.action.is_none() && self.name == "extract"
    }

    /// The request about the terminal's standing text.
    pub fn request(self) -> Request {
        let action = match self.action {
            None => InstructionsAction::List,
            Some(InstrCmd::Add { text }) => InstructionsAction::Add { text },
            Some(InstrCmd::Rm { number }) => InstructionsAction::Rm { number },
            Some(InstrCmd::Edit { number, text }) => InstructionsAction::Edit { number, text },
            Some(InstrCmd::Clear) => InstructionsAction::Clear,
        };
        Request::Instructions {
            name: self.name,
            action,
        }
    }

    pub(super) fn run(mut self, client: &Client) -> Result<i32, BatonError> {
        if self.is_extract() {
            let prompt = commands::read_prompt(Some("-".to_string()))?;
            return commands::extract(client, prompt, self.provider, self.json);
        }
        self.action = match self.action.take() {
            Some(InstrCmd::Add { text }) => Some(InstrCmd::Add {
                text: line_or_stdin(text)?,
            }),
            Some(InstrCmd::Edit { number, text }) => Some(InstrCmd::Edit {
                number,
                text: line_or_stdin(text)?,
            }),
            other => other,
        };
        let c = on(client, &mut self.name)?;
        let json = self.json;
        commands::simple(&c, &self.request(), json, render::instructions)
    }
}

/// An instruction's text as typed, or for `-` the line on stdin (as `send -` reads a prompt),
/// its line end dropped: `echo "use tabs" | baton instructions t add -`.
fn line_or_stdin(text: String) -> Result<String, BatonError> {
    if text != "-" {
        return Ok(text);
    }
    let read = commands::read_stdin("the instruction")?;
    let line = read.strip_suffix('\n').unwrap_or(&read);
    Ok(line.strip_suffix('\r').unwrap_or(line).to_string())
}
