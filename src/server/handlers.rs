//! The server's answers to every request but `send`: creating, listing and inspecting
//! terminals, instructions, interrupting, status.

use std::path::Path;
use std::sync::atomic::Ordering;

use serde_json::{json, Value};

use super::state::Server;
use crate::error::BatonError;
use crate::protocol::InstructionsAction;
use crate::providers::{process, ProviderKind, TurnStatus};
use crate::store::{Record, TerminalRow, TurnView};
use crate::validate;

/// `baton new`.
pub fn new_terminal(
    srv: &Server,
    name: Option<String>,
    dir: &str,
    provider: Option<String>,
    model: Option<String>,
    brief: Option<String>,
    in_place: bool,
) -> Result<Value, BatonError> {
    let canonical = existing_dir(dir)?;
    let ProviderChoice { kind, endpoint } = choose_provider(srv, provider.as_deref(), None)?
        .unwrap_or(ProviderChoice {
            kind: ProviderKind::Claude,
            endpoint: None,
        });
    let name = match name {
        Some(n) => n,
        None => free_name(srv, &validate::name_from_dir(Path::new(&canonical)))?,
    };
    validate::terminal_name(&name)?;
    if let Some(m) = &model {
        validate_model(m)?;
    }
    if srv.store.terminal_id(&name)?.is_some() {
        return Err(BatonError::bad_input(format!(
            "a terminal named {name:?} already exists (pick another name, or use it: `baton send {name} …`)"
        )));
    }
    let brief = brief.filter(|b| !b.trim().is_empty());
    let tid = uuid::Uuid::now_v7().to_string();
    let (mode, run_dir, worktree) =
        super::checkout::open(srv, &name, &tid, Path::new(&canonical), in_place)?;
    srv.store.append(
        &tid,
        Record::TerminalCreated {
            terminal_id: tid.clone(),
            name: name.clone(),
            dir: run_dir.to_string_lossy().into_owned(),
            source: canonical,
            mode,
            worktree,
            provider: kind,
            model,
            brief,
            endpoint,
        },
    )?;
    srv.announce(&tid);
    if let Some(t) = srv.store.terminal(&tid)? {
        srv.watch_files(&t);
    }
    show(srv, &name)
}

/// The physical path of an existing directory given with `--dir`.
pub fn existing_dir(dir: &str) -> Result<String, BatonError> {
    let canonical = Path::new(dir).canonicalize().map_err(|e| {
        BatonError::bad_input(format!(
            "--dir {dir}: {e} (create the directory first or fix the path)"
        ))
    })?;
    if !canonical.is_dir() {
        return Err(BatonError::bad_input(format!(
            "--dir {dir} is not a directory"
        )));
    }
    Ok(canonical.to_string_lossy().into_owned())
}

fn free_name(srv: &Server, base: &str) -> Result<String, BatonError> {
    if srv.store.terminal_id(base)?.is_none() {
        return Ok(base.to_string());
    }
    for i in 2..1000 {
        let n = format!("{base}-{i}");
        if srv.store.terminal_id(&n)?.is_none() {
            return Ok(n);
        }
    }
    Err(BatonError::bad_input(
        "could not find a free terminal name: pass one",
    ))
}

/// A provider name as typed (`claude`, `codex`, `local`, `local:ENDPOINT`); the endpoint is
/// left to [`choose_provider`].
pub fn parse_provider(p: Option<&str>) -> Result<Option<ProviderKind>, BatonError> {
    match p {
        None => Ok(None),
        Some(s) => {
            let kind = s.strip_prefix("local:").map_or(s, |_| "local");
            match ProviderKind::parse(kind) {
                Some(k) => Ok(Some(k)),
                None => Err(BatonError::bad_input(format!(
                    "unknown provider {s:?} (use claude, codex or local[:ENDPOINT])"
                ))),
            }
        }
    }
}

/// A provider with, for `local`, the configured endpoint it runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderChoice {
    pub kind: ProviderKind,
    pub endpoint: Option<String>,
}

/// What `--provider` asks for: `local` takes the endpoint named, else the terminal's own, else
/// the only one configured, and it must be configured. With no `--provider`, a local
/// terminal's endpoint is checked the same way (None is returned: nothing changes).
pub fn choose_provider(
    srv: &Server,
    requested: Option<&str>,
    terminal: Option<&TerminalRow>,
) -> Result<Option<ProviderChoice>, BatonError> {
    let kind = parse_provider(requested)?;
    let named = requested.and_then(|s| s.strip_prefix("local:"));
    let (kind, named) = match (kind, terminal) {
        (Some(k), _) => (k, named),
        (None, Some(t)) => (t.provider, t.endpoint.as_deref()),
        (None, None) => return Ok(None),
    };
    let endpoint = match kind {
        ProviderKind::Local => {
            // The terminal's own: the one it runs on, else (back from another provider) the
            // one it last ran on.
            let own = match terminal {
                Some(t) if t.provider == ProviderKind::Local => t.endpoint.clone(),
                Some(t) if named.is_none() => super::turn::remembered_endpoint(srv, &t.id)?,
                _ => None,
            };
            let (name, _) = srv
                .config
                .endpoint(named.or(own.as_deref()))
                .map_err(BatonError::bad_input)?;
            Some(name)
        }
        ProviderKind::Claude | ProviderKind::Codex => None,
    };
    Ok(requested.map(|_| ProviderChoice { kind, endpoint }))
}

pub fn validate_model(m: &str) -> Result<(), BatonError> {
    if m.trim().is_empty() || m.chars().any(char::is_control) || m.starts_with('-') {
        return Err(BatonError::bad_input(format!(
            "invalid model name {m:?} (e.g. sonnet, opus, gpt-5.5)"
        )));
    }
    Ok(())
}

/// True while a turn runs on the terminal or sends wait for it.
pub fn busy(srv: &Server, tid: &str) -> bool {
    let rt = srv.runtime(tid);
    rt.is_running() || rt.waiting.load(Ordering::SeqCst) > 0
}

/// The terminal's state as the list shows it.
fn state(srv: &Server, t: &TerminalRow, last: Option<&TurnView>) -> &'static str {
    let rt = srv.runtime(&t.id);
    let running = rt.is_running();
    if running {
        "running"
    } else if rt.waiting.load(Ordering::SeqCst) > 0 {
        "queued"
    } else if last.and_then(|l| l.status) == Some(TurnStatus::Failed) {
        "failed"
    } else {
        "idle"
    }
}

/// The object `show --json` prints (and `ls --json` lists).
pub fn terminal_json(srv: &Server, t: &TerminalRow) -> Result<Value, BatonError> {
    // Runs at every queue, start and end of a turn (watchers): no full history read here.
    let conv = srv.store.live_conversation(&t.id)?;
    let turns = srv
        .store
        .turns_summary(&t.id, conv.as_ref().map(|c| c.id.as_str()))?;
    let (conversation, sessions, context) = match &conv {
        None => (Value::Null, vec![], Value::Null),
        Some(c) => {
            let sessions = srv.store.sessions(&c.id)?;
            let ctx = turns.context;
            (
                json!({"id": c.id, "number": c.number, "opened_reason": c.opened_reason, "opened_at": c.opened_at, "dir": c.dir}),
                sessions,
                ctx.map(
                    |c| json!({"tokens": c.tokens, "window": c.window, "fraction": c.fraction()}),
                )
                .unwrap_or(Value::Null),
            )
        }
    };
    let instructions: Vec<String> = srv
        .store
        .instructions(&t.id)?
        .into_iter()
        .map(|i| i.text)
        .collect();
    let last = turns.last.as_ref();
    Ok(json!({
        "name": t.name,
        "id": t.id,
        "dir": t.dir,
        "checkout": super::checkout::json(t),
        "provider": t.provider,
        "endpoint": t.endpoint,
        "model": t.model,
        "brief": t.brief,
        "state": state(srv, t, last),
        "queued": srv.runtime(&t.id).waiting.load(Ordering::SeqCst),
        "created_at": t.created_at,
        "conversation": conversation,
        "sessions": sessions,
        "context": context,
        "instructions": instructions,
        "turns": turns.count,
        "last_turn": last.map(|l| json!({"number": l.number, "status": l.status, "error": l.error})),
    }))
}

pub fn show(srv: &Server, name: &str) -> Result<Value, BatonError> {
    let t = srv.terminal(name)?;
    terminal_json(srv, &t)
}

pub fn ls(srv: &Server) -> Result<Value, BatonError> {
    let mut out = Vec::new();
    for t in srv.store.terminals()? {
        out.push(terminal_json(srv, &t)?);
    }
    Ok(Value::Array(out))
}

pub fn log(srv: &Server, name: &str) -> Result<Value, BatonError> {
    let t = srv.terminal(name)?;
    let conversations = srv.store.conversations(&t.id)?;
    let mut convs = Vec::new();
    for c in &conversations {
        let sessions = srv.store.sessions(&c.id)?;
        let mut v = serde_json::to_value(c).map_err(|e| BatonError::failed(e.to_string()))?;
        v["sessions"] =
            serde_json::to_value(sessions).map_err(|e| BatonError::failed(e.to_string()))?;
        convs.push(v);
    }
    let turns = srv.store.turns(&t.id)?;
    let turns: Vec<Value> = turns
        .into_iter()
        .map(|x| {
            let number = conversations
                .iter()
                .find(|c| c.id == x.conversation_id)
                .map(|c| c.number);
            let mut v = serde_json::to_value(&x).unwrap_or(Value::Null);
            v["conversation"] = json!(number);
            v
        })
        .collect();
    Ok(json!({"name": t.name, "conversations": convs, "turns": turns}))
}

pub fn instructions(
    srv: &Server,
    name: &str,
    action: InstructionsAction,
) -> Result<Value, BatonError> {
    let t = srv.terminal(name)?;
    let rt = srv.runtime(&t.id);
    match action {
        InstructionsAction::List => {}
        InstructionsAction::Add { text } => {
            let text = text.trim().to_string();
            if text.is_empty() || text.chars().any(|c| c.is_control() && c != '\t') {
                return Err(BatonError::bad_input(
                    "an instruction is one non-empty line of text (no newlines or control characters)",
                ));
            }
            if super::extract::keep(srv, &rt, &t.id, None, std::slice::from_ref(&text))?.is_empty()
            {
                return Err(BatonError::bad_input(format!(
                    "{name} already has that instruction"
                )));
            }
        }
        InstructionsAction::Rm { number } => {
            let _guard = rt
                .instructions_lock
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let current = srv.store.instructions(&t.id)?;
            let Some(i) = current.iter().find(|i| i.number == number) else {
                return Err(BatonError::bad_input(format!(
                    "{name} has no instruction {number} (it has {}; see `baton instructions {name}`)",
                    current.len()
                )));
            };
            srv.store.append(
                &t.id,
                Record::InstructionRemoved {
                    text: i.text.clone(),
                },
            )?;
        }
        InstructionsAction::Clear => {
            let _guard = rt
                .instructions_lock
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if !srv.store.instructions(&t.id)?.is_empty() {
                srv.store.append(&t.id, Record::InstructionsCleared)?;
            }
        }
    }
    srv.announce(&t.id);
    let list = srv.store.instructions(&t.id)?;
    serde_json::to_value(list).map_err(|e| BatonError::failed(e.to_string()))
}

pub fn interrupt(srv: &Server, name: &str) -> Result<Value, BatonError> {
    let t = srv.terminal(name)?;
    let rt = srv.runtime(&t.id);
    // The flag is set and the pid read under the lock the turn holds to record its pid and
    // read the flag: whichever comes second sends the signal, exactly once.
    let marked = rt.running.lock().ok().and_then(|r| {
        r.as_ref().map(|run| {
            run.interrupted.store(true, Ordering::SeqCst);
            (run.turn_id.clone(), run.pid)
        })
    });
    let Some((turn_id, pid)) = marked else {
        return Err(BatonError::failed(format!(
            "{name} has no running turn to interrupt"
        )));
    };
    if let Some(pid) = pid {
        process::interrupt(pid)
            .map_err(|e| BatonError::failed(format!("cannot interrupt {name}: {e}")))?;
    }
    Ok(json!({"name": name, "turn_id": turn_id, "interrupted": true}))
}

pub fn status(srv: &Server) -> Result<Value, BatonError> {
    let terminals = srv.store.terminals()?.len();
    let running = srv
        .all_runtimes()
        .iter()
        .filter(|(_, rt)| rt.is_running())
        .count();
    Ok(json!({
        "running": true,
        "pid": std::process::id(),
        "data_dir": srv.data_root(),
        "uptime_secs": srv.started.elapsed().as_secs(),
        "terminals": terminals,
        "running_turns": running,
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

/// `baton rename`: the terminal keeps its id, history, worktree and branch; only the name it is
/// known by changes. Refused while a turn runs or sends wait (they were started under the old
/// name), and when the new name is invalid or taken.
pub fn rename(srv: &Server, name: &str, new_name: &str) -> Result<Value, BatonError> {
    let t = srv.terminal(name)?;
    validate::terminal_name(new_name)?;
    if new_name == name {
        return Ok(json!({"name": name, "old_name": name}));
    }
    if srv.store.terminal_id(new_name)?.is_some() {
        return Err(BatonError::bad_input(format!(
            "a terminal named {new_name:?} already exists: pick another name"
        )));
    }
    let rt = srv.runtime(&t.id);
    // Holding the turn lock keeps a send from starting while the name changes.
    let Ok(_turn) = rt.turn_lock.try_lock() else {
        return Err(busy_refusal(name, "rename"));
    };
    if busy(srv, &t.id) {
        return Err(busy_refusal(name, "rename"));
    }
    srv.store.append(
        &t.id,
        Record::Renamed {
            name: new_name.to_string(),
        },
    )?;
    let _ = srv.watch.send(crate::protocol::WatchEvent::Renamed {
        name: name.to_string(),
        new_name: new_name.to_string(),
    });
    srv.announce(&t.id);
    Ok(json!({"name": new_name, "old_name": name}))
}

fn busy_refusal(name: &str, what: &str) -> BatonError {
    BatonError::bad_input(format!(
        "{name} is running a turn or has prompts waiting: {what} it once they ended (or `baton interrupt {name}`)"
    ))
}
