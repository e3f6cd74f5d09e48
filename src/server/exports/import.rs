//! Reading an export back: every member checked against the manifest before anything is
//! written (`staging.rs`), the terminal id and name checked free and every id of the journal
//! checked (never a path, never another terminal's here), then the checkout (a worktree on
//! `baton/<name>` in the repository `--dir` names, at the exported head commit when it is
//! there; else a plain folder), the CLI session files (`placing.rs`), the turn streams, and the
//! journal written whole: the exported bytes, then `imported` (the new name and checkout, the
//! live conversation re-pointed at it), then a `turn_finished` (interrupted) for a turn that
//! was running at export and an `input_withdrawn` for input that was waiting. Waiting input is
//! withdrawn rather than kept: it would otherwise start by itself at the next server start in
//! a checkout the user has not looked at yet; the notes name each prompt so it can be sent
//! again. An archived terminal is unarchived: the user asked for it by importing it.

use std::fs;
use std::path::{Path, PathBuf};

use super::carry::{self, Live};
use super::manifest::{self, ArchiveError, Manifest};
use super::placing;
use super::staging::{self, Staged};
use crate::engine::system_text::{repoint, session_text, Place};
use crate::error::BatonError;
use crate::git::{self, RepoState, Worktree};
use crate::protocol::views::ImportView;
use crate::server::recover::streamed;
use crate::server::settings::existing_dir;
use crate::server::state::Server;
use crate::store::journal::parse;
use crate::store::{Entry, IdKind, ImportedFrom, Record, Repointed};
use crate::validate;
use crate::words::{CheckoutMode, TurnStatus};

/// What `baton import` was asked: the zip, `--name`, `--dir`, `--max-size` (bytes).
pub struct Asked {
    pub file: String,
    pub name: Option<String>,
    pub dir: Option<String>,
    pub max_size: Option<u64>,
}

pub fn import(srv: &Server, asked: Asked) -> Result<ImportView, BatonError> {
    let plan = plan(srv, asked)?;
    carry_out(srv, plan)
}

/// Everything an import will do, checked; nothing is written yet (but the archive, unpacked
/// in a folder that goes with the plan).
struct Plan {
    m: Manifest,
    staged: Staged,
    journal: Vec<u8>,
    entries: Vec<Entry>,
    name: String,
    checkout: Checkout,
    repointed: Option<Repointed>,
    placements: Vec<placing::Placement>,
    notes: Vec<String>,
}

fn plan(srv: &Server, asked: Asked) -> Result<Plan, BatonError> {
    let Asked {
        file,
        name,
        dir,
        max_size,
    } = asked;
    let file = file.as_str();
    if let Some(n) = &name {
        validate::terminal_name(n)?;
    }
    let dir = dir.as_deref().map(existing_dir).transpose()?;
    let max = max_size.unwrap_or(staging::DEFAULT_MAX_BYTES);
    let (m, staged) = staging::unpack(file, srv.data_root(), max)?;
    let journal = staged.read(manifest::JOURNAL)?.ok_or_else(|| {
        BatonError::bad_input(format!(
            "cannot import {file}: {}; nothing was imported",
            ArchiveError::Absent(manifest::JOURNAL.to_string())
        ))
    })?;
    let entries = parse(&journal).entries;
    let tid = m.terminal.id.clone();
    check_journal(&entries, &tid, file)?;
    check_free(srv, &tid, &m)?;
    check_ids(srv, &entries, &tid, file)?;
    let name = name.unwrap_or_else(|| m.terminal.name.clone());
    validate::terminal_name(&name)?;
    if srv.store.terminal_id(&name)?.is_some() {
        return Err(BatonError::bad_input(format!(
            "a terminal named {name:?} already exists here: pass --name NEW to import it under another name"
        )));
    }
    let mut notes = Vec::new();
    let checkout = plan_checkout(srv, &m, &name, &tid, dir.as_deref(), &mut notes)?;
    let run_dir = checkout.run_dir();
    let live = carry::live_conversation(&entries).filter(|c| c.dir == m.terminal.dir);
    let repointed = live
        .as_ref()
        .map(|c| repointed(c, &m, &run_dir, &srv.screenshots(&tid)));
    let rewrites = rewrites(live.as_ref(), repointed.as_ref());
    let placements = placing::plan(&srv.homes, &run_dir, &m, &staged, &rewrites)?;
    notes.extend(placing::notes(&placements));
    Ok(Plan {
        m,
        staged,
        journal,
        entries,
        name,
        checkout,
        repointed,
        placements,
        notes,
    })
}

/// The live conversation `c`, carrying on in `run_dir`, told so.
fn repointed(c: &Live, m: &Manifest, run_dir: &Path, screenshots: &Path) -> Repointed {
    Repointed {
        conversation_id: c.conversation_id.clone(),
        dir: run_dir.to_string_lossy().into_owned(),
        system_text: repoint(
            &c.system_text,
            Place {
                checkout: Path::new(&m.terminal.dir),
                screenshots: Path::new(&m.terminal.screenshots),
            },
            Place {
                checkout: run_dir,
                screenshots,
            },
        ),
    }
}

/// Makes the checkout, places the CLI files, writes the turn streams and the journal; a
/// failure undoes what was made before it.
fn carry_out(srv: &Server, mut p: Plan) -> Result<ImportView, BatonError> {
    let tid = p.m.terminal.id.clone();
    let made = p.checkout.clone().make(&mut p.notes)?;
    let written = match placing::place(&p.placements) {
        Ok(w) => w,
        Err(e) => {
            made.undo();
            return Err(e);
        }
    };
    let records = records(&mut p, &made);
    let journalled = write_turns(srv, &tid, &p.staged)
        .and_then(|_| Ok(srv.store.create_imported(&tid, &p.journal, records)?));
    if let Err(e) = journalled {
        placing::remove_all(&written);
        let _ = fs::remove_dir_all(srv.store.data_dir().terminal(&tid));
        made.undo();
        return Err(e);
    }
    srv.announce(&tid);
    if let Some(t) = srv.store.terminal(&tid)? {
        srv.watch_files(&t);
    }
    Ok(ImportView {
        from: p.m.terminal.name.clone(),
        terminal_id: tid,
        dir: made.dir.to_string_lossy().into_owned(),
        mode: made.mode,
        branch: made.worktree.as_ref().map(|w| w.branch.clone()),
        worktree: made
            .worktree
            .as_ref()
            .map(|w| w.path.to_string_lossy().into_owned()),
        sessions: placing::views(&p.m, &p.placements),
        name: p.name,
        notes: p.notes,
    })
}

/// What the import appends to the exported journal: `imported`, then what closes a running
/// turn, withdraws waiting input and shows an archived terminal.
fn records(p: &mut Plan, made: &Made) -> Vec<Record> {
    let m = &p.m;
    let mut out = vec![Record::Imported {
        from: ImportedFrom {
            baton_version: m.baton_version.clone(),
            dir: m.terminal.dir.clone(),
            worktree: carry::last_worktree(&p.entries),
            exported_at: m.exported_at.clone(),
        },
        name: p.name.clone(),
        dir: made.dir.to_string_lossy().into_owned(),
        source: made.source.to_string_lossy().into_owned(),
        mode: made.mode,
        worktree: made.worktree.clone(),
        conversation: p.repointed.clone(),
    }];
    out.extend(closing(m, &p.entries, &p.staged, &mut p.notes));
    if carry::archived(&p.entries) {
        p.notes.push(format!(
            "{} was archived where it was exported: it is shown here (`baton archive {}` hides it again)",
            m.terminal.name, p.name
        ));
        out.push(Record::Unarchived);
    }
    if m.sessions.iter().any(|s| s.file.is_none()) {
        p.notes.push(
            "a session's CLI file was not in the archive: the next send starts a fresh session in the same conversation".to_string(),
        );
    }
    out
}

/// The journal is the terminal's: it starts with its creation, under the manifest's id.
fn check_journal(entries: &[Entry], tid: &str, file: &str) -> Result<(), BatonError> {
    match entries.first().map(|e| &e.record) {
        Some(Record::TerminalCreated { terminal_id, .. }) if terminal_id == tid => {}
        _ => {
            return Err(BatonError::bad_input(format!(
                "cannot import {file}: its journal does not start with the creation of terminal {tid}: the archive is damaged, export the terminal again"
            )))
        }
    }
    // Titles are shown as they are: one baton would have refused is refused here too (an
    // archive's digests only say it is whole, not who wrote it).
    for entry in entries {
        let title = match &entry.record {
            Record::ConversationTitled { title, .. } => title,
            Record::ConversationOpened {
                title: Some(title), ..
            } => title,
            _ => continue,
        };
        if let Err(e) = validate::title(title, super::super::terminals::TITLE_MAX) {
            return Err(BatonError::bad_input(format!(
                "cannot import {file}: its journal holds a title baton does not accept ({e}): nothing was imported"
            )));
        }
    }
    Ok(())
}

/// Every id the journal holds can be part of a path (the same rule the manifest's ids meet:
/// a turn id `../../../.claude/history` would make a later export read that file), and none
/// is another terminal's here: the index keys turns and conversations by id, so a reused one
/// would move or change that terminal's rows. Only a fork's link names another terminal
/// (`tid`: the one imported).
fn check_ids(srv: &Server, entries: &[Entry], tid: &str, file: &str) -> Result<(), BatonError> {
    for e in entries {
        for (kind, id) in e.record.ids() {
            if !validate::safe_id(id) {
                return Err(BatonError::bad_input(format!(
                    "cannot import {file}: its journal holds the {} id {id:?}, which baton never writes (ids are letters, digits, `-` and `_`): the archive was changed, export the terminal again; nothing was imported",
                    id_word(kind)
                )));
            }
            if matches!(e.record, Record::Forked { .. }) {
                continue;
            }
            if kind == IdKind::Terminal && id != tid {
                return Err(BatonError::bad_input(format!(
                    "cannot import {file}: its journal creates terminal {id} besides {tid}, the one exported: the archive was changed, export the terminal again; nothing was imported"
                )));
            }
            if let Some(holder) = srv.store.id_holder(kind, id)?.filter(|h| h != tid) {
                let name = srv.store.terminal(&holder)?.map_or(holder, |t| t.name);
                return Err(BatonError::bad_input(format!(
                    "cannot import {file}: its journal reuses the {} id {id} that terminal {name} has here (an archive changed by hand, or a copy of {name}'s journal): export the terminal again where it came from; nothing was imported",
                    id_word(kind)
                )));
            }
        }
    }
    Ok(())
}

fn id_word(kind: IdKind) -> &'static str {
    match kind {
        IdKind::Terminal => "terminal",
        IdKind::Conversation => "conversation",
        IdKind::Turn => "turn",
        IdKind::Session => "session",
    }
}

/// The terminal id is not here yet (an import of the same export twice, or of a terminal
/// exported from this data directory).
fn check_free(srv: &Server, tid: &str, m: &Manifest) -> Result<(), BatonError> {
    if let Some(t) = srv.store.terminal(tid)? {
        return Err(BatonError::bad_input(format!(
            "terminal {} (exported as {}) already exists here, as {}: it is already imported; nothing was imported",
            tid, m.terminal.name, t.name
        )));
    }
    let journal = srv.store.data_dir().journal(tid);
    if journal.exists() {
        return Err(BatonError::bad_input(format!(
            "terminal {tid} (exported as {}) was here before and was removed (its journal {} is kept): nothing was imported",
            m.terminal.name,
            journal.display()
        )));
    }
    Ok(())
}

/// Which system texts the placed session files get re-pointed: the live conversation's, the
/// one a Claude fork's source session keeps, and those of its later sessions (the
/// conversation's plus their standing lines: a Codex thread keeps its own).
fn rewrites(live: Option<&Live>, to: Option<&Repointed>) -> Vec<(String, String)> {
    let (Some(live), Some(to)) = (live, to) else {
        return Vec::new();
    };
    let mut out = vec![(live.system_text.clone(), to.system_text.clone())];
    if let Some(f) = &live.fork_text {
        out.push((f.clone(), to.system_text.clone()));
    }
    for lines in &live.sessions_standing {
        out.push((
            session_text(&live.system_text, lines),
            session_text(&to.system_text, lines),
        ));
    }
    out
}

/// `turn_finished` for turns that were running at export, `input_withdrawn` for waiting input.
fn closing(
    m: &Manifest,
    entries: &[Entry],
    staged: &Staged,
    notes: &mut Vec<String>,
) -> Vec<Record> {
    let mut out = Vec::new();
    for t in carry::open_turns(entries) {
        let raw = staged
            .read(&manifest::turn_path(&t.turn_id))
            .ok()
            .flatten()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let s = streamed(&raw, t.provider, None).tally;
        notes.push(format!(
            "turn {} was still running when {} was exported: it shows as interrupted",
            t.number, m.terminal.name
        ));
        out.push(Record::TurnFinished {
            turn_id: t.turn_id,
            status: TurnStatus::Interrupted,
            error: Some(format!(
                "the turn was still running when it was exported ({}): closed as interrupted by the import",
                m.exported_at
            )),
            session_id: s.session.map(|(id, _)| id),
            model: None,
            context: None,
            answer: s.answer,
            tools: s.tools,
            notes: vec![],
            cost: None,
            duration_ms: None,
        });
    }
    for (input, prompt) in carry::waiting_inputs(entries) {
        notes.push(format!(
            "input {input} ({:?}) was waiting when it was exported: withdrawn so nothing runs by itself here; send it again to run it",
            crate::words::title_of(&prompt)
        ));
        out.push(Record::InputWithdrawn { input });
    }
    out
}

/// The turn streams, linked from where they were unpacked into the new terminal's `turns/`
/// (both in the data directory; a link never replaces a file).
fn write_turns(srv: &Server, tid: &str, staged: &Staged) -> Result<(), BatonError> {
    let dir = srv.store.data_dir().terminal(tid).join("turns");
    crate::paths::ensure_private_dir(&dir)
        .map_err(|e| BatonError::failed(format!("cannot create {}: {e}", dir.display())))?;
    for (name, from) in staged.turns() {
        let target = dir.join(name);
        staging::link_or_copy(from, &target)
            .map_err(|e| BatonError::failed(format!("cannot write {}: {e}", target.display())))?;
    }
    Ok(())
}

/// Where the imported terminal will work, decided before anything is made.
#[derive(Clone)]
enum Checkout {
    /// A worktree on `baton/<name>` in `repo`, at `start` (a commit it has; None: its HEAD).
    Worktree {
        repo: PathBuf,
        name: String,
        into: PathBuf,
        start: Option<String>,
        base: Option<String>,
        rel: PathBuf,
    },
    /// A plain folder (`create`: a fresh one baton makes).
    Folder {
        dir: PathBuf,
        create: bool,
    },
    InPlace(PathBuf),
}

/// What was made: undone when a later step fails.
struct Made {
    mode: CheckoutMode,
    dir: PathBuf,
    source: PathBuf,
    worktree: Option<Worktree>,
    created_folder: Option<PathBuf>,
}

impl Made {
    fn undo(&self) {
        if let Some(wt) = &self.worktree {
            let _ = git::remove(wt, "baton: import undone", &[], true, true);
        }
        if let Some(f) = &self.created_folder {
            let _ = fs::remove_dir(f);
        }
    }
}

impl Checkout {
    fn run_dir(&self) -> PathBuf {
        match self {
            Checkout::Worktree { into, rel, .. } => {
                crate::server::checkout::under(&physical(into), rel)
            }
            Checkout::Folder { dir, .. } | Checkout::InPlace(dir) => physical(dir),
        }
    }

    fn make(self, notes: &mut Vec<String>) -> Result<Made, BatonError> {
        let run_dir = self.run_dir();
        match self {
            Checkout::Worktree {
                repo,
                name,
                into,
                start,
                base,
                ..
            } => {
                if let Some(parent) = into.parent() {
                    git::private_dirs(parent).map_err(|e| {
                        BatonError::failed(format!("cannot create {}: {e}", parent.display()))
                    })?;
                }
                let (mut wt, at_start) =
                    git::create_worktree_from(&repo, &name, &into, start.as_deref())
                        .map_err(|e| BatonError::bad_input(e.to_string()))?;
                if !at_start {
                    notes.push(format!(
                        "the worktree starts at {}'s HEAD ({}) on {}",
                        repo.display(),
                        wt.base_commit,
                        wt.branch
                    ));
                }
                if let Some(b) = base.filter(|b| git::commit_exists(&repo, b)) {
                    wt.base_commit = b;
                }
                fs::create_dir_all(&run_dir).map_err(|e| {
                    BatonError::failed(format!("cannot create {}: {e}", run_dir.display()))
                })?;
                Ok(Made {
                    mode: CheckoutMode::Worktree,
                    dir: run_dir,
                    source: repo,
                    worktree: Some(wt),
                    created_folder: None,
                })
            }
            Checkout::Folder { dir, create } => {
                if create {
                    crate::paths::ensure_private_dir(&dir).map_err(|e| {
                        BatonError::failed(format!("cannot create {}: {e}", dir.display()))
                    })?;
                }
                Ok(Made {
                    mode: CheckoutMode::Folder,
                    dir: run_dir.clone(),
                    source: run_dir,
                    worktree: None,
                    created_folder: create.then_some(dir),
                })
            }
            Checkout::InPlace(_) => Ok(Made {
                mode: CheckoutMode::InPlace,
                dir: run_dir.clone(),
                source: run_dir,
                worktree: None,
                created_folder: None,
            }),
        }
    }
}

/// The checkout for `--dir` (or none), checked: a repository gets a worktree (unless the
/// terminal ran in place), a plain folder is used as it is, no `--dir` makes a fresh folder.
fn plan_checkout(
    srv: &Server,
    m: &Manifest,
    name: &str,
    tid: &str,
    dir: Option<&str>,
    notes: &mut Vec<String>,
) -> Result<Checkout, BatonError> {
    let had_repo = m
        .checkout
        .as_ref()
        .map(|c| format!(" (it worked in a worktree of {})", c.repository))
        .unwrap_or_default();
    let Some(dir) = dir else {
        let hex: String = tid.chars().filter(char::is_ascii_hexdigit).collect();
        let folder = srv
            .data_root()
            .join("imported")
            .join(format!("{name}-{}", &hex[hex.len().saturating_sub(8)..]));
        notes.push(format!(
            "no --dir given: {name} opens as a plain folder terminal in the fresh folder {}{had_repo}; import it with --dir REPO to work in a checkout of that repository",
            folder.display()
        ));
        return Ok(Checkout::Folder {
            dir: folder,
            create: true,
        });
    };
    let dir = PathBuf::from(dir);
    let state = git::inspect(&dir).map_err(|e| BatonError::bad_input(e.to_string()))?;
    match state {
        RepoState::NotRepo => {
            notes.push(format!(
                "{} is not a git repository: {name} opens there as a plain folder terminal{had_repo}",
                dir.display()
            ));
            Ok(Checkout::Folder { dir, create: false })
        }
        RepoState::Branch { .. } if m.terminal.mode == CheckoutMode::InPlace => {
            Ok(Checkout::InPlace(dir))
        }
        RepoState::Branch { root, .. } => {
            git::check_branch_free_in(&root, name).map_err(|e| {
                BatonError::bad_input(format!("{e} (pass --name NEW to import it under another name)"))
            })?;
            let rel = m
                .checkout
                .as_ref()
                .and_then(|c| {
                    Path::new(&m.terminal.dir)
                        .strip_prefix(&c.worktree)
                        .ok()
                        .map(Path::to_path_buf)
                })
                .unwrap_or_default();
            let start = start_commit(m, &root, notes);
            Ok(Checkout::Worktree {
                repo: root,
                name: name.to_string(),
                into: crate::server::checkout::worktree_home(srv, name, tid),
                start,
                base: m.checkout.as_ref().map(|c| c.base_commit.clone()),
                rel,
            })
        }
        RepoState::NoCommit { root } => Err(BatonError::bad_input(format!(
            "{} is a git repository with no commit yet: commit something first, or pass a plain folder as --dir",
            root.display()
        ))),
        RepoState::Detached { root } => Err(BatonError::bad_input(format!(
            "{} has a detached HEAD: check out a branch first (git switch -c work)",
            root.display()
        ))),
    }
}

/// Where an imported worktree starts in `repo`: the exported head commit when `repo` has it,
/// else the tip of the exported branch there (local or `origin/`), else None (its HEAD); the
/// notes say which when it is not the exported commit.
fn start_commit(m: &Manifest, repo: &Path, notes: &mut Vec<String>) -> Option<String> {
    let c = m.checkout.as_ref()?;
    let head = c.head_commit.as_deref();
    if let Some(h) = head.filter(|h| git::commit_exists(repo, h)) {
        return Some(h.to_string());
    }
    let missing = match head {
        Some(h) => format!("commit {h} is not in {}", repo.display()),
        None => "the archive names no head commit".to_string(),
    };
    let branch = [c.branch.clone(), format!("origin/{}", c.branch)]
        .into_iter()
        .find_map(|b| git::resolve_commit(repo, &b).map(|id| (b, id)));
    match branch {
        Some((b, id)) => {
            notes.push(format!(
                "{missing}: the worktree starts at {b} ({id}), the exported branch as this repository has it"
            ));
            Some(id)
        }
        None => {
            notes.push(format!(
                "{missing}, nor the branch {}: fetch it to get the exported files",
                c.branch
            ));
            None
        }
    }
}

/// `path` with its longest existing part resolved to the physical path (a path that does not
/// exist yet, such as a worktree about to be made, keeps its missing tail).
fn physical(path: &Path) -> PathBuf {
    let mut tail = Vec::new();
    let mut at = path;
    loop {
        if let Ok(p) = fs::canonicalize(at) {
            return tail.iter().rev().fold(p, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}
