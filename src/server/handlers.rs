//! The server's answers to every request but `send`: creating, listing and inspecting
//! terminals, instructions, interrupting, status.

use std::path::Path;
use std::sync::atomic::Ordering;

use super::state::Server;
use crate::error::BatonError;
use crate::protocol::views::{InstructionView, InterruptedView, RenamedView, TerminalView};
use crate::protocol::InstructionsAction;
use crate::providers::process;
use crate::store::{Record, TerminalRow};
use crate::validate;
use crate::words::ProviderKind;

/// `baton new`.
pub fn new_terminal(
    srv: &Server,
    name: Option<String>,
    dir: &str,
    provider: Option<String>,
    model: Option<String>,
    brief: Option<String>,
    in_place: bool,
) -> Result<TerminalView, BatonError> {
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
    super::read::show(srv, &name)
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

pub fn instructions(
    srv: &Server,
    name: &str,
    action: InstructionsAction,
) -> Result<Vec<InstructionView>, BatonError> {
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
    Ok(srv.store.instructions(&t.id)?)
}

pub fn interrupt(srv: &Server, name: &str) -> Result<InterruptedView, BatonError> {
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
    Ok(InterruptedView {
        name: name.to_string(),
        turn_id,
        interrupted: true,
    })
}

/// `baton rename`: the terminal keeps its id, history, worktree and branch; only the name it is
/// known by changes. Refused while a turn runs or sends wait (they were started under the old
/// name), and when the new name is invalid or taken.
pub fn rename(srv: &Server, name: &str, new_name: &str) -> Result<RenamedView, BatonError> {
    let t = srv.terminal(name)?;
    validate::terminal_name(new_name)?;
    if new_name == name {
        return Ok(RenamedView {
            name: name.to_string(),
            old_name: name.to_string(),
        });
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
    Ok(RenamedView {
        name: new_name.to_string(),
        old_name: name.to_string(),
    })
}

fn busy_refusal(name: &str, what: &str) -> BatonError {
    BatonError::bad_input(format!(
        "{name} is running a turn or has prompts waiting: {what} it once they ended (or `baton interrupt {name}`)"
    ))
}
