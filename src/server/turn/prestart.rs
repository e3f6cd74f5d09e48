//! A cold turn's CLI started as its send arrives, before the input is journalled: the CLI
//! loads while the input's sync, the queue and the plan run, instead of after them (~0.7 ms of
//! a send on this machine). See ARCHITECTURE.md ("The send path").
//!
//! Only where the turn is foreseeable without writing anything: a plain send (no switch of
//! provider, model or folder, not `--fresh`, not a steer or a jump) to an idle Claude terminal
//! (nothing running, taken, waiting or held, no warm CLI kept or on its way to the pool) whose
//! send path resumes the live session ([`super::plan::predict`]). The CLI is started as a warm
//! CLI that has run no turn (`providers::run::prestart`), kept in the terminal's slot for it
//! (`TermRuntime::prestarted`). The turn that comes next takes it if its own command line is
//! this one (`WarmKey::fits`, as for any warm CLI), else retires it and starts its own; the
//! runner retires one no turn took.
//!
//! Nothing of the journal's order or content changes: the input is journalled and synced
//! before it is acknowledged, the turn's start before the CLI reads its prompt (the prompt is
//! the turn's first stdin line, sent after that sync). A CLI started for a send that is then
//! refused, or whose server dies, gets no prompt: it is retired (stdin closed, it exits) or
//! stopped with the server (its warden, the closed pipe).
//!
//! One CLI per session, always: the look at the terminal, the start and the slot's filling
//! happen under the terminal's input lock, which the runner takes input under too.

use std::sync::Arc;

use super::super::state::{Server, TermRuntime};
use crate::protocol::{SendModeArg, SendRequest};
use crate::store::TerminalRow;
use crate::words::ProviderKind;

/// Whether the turn a send of `send` to a `provider` terminal leads to is one this starts the
/// CLI of: a plain send (no switch of provider, model or folder, not `--fresh`, queued: a steer
/// joins a running turn and a jump interrupts one) to a terminal whose provider prestarts
/// (Claude).
fn plain(send: &SendRequest, provider: ProviderKind) -> bool {
    send.provider.is_none()
        && send.model.is_none()
        && send.dir.is_none()
        && !send.fresh
        && send.mode == SendModeArg::Queue
        && crate::providers::of(provider).prestarts()
}

/// Whether the terminal's next turn is the one this send starts: nothing runs, is taken or
/// held, no CLI was started ahead already, and the last turn's CLI has exited (one that
/// ended at its result may still be writing its session: `providers::closing`).
fn idle(rt: &TermRuntime) -> bool {
    !rt.is_running()
        && rt.taken().is_none()
        && !super::hold::is_held(rt)
        && rt.prestarted.is_empty()
        && !rt.ending.is_exiting()
}

/// Starts the CLI of the turn a plain send to `term` leads to, when that turn is foreseeable.
/// Never fails the send: anything that stops it here leaves the turn to start its CLI itself
/// (and to say what went wrong).
pub(super) fn start(srv: &Arc<Server>, term: &TerminalRow, send: &SendRequest) {
    let rt = srv.runtime(&term.id);
    // Held from the look at the terminal to the CLI in its slot: two sends at once would both
    // find it idle and start a CLI each, and a turn that took its input in between would run
    // in a CLI of its own beside this one (two CLIs on one session). The runner takes input
    // under this lock, so it finds this CLI in the slot, or this finds the terminal busy.
    let _queue = inputs_locked(&rt);
    // A warm CLI, or one on its way to the pool, is the next turn's.
    let warm = srv.warm.holds(&term.id) || srv.warm.is_starting(&term.id);
    if !plain(send, term.provider) || !idle(&rt) || warm {
        return;
    }
    if !matches!(srv.store.waiting_inputs(&term.id), Ok(w) if w.is_empty()) {
        return;
    }
    let Ok(Some(plan)) = super::plan::predict(srv, term) else {
        return;
    };
    // Each run names its own system text file; a turn that takes this CLI keeps its file.
    let run = uuid::Uuid::now_v7().to_string();
    let Ok(mut spec) = super::cli::run_spec(srv, &term.id, &run, term, &plan) else {
        return;
    };
    super::cli::fence(srv, &term.id, &mut spec);
    // Only into a free place among the CLIs starting (`[limits] starting`): else the turn
    // starts its CLI in its place in line.
    if crate::paths::ensure_private_dir(&spec.run_dir).is_err() || !srv.starts.try_hold(&term.id) {
        return;
    }
    match crate::providers::run::prestart(&spec, &srv.homes, srv.path_var.as_deref()) {
        Ok(Some(cli)) => {
            super::super::hooks::stall_point_blocking("prestart");
            rt.prestarted.put(cli);
            super::super::removal::crash_point("cli-prestarted");
        }
        Ok(None) => srv.starts.release(&term.id),
        Err(e) => {
            srv.starts.release(&term.id);
            crate::log_line!(
                "baton server: {}: cannot start the CLI ahead of its turn ({e}); the turn starts it",
                term.id
            )
        }
    }
}

/// The terminal's input lock (a test learns when this has to wait for it: `hooks::waiting`).
fn inputs_locked(rt: &TermRuntime) -> std::sync::MutexGuard<'_, ()> {
    match rt.inputs_lock.try_lock() {
        Ok(guard) => guard,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => {
            super::super::hooks::waiting("prestart");
            rt.inputs_lock.lock().unwrap_or_else(|p| p.into_inner())
        }
    }
}

#[cfg(test)]
#[path = "prestart_tests.rs"]
mod tests;
