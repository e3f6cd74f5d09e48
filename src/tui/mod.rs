//! The multiplexer UI: a client of the server that watches every terminal and draws them
//! (ratatui on crossterm); see ARCHITECTURE.md. This file owns the real screen and the loop
//! (draw, wait for a message, update, carry out the effects). The map:
//!
//! - `app`: the state and how messages change it (pure); the composer, the new-terminal form,
//!   renaming and removing terminals.
//! - `input`: what keys, pastes and the mouse do, mode by mode; the key bindings (`[ui.keys]`).
//! - `panes`: splitting, closing, focusing and zooming panes; the layout tree they sit in.
//! - `transcript`: a terminal's turns as the UI keeps them, and the screen lines they wrap to.
//! - `shell`: the shell face: the shell's screen mirrored in vt100, and the state's part of it.
//! - `diff`: the diff face: the branch against where it started, and the state's part of it.
//! - `copy`: copy mode: the cursor and selection over a pane's rows, and the state's part of it.
//! - `draw`: the whole screen drawn from the state (and its snapshot tests).
//! - `io`: the threads feeding the loop (server, keyboard, shells), signals, notifications.
//! - `testing` (tests only): test views and the helpers that build and draw a state.

pub mod app;
pub mod copy;
pub mod diff;
pub mod draw;
pub mod input;
pub mod io;
pub mod panes;
pub mod shell;
#[cfg(test)]
pub(crate) mod testing;
pub mod transcript;

use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Once;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use crate::client::Client;
use crate::error::BatonError;
use crate::paths::EnvDirs;
use app::{App, Effect, Exit, Msg};
use input::keys::Keys;

/// How the UI is opened.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The label at the left of the status line (default `baton`).
    pub title: Option<String>,
    /// The directory the UI offers a terminal for (default: the current directory).
    pub cwd: Option<String>,
    /// Say nothing on detach (the demo stops its server right after, so "attach again" would
    /// be wrong).
    pub quiet_detach: bool,
    /// `baton attach NAME`: the terminal to focus (its pane if one shows it).
    pub attach: Option<String>,
}

/// Opens the multiplexer attached to the server (started when needed), focused on terminal
/// `attach` when one is named (an unknown name is refused before the screen changes).
pub fn run(client: &Client, attach: Option<String>) -> Result<i32, BatonError> {
    if let Some(name) = &attach {
        // `HOST:NAME` is asked of that host (an unknown host or terminal is refused here).
        let (asked, name) = crate::client::hosts::route(client, name)?;
        asked.call(&crate::protocol::Request::Show { name })?;
    }
    run_with(
        client,
        Options {
            attach,
            ..Options::default()
        },
    )
}

pub fn run_with(client: &Client, opts: Options) -> Result<i32, BatonError> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(BatonError::bad_input(
            "the multiplexer needs a terminal (a TTY); in scripts use `baton ls`, `baton send`, `baton log`",
        ));
    }
    let cwd = match opts.cwd {
        Some(c) => c,
        None => std::env::current_dir()
            .and_then(|d| d.canonicalize())
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    // A broken config (a bad key name, two actions on one key…) stops the UI before it starts,
    // with the one-line reason.
    let config = crate::config::Config::load(EnvDirs::from_env().config_file().as_deref())?;
    let inside_tmux = std::env::var_os("TMUX").is_some_and(|v| !v.is_empty());
    let keys = Keys::from_config(&config.ui.keys, inside_tmux)
        .map_err(|e| BatonError::bad_input(format!("config: {e}")))?;
    let notify = config.ui.notify;
    let (tx, rx) = mpsc::channel();
    // Connect before taking over the screen, so a server that cannot start says so plainly.
    io::spawn_watch(client, tx.clone())?;
    // Each host is a second source of terminals, followed on its own thread.
    let hosts = crate::client::hosts::configured(&config);
    for host in hosts.values() {
        io::hosts::spawn_watch(client, host.clone(), tx.clone());
    }
    let title = opts.title.unwrap_or_else(|| "baton".to_string());
    let mut app = App::new(&title, &cwd, keys);
    app.set_hosts(hosts.keys().cloned());
    let saved_at = io::saved::path(&client.data);
    app.restore(io::saved::load(&saved_at));
    app.attach_to = opts.attach;
    let exit = {
        let mut screen = Screen::enter()?;
        io::spawn_input(tx.clone());
        io::signals::spawn(tx.clone())?;
        io::signals::watch_hangup(tx.clone());
        let mut shells = io::ShellConns::default();
        let mut ordered = io::OrderedCalls::default();
        let mut ctx = Ctx {
            client,
            tx: &tx,
            shells: &mut shells,
            hosts: &hosts,
            notify,
            saved_at: &saved_at,
            ordered: &mut ordered,
        };
        event_loop(&mut screen.terminal, &mut app, &rx, &mut ctx)?
    };
    // Drafts and layout are kept however the client ends (a detach, a signal, a lost server).
    if let Err(e) = io::saved::save(&saved_at, &mut app) {
        crate::client::out::side(&format!(
            "baton: cannot keep the drafts and layout in {}: {e}",
            saved_at.display()
        ));
    }
    Ok(exit_code(exit, opts.quiet_detach))
}

/// What the client says as it ends, and its exit code.
fn exit_code(exit: Exit, quiet_detach: bool) -> i32 {
    match exit {
        Exit::Detach => {
            if !quiet_detach {
                crate::client::out::line(
                    "[detached from baton: running turns go on; `baton` attaches again]",
                );
            }
            0
        }
        Exit::Signal(sig) => {
            crate::client::out::side(&format!(
                "baton: stopped by {} (running turns go on; `baton` attaches again)",
                io::signals::name(sig)
            ));
            128 + sig
        }
        Exit::ServerGone(why) => {
            crate::client::out::side(&format!(
                "baton: the server went away ({why}); start it again with `baton`"
            ));
            1
        }
    }
}

type Term = Terminal<CrosstermBackend<std::io::Stdout>>;

fn draw_error(e: std::io::Error) -> BatonError {
    BatonError::failed(format!("cannot draw on the terminal: {e}"))
}

/// What effects are carried out with.
struct Ctx<'a> {
    client: &'a Client,
    tx: &'a Sender<Msg>,
    shells: &'a mut io::ShellConns,
    /// The configured hosts, which requests for their terminals go to.
    hosts: &'a io::hosts::Hosts,
    notify: crate::config::Notify,
    /// Where drafts and layout are kept (`io::saved`).
    saved_at: &'a std::path::Path,
    /// The requests that run in the order they were made.
    ordered: &'a mut io::OrderedCalls,
}

/// Draws, then sleeps until the next message; several messages that arrived together are
/// applied before the next drawing.
fn event_loop(
    terminal: &mut Term,
    app: &mut App,
    rx: &Receiver<Msg>,
    ctx: &mut Ctx,
) -> Result<Exit, BatonError> {
    let mut kept = app.save_point();
    let mut last_tick = std::time::Instant::now();
    loop {
        // A change of focus or layout is written at once (a failure is said at the end).
        let now = app.save_point();
        if now != kept && app.connected {
            let _ = io::saved::save(ctx.saved_at, app);
            kept = now;
        }
        if std::mem::take(&mut app.redraw_all) {
            // A shrink and a grow between two drawings leave the size as it was, but not the
            // screen: draw every cell again. (`resize`, not `clear`: `clear` asks the terminal
            // where its cursor is and waits for an answer the input thread reads instead.)
            let size = terminal.size().map_err(draw_error)?;
            terminal
                .resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
                .map_err(draw_error)?;
        }
        terminal.draw(|f| draw::draw(f, app)).map_err(draw_error)?;
        // Pane sizes are known once drawn: shells to open or resize.
        let after = app.shell_effects();
        carry_out(after, ctx);
        // While a turn runs, a quiet second still redraws: its elapsed time ticks.
        let first = if app.any_running() {
            match rx.recv_timeout(std::time::Duration::from_secs(1)) {
                Ok(msg) => msg,
                Err(mpsc::RecvTimeoutError::Timeout) => Msg::Tick(chrono::Utc::now()),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Ok(Exit::ServerGone("every input closed".into()))
                }
            }
        } else {
            match rx.recv() {
                Ok(msg) => msg,
                Err(_) => return Ok(Exit::ServerGone("every input closed".into())),
            }
        };
        carry_out(app.update(first), ctx);
        while let Ok(more) = rx.try_recv() {
            carry_out(app.update(more), ctx);
        }
        // A stream that never goes quiet still moves the clock on, once a second.
        if app.any_running() && last_tick.elapsed() >= std::time::Duration::from_secs(1) {
            carry_out(app.update(Msg::Tick(chrono::Utc::now())), ctx);
            last_tick = std::time::Instant::now();
        }
        if let Some(exit) = app.quit.take() {
            return Ok(exit);
        }
    }
}

fn carry_out(effects: Vec<Effect>, ctx: &mut Ctx) {
    for effect in effects {
        match effect {
            Effect::Call(tag, req) => {
                io::spawn_call(ctx.client, ctx.hosts, ctx.ordered, tag, req, ctx.tx.clone())
            }
            Effect::Notify { title, body } => {
                let bytes = io::notify::bytes(ctx.notify, &title, &body);
                let mut out = std::io::stdout();
                let _ = out.write_all(&bytes);
                let _ = out.flush();
            }
            Effect::Clipboard(text) => {
                let mut out = std::io::stdout();
                let _ = out.write_all(&copy::osc52(&text));
                let _ = out.flush();
            }
            Effect::ShellForget { name } => ctx.shells.forget(&name),
            Effect::ShellOpen {
                name,
                id,
                rows,
                cols,
            } => ctx.shells.open(
                ctx.client,
                ctx.hosts,
                &name,
                id,
                (rows, cols),
                ctx.tx.clone(),
            ),
            Effect::ShellInput { name, bytes } => ctx.shells.input(&name, &bytes),
            Effect::ShellResize { name, rows, cols } => ctx.shells.resize(&name, rows, cols),
            Effect::ShellHistory { name } => ctx.shells.history(&name),
        }
    }
}

/// The terminal in raw mode on the alternate screen; dropping it (or a panic) gives the user's
/// terminal back as it was.
struct Screen {
    terminal: Term,
}

impl Screen {
    /// Raw mode is set with `TCSANOW` (crossterm), which keeps what the tty holds: keys typed
    /// in the burst that started baton are read by the input thread once it starts, and reach
    /// the composer even before the server's first list (`app::saved`'s `sync_draft`).
    fn enter() -> Result<Screen, BatonError> {
        install_panic_hook();
        let setup = || -> std::io::Result<Term> {
            enable_raw_mode()?;
            crossterm::execute!(
                std::io::stdout(),
                EnterAlternateScreen,
                EnableMouseCapture,
                EnableBracketedPaste
            )?;
            Terminal::new(CrosstermBackend::new(std::io::stdout()))
        };
        match setup() {
            Ok(terminal) => Ok(Screen { terminal }),
            Err(e) => {
                restore();
                Err(BatonError::failed(format!(
                    "cannot set up the terminal: {e}"
                )))
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        restore();
    }
}

/// Leaves raw mode and the alternate screen; safe to call more than once.
fn restore() {
    let _ = crossterm::execute!(
        std::io::stdout(),
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

/// A panic restores the terminal before the message is printed, so the user can read it and
/// their shell still works.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}
