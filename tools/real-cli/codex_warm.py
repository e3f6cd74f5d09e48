#!/usr/bin/env python3
"""Would a warm Codex pay? A cold `codex exec --json resume THREAD -` against one `codex
app-server` kept running, the same thread resumed by id and each prompt a `turn/start`, on the
REAL Codex CLI against the stand-in (standin.py, in-process on 127.0.0.1:PORT).

  python3 codex_warm.py [--codex BIN] --out DIR [--port 18098] [-n 5]

Measures, on one thread: for each of N cold turns, the time from the CLI's start to its answer
(`item.completed` agent_message: `exec --json` prints no deltas) and to its exit; for each of N
warm turns, from `turn/start` to the first `item/agentMessage/delta` and to `turn/completed`;
the app-server's start (to its `thread/resume` answer) once; its resident memory when idle.
Writes DIR/figures.json and prints a summary. Nothing here is a check of baton.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import standin  # noqa: E402


def world(out, port):
    shutil.rmtree(out, ignore_errors=True)
    for d in ("home", "codex", "proj"):
        os.makedirs(os.path.join(out, d))
    with open(os.path.join(out, "codex", "config.toml"), "w") as f:
        f.write('model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\n'
                'name = "Mock"\nbase_url = "http://127.0.0.1:%d/v1"\nwire_api = "responses"\n'
                'env_key = "MOCK_API_KEY"\n' % port)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEX", "OPENAI"))}
    env.update(HOME=out + "/home", CODEX_HOME=out + "/codex", MOCK_API_KEY="dummy")
    return env, os.path.join(out, "proj")


def exec_turn(codex, env, cwd, prompt, thread=None):
    """(thread id, seconds to the answer item, seconds to exit)."""
    argv = [codex, "exec", "--json", "--skip-git-repo-check"]
    argv += ["resume", thread, "-"] if thread else ["-"]
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    p.stdin.write(prompt.encode())
    p.stdin.close()
    tid, answer = thread, None
    for raw in p.stdout:
        try:
            ev = json.loads(raw)
        except ValueError:
            continue
        if ev.get("type") == "thread.started":
            tid = ev.get("thread_id")
        item = ev.get("item") or {}
        if answer is None and ev.get("type") == "item.completed" and \
                item.get("type") == "agent_message":
            answer = time.monotonic() - t0
    p.wait(timeout=120)
    return tid, answer, time.monotonic() - t0


class AppServer:
    def __init__(self, codex, env, cwd):
        self.p = subprocess.Popen([codex, "app-server"], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def call(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        for msg in self.messages():
            if msg.get("id") == rid and ("result" in msg or "error" in msg):
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg["result"]
        raise RuntimeError("app-server closed during " + method)

    def messages(self):
        for raw in self.p.stdout:
            try:
                yield json.loads(raw)
            except ValueError:
                continue

    def turn(self, thread, prompt):
        """(seconds to the first answer delta, seconds to turn/completed)."""
        t0 = time.monotonic()
        self.call("turn/start", {"threadId": thread, "input": [{"type": "text", "text": prompt}]})
        first = None
        for msg in self.messages():
            m = msg.get("method")
            if first is None and m == "item/agentMessage/delta":
                first = time.monotonic() - t0
            if m == "turn/completed":
                return first, time.monotonic() - t0
        raise RuntimeError("app-server closed during a turn")

    def rss_kib(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return None

    def stop(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--codex")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18098)
    ap.add_argument("-n", type=int, default=5)
    a = ap.parse_args()
    codex = a.codex or next(iter(sorted(
        glob.glob("/tmp/*/node_modules/@openai/codex-linux-x64/vendor/*/bin/codex"))), None)
    out = os.path.abspath(a.out)
    env, cwd = world(out, a.port)
    log = os.path.join(out, "standin.log.jsonl")
    standin.LOG_PATH = log
    srv = standin.ThreadingHTTPServer(("127.0.0.1", a.port), standin.Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    thread, _, _ = exec_turn(codex, env, cwd, "open the thread")
    cold = [exec_turn(codex, env, cwd, "cold turn %d" % i, thread) for i in range(a.n)]
    t0 = time.monotonic()
    app = AppServer(codex, env, cwd)
    app.call("initialize", {"clientInfo": {"name": "baton-measure", "version": "0"}})
    app.send({"jsonrpc": "2.0", "method": "initialized"})
    app.call("thread/resume", {"threadId": thread})
    start = time.monotonic() - t0
    warm = [app.turn(thread, "warm turn %d" % i) for i in range(a.n)]
    rss = app.rss_kib()
    app.stop()
    fig = {
        "codex": codex,
        "thread": thread,
        "cold_answer_s": [c[1] for c in cold],
        "cold_exit_s": [c[2] for c in cold],
        "app_server_start_and_resume_s": start,
        "warm_first_delta_s": [w[0] for w in warm],
        "warm_completed_s": [w[1] for w in warm],
        "app_server_idle_rss_kib": rss,
    }
    with open(os.path.join(out, "figures.json"), "w") as f:
        json.dump(fig, f, indent=1)
    med = statistics.median
    print("cold exec resume: answer %.0f ms, exit %.0f ms (medians of %d)" %
          (med(fig["cold_answer_s"]) * 1000, med(fig["cold_exit_s"]) * 1000, a.n))
    print("app-server: start + resume %.0f ms once; turns: first delta %.0f ms, completed %.0f ms"
          % (start * 1000, med(fig["warm_first_delta_s"]) * 1000,
             med(fig["warm_completed_s"]) * 1000))
    print("app-server idle: %s KiB resident" % rss)


if __name__ == "__main__":
    main()
