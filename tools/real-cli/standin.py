#!/usr/bin/env python3
"""Stand-in model server for running the REAL Claude Code and Codex CLIs offline.

Standard library only. Serves on 127.0.0.1:PORT:
  POST /v1/messages               Anthropic Messages API (stream or not)  -> Claude Code
  POST /v1/messages/count_tokens  {"input_tokens": ...}
  POST /v1/responses              OpenAI Responses API (SSE)              -> Codex
  GET  anything else              harmless empty answers (model lists, etc.)
Every request (method, path, a few headers, body) is appended as one JSON line to LOG.

Usage numbers for the n-th model request (counted over both APIs):
  Claude: input = 1000+n, cache_creation = 2000+n, cache_read = 3000+n, output = 40+n
  Codex:  input = 10000+n, cached 0, output = 10+n
Markers in the LAST user message (anywhere in its text):
  [[ctx:N]]      the call's input + cache numbers (+ output) add up to N
  [[reply:TEXT]] answer TEXT instead of "STANDIN-REPLY #n model=M last_user=<first 60 chars>"
  [[slow:MS]]    stream the answer in 40 pieces, MS milliseconds apart
  [[status:C]]   answer HTTP status C with an API error body instead (e.g. 529, 400, 401)
  [[tools:K]]    (Claude) the first K calls of the turn answer with a Bash tool_use instead of
                 text (counted as tool_use blocks after the user message holding the marker);
                 the command is `sleep S; echo STANDIN-TOOL-n` with [[toolms:MS]] (S = MS/1000),
                 else `echo STANDIN-TOOL-n`. [[slow:MS]] from that message applies to every
                 call of the turn (a tool call's input streams in 40 pieces too).
  [[tool:NAME:ARG]], [[deny:NAME:ARG]]  (repeatable; tools.py) the turn's first calls are these
                 tool calls, one per model call, in order ([[tool:]] ones first, then [[deny:]]:
                 for the stand-in both are plain calls, the CLI decides what it refuses), then the
                 text answer ([[reply:]] of the prompt, else the default). Claude inputs as the
                 real tools': Bash {command, description}, Read {file_path}, Edit {file_path,
                 old_string "old line", new_string "new line", replace_all}, Write {file_path,
                 content}, Task/Agent (whichever name the request's tools offer) {description:
                 ARG, prompt "[[tool:Read:a.txt]] [[reply:Subagent done: ARG]]", subagent_type
                 general-purpose; with [[fg]] in the prompt also run_in_background false}: the subagent's own requests read a.txt, then answer; paths
                 are the request's "Primary working directory" + ARG. Codex: Bash an
                 `exec_command` {cmd: ARG}; Edit / Write the `apply_patch` custom tool (Update
                 ARG "old line" -> "new line" / Add ARG "written by standin"). Codex gets the
                 apply_patch tool only for a known model (run it with -m gpt-5.5).
  The default text answer of such a turn ends with " saw=<the steers the request carries,
  joined by ' | ', 200 chars at most>" when it carries any (the TEXT of "The user sent a new
  message while you were working:\nTEXT\n\n…", in a user text block or a system message).

  python3 standin.py PORT LOGFILE
"""
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
COUNTER = [0]
LOG_PATH = None
KEEP_HEADERS = ("user-agent", "anthropic-beta", "anthropic-version", "authorization",
                "x-api-key", "x-app", "originator", "session_id", "content-type")


def next_n():
    with LOCK:
        COUNTER[0] += 1
        return COUNTER[0]


def log(entry):
    with LOCK:
        with open(LOG_PATH, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")


def text_of(content):
    """Flatten a message content (string or list of blocks) into text."""
    if isinstance(content, str):
        return content
    out = []
    for b in content or []:
        if isinstance(b, dict):
            if isinstance(b.get("text"), str):
                out.append(b["text"])
            elif "content" in b:
                out.append(text_of(b["content"]))
    return "\n".join(out)


def last_text(content):
    """The last text block of a message: Claude folds a failed turn's prompt into the next user
    message, so only the newest block carries this request's markers."""
    if isinstance(content, list):
        texts = [b for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts:
            return texts[-1]["text"]
    return text_of(content)


def markers(text):
    m = {}
    for key in ("ctx", "slow", "status"):
        r = re.findall(r"\[\[" + key + r":(\d+)\]\]", text)
        if r:
            m[key] = int(r[-1])
    r = re.findall(r"\[\[reply:(.*?)\]\]", text, re.S)
    if r:
        m["reply"] = r[-1]
    return m


def user_texts(msg):
    """The text blocks of a user message (not tool results), reminders removed, non-empty."""
    c = msg.get("content")
    if isinstance(c, str):
        c = [{"type": "text", "text": c}]
    out = []
    for b in c or []:
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
            t = strip_reminders(b["text"])
            if t:
                out.append(t)
        elif isinstance(b, dict) and b.get("type") == "tool_result":
            inner = b.get("content")
            if isinstance(inner, list):
                for ib in inner:
                    if isinstance(ib, dict) and ib.get("type") == "text":
                        t = strip_reminders(ib.get("text") or "")
                        if "new message" in t:
                            out.append(t)
    return out


def tool_turn(msgs):
    """(K, slow, toolms, index of the message with [[tools:K]]) or None."""
    for i in range(len(msgs) - 1, -1, -1):
        m = msgs[i]
        if m.get("role") != "user":
            continue
        t = "\n".join(user_texts(m))
        r = re.findall(r"\[\[tools:(\d+)\]\]", t)
        if r:
            mk = markers(t)
            tm = re.findall(r"\[\[toolms:(\d+)\]\]", t)
            return int(r[-1]), mk.get("slow"), int(tm[-1]) if tm else 0, i
        c = m.get("content")
        if not (isinstance(c, list) and any(isinstance(b, dict) and b.get("type") == "tool_result"
                                            for b in c)):
            return None  # a prompt without the marker: a turn of its own
    return None


SCRIPT_RE = re.compile(r"\[\[(tool|deny):([A-Za-z_]+):(.*?)\]\]", re.S)


def script_of(text):
    """The [[tool:NAME:ARG]] calls of a prompt, then its [[deny:NAME:ARG]] ones."""
    found = SCRIPT_RE.findall(text)
    return [(n, a.strip()) for k, n, a in found if k == "tool"] + \
        [(n, a.strip()) for k, n, a in found if k == "deny"]


def claude_script(msgs):
    """(steps, index of the prompt message) of a turn whose prompt holds tool markers."""
    for i in range(len(msgs) - 1, -1, -1):
        m = msgs[i]
        if m.get("role") != "user":
            continue
        c = m.get("content")
        only_results = isinstance(c, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in c)
        steps = script_of("\n".join(user_texts(m)))
        if steps:
            return steps, i
        if not only_results:
            return None
    return None


def claude_cwd(body):
    m = re.search(r"(?:Primary working directory|Working directory): ([^\n\\]+)", json.dumps(body))
    return m.group(1).strip() if m else ""


def claude_step(name, arg, cwd, tool_names, fg=False):
    path = os.path.join(cwd, arg)
    if name == "Bash":
        return name, {"command": arg, "description": "Run " + arg}
    if name == "Read":
        return name, {"file_path": path}
    if name == "Edit":
        return name, {"file_path": path, "old_string": "old line", "new_string": "new line",
                      "replace_all": False}
    if name == "Write":
        return name, {"file_path": path, "content": "written by standin\n"}
    if name in ("Task", "Agent"):
        name = "Agent" if "Agent" in tool_names else "Task"
        step = {"description": arg, "subagent_type": "general-purpose",
                "prompt": "[[tool:Read:a.txt]] [[reply:Subagent done: %s]]" % arg}
        if fg:
            step["run_in_background"] = False
        return name, step
    if name in ("Grep", "Glob"):
        return name, {"pattern": arg}
    return name, {"arg": arg}


def codex_step(name, arg, n):
    """A Codex output item for one step (None: Codex has no such tool here)."""
    if name == "Bash":
        return {"type": "function_call", "id": "fc_%d" % n, "status": "completed",
                "name": "exec_command", "arguments": json.dumps({"cmd": arg}),
                "call_id": "call_%d" % n}
    if name in ("Edit", "Write"):
        body = ("*** Update File: %s\n@@\n-old line\n+new line\n" % arg if name == "Edit"
                else "*** Add File: %s\n+written by standin\n" % arg)
        return {"type": "custom_tool_call", "id": "ctc_%d" % n, "status": "completed",
                "call_id": "call_%d" % n, "name": "apply_patch",
                "input": "*** Begin Patch\n" + body + "*** End Patch\n"}
    return None


def strip_reminders(text):
    return re.sub(r"<system-reminder>.*?</system-reminder>", "", text, flags=re.S).strip()


def pieces(text, k):
    if k <= 1 or len(text) < 2:
        return [text]
    size = max(1, -(-len(text) // k))
    return [text[i:i + size] for i in range(0, len(text), size)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *a):
        pass

    def _body(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _log(self, body, extra=None):
        e = {"ts": time.time(), "method": self.command, "path": self.path,
             "headers": {k: v for k, v in self.headers.items() if k.lower() in KEEP_HEADERS},
             "body": body}
        if extra:
            e.update(extra)
        log(e)

    def _json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("request-id", "req_standin_" + uuid.uuid4().hex[:12])
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse_start(self):
        self.send_response(200)
        self.send_header("request-id", "req_standin_" + uuid.uuid4().hex[:12])
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.end_headers()

    def _sse(self, event, data):
        self.wfile.write(("event: %s\ndata: %s\n\n" % (event, json.dumps(data))).encode())
        self.wfile.flush()

    def do_GET(self):
        self._log(None)
        if "/models" in self.path:
            self._json(200, {"data": [], "models": [], "has_more": False})
        else:
            self._json(200, {})

    def do_HEAD(self):
        self.send_response(200)
        self.end_headers()

    def do_POST(self):
        body = self._body()
        path = self.path.split("?")[0]
        try:
            if path.endswith("/messages/count_tokens"):
                self._log(body)
                self._json(200, {"input_tokens": 1000})
            elif path.endswith("/messages"):
                self.anthropic(body)
            elif path.endswith("/responses"):
                self.openai(body)
            else:
                self._log(body)
                self._json(200, {})
        except (BrokenPipeError, ConnectionResetError):
            log({"ts": time.time(), "path": path, "note": "client closed the connection"})

    # ---- Anthropic Messages API (Claude Code) ----
    def anthropic(self, body):
        n = next_n()
        msgs = body.get("messages", []) if isinstance(body, dict) else []
        last_user = next((m for m in reversed(msgs) if m.get("role") == "user"), {})
        utext = last_text(last_user.get("content"))
        mk = markers(utext)
        model = body.get("model", "unknown")
        self._log(body, {"n": n, "n_messages": len(msgs), "markers": mk})
        if "status" in mk:
            code = mk["status"]
            kind = {529: "overloaded_error", 401: "authentication_error",
                    429: "rate_limit_error"}.get(code, "invalid_request_error")
            return self._json(code, {"type": "error", "error": {"type": kind,
                                                                "message": "standin %d" % code}})
        out = 40 + n
        if "ctx" in mk:
            rest = max(3, mk["ctx"] - out)
            cc, cr = rest // 3, rest // 3
            inp = rest - cc - cr
        else:
            inp, cc, cr = 1000 + n, 2000 + n, 3000 + n
        visible = strip_reminders(utext)
        # Only the agent's own calls (streamed, with tools) get tool calls, not side queries.
        agentic = body.get("stream") and body.get("tools")
        tt = tool_turn(msgs) if agentic else None
        sc = claude_script(msgs) if agentic else None
        tool = None
        if sc is not None:
            steps, at = sc
            used = sum(1 for m in msgs[at + 1:] if m.get("role") == "assistant"
                       for b in (m.get("content") if isinstance(m.get("content"), list) else [])
                       if isinstance(b, dict) and b.get("type") == "tool_use")
            prompt = "\n".join(user_texts(msgs[at]))
            if used < len(steps):
                names = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
                name, tinput = claude_step(steps[used][0], steps[used][1], claude_cwd(body), names,
                                             "[[fg]]" in prompt)
                tool = {"id": "toolu_standin_%d" % n, "name": name, "input": tinput,
                        "scripted": True}
            mk = dict(markers(prompt), **{k: v for k, v in mk.items() if k != "reply"})
            visible = prompt
            later = []
        elif tt is not None:
            k, tslow, toolms, at = tt
            used = sum(1 for m in msgs[at + 1:] if m.get("role") == "assistant"
                       for b in (m.get("content") if isinstance(m.get("content"), list) else [])
                       if isinstance(b, dict) and b.get("type") == "tool_use")
            if tslow and "slow" not in mk:
                mk["slow"] = tslow
            if used < k:
                cmd = ("sleep %g; echo STANDIN-TOOL-%d" % (toolms / 1000.0, n)) if toolms \
                    else "echo STANDIN-TOOL-%d" % n
                tool = {"id": "toolu_standin_%d" % n, "name": "Bash",
                        "input": {"command": cmd, "description": "standin tool call %d" % n}}
            later = [t for m in msgs[at + 1:] if m.get("role") == "user" for t in user_texts(m)] + \
                [t for m in msgs[at + 1:] if m.get("role") == "system" for t in user_texts(m)
                 if "new message while you were working" in t]
            # A steer: "The user sent a new message while you were working:\nTEXT\n\n…" (2.1.332:
            # a text block next to the tool result; 2.1.197: a `system` message after it).
            later = [x for t in later for x in re.findall(
                r"The user sent a new message while you were working:\n(.*?)\n\n", t, re.S)] or later
            if tool is None:  # the answer of a tool turn names the turn's prompt
                visible = "\n".join(user_texts(msgs[at]))
        else:
            later = []
        reply = mk.get("reply", "STANDIN-REPLY #%d model=%s last_user=%s"
                       % (n, model, visible[:60]))
        if later and "reply" not in mk:
            reply += " saw=" + " | ".join(later)[:200]
        usage = {"input_tokens": inp, "cache_creation_input_tokens": cc,
                 "cache_read_input_tokens": cr, "output_tokens": out}
        mid = "msg_standin_%d_%s" % (n, uuid.uuid4().hex[:8])
        if not body.get("stream"):
            return self._json(200, {"id": mid, "type": "message", "role": "assistant",
                                    "model": model, "content": [{"type": "text", "text": reply}],
                                    "stop_reason": "end_turn", "stop_sequence": None,
                                    "usage": usage})
        self._sse_start()
        start_usage = dict(usage, output_tokens=1)
        self._sse("message_start", {"type": "message_start", "message": {
            "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": start_usage}})
        slow = mk.get("slow")
        if tool is not None:
            self._sse("content_block_start", {"type": "content_block_start", "index": 0,
                                              "content_block": {"type": "tool_use", "id": tool["id"],
                                                                "name": tool["name"], "input": {}}})
            self._sse("ping", {"type": "ping"})
            whole = json.dumps(tool["input"])
            # A scripted call's input comes in two pieces cut after its `{`: no path is ever
            # split, so a capture's paths can be rewritten.
            parts = [whole[:1], whole[1:]] if tool.get("scripted") else \
                pieces(whole, 40 if slow else 2)
            for p in parts:
                if slow:
                    time.sleep(slow / 1000.0)
                self._sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                  "delta": {"type": "input_json_delta",
                                                            "partial_json": p}})
            self._sse("content_block_stop", {"type": "content_block_stop", "index": 0})
            self._sse("message_delta", {"type": "message_delta",
                                        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                        "usage": {"output_tokens": out}})
            self._sse("message_stop", {"type": "message_stop"})
            return
        self._sse("content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "text", "text": ""}})
        self._sse("ping", {"type": "ping"})
        for p in pieces(reply, 40 if slow else 3):
            if slow:
                time.sleep(slow / 1000.0)
            self._sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                              "delta": {"type": "text_delta", "text": p}})
        self._sse("content_block_stop", {"type": "content_block_stop", "index": 0})
        self._sse("message_delta", {"type": "message_delta",
                                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                    "usage": {"output_tokens": out}})
        self._sse("message_stop", {"type": "message_stop"})

    # ---- OpenAI Responses API (Codex) ----
    def openai(self, body):
        n = next_n()
        items = body.get("input", []) if isinstance(body, dict) else []
        users = [i for i in items if isinstance(i, dict) and i.get("role") == "user"]
        utext = last_text(users[-1].get("content")) if users else ""
        mk = markers(utext)
        last_user = max((k for k, i in enumerate(items) if isinstance(i, dict)
                         and i.get("role") == "user"), default=-1)
        steps = [s for s in script_of(utext) if codex_step(s[0], s[1], 0)]
        done_calls = sum(1 for i in items[last_user + 1:] if isinstance(i, dict)
                         and i.get("type") in ("function_call", "custom_tool_call"))
        model = body.get("model", "unknown")
        self._log(body, {"n": n, "n_input_items": len(items), "n_user_items": len(users),
                         "markers": mk})
        if "status" in mk:
            return self._json(mk["status"], {"error": {"message": "standin %d" % mk["status"],
                                                       "type": "invalid_request_error"}})
        out = 10 + n
        inp = max(1, mk["ctx"] - out) if "ctx" in mk else 10000 + n
        reply = mk.get("reply", "STANDIN-REPLY #%d model=%s last_user=%s" % (n, model, utext[:60]))
        rid, iid = "resp_%d" % n, "msg_%d" % n
        if done_calls < len(steps) and "status" not in mk:
            return self.openai_call(n, model, codex_step(*steps[done_calls], n), mk)
        usage = {"input_tokens": inp, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": out, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": inp + out}
        resp = {"id": rid, "object": "response", "created_at": int(time.time()),
                "status": "in_progress", "model": model, "output": []}
        self._sse_start()
        self._sse("response.created", {"type": "response.created", "response": resp})
        item = {"id": iid, "type": "message", "status": "in_progress", "role": "assistant",
                "content": []}
        self._sse("response.output_item.added", {"type": "response.output_item.added",
                                                 "output_index": 0, "item": item})
        slow = mk.get("slow")
        for p in pieces(reply, 40 if slow else 3):
            if slow:
                time.sleep(slow / 1000.0)
            self._sse("response.output_text.delta", {
                "type": "response.output_text.delta", "item_id": iid, "output_index": 0,
                "content_index": 0, "delta": p})
        done = dict(item, status="completed",
                    content=[{"type": "output_text", "text": reply, "annotations": []}])
        self._sse("response.output_item.done", {"type": "response.output_item.done",
                                                "output_index": 0, "item": done})
        self._sse("response.completed", {"type": "response.completed", "response": dict(
            resp, status="completed", output=[done], usage=usage)})


    def openai_call(self, n, model, item, mk):
        """One Responses API answer that is a tool call (a function or custom tool call)."""
        out = 10 + n
        inp = max(1, mk["ctx"] - out) if "ctx" in mk else 10000 + n
        usage = {"input_tokens": inp, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": out, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": inp + out}
        resp = {"id": "resp_%d" % n, "object": "response", "created_at": int(time.time()),
                "status": "in_progress", "model": model, "output": []}
        self._sse_start()
        self._sse("response.created", {"type": "response.created", "response": resp})
        self._sse("response.output_item.added", {"type": "response.output_item.added",
                                                 "output_index": 0,
                                                 "item": dict(item, status="in_progress")})
        self._sse("response.output_item.done", {"type": "response.output_item.done",
                                                "output_index": 0, "item": item})
        self._sse("response.completed", {"type": "response.completed", "response": dict(
            resp, status="completed", output=[item], usage=usage)})


def main():
    global LOG_PATH
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18080
    LOG_PATH = sys.argv[2] if len(sys.argv) > 2 else "standin.log.jsonl"
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.daemon_threads = True
    print("standin listening on 127.0.0.1:%d, log %s" % (port, LOG_PATH), flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
