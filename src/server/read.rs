//! The read side: the index and the live runtime state turned into the views clients are sent
//! ([`crate::protocol::views`]). The only place views are built; it changes nothing.
//! Policy facts a client draws (the rotation line, whether the next prompt rotates) are decided
//! here, with the engine, so no client needs it. See ARCHITECTURE.md ("Read side, write side").

use super::state::Server;
use crate::engine::{self, ROTATE_FRACTION};
use crate::error::BatonError;
use crate::protocol::views::{
    CheckoutView, ContextView, ConversationView, ForkedView, LastTurnView, LiveConversationView,
    LogTurnView, LogView, QueuedView, StatusView, TerminalState, TerminalView,
};
use crate::protocol::WatchEvent;
use crate::store::{InputRow, Listed, Snapshot, TerminalRow};
use crate::words::{ContextUsage, ProviderKind, TurnStatus};

/// True when a turn on `provider` that ended at `context` makes the next prompt open a fresh
/// conversation. An endpoint's (local) conversation never rotates: its history is trimmed per
/// request.
pub fn rotates_next(provider: ProviderKind, context: Option<&ContextUsage>) -> bool {
    provider.is_cli() && context.is_some_and(engine::decide::over_limit)
}

/// The terminal's state as the list shows it (`running`: a turn of it runs).
fn state(
    srv: &Server,
    t: &TerminalRow,
    running: bool,
    waiting: usize,
    last: Option<&LastTurnView>,
) -> TerminalState {
    if running || srv.runtime(&t.id).taken().is_some() {
        TerminalState::Running
    } else if waiting > 0 {
        TerminalState::Queued
    } else if last.and_then(|l| l.status) == Some(TurnStatus::Failed) {
        TerminalState::Failed
    } else {
        TerminalState::Idle
    }
}

pub fn checkout(t: &TerminalRow) -> CheckoutView {
    let wt = t.worktree.as_ref();
    CheckoutView {
        mode: t.mode,
        source: t.source.clone(),
        branch: wt.map(|w| w.branch.clone()),
        base_branch: wt.map(|w| w.base_branch.clone()),
        base_commit: wt.map(|w| w.base_commit.clone()),
        worktree: wt.map(|w| w.path.to_string_lossy().into_owned()),
    }
}

/// One terminal, as `show --json` prints it.
pub fn terminal(srv: &Server, t: &TerminalRow) -> Result<TerminalView, BatonError> {
    let running = srv.runtime(&t.id).is_running();
    let ix = srv.store.snapshot();
    match ix.listing(Some(&t.id))?.pop() {
        Some(l) => terminal_of(srv, &ix, l, running),
        // Removed since `t` was read.
        None => Err(BatonError::unknown_terminal(&t.name)),
    }
}

/// One terminal as `show --json` prints it, from what a listing of `ix` read of it. Whether
/// its turn runs is read before `ix` was taken: the `running` lock comes before the store's
/// (ARCHITECTURE.md, "Concurrency").
fn terminal_of(
    srv: &Server,
    ix: &Snapshot<'_>,
    l: Listed,
    running: bool,
) -> Result<TerminalView, BatonError> {
    let t = &l.row;
    let context = l.conversation.as_ref().and(l.context).map(|c| ContextView {
        tokens: c.tokens,
        window: c.window,
        fraction: c.fraction(),
        rotates_next: rotates_next(t.provider, Some(&c)),
    });
    let conversation = l
        .conversation
        .map(|c| -> Result<LiveConversationView, BatonError> {
            Ok(LiveConversationView {
                opened_reason: open_reason(&c.opened_reason)?,
                id: c.id,
                number: c.number,
                opened_at: c.opened_at,
                dir: c.dir,
                title: c.title,
            })
        })
        .transpose()?;
    let queue = queue_of(srv, ix, t, l.waiting)?;
    let (ports, setup) = super::setup::view(srv, &t.id, false);
    Ok(TerminalView {
        name: t.name.clone(),
        id: t.id.clone(),
        dir: t.dir.clone(),
        checkout: checkout(t),
        provider: t.provider,
        endpoint: t.endpoint.clone(),
        model: t.model.clone(),
        brief: t.brief.clone(),
        state: state(srv, t, running, queue.len(), l.last_turn.as_ref()),
        queued: queue.len(),
        queue,
        created_at: t.created_at.clone(),
        conversation,
        sessions: l.sessions,
        context,
        instructions: l.instructions,
        rotate_at: ROTATE_FRACTION,
        turns: l.turns,
        last_turn: l.last_turn,
        archived: t.archived,
        queue_held: srv.runtime(&t.id).queue_held(),
        cost: l.cost,
        index_behind: !ix.index_current(),
        ports,
        setup,
        approval: super::approvals::waiting_of(srv, t),
        approval_rules: super::approvals::rules_of(srv, &t.id),
        lane: super::integrate::mark_of(srv, t),
        start_ahead: srv.starts.ahead(&t.id),
    })
}

pub fn show(srv: &Server, name: &str) -> Result<TerminalView, BatonError> {
    terminal(srv, &srv.terminal(name)?)
}

/// Every terminal (`all`: archived ones too), oldest first (`table`: as `ls`'s table needs
/// them, [`TerminalView::for_table`]).
pub fn ls(srv: &Server, all: bool, table: bool) -> Result<Vec<TerminalView>, BatonError> {
    let running: std::collections::HashSet<String> = (srv.all_runtimes().into_iter())
        .filter(|(_, rt)| rt.is_running())
        .map(|(tid, _)| tid)
        .collect();
    let ix = srv.store.snapshot();
    ix.listing(None)?
        .into_iter()
        .filter(|l| all || !l.row.archived)
        .map(|l| {
            let running = running.contains(&l.row.id);
            let v = terminal_of(srv, &ix, l, running)?;
            Ok(if table { v.for_table() } else { v })
        })
        .collect()
}

/// The index keeps why a conversation opened as its journal name.
fn open_reason(s: &str) -> Result<crate::words::OpenReason, BatonError> {
    serde_json::from_value(serde_json::Value::from(s))
        .map_err(|e| BatonError::failed(format!("the index holds an unknown reason {s:?}: {e}")))
}

/// Every conversation and turn of a terminal, oldest first.
pub fn log(srv: &Server, name: &str) -> Result<LogView, BatonError> {
    let t = srv.terminal(name)?;
    let mut conversations = Vec::new();
    for c in srv.store.conversations(&t.id)? {
        conversations.push(ConversationView {
            sessions: srv.store.sessions(&c.id)?,
            opened_reason: open_reason(&c.opened_reason)?,
            id: c.id,
            number: c.number,
            dir: c.dir,
            opened_at: c.opened_at,
            retired_at: c.retired_at,
            title: c.title,
        });
    }
    let turns = srv
        .store
        .turns(&t.id)?
        .into_iter()
        .map(|turn| LogTurnView {
            conversation: conversations
                .iter()
                .find(|c| c.id == turn.conversation_id)
                .map(|c| c.number),
            rotates_next: rotates_next(turn.provider, turn.context.as_ref()),
            turn,
        })
        .collect();
    let forked = |l: &crate::store::ForkLink| ForkedView {
        name: l.name.clone(),
        id: l.terminal_id.clone(),
        turn: l.turn,
        rewind: l.rewind,
    };
    Ok(LogView {
        setup: super::setup::view(srv, &t.id, true).1,
        forked_from: t.forked_from.as_ref().map(forked),
        forked_into: srv.store.forks(&t.id)?.iter().map(forked).collect(),
        name: t.name,
        rotate_at: ROTATE_FRACTION,
        conversations,
        turns,
    })
}

/// Terminal `t`'s waiting input as `queue --json` lists it.
pub fn queue(srv: &Server, t: &TerminalRow) -> Result<Vec<QueuedView>, BatonError> {
    let ix = srv.store.snapshot();
    let waiting = ix.waiting_inputs(&t.id)?;
    queue_of(srv, &ix, t, waiting)
}

/// Terminal `t`'s waiting input as `queue --json` lists it, from the index's `waiting` or,
/// while the index is behind (it missed entries: a full disk), the journal's, since the index
/// would leave out what was accepted since (issue 39: `queue` and `server status` said 0
/// waiting).
fn queue_of(
    srv: &Server,
    ix: &Snapshot<'_>,
    t: &TerminalRow,
    waiting: Vec<InputRow>,
) -> Result<Vec<QueuedView>, BatonError> {
    let rt = srv.runtime(&t.id);
    let taken = rt.taken();
    let held = rt.queue_held();
    let waiting = if ix.index_current() {
        waiting
    } else {
        srv.store.journalled_waiting(&t.id)?
    };
    Ok(waiting
        .into_iter()
        // The input the runner took is about to start: it no longer waits.
        .filter(|i| Some(i.number) != taken)
        .enumerate()
        .map(|(k, i)| QueuedView {
            input: i.number,
            position: k as u32 + 1,
            prompt: i.prompt,
            mode: i.mode,
            provider: i.provider.unwrap_or(t.provider),
            model: i.model,
            queued_at: i.queued_at,
            held,
        })
        .collect())
}

/// How many inputs wait, all terminals together.
pub fn waiting_inputs(srv: &Server) -> Result<usize, BatonError> {
    let ix = srv.store.snapshot();
    let mut n = 0;
    for l in ix.listing(None)? {
        n += queue_of(srv, &ix, &l.row, l.waiting)?.len();
    }
    Ok(n)
}

/// How many inputs terminal `t` has waiting.
pub fn waiting(srv: &Server, t: &TerminalRow) -> Result<usize, BatonError> {
    Ok(queue(srv, t)?.len())
}

pub fn status(srv: &Server) -> Result<StatusView, BatonError> {
    let running_turns = srv
        .all_runtimes()
        .iter()
        .filter(|(_, rt)| rt.is_running())
        .count();
    Ok(StatusView {
        running: true,
        pid: std::process::id(),
        data_dir: srv.data_root().to_string_lossy().into_owned(),
        uptime_secs: srv.started.elapsed().as_secs(),
        terminals: srv.store.terminals()?.len(),
        running_turns,
        waiting_inputs: waiting_inputs(srv)?,
        version: env!("CARGO_PKG_VERSION").to_string(),
        warden_pid: crate::providers::warden::guard().and_then(|w| w.pid()),
        index_behind: !srv.store.index_current(),
        warm: warm(srv),
        tracked_checkouts: srv.changes.get().map_or(0, |t| t.checkouts()),
        tracked_commits: srv.changes.get().map_or(0, |t| t.vouched()),
        warm_budget_bytes: crate::providers::warm_budget::Bounds::of(&srv.config).budget_bytes,
    })
}

/// The warm CLIs, named by their terminal.
fn warm(srv: &Server) -> Vec<crate::protocol::views::WarmView> {
    srv.warm
        .list()
        .into_iter()
        .map(|w| crate::protocol::views::WarmView {
            name: srv
                .store
                .terminal(&w.terminal_id)
                .ok()
                .flatten()
                .map_or(w.terminal_id.clone(), |t| t.name),
            provider: w.provider,
            pid: w.pid,
            session_id: w.session_id,
            turns: w.turns,
            idle_secs: w.idle.as_secs(),
            memory_bytes: w.memory_bytes,
            own_bytes: w.own_bytes,
        })
        .collect()
}

impl Server {
    /// Tells watching clients that terminal `tid` changed.
    pub fn announce(&self, tid: &str) {
        if self.watch.receiver_count() == 0 {
            return;
        }
        if let Ok(Some(t)) = self.store.terminal(tid) {
            if let Ok(terminal) = terminal(self, &t) {
                let _ = self.watch.send(WatchEvent::Terminal {
                    terminal: Box::new(terminal),
                });
            }
        }
    }
}
