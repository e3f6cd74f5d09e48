//! One turn, from accepted prompt to journalled result: queueing, gathering the facts, carrying
//! out the send path's decision, running the CLI, keeping its raw stream, and the fallback when
//! the session to resume is gone. A `local` endpoint's turn runs baton's own loop (`local.rs`).

mod local;

pub use local::remembered_endpoint;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::feed::Feed;
use super::handlers::ProviderChoice;
use super::state::{Running, Server, TermRuntime};
use crate::engine::{self, ConversationFacts, Decision, SendFacts, SessionFact};
use crate::error::BatonError;
use crate::protocol::{Reply, SendEvent, TurnSummary};
use crate::providers::{self, RunMsg, RunSpec, SessionMode, TurnOutcome};
use crate::store::{ConversationView, Record, TerminalRow};
use crate::words::{OpenReason, SessionReason};
use crate::words::{ProviderKind, TurnEvent, TurnStatus};

/// A validated send, ready to queue.
pub struct SendJob {
    pub terminal: TerminalRow,
    pub prompt: String,
    /// A switch of provider (and, for `local`, endpoint) from this turn on.
    pub provider: Option<ProviderChoice>,
    pub model: Option<String>,
    /// A checked, physical directory to move the terminal's runs to.
    pub dir: Option<String>,
}

/// Runs `job` to its end, reporting every step to `feed`. Never fails silently: any error ends
/// the feed with an error reply.
pub async fn run(srv: Arc<Server>, job: SendJob, feed: Arc<Feed>) {
    let rt = srv.runtime(&job.terminal.id);
    let ahead = rt.waiting.fetch_add(1, Ordering::SeqCst) + usize::from(is_busy(&rt));
    if ahead > 0 {
        feed.push(Reply::Event {
            event: SendEvent::Queued { ahead },
        });
    }
    let tid = job.terminal.id.clone();
    srv.announce(&tid);
    let guard = rt.turn_lock.clone().lock_owned().await;
    rt.waiting.fetch_sub(1, Ordering::SeqCst);
    let result = if srv.shutting_down.load(Ordering::SeqCst) {
        Err(BatonError::failed(
            "the baton server is shutting down; the prompt was not run",
        ))
    } else {
        run_locked(&srv, &rt, job, &feed).await
    };
    if let Ok(mut r) = rt.running.lock() {
        *r = None;
    }
    drop(guard);
    match result {
        Ok(summary) => match serde_json::to_value(&summary) {
            Ok(data) => feed.finish(Reply::Ok { data }),
            Err(e) => feed.finish(Reply::Error {
                error: BatonError::failed(e.to_string()),
            }),
        },
        Err(error) => feed.finish(Reply::Error { error }),
    }
    // After the end of the turn, so watchers see its state change last.
    srv.announce(&tid);
}

fn is_busy(rt: &TermRuntime) -> bool {
    rt.is_running() || rt.turn_lock.try_lock().is_err()
}

/// What the send path settled on for this turn.
struct Plan {
    conversation: ConversationView,
    opened: Option<OpenReason>,
    mode: SessionMode,
    session_reason: Option<SessionReason>,
    pinned_model: Option<String>,
}

async fn run_locked(
    srv: &Arc<Server>,
    rt: &Arc<TermRuntime>,
    job: SendJob,
    feed: &Feed,
) -> Result<TurnSummary, BatonError> {
    let tid = job.terminal.id.clone();
    let mut term = job.terminal;
    // A switch of provider, endpoint or model applies from this turn on.
    let (provider, endpoint) = job.provider.map_or_else(
        || (term.provider, term.endpoint.clone()),
        |c| (c.kind, c.endpoint),
    );
    let model = job.model.clone().or_else(|| {
        if provider == term.provider && endpoint == term.endpoint {
            term.model.clone()
        } else {
            None
        }
    });
    if provider != term.provider || endpoint != term.endpoint || model != term.model {
        srv.store.append(
            &tid,
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
    if let Some(dir) = job.dir.filter(|d| *d != term.dir) {
        srv.store
            .append(&tid, Record::DirChanged { dir: dir.clone() })?;
        term.source = dir.clone();
        term.dir = dir;
    }
    // The checkout may have moved since the last turn (rule 1 of the send path sees it).
    let checkout_notes = super::checkout::follow(srv, &mut term)?;
    for message in &checkout_notes {
        feed.push(Reply::Event {
            event: SendEvent::Note {
                message: message.clone(),
            },
        });
    }
    // Only the count and the live conversation's latest facts: never the whole history.
    let count = srv.store.turns_summary(&tid, None)?.count;
    let plan = plan(srv, rt, &term).await?;
    let turn_id = uuid::Uuid::now_v7().to_string();
    let number = count + 1;
    let interrupted = Arc::new(AtomicBool::new(false));
    if let Ok(mut r) = rt.running.lock() {
        *r = Some(Running {
            turn_id: turn_id.clone(),
            pid: None,
            interrupted: interrupted.clone(),
        });
    }
    srv.store.append(
        &tid,
        Record::TurnStarted {
            turn_id: turn_id.clone(),
            number,
            conversation_id: plan.conversation.id.clone(),
            provider,
            prompt: job.prompt.clone(),
        },
    )?;
    srv.announce(&tid);
    super::extract::spawn(
        srv.clone(),
        rt.clone(),
        tid.clone(),
        turn_id.clone(),
        job.prompt.clone(),
        provider,
    );
    feed.push(Reply::Event {
        event: SendEvent::Started {
            turn_id: turn_id.clone(),
            number,
            provider,
            conversation: plan.conversation.number,
            opened: plan.opened,
            rotate_at: engine::ROTATE_FRACTION,
            session: plan.session_reason.into(),
            prompt: job.prompt.clone(),
        },
    });
    let mut ctx = TurnCtx {
        srv,
        rt,
        tid: &tid,
        turn_id: &turn_id,
        feed,
        interrupted,
        answer: String::new(),
        tools: Vec::new(),
        notes: Vec::new(),
        saw_end: false,
    };
    let finished = ctx.execute(&term, &plan, &job.prompt).await;
    let (outcome, session_id, session_model) = match finished {
        Ok(v) => v,
        Err(e) => (
            TurnOutcome {
                status: Some(TurnStatus::Failed),
                error: Some(e.to_string()),
                ..TurnOutcome::default()
            },
            None,
            None,
        ),
    };
    ctx.notes.splice(0..0, checkout_notes);
    let status = outcome.status.unwrap_or(TurnStatus::Failed);
    let model = outcome.model.clone().or(session_model);
    // Every turn that changed files is committed, whatever its status.
    let facts = super::checkout::TurnFacts {
        prompt: &job.prompt,
        conversation: &plan.conversation.id,
        provider: provider.as_str(),
        session: session_id.as_deref().unwrap_or("none"),
        number,
    };
    let commit = match super::checkout::commit_turn(&term, facts).await {
        Ok(c) => c,
        Err(e) => {
            ctx.note(format!(
                "the automatic commit failed: {e} (the files are still in {})",
                term.dir
            ));
            None
        }
    };
    if let Some(commit) = &commit {
        srv.store.append(
            &tid,
            Record::TurnCommitted {
                turn_id: turn_id.clone(),
                commit: commit.clone(),
            },
        )?;
    }
    srv.store.append(
        &tid,
        Record::TurnFinished {
            turn_id: turn_id.clone(),
            status,
            error: outcome.error.clone(),
            session_id: session_id.clone(),
            model: model.clone(),
            context: outcome.context,
            answer: ctx.answer.clone(),
            tools: ctx.tools.clone(),
            notes: ctx.notes.clone(),
        },
    )?;
    let unusable_cli =
        status == TurnStatus::Failed && !ctx.saw_end && !ctx.interrupted.load(Ordering::SeqCst);
    Ok(TurnSummary {
        commit,
        turn_id,
        number,
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
    })
}

/// Gathers the facts, asks the send path, and opens a conversation when it says so.
async fn plan(srv: &Server, rt: &TermRuntime, term: &TerminalRow) -> Result<Plan, BatonError> {
    let run_dir = PathBuf::from(&term.dir);
    let live = srv.store.live_conversation(&term.id)?;
    let facts_conv = match live.as_ref() {
        Some(c) => Some(conversation_facts(srv, c)?),
        None => None,
    };
    let session_on_disk = match facts_conv.as_ref().and_then(|c| c.session.as_ref()) {
        Some(s) if s.provider == term.provider => session_on_disk(srv, s, &run_dir),
        _ => false,
    };
    let facts = SendFacts {
        conversation: facts_conv,
        run_dir: run_dir.clone(),
        provider: term.provider,
        session_on_disk,
    };
    let decision = engine::decide(&facts);
    let (conversation, opened) = match (&decision, live) {
        (Decision::OpenConversation { reason }, prev) => {
            // The fresh conversation opens with every line of the prompts before it.
            super::extract::settle(rt).await;
            let number = prev.map_or(0, |p| p.number) + 1;
            (
                open_conversation(srv, term, &run_dir, number, *reason)?,
                Some(*reason),
            )
        }
        (_, Some(c)) => (c, None),
        (_, None) => {
            return Err(BatonError::failed(
                "internal: no live conversation to continue",
            ))
        }
    };
    let (mode, session_reason, pinned_model) = match decision {
        Decision::Resume { session_id } => {
            let pinned = srv
                .store
                .sessions(&conversation.id)?
                .into_iter()
                .rev()
                .find(|s| s.session_id == session_id)
                .and_then(|s| s.model);
            (SessionMode::Resume { session_id }, None, pinned)
        }
        Decision::NewSession { reason } => (new_mode(term.provider), Some(reason), None),
        Decision::OpenConversation { .. } => {
            (new_mode(term.provider), Some(SessionReason::Fresh), None)
        }
    };
    Ok(Plan {
        conversation,
        opened,
        mode,
        session_reason,
        pinned_model,
    })
}

fn new_mode(provider: ProviderKind) -> SessionMode {
    match provider {
        // Claude lets the caller choose the id, so it is known before the CLI says anything;
        // a local loop's id is baton's own.
        ProviderKind::Claude | ProviderKind::Local => SessionMode::New {
            session_id: Some(uuid::Uuid::new_v4().to_string()),
        },
        ProviderKind::Codex => SessionMode::New { session_id: None },
    }
}

fn conversation_facts(srv: &Server, c: &ConversationView) -> Result<ConversationFacts, BatonError> {
    let state = srv.store.conversation_state(&c.id)?;
    Ok(ConversationFacts {
        dir: PathBuf::from(&c.dir),
        context: state.context,
        session: state.session.map(|(provider, session_id)| SessionFact {
            provider,
            session_id,
        }),
    })
}

fn session_on_disk(srv: &Server, s: &SessionFact, cwd: &Path) -> bool {
    match s.provider {
        ProviderKind::Claude => providers::claude::session_exists(&srv.homes, cwd, &s.session_id),
        ProviderKind::Codex => {
            providers::codex::find_rollout(&srv.homes.codex, &s.session_id).is_some()
        }
        // A local loop lives in baton's own journal.
        ProviderKind::Local => true,
    }
}

fn open_conversation(
    srv: &Server,
    term: &TerminalRow,
    run_dir: &Path,
    number: u32,
    reason: OpenReason,
) -> Result<ConversationView, BatonError> {
    let instructions: Vec<String> = srv
        .store
        .instructions(&term.id)?
        .into_iter()
        .map(|i| i.text)
        .collect();
    let system_text = engine::system_text::build(
        run_dir,
        &srv.screenshots(&term.id),
        term.brief.as_deref(),
        &instructions,
    );
    let id = uuid::Uuid::now_v7().to_string();
    let entry = srv.store.append(
        &term.id,
        Record::ConversationOpened {
            conversation_id: id.clone(),
            number,
            reason,
            dir: run_dir.to_string_lossy().into_owned(),
            system_text: system_text.clone(),
        },
    )?;
    Ok(ConversationView {
        id,
        number,
        opened_reason: reason.as_str().to_string(),
        dir: run_dir.to_string_lossy().into_owned(),
        system_text,
        opened_at: entry.at,
        retired_at: None,
    })
}

/// Codex's `workspace-write` sandbox also leaves `/tmp` and `$TMPDIR` writable unless told
/// otherwise: exclude both and give commands a temporary folder inside the fence instead
/// (`<terminal>/tmp`, added as a writable root and set as TMPDIR).
fn fence(srv: &Server, tid: &str, spec: &mut RunSpec) {
    if spec.provider != ProviderKind::Codex || spec.sandbox.as_deref() != Some("workspace-write") {
        return;
    }
    let tmp = srv.store.data_dir().terminal(tid).join("tmp");
    if crate::paths::ensure_private_dir(&tmp).is_err() {
        return;
    }
    let mut args: Vec<String> = [
        "-c",
        "sandbox_workspace_write.exclude_slash_tmp=true",
        "-c",
        "sandbox_workspace_write.exclude_tmpdir_env_var=true",
    ]
    .map(String::from)
    .to_vec();
    args.append(&mut spec.extra_args);
    spec.extra_args = args;
    spec.add_dirs.push(tmp.clone());
    spec.env
        .push(("TMPDIR".to_string(), tmp.to_string_lossy().into_owned()));
}

/// The running turn's context: where its output goes.
struct TurnCtx<'a> {
    srv: &'a Arc<Server>,
    rt: &'a Arc<TermRuntime>,
    tid: &'a str,
    turn_id: &'a str,
    feed: &'a Feed,
    interrupted: Arc<AtomicBool>,
    answer: String,
    tools: Vec<String>,
    notes: Vec<String>,
    /// The CLI ended the turn itself (a result / turn end event).
    saw_end: bool,
}

impl TurnCtx<'_> {
    fn note(&mut self, message: String) {
        self.feed.push(Reply::Event {
            event: SendEvent::Note {
                message: message.clone(),
            },
        });
        self.notes.push(message);
    }

    /// Runs the CLI; on a resume whose session is gone, starts a fresh session in the same
    /// conversation and runs the prompt there. Returns the outcome, the turn's session id and
    /// the model its session is pinned to.
    async fn execute(
        &mut self,
        term: &TerminalRow,
        plan: &Plan,
        prompt: &str,
    ) -> Result<(TurnOutcome, Option<String>, Option<String>), BatonError> {
        let srv = self.srv.clone();
        let provider = term.provider;
        if provider == ProviderKind::Local {
            return self.execute_local(term, plan, prompt).await;
        }
        let bin = srv.resolve_bin(provider)?;
        let pcfg = srv.config.provider(provider);
        let mut spec = RunSpec {
            provider,
            bin,
            cwd: PathBuf::from(&plan.conversation.dir),
            session: plan.mode.clone(),
            model: term
                .model
                .clone()
                .or(plan.pinned_model.clone())
                .or(pcfg.model.clone()),
            system_text: plan.conversation.system_text.clone(),
            permission_mode: if provider == ProviderKind::Claude {
                srv.config.permission_mode()
            } else {
                None
            },
            sandbox: if provider == ProviderKind::Codex {
                srv.config.sandbox()
            } else {
                None
            },
            add_dirs: vec![srv.screenshots(self.tid)],
            extra_args: pcfg.args.clone(),
            env: Vec::new(),
        };
        fence(&srv, self.tid, &mut spec);
        if let Some(warning) = srv
            .fence_checks
            .warning(&spec, srv.path_var.as_deref())
            .await
        {
            self.note(warning);
        }
        let mut reason = plan.session_reason;
        let mut outcome = self.run_cli(&spec, prompt).await?;
        if let SessionMode::Resume { session_id } = &spec.session {
            if outcome.session_not_found && !self.interrupted.load(Ordering::SeqCst) {
                self.note(format!(
                    "cannot resume {provider} session {session_id}: the CLI no longer has it; starting a fresh session in the same conversation"
                ));
                spec.session = new_mode(provider);
                spec.model = term.model.clone().or(pcfg.model.clone());
                reason = Some(SessionReason::Lost);
                outcome = self.run_cli(&spec, prompt).await?;
            }
        }
        let session_id = match &spec.session {
            SessionMode::Resume { session_id } => Some(session_id.clone()),
            SessionMode::New { session_id } => outcome.session_id.clone().or(session_id.clone()),
        };
        let mut pinned = spec.model.clone();
        if let (Some(reason), Some(sid)) = (reason, &session_id) {
            if outcome.session_id.is_some() {
                pinned = outcome.model.clone().or(spec.model.clone());
                srv.store.append(
                    self.tid,
                    Record::SessionStarted {
                        conversation_id: plan.conversation.id.clone(),
                        turn_id: self.turn_id.to_string(),
                        provider,
                        session_id: sid.clone(),
                        model: pinned.clone(),
                        reason,
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
        Ok((outcome, session_id, pinned))
    }

    /// One CLI run: raw lines to the turn file, events to the feed.
    async fn run_cli(&mut self, spec: &RunSpec, prompt: &str) -> Result<TurnOutcome, BatonError> {
        let srv = self.srv.clone();
        let path = srv.turn_file(self.tid, self.turn_id);
        // Checked before the CLI starts: a turn whose raw stream cannot be kept does not run.
        crate::paths::open_private_append(&path)
            .map_err(|e| BatonError::failed(format!("cannot write {}: {e}", path.display())))?;
        let (tx, rx) = tokio::sync::mpsc::channel::<RunMsg>(1024);
        let spec2 = spec.clone();
        let prompt = prompt.as_bytes().to_vec();
        let interrupted = self.interrupted.clone();
        let task = tokio::spawn(async move {
            providers::run::run_turn(
                &spec2,
                &prompt,
                &srv.homes,
                srv.path_var.as_deref(),
                tx,
                interrupted,
            )
            .await
        });
        self.pump(rx).await;
        let outcome = task
            .await
            .map_err(|e| BatonError::failed(format!("the {} run crashed: {e}", spec.provider)))?
            .map_err(|e| BatonError::failed(e.to_string()))?;
        Ok(outcome)
    }

    /// Feeds a run's messages to the turn until the run ends: raw lines to the turn file,
    /// events to the feed.
    async fn pump(&mut self, mut rx: tokio::sync::mpsc::Receiver<RunMsg>) {
        let path = self.srv.turn_file(self.tid, self.turn_id);
        let (mut raw, mut write_err) = match crate::paths::open_private_append(&path) {
            Ok(f) => (Some(std::io::BufWriter::new(f)), None),
            Err(e) => (None, Some(e)),
        };
        while let Some(msg) = rx.recv().await {
            if let Some(e) = self.on_msg(msg, raw.as_mut()) {
                write_err.get_or_insert(e);
            }
        }
        if let Some(raw) = raw.as_mut() {
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
    }

    /// One message of a run; returns a failure to write the raw stream.
    fn on_msg(
        &mut self,
        msg: RunMsg,
        raw: Option<&mut std::io::BufWriter<std::fs::File>>,
    ) -> Option<std::io::Error> {
        match msg {
            RunMsg::Started { pid } => {
                // Recorded and checked under one lock (see `handlers::interrupt`): an
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
            }
            RunMsg::Raw(line) => {
                if let Some(raw) = raw {
                    return raw
                        .write_all(line.as_bytes())
                        .and_then(|_| raw.write_all(b"\n"))
                        .err();
                }
            }
            RunMsg::Event(ev) => self.on_event(ev),
            RunMsg::Note(message) => self.note(message),
        }
        None
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
            other => other,
        };
        // Deltas build the answer as they come, so an interrupted stream keeps what arrived.
        ev.add_to_answer(&mut self.answer);
        match &ev {
            TurnEvent::ToolUse { summary, .. } => self.tools.push(summary.clone()),
            TurnEvent::End { .. } => self.saw_end = true,
            TurnEvent::Session { .. }
            | TurnEvent::Text { .. }
            | TurnEvent::Delta { .. }
            | TurnEvent::Usage { .. }
            | TurnEvent::Warning { .. } => {}
        }
        self.feed.push(Reply::Event {
            event: SendEvent::Turn { event: ev },
        });
    }
}
