//! Drawing the screen from the state: the terminal list, the panes, the composer, the status
//! line, and the overlays (help, new-terminal form). Nothing here changes what the UI knows;
//! it only records where things landed (for the mouse) and caches wrapped lines.

pub mod help;
mod picker;
mod standing;

use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::client::render;
use crate::protocol::views::TerminalState::{self, Running};
use crate::tui::app::form::{Field, NewForm};
use crate::tui::app::hosts::{HostLink, Link, ListRow};
use crate::tui::app::slash;
use crate::tui::app::{App, Mode, Pane, TermView};
use crate::tui::copy;
use crate::tui::diff;
use crate::tui::input::keys::{input_key, InputAction as I, PrefixAction as A};
use crate::tui::panes::layout;
use crate::tui::shell;
use crate::tui::transcript::lines::{self, str_width, truncate};
use crate::words::TurnStatus;

/// The list is shown from this width on; narrower windows give all room to the transcript.
const LIST_MIN_WIDTH: u16 = 60;
const LIST_WIDTH: u16 = 28;
/// From this width on the list is wider, with room for each terminal's cost.
const LIST_WIDE_FROM: u16 = 150;
const LIST_WIDE: u16 = 38;
/// Cells of the context meter in the list.
const METER_CELLS: usize = 10;
/// Waiting prompts shown under a transcript before `+N more`.
const WAITING_SHOWN: usize = 3;

fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

pub fn draw(f: &mut Frame, app: &mut App) {
    let area = f.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    let [main, status] = split_v(area, [Constraint::Min(1), Constraint::Length(1)]);
    let (list, right) = if main.width >= LIST_MIN_WIDTH {
        let list_w = if main.width >= LIST_WIDE_FROM {
            LIST_WIDE
        } else {
            LIST_WIDTH
        };
        let [l, r] = split_h(main, [Constraint::Length(list_w), Constraint::Min(1)]);
        (Some(l), r)
    } else {
        (None, main)
    };
    // The shell face takes the keys, so the composer makes room for it.
    let shell = app.shell_focused();
    let composer_h = if shell {
        0
    } else {
        composer_height(app, right)
    };
    let [panes, composer] = split_v(right, [Constraint::Min(1), Constraint::Length(composer_h)]);
    app.list_area = list.unwrap_or_default();
    if let Some(l) = list {
        draw_list(f, app, l);
    }
    draw_panes(f, app, panes);
    if !shell {
        draw_composer(f, app, composer);
    }
    draw_status(f, app, status);
    match &app.mode {
        Mode::Help { .. } => help::draw_help(f, app),
        Mode::Instructions(o) => standing::draw_instructions(f, app, o),
        Mode::NewTerminal(form) => draw_form(f, form),
        Mode::Picker(p) => picker::draw_picker(f, app, p),
        Mode::Normal
        | Mode::ConfirmRemove(_)
        | Mode::Rename { .. }
        | Mode::Model { .. }
        | Mode::Command { .. }
        | Mode::Copy(_) => {}
    }
}

fn split_v<const N: usize>(area: Rect, c: [Constraint; N]) -> [Rect; N] {
    Layout::default()
        .direction(Direction::Vertical)
        .constraints(c)
        .areas(area)
}

fn split_h<const N: usize>(area: Rect, c: [Constraint; N]) -> [Rect; N] {
    Layout::default()
        .direction(Direction::Horizontal)
        .constraints(c)
        .areas(area)
}

fn composer_height(app: &App, right: Rect) -> u16 {
    let max = (right.height / 2).max(3);
    let rows = app
        .composer
        .rows_up_to(usize::from(right.width.saturating_sub(2)), usize::from(max));
    (rows as u16 + 2).clamp(3, max)
}

/// How many wait ahead of a terminal waiting for a place among the CLIs starting, unless a turn
/// that ended out of view or an approval has more to say.
fn start_wait_shown(t: &TermView) -> Option<usize> {
    match (t.unseen, &t.info.approval) {
        (None, None) => t.info.start_ahead,
        _ => None,
    }
}

pub(super) fn state_span(t: &TermView) -> Span<'static> {
    if let Some(ahead) = start_wait_shown(t) {
        return Span::styled(format!("◌ {}", render::start_wait(ahead)), Color::Yellow);
    }
    let (text, style) = match t.unseen {
        // Waiting for the user's answer comes first: the turn cannot go on without it.
        _ if t.info.approval.is_some() => ("? approval", Color::Magenta),
        Some(TurnStatus::Completed) => ("✓ done", Color::Green),
        Some(TurnStatus::Failed) => ("✗ failed", Color::Red),
        Some(TurnStatus::Interrupted) => ("■ stopped", Color::Yellow),
        None => match t.info.state {
            TerminalState::Running => ("● running", Color::Green),
            TerminalState::Queued => ("◌ queued", Color::Yellow),
            TerminalState::Failed => ("✗ failed", Color::Red),
            TerminalState::Idle => ("idle", Color::DarkGray),
        },
    };
    let mut s = Style::default().fg(style);
    if t.unseen.is_some() || t.info.approval.is_some() {
        s = s.add_modifier(Modifier::BOLD);
    }
    Span::styled(text, s)
}

pub(super) fn provider_label(t: &TermView) -> String {
    match &t.info.model {
        Some(m) => format!("{}/{m}", t.info.provider),
        None => t.info.provider.to_string(),
    }
}

/// What the list's first line ends on: the state, or, while the queue is held after an
/// interrupt (nothing starts until `r` or `baton queue NAME run`), how many prompts wait held,
/// or, while its CLI waits for a place among those starting, how many wait ahead of it.
fn state_or_held(t: &TermView) -> Span<'static> {
    let waiting = t.info.queue.len();
    if t.info.queue_held && waiting > 0 && t.info.state != Running {
        let s = Style::default()
            .fg(Color::Yellow)
            .add_modifier(Modifier::BOLD);
        return Span::styled(format!("⏸ {waiting} held"), s);
    }
    // "waiting to start (N ahead)" would leave the list no room for the name: the pane's title
    // says it whole.
    if let Some(ahead) = start_wait_shown(t) {
        return Span::styled(format!("◌ {ahead} ahead"), Color::Yellow);
    }
    state_span(t)
}

fn list_entry(i: usize, t: &TermView, width: usize, focused: bool) -> [Line<'static>; 2] {
    let state = state_or_held(t);
    let head = format!("{i} ");
    let name_w = width.saturating_sub(str_width(&head) + str_width(&state.content) + 1);
    let name = truncate(&t.info.name, name_w);
    let mut name_style = Style::default();
    if t.info.archived {
        name_style = dim();
    }
    if focused {
        name_style = name_style.add_modifier(Modifier::BOLD | Modifier::REVERSED);
    }
    // After the name, as room allows: "(archived)", then the live conversation's title.
    let mut extra = String::new();
    if let Some(mark) = &t.info.lane {
        // The integration lane found it conflicting or breaking the check (`baton integrate`).
        extra.push_str(&format!(
            " ⚠ {}",
            crate::client::render_lane::status_word(mark.status)
        ));
    }
    if t.info.archived {
        extra.push_str(" (archived)");
    }
    if let Some(title) = t.title() {
        extra.push(' ');
        extra.push_str(&lines::clean(title).replace('\n', " "));
    }
    let room = name_w.saturating_sub(str_width(&name));
    let extra = if room > 1 {
        truncate(&extra, room)
    } else {
        String::new()
    };
    let used = str_width(&head) + str_width(&name) + str_width(&extra);
    let pad = width.saturating_sub(used + str_width(&state.content));
    let first = Line::from(vec![
        Span::raw(head),
        Span::styled(name, name_style),
        Span::styled(extra, dim()),
        Span::raw(" ".repeat(pad)),
        state,
    ]);
    [first, Line::from(second_line(t, width))]
}

/// The list's second line: the provider, its cost where the list is wide enough (a wide
/// screen), the context meter.
fn second_line(t: &TermView, width: usize) -> Vec<Span<'static>> {
    let meter_w = METER_CELLS + 5;
    let context = t.info.context.map(|c| (c.fraction, c.rotates_next));
    let mut second = vec![Span::raw("  ")];
    if width < meter_w + 8 {
        second.push(Span::styled(
            truncate(&provider_label(t), width.saturating_sub(2)),
            dim(),
        ));
        return second;
    }
    let cost = t
        .info
        .cost
        .as_ref()
        .map(|c| format!("{} ", render::cost_cell(Some(c))))
        .filter(|c| width >= meter_w + 11 + str_width(c))
        .unwrap_or_default();
    let room = width - meter_w - 3 - str_width(&cost);
    let prov = truncate(&provider_label(t), room);
    let pad = room + 1 - str_width(&prov);
    second.push(Span::styled(prov, dim()));
    second.push(Span::raw(" ".repeat(pad)));
    second.push(Span::styled(cost, dim()));
    second.extend(lines::meter(context, t.info.rotate_at, METER_CELLS));
    second
}

fn draw_list(f: &mut Frame, app: &App, area: Rect) {
    let block = Block::default().borders(Borders::ALL).title(" terminals ");
    let inner = block.inner(area);
    f.render_widget(block, area);
    let focused = app.focused_name();
    let mut out = Vec::new();
    let listed = app.listed();
    for row in app.list_rows() {
        match row {
            ListRow::Host(h) => out.push(host_header(&h, usize::from(inner.width))),
            ListRow::Term(i) => {
                let t = listed[i];
                let is_focused = focused.as_deref() == Some(t.info.name.as_str());
                out.extend(list_entry(i, t, usize::from(inner.width), is_focused));
            }
        }
    }
    let archived = app.terms.iter().filter(|t| t.info.archived).count();
    if listed.is_empty() && app.connected {
        let text = if archived > 0 {
            format!(
                "(none; {archived} archived: {})",
                app.keys.hint(A::ShowArchived)
            )
        } else {
            "(none yet)".to_string()
        };
        out.push(Line::styled(text, dim()));
    }
    f.render_widget(Paragraph::new(out), inner);
}

/// The line over a host's terminals: its name, and how its link stands when not online.
fn host_header(h: &HostLink, width: usize) -> Line<'static> {
    let (state, style) = match &h.link {
        Link::Online => (String::new(), dim()),
        Link::Connecting => (" · connecting…".to_string(), dim()),
        Link::Offline(_) => (" · offline".to_string(), Style::default().fg(Color::Red)),
    };
    let name = truncate(
        &format!("── {}", h.name),
        width.saturating_sub(str_width(&state)),
    );
    Line::from(vec![
        Span::styled(name, dim().add_modifier(Modifier::BOLD)),
        Span::styled(state, style),
    ])
}

/// The panes as the layout places them (the active one alone when zoomed or when the window
/// is too small for them all); a pane not drawn keeps no area, so the mouse cannot hit it.
fn draw_panes(f: &mut Frame, app: &mut App, area: Rect) {
    app.panes_area = area;
    for p in &mut app.panes {
        p.area = Rect::default();
    }
    for (i, r) in layout::shown(&app.layout, area, app.active, app.zoomed) {
        if i < app.panes.len() {
            draw_pane(f, app, i, r);
        }
    }
}

/// `shell`: the pane shows the shell face (its title says where the shell works).
fn pane_title(t: &TermView, index: Option<usize>, scroll: usize, shell: bool) -> String {
    let mut parts = vec![format!(
        "{}{}",
        index.map(|i| format!("{i} ")).unwrap_or_default(),
        t.info.name
    )];
    if shell {
        parts.push(format!("shell · {}", t.info.dir));
        return format!(" {} ", parts.join(" · "));
    }
    parts.push(provider_label(t));
    if let Some(c) = &t.info.conversation {
        parts.push(format!("conversation {}", c.number));
    }
    parts.push(state_word(t).to_string());
    if scroll > 0 {
        parts.push(format!("↑{scroll} (C-End: follow)"));
    }
    format!(" {} ", parts.join(" · "))
}

/// The state a pane's title says: a queue an interrupt held is not "queued", since nothing
/// starts until `r` (or `baton queue NAME run`).
fn state_word(t: &TermView) -> String {
    if let Some(ahead) = t.info.start_ahead {
        render::start_wait(ahead)
    } else if t.info.queue_held && t.info.state == TerminalState::Queued {
        "queue held (r on a waiting input runs it)".to_string()
    } else {
        t.info.state.as_str().to_string()
    }
}

/// A placeholder line centered in the pane when there is nothing to show.
fn placeholder(app: &App, pane: &Pane) -> Option<String> {
    if !app.connected {
        return Some("connecting to the baton server…".into());
    }
    let Some(t) = pane.term.as_deref().and_then(|n| app.term(n)) else {
        return Some(format!(
            "No terminals yet: press {} to create one.",
            app.keys.hint(A::NewTerminal)
        ));
    };
    if !t.transcript.turns.is_empty() {
        return None;
    }
    Some(if t.transcript.loaded {
        let from = t.transcript.forked_from.as_ref();
        let from = from.map(|f| format!("{} · ", lines::forked_from_text(f)));
        let setup = t.info.setup.as_ref().map(lines::setup_text);
        format!(
            "{}{}No turns yet: type a prompt below and press Enter.",
            from.unwrap_or_default(),
            setup.map(|s| format!("{s} · ")).unwrap_or_default()
        )
    } else {
        "reading the history…".into()
    })
}

/// Pane `i`'s title (its face's, marked when zoomed) and the waiting input under its
/// transcript.
fn pane_head(app: &App, i: usize, active: bool) -> (String, Vec<Line<'static>>) {
    let pane = &app.panes[i];
    let (title, waiting) = match pane.term.as_deref().and_then(|n| app.term(n)) {
        Some(t) => {
            let idx = app.listed_index(&t.info.name);
            let title = if pane.diff {
                diff::face::title(&t.info.name, idx, t.diff.as_ref())
            } else {
                pane_title(t, idx, pane.scroll, pane.shell)
            };
            let selected = app.selected.filter(|_| active);
            let editing = app
                .editing
                .as_ref()
                .filter(|(n, _)| *n == t.info.name)
                .map(|(_, i)| *i);
            (title, waiting_lines(t, selected, editing))
        }
        None => (" baton ".to_string(), Vec::new()),
    };
    if app.zoomed {
        let title = format!("{}· zoomed ({}) ", title, app.keys.hint(A::Zoom));
        return (title, waiting);
    }
    (title, waiting)
}

/// What marks the focused pane's title, before it.
pub const FOCUS_MARK: &str = "▶ ";

/// A pane's frame, `width` cells wide. The focused one (`focused`: of several) is unmistakable
/// without colours too: a double line, `FOCUS_MARK` and a bold title (and cyan, where there
/// are colours), as tmux marks its active pane and window.
fn pane_block(title: &str, focused: bool, width: u16) -> Block<'static> {
    let room = usize::from(width.saturating_sub(2));
    let block = Block::default().borders(Borders::ALL);
    if !focused {
        return block.title(truncate(title, room));
    }
    let title = format!(" {FOCUS_MARK}{}", title.trim_start());
    block
        .border_type(BorderType::Double)
        .border_style(Style::default().fg(Color::Cyan))
        .title_style(Style::default().add_modifier(Modifier::BOLD))
        .title(truncate(&title, room))
}

fn draw_pane(f: &mut Frame, app: &mut App, i: usize, area: Rect) {
    let active = i == app.active;
    let (title, waiting) = pane_head(app, i, active);
    let block = pane_block(&title, active && app.panes.len() > 1, area.width);
    let inner = block.inner(area);
    f.render_widget(block, area);
    app.panes[i].area = area;
    if inner.is_empty() {
        // Only its border fits: nothing to wrap or scroll.
        app.panes[i].rows = 0;
        return;
    }
    if let Mode::Copy(v) = &app.mode {
        if v.pane == i {
            copy::mode::draw(f, v, inner);
            return;
        }
    }
    if app.panes[i].shell && app.connected {
        if let Some(t) = app.panes[i].term.as_deref().and_then(|n| app.term(n)) {
            draw_shell(f, t, inner, active && app.mode == Mode::Normal);
            return;
        }
    }
    if app.panes[i].diff && app.connected && app.panes[i].term.is_some() {
        diff::face::draw(f, app, i, inner);
        return;
    }
    let wait_h = (waiting.len() as u16).min(inner.height.saturating_sub(1));
    let [body, wait] = split_v(inner, [Constraint::Min(0), Constraint::Length(wait_h)]);
    f.render_widget(Paragraph::new(waiting), wait);
    if let Some(text) = placeholder(app, &app.panes[i]) {
        f.render_widget(Paragraph::new(Line::styled(text, dim())), body);
        return;
    }
    wrap_pane(app, i, body.width);
    let pane = &mut app.panes[i];
    let lines = &pane.cache.lines;
    let rows = usize::from(body.height);
    pane.rows = rows;
    let max_scroll = lines.len().saturating_sub(rows);
    pane.scroll = pane.scroll.min(max_scroll);
    let end = lines.len() - pane.scroll;
    let start = end.saturating_sub(rows);
    // Only the rows shown are copied: a long transcript costs nothing per frame once wrapped.
    let visible: Vec<Line<'static>> = lines[start..end].to_vec();
    f.render_widget(Paragraph::new(visible), body);
}

/// Brings the pane's cached transcript lines to `width`, wrapping again only when something
/// changed.
fn wrap_pane(app: &mut App, i: usize, width: u16) {
    let Some(name) = app.panes[i].term.clone() else {
        app.panes[i].cache = Default::default();
        return;
    };
    let Some(t) = app.terms.iter().find(|t| t.info.name == name) else {
        app.panes[i].cache = Default::default();
        return;
    };
    let expand = t.expand_tools;
    lines::rewrap(&mut app.panes[i].cache, &name, &t.transcript, width, expand);
}

/// The shell face: the shell's screen, cell by cell, and the cursor when the pane has focus.
fn draw_shell(f: &mut Frame, t: &TermView, inner: Rect, focused: bool) {
    let Some(view) = &t.shell else {
        let line = Line::styled("starting the shell…", dim());
        f.render_widget(Paragraph::new(line), inner);
        return;
    };
    let cursor = shell::render(view.screen.screen(), inner, f.buffer_mut());
    if let Some(note) = view.ended_note() {
        let last = Rect::new(inner.x, inner.bottom().saturating_sub(1), inner.width, 1);
        let style = Style::default()
            .fg(Color::Yellow)
            .add_modifier(Modifier::BOLD);
        f.render_widget(Clear, last);
        f.render_widget(Paragraph::new(Line::styled(note, style)), last);
        return;
    }
    if let Some(pos) = cursor.filter(|_| focused && view.live()) {
        f.set_cursor_position(pos);
    }
}

/// The server's waiting input under the transcript, next to run first: the selected one marked
/// (and kept in view), the one taken back to edit said so.
fn waiting_lines(t: &TermView, selected: Option<u32>, editing: Option<u32>) -> Vec<Line<'static>> {
    let queue = &t.info.queue;
    let style = Style::default().fg(Color::Yellow);
    let at = selected.and_then(|s| queue.iter().position(|q| q.input == s));
    let start = at.map_or(0, |i| (i + 1).saturating_sub(WAITING_SHOWN));
    let mut out = Vec::new();
    if start > 0 {
        out.push(Line::styled(format!("  +{start} before"), style));
    }
    for q in queue.iter().skip(start).take(WAITING_SHOWN) {
        let first = q.prompt.lines().next().unwrap_or("");
        let provider = q.provider.to_string();
        let via = match (q.provider != t.info.provider, &q.model) {
            (true, Some(m)) => format!(" ({provider}/{m})"),
            (true, None) => format!(" ({provider})"),
            (false, Some(m)) => format!(" ({m})"),
            (false, None) => String::new(),
        };
        let what = match q.mode {
            crate::words::InputMode::Queue => "waiting",
            crate::words::InputMode::Steer => "steer",
        };
        let (mark, line_style) = if Some(q.input) == selected {
            ("▸", style.add_modifier(Modifier::REVERSED))
        } else {
            ("⏸", style)
        };
        let edit = if Some(q.input) == editing {
            " ✎ editing"
        } else {
            ""
        };
        let text = format!(
            "{mark} {what} {} · #{}{via}{edit}: {first}",
            q.position, q.input
        );
        out.push(Line::styled(text, line_style));
    }
    let after = queue.len().saturating_sub(start + WAITING_SHOWN);
    if after > 0 {
        out.push(Line::styled(format!("  +{after} more"), style));
    }
    out
}

/// What the composer's title says the next prompt changes: a provider switch starts that
/// provider's own session in the same conversation; a model change resumes the session on it.
fn change_note(provider: bool, model: bool) -> &'static str {
    match (provider, model) {
        (true, true) => " (provider + model change)",
        (true, false) => " (provider switch)",
        (false, true) => " (model change)",
        (false, false) => "",
    }
}

fn composer_title(app: &App) -> String {
    if app.offer.is_some() {
        return " prompt → a new terminal here · Enter creates it and sends ".into();
    }
    let Some(t) = app.focused() else {
        return " prompt ".into();
    };
    if let Some((_, input)) = app.editing.as_ref().filter(|(n, _)| *n == t.info.name) {
        // The edit keeps the input's own provider and model: only its text changes.
        return format!(
            " editing waiting input #{input} of {} · Enter saves (empty: leaves it) ",
            t.info.name
        );
    }
    if let Some(hint) = slash::hint(app.composer.text()) {
        return hint;
    }
    let mut provider = app.prompt_provider().unwrap_or_default();
    if let Some(m) = app.prompt_model() {
        provider = format!("{provider}/{m}");
    }
    let switch = change_note(app.next_provider.is_some(), app.next_model.is_some());
    let fresh = if app.next_fresh {
        format!(
            " · opens a fresh conversation ({}: no)",
            input_key(I::ToggleFresh).label()
        )
    } else {
        String::new()
    };
    let mut title = format!(
        " prompt → {}{fresh} · {provider}{switch} · Tab: provider",
        t.info.name
    );
    if t.busy() {
        title.push_str(" · Enter queues");
    }
    title.push(' ');
    title
}

fn draw_composer(f: &mut Frame, app: &App, area: Rect) {
    let block = Block::default().borders(Borders::ALL).title(truncate(
        &composer_title(app),
        usize::from(area.width.saturating_sub(2)),
    ));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let (rows, (crow, ccol)) = app
        .composer
        .window(usize::from(inner.width), usize::from(inner.height));
    let shown: Vec<Line<'static>> = rows.into_iter().map(Line::from).collect();
    f.render_widget(Paragraph::new(shown), inner);
    if app.mode == Mode::Normal {
        let x = inner.x + (ccol as u16).min(inner.width.saturating_sub(1));
        let y = inner.y + (crow as u16).min(inner.height.saturating_sub(1));
        f.set_cursor_position((x, y));
    }
}

fn hints(app: &App) -> String {
    let p = app.keys.prefix.label();
    // The configured keys: bare after the prefix, else with the prefix before them.
    let k = |a| app.keys.key(a).label();
    let h = |a| app.keys.hint(a);
    if app.prefix_armed {
        return format!(
            "{p} … {} shell · {} diff · {} new · {} fork · {} rename · {} remove · {}/{} archive/archived · {}/{} next/prev · 0-9 jump · {} {} split · {}/arrows pane · {} zoom · {} close pane · {} detach · {} help",
            k(A::ToggleShell), k(A::ToggleDiff), k(A::NewTerminal), k(A::Fork), k(A::Rename), k(A::Remove),
            k(A::Archive), k(A::ShowArchived),
            k(A::Next), k(A::Prev), k(A::SplitBeside), k(A::SplitBelow), k(A::NextPane),
            k(A::Zoom), k(A::ClosePane), k(A::Detach), k(A::Help)
        );
    }
    match &app.mode {
        Mode::NewTerminal(_) => {
            "Enter create · Tab next field · ←/→ provider · Esc cancel".into()
        }
        Mode::Help { .. } => "↑↓ j/k PageUp/PageDown g/G scroll · any other key closes the help".into(),
        Mode::ConfirmRemove(name) => format!(
            "remove {name}? its work is committed and its branch kept · y/n"
        ),
        Mode::Rename { name, text } => format!("rename {name} to: {text}"),
        Mode::Model { text } => format!("model for the next prompt: {text}"),
        Mode::Command { text } => format!(":{text}"),
        Mode::Instructions(o) => standing::hint(o),
        Mode::Picker(_) => {
            "↑↓ j/k move · / or type to filter · Enter show it in the pane · Esc close".into()
        }
        Mode::Copy(v) => copy::mode::hint(v),
        Mode::Normal if app.shell_focused() => format!(
            "shell: keys go to the shell · {} transcript · {p} {p} sends {p} · {} help · {} detach",
            h(A::ToggleShell), h(A::Help), h(A::Detach)
        ),
        Mode::Normal if app.offer.is_some_and(|o| o.creating) => {
            format!("creating a terminal in {}…", app.cwd)
        }
        Mode::Normal if app.offer.is_some() => format!(
            "No terminal works in {}: Enter creates one here with the prompt typed · C-y create · C-e edit first · Esc no",
            app.cwd
        ),
        Mode::Normal if app.focused_approval().is_some() => app
            .focused_approval()
            .map(crate::tui::app::approval::hint)
            .unwrap_or_default(),
        Mode::Normal if app.selected.is_some() => format!(
            "waiting #{}: e edit · x withdraw · K/J move · s steer · ! jump{} · ↑/↓ select · Esc back",
            app.selected.unwrap_or_default(),
            if app.focused().is_some_and(|t| t.info.queue_held) {
                " · r run the held queue"
            } else {
                ""
            }
        ),
        Mode::Normal if app.focused().is_some_and(|t| t.info.state == Running) => format!(
            "Enter queue · {} steer · {} jump · ↑ waiting list · Esc interrupt · PgUp/PgDn scroll · {} new · {} help · {} detach",
            input_key(I::SendSteer).label(), input_key(I::SendJump).label(),
            h(A::NewTerminal), h(A::Help), h(A::Detach)
        ),
        Mode::Normal => format!(
            "Enter send · Alt-Enter newline · Tab provider · {} shell · {} new · {} help · {}/{} · {} detach",
            h(A::ToggleShell), h(A::NewTerminal), h(A::Help), h(A::Next), k(A::Prev), h(A::Detach)
        ),
    }
}

fn draw_status(f: &mut Frame, app: &App, area: Rect) {
    let label = Span::styled(
        label_text(app),
        Style::default().add_modifier(Modifier::REVERSED),
    );
    let (text, style) = match (&app.status, &app.mode) {
        (None, Mode::Normal) if app.offer.is_some() && !app.shell_focused() => {
            (hints(app), Style::default().fg(Color::Yellow))
        }
        (None, Mode::Normal) if app.focused_approval().is_some() && !app.shell_focused() => {
            (hints(app), Style::default().fg(Color::Magenta))
        }
        (
            _,
            Mode::ConfirmRemove(_)
            | Mode::Rename { .. }
            | Mode::Model { .. }
            | Mode::Command { .. },
        ) => (hints(app), Style::default().fg(Color::Yellow)),
        (_, Mode::Copy(v)) if v.prompt.is_some() => {
            (hints(app), Style::default().fg(Color::Yellow))
        }
        (Some((msg, true)), _) => (msg.clone(), Style::default().fg(Color::Red)),
        (Some((msg, false)), _) => (msg.clone(), Style::default()),
        (None, _) => (hints(app), dim()),
    };
    let room = usize::from(area.width).saturating_sub(str_width(&label.content) + 1);
    let line = Line::from(vec![
        label,
        Span::raw(" "),
        Span::styled(truncate(&text.replace('\n', " "), room), style),
    ]);
    f.render_widget(Paragraph::new(line), area);
    let typing = match &app.mode {
        Mode::Rename { .. } | Mode::Model { .. } | Mode::Command { .. } => true,
        Mode::Copy(v) => v.prompt.is_some(),
        _ => false,
    };
    if typing {
        let x = area.x + (str_width(&label_text(app)) + 1 + str_width(&text)) as u16;
        f.set_cursor_position((x.min(area.right().saturating_sub(1)), area.y));
    }
}

fn label_text(app: &App) -> String {
    format!(" {} ", app.title)
}

pub(super) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// The focused terminal's standing instructions, numbered as `baton instructions NAME` numbers
/// them (so `rm N` removes the line the user sees).
fn draw_form(f: &mut Frame, form: &NewForm) {
    let area = centered(f.area(), 70, 8);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" new terminal ");
    let inner = block.inner(area);
    f.render_widget(Clear, area);
    f.render_widget(block, area);
    let mut out = Vec::new();
    let mut cursor = None;
    for (row, field) in Field::ALL.iter().enumerate() {
        let label = format!(" {:>8}: ", field.label());
        let value = form.value(*field);
        let focused = *field == form.focus;
        let style = if focused {
            Style::default().add_modifier(Modifier::BOLD)
        } else {
            Style::default()
        };
        if focused && *field != Field::Provider {
            let x = str_width(&label) + str_width(&value);
            cursor = Some((x, row));
        }
        let room = usize::from(inner.width).saturating_sub(str_width(&label));
        out.push(Line::from(vec![
            Span::styled(label, Style::default().fg(Color::Cyan)),
            Span::styled(truncate(&value, room), style),
        ]));
    }
    let note = match (&form.error, form.busy) {
        (Some(e), _) => Line::styled(format!(" {e}"), Style::default().fg(Color::Red)),
        (None, true) => Line::styled(" creating…", dim()),
        (None, false) => Line::styled(" empty name: the directory's name", dim()),
    };
    out.push(note);
    f.render_widget(Paragraph::new(out), inner);
    if let Some((x, y)) = cursor {
        let x = inner.x + (x as u16).min(inner.width.saturating_sub(1));
        if (y as u16) < inner.height {
            f.set_cursor_position((x, inner.y + y as u16));
        }
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "list_tests.rs"]
mod list_tests;
