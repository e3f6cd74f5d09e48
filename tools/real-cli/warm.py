#!/usr/bin/env python3
"""Warm CLIs on the REAL Claude Code: turns 2-5 of one terminal run in the CLI kept from turn 1
and show their first answer byte sooner than a cold `claude -p --resume` on the same session.

  python3 warm.py --baton PATH [--c332 BIN] [--c197 BIN] --out DIR [--port 18097] [--cold 5]

Per Claude version, one world (DIR/<world>/{home,baton,proj,bin}: HOME, BATON_HOME, the real
binary symlinked first on PATH) against the stand-in (standin.py, in-process on 127.0.0.1:PORT):
  1. `baton send t "turn N"` for N = 1..5, each timed from the send's start to the first byte
     on its stdout; after each, `server status --json` names the warm CLI (its pid, turns).
  2. The warm CLI's own command line (/proc/PID/cmdline, its system-text file still there) run
     cold --cold times with `--resume` of the session, each timed from its start to its first
     answer text (a text_delta) on stdout, the prompt written as baton writes it.
  3. An interrupt of a slow warm turn (`[[slow:200]]`: baton's interrupt request on the CLI's
     stdin), then one more turn.
Checks (OK/FAIL lines in DIR/checks.txt, figures in DIR/figures.json): one CLI process for turns
1-5; the median first byte of turns 2-5 at most half the cold median; every turn completed with
its context and window; the system prompt byte-identical on every model request of turns 1-5;
each turn's money its own (not the process's running total); the interrupted turn kept its
partial answer, its CLI stayed up, and the next turn ran in it on the same session.
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

CHECKS = []


def check(ok, what, detail=""):
    line = "%s %s%s" % ("OK  " if ok else "FAIL", what, (": " + detail) if detail else "")
    print(line, flush=True)
    CHECKS.append(line)


def find(version):
    for pkg in sorted(glob.glob("/tmp/*/node_modules/@anthropic-ai/claude-code") +
                      glob.glob("/tmp/*/*/node_modules/@anthropic-ai/claude-code")):
        try:
            with open(os.path.join(pkg, "package.json")) as f:
                if json.load(f).get("version") == version:
                    return os.path.join(pkg, "bin", "claude.exe")
        except OSError:
            pass
    return None


class World:
    def __init__(self, a, name, claude):
        self.a = a
        self.dir = os.path.join(a.out, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        for d in ("home", "baton", "bin", "proj"):
            os.makedirs(os.path.join(self.dir, d))
        os.symlink(os.path.abspath(claude), os.path.join(self.dir, "bin", "claude"))
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC", "CLAUDE", "CODEX", "OPENAI", "BATON"))}
        env.update(HOME=self.dir + "/home", BATON_HOME=self.dir + "/baton",
                   ANTHROPIC_API_KEY="dummy", ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % a.port,
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_TELEMETRY="1",
                   DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1",
                   PATH=self.dir + "/bin:" + os.environ["PATH"])
        self.env = env

    def baton(self, *args, timeout=120):
        return subprocess.run([self.a.baton, *args], capture_output=True, text=True,
                              env=self.env, timeout=timeout)

    def json(self, *args):
        p = self.baton(*args, "--json")
        return json.loads(p.stdout)

    def timed_send(self, prompt):
        """(seconds to the first stdout byte, rc, stdout)."""
        t0 = time.monotonic()
        p = subprocess.Popen([self.a.baton, "send", "t", prompt], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=self.env)
        # One byte off the pipe itself: a buffered read would take more than communicate sees.
        first = os.read(p.stdout.fileno(), 1)
        t1 = time.monotonic()
        rest, err = p.communicate(timeout=120)
        return t1 - t0, p.returncode, (first + rest).decode("utf-8", "replace")


def cold_first_text(argv, cwd, env, prompt):
    """Seconds from the start of a cold CLI to its first text_delta; the CLI then gets EOF."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    line = json.dumps({"type": "user", "message": {"role": "user", "content": prompt}}) + "\n"
    p.stdin.write(line.encode())
    p.stdin.flush()
    first = None
    for raw in p.stdout:
        try:
            ev = json.loads(raw)
        except ValueError:
            continue
        if first is None and ev.get("type") == "stream_event" and \
                (ev.get("event") or {}).get("delta", {}).get("type") == "text_delta":
            first = time.monotonic() - t0
        if ev.get("type") == "result":
            break
    p.stdin.close()
    p.wait(timeout=60)
    return first


def model_requests(log, since):
    out = []
    with open(log, encoding="utf-8") as f:
        for line in f.readlines()[since:]:
            e = json.loads(line)
            body = e.get("body") or {}
            if e.get("path", "").startswith("/v1/messages") and "count_tokens" not in e["path"] \
                    and isinstance(body, dict) and body.get("messages"):
                out.append(body)
    return out


def run_world(a, name, claude, log):
    w = World(a, name, claude)
    fig = {}
    print("== %s (%s)" % (name, claude), flush=True)
    w.baton("new", "t", "--dir", os.path.join(w.dir, "proj"), "--provider", "claude")
    with open(log, encoding="utf-8") as f:
        since = len(f.readlines())
    firsts, pids, warm_turns = [], [], []
    for n in range(1, 6):
        dt, rc, out = w.timed_send("turn %d of the warm check" % n)
        check(rc == 0 and "STANDIN-REPLY" in out, "%s turn %d completed" % (name, n), out[:80])
        firsts.append(dt)
        listed = w.json("server", "status").get("warm") or []
        pids.append(listed[0]["pid"] if listed else None)
        warm_turns.append(listed[0]["turns"] if listed else None)
    fig["first_byte_s"] = firsts
    check(len(set(pids)) == 1 and pids[0] is not None, "%s one CLI for turns 1-5" % name,
          str(pids))
    check(warm_turns == [1, 2, 3, 4, 5], "%s the warm CLI counts its turns" % name,
          str(warm_turns))
    show = w.json("show", "t")
    log_json = w.json("log", "t")
    turns = log_json["turns"]
    check(all(t["status"] == "completed" for t in turns) and len(turns) == 5,
          "%s the five turns are in the log, completed" % name)
    check(bool(show["context"]["tokens"]) and bool(show["context"]["window"]),
          "%s context and window after a warm turn" % name, json.dumps(show["context"]))
    usd = [(t.get("cost") or {}).get("usd") for t in turns]
    fig["usd"] = usd
    check(all(u is not None for u in usd) and max(usd) < 1.5 * min(usd),
          "%s each turn's money is its own" % name, str(usd))
    reqs = model_requests(log, since)
    systems = {json.dumps(r.get("system"), sort_keys=True) for r in reqs}
    check(len(reqs) >= 5 and len(systems) == 1,
          "%s one system prompt, byte for byte, on all %d model requests" % (name, len(reqs)))
    # The cold reference: the warm CLI's own command line, resuming the session.
    pid = pids[-1]
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        argv = [x.decode() for x in f.read().split(b"\0") if x]
    cwd = os.readlink("/proc/%d/cwd" % pid)
    sid = show["sessions"][-1]["session_id"]
    if "--session-id" in argv:
        i = argv.index("--session-id")
        argv[i:i + 2] = ["--resume", sid]
    argv[0] = claude
    colds = [cold_first_text(argv, cwd, w.env, "cold turn %d" % i) for i in range(a.cold)]
    fig["cold_first_text_s"] = colds
    warm_med = statistics.median(firsts[1:])
    cold_med = statistics.median([c for c in colds if c is not None])
    fig["warm_median_s"], fig["cold_median_s"] = warm_med, cold_med
    check(warm_med <= cold_med / 2,
          "%s turns 2-5 first byte %.0f ms, at most half a cold resume's %.0f ms" %
          (name, warm_med * 1000, cold_med * 1000))
    # An interrupt of a warm turn, then one more turn.
    p = subprocess.Popen([a.baton, "send", "t", "slow one [[slow:200]]"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=w.env)
    os.read(p.stdout.fileno(), 1)
    w.baton("interrupt", "t")
    p.communicate(timeout=120)
    t6 = w.json("log", "t")["turns"][-1]
    check(t6["status"] == "interrupted" and len(t6.get("answer") or "") > 0,
          "%s an interrupted warm turn keeps its partial answer" % name, t6["status"])
    listed = w.json("server", "status").get("warm") or []
    check(os.path.exists("/proc/%d" % pid) and listed and listed[0]["pid"] == pid,
          "%s the CLI took the interrupt request and stays warm" % name)
    w.baton("queue", "t", "run")
    dt, rc, out = w.timed_send("after the interrupt")
    listed = w.json("server", "status").get("warm") or []
    check(rc == 0 and "last_user=after the interrupt" in out and listed and
          listed[0]["pid"] == pid and w.json("show", "t")["sessions"][-1]["session_id"] == sid,
          "%s the next turn runs in the same CLI on the same session" % name, out[:80])
    w.baton("server", "stop")
    return fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--c332")
    ap.add_argument("--c197")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18097)
    ap.add_argument("--cold", type=int, default=5)
    a = ap.parse_args()
    a.out = os.path.abspath(a.out)
    a.baton = os.path.abspath(a.baton)
    a.c332 = a.c332 or find("2.1.332")
    a.c197 = a.c197 or find("2.1.197")
    os.makedirs(a.out, exist_ok=True)
    log = os.path.join(a.out, "standin.log.jsonl")
    open(log, "w").close()
    standin.LOG_PATH = log
    srv = standin.ThreadingHTTPServer(("127.0.0.1", a.port), standin.Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    figures = {}
    for name, claude in (("c332", a.c332), ("c197", a.c197)):
        if claude:
            figures[name] = run_world(a, name, claude, log)
    with open(os.path.join(a.out, "figures.json"), "w") as f:
        json.dump(figures, f, indent=1)
    with open(os.path.join(a.out, "checks.txt"), "w") as f:
        f.write("\n".join(CHECKS) + "\n")
    fails = sum(1 for c in CHECKS if c.startswith("FAIL"))
    print("%d checks, %d FAIL" % (len(CHECKS), fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
