//! One turn, from accepted prompt to journalled result, step by step: queueing behind the
//! running turn, applying a switch of settings, asking the send path ([`plan`]), recording the
//! start, running the CLI ([`cli`]) or baton's own loop for a local endpoint ([`local`]), and
//! recording the end (automatic commit, result, summary). See ARCHITECTURE.md ("The send path").

mod cli;
pub mod hold;
pub(super) mod local;
pub(super) mod plan;
pub(super) mod prestart;
pub mod queue;
pub mod retry;
pub(super) mod tally;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::feed::Feed;
use super::settings::ProviderChoice;
use super::state::{Running, Server, TermRuntime};
use crate::engine;
use crate::error::BatonError;
use crate::protocol::views::AcceptedView;
use crate::protocol::{Reply, SendEvent, TurnSummary};
use crate::providers::TurnOutcome;
use crate::store::{InputRow, Record, TerminalRow};
use crate::validate;
use crate::words::{InputMode, TurnMode, TurnStatus};
use cli::TurnCtx;
use plan::Plan;
use queue::Asked;

/// A validated send, ready to queue.
pub struct SendJob {
    pub terminal: TerminalRow,
    pub prompt: String,
    /// A switch of provider (and, for `local`, endpoint) from this turn on.
    pub provider: Option<ProviderChoice>,
    pub model: Option<String>,
    /// A checked, physical directory to move the terminal's runs to.
    pub dir: Option<String>,
    /// The input it runs, and how that input reached it.
    pub input: u32,
    pub mode: TurnMode,
    /// The turn opens a fresh conversation (`send --fresh`).
    pub fresh: bool,
}

/// The refusal of a send to an archived terminal.
pub(super) fn archived(name: &str) -> BatonError {
    BatonError::bad_input(format!(
        "{name} is archived: `baton unarchive {name}` first, then send"
    ))
}

/// Validates a send (nothing changes when it is refused) and hands it to the terminal's queue.
pub fn accept(
    srv: &Arc<Server>,
    name: &str,
    send: crate::protocol::SendRequest,
) -> Result<(Arc<Feed>, AcceptedView), BatonError> {
    if srv.shutting_down.load(Ordering::SeqCst) {
        return Err(BatonError::failed(
            "the baton server is shutting down; try again",
        ));
    }
    let terminal = srv.terminal(name)?;
    if terminal.archived {
        return Err(archived(name));
    }
    validate::prompt(&send.prompt)?;
    let provider =
        super::settings::choose_provider(srv, send.provider.as_deref(), Some(&terminal))?;
    if let Some(m) = &send.model {
        super::settings::validate_model(m)?;
    }
    let dir = send
        .dir
        .as_deref()
        .map(super::settings::existing_dir)
        .transpose()?;
    if dir.is_some() && terminal.mode == crate::words::CheckoutMode::Worktree {
        return Err(BatonError::bad_input(format!(
            "{name} works in its own git worktree: --dir cannot move it (open another terminal with `baton new NAME --dir DIR`)"
        )));
    }
    let kind = provider.as_ref().map_or(terminal.provider, |p| p.kind);
    if kind.is_cli() {
        srv.resolve_bin(kind)?;
    }
    // The CLI loads while the input is journalled and its turn planned.
    prestart::start(srv, &terminal, &send);
    let tid = terminal.id.clone();
    let queued = queue::enqueue(
        srv,
        Asked {
            terminal,
            prompt: send.prompt,
            mode: send.mode,
            provider,
            model: send.model,
            dir,
            fresh: send.fresh,
        },
    );
    if queued.is_err() {
        srv.runtime(&tid).prestarted.retire();
        srv.starts.release(&tid);
    }
    queued
}

impl SendJob {
    /// The job of a waiting input, on terminal `terminal` as it is now.
    fn from_input(terminal: TerminalRow, input: &InputRow) -> SendJob {
        let mode = if input.jumped {
            TurnMode::Jump
        } else if input.direct {
            TurnMode::Direct
        } else {
            match input.mode {
                InputMode::Queue => TurnMode::Queue,
                InputMode::Steer => TurnMode::Steer,
            }
        };
        SendJob {
            terminal,
            prompt: input.prompt.clone(),
            provider: input.provider.map(|kind| ProviderChoice {
                kind,
                endpoint: input.endpoint.clone(),
            }),
            model: input.model.clone(),
            dir: input.dir.clone(),
            input: input.number,
            mode,
            fresh: input.fresh,
        }
    }
}

/// Runs `job`'s turn to its end (the caller holds the terminal's turn lock), reporting every
/// step to `feed`. Never fails silently: any error ends the feed with an error reply.
async fn run(srv: &Arc<Server>, rt: &Arc<TermRuntime>, job: SendJob, feed: &Feed) {
    let (result, raw_sync) = if srv.shutting_down.load(Ordering::SeqCst) {
        let error = BatonError::failed(
            "the baton server is shutting down; the prompt waits for its next start",
        );
        (Err(error), None)
    } else {
        match run_locked(srv, rt, job, feed).await {
            Ok((summary, raw_sync)) => (Ok(summary), raw_sync),
            Err(e) => (Err(e), None),
        }
    };
    if let Ok(mut r) = rt.running.lock() {
        *r = None;
    }
    // Its input no longer taken before the reply: a send its client makes next finds the
    // terminal idle (not queued behind this turn's syncs below).
    rt.set_taken(None);
    crate::log::phase("reply");
    feed.finish(Reply::answered(result.map(Into::into)));
    // The clients' tasks write the reply first: woken on this worker, they would otherwise
    // wait for the index write below and the runner's next look at the queue.
    tokio::task::yield_now().await;
    // What the turn's end left to sync and to the index (`finish`), now that its client has
    // the reply.
    if let Some(sync) = raw_sync {
        sync.wait().await;
    }
    srv.store.settle();
}

/// A turn that started: its id and number, and the flag an interrupt sets.
struct Started {
    turn_id: String,
    number: u32,
    interrupted: Arc<AtomicBool>,
    at: std::time::Instant,
}

/// The turn, once it holds the terminal's turn lock.
async fn run_locked(
    srv: &Arc<Server>,
    rt: &Arc<TermRuntime>,
    job: SendJob,
    feed: &Feed,
) -> Result<(TurnSummary, Option<cli::RawSync>), BatonError> {
    let mut term = job.terminal.clone();
    apply_settings(srv, &mut term, &job)?;
    // The checkout may have moved since the last turn (rule 1 of the send path sees it).
    let checkout_notes = super::checkout::follow(srv, &mut term)?;
    for message in &checkout_notes {
        feed.push(Reply::Event {
            event: SendEvent::Note {
                message: message.clone(),
            },
        });
    }
    let plan = plan::plan(srv, rt, &term, job.fresh).await?;
    crate::log::phase("turn-planned");
    let (started, pending) = prepare(srv, rt, &term, &plan, &job)?;
    let mut ctx = TurnCtx {
        srv,
        rt,
        tid: &term.id,
        turn_id: &started.turn_id,
        feed,
        interrupted: started.interrupted.clone(),
        tally: tally::Tally::default(),
        notes: checkout_notes,
        pending_start: Some(pending),
        announcing: None,
        start_failed: None,
        go: None,
        early_notes: Vec::new(),
        raw_sync: None,
        prime: super::checkout::Prime::for_turn(srv, &rt.primed, &term),
    };
    let ran = ctx.execute(&term, &plan, &job.prompt).await;
    if let Some(e) = ctx.start_failed.take() {
        return Err(e);
    }
    // No CLI started (it could not, or the endpoint is baton's own): recorded now.
    ctx.record_start()?;
    finish(&mut ctx, &term, plan, &job.prompt, &started, ran).await
}

/// A switch of provider, endpoint, model or directory applies from this turn on: journalled,
/// and applied to `term` for this turn.
fn apply_settings(srv: &Server, term: &mut TerminalRow, job: &SendJob) -> Result<(), BatonError> {
    let (provider, endpoint) = job.provider.clone().map_or_else(
        || (term.provider, term.endpoint.clone()),
        |c| (c.kind, c.endpoint),
    );
    let model = match job.model.as_deref() {
        Some(asked) => super::settings::pinned(asked),
        None if provider == term.provider && endpoint == term.endpoint => term.model.clone(),
        None => None,
    };
    if provider != term.provider || endpoint != term.endpoint || model != term.model {
        srv.store.append(
            &term.id,
            Record::SettingsChanged {
                provider,
                model: model.clone(),
                endpoint: endpoint.clone(),
            },
        )?;
        term.provider = provider;
        term.endpoint = endpoint;
        term.model = model;
    }
    if let Some(dir) = job.dir.clone().filter(|d| *d != term.dir) {
        srv.store
            .append(&term.id, Record::DirChanged { dir: dir.clone() })?;
        term.source = dir.clone();
        term.dir = dir;
    }
    Ok(())
}

/// A turn's start as it will be journalled and announced: see [`TurnCtx::record_start`].
pub(super) struct PendingStart {
    record: Record,
    told: StartNews,
}

/// What is told of a turn's start once it is journalled ([`TurnCtx::announce_start`]).
pub(super) struct StartNews {
    event: SendEvent,
    prompt: String,
    provider: crate::words::ProviderKind,
}

/// Decides the turn's number and id and marks it running (an interrupt from now on applies to
/// it); its start is recorded later, by [`TurnCtx::record_start`].
fn prepare(
    srv: &Arc<Server>,
    rt: &Arc<TermRuntime>,
    term: &TerminalRow,
    plan: &Plan,
    job: &SendJob,
) -> Result<(Started, PendingStart), BatonError> {
    let prompt = job.prompt.as_str();
    // Above every number the index or this server used: never one twice.
    let number = srv
        .store
        .last_turn_number(&term.id)?
        .max(rt.last_turn.load(Ordering::SeqCst))
        + 1;
    rt.last_turn.store(number, Ordering::SeqCst);
    let turn_id = uuid::Uuid::now_v7().to_string();
    // An interrupt (or a jump, or a stop) that came while the turn was starting applies to it.
    let pending = rt.interrupt_pending.swap(false, Ordering::SeqCst)
        || srv.shutting_down.load(Ordering::SeqCst);
    let interrupted = Arc::new(AtomicBool::new(pending));
    if let Ok(mut r) = rt.running.lock() {
        *r = Some(Running {
            turn_id: turn_id.clone(),
            pid: None,
            interrupted: interrupted.clone(),
            control: None,
        });
    }
    let record = Record::TurnStarted {
        turn_id: turn_id.clone(),
        number,
        conversation_id: plan.conversation.id.clone(),
        provider: term.provider,
        prompt: prompt.to_string(),
        input: Some(job.input),
        mode: Some(job.mode),
        standing: match plan.session_reason {
            Some(_) => plan.standing.clone(),
            None => Vec::new(),
        },
        boot: crate::providers::process::boot_id().map(str::to_string),
    };
    let event = SendEvent::Started {
        turn_id: turn_id.clone(),
        number,
        provider: term.provider,
        conversation: plan.conversation.number,
        opened: plan.opened,
        rotate_at: engine::ROTATE_FRACTION,
        session: plan.session_reason.into(),
        prompt: prompt.to_string(),
    };
    let pending = PendingStart {
        record,
        told: StartNews {
            event,
            prompt: prompt.to_string(),
            provider: term.provider,
        },
    };
    Ok((
        Started {
            turn_id,
            number,
            interrupted,
            at: std::time::Instant::now(),
        },
        pending,
    ))
}

impl TurnCtx<'_> {
    /// Journals the turn's start (once), then tells of it ([`TurnCtx::announce_start`]): for
    /// a turn no CLI runs (it could not start, or the endpoint is baton's own).
    pub(super) fn record_start(&mut self) -> Result<(), BatonError> {
        self.record_start_with(None)?;
        self.announce_start();
        Ok(())
    }

    /// Journals the turn's start (once), with `process` (the `TurnProcess` of the CLI that
    /// just started) in the same write and sync: one sync less while the CLI loads, and a
    /// crash never leaves the start without its CLI's pid. The CLI is given its prompt right
    /// after this (`providers::process::Stdin::Gated`), so a journalled start is one that may
    /// have reached the model (`server::recover` never runs it again by itself), and a crash
    /// before it leaves the input waiting, run by no CLI. When the start is recorded already
    /// (a later CLI of the turn), nothing is written and `process` is handed back.
    pub(super) fn record_start_with(
        &mut self,
        process: Option<Record>,
    ) -> Result<Option<Record>, BatonError> {
        let Some(start) = self.pending_start.take() else {
            return Ok(process);
        };
        super::removal::crash_point("turn-starting");
        let records = std::iter::once(start.record).chain(process).collect();
        if let Err(e) = self.srv.store.append_unindexed(self.tid, records) {
            self.early_notes.clear();
            return Err(e.into());
        }
        super::removal::crash_point("turn-started");
        self.announcing = Some(start.told);
        Ok(None)
    }

    /// Journals that the prompt goes out now (`turn_prompted`, written, not synced: see
    /// `Store::append_mark`), right before it is handed over: a start recovery finds without
    /// it, on the same boot, never reached the CLI (`server::recover`).
    pub(super) fn mark_prompted(&mut self) -> Result<(), BatonError> {
        let mark = Record::TurnPrompted {
            turn_id: self.turn_id.to_string(),
        };
        self.srv.store.append_mark(self.tid, mark)?;
        super::removal::crash_point("turn-prompted");
        Ok(())
    }

    /// Tells of the start just journalled (once): the send's client gets it and the notes
    /// made before it (before the index write: the first thing it prints), the watchers are
    /// told, and the background extraction of its prompt starts. After the CLI was given its
    /// prompt, so none of this stands between the journalled start and the prompt.
    pub(super) fn announce_start(&mut self) {
        let Some(start) = self.announcing.take() else {
            return;
        };
        crate::log::phase("turn-started");
        self.feed.push(Reply::Event { event: start.event });
        for message in std::mem::take(&mut self.early_notes) {
            self.feed.push(Reply::Event {
                event: SendEvent::Note { message },
            });
        }
        self.srv.store.settle();
        self.srv.announce(self.tid);
        super::extract::spawn(
            self.srv.clone(),
            self.rt.clone(),
            self.tid.to_string(),
            self.turn_id.to_string(),
            start.prompt,
            start.provider,
        );
    }
}

/// What running the turn gave: the outcome, its session id and the model it is pinned to.
pub(super) type Ran = Result<(TurnOutcome, Option<String>, Option<String>), BatonError>;

/// Commits what the turn changed, records its end and sums it up.
async fn finish(
    ctx: &mut TurnCtx<'_>,
    term: &TerminalRow,
    plan: Plan,
    prompt: &str,
    started: &Started,
    ran: Ran,
) -> Result<(TurnSummary, Option<cli::RawSync>), BatonError> {
    let srv = ctx.srv;
    // The CLI's turn is over (it has exited, or exits after its result: `providers::closing`)
    // and its whole stream is written (its sync runs); nothing of its end is journalled.
    super::removal::crash_point("turn-ran");
    let (outcome, session_id, session_model) = ran.unwrap_or_else(|e| {
        let failed = TurnOutcome {
            status: Some(TurnStatus::Failed),
            error: Some(e.to_string()),
            ..TurnOutcome::default()
        };
        (failed, None, None)
    });
    let status = outcome.status.unwrap_or(TurnStatus::Failed);
    let model = outcome.model.clone().or(session_model);
    let provider = term.provider;
    let commit = commit(ctx, term, &plan, prompt, started, session_id.as_deref()).await;
    // Measured once: what the journal keeps is what the client is told.
    let duration_ms = u64::try_from(started.at.elapsed().as_millis()).unwrap_or(u64::MAX);
    // The commit and the end in one write; their sync (and the raw stream's, started at the
    // result) and their index write wait until the client has its reply (`run`). Written now,
    // they survive a crash of the server at any moment; see `Store::append_unsynced` for a
    // crash of the machine.
    let committed = commit.as_ref().map(|commit| Record::TurnCommitted {
        turn_id: started.turn_id.clone(),
        commit: commit.clone(),
    });
    let records = committed.into_iter().chain([Record::TurnFinished {
        turn_id: started.turn_id.clone(),
        status,
        error: outcome.error.clone(),
        session_id: session_id.clone(),
        model: model.clone(),
        context: outcome.context,
        answer: ctx.tally.answer.clone(),
        tools: ctx.tally.tools.clone(),
        notes: ctx.notes.clone(),
        cost: outcome.cost,
        duration_ms: Some(duration_ms),
    }]);
    srv.store.append_unsynced(&term.id, records.collect())?;
    crate::log::phase("turn-recorded");
    let unusable_cli =
        status == TurnStatus::Failed && !ctx.tally.ended && !ctx.interrupted.load(Ordering::SeqCst);
    let summary = TurnSummary {
        commit,
        turn_id: started.turn_id.clone(),
        number: started.number,
        status,
        error: outcome.error,
        provider,
        session_id,
        model,
        conversation: plan.conversation.number,
        conversation_id: plan.conversation.id,
        opened: plan.opened,
        rotates_next: super::read::rotates_next(provider, outcome.context.as_ref()),
        rotate_at: engine::ROTATE_FRACTION,
        context: outcome.context,
        unusable_cli,
        cost: outcome.cost,
        elapsed_ms: duration_ms,
    };
    Ok((summary, ctx.raw_sync()))
}

/// Commits every file the turn changed, whatever its status; a failure is a note and no commit.
async fn commit(
    ctx: &mut TurnCtx<'_>,
    term: &TerminalRow,
    plan: &Plan,
    prompt: &str,
    started: &Started,
    session_id: Option<&str>,
) -> Option<String> {
    let facts = super::checkout::TurnFacts {
        prompt,
        conversation: &plan.conversation.id,
        provider: term.provider.as_str(),
        session: session_id.unwrap_or("none"),
        number: started.number,
    };
    if let Some(prime) = ctx.prime.take() {
        prime.done().await;
    }
    let tracker = ctx.srv.changes.get().cloned();
    match super::checkout::commit_turn(term, facts, tracker).await {
        Ok(c) => {
            if c.is_some() {
                super::integrate::after_commit(ctx.srv, term);
            }
            c
        }
        Err(e) => {
            ctx.note(format!(
                "the automatic commit failed: {e} (the files are still in {})",
                term.dir
            ));
            None
        }
    }
}
