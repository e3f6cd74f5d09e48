//! Running a turn's CLI: the command line (with the fence), the fallback to a fresh session
//! when the one to resume is gone, and the pump that keeps the raw stream and turns the CLI's
//! events into the turn's answer, tool lines and notes.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::super::feed::Feed;
use super::super::state::{Server, Steering, TermRuntime};
use super::plan::{new_mode, Plan};
use super::Ran;
use crate::engine::system_text::session_text;
use crate::error::BatonError;
use crate::protocol::{Reply, SendEvent};
use crate::providers::provider::ForkCopy;
use crate::providers::{self, system_file, RunMsg, RunSpec, SessionMode, TurnOutcome};
use crate::store::{Record, TerminalRow};
use crate::words::{SessionReason, TurnEvent, TurnStatus};

/// The command line of turn `turn_id`'s CLI in terminal `tid` (`term`, as `plan` runs it),
/// before the fence is added ([`fence`]).
pub(super) fn run_spec(
    srv: &Server,
    tid: &str,
    turn_id: &str,
    term: &TerminalRow,
    plan: &Plan,
) -> Result<RunSpec, BatonError> {
    let provider = term.provider;
    let bin = srv.resolve_bin(provider)?;
    let p = providers::of(provider);
    let pcfg = p.settings(&srv.config);
    Ok(RunSpec {
        provider,
        bin,
        cwd: PathBuf::from(&plan.conversation.dir),
        session: plan.mode.clone(),
        model: term
            .model
            .clone()
            .or(plan.pinned_model.clone())
            .or(pcfg.model.clone()),
        system_text: plan.system_text(),
        run_name: system_file::run_name(tid, turn_id),
        run_dir: srv.run_dir(tid),
        permission_mode: p.permission_mode(&srv.config),
        sandbox: p.sandbox(&srv.config),
        add_dirs: vec![srv.screenshots(tid)],
        extra_args: crate::server::approvals::extra_args(&srv.config, p, &pcfg.args),
        env: crate::server::setup::env(srv, tid),
    })
}

/// A CLI's sandbox (Codex's `workspace-write`) may leave the system's temporary folders
/// writable: commands get one inside the fence instead (`<terminal>/tmp`).
pub(super) fn fence(srv: &Server, tid: &str, spec: &mut RunSpec) {
    let p = providers::of(spec.provider);
    if !p.fenced(spec) {
        return;
    }
    let tmp = srv.store.data_dir().terminal(tid).join("tmp");
    if crate::paths::ensure_private_dir(&tmp).is_err() {
        return;
    }
    p.fence_tmp(spec, &tmp);
}

/// Keeps the CLI of a clean turn warm for terminal `tid`'s next one, within its provider's
/// limit; each stays until its idle time runs out.
fn keep_warm(srv: &Arc<Server>, tid: &str, cli: providers::warm::WarmCli) {
    let provider = providers::of(cli.key.provider);
    let limit = provider.warm_limit(&srv.config);
    if limit == 0 || srv.shutting_down.load(Ordering::SeqCst) || !warm_wanted(srv, tid) {
        cli.retire();
        return;
    }
    let bounds = providers::warm_budget::Bounds::of(&srv.config);
    let (serial, out) = srv.warm.put(tid, cli, &bounds);
    out.into_iter().for_each(providers::warm::WarmCli::retire);
    let (srv, tid, idle) = (
        srv.clone(),
        tid.to_string(),
        provider.warm_idle(&srv.config),
    );
    tokio::spawn(async move {
        tokio::time::sleep(idle).await;
        if let Some(cli) = srv.warm.take_if(&tid, serial) {
            cli.retire();
        }
    });
}

/// Whether terminal `tid` may keep a warm CLI: it is there and not archived.
fn warm_wanted(srv: &Server, tid: &str) -> bool {
    matches!(srv.store.terminal(tid), Ok(Some(t)) if !t.archived)
}

/// The running turn's context: where its output goes.
pub(super) struct TurnCtx<'a> {
    pub(super) srv: &'a Arc<Server>,
    pub(super) rt: &'a Arc<TermRuntime>,
    pub(super) tid: &'a str,
    pub(super) turn_id: &'a str,
    pub(super) feed: &'a Feed,
    pub(super) interrupted: Arc<AtomicBool>,
    /// What its events added up to (`ended`: the CLI ended the turn itself, a result / turn
    /// end event).
    pub(super) tally: super::tally::Tally,
    pub(super) notes: Vec<String>,
    /// The turn's start, until it is journalled: when its CLI has started (which then reads
    /// its prompt), or before the turn ends if no CLI started (see `TurnCtx::record_start`).
    pub(super) pending_start: Option<super::PendingStart>,
    /// The start, journalled and not told of yet ([`TurnCtx::announce_start`]).
    pub(super) announcing: Option<super::StartNews>,
    /// Recording the start failed: the CLI got no prompt and the turn ends with this error.
    pub(super) start_failed: Option<BatonError>,
    /// Sent once the start is journalled: the running CLI may read its prompt.
    pub(super) go: Option<tokio::sync::oneshot::Sender<()>>,
    /// Notes made before the start was journalled, sent after the start event.
    pub(super) early_notes: Vec<String>,
    /// The raw stream's sync, started at the run's result ([`TurnCtx::raw_sync`]).
    pub(super) raw_sync: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    /// The change tracker's walk of the checkout, started at the CLI's first event.
    pub(super) prime: Option<crate::server::checkout::Prime>,
}

impl TurnCtx<'_> {
    pub(super) fn note(&mut self, message: String) {
        if self.pending_start.is_some() || self.announcing.is_some() {
            self.early_notes.push(message.clone());
        } else {
            self.feed.push(Reply::Event {
                event: SendEvent::Note {
                    message: message.clone(),
                },
            });
        }
        self.notes.push(message);
    }

    /// The command line of the turn's CLI, before the fence is added.
    fn spec(&self, term: &TerminalRow, plan: &Plan) -> Result<RunSpec, BatonError> {
        run_spec(self.srv, self.tid, self.turn_id, term, plan)
    }

    /// Runs the CLI; on a resume whose session is gone, starts a fresh session in the same
    /// conversation and runs the prompt there. Returns the outcome, the turn's session id and
    /// the model its session is pinned to.
    pub(super) async fn execute(&mut self, term: &TerminalRow, plan: &Plan, prompt: &str) -> Ran {
        let srv = self.srv.clone();
        let provider = term.provider;
        if !provider.is_cli() {
            // A warm CLI has no next turn to take after a switch to an endpoint.
            srv.warm.settled(self.tid).await;
            if let Some(cli) = srv.warm.take(self.tid) {
                cli.retire();
            }
            // Told of once its prompt goes out (`RunMsg::Prompting`), as a CLI's turn.
            self.record_start_with(None)?;
            return self.execute_local(term, plan, prompt).await;
        }
        let (mut spec, warm) = self.prepare_run(term, plan).await?;
        if warm.is_some() {
            super::super::hooks::stall_point("warm-taken").await;
        }
        let mut reason = plan.session_reason;
        let mut standing = plan.standing.clone();
        let copy = fork_copy(&srv, &spec, plan);
        let ran = self.run_cli(&spec, prompt, warm).await;
        if let Some(copy) = copy {
            if let Err(e) = copy.remove() {
                self.note(format!(
                    "cannot remove the session copy made for the fork: {e}"
                ));
            }
        }
        let mut outcome = ran?;
        if let Some(session_id) = self.lost_session(&spec, &outcome) {
            self.note(format!(
                "cannot resume {provider} session {session_id}: the CLI no longer has it; starting a fresh session in the same conversation"
            ));
            spec.session = new_mode(provider);
            spec.model = term
                .model
                .clone()
                .or(providers::of(provider).settings(&srv.config).model.clone());
            reason = Some(SessionReason::Lost);
            // A fresh session has no history: it gets every standing instruction now.
            standing = super::plan::not_carried(&srv, term, &plan.conversation)?;
            spec.system_text = session_text(&plan.conversation.system_text, &standing);
            outcome = self.run_cli(&spec, prompt, None).await?;
        }
        let (session_id, pinned) = self.session_of(&spec, plan, reason, &standing, &outcome)?;
        Ok((outcome, session_id, pinned))
    }

    /// The turn's command line (fenced) and the CLI it runs in when one is ready (started
    /// ahead of it, or warm); the run's folder made, a crash's system-text files swept, and
    /// the fence's warning noted.
    async fn prepare_run(
        &mut self,
        term: &TerminalRow,
        plan: &Plan,
    ) -> Result<(RunSpec, Option<providers::warm::WarmCli>), BatonError> {
        let srv = self.srv.clone();
        let mut spec = self.spec(term, plan)?;
        fence(&srv, self.tid, &mut spec);
        let prestarted = self.prestarted_for(&spec);
        let early = prestarted.is_some();
        let warm = match prestarted {
            Some(cli) => Some(cli),
            None => self.warm_for(&spec).await,
        };
        // Under the turn lock, no run of this terminal is going on: what is there is a crash's
        // (a warm CLI's file is kept: the turn that left it ended cleanly, after a sweep), but
        // the file of a CLI started for this very turn.
        match &warm {
            None => {
                system_file::sweep(&spec.run_dir, &srv.homes.codex, self.tid, None);
            }
            Some(cli) if early => {
                system_file::sweep(&spec.run_dir, &srv.homes.codex, self.tid, cli.system_file());
            }
            Some(_) => {}
        }
        crate::paths::ensure_private_dir(&spec.run_dir).map_err(|e| {
            BatonError::failed(format!("cannot make {}: {e}", spec.run_dir.display()))
        })?;
        if let Some(warning) = srv
            .fence_checks
            .warning(&spec, srv.path_var.as_deref())
            .await
        {
            self.note(warning);
        }
        Ok((spec, warm))
    }

    /// The session the run was to resume (or fork) when the CLI no longer has it and the
    /// turn goes on in a fresh one: not after an interrupt, nor when its start failed.
    fn lost_session(&self, spec: &RunSpec, outcome: &TurnOutcome) -> Option<String> {
        let (SessionMode::Resume { session_id }
        | SessionMode::Fork {
            from: session_id, ..
        }) = &spec.session
        else {
            return None;
        };
        let goes_on = outcome.session_not_found
            && !self.interrupted.load(Ordering::SeqCst)
            && self.start_failed.is_none();
        goes_on.then(|| session_id.clone())
    }

    /// The turn's session id and the model its session is pinned to; a session the turn
    /// opened (`reason`) is journalled once the CLI named it.
    fn session_of(
        &self,
        spec: &RunSpec,
        plan: &Plan,
        reason: Option<SessionReason>,
        standing: &[String],
        outcome: &TurnOutcome,
    ) -> Result<(Option<String>, Option<String>), BatonError> {
        let session_id = match &spec.session {
            SessionMode::Resume { session_id } => Some(session_id.clone()),
            SessionMode::New { session_id } | SessionMode::Fork { session_id, .. } => {
                outcome.session_id.clone().or(session_id.clone())
            }
        };
        let mut pinned = spec.model.clone();
        if let (Some(reason), Some(sid)) = (reason, &session_id) {
            if outcome.session_id.is_some() {
                pinned = outcome.model.clone().or(spec.model.clone());
                self.srv.store.append(
                    self.tid,
                    Record::SessionStarted {
                        conversation_id: plan.conversation.id.clone(),
                        turn_id: self.turn_id.to_string(),
                        provider: spec.provider,
                        session_id: sid.clone(),
                        model: pinned.clone(),
                        reason,
                        standing: standing.to_vec(),
                    },
                )?;
            }
        }
        let session_id =
            if outcome.session_id.is_some() || matches!(spec.session, SessionMode::Resume { .. }) {
                session_id
            } else {
                None
            };
        Ok((session_id, pinned))
    }

    /// The CLI started for this turn as its send arrived (`prestart`), if its command line is
    /// the turn's; one that is not is retired.
    fn prestarted_for(&self, spec: &RunSpec) -> Option<providers::warm::WarmCli> {
        let cli = self.rt.prestarted.take()?;
        match cli.key.fits(spec, self.srv.path_var.as_deref()) {
            Ok(()) if cli.alive() => Some(cli),
            fit => {
                let why = fit
                    .err()
                    .map_or("it had exited".to_string(), |m| m.to_string());
                crate::log_line!(
                    "baton server: {}: the CLI started ahead of the turn (pid {}) is stopped: {why}",
                    self.tid,
                    cli.pid
                );
                cli.retire();
                None
            }
        }
    }

    /// The terminal's warm CLI if this turn can run in it; one that does not fit is retired.
    async fn warm_for(&self, spec: &RunSpec) -> Option<providers::warm::WarmCli> {
        // One being started after the last turn is waited for: it holds the thread.
        self.srv.warm.settled(self.tid).await;
        let cli = self.srv.warm.take(self.tid)?;
        if !cli.alive() {
            crate::log_line!(
                "baton server: {}: the warm CLI (pid {}) had exited; the turn starts one",
                self.tid,
                cli.pid
            );
            cli.retire();
            return None;
        }
        match cli.key.fits(spec, self.srv.path_var.as_deref()) {
            Ok(()) => Some(cli),
            Err(misfit) => {
                crate::log_line!(
                    "baton server: {}: the warm CLI (pid {}) is stopped: {misfit}",
                    self.tid,
                    cli.pid
                );
                // A Codex thread takes one writer at a time: the cold run waits for it.
                if providers::of(cli.key.provider).one_writer() {
                    cli.stop().await;
                } else {
                    cli.retire();
                }
                None
            }
        }
    }

    /// One CLI run: raw lines to the turn file, events to the feed.
    async fn run_cli(
        &mut self,
        spec: &RunSpec,
        prompt: &str,
        warm: Option<providers::warm::WarmCli>,
    ) -> Result<TurnOutcome, BatonError> {
        let srv = self.srv.clone();
        let path = srv.turn_file(self.tid, self.turn_id);
        // Checked before the CLI starts: a turn whose raw stream cannot be kept does not run.
        crate::paths::open_private_append(&path)
            .map_err(|e| BatonError::failed(format!("cannot write {}: {e}", path.display())))?;
        let (tx, rx) = tokio::sync::mpsc::channel::<RunMsg>(1024);
        let spec2 = spec.clone();
        let prompt = prompt.as_bytes().to_vec();
        let interrupted = self.interrupted.clone();
        // A Claude turn, and a Codex one on an app-server (warm, or started for a turn that
        // may ask for approvals), take steers and interrupt requests while they run: the
        // queue hands them to these channels.
        let p = providers::of(spec.provider);
        let ask = crate::server::approvals::asks(&srv.config);
        let takes_input = p.steers_cold() || warm.is_some() || (ask && p.asks_in_server(spec));
        let (steer, interrupt) = takes_input.then(|| self.open_input()).unzip();
        // The CLI starts at once and reads its prompt once the turn's start is journalled.
        let (go, gate) = tokio::sync::oneshot::channel();
        self.go = Some(go);
        // The CLI comes back through `keep` once the turn ended cleanly (a Codex app-server
        // only once it resumed the thread): until then the terminal's next turn waits for it.
        let starting = (providers::of(spec.provider).warm_limit(&srv.config) > 0)
            .then(|| srv.warm.starting(self.tid))
            .flatten();
        let (keep, kept) = tokio::sync::oneshot::channel();
        let keep = starting.is_some().then_some(keep);
        // A CLI not kept warm comes back through `closing` once its turn ended cleanly: the
        // turn ends at its result, and the runner waits for the CLI's exit
        // (`providers::closing`).
        let (closing, mut closed) = tokio::sync::oneshot::channel();
        let closing = spec.provider.is_cli().then_some(closing);
        let place = self.start_place(warm.is_some()).await;
        let task = tokio::spawn(async move {
            providers::run::run_turn(
                &spec2,
                &prompt,
                &srv.homes,
                srv.path_var.as_deref(),
                tx,
                interrupted,
                providers::run::Channels {
                    steer,
                    go: Some(gate),
                    warm,
                    keep,
                    interrupt,
                    closing,
                    ask,
                },
            )
            .await
        });
        self.pump(rx, place).await;
        // A request still waiting can no longer be answered: it expires, never approved.
        crate::server::approvals::expire_turn(self.srv, self.tid, self.turn_id);
        self.close_input();
        let outcome = task
            .await
            .map_err(|e| BatonError::failed(format!("the {} run crashed: {e}", spec.provider)))?
            .map_err(|e| BatonError::failed(e.to_string()));
        if let Ok(cli) = closed.try_recv() {
            self.rt.ending.put(cli, path, self.turn_id);
        }
        let outcome = outcome?;
        if let Some(guard) = starting {
            self.keep_once_handed_back(guard, kept);
        }
        Ok(outcome)
    }

    /// The CLI `kept` hands back (once the turn ended cleanly) goes to the warm pool; the
    /// terminal's next turn waits for that (`guard`) until then.
    fn keep_once_handed_back(
        &self,
        guard: tokio::sync::OwnedMutexGuard<()>,
        kept: tokio::sync::oneshot::Receiver<providers::warm::WarmCli>,
    ) {
        let (srv, tid) = (self.srv.clone(), self.tid.to_string());
        tokio::spawn(async move {
            if let Ok(cli) = kept.await {
                keep_warm(&srv, &tid, cli);
            }
            drop(guard);
        });
    }

    /// A CLI starting cold waits its turn among those starting (`[limits] starting`), and
    /// keeps its place until it has loaded: its first line ([`TurnCtx::pump`]). A warm one
    /// takes none, but a CLI started ahead of the turn keeps the place it took.
    /// Watching clients are told when it starts waiting, and when it got its place (so is
    /// every terminal still waiting: one fewer is ahead).
    async fn start_place(&self, warm: bool) -> Option<crate::server::starting::Place> {
        let (srv, tid) = (self.srv, self.tid);
        let held = srv.starts.take_held(tid);
        if warm || held.is_some() {
            return held;
        }
        let mut waited = false;
        let place = (srv.starts)
            .place(tid, || {
                waited = true;
                srv.announce(tid);
            })
            .await;
        if waited {
            srv.announce(tid);
            srv.starts.waiting().iter().for_each(|t| srv.announce(t));
        }
        super::super::hooks::stall_point("start-placed").await;
        Some(place)
    }

    /// The channels through which the queue hands the running CLI steers and an interrupt
    /// (its own request, from the moment it runs), open until [`TurnCtx::close_input`].
    fn open_input(
        &self,
    ) -> (
        tokio::sync::mpsc::UnboundedReceiver<String>,
        tokio::sync::mpsc::UnboundedReceiver<()>,
    ) {
        let (line_tx, line_rx) = tokio::sync::mpsc::unbounded_channel();
        *self.rt.steer.lock().unwrap_or_else(|p| p.into_inner()) = Some(Steering {
            lines: line_tx,
            sent: Vec::new(),
        });
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        if let Ok(mut r) = self.rt.running.lock() {
            if let Some(run) = r.as_mut() {
                run.control = Some(tx);
            }
        }
        (line_rx, rx)
    }

    /// The run is over: steers the CLI never read wait again, ahead of queued input (they run
    /// next), and interrupts go by signal again.
    fn close_input(&self) {
        *self.rt.steer.lock().unwrap_or_else(|p| p.into_inner()) = None;
        if let Ok(mut r) = self.rt.running.lock() {
            if let Some(run) = r.as_mut() {
                run.control = None;
            }
        }
    }

    /// Feeds a run's messages to the turn until the run ends: raw lines to the turn file,
    /// events to the feed. `place`, the CLI's among those starting, is given back at its
    /// first line.
    pub(super) async fn pump(
        &mut self,
        mut rx: tokio::sync::mpsc::Receiver<RunMsg>,
        mut place: Option<crate::server::starting::Place>,
    ) {
        let path = self.srv.turn_file(self.tid, self.turn_id);
        let (mut raw, mut write_err) = match crate::paths::open_private_append(&path) {
            Ok(f) => (Some(std::io::BufWriter::new(f)), None),
            Err(e) => (None, Some(e)),
        };
        // The sync started at the CLI's result, and whether a line came after it.
        let mut presynced: Option<tokio::task::JoinHandle<std::io::Result<()>>> = None;
        let mut written_after = false;
        while let Some(msg) = rx.recv().await {
            let end = matches!(msg, RunMsg::Event(TurnEvent::End { .. }));
            written_after |= presynced.is_some() && matches!(msg, RunMsg::Raw(_));
            if matches!(msg, RunMsg::Raw(_)) {
                drop(place.take());
            }
            if let Some(e) = self.on_msg(msg, raw.as_mut()) {
                write_err.get_or_insert(e);
            }
            if end && presynced.is_none() {
                presynced = raw.as_mut().and_then(presync);
            }
        }
        // The sync started at the result covers the stream unless a line came after it.
        let pending = match (presynced, written_after) {
            (Some(sync), false) => Some(sync),
            _ => raw.as_mut().and_then(presync),
        };
        if let (Some(raw), None) = (raw.as_mut(), &pending) {
            if let Err(e) = raw.flush().and_then(|_| raw.get_ref().sync_data()) {
                write_err.get_or_insert(e);
            }
        }
        if let Some(e) = write_err {
            self.note(format!(
                "could not keep the raw stream in {}: {e}",
                path.display()
            ));
        }
        // Waited for once the turn's end is journalled: the two syncs run side by side.
        if let Some(old) = std::mem::replace(&mut self.raw_sync, pending) {
            let _ = old.await;
        }
    }

    /// The raw stream's sync, which runs while the turn's end is journalled and its client
    /// told: waited for after the reply ([`RawSync::wait`]).
    pub(super) fn raw_sync(&mut self) -> Option<RawSync> {
        self.raw_sync.take().map(|sync| RawSync {
            sync,
            path: self.srv.turn_file(self.tid, self.turn_id),
            tid: self.tid.to_string(),
        })
    }

    /// The run's CLI started (`pid`): its start journalled with it, an interrupt that came
    /// first sent, the prompt marked as going out, then the gate opened.
    fn on_started(&mut self, pid: i32) {
        // What identifies the CLI, so a server that starts after a crash of this one
        // finds it and stops it before anything else runs here: journalled with the
        // turn's start, or alone for a later CLI of the turn (a lost session's fresh
        // one).
        let process =
            providers::process::start_time(pid).map(|(start_time, _)| Record::TurnProcess {
                turn_id: self.turn_id.to_string(),
                pid,
                start_time,
            });
        match self.record_start_with(process) {
            Err(e) => {
                // No prompt reaches it: the gate closes, and it is stopped to be sure.
                self.go = None;
                let _ = providers::process::interrupt(pid);
                self.start_failed = Some(e);
                return;
            }
            Ok(Some(alone)) => {
                if let Err(e) = self.srv.store.append(self.tid, alone) {
                    self.note(format!("could not journal the CLI's pid {pid}: {e}"));
                }
            }
            Ok(None) => {}
        }
        // Recorded and checked under one lock (see `terminals::interrupt`): an
        // interrupt that came before the pid is sent now.
        let interrupted = match self.rt.running.lock() {
            Ok(mut r) => {
                if let Some(run) = r.as_mut() {
                    run.pid = Some(pid);
                }
                self.interrupted.load(Ordering::SeqCst)
            }
            Err(_) => self.interrupted.load(Ordering::SeqCst),
        };
        if interrupted {
            let _ = providers::process::interrupt(pid);
        }
        self.open_gate();
        self.announce_start();
    }

    /// Marks the prompt as going out, then opens the gate (once): nothing slow stands between
    /// the two. A mark that cannot be written closes the gate: no prompt goes out.
    fn open_gate(&mut self) {
        let Some(go) = self.go.take() else {
            return;
        };
        match self.mark_prompted() {
            Ok(()) => drop(go.send(())),
            Err(e) => self.note(format!(
                "could not journal that the prompt goes out ({e}): it was not sent"
            )),
        }
    }

    /// One message of a run; returns a failure to write the raw stream.
    fn on_msg(
        &mut self,
        msg: RunMsg,
        raw: Option<&mut std::io::BufWriter<std::fs::File>>,
    ) -> Option<std::io::Error> {
        match msg {
            RunMsg::Started { pid } => self.on_started(pid),
            RunMsg::Prompting => {
                self.open_gate();
                self.announce_start();
            }
            RunMsg::Raw(line) => {
                // Flushed line by line: what streamed is on disk as it streams, so a crash of
                // the server keeps it (the next start rebuilds the answer from it).
                if let Some(raw) = raw {
                    return raw
                        .write_all(line.as_bytes())
                        .and_then(|_| raw.write_all(b"\n"))
                        .and_then(|_| raw.flush())
                        .err();
                }
            }
            RunMsg::Event(ev) => {
                if let Some(prime) = self.prime.as_mut() {
                    prime.start();
                }
                self.on_event(ev);
            }
            RunMsg::Note(message) => self.note(message),
            RunMsg::SteerRead { index } => self.steer_read(index),
            RunMsg::Asked(asked) => {
                let note = crate::server::approvals::asked(self.srv, self.tid, self.turn_id, asked);
                self.note(note);
            }
        }
        None
    }

    /// The CLI read the `index`-th steer handed to it: that input joined this turn.
    fn steer_read(&mut self, index: usize) {
        let input = {
            let steering = self.rt.steer.lock().unwrap_or_else(|p| p.into_inner());
            steering.as_ref().and_then(|s| s.sent.get(index).copied())
        };
        let Some(input) = input else {
            return;
        };
        let record = Record::InputSteered {
            input,
            turn_id: self.turn_id.to_string(),
        };
        if let Err(e) = self.srv.store.append(self.tid, record) {
            self.note(format!(
                "could not journal that input {input} joined the turn: {e}"
            ));
            return;
        }
        let prompt = self
            .srv
            .store
            .input(self.tid, input)
            .ok()
            .flatten()
            .map(|i| i.prompt)
            .unwrap_or_default();
        self.note(format!(
            "input {input} joined this turn: {}",
            prompt.lines().next().unwrap_or("")
        ));
        super::queue::joined(self.srv, self.rt, self.tid, input, self.turn_id);
    }

    fn on_event(&mut self, ev: TurnEvent) {
        // An interrupted Claude run ends with an error result (`aborted_streaming`): to the
        // user that is an interruption, not a failure.
        let ev = match ev {
            TurnEvent::End {
                status: TurnStatus::Failed,
                ..
            } if self.interrupted.load(Ordering::SeqCst) => TurnEvent::End {
                status: TurnStatus::Interrupted,
                error: None,
            },
            // A notice is the turn's note: sent as one and journalled among its notes.
            TurnEvent::Notice { message } => return self.note(message),
            other => other,
        };
        // Deltas build the answer as they come, so an interrupted stream keeps what arrived.
        self.tally.add(&ev);
        self.feed.push(Reply::Event {
            event: SendEvent::Turn { event: ev },
        });
    }
}

/// A fork's source session made findable for the run, with the system text it keeps
/// replaced by this conversation's ([`providers::Provider::prepare_fork`]); the copy is removed
/// after the run.
fn fork_copy(srv: &Server, spec: &RunSpec, plan: &Plan) -> Option<ForkCopy> {
    let kept = plan
        .conversation
        .fork
        .as_ref()
        .and_then(|f| f.system_text.as_deref());
    providers::of(spec.provider).prepare_fork(&srv.homes, spec, kept)
}

/// A turn's raw stream being synced, from its CLI's result on.
pub(super) struct RawSync {
    sync: tokio::task::JoinHandle<std::io::Result<()>>,
    path: PathBuf,
    tid: String,
}

impl RawSync {
    /// Waits for the sync. A failure goes to the server's log (the send's client has its reply
    /// by then); the turn's end is journalled either way.
    pub(super) async fn wait(self) {
        let error = match self.sync.await {
            Ok(Ok(())) => return,
            Ok(Err(e)) => e.to_string(),
            Err(e) => e.to_string(),
        };
        crate::log_line!(
            "baton server: {}: could not sync the raw stream in {}: {error}",
            self.tid,
            self.path.display()
        );
    }
}

/// Syncs the raw stream in the background once the CLI reported its result: the CLI still takes
/// a while to exit, and when nothing streams after the result the turn's end need not sync it
/// again. None (and the end syncs) when the stream cannot be flushed or its file cloned.
fn presync(
    raw: &mut std::io::BufWriter<std::fs::File>,
) -> Option<tokio::task::JoinHandle<std::io::Result<()>>> {
    raw.flush().ok()?;
    let file = raw.get_ref().try_clone().ok()?;
    Some(tokio::task::spawn_blocking(move || file.sync_data()))
}
