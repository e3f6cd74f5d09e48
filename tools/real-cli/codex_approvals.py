#!/usr/bin/env python3
"""`codex app-server`'s approval requests, captured on the real Codex CLI against the stand-in
(fixtures/captures/approvals/codex-*). Built on codex_app_capture.py (its World and App).

  python3 tools/real-cli/codex_approvals.py --out DIR [--codex BIN] [--port 18234]

Each case: a thread made by a cold `codex exec`, then one app-server (baton's sandbox flags),
`thread/resume` and `turn/start` with an approval policy that asks (`on-request`, or
`untrusted`), a prompt whose model calls one tool ([[tool:Bash:…]] an `exec_command`,
[[tool:Write:…]] an `apply_patch` adding a file), every request the server sends the client
answered as the case says (`accept`, `decline`, or no answer and `turn/interrupt`). Writes
DIR/out/CASE.{sent,stdout,timeline}.jsonl etc. (as codex_app_capture) and DIR/out/facts.json:
per case the server's requests (method, params) and whether the file was written.
"""
import argparse
import glob
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

# name -> (policy, prompt, answer)
CASES = {
    "bash-outside-accept": ("on-request", "[[tool:Bash:touch ../outside-bash.txt]] [[reply:done]]", "accept"),
    "bash-outside-decline": ("on-request", "[[tool:Bash:touch ../outside-bash.txt]] [[reply:done]]", "decline"),
    "write-outside-accept": ("on-request", "[[tool:Write:../outside.txt]] [[reply:done]]", "accept"),
    "write-outside-decline": ("on-request", "[[tool:Write:../outside.txt]] [[reply:done]]", "decline"),
    "write-inside": ("on-request", "[[tool:Write:inside.txt]] [[reply:done]]", "accept"),
    "untrusted-bash": ("untrusted", "[[tool:Bash:cat /etc/hostname]] [[reply:done]]", "accept"),
    "interrupt-waiting": ("on-request", "[[tool:Write:../outside.txt]] [[reply:done]]", "interrupt"),
    # A decline carries no text: the reason follows as a `turn/steer` right after it (baton's
    # way), or goes before it; does the model's next call read it?
    "decline-then-steer": ("on-request", "[[tool:Write:../outside.txt]] [[reply:done]]", "decline+steer"),
    "steer-then-decline": ("on-request", "[[tool:Write:../outside.txt]] [[reply:done]]", "steer+decline"),
}
REASON = "REASON-XYZ: write it under docs/ instead"
FACTS = {}


def run_case(w, name, policy, prompt, answer):
    for f in glob.glob(os.path.dirname(w.proj) + "/outside*.txt") + [w.proj + "/inside.txt"]:
        if os.path.exists(f):
            os.remove(f)
    thread = w.new_thread(name + "-thread")
    a = cap.App(w, name)
    a.start(thread)
    params = a.turn_params(thread, prompt)
    params["approvalPolicy"] = policy
    a.call("turn/start", params)
    asked = []
    while True:
        got = a.wait(lambda m: "method" in m, 60)
        if got is None:
            break
        _, msg, _ = got
        if "id" in msg:  # a request of the server: the client must answer it
            asked.append({"method": msg["method"], "params": msg.get("params")})
            if answer == "interrupt":
                a.call("turn/interrupt", {"threadId": thread,
                                          "turnId": (msg.get("params") or {}).get("turnId")})
            elif answer in ("decline+steer", "steer+decline"):
                steer = {"threadId": thread, "expectedTurnId": (msg.get("params") or {}).get("turnId"),
                         "input": [{"type": "text", "text": REASON, "text_elements": []}]}
                decline = {"jsonrpc": "2.0", "id": msg["id"], "result": {"decision": "decline"}}
                if answer == "steer+decline":
                    a.request("turn/steer", steer)
                a.send(decline)
                if answer == "decline+steer":
                    a.request("turn/steer", steer)
            else:
                a.send({"jsonrpc": "2.0", "id": msg["id"], "result": {"decision": answer}})
        if msg["method"] == "turn/completed":
            break
    time.sleep(0.3)
    a.p.terminate()
    a.p.wait(timeout=10)
    outside = os.path.dirname(w.proj)
    FACTS[name] = {"policy": policy, "answer": answer, "asked": asked,
                   "written": sorted(os.path.basename(f) for f in
                                     glob.glob(outside + "/outside*.txt") + glob.glob(w.proj + "/inside.txt"))}
    if answer.endswith("steer") or answer.startswith("steer"):
        # Which model calls (the stand-in's log, in order) carried the reason, and after what.
        calls = [json.loads(l) for l in open(w.log) if l.strip()]
        FACTS[name]["model_calls_with_reason"] = [
            {"call": i, "also_read_rejected": "patch rejected by user" in json.dumps(c)}
            for i, c in enumerate(calls) if REASON in json.dumps(c)]
    print(name, json.dumps(FACTS[name])[:400], flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--codex")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18234)
    ap.add_argument("-k", default=",".join(CASES))
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
    for k in a.k.split(","):
        try:
            run_case(w, k, *CASES[k])
        except Exception as e:
            FACTS.setdefault("errors", {})[k] = repr(e)
            print("case %s failed: %r" % (k, e), flush=True)
        json.dump(FACTS, open(w.out + "/facts.json", "w"), indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
