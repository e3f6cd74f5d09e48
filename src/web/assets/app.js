// The web client's page: the socket protocol's requests as POSTs to /api, its watch lines
// as server-sent events from /api/events. Every text of a terminal reaches the page through
// textContent; only answers' Markdown, rendered and sanitized by the server, goes in as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
// `hosts`: each configured host's channel as the server's `host` lines say it (name → link).
const state = { terminals: new Map(), hosts: new Map(), selected: null, live: new Map(), log: null };

// Waiting input being edited on this page, by `NAME\u0000INPUT`: every update of its terminal
// draws the queue again, which must not take back what the user typed (or their caret). A draft
// goes once the server's text is the draft (saved) or its input left the queue.
const drafts = new Map();

// The host a terminal is on (its name `HOST:NAME`), or null: this machine's.
function hostOf(name) {
  const i = name.indexOf(":");
  return i > 0 && state.hosts.has(name.slice(0, i)) ? name.slice(0, i) : null;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

async function post(path, body) {
  const r = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error((await r.text()).trim() || r.statusText);
  return r.json();
}

// One request of the socket protocol: its answer's data, or its error thrown.
async function api(req) {
  const reply = await post("/api", req);
  if (reply.reply === "error") throw new Error(reply.error.message || JSON.stringify(reply.error));
  return reply.data;
}

function showError(e) {
  $("error").textContent = e ? String(e.message || e) : "";
}

async function act(req) {
  showError(null);
  try {
    return await api(req);
  } catch (e) {
    showError(e);
    return null;
  }
}

// ---- the list ----

function needsYou(t) {
  return t.state === "failed" || t.queue_held || (t.context && t.context.rotates_next);
}

function money(cost) {
  if (!cost) return "";
  if (cost.usd !== undefined && cost.usd !== null) return "$" + cost.usd.toFixed(2);
  return (cost.input_tokens + cost.output_tokens) + " tok";
}

function meter(ctx) {
  const m = el("span", "meter");
  const frac = ctx ? Math.min(1, ctx.fraction) : 0;
  if (ctx && ctx.rotates_next) m.classList.add("hot");
  const bar = el("i");
  bar.style.width = Math.round(frac * 100) + "%";
  m.appendChild(bar);
  m.title = ctx ? Math.round(ctx.fraction * 100) + "% of " + ctx.window + " tokens" : "no context yet";
  return m;
}

// This machine's terminals, then each host's under a line with its name (and how its channel
// stands when it is not online), as the multiplexer lists them.
function renderList() {
  const ul = $("terminals");
  ul.replaceChildren();
  const names = [...state.terminals.keys()].sort();
  const rows = (host) => {
    for (const n of names) {
      const t = state.terminals.get(n);
      // Archived terminals are hidden from the list, as from `ls` (the one open stays).
      if (hostOf(n) === host && !(t.archived && n !== state.selected)) ul.appendChild(listItem(n, t));
    }
  };
  rows(null);
  for (const [host, link] of [...state.hosts].sort()) {
    const li = el("li", "host", host + (link.link === "online" ? "" : link.link === "offline" ? " · offline" : " · connecting…"));
    li.dataset.host = host;
    if (link.why) li.title = link.why;
    ul.appendChild(li);
    rows(host);
  }
}

function listItem(name, t) {
  const li = el("li");
  li.dataset.name = name;
  if (name === state.selected) li.classList.add("on");
  const top = el("div", "top");
  top.appendChild(el("span", "nm", name));
  if (needsYou(t)) top.appendChild(el("span", "needs", "needs you"));
  // The integration lane found it conflicting or breaking the check (`baton integrate`).
  if (t.lane) {
    const mark = el("span", "lane", t.lane.status === "conflict" ? "conflict" : t.lane.status.replace("_", " "));
    const files = t.lane.files && t.lane.files.length ? " on " + t.lane.files.join(", ") : "";
    mark.title = (t.lane.conflicts_with.length ? "with " + t.lane.conflicts_with.join(", ") : "") + files;
    top.appendChild(mark);
  }
  top.appendChild(el("span", "st-" + t.state, t.state));
  const sub = el("div", "sub");
  sub.appendChild(el("span", null, t.provider + (t.model ? " " + t.model : "")));
  sub.appendChild(meter(t.context));
  sub.appendChild(el("span", null, money(t.cost)));
  if (t.queued) sub.appendChild(el("span", null, t.queued + " waiting"));
  li.append(top, sub);
  li.addEventListener("click", () => select(name));
  return li;
}

// ---- a terminal ----

async function select(name) {
  state.selected = name;
  document.body.classList.add("open");
  $("view").hidden = false;
  $("diff").hidden = true;
  $("name").textContent = name;
  renderList();
  renderHead();
  renderLive();
  await loadLog();
}

function renderHead() {
  const t = state.terminals.get(state.selected);
  if (!t) return;
  const conv = t.conversation;
  const bits = [t.state, t.provider, t.checkout && t.checkout.branch ? t.checkout.branch : t.dir];
  if (conv) bits.push("conversation " + conv.number + (conv.title ? ": " + conv.title : ""));
  if (t.context) bits.push(Math.round(t.context.fraction * 100) + "% context");
  if (t.cost) bits.push(money(t.cost));
  $("meta").textContent = bits.join(" · ");
  renderQueue(t);
}

function renderQueue(t) {
  const ul = $("queue");
  const was = document.activeElement;
  const focused = was && was.dataset ? was.dataset.draft : undefined;
  const caret = focused ? [was.selectionStart, was.selectionEnd] : null;
  const live = new Set();
  ul.replaceChildren();
  for (const q of t.queue || []) {
    const key = t.name + "\u0000" + q.input;
    live.add(key);
    if (drafts.get(key) === q.prompt) drafts.delete(key);
    const li = el("li");
    li.appendChild(el("span", null, q.position + "."));
    const input = el("input");
    input.dataset.draft = key;
    input.value = drafts.has(key) ? drafts.get(key) : q.prompt;
    input.addEventListener("input", () => drafts.set(key, input.value));
    const button = (label, action) => {
      const b = el("button", null, label);
      b.type = "button";
      b.addEventListener("click", () =>
        act({ cmd: "queue", name: t.name, change: Object.assign({ input: q.input }, action(input)) }));
      return b;
    };
    li.append(
      input,
      button("Save", (i) => ({ action: "edit", text: i.value })),
      button("Steer", () => ({ action: "steer" })),
      button("Jump", () => ({ action: "jump" })),
      button("Remove", () => ({ action: "rm" })),
    );
    ul.appendChild(li);
    if (key === focused) {
      input.focus();
      input.setSelectionRange(caret[0], caret[1]);
    }
  }
  for (const key of [...drafts.keys()]) {
    if (key.startsWith(t.name + "\u0000") && !live.has(key)) drafts.delete(key);
  }
  if (t.queue_held) {
    const b = el("button", null, "Run the held queue");
    b.type = "button";
    b.addEventListener("click", () => act({ cmd: "queue_run", name: t.name }));
    const li = el("li");
    li.appendChild(b);
    ul.appendChild(li);
  }
}

async function loadLog() {
  const name = state.selected;
  const log = await act({ cmd: "log", name });
  if (!log || name !== state.selected) return;
  state.log = log;
  const answers = log.turns.map((t) => t.answer || "");
  let html = [];
  try {
    html = await post("/api/markdown", answers);
  } catch (e) {
    html = [];
  }
  renderTranscript(log, html);
}

function turnLine(t) {
  const bits = ["turn " + t.number, t.status || "running"];
  if (t.context) bits.push(t.context.tokens + "/" + t.context.window + " tokens");
  if (t.cost) bits.push(money(t.cost));
  if (t.commit) bits.push("commit " + t.commit.slice(0, 8));
  if (t.error) bits.push(t.error);
  return el("div", "turnline", bits.join(" · "));
}

function toolsBox(name, turn, tools) {
  const box = el("details", "tools");
  box.appendChild(el("summary", null, tools.length + " tool call" + (tools.length === 1 ? "" : "s")));
  for (const line of tools) box.appendChild(el("div", "tool", line));
  box.addEventListener("toggle", async () => {
    if (!box.open || box.dataset.loaded) return;
    box.dataset.loaded = "1";
    const steps = await act({ cmd: "steps", name, turn });
    if (!steps || !steps.events.length) return;
    box.querySelectorAll(".tool").forEach((n) => n.remove());
    drawSteps(box, steps.events);
  });
  return box;
}

// Tool calls with what they gave back, as a finished turn's steps have them.
function drawSteps(box, events) {
  const byId = new Map();
  for (const ev of events) {
    if (ev.kind === "tool_use") {
      const d = el("div", "tool");
      d.appendChild(el("div", null, ev.name + " " + ev.summary));
      box.appendChild(d);
      if (ev.id) byId.set(ev.id, d);
    } else if (ev.kind === "tool_result") {
      const d = byId.get(ev.id);
      if (!d) continue;
      if (ev.is_error) d.classList.add("err");
      d.appendChild(el("pre", null, ev.output));
    }
  }
}

function renderTranscript(log, html) {
  const box = $("transcript");
  box.replaceChildren();
  const convs = new Map(log.conversations.map((c) => [c.number, c]));
  let shown = null;
  log.turns.forEach((t, i) => {
    if (t.conversation !== shown) {
      shown = t.conversation;
      const c = convs.get(shown);
      const why = c ? "opened: " + c.opened_reason + (c.title ? " · " + c.title : "") : "";
      box.appendChild(el("div", "boundary", "conversation " + shown + (why ? " — " + why : "")));
    }
    box.appendChild(el("div", "prompt", t.prompt));
    if (t.tools.length) box.appendChild(toolsBox(log.name, t.number, t.tools));
    const a = el("div", "answer");
    if (html[i] !== undefined) a.innerHTML = html[i]; // rendered and sanitized by the server
    else {
      a.classList.add("raw");
      a.textContent = t.answer || "";
    }
    box.appendChild(a);
    box.appendChild(turnLine(t));
  });
  box.scrollTop = box.scrollHeight;
}

// ---- the running turn, live ----

function onTurn(name, step) {
  let live = state.live.get(name);
  if (step.step === "started") {
    live = { number: step.number, prompt: step.prompt, pieces: [], tools: [], notes: [] };
    if (step.opened) live.notes.push("conversation " + step.conversation + " opened: " + step.opened);
    state.live.set(name, live);
  } else if (!live) {
    return;
  } else if (step.step === "note") {
    live.notes.push(step.message);
  } else if (step.step === "turn") {
    const ev = step.event;
    if (ev.kind === "text") live.pieces.push(ev.text);
    else if (ev.kind === "delta") {
      if (ev.start || !live.pieces.length) live.pieces.push(ev.text);
      else live.pieces[live.pieces.length - 1] += ev.text;
    } else if (ev.kind === "tool_use") live.tools.push(ev.name + " " + ev.summary);
    else if (ev.kind === "warning" || ev.kind === "notice") live.notes.push(ev.message);
  }
  if (name === state.selected) renderLive();
}

function renderLive() {
  const box = $("live");
  box.replaceChildren();
  const live = state.live.get(state.selected);
  if (!live) return;
  for (const n of live.notes) box.appendChild(el("div", "boundary", n));
  box.appendChild(el("div", "prompt", live.prompt));
  for (const t of live.tools) box.appendChild(el("div", "tool", t));
  const a = el("div", "answer");
  box.appendChild(a);
  drawLiveAnswer(a, live);
  box.appendChild(el("div", "turnline", "turn " + live.number + " · running"));
  box.scrollTop = box.scrollHeight;
  renderLiveMarkdown(state.selected, live);
}

function liveText(live) {
  return live.pieces.join("\n\n");
}

// The answer so far: its Markdown as last rendered, the text that came since as text.
function drawLiveAnswer(a, live) {
  const text = liveText(live);
  if (live.html === undefined) {
    a.classList.add("raw");
    a.textContent = text;
    return;
  }
  a.innerHTML = live.html; // rendered and sanitized by the server, as a finished turn's
  const rest = text.startsWith(live.rendered) ? text.slice(live.rendered.length) : "";
  if (rest) a.appendChild(el("span", "raw", rest));
}

// The running turn's answer rendered as Markdown by the server (sanitized as the finished
// turns' are): one request in flight per turn, the newest text asked again when it returns.
// Only the live answer is redrawn, never the transcript.
async function renderLiveMarkdown(name, live) {
  if (live.asking || live.failed || live.rendered === liveText(live) || !liveText(live)) return;
  live.asking = true;
  const text = liveText(live);
  try {
    const html = await post("/api/markdown", [text]);
    live.html = html[0];
    live.rendered = text;
  } catch (e) {
    live.failed = true; // left as text: the finished turn is rendered from its log anyway
  }
  live.asking = false;
  if (state.live.get(name) !== live || state.selected !== name) return;
  const a = document.querySelector("#live .answer");
  if (a) {
    a.className = "answer";
    a.replaceChildren();
    drawLiveAnswer(a, live);
  }
  renderLiveMarkdown(name, live);
}

// A watch event of this machine (`host` null) or of a host (its names `HOST:NAME`).
function onWatch(ev, host) {
  switch (ev.what) {
    case "terminals":
      // Each source's list replaces only its own terminals.
      for (const n of [...state.terminals.keys()]) if (hostOf(n) === host) state.terminals.delete(n);
      for (const t of ev.terminals) state.terminals.set(t.name, t);
      renderList();
      if (state.selected && hostOf(state.selected) === host) {
        renderHead();
        loadLog();
      }
      break;
    case "terminal": {
      const was = state.terminals.get(ev.terminal.name);
      state.terminals.set(ev.terminal.name, ev.terminal);
      renderList();
      // A terminal starts or stops waiting for an approval: the inbox changed (any other
      // update, a step of a running turn, leaves it as it is).
      const waits = (t) => !!(t && t.approval);
      if (waits(was) !== waits(ev.terminal)) loadApprovals();
      if (ev.terminal.name === state.selected) renderHead();
      break;
    }
    case "turn":
      onTurn(ev.name, ev.event);
      break;
    case "finished":
      state.live.delete(ev.name);
      if (ev.name === state.selected) {
        renderLive();
        loadLog();
      }
      break;
    case "renamed":
      state.terminals.delete(ev.name);
      if (state.selected === ev.name) state.selected = ev.new_name;
      break;
    case "removed":
      state.terminals.delete(ev.name);
      renderList();
      break;
    case "refused":
      if (ev.name === state.selected) showError(ev.error.message || "refused");
      break;
  }
}

function connect() {
  const source = new EventSource("/api/events");
  source.onopen = () => $("conn").classList.add("live");
  source.onerror = () => $("conn").classList.remove("live");
  source.onmessage = (m) => {
    const reply = JSON.parse(m.data);
    if (reply.reply === "watch") onWatch(reply.event, reply.host || null);
    else if (reply.reply === "host") {
      state.hosts.set(reply.host, { link: reply.link, why: reply.why });
      renderList();
    }
  };
}

// ---- the composer and the actions ----

async function send() {
  const text = $("prompt").value;
  if (!text.trim() || !state.selected) return;
  const done = await act({
    cmd: "send", name: state.selected, prompt: text, provider: null, model: null, dir: null,
    mode: $("mode").value, detach: true,
  });
  if (done) $("prompt").value = "";
}

const actions = {
  async diff(name) {
    const d = await act({ cmd: "diff", name, patch: true });
    if (!d) return;
    $("diff").textContent = d.diff || "nothing to land on " + d.branch;
    $("diff").hidden = false;
  },
  async fork(name) {
    const n = prompt("Name of the fork (empty: baton picks one)", "");
    if (n === null) return;
    const f = await act({ cmd: "fork", name, new: n || null });
    if (f) select(f.name);
  },
  async rewind(name) {
    const turn = parseInt(prompt("Rewind to just before turn", "") || "", 10);
    if (!turn) return;
    const r = await act({ cmd: "rewind", name, turn, new: null });
    if (r) {
      await select(r.name);
      $("prompt").value = r.prompt || "";
    }
  },
  async rename(name) {
    const n = prompt("New name", name);
    if (n && n !== name && (await act({ cmd: "rename", name, new_name: n }))) select(n);
  },
  async archive(name) {
    if (confirm("Archive " + name + "?")) await act({ cmd: "archive", name, archived: true });
  },
  async interrupt(name) {
    await act({ cmd: "interrupt", name });
  },
};

async function newTerminal() {
  const dir = prompt("Directory to work in (on the server's machine)", "");
  if (!dir) return;
  const name = prompt("Name (empty: baton picks one)", "") || null;
  const t = await act({ cmd: "new", name, dir, provider: null, model: null, brief: null, in_place: false });
  if (t) select(t.name);
}

// The approvals inbox: listed once the server answers `approvals`; hidden until then.
async function loadApprovals() {
  let items;
  try {
    items = await api({ cmd: "approvals" });
  } catch (e) {
    return;
  }
  if (!Array.isArray(items)) return;
  const ul = $("approval-list");
  ul.replaceChildren(...items.map(approvalItem));
  $("approvals").hidden = items.length === 0;
}

// One request: what it asks, and while it waits the answers `baton approve` / `deny` give.
function approvalItem(a) {
  const li = el("li", null, `${a.terminal}: ${a.tool} ${a.target} (${a.state}, id ${a.id})`);
  li.dataset.id = a.id;
  if (a.state !== "waiting") return li;
  const answer = async (req) => {
    await act(req);
    loadApprovals();
  };
  const button = (label, act, run) => {
    const b = el("button", null, label);
    b.dataset.act = act;
    b.addEventListener("click", run);
    li.append(" ", b);
  };
  button("allow", "allow", () => answer({ cmd: "approve", id: a.id, always: false }));
  button("always", "always", () => answer({ cmd: "approve", id: a.id, always: true }));
  button("deny", "deny", () => {
    const reason = prompt("The reason the model reads (may be empty)", "");
    if (reason !== null) answer({ cmd: "deny", id: a.id, reason: reason || null });
  });
  return li;
}

document.addEventListener("DOMContentLoaded", () => {
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    send();
  });
  $("prompt").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  });
  for (const b of document.querySelectorAll("#actions button")) {
    b.addEventListener("click", () => state.selected && actions[b.dataset.act](state.selected));
  }
  $("new").addEventListener("click", newTerminal);
  $("back").addEventListener("click", () => {
    document.body.classList.remove("open");
    state.selected = null;
    renderList();
  });
  connect();
  loadApprovals();
});
