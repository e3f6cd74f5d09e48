//! The multiplexer's state and how it changes: messages in (keys, watch events, replies),
//! effects out (requests to the server, the bell). Pure: no IO here, so it is table-tested.

pub mod approval;
pub mod branch;
pub mod command;
pub mod composer;
mod cost;
pub mod form;
pub mod hosts;
pub mod manage;
pub mod offer;
pub mod picker;
mod prompt;
pub mod queue;
pub mod saved;
pub mod slash;
mod slash_run;
pub mod standing;
mod watch;

use crate::tui::diff::DiffView;
use crate::tui::input::keys::Keys;
use crate::tui::input::mouse::MouseState;
use crate::tui::panes::layout::Node;
use crate::tui::panes::resize::Preset;
use crate::tui::shell::{ShellUpdate, ShellView};
use crate::tui::transcript::Transcript;
use composer::Composer;
use form::NewForm;

use crate::error::BatonError;
use crate::protocol::views::{LogView, StepsView, TerminalState, TerminalView};
use crate::protocol::{Answer, Request, WatchEvent};
use crate::words::{ProviderKind, TurnStatus};

/// How many of a terminal's finished turns have their steps asked for at one time (the
/// latest; older ones are asked for when they are still folded at the next Ctrl-t).
const STEPS_AT_ONCE: usize = 50;

/// One terminal and what this client keeps for it: the server's view of it as given (every
/// fact the list and panes draw is read from there), and the UI's own state beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct TermView {
    pub info: TerminalView,
    pub transcript: Transcript,
    /// A turn ended while the terminal was out of view.
    pub unseen: Option<TurnStatus>,
    pub log_requested: bool,
    /// Its shell, once a pane showed the shell face.
    pub shell: Option<ShellView>,
    /// Its diff, once a pane showed the diff face.
    pub diff: Option<DiffView>,
    /// Its tool calls are drawn expanded: results, edits as diffs, the whole summary (Ctrl-t).
    pub expand_tools: bool,
    /// The finished turns whose steps were asked for (`Request::Steps`), each once.
    pub steps_asked: std::collections::BTreeSet<u32>,
}

impl TermView {
    pub fn new(info: TerminalView) -> TermView {
        TermView {
            info,
            transcript: Transcript::default(),
            unseen: None,
            log_requested: false,
            shell: None,
            diff: None,
            expand_tools: false,
            steps_asked: std::collections::BTreeSet::new(),
        }
    }

    pub fn busy(&self) -> bool {
        self.info.state.busy()
    }

    /// The live conversation's title.
    pub fn title(&self) -> Option<&str> {
        self.info.conversation.as_ref()?.title.as_deref()
    }

    /// The server's latest view of the terminal. A turn that ended out of view stays marked
    /// (✓, ✗, ■) until the terminal is shown, or until it is busy again: the list then says
    /// it runs, not how the turn before ended.
    pub fn set_info(&mut self, info: TerminalView) {
        if info.state.busy() {
            self.unseen = None;
        }
        self.info = info;
    }
}

/// Screen lines a pane keeps from its last drawing, so unchanged transcripts are not re-wrapped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineCache {
    pub key: Option<(String, u64, u16, bool)>,
    pub lines: Vec<ratatui::text::Line<'static>>,
    /// Which lines go on from the one before (wrapped at a space): copy mode joins them.
    pub soft: Vec<bool>,
    /// Where each turn's rows sit in `lines`, so a change re-wraps only the turns it touched.
    pub turns: Vec<TurnSpan>,
    /// How many turns were wrapped since the cache was made (tests and benches read it).
    pub wrapped: u64,
}

/// One turn's rows in a `LineCache`: which turn, at which `rev`, and how many rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnSpan {
    pub number: u32,
    pub rev: u64,
    pub len: usize,
}

/// A pane shows one terminal's transcript, or its shell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pane {
    pub term: Option<String>,
    /// The shell face (keys go to the shell) rather than the transcript.
    pub shell: bool,
    /// The diff face (the terminal's branch against where it started) rather than the
    /// transcript.
    pub diff: bool,
    /// Rows scrolled up from the end; 0 follows the tail.
    pub scroll: usize,
    /// Where the last drawing put it, and how many transcript rows it had.
    pub area: ratatui::layout::Rect,
    pub rows: usize,
    pub cache: LineCache,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    Normal,
    /// The keys overlay, scrolled `scroll` rows (drawing clamps it and sets `page`, the rows
    /// it shows).
    Help {
        scroll: usize,
        page: usize,
    },
    /// The focused terminal's standing instructions (a line selected, maybe being edited).
    Instructions(standing::Standing),
    NewTerminal(NewForm),
    /// Asking whether to remove this terminal (y/n in the status line).
    ConfirmRemove(String),
    /// A new name for terminal `name`, typed in the status line.
    Rename {
        name: String,
        text: String,
    },
    /// The model for the next prompt, typed in the status line (Ctrl-o in the composer).
    Model {
        text: String,
    },
    /// Copy mode over a pane (prefix `[`).
    Copy(Box<crate::tui::copy::CopyView>),
    /// The tree picker of terminals (prefix `w`).
    Picker(picker::Picker),
    /// A command typed in the status line (prefix `:`).
    Command {
        text: String,
    },
}

/// Why the UI ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    Detach,
    ServerGone(String),
    /// SIGTERM or SIGHUP (its number).
    Signal(i32),
}

/// What a request was for, so its reply lands in the right place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tag {
    Log(String),
    /// A send to terminal `name`; a refusal puts `prompt` back in the composer.
    Send {
        name: String,
        prompt: String,
    },
    /// A change of terminal `name`'s waiting input; a refused edit puts `edit` back.
    Queue {
        name: String,
        edit: Option<String>,
    },
    Interrupt(String),
    New,
    Diff(String),
    Rename(String, String),
    Remove(String),
    /// A fork of terminal `name`.
    Fork(String),
    /// A rewind of terminal `name`.
    Rewind(String),
    /// Archiving (or unarchiving) terminal `name`.
    Archive(String),
    /// A command of the prompt (prefix `:`) whose answer shows in the status line.
    Command(command::Answer),
    /// A change of terminal `name`'s standing instructions made in their overlay.
    Instructions(String),
    /// The steps of terminal `name`'s finished turn (its number), for its expanded tool calls.
    Steps(String, u32),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Call(Tag, Request),
    /// A turn ended out of view: the bell or a desktop notification, as configured.
    Notify {
        title: String,
        body: String,
    },
    /// Put this text on the system clipboard (OSC 52 to the real terminal).
    Clipboard(String),
    /// This client's shell connection for terminal `name` is no longer needed.
    ShellForget {
        name: String,
    },
    /// Attach to terminal `name`'s shell; its messages come back tagged `id`.
    ShellOpen {
        name: String,
        id: u64,
        rows: u16,
        cols: u16,
    },
    /// Bytes for the shell, as its terminal would send them.
    ShellInput {
        name: String,
        bytes: Vec<u8>,
    },
    ShellResize {
        name: String,
        rows: u16,
        cols: u16,
    },
    /// Ask for the shell's scrollback (copy mode waits for it).
    ShellHistory {
        name: String,
    },
}

/// Everything the UI reacts to.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(crossterm::event::KeyEvent),
    Paste(String),
    Mouse(crossterm::event::MouseEvent),
    Resize,
    Watch(WatchEvent),
    ServerGone(String),
    /// A request's answer (or error), decoded by [`Request::answer_kind`].
    Reply(Tag, Result<Answer, BatonError>),
    /// From the shell connection `id` of terminal `name`.
    Shell(String, u64, ShellUpdate),
    /// A signal that ends the UI (SIGTERM, SIGHUP).
    Signal(i32),
    /// A second passed with nothing else to do while a turn runs: its elapsed time moves on.
    Tick(chrono::DateTime<chrono::Utc>),
    /// From the connection to host `name` (its watch stream, or its loss).
    Host(String, hosts::HostMsg),
}

/// The whole UI state.
#[derive(Debug, Clone, PartialEq)]
pub struct App {
    /// Every source's terminals; another host's are named `HOST:NAME` (`hosts`).
    pub terms: Vec<TermView>,
    /// The configured hosts, each a second source of terminals, and how its link stands.
    pub hosts: Vec<hosts::HostLink>,
    pub panes: Vec<Pane>,
    /// Where the panes go: a tree over indices into `panes`.
    pub layout: Node,
    /// The index in `panes` of the pane with the focus.
    pub active: usize,
    /// The active pane fills the panes' area (prefix z).
    pub zoomed: bool,
    /// The area the panes shared at the last drawing (focus moves by direction within it).
    pub panes_area: ratatui::layout::Rect,
    /// A mouse button held down, and the last click (for double clicks).
    pub mouse: MouseState,
    pub composer: Composer,
    /// The provider the next prompt switches to (None: the terminal's own).
    pub next_provider: Option<ProviderKind>,
    /// The model the next prompt asks for (None: the terminal's own).
    pub next_model: Option<String>,
    /// The next prompt opens a fresh conversation (M-f arms it; the send disarms it).
    pub next_fresh: bool,
    /// The local endpoint the next prompt's provider switch names (`/provider local:EP`).
    pub next_endpoint: Option<String>,
    /// The last Tab completion of a slash command: what was typed, the match shown.
    pub slash_cycle: Option<(String, usize)>,
    /// Esc was pressed once on an empty composer: a second Esc rewinds the last turn.
    pub esc_armed: bool,
    /// Archived terminals are listed too (prefix `A`).
    pub show_archived: bool,
    /// The waiting input of the focused terminal that the input keys act on (Up from an empty
    /// composer), by its number.
    pub selected: Option<u32>,
    /// The composer holds waiting input taken back to edit: (terminal, input). Enter saves it
    /// in place (`queue edit`) rather than sending new input.
    pub editing: Option<(String, u32)>,
    pub mode: Mode,
    pub keys: Keys,
    pub prefix_armed: bool,
    /// A message for the status line, and whether it is an error.
    pub status: Option<(String, bool)>,
    /// The terminal whose turn's end makes `status` stale ("interrupting api…"): set with it.
    pub status_until_end: Option<String>,
    /// Shown at the left of the status line (`baton`, or the demo's label).
    pub title: String,
    /// The directory baton was started in (the offer to create a terminal is for it).
    pub cwd: String,
    /// The offer to create a terminal in `cwd`, while it stands (`offer`).
    pub offer: Option<offer::Offer>,
    /// The folders whose offer was answered or declined: not asked again (`saved`).
    pub offered: std::collections::BTreeSet<String>,
    /// Enter was pressed before the server's first list (`offer::early_enter`).
    pub early_enter: bool,
    pub connected: bool,
    pub list_area: ratatui::layout::Rect,
    pub quit: Option<Exit>,
    /// The window was resized: the next drawing starts from a cleared screen (the terminal
    /// may have dropped or moved what was drawn, whatever the new size).
    pub redraw_all: bool,
    /// The last shell connection id handed out.
    pub shell_ids: u64,
    /// The drafts of terminals other than the one the composer holds (`saved`).
    pub drafts: std::collections::BTreeMap<String, String>,
    /// The drafts as read at start: only what changed since is written back.
    pub drafts_loaded: std::collections::BTreeMap<String, String>,
    /// The terminal the composer's text was typed for.
    pub draft_owner: Option<String>,
    /// The layout an earlier client left, brought back at the first list.
    pub saved_layout: Option<saved::SavedLayout>,
    /// The preset prefix Space laid the panes out by last (the next one follows it).
    pub preset: Option<Preset>,
    /// The pane that had the focus before the active one (prefix `;`).
    pub last_pane: Option<usize>,
    /// The terminal focused before the focused one (prefix `l`).
    pub last_term: Option<String>,
    /// `baton attach NAME`: the terminal the first list brings into focus.
    pub attach_to: Option<String>,
}

impl App {
    pub fn new(title: &str, cwd: &str, keys: Keys) -> App {
        App {
            terms: Vec::new(),
            hosts: Vec::new(),
            panes: vec![Pane::default()],
            layout: Node::default(),
            active: 0,
            zoomed: false,
            panes_area: ratatui::layout::Rect::default(),
            mouse: MouseState::default(),
            composer: Composer::default(),
            next_provider: None,
            next_model: None,
            next_fresh: false,
            next_endpoint: None,
            slash_cycle: None,
            esc_armed: false,
            show_archived: false,
            selected: None,
            editing: None,
            mode: Mode::Normal,
            keys,
            prefix_armed: false,
            status: None,
            status_until_end: None,
            title: title.to_string(),
            cwd: cwd.to_string(),
            offer: None,
            offered: Default::default(),
            early_enter: false,
            connected: false,
            list_area: ratatui::layout::Rect::default(),
            quit: None,
            redraw_all: false,
            shell_ids: 0,
            drafts: Default::default(),
            drafts_loaded: Default::default(),
            draft_owner: None,
            saved_layout: None,
            preset: None,
            last_pane: None,
            last_term: None,
            attach_to: None,
        }
    }

    pub fn term(&self, name: &str) -> Option<&TermView> {
        self.terms.iter().find(|t| t.info.name == name)
    }

    pub fn term_mut(&mut self, name: &str) -> Option<&mut TermView> {
        self.terms.iter_mut().find(|t| t.info.name == name)
    }

    /// The terminal of the active pane.
    pub fn focused(&self) -> Option<&TermView> {
        let name = self.panes.get(self.active)?.term.as_deref()?;
        self.term(name)
    }

    pub fn focused_name(&self) -> Option<String> {
        self.focused().map(|t| t.info.name.clone())
    }

    /// The focused terminal runs a turn (Esc interrupts it rather than rewinding).
    pub fn focused_running(&self) -> bool {
        self.focused()
            .is_some_and(|t| t.info.state == TerminalState::Running)
    }

    pub fn visible(&self, name: &str) -> bool {
        self.panes.iter().any(|p| p.term.as_deref() == Some(name))
    }

    /// The provider the next prompt runs on.
    pub fn prompt_provider(&self) -> Option<String> {
        match (self.next_provider, &self.next_endpoint) {
            (Some(p), Some(ep)) => Some(format!("{p}:{ep}")),
            (Some(p), None) => Some(p.to_string()),
            (None, _) => self.focused().map(|t| t.info.provider.to_string()),
        }
    }

    /// The model the next prompt runs on: the chosen one, else the terminal's own (unless the
    /// provider switches, which brings that provider's default).
    pub fn prompt_model(&self) -> Option<String> {
        if self.next_model.is_some() {
            return self.next_model.clone();
        }
        if self.next_provider.is_some() {
            return None;
        }
        self.focused().and_then(|t| t.info.model.clone())
    }

    pub fn say(&mut self, text: impl Into<String>) {
        self.status = Some((text.into(), false));
        self.status_until_end = None;
    }

    pub fn error(&mut self, text: impl Into<String>) {
        self.status = Some((text.into(), true));
        self.status_until_end = None;
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let (pane, term, count) = (self.active, self.focused_name(), self.panes.len());
        let fx = self.update_inner(msg);
        // What had the focus before, for prefix `;` and `l` (a close renumbers on its own).
        if self.active != pane && self.panes.len() >= count {
            self.last_pane = Some(pane);
        }
        self.offer_after(term.clone());
        if term.is_some() && self.focused_name() != term {
            self.last_term = term;
        }
        // Whatever moved the focus (a pane, a click, a removal), the composer follows it.
        self.sync_draft();
        fx
    }

    fn update_inner(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Key(k) => self.on_key(k),
            Msg::Paste(s) => self.on_paste(&s),
            Msg::Mouse(m) => self.on_mouse(m),
            Msg::Resize => {
                self.redraw_all = true;
                Vec::new()
            }
            Msg::Watch(ev) => self.on_watch(ev),
            Msg::Host(host, msg) => self.on_host(&host, msg),
            Msg::ServerGone(why) => {
                self.quit = Some(Exit::ServerGone(why));
                Vec::new()
            }
            Msg::Reply(tag, result) => self.on_reply(tag, result),
            Msg::Shell(name, id, update) => self.on_shell(&name, id, update),
            Msg::Signal(sig) => {
                self.quit = Some(Exit::Signal(sig));
                Vec::new()
            }
            Msg::Tick(now) => {
                for t in &mut self.terms {
                    t.transcript.tick(now);
                }
                Vec::new()
            }
        }
    }

    /// Some terminal's turn is running (its elapsed time ticks).
    pub fn any_running(&self) -> bool {
        self.terms.iter().any(|t| t.transcript.running().is_some())
    }

    /// Shows terminal `name` in the active pane.
    pub fn focus(&mut self, name: &str) -> Vec<Effect> {
        if let Some(p) = self.panes.get_mut(self.active) {
            if p.term.as_deref() != Some(name) {
                p.term = Some(name.to_string());
                p.scroll = 0;
            }
        }
        self.next_provider = None;
        self.next_endpoint = None;
        self.next_model = None;
        self.next_fresh = false;
        self.esc_armed = false;
        self.selected = None;
        self.sync_draft();
        self.show_effects(name)
    }

    /// A terminal came into view: clear its notice, read its history if not done yet.
    pub(in crate::tui) fn show_effects(&mut self, name: &str) -> Vec<Effect> {
        let Some(t) = self.term_mut(name) else {
            return Vec::new();
        };
        t.unseen = None;
        if t.log_requested {
            return Vec::new();
        }
        t.log_requested = true;
        vec![log_call(name)]
    }

    /// While terminal `name`'s tool calls are drawn expanded: the steps of its finished turns
    /// that the log keeps one line per tool call of (it never watched them), each asked for
    /// once, the latest [`STEPS_AT_ONCE`] first.
    pub(crate) fn ask_steps(&mut self, name: &str) -> Vec<Effect> {
        let Some(t) = self.term_mut(name) else {
            return Vec::new();
        };
        if !t.expand_tools {
            return Vec::new();
        }
        let wanted: Vec<u32> = t
            .transcript
            .lacking_steps()
            .into_iter()
            .rev()
            .filter(|n| !t.steps_asked.contains(n))
            .take(STEPS_AT_ONCE)
            .collect();
        t.steps_asked.extend(wanted.iter().copied());
        wanted
            .into_iter()
            .map(|turn| {
                let request = Request::Steps {
                    name: name.to_string(),
                    turn,
                };
                Effect::Call(Tag::Steps(name.to_string(), turn), request)
            })
            .collect()
    }

    /// A request's answer, by what it was for (each decoded once, into the view its request
    /// is answered with).
    fn on_reply(&mut self, tag: Tag, result: Result<Answer, BatonError>) -> Vec<Effect> {
        match (tag, result) {
            (Tag::Log(name), result) => self.on_log(&name, result.and_then(LogView::try_from)),
            (Tag::Steps(name, turn), result) => {
                match result.and_then(StepsView::try_from) {
                    Ok(v) => {
                        if let Some(t) = self.term_mut(&name) {
                            t.transcript.fill_steps(turn, &v.events);
                        }
                    }
                    Err(e) => self.error(format!("cannot read turn {turn} of {name}: {e}")),
                }
                Vec::new()
            }
            (tag @ (Tag::Send { .. } | Tag::Queue { .. }), result) => {
                self.on_input_reply(tag, result);
                Vec::new()
            }
            (Tag::Interrupt(_), Ok(_)) => Vec::new(),
            (Tag::Interrupt(name), Err(e)) => {
                self.error(format!("{name}: {e}"));
                Vec::new()
            }
            (Tag::New, Ok(answer)) => self.on_created(answer),
            (tag @ (Tag::Diff(_) | Tag::Rename(..) | Tag::Remove(_)), result) => {
                self.on_manage_reply(tag, result)
            }
            (tag @ (Tag::Fork(_) | Tag::Rewind(_) | Tag::Archive(_)), result) => {
                self.on_branch_reply(tag, result)
            }
            (Tag::Command(answer), result) => {
                self.on_command_reply(answer, result);
                Vec::new()
            }
            (Tag::Instructions(name), result) => {
                self.on_instructions_reply(&name, result);
                Vec::new()
            }
            (Tag::New, Err(e)) => {
                self.offer_refused();
                match &mut self.mode {
                    Mode::NewTerminal(f) => {
                        f.busy = false;
                        f.error = Some(e.to_string());
                    }
                    _ => self.error(e.to_string()),
                }
                Vec::new()
            }
        }
    }

    /// Terminal `name`'s history, read: merged into its transcript.
    fn on_log(&mut self, name: &str, log: Result<LogView, BatonError>) -> Vec<Effect> {
        let log = match log {
            Ok(log) => log,
            Err(e) => {
                self.error(format!("cannot read the history of {name}: {e}"));
                return Vec::new();
            }
        };
        if let Some(t) = self.term_mut(name) {
            t.transcript.merge_log(Transcript::from_log(&log));
        }
        self.ask_steps(name)
    }

    /// A terminal this client created: it takes the focus.
    fn on_created(&mut self, answer: Answer) -> Vec<Effect> {
        self.mode = Mode::Normal;
        // Taken first: the focus below brings the draft typed for it into its composer.
        let offer = self.offer.take();
        let info = match TerminalView::try_from(answer) {
            Ok(v) => v,
            Err(e) => {
                self.error(e.to_string());
                return Vec::new();
            }
        };
        let name = info.name.clone();
        if self.term(&name).is_none() {
            self.terms.push(TermView::new(info));
        }
        self.say(format!("created terminal {name}"));
        let mut fx = self.focus(&name);
        fx.extend(self.offer_answered(offer));
        fx
    }

    /// Esc / Ctrl-C: interrupt the focused terminal's running turn.
    pub fn interrupt(&mut self) -> Vec<Effect> {
        let Some(t) = self.focused() else {
            return Vec::new();
        };
        let name = t.info.name.clone();
        if t.info.state != TerminalState::Running {
            self.say(format!("{name} has no running turn"));
            return Vec::new();
        }
        self.say(format!("interrupting {name}…"));
        self.status_until_end = Some(name.clone());
        vec![Effect::Call(
            Tag::Interrupt(name.clone()),
            Request::Interrupt { name },
        )]
    }
}

pub(in crate::tui) fn log_call(name: &str) -> Effect {
    Effect::Call(
        Tag::Log(name.to_string()),
        Request::Log {
            name: name.to_string(),
        },
    )
}
