//! How replies read in a terminal: the streamed turn, the end-of-turn summary, and the tables of
//! `ls`, `show`, `log` and `instructions`. Pure: values in, text out.

use crate::protocol::views::{
    AcceptedView, DiffView, InstructionView, InterruptedView, LogView, MergeView, QueuedView,
    ReindexView, RemovedView, RenamedView, RevertView, StatusView, TerminalView,
};
use crate::protocol::{SendEvent, SessionStart, TurnSummary};
use crate::words::{duration_text, OpenReason, TimeText};
use crate::words::{ContextUsage, TurnEvent, TurnStatus};
use unicode_width::UnicodeWidthStr;

/// Where a piece of a streamed turn goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// The answer and tool lines: stdout, written exactly as given (line ends included) and
    /// flushed, so answer deltas show as they arrive.
    Main(String),
    /// Progress and notes: one line on stderr.
    Side(String),
}

/// Prints a streamed turn: a whole line per event, except answer deltas, which are written as
/// they come without a line end. A piece of answer still open is ended (one `\n`) by whatever
/// prints next, a new piece, or the end of the turn ([`Printer::finish`]); so a streamed answer
/// reads exactly as the same answer in whole `Text` pieces would.
#[derive(Debug, Default)]
pub struct Printer {
    /// A piece of answer is on stdout without its line end yet.
    open: bool,
}

impl Printer {
    pub fn event(&mut self, name: &str, ev: &SendEvent) -> Vec<Out> {
        let mut outs = Vec::new();
        if let SendEvent::Turn {
            event: TurnEvent::Delta { text, start },
        } = ev
        {
            if *start {
                outs.extend(self.finish());
            }
            self.open = true;
            outs.push(Out::Main(text.clone()));
            return outs;
        }
        let Some(out) = event(name, ev) else {
            return outs;
        };
        outs.extend(self.finish());
        outs.push(match out {
            Out::Main(line) => Out::Main(format!("{line}\n")),
            side @ Out::Side(_) => side,
        });
        outs
    }

    /// Ends a piece of answer still open.
    pub fn finish(&mut self) -> Option<Out> {
        std::mem::take(&mut self.open).then(|| Out::Main("\n".to_string()))
    }
}

/// One event as one line (without its line end), or nothing; answer deltas are the
/// [`Printer`]'s.
fn event(name: &str, ev: &SendEvent) -> Option<Out> {
    match ev {
        SendEvent::Queued { ahead } => Some(Out::Side(format!(
            "… {name} is busy: waiting for {ahead} turn{} to finish",
            if *ahead == 1 { "" } else { "s" }
        ))),
        SendEvent::Started {
            number,
            provider,
            conversation,
            opened,
            rotate_at,
            session,
            ..
        } => {
            let conv = match opened {
                Some(OpenReason::First) => format!("conversation {conversation} (new)"),
                Some(OpenReason::Size) => format!(
                    "conversation {conversation} (new: the last one passed {:.0}% of the window)",
                    rotate_at * 100.0
                ),
                Some(OpenReason::Moved) => {
                    format!("conversation {conversation} (new: the directory moved)")
                }
                Some(OpenReason::Manual) => {
                    format!("conversation {conversation} (new: asked for with --fresh)")
                }
                Some(OpenReason::Fork) => format!("conversation {conversation} (forked)"),
                Some(OpenReason::Rewind) => format!("conversation {conversation} (rewound)"),
                None => format!("conversation {conversation}"),
            };
            let sess = match session {
                SessionStart::Resume => "resuming its session",
                SessionStart::Switch => "new session (provider switched)",
                SessionStart::Lost => "new session (the old one is gone)",
                SessionStart::Fresh => "new session",
                SessionStart::Fork => "a fork of the original's session",
            };
            Some(Out::Side(format!(
                "▸ {name} · turn {number} · {provider} · {conv} · {sess}"
            )))
        }
        SendEvent::Turn { event } => match event {
            TurnEvent::Text { text } => Some(Out::Main(text.clone())),
            TurnEvent::ToolUse { summary, .. } => Some(Out::Main(format!("  ⚙ {summary}"))),
            TurnEvent::Warning { message } => Some(Out::Side(format!("  ! {message}"))),
            TurnEvent::Notice { message } => Some(Out::Side(format!("  note: {message}"))),
            TurnEvent::Denied { tool, target } => {
                Some(Out::Side(format!("  ! {}", denial_text(tool, target))))
            }
            TurnEvent::SubagentText { .. } | TurnEvent::ToolResult { .. } => None,
            TurnEvent::Session { .. }
            | TurnEvent::Delta { .. }
            | TurnEvent::Usage { .. }
            | TurnEvent::End { .. } => None,
        },
        SendEvent::Note { message } => Some(Out::Side(format!("  note: {message}"))),
    }
}

pub use crate::words::thousands;

/// `6,002 of 200,000 tokens (3.0%)`.
pub fn context(c: &ContextUsage) -> String {
    format!(
        "context {} of {} tokens ({:.1}%)",
        thousands(c.tokens),
        thousands(c.window),
        c.fraction() * 100.0
    )
}

/// The one line that ends every `baton send`.
pub fn summary_line(s: &TurnSummary) -> String {
    let mut parts = vec![s.status.as_str().to_string(), s.provider.to_string()];
    if let Some(m) = &s.model {
        parts.push(m.clone());
    }
    if let Some(id) = &s.session_id {
        parts.push(format!("session {id}"));
    }
    match &s.context {
        Some(c) => parts.push(context(c)),
        None => parts.push("context not reported".to_string()),
    }
    let mut conv = format!("conversation {}", s.conversation);
    if let Some(o) = &s.opened {
        conv.push_str(&format!(" (opened: {})", o.as_str()));
    }
    parts.push(conv);
    parts.push(duration_text(s.elapsed_ms, TimeText::Tenths));
    if let Some(c) = &s.cost {
        parts.push(cost_text(c));
    }
    if s.rotates_next {
        parts.push(format!(
            "passed {:.0}%: the next prompt opens a fresh conversation",
            s.rotate_at * 100.0
        ));
    }
    let mut line = format!("── {}", parts.join(" · "));
    if s.status != TurnStatus::Completed {
        if let Some(e) = &s.error {
            line.push_str(&format!("\n   {e}"));
        }
    }
    line
}

/// What a headless Claude run was refused, and where to allow it. The rule is Claude Code's
/// permission syntax (`Tool(specifier)`), which both `permissions.allow` in its settings and
/// `--allowedTools` take; baton passes neither itself, only `--permission-mode`.
pub fn denial_text(tool: &str, target: &str) -> String {
    let rule = if target.is_empty() {
        tool.to_string()
    } else {
        format!("{tool}({target})")
    };
    format!(
        "{rule} was refused: allow it in Claude's settings (permissions.allow in \
         .claude/settings.json) or add \"--allowedTools\", \"{rule}\" to [providers.claude] \
         args in baton's config.toml"
    )
}

/// `10,135 in (8,000 cached) / 10 out tokens · $0.0042` (money only where the CLI reports it).
pub fn cost_text(c: &crate::words::TurnCost) -> String {
    let mut text = format!("{} in", thousands(c.input_tokens));
    if c.cached_tokens > 0 {
        text.push_str(&format!(" ({} cached)", thousands(c.cached_tokens)));
    }
    text.push_str(&format!(" / {} out tokens", thousands(c.output_tokens)));
    if let Some(usd) = c.usd {
        text.push_str(&format!(" · ${usd:.4}"));
    }
    text
}

/// A terminal's cost in the multiplexer's narrow list: its money where the CLIs report it,
/// else its tokens (`ls`'s COST, [`ls_cost_cell`], has room for both).
pub fn cost_cell(c: Option<&crate::words::TurnCost>) -> String {
    match c {
        None => "-".to_string(),
        Some(c) => match c.usd {
            Some(usd) => format!("${usd:.2}"),
            None => tokens_cell(c),
        },
    }
}

/// `ls`'s COST: all the terminal's turns' tokens, after the money where a CLI reports it
/// (Claude's; Codex reports none, so a terminal that ran on both has money for some turns
/// and tokens for all).
pub fn ls_cost_cell(c: Option<&crate::words::TurnCost>) -> String {
    match c {
        None => "-".to_string(),
        Some(c) => match c.usd {
            Some(usd) => format!("${usd:.2} · {}", tokens_cell(c)),
            None => tokens_cell(c),
        },
    }
}

fn tokens_cell(c: &crate::words::TurnCost) -> String {
    format!(
        "{}k tok",
        c.input_tokens
            .saturating_add(c.output_tokens)
            .div_ceil(1000)
    )
}

/// `45.1%`, with ` (rotates)` once the server says the next prompt rotates.
fn ctx_cell(v: &TerminalView) -> String {
    match &v.context {
        Some(c) if c.window > 0 => format!(
            "{:.1}%{}",
            c.fraction * 100.0,
            if c.rotates_next { " (rotates)" } else { "" }
        ),
        _ => "-".to_string(),
    }
}

fn provider_cell(v: &TerminalView) -> String {
    match &v.model {
        Some(m) => format!("{}/{m}", v.provider),
        None => v.provider.to_string(),
    }
}

/// One row of `baton ls`: a terminal and the host it is on (`None`: this machine).
type LsRow<'a> = (Option<&'a str>, &'a TerminalView);

/// One column of `baton ls`: its header, the width its cells are padded to (the last column's
/// are not), and how a row's cell reads. The header and every row are drawn from this one
/// table, so they cannot drift apart.
struct LsColumn {
    header: &'static str,
    width: usize,
    cell: fn(&LsRow) -> String,
}

/// The HOST column, first, when any host is configured.
const LS_HOST: LsColumn = LsColumn {
    header: "HOST",
    width: 12,
    cell: |(h, _)| h.unwrap_or("-").to_string(),
};

const LS_COLUMNS: [LsColumn; 6] = [
    LsColumn {
        header: "NAME",
        width: 16,
        cell: |(_, v)| {
            if v.archived {
                format!("{} (archived)", v.name)
            } else {
                v.name.clone()
            }
        },
    },
    LsColumn {
        header: "PROVIDER",
        width: 24,
        cell: |(_, v)| provider_cell(v),
    },
    LsColumn {
        header: "STATE",
        width: 8,
        // A turn waiting for the user's answer says so (`baton approvals`).
        cell: |(_, v)| match (&v.approval, v.start_ahead) {
            (Some(_), _) => "approval".to_string(),
            (None, Some(ahead)) => start_wait(ahead),
            (None, None) => v.state.as_str().to_string(),
        },
    },
    LsColumn {
        header: "CONTEXT",
        width: 14,
        cell: |(_, v)| ctx_cell(v),
    },
    LsColumn {
        header: "COST",
        width: 9,
        cell: |(_, v)| ls_cost_cell(v.cost.as_ref()),
    },
    LsColumn {
        header: "DIR",
        width: 0,
        cell: |(_, v)| crate::words::shown(&v.dir).into_owned(),
    },
];

/// One line of the table: each cell padded to its column's width (`widths`) and followed by a
/// space, but the last, which ends the line.
fn ls_line(cells: &[String], widths: &[usize]) -> String {
    let mut line = String::new();
    for (i, text) in cells.iter().enumerate() {
        if i + 1 == cells.len() {
            line.push_str(text);
        } else {
            let pad = widths
                .get(i)
                .copied()
                .unwrap_or(0)
                .saturating_sub(text.width());
            line.push_str(text);
            line.push_str(&" ".repeat(pad + 1));
        }
    }
    line.push('\n');
    line
}

/// Each column's width: its own, or its widest cell's (a long name, `provider/model`), so
/// every row stays under its header whatever it holds. Widths are display columns.
fn ls_widths(columns: &[&LsColumn], lines: &[Vec<String>]) -> Vec<usize> {
    columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            (lines.iter())
                .filter_map(|cells| cells.get(i))
                .map(|t| t.width())
                .fold(c.width.max(c.header.width()), usize::max)
        })
        .collect()
}

/// `baton ls`: each row with the host it is on (`None`: this machine), in a HOST column when
/// `host_col` (any host is configured), then a line per host that did not answer.
pub fn ls_on_hosts(rows: &[LsRow], offline: &[(String, String)], host_col: bool) -> String {
    let columns: Vec<&LsColumn> = host_col
        .then_some(&LS_HOST)
        .into_iter()
        .chain(&LS_COLUMNS)
        .collect();
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str("no terminals yet (create one with `baton new NAME --dir DIR`)\n");
    } else {
        let header: Vec<String> = columns.iter().map(|c| c.header.to_string()).collect();
        let cells: Vec<Vec<String>> = (rows.iter())
            .map(|row| columns.iter().map(|c| (c.cell)(row)).collect())
            .collect();
        let widths = ls_widths(&columns, &cells);
        for line in std::iter::once(&header).chain(&cells) {
            out.push_str(&ls_line(line, &widths));
        }
    }
    for (h, v) in rows.iter().filter(|(_, v)| v.queue_held) {
        let name = match h {
            Some(h) => format!("{h}:{}", v.name),
            None => v.name.clone(),
        };
        out.push_str(&format!("{name}: {}\n", held_line(&name)));
    }
    for (h, v) in rows.iter() {
        if let Some(mark) = &v.lane {
            let name = h
                .as_ref()
                .map_or(v.name.clone(), |h| format!("{h}:{}", v.name));
            out.push_str(&super::render_lane::mark_line(&name, mark));
        }
    }
    if rows.iter().any(|(_, v)| v.index_behind) {
        out.push_str(&format!("{}\n", INDEX_BEHIND));
    }
    for (host, why) in offline {
        out.push_str(&format!("host {host}: offline ({why})\n"));
    }
    out
}

/// What `ls`, `show` and `server status` say while the index misses journalled entries.
pub const INDEX_BEHIND: &str = "the index is behind the journals (a write to it failed: is the disk full? see server.log): input accepted since is kept and waits, and runs once the index is rebuilt (free space, then any command, or `baton reindex`)";

/// What `ls`, `show` and `queue` say of a queue held after an interrupt (`server::turn::hold`).
pub fn held_line(name: &str) -> String {
    format!(
        "queue held after interrupt: `baton queue {name} run` (or r on a waiting input in the multiplexer) runs it"
    )
}

/// What a terminal whose turn's CLI waits for a place among those starting is said to do
/// (`[limits] starting`).
pub fn start_wait(ahead: usize) -> String {
    format!("waiting to start ({ahead} ahead)")
}

pub fn show(v: &TerminalView) -> String {
    let state = match v.start_ahead {
        Some(ahead) => start_wait(ahead),
        None => v.state.as_str().to_string(),
    };
    let mut out = format!("{}  ({state})\n", v.name);
    out.push_str(&format!(
        "  dir:          {}\n",
        crate::words::shown(&v.dir)
    ));
    // No model pinned: the provider's default (`[providers.<name>] model`, else the CLI's own).
    let default = if v.model.is_none() && v.provider.is_cli() {
        " (its default model)"
    } else {
        ""
    };
    out.push_str(&format!("  provider:     {}{default}\n", provider_cell(v)));
    out.push_str(&super::render_life::setup_lines(
        v.ports.as_ref(),
        v.setup.as_ref(),
    ));
    if v.index_behind {
        out.push_str(&format!("  index:        {INDEX_BEHIND}\n"));
    }
    if v.queue_held {
        out.push_str(&format!(
            "  queue:        {} waiting; {}\n",
            v.queued,
            held_line(&v.name)
        ));
    }
    out.push_str(&super::render_approvals::show_lines(v));
    if let Some(b) = &v.brief {
        out.push_str(&format!("  brief:        {b}\n"));
    }
    match &v.conversation {
        Some(c) => out.push_str(&format!(
            "  conversation: {}{} (opened: {}) {}\n",
            c.number,
            c.title
                .as_deref()
                .map(|t| format!(" {t:?}"))
                .unwrap_or_default(),
            c.opened_reason.as_str(),
            c.id
        )),
        None => out.push_str("  conversation: none yet (opens at the first prompt)\n"),
    }
    for sess in &v.sessions {
        out.push_str(&format!(
            "  session:      {} {}\n",
            sess.provider, sess.session_id
        ));
    }
    out.push_str(&format!("  context:      {}\n", ctx_cell(v)));
    out.push_str(&format!("  instructions: {}\n", v.instructions.len()));
    if let Some(c) = &v.cost {
        out.push_str(&format!("  cost:         {} (all turns)\n", cost_text(c)));
    }
    for (i, line) in v.instructions.iter().enumerate() {
        out.push_str(&format!("    {}. {line}\n", i + 1));
    }
    out
}

pub fn log(v: &LogView) -> String {
    let mut out = String::new();
    if let Some(f) = &v.forked_from {
        out.push_str(&format!("{}\n", super::render_life::forked_from(f)));
    }
    if let Some(s) = &v.setup {
        out.push_str(&super::render_life::setup_log(s));
    }
    let mut current = None;
    for t in &v.turns {
        if t.conversation != current {
            current = t.conversation;
            let conv = v
                .conversations
                .iter()
                .find(|c| Some(c.number) == t.conversation);
            let reason = conv.map(|c| c.opened_reason.as_str()).unwrap_or_default();
            let title = conv
                .and_then(|c| c.title.as_deref())
                .map(|t| format!(" {t:?}"))
                .unwrap_or_default();
            out.push_str(&format!(
                "──── conversation {}{title} (opened: {reason})\n",
                t.conversation.unwrap_or(0)
            ));
        }
        let turn = &t.turn;
        let status = turn.status.map_or("running", |s| s.as_str());
        out.push_str(&format!(
            "#{} [{}] {} · {}\n",
            turn.number, status, turn.provider, turn.started_at
        ));
        for line in turn.prompt.lines() {
            out.push_str(&format!("  > {line}\n"));
        }
        for tool in &turn.tools {
            out.push_str(&format!("  ⚙ {tool}\n"));
        }
        for line in turn.answer.as_deref().unwrap_or("").lines() {
            out.push_str(&format!("  {line}\n"));
        }
        if let Some(e) = &turn.error {
            out.push_str(&format!("  error: {e}\n"));
        }
        for f in v.forked_into.iter().filter(|f| f.turn == turn.number) {
            out.push_str(&format!("{}\n", super::render_life::forked_into(f)));
        }
    }
    for f in v.forked_into.iter().filter(|f| f.turn == 0) {
        out.push_str(&format!("{}\n", super::render_life::forked_into(f)));
    }
    if out.is_empty() {
        out.push_str("no turns yet\n");
    }
    out
}

pub fn instructions(rows: &Vec<InstructionView>) -> String {
    if rows.is_empty() {
        return "no standing instructions\n".to_string();
    }
    let mut out = String::new();
    for v in rows {
        let from = match v.turn {
            Some(n) => format!("turn {n}"),
            None => "added by hand".to_string(),
        };
        out.push_str(&format!(
            "{:>3}. {}   ({from}, {})\n",
            v.number, v.text, v.added_at
        ));
    }
    out
}

pub fn diff(v: &DiffView) -> String {
    if v.diff.is_empty() && v.merged {
        format!("nothing left to merge: all of {} is merged\n", v.branch)
    } else if v.diff.is_empty() {
        format!("no changes on {} yet\n", v.branch)
    } else if v.diff.ends_with('\n') {
        v.diff.clone()
    } else {
        format!("{}\n", v.diff)
    }
}

pub fn merge(v: &MergeView) -> String {
    format!(
        "squash-merged {} into {} as {}\n",
        v.branch, v.into, v.commit
    )
}

pub fn revert(v: &RevertView) -> String {
    format!(
        "reverted turn {} ({}) with {}\n",
        v.turn, v.reverted, v.commit
    )
}

pub use super::render_approvals::{answered, approvals};
pub use super::render_exports::{exported, imported};
pub use super::render_life::{archived, forked, rewound, titled};

pub fn renamed(v: &RenamedView) -> String {
    format!("renamed {} to {}\n", v.old_name, v.name)
}

pub fn removed(v: &RemovedView) -> String {
    let mut out = format!("removed {}", v.name);
    if let Some(b) = &v.branch {
        let kept = if v.branch_deleted == Some(true) {
            "deleted"
        } else {
            "kept"
        };
        out.push_str(&format!(" (branch {b} {kept})"));
    }
    out.push('\n');
    out
}

pub fn reindexed(v: &ReindexView) -> String {
    let mut out = format!(
        "reindexed {} terminal(s), {} journal entries\n",
        v.terminals, v.entries
    );
    for s in &v.skipped {
        out.push_str(&format!("skipped {s}\n"));
    }
    out
}

/// What `send --detach` says of the input it handed over.
pub fn accepted(v: &AcceptedView) -> String {
    let mut out = match v.position {
        Some(p) => format!(
            "accepted as input {} of {} ({}, position {p}); `baton queue {}` shows it waiting, `baton watch {}` follows the running turn",
            v.input, v.name, v.mode.as_str(), v.name, v.name
        ),
        // A steer that joined the running turn: its note says which.
        None if v.mode == crate::words::InputMode::Steer => {
            format!("accepted as input {} of {} (a steer)", v.input, v.name)
        }
        None => format!(
            "accepted as input {} of {}: its turn started (follow it with `baton watch {}`)",
            v.input, v.name, v.name
        ),
    };
    if let Some(note) = &v.note {
        out.push_str(&format!("\n  note: {note}"));
    }
    out
}

/// `baton queue NAME`: the waiting input, next to run first.
pub fn queue(rows: &Vec<QueuedView>) -> String {
    if rows.is_empty() {
        return "no input waiting\n".to_string();
    }
    let mut out = String::new();
    for q in rows {
        let first = q.prompt.lines().next().unwrap_or("");
        let more = if q.prompt.lines().nth(1).is_some() {
            " …"
        } else {
            ""
        };
        let on = match &q.model {
            Some(m) => format!("{}/{m}", q.provider),
            None => q.provider.to_string(),
        };
        out.push_str(&format!(
            "{:>3}. #{} [{}] {on} · {first}{more}\n",
            q.position,
            q.input,
            q.mode.as_str()
        ));
    }
    if rows.iter().any(|q| q.held) {
        out.push_str(&held_line("NAME"));
        out.push('\n');
    }
    out
}

pub fn interrupted(v: &InterruptedView) -> String {
    match v.stopped_exiting_cli {
        Some(pid) => format!(
            "{}'s last turn had ended, but its CLI (pid {pid}) was still exiting: stopped\n",
            v.name
        ),
        None => format!("interrupted turn {} of {}\n", v.turn_id, v.name),
    }
}

pub fn status(v: &StatusView) -> String {
    let mut out = format!(
        "running: pid {} · {} terminal(s) · {} turn(s) running · up {}s · {}\n",
        v.pid, v.terminals, v.running_turns, v.uptime_secs, v.data_dir
    );
    match v.warden_pid {
        Some(pid) => out.push_str(&format!(
            "warden: pid {pid} (interrupts the CLIs if the server dies)\n"
        )),
        None => out.push_str("warden: none (each CLI has a death signal instead)\n"),
    }
    if v.index_behind {
        out.push_str(&format!("{INDEX_BEHIND}\n"));
    }
    if v.tracked_checkouts > 0 {
        out.push_str(&format!(
            "change tracker: {} checkout(s) · {} commit(s) from tracked changes\n",
            v.tracked_checkouts, v.tracked_commits
        ));
    }
    let mib = |b: u64| b / (1024 * 1024);
    for w in &v.warm {
        let memory = w
            .memory_bytes
            .map_or("memory unknown".to_string(), |b| format!("{} MiB", mib(b)));
        let own = w
            .own_bytes
            .map_or(String::new(), |b| format!(" ({} MiB own)", mib(b)));
        out.push_str(&format!(
            "warm: {} · {} pid {} · {} turn(s) · idle {}s · {memory}{own}\n",
            w.name, w.provider, w.pid, w.turns, w.idle_secs
        ));
    }
    if v.warm_budget_bytes > 0 {
        let own: u64 = v.warm.iter().filter_map(|w| w.own_bytes).sum();
        out.push_str(&format!(
            "warm CLIs' own memory: {} MiB of {} MiB ([warm] memory_mb)\n",
            mib(own),
            mib(v.warm_budget_bytes)
        ));
    }
    out
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
