#!/usr/bin/env python3
"""A new Codex thread's first turn on `codex app-server` (`thread/start`) instead of `codex exec`:
does the model's request carry baton's system text as exec's `-p PROFILE`
(`developer_instructions`) gives it, and do later turns (`thread/resume` on another app-server,
`codex exec resume`) keep it? Captured on the real Codex CLI against the stand-in
(fixtures/captures/approvals/codex-first-turn/). Built on codex_app_capture.py.

  python3 tools/real-cli/codex_first_turn.py --out DIR [--codex BIN] [--port 18235]

Cases: `exec` (a cold `codex exec -p baton` new thread, then `exec resume`), `start-param`
(`thread/start` with `developerInstructions`), `start-config` (`thread/start` with
`config.developer_instructions`). Each app-server case: `thread/start` (approval policy
`on-request`, baton's sandbox), a first turn writing outside the checkout (the approval request
accepted), then a second app-server `thread/resume`s it for a turn, then `codex exec resume`.
DIR/out/facts.json: per model call, the developer texts of its input (the system text's items
marked), the sha256 of its `instructions`; the server's requests; the files written.
"""
import argparse
import glob
import hashlib
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import codex_app_capture as cap  # noqa: E402
import standin  # noqa: E402

FACTS = {}
OUTSIDE = "[[tool:Write:../outside.txt]] [[reply:done]]"


def calls(reqs):
    """Per model call: its `instructions` digest and the developer texts of its input."""
    out = []
    for r in reqs:
        b = r.get("body")
        if not isinstance(b, dict) or "input" not in b:
            continue
        dev = []
        for i in b["input"]:
            if i.get("role") == "developer":
                for c in i.get("content") or []:
                    if isinstance(c, dict) and "text" in c:
                        t = c["text"]
                        dev.append(t if t == cap.SYSTEM_TEXT else
                                   {"chars": len(t), "head": t[:60],
                                    "sha256": hashlib.sha256(t.encode()).hexdigest()[:16]})
        ins = b.get("instructions") or ""
        out.append({"instructions_sha256": hashlib.sha256(ins.encode()).hexdigest()[:16],
                    "developer": dev,
                    "system_text_items": sum(1 for d in dev if d == cap.SYSTEM_TEXT)})
    return out


def answer_all(a, thread):
    """Read to turn/completed, accepting every request of the server; returns them."""
    asked = []
    while True:
        got = a.wait(lambda m: "method" in m, 90)
        if got is None:
            return asked
        _, msg, _ = got
        if "id" in msg:
            asked.append({"method": msg["method"], "params": msg.get("params")})
            a.send({"jsonrpc": "2.0", "id": msg["id"], "result": {"decision": "accept"}})
        if msg["method"] == "turn/completed":
            return asked


def app_case(w, name, how):
    for f in glob.glob(os.path.dirname(w.proj) + "/outside*.txt"):
        os.remove(f)
    a = cap.App(w, name + "-start")
    a.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
    a.send({"jsonrpc": "2.0", "method": "initialized"})
    params = {"cwd": w.proj, "model": "gpt-5.5", "approvalPolicy": "never",
              "sandbox": "workspace-write"}
    if how == "param":
        params["developerInstructions"] = cap.SYSTEM_TEXT
    else:
        params["config"] = {"developer_instructions": cap.SYSTEM_TEXT}
    started = a.call("thread/start", params)
    thread = ((started or {}).get("result") or {}).get("thread", {}).get("id")
    facts = {"thread_start_reply": started, "thread": thread}
    if thread:
        tp = a.turn_params(thread, OUTSIDE)
        tp["approvalPolicy"] = "on-request"
        a.call("turn/start", tp)
        facts["asked"] = answer_all(a, thread)
        facts["written"] = os.path.exists(os.path.dirname(w.proj) + "/outside.txt")
    a.stop("eof")
    facts["first"] = calls(w.log_since(a.mark, name + "-start"))
    if thread:
        b = cap.App(w, name + "-resume")
        b.start(thread)
        b.turn(thread, "a later warm turn [[reply:later]]", "later")
        b.stop("eof")
        facts["resume"] = calls(w.log_since(b.mark, name + "-resume"))
        mark = w.log_mark()
        w.cold(name + "-exec-resume", "a later cold turn [[reply:cold]]", thread)
        facts["exec_resume"] = calls(w.log_since(mark, name + "-exec-resume"))
        facts["rollout_lines_with_system_text"] = sum(
            1 for x in open(w.rollout(thread)) if json.dumps(cap.SYSTEM_TEXT)[1:-1] in x)
    FACTS[name] = facts


def exec_case(w):
    mark = w.log_mark()
    thread = w.new_thread("exec-new")
    first = calls(w.log_since(mark, "exec-new"))
    mark = w.log_mark()
    w.cold("exec-resume", "a later cold turn [[reply:cold]]", thread)
    FACTS["exec"] = {"thread": thread, "first": first,
                     "exec_resume": calls(w.log_since(mark, "exec-resume"))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--codex")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18235)
    a = ap.parse_args()
    codex = a.codex or next(iter(sorted(
        glob.glob("/tmp/*/node_modules/@openai/codex-linux-x64/vendor/*/bin/codex"))), None)
    w = cap.World(os.path.abspath(a.out), a.port, codex)
    standin.LOG_PATH = w.log
    srv = standin.ThreadingHTTPServer(("127.0.0.1", a.port), standin.Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    FACTS["codex_version"] = subprocess.run([codex, "--version"], capture_output=True,
                                            text=True).stdout.strip()
    for name, fn in (("exec", lambda: exec_case(w)),
                     ("start-param", lambda: app_case(w, "start-param", "param")),
                     ("start-config", lambda: app_case(w, "start-config", "config"))):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 (a capture notes what failed and goes on)
            FACTS.setdefault("errors", {})[name] = repr(e)
        json.dump(FACTS, open(w.out + "/facts.json", "w"), indent=1, ensure_ascii=False)
    time.sleep(0.1)


if __name__ == "__main__":
    main()
