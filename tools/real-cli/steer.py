#!/usr/bin/env python3
"""Steering a running Claude Code turn (and trying to steer `codex exec`): the captures of
fixtures/captures/steer/, reproduced.

  python3 steer.py --c332 BIN --c197 BIN [--codex BIN] --out DIR [--port 18093] [-k NAME]...

Starts tools/real-cli/standin.py on 127.0.0.1:PORT itself. Every case runs the real CLI in a
private world (DIR/world-CASE/{home,proj}) with stdin kept open as a pipe, and follows a script:
write a line, wait for a stdout line, wait for the stand-in to receive a request, sleep, close
stdin, send a signal. Each case writes, under DIR/CASE/:
  cmd        the command line (paths rewritten)
  stdin.jsonl    every line written to stdin, with ms since start (and the close / signals)
  stdout.jsonl   the CLI's stdout, as is (paths rewritten)
  timeline.txt   ms since start of every stdin write and stdout line (type, subtype, summary)
  stderr.txt, rc
  requests.jsonl the stand-in's log lines of the run: model requests with messages in full,
                 `system` and `tools` cut down to their sizes
  session.jsonl  the session file the CLI left (when there is one)
Paths are rewritten: the world's home -> /home/dev, its project -> /home/dev/proj.
The shim's side of these facts is checked by tests/shims_check.py (claude_stream_json_*).
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SID1 = "5e5e0001-0000-4000-8000-000000000001"
SID2 = "5e5e0002-0000-4000-8000-000000000002"


def msg(text, **extra):
    """A user message line as the Agent SDK writes it."""
    m = {"type": "user", "message": {"role": "user", "content": text}}
    m.update(extra)
    return m


def sdk_msg(text, sid=""):
    return {"type": "user", "session_id": sid, "parent_tool_use_id": None,
            "message": {"role": "user", "content": [{"type": "text", "text": text}]}}


# ---- predicates on stdout events
def is_result(e):
    return e.get("type") == "result"


def is_tool_use(e):
    return e.get("type") == "assistant" and any(
        b.get("type") == "tool_use" for b in e["message"].get("content", []))


def is_tool_result(e):
    return e.get("type") == "user" and isinstance(e["message"].get("content"), list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in e["message"]["content"])


def is_text_assistant(e):
    return e.get("type") == "assistant" and any(
        b.get("type") == "text" for b in e["message"].get("content", []))


def is_delta(e):
    return e.get("type") == "stream_event" and e["event"].get("type") == "content_block_delta"


def is_message_stop(e):
    return e.get("type") == "stream_event" and e["event"].get("type") == "message_stop"


def nth(pred, n):
    """Matches once n events of the whole run (not only those since the last wait) matched."""
    return (pred, n)


STREAM = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
          "--include-partial-messages", "--allowedTools", "Bash"]

# A case: name, versions it runs on, args (after the base), steps.
#   ("send", obj)  ("wait", pred, timeout_s)  ("req", n, timeout_s): wait until the run's n-th
#   streamed model request reached the stand-in   ("sleep", s)   ("close",)   ("signal", SIG)
#   ("end", timeout_s): wait for exit (kill after)
# "pre": a case to run first in the same world (a session to resume).
CASES = []


def case(name, steps, args=None, versions=("2.1.332", "2.1.197"), sid=SID1, resume=None, pre=None,
         note=""):
    CASES.append({"name": name, "steps": steps, "args": args or [], "versions": versions,
                  "sid": sid, "resume": resume, "pre": pre, "note": note})


# 1. the line format and the process lifetime
case("basic-eof-after-result", [("send", msg("hello one")), ("wait", is_result, 30), ("sleep", 2),
                                ("close",), ("end", 15)],
     note="one plain message; stdin open until 2 s after the result, then EOF")
case("sdk-shape", [("send", sdk_msg("hello sdk shape")), ("wait", is_result, 30), ("close",), ("end", 15)],
     note="the Agent SDK's shape: session_id \"\", parent_tool_use_id null, content blocks")
case("two-turns", [("send", msg("first turn")), ("wait", is_result, 30), ("sleep", 1),
                   ("send", msg("second turn")), ("wait", nth(is_result, 2), 30), ("close",), ("end", 15)],
     note="a second message after the first result: a second turn in the same process")
case("eof-before-result", [("send", msg("slow answer [[slow:100]]")), ("req", 1, 30), ("sleep", 1),
                           ("close",), ("end", 30)],
     note="EOF while the model streams (40 x 100 ms)")
case("eof-at-once", [("send", msg("then EOF at once")), ("close",), ("end", 30)],
     note="the message and EOF together (as text stdin)")
case("resume-two-turns", [("send", msg("resumed turn")), ("wait", is_result, 30), ("close",), ("end", 15)],
     sid=None, resume=SID1, pre="basic-eof-after-result",
     note="--resume of the session of basic-eof-after-result")

# 2. steering
case("steer-during-slow-text", [
    ("send", msg("long answer [[slow:100]]")), ("req", 1, 30), ("wait", is_delta, 30), ("sleep", 0.5),
    ("send", msg("STEER during the slow answer")), ("wait", nth(is_result, 2), 60), ("close",), ("end", 15)],
    note="steer while the turn's only call (text) streams")
case("steer-during-slow-tool-call", [
    ("send", msg("tool then answer [[tools:1]] [[slow:60]]")), ("req", 1, 30), ("wait", is_delta, 30),
    ("sleep", 0.3), ("send", msg("STEER during the tool call")), ("wait", is_result, 60), ("sleep", 3),
    ("close",), ("end", 15)],
    note="steer while the first call (a Bash tool_use) streams")
case("steer-while-tool-runs", [
    ("send", msg("tool then answer [[tools:1]] [[toolms:3000]]")), ("wait", is_tool_use, 30),
    ("sleep", 0.5), ("send", msg("STEER while the tool runs")), ("wait", is_result, 60), ("sleep", 3),
    ("close",), ("end", 15)],
    note="steer while `sleep 3` runs")
case("steer-two-while-tool-runs", [
    ("send", msg("tool then answer [[tools:2]] [[toolms:3000]]")), ("wait", is_tool_use, 30),
    ("sleep", 0.5), ("send", msg("STEER A")), ("sleep", 0.2), ("send", msg("STEER B")),
    ("wait", is_result, 60), ("sleep", 3), ("close",), ("end", 15)],
    note="two steers during the first of two tool calls")
case("steer-replay", [
    ("send", msg("tool then answer [[tools:1]] [[toolms:3000]]")), ("wait", is_tool_use, 30),
    ("sleep", 0.5), ("send", msg("STEER replayed")), ("wait", is_result, 60), ("sleep", 3),
    ("close",), ("end", 15)], args=["--replay-user-messages"],
    note="steer-while-tool-runs with --replay-user-messages")
case("steer-after-last-call", [
    ("send", msg("tool then answer [[tools:1]]")), ("wait", is_text_assistant, 30),
    ("send", msg("STEER after the last call")), ("wait", nth(is_result, 2), 60), ("close",), ("end", 15)],
    note="steer as soon as the last call's assistant text line is out")
case("steer-then-eof", [
    ("send", msg("tool then answer [[tools:1]] [[toolms:3000]]")), ("wait", is_tool_use, 30),
    ("sleep", 0.5), ("send", msg("STEER then EOF")), ("close",), ("end", 60)],
    note="steer while the tool runs, then EOF at once")
case("steer-resumed", [
    ("send", msg("resumed tool turn [[tools:1]] [[toolms:3000]]")), ("wait", is_tool_use, 30),
    ("sleep", 0.5), ("send", msg("STEER in a resumed session")), ("wait", is_result, 60), ("sleep", 3),
    ("close",), ("end", 15)], sid=None, resume=SID1, pre="basic-eof-after-result",
    note="steer-while-tool-runs on --resume")

case("steer-replay-during-slow-text", [
    ("send", msg("long answer [[slow:100]]")), ("req", 1, 30), ("wait", is_delta, 30), ("sleep", 0.5),
    ("send", msg("STEER replayed, slow answer")), ("wait", nth(is_result, 2), 60), ("close",), ("end", 15)],
    args=["--replay-user-messages"], note="steer-during-slow-text with --replay-user-messages")
case("steer-replay-after-last-call", [
    ("send", msg("tool then answer [[tools:1]]")), ("wait", is_text_assistant, 30),
    ("send", msg("STEER replayed after the last call")), ("wait", nth(is_result, 2), 60), ("close",),
    ("end", 15)], args=["--replay-user-messages"],
    note="steer-after-last-call with --replay-user-messages")
case("steer-sdk-shape-while-tool-runs", [
    ("send", sdk_msg("tool then answer [[tools:1]] [[toolms:3000]]")), ("wait", is_tool_use, 30),
    ("sleep", 0.5), ("send", sdk_msg("STEER in the SDK shape", SID1)), ("wait", is_result, 60),
    ("sleep", 3), ("close",), ("end", 15)], args=["--replay-user-messages"],
    note="steer-while-tool-runs, both lines in the SDK shape (session_id, parent_tool_use_id, blocks)")

case("steer-queued-then-eof", [
    ("send", msg("long answer [[slow:50]]")), ("req", 1, 30), ("wait", is_delta, 30), ("sleep", 0.3),
    ("send", msg("STEER queued, then EOF")), ("close",), ("end", 60)],
    note="a steer that cannot join (text-only turn) and EOF at once: is it still answered?")
case("bad-line", [("send", "this is not json"), ("sleep", 2), ("send", msg("after a bad line")),
                  ("sleep", 3), ("close",), ("end", 15)],
     note="a line that is not JSON, then a good one")

# 3. interrupting
case("sigint-stdin-open", [
    ("send", msg("long answer [[slow:200]]")), ("req", 1, 30), ("wait", is_delta, 30), ("sleep", 0.5),
    ("signal", signal.SIGINT), ("end", 15)],
    note="SIGINT to the process group mid-answer, stdin still open")
case("control-interrupt", [
    ("send", msg("long answer [[slow:200]]")), ("req", 1, 30), ("wait", is_delta, 30), ("sleep", 0.5),
    ("send", {"type": "control_request", "request_id": "ctl-1", "request": {"subtype": "interrupt"}}),
    ("sleep", 3), ("send", msg("after the interrupt")), ("wait", nth(is_result, 2), 30),
    ("close",), ("end", 15)],
    note="an interrupt control_request mid-answer, then a next message")
case("control-interrupt-tool", [
    ("send", msg("tool then answer [[tools:1]] [[toolms:5000]]")), ("wait", is_tool_use, 30),
    ("sleep", 0.5),
    ("send", {"type": "control_request", "request_id": "ctl-2", "request": {"subtype": "interrupt"}}),
    ("sleep", 3), ("close",), ("end", 15)],
    note="an interrupt control_request while the tool runs, then EOF")


case("sigint-while-tool-runs", [
    ("send", msg("tool then answer [[tools:1]] [[toolms:5000]]")), ("wait", is_tool_use, 30),
    ("sleep", 0.5), ("signal", signal.SIGINT), ("end", 15)],
    note="SIGINT to the process group while the tool runs, stdin open")
case("sigint-idle", [("send", msg("hello then idle")), ("wait", is_result, 30), ("sleep", 1),
                     ("signal", signal.SIGINT), ("end", 15)],
     note="SIGINT after the result, stdin open (the process waits for a next message)")
case("control-interrupt-then-eof", [
    ("send", msg("long answer [[slow:200]]")), ("req", 1, 30), ("wait", is_delta, 30), ("sleep", 0.5),
    ("send", {"type": "control_request", "request_id": "ctl-3", "request": {"subtype": "interrupt"}}),
    ("sleep", 1), ("close",), ("end", 15)],
    note="an interrupt control_request mid-answer, then EOF")
case("control-interrupt-idle", [
    ("send", msg("hello then idle")), ("wait", is_result, 30), ("sleep", 0.5),
    ("send", {"type": "control_request", "request_id": "ctl-4", "request": {"subtype": "interrupt"}}),
    ("sleep", 1), ("close",), ("end", 15)],
    note="an interrupt control_request when no turn runs, then EOF")


class Standin:
    def __init__(self, port, log):
        self.port, self.log = port, log
        self.p = subprocess.Popen([sys.executable, os.path.join(HERE, "standin.py"), str(port), log],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/x" % port, timeout=1)
                return
            except Exception:
                time.sleep(0.1)
        raise SystemExit("the stand-in did not start")

    def offset(self):
        return os.path.getsize(self.log) if os.path.exists(self.log) else 0

    def lines(self, since):
        with open(self.log, encoding="utf-8") as f:
            f.seek(since)
            return [json.loads(l) for l in f if l.strip()]

    def stop(self):
        self.p.terminate()
        self.p.wait()


def trim(req):
    b = req.get("body")
    if isinstance(b, dict):
        b = dict(b)
        for k in ("system", "tools"):
            if k in b:
                b[k] = "<%d chars>" % len(json.dumps(b[k]))
        req = dict(req, body=b)
    return req


def cut_reminders(content):
    """Long <system-reminder> text blocks (skill and agent listings…) as their sizes."""
    if not isinstance(content, list):
        return content
    out = []
    for b in content:
        if isinstance(b, dict) and isinstance(b.get("text"), str) and len(b["text"]) > 1500 \
                and b["text"].lstrip().startswith("<system-reminder>"):
            b = dict(b, text="<system-reminder: %d chars, cut>" % len(b["text"]))
        out.append(b)
    return out


def trim_messages(req):
    b = req.get("body")
    if isinstance(b, dict) and isinstance(b.get("messages"), list):
        msgs = []
        for m in b["messages"]:
            c = m.get("content")
            if m.get("role") == "system" and isinstance(c, str) and len(c) > 1500:
                c = "<system text: %d chars, cut>" % len(c)
            msgs.append(dict(m, content=cut_reminders(c)))
        req = dict(req, body=dict(b, messages=msgs))
    return req


BIG_SESSION_ROWS = ("api-request-shape", "api-request-blob", "api-request")


def trim_session(text):
    """The session file without its big request-record rows and system prompt copies (their
    size is kept), so the captures stay small; every other row as is."""
    out = []
    for line in text.splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        if e.get("type") in BIG_SESSION_ROWS:
            e = {"type": e["type"], "cut": "%d chars" % len(line)}
        elif isinstance(e.get("attachment"), dict) and e["attachment"].get("type") in (
                "prompt_snapshot", "skill_listing", "agent_listing_delta", "deferred_tools_delta"):
            e = dict(e, attachment={"type": e["attachment"]["type"], "cut": "%d chars" % len(line)})
            e.pop("rendered", None)
        elif isinstance(e.get("rendered"), list) and len(json.dumps(e["rendered"])) > 1500:
            e = dict(e, rendered="<%d chars, cut>" % len(json.dumps(e["rendered"])))
        out.append(json.dumps(e, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(out) + "\n"


def summary(e):
    t = e.get("type")
    s = t
    if e.get("subtype"):
        s += "/" + e["subtype"]
    if t == "stream_event":
        ev = e["event"]
        s += " " + ev.get("type", "")
        if ev.get("type") == "content_block_delta":
            d = ev["delta"]
            s += " " + json.dumps(d.get("text", d.get("partial_json", "")))[:50]
    elif t in ("assistant", "user"):
        c = e["message"].get("content")
        if isinstance(c, str):
            s += " text " + json.dumps(c)[:80]
        else:
            for b in c or []:
                if b.get("type") == "text":
                    s += " text " + json.dumps(b["text"])[:80]
                elif b.get("type") == "tool_use":
                    s += " tool_use " + json.dumps(b.get("input"))[:60]
                elif b.get("type") == "tool_result":
                    s += " tool_result " + json.dumps(b.get("content"))[:60]
        if e.get("isReplay"):
            s += " (isReplay)"
    elif t == "result":
        s += " %s num_turns=%s in=%s out=%s result=%s" % (
            e.get("subtype"), e.get("num_turns"), (e.get("usage") or {}).get("input_tokens"),
            (e.get("usage") or {}).get("output_tokens"), json.dumps(e.get("result"))[:80])
    elif t == "control_response":
        s += " " + json.dumps(e.get("response"))[:100]
    return s


class Runner:
    def __init__(self, a):
        self.a = a
        self.out = os.path.abspath(a.out)
        os.makedirs(self.out, exist_ok=True)
        self.standin = Standin(a.port, os.path.join(self.out, "standin.log.jsonl"))

    def world(self, name):
        w = os.path.join(self.out, "worlds", name)
        return w, os.path.join(w, "home"), os.path.join(w, "proj")

    def env(self, home, version):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC", "CLAUDE", "CODEX", "OPENAI", "BATON"))}
        env.update(HOME=home, ANTHROPIC_API_KEY="dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1",
                   ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % self.a.port,
                   BATON_SHIM_CLAUDE_VERSION=version, MOCK_API_KEY="dummy",
                   CODEX_HOME=os.path.join(home, ".codex"))
        return env

    def rewrite(self, text, w):
        home, proj = os.path.join(w, "home"), os.path.join(w, "proj")
        for src, dst in ((proj, "/home/dev/proj"), (home, "/home/dev")):
            text = text.replace(src, dst)
            text = text.replace(re.sub(r"[^A-Za-z0-9]", "-", src), re.sub(r"[^A-Za-z0-9]", "-", dst))
        return text.replace(self.out, "/tmp/steer")

    def bin_for(self, version):
        return self.a.c332 if version == "2.1.332" else self.a.c197

    def run_case(self, c, version, world_name=None, record=True):
        name = "%s-%s" % (c["name"], version)
        w, home, proj = self.world(world_name or name)
        if c["pre"] and record:
            pre = next(x for x in CASES if x["name"] == c["pre"])
            shutil.rmtree(w, ignore_errors=True)
            self.run_case(pre, version, world_name=name, record=False)
        elif record:
            shutil.rmtree(w, ignore_errors=True)
        os.makedirs(home, exist_ok=True)
        os.makedirs(proj, exist_ok=True)
        argv = [self.bin_for(version)] + STREAM + c["args"]
        if c["resume"]:
            argv += ["--resume", c["resume"]]
        else:
            argv += ["--session-id", c["sid"]]
        off = self.standin.offset() if self.standin else 0
        t0 = time.monotonic()

        def ms():
            return int((time.monotonic() - t0) * 1000)
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             cwd=proj, env=self.env(home, version), start_new_session=True)
        events, timeline, stdin_log = [], [], []
        cond = threading.Condition()
        raw_out = []

        def reader():
            for line in p.stdout:
                t = ms()
                s = line.decode("utf-8", "replace")
                with cond:
                    raw_out.append(s)
                    try:
                        e = json.loads(s)
                    except ValueError:
                        e = {"type": "<not json>", "raw": s}
                    events.append(e)
                    timeline.append("%7d  out  %s" % (t, summary(e)))
                    cond.notify_all()
            with cond:
                events.append(None)
                cond.notify_all()
        err_chunks = []
        th = threading.Thread(target=reader, daemon=True)
        th.start()
        te = threading.Thread(target=lambda: err_chunks.append(p.stderr.read()), daemon=True)
        te.start()
        seen = [0]
        failures = []

        def wait_for(pred, timeout):
            """Until `pred` matched (the n-th match for nth(pred, n)) among events not yet
            consumed by an earlier wait; nth counts over the whole run."""
            pred, n = pred if isinstance(pred, tuple) else (pred, None)
            end = time.monotonic() + timeout
            with cond:
                while True:
                    if n is not None:
                        if sum(1 for e in events if e is not None and pred(e)) >= n:
                            seen[0] = len(events)
                            return True
                        if events and events[-1] is None:
                            return False
                    else:
                        while seen[0] < len(events):
                            e = events[seen[0]]
                            seen[0] += 1
                            if e is None:
                                return False
                            if pred(e):
                                return True
                    left = end - time.monotonic()
                    if left <= 0:
                        return False
                    cond.wait(left)

        def n_requests():
            if not self.standin:
                return 0
            return sum(1 for r in self.standin.lines(off)
                       if r.get("path", "").startswith("/v1/messages") and "count_tokens" not in r["path"]
                       and isinstance(r.get("body"), dict) and r["body"].get("stream")
                       and r["body"].get("tools"))

        for step in c["steps"]:
            kind = step[0]
            if kind == "send":
                line = step[1] if isinstance(step[1], str) else json.dumps(step[1], ensure_ascii=False)
                t = ms()
                try:
                    p.stdin.write((line + "\n").encode())
                    p.stdin.flush()
                    stdin_log.append({"ms": t, "line": line})
                except BrokenPipeError:
                    stdin_log.append({"ms": t, "line": line, "error": "broken pipe"})
                with cond:
                    timeline.append("%7d  IN   %s" % (t, line[:120]))
            elif kind == "wait":
                if not wait_for(step[1], step[2]):
                    failures.append("wait timed out / stream ended at step %r" % (step,))
                    with cond:
                        timeline.append("%7d  ---  (wait ended without a match)" % ms())
            elif kind == "req":
                end = time.monotonic() + step[2]
                while n_requests() < step[1] and time.monotonic() < end:
                    time.sleep(0.05)
                with cond:
                    timeline.append("%7d  ---  model request %d reached the stand-in" % (ms(), step[1]))
            elif kind == "sleep":
                time.sleep(step[1])
            elif kind == "close":
                t = ms()
                try:
                    p.stdin.close()
                    stdin_log.append({"ms": t, "close": True})
                except BrokenPipeError:
                    stdin_log.append({"ms": t, "close": True, "error": "broken pipe"})
                with cond:
                    timeline.append("%7d  IN   <EOF>" % t)
            elif kind == "signal":
                t = ms()
                os.killpg(p.pid, step[1])
                stdin_log.append({"ms": t, "signal": signal.Signals(step[1]).name})
                with cond:
                    timeline.append("%7d  SIG  %s to the process group" % (t, signal.Signals(step[1]).name))
            elif kind == "end":
                try:
                    p.wait(timeout=step[1])
                except subprocess.TimeoutExpired:
                    failures.append("did not exit within %s s: killed" % step[1])
                    with cond:
                        timeline.append("%7d  ---  still running after %s s: SIGKILL" % (ms(), step[1]))
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        if p.poll() is None:
            try:
                p.stdin.close()
            except OSError:
                pass
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        th.join(5)
        te.join(5)
        timeline.append("%7d  rc   %s" % (ms(), p.returncode))
        if not record:
            return
        d = os.path.join(self.out, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

        def put(fn, text):
            with open(os.path.join(d, fn), "w", encoding="utf-8") as f:
                f.write(self.rewrite(text, w))
        put("cmd", " ".join(argv[1:]) + "\n")
        put("note", c["note"] + "\n")
        put("stdin.jsonl", "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in stdin_log))
        put("stdout.jsonl", "".join(raw_out))
        put("stderr.txt", (err_chunks[0] if err_chunks else b"").decode("utf-8", "replace"))
        put("rc", "%s\n" % p.returncode)
        put("timeline.txt", "\n".join(timeline) + "\n")
        if self.standin:
            reqs = [trim_messages(trim(r)) for r in self.standin.lines(off)]
            put("requests.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in reqs))
        sid = c["resume"] or c["sid"]
        for dp, _, fns in os.walk(os.path.join(home, ".claude", "projects")):
            for fn in fns:
                if fn == sid + ".jsonl":
                    with open(os.path.join(dp, fn), encoding="utf-8") as f:
                        put("session.jsonl", trim_session(f.read()))
        if failures:
            put("failures.txt", "\n".join(failures) + "\n")
        print("%-45s rc=%s %s" % (name, p.returncode, "; ".join(failures)), flush=True)

    def codex_case(self):
        """codex exec with stdin kept open: nothing happens until EOF."""
        name = "codex-stdin-open"
        w, home, proj = self.world(name)
        shutil.rmtree(w, ignore_errors=True)
        os.makedirs(os.path.join(home, ".codex"))
        os.makedirs(proj)
        with open(os.path.join(home, ".codex", "config.toml"), "w") as f:
            f.write('model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "Mock"\n'
                    'base_url = "http://127.0.0.1:%d/v1"\nwire_api = "responses"\nenv_key = "MOCK_API_KEY"\n'
                    % self.a.port)
        argv = [self.a.codex, "exec", "--json", "--skip-git-repo-check"]
        off = self.standin.offset()
        t0 = time.monotonic()

        def ms():
            return int((time.monotonic() - t0) * 1000)
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             cwd=proj, env=self.env(home, "2.1.332"), start_new_session=True)
        timeline, stdin_log, raw = [], [], []

        def reader():
            for line in p.stdout:
                raw.append(line.decode())
                timeline.append("%7d  out  %s" % (ms(), line.decode().strip()[:120]))
        th = threading.Thread(target=reader, daemon=True)
        th.start()
        err = []
        te = threading.Thread(target=lambda: err.append(p.stderr.read()), daemon=True)
        te.start()
        for text in ("first line of the prompt", "STEER? a second line 3 s later"):
            t = ms()
            p.stdin.write((text + "\n").encode())
            p.stdin.flush()
            stdin_log.append({"ms": t, "line": text})
            timeline.append("%7d  IN   %s" % (t, text))
            time.sleep(3)
        reqs_before = len([r for r in self.standin.lines(off) if r.get("path", "").endswith("/responses")])
        timeline.append("%7d  ---  model requests so far: %d, stdout lines so far: %d"
                        % (ms(), reqs_before, len(raw)))
        t = ms()
        p.stdin.close()
        stdin_log.append({"ms": t, "close": True})
        timeline.append("%7d  IN   <EOF>" % t)
        p.wait(timeout=60)
        th.join(5)
        te.join(5)
        timeline.append("%7d  rc   %s" % (ms(), p.returncode))
        d = os.path.join(self.out, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

        def put(fn, text):
            with open(os.path.join(d, fn), "w", encoding="utf-8") as f:
                f.write(self.rewrite(text, w))
        put("cmd", " ".join(["codex"] + argv[1:]) + "\n")
        put("note", "codex exec with stdin kept open 6 s, two lines, then EOF\n")
        put("stdin.jsonl", "".join(json.dumps(x) + "\n" for x in stdin_log))
        put("stdout.jsonl", "".join(raw))
        put("stderr.txt", (err[0] if err else b"").decode("utf-8", "replace"))
        put("rc", "%s\n" % p.returncode)
        put("timeline.txt", "\n".join(timeline) + "\n")
        put("requests.jsonl", "".join(json.dumps(trim(r), ensure_ascii=False) + "\n"
                                      for r in self.standin.lines(off)))
        print("%-45s rc=%s" % (name, p.returncode), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--c332")
    ap.add_argument("--c197")
    ap.add_argument("--codex")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18093)
    ap.add_argument("-k", action="append", default=[])
    ap.add_argument("--versions", default="2.1.332,2.1.197")
    a = ap.parse_args()
    r = Runner(a)
    try:
        for c in CASES:
            if a.k and not any(k in c["name"] for k in a.k):
                continue
            for v in c["versions"]:
                if v in a.versions.split(","):
                    r.run_case(c, v)
        if a.codex and (not a.k or any(k in "codex-stdin-open" for k in a.k)):
            r.codex_case()
    finally:
        if r.standin:
            r.standin.stop()


if __name__ == "__main__":
    main()
