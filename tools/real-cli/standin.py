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
  The default text answer of such a turn ends with " saw=<the steers the request carries,
  joined by ' | ', 200 chars at most>" when it carries any (the TEXT of "The user sent a new
  message while you were working:\nTEXT\n\n…", in a user text block or a system message).

  python3 standin.py PORT LOGFILE
"""
import json
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
        tt = tool_turn(msgs) if body.get("stream") and body.get("tools") else None
        tool = None
        if tt is not None:
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
            for p in pieces(json.dumps(tool["input"]), 40 if slow else 2):
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
