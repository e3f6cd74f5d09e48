//! Input the server owns: accepting a prompt (journalled and synced before it is acknowledged),
//! each terminal's runner (one task that takes waiting input in order and runs its turn), and
//! the changes waiting input allows (edit, withdraw, move, steer, jump).
//!
//! The queue is the journal's `Input*` records as the index orders them (`store::inputs`);
//! nothing of it lives only in memory, so every client sees the same queue and a crash or a
//! stop loses none of it: the next server start runs it in order. Decisions made here: a
//! steer that must wait (the turn ended first, or its CLI cannot take input mid-turn) runs
//! before queued input; a jump interrupts the running turn (its partial output kept, as
//! `baton interrupt`) and runs next.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::super::feed::Feed;
use super::super::state::{Server, TermRuntime};
use super::SendJob;
use crate::error::BatonError;
use crate::protocol::views::AcceptedView;
use crate::protocol::{QueueAction, Reply, SendEvent, SendModeArg};
use crate::store::{InputRow, Record, TerminalRow};
use crate::words::{InputMode, ProviderKind};

/// How soon a runner looks at the queue again while the index is behind its journals.
const INDEX_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

/// What a send asks for, checked ([`super::accept`] checks it).
pub struct Asked {
    pub terminal: TerminalRow,
    pub prompt: String,
    pub mode: SendModeArg,
    pub provider: Option<super::super::settings::ProviderChoice>,
    pub model: Option<String>,
    pub dir: Option<String>,
    pub fresh: bool,
}

/// Journals the input (synced: from here on it is the server's) and wakes the runner.
/// Returns the feed its turn will report to and what to tell the client.
pub fn enqueue(srv: &Arc<Server>, asked: Asked) -> Result<(Arc<Feed>, AcceptedView), BatonError> {
    let tid = asked.terminal.id.clone();
    let rt = srv.runtime(&tid);
    // A jump waits as queued input, at the head; only a steer waits as one.
    let mode = match asked.mode {
        SendModeArg::Steer => InputMode::Steer,
        SendModeArg::Queue | SendModeArg::Jump => InputMode::Queue,
    };
    let (number, feed, position, note) = {
        let _queue = rt.inputs_lock.lock().unwrap_or_else(|p| p.into_inner());
        still_there(srv, &tid, &asked.terminal.name)?;
        let waiting = srv.store.waiting_inputs(&tid)?;
        let busy = rt.taken().is_some() || rt.is_running();
        let number = next_number(srv, &rt, &tid)?;
        let prompt_text = asked.prompt.clone();
        srv.store.append(
            &tid,
            Record::InputAccepted {
                input: number,
                prompt: asked.prompt,
                mode,
                direct: !busy && waiting.is_empty(),
                provider: asked.provider.as_ref().map(|p| p.kind),
                endpoint: asked.provider.and_then(|p| p.endpoint),
                model: asked.model,
                dir: asked.dir,
                fresh: asked.fresh,
                retries: None,
            },
        )?;
        if asked.mode == SendModeArg::Jump {
            srv.store
                .append(&tid, Record::InputJumped { input: number })?;
        }
        let feed = feed_of(srv, &rt, &asked.terminal.name, number);
        let position = srv
            .store
            .input(&tid, number)?
            .and_then(|i| i.position)
            .unwrap_or(1);
        let ahead = position as usize - 1 + usize::from(busy);
        let handed = asked.mode == SendModeArg::Steer && hand_over(&rt, number, &prompt_text);
        // A steer handed to the running turn joins it: it waits for no turn to finish.
        if ahead > 0 && !handed {
            feed.push(Reply::Event {
                event: SendEvent::Queued { ahead },
            });
        }
        let waits = Waits {
            mode: asked.mode,
            busy,
            handed,
        };
        let note = waits.note(srv, &rt, &asked.terminal, number);
        if let Some(message) = &note {
            feed.push(Reply::Event {
                event: SendEvent::Note {
                    message: message.clone(),
                },
            });
        }
        (number, feed, position, note)
    };
    if asked.mode == SendModeArg::Jump {
        super::hold::release(&rt);
        interrupt_for_jump(&rt);
    }
    srv.announce(&tid);
    wake(srv, &tid);
    let view = AcceptedView {
        accepted: true,
        name: asked.terminal.name,
        input: number,
        position: Some(position),
        mode,
        note,
    };
    Ok((feed, view))
}

/// Checked again under the inputs lock, which prune and rm hold: a terminal archived and
/// pruned between `accept` and here must not get a journal of its input alone.
fn still_there(srv: &Server, tid: &str, name: &str) -> Result<(), BatonError> {
    match srv.store.terminal(tid)? {
        Some(t) if t.archived => Err(super::archived(name)),
        Some(t) if !t.removing => Ok(()),
        _ => Err(BatonError::bad_input(format!(
            "{name} was just removed: nothing was sent"
        ))),
    }
}

/// How input just accepted stands: how it was sent, whether a turn runs or starts, and
/// whether it was handed to the running turn as a steer.
struct Waits {
    mode: SendModeArg,
    busy: bool,
    handed: bool,
}

impl Waits {
    /// What input `number` of `terminal` is told about its wait, if anything: the index
    /// behind, a steer that waits, the queue held, the last turn's CLI slow to exit.
    fn note(
        &self,
        srv: &Server,
        rt: &TermRuntime,
        terminal: &TerminalRow,
        number: u32,
    ) -> Option<String> {
        let held = self.mode != SendModeArg::Jump && super::hold::is_held(rt);
        // Journalled but not indexed (a full disk): nothing runs until the index is rebuilt,
        // and a send that waited for its turn in silence would look hung.
        let behind = !srv.store.index_current();
        behind
            .then(|| index_behind_note(number))
            .or_else(|| steer_note(self.mode, terminal.provider, self.busy, self.handed))
            .or_else(|| held.then(|| super::hold::held_note(&terminal.name)))
            .or_else(|| {
                let exiting = rt.ending.slow()?;
                Some(slow_exit_note(&terminal.name, exiting.pid))
            })
    }
}

/// The input waiting while the last turn's CLI is slow to exit is told why it waits: under
/// the inputs lock, as [`enqueue`] tells input that comes later, so each is told once.
fn tell_slow_exit(rt: &TermRuntime, name: &str) {
    let _queue = rt.inputs_lock.lock().unwrap_or_else(|p| p.into_inner());
    let Some(exiting) = rt.ending.mark_slow() else {
        return;
    };
    let feeds: Vec<Arc<Feed>> = rt
        .feeds
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .values()
        .filter(|f| !f.is_done())
        .cloned()
        .collect();
    for feed in feeds {
        feed.push(Reply::Event {
            event: SendEvent::Note {
                message: slow_exit_note(name, exiting.pid),
            },
        });
    }
}

/// What input waiting for the last turn's CLI to exit is told once that takes long. Pure.
/// What input accepted while the index cannot be written is told (`render::INDEX_BEHIND` says
/// the same in `ls` and `show`).
fn index_behind_note(number: u32) -> String {
    format!(
        "input {number} is kept and waits: the index is behind the journals (a write to it failed: is the disk full? see server.log); it runs once the index is rebuilt (free space, then any command, or `baton reindex`)"
    )
}

fn slow_exit_note(name: &str, pid: i32) -> String {
    format!(
        "{name}'s last turn is over, but its CLI (pid {pid}) is still exiting: this prompt runs once it has (`baton interrupt {name}` stops it now)"
    )
}

/// What baton says of a steer: where it went.
fn steer_note(
    mode: SendModeArg,
    provider: ProviderKind,
    busy: bool,
    handed: bool,
) -> Option<String> {
    if mode != SendModeArg::Steer || !busy {
        return None;
    }
    Some(crate::providers::of(provider).steer_note(handed))
}

/// Hands input `number` to the running turn's CLI when it takes steers (Claude). The input
/// stays journalled as waiting until the CLI echoes it ([`joined`]); one it never read waits
/// again when the turn ends, and runs next.
fn hand_over(rt: &TermRuntime, number: u32, prompt: &str) -> bool {
    let mut steering = rt.steer.lock().unwrap_or_else(|p| p.into_inner());
    let Some(s) = steering.as_mut() else {
        return false;
    };
    if s.lines.send(prompt.to_string()).is_err() {
        return false;
    }
    s.sent.push(number);
    true
}

/// Input `number` joined the running turn `turn_id`: whoever follows its send is told so.
pub fn joined(srv: &Server, rt: &TermRuntime, tid: &str, number: u32, turn_id: &str) {
    let feed = rt
        .feeds
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&number);
    let Some(feed) = feed else {
        return;
    };
    let turn = srv
        .store
        .input(tid, number)
        .ok()
        .flatten()
        .and_then(|i| i.turn);
    let view = AcceptedView {
        accepted: true,
        name: feed.name(),
        input: number,
        position: None,
        mode: InputMode::Steer,
        note: Some(match turn {
            Some(t) => format!("it joined the running turn {t}"),
            None => format!("it joined the running turn ({turn_id})"),
        }),
    };
    feed.finish(Reply::answered(Ok(view.into())));
}

/// The next input number: above every one the index or this server used.
pub(super) fn next_number(srv: &Server, rt: &TermRuntime, tid: &str) -> Result<u32, BatonError> {
    let n = srv
        .store
        .last_input_number(tid)?
        .max(rt.last_input.load(Ordering::SeqCst))
        + 1;
    rt.last_input.store(n, Ordering::SeqCst);
    Ok(n)
}

/// The feed of input `n`'s turn (made when first asked for).
pub fn feed_of(srv: &Server, rt: &TermRuntime, name: &str, n: u32) -> Arc<Feed> {
    let mut feeds = rt.feeds.lock().unwrap_or_else(|p| p.into_inner());
    feeds
        .entry(n)
        .or_insert_with(|| Arc::new(Feed::new(name.to_string(), srv.watch.clone())))
        .clone()
}

/// At a stop, once turns have ended: the clients following input that still waits get a
/// final reply saying it runs at the next start (its runner stopped, so nothing else would
/// end those feeds).
pub fn end_waiting_feeds(rt: &TermRuntime) {
    let feeds: Vec<(u32, Arc<Feed>)> = rt
        .feeds
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .map(|(n, f)| (*n, f.clone()))
        .collect();
    for (n, feed) in feeds.into_iter().filter(|(_, f)| !f.is_done()) {
        feed.finish(Reply::Error {
            error: BatonError::failed(format!(
                "the baton server stopped: input {n} waits and runs when it starts again (see `baton queue {}`)",
                feed.name()
            )),
        });
    }
}

/// Interrupts the running turn for a jump (its partial output is kept, as an interrupt).
fn interrupt_for_jump(rt: &TermRuntime) {
    if let Err(e) = rt.interrupt() {
        crate::log_line!("baton server: cannot interrupt the turn for a jump: {e}");
    }
}

/// Makes sure terminal `tid` has a runner, and wakes it.
pub fn wake(srv: &Arc<Server>, tid: &str) {
    let rt = srv.runtime(tid);
    if !rt.runner.swap(true, Ordering::SeqCst) {
        tokio::spawn(runner(srv.clone(), tid.to_string()));
    }
    rt.wake.notify_one();
}

/// Runs terminal `tid`'s waiting input, one turn at a time, in order, until the server stops
/// or the terminal is removed.
async fn runner(srv: Arc<Server>, tid: String) {
    let rt = srv.runtime(&tid);
    loop {
        let woken = rt.wake.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        if srv.shutting_down.load(Ordering::SeqCst) {
            break;
        }
        // A new worktree's set-up runs before its first turn.
        crate::server::setup::wait(&srv, &tid).await;
        let guard = rt.turn_lock.clone().lock_owned().await;
        let next = match take(&srv, &rt, &tid) {
            Ok(next) => next,
            Err(e) => {
                crate::log_line!("baton server: cannot read the queue of {tid}: {e}");
                None
            }
        };
        let Some((terminal, input)) = next else {
            drop(guard);
            if !srv.store.index_current() {
                // The queue is read from the index: while it misses entries (a full disk),
                // nothing runs that might have run already. Look again soon.
                let _ = tokio::time::timeout(INDEX_RETRY, woken).await;
                continue;
            }
            if srv.store.terminal(&tid).ok().flatten().is_none() {
                break;
            }
            woken.await;
            continue;
        };
        let terminal_name = terminal.name.clone();
        let feed = feed_of(&srv, &rt, &terminal_name, input.number);
        let job = SendJob::from_input(terminal, &input);
        super::run(&srv, &rt, job, &feed).await;
        // A CLI started for a turn that never reached it (a stop, a refusal on the way).
        rt.prestarted.retire();
        srv.starts.release(&tid);
        rt.feeds
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&input.number);
        // Its input is no longer taken: `run` released it with the reply.
        rt.interrupt_pending.store(false, Ordering::SeqCst);
        // After the end of the turn, so watchers see its state change last.
        srv.announce(&tid);
        // A turn that ended at its result: its CLI exits meanwhile, and the next turn waits.
        rt.ending.wait(|| tell_slow_exit(&rt, &terminal_name)).await;
        drop(guard);
    }
    rt.runner.store(false, Ordering::SeqCst);
}

/// The next waiting input, marked taken (it can no longer change), with the terminal.
fn take(
    srv: &Server,
    rt: &TermRuntime,
    tid: &str,
) -> Result<Option<(TerminalRow, InputRow)>, BatonError> {
    let _queue = rt.inputs_lock.lock().unwrap_or_else(|p| p.into_inner());
    if !srv.store.index_current() || super::hold::is_held(rt) {
        return Ok(None);
    }
    let Some(terminal) = srv.store.terminal(tid)? else {
        return Ok(None);
    };
    let Some(input) = srv.store.waiting_inputs(tid)?.into_iter().next() else {
        return Ok(None);
    };
    rt.set_taken(Some(input.number));
    Ok(Some((terminal, input)))
}

/// `baton queue NAME edit|rm|move|steer|jump N`: refused once the input started.
pub fn change(
    srv: &Arc<Server>,
    t: &TerminalRow,
    number: u32,
    action: QueueAction,
) -> Result<Vec<crate::protocol::views::QueuedView>, BatonError> {
    let rt = srv.runtime(&t.id);
    let jumped = {
        let _queue = rt.inputs_lock.lock().unwrap_or_else(|p| p.into_inner());
        let input = waiting_input(srv, &rt, t, number)?;
        let record = match action {
            QueueAction::Edit { text } => {
                crate::validate::prompt(&text)?;
                Record::InputEdited {
                    input: number,
                    prompt: text,
                }
            }
            QueueAction::Rm => Record::InputWithdrawn { input: number },
            QueueAction::Move { position } => {
                if position == 0 {
                    return Err(BatonError::bad_input(
                        "positions start at 1 (1 = next to run)",
                    ));
                }
                Record::InputMoved {
                    input: number,
                    position: index_position(srv, &rt, &t.id, position)?,
                }
            }
            QueueAction::Steer => Record::InputModeChanged {
                input: number,
                mode: InputMode::Steer,
            },
            QueueAction::Jump => Record::InputJumped { input: number },
        };
        let jumped = matches!(record, Record::InputJumped { .. });
        let steered = matches!(record, Record::InputModeChanged { .. });
        srv.store.append(&t.id, record)?;
        if steered {
            hand_over(&rt, number, &input.prompt);
        }
        jumped
    };
    if jumped {
        super::hold::release(&rt);
        interrupt_for_jump(&rt);
    }
    srv.announce(&t.id);
    wake(srv, &t.id);
    super::super::read::queue(srv, t)
}

/// The index's position for list position `position`: the list leaves out the input the
/// runner took, which the index still counts until its turn starts.
fn index_position(
    srv: &Server,
    rt: &TermRuntime,
    tid: &str,
    position: u32,
) -> Result<u32, BatonError> {
    let taken_at = match rt.taken() {
        Some(n) => srv.store.input(tid, n)?.and_then(|i| i.position),
        None => None,
    };
    Ok(match taken_at {
        Some(p) if position >= p => position + 1,
        _ => position,
    })
}

/// Input `number` of `t`, if it still waits; else the error that says what became of it.
fn waiting_input(
    srv: &Server,
    rt: &TermRuntime,
    t: &TerminalRow,
    number: u32,
) -> Result<InputRow, BatonError> {
    let name = &t.name;
    let Some(input) = srv.store.input(&t.id, number)? else {
        return Err(BatonError::bad_input(format!(
            "{name} has no input {number} (see `baton queue {name}`)"
        )));
    };
    let started = |how: &str| match input.turn {
        Some(turn) => format!("input {number} already {how} turn {turn}"),
        None => format!("input {number} already started"),
    };
    let handed = rt
        .steer
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .is_some_and(|s| s.has(number));
    match input.state.as_str() {
        "waiting" if rt.taken() == Some(number) => Err(BatonError::bad_input(format!(
            "input {number} already started (its turn is starting now)"
        ))),
        "waiting" if handed => Err(BatonError::bad_input(format!(
            "input {number} was handed to the running turn (its CLI reads it at its next step)"
        ))),
        "waiting" => Ok(input),
        "withdrawn" => Err(BatonError::bad_input(format!(
            "input {number} was withdrawn"
        ))),
        "steered" => Err(BatonError::bad_input(started("joined"))),
        _ => Err(BatonError::bad_input(started("started as"))),
    }
}
