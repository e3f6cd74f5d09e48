#!/usr/bin/env python3
"""Input the server owns, on the REAL CLIs: journalled sends that survive `kill -9`, a crash in the
middle of a turn, edit/withdraw/move/jump on waiting input, and steering a running turn.

  python3 queue.py [--baton PATH] [--c332 BIN] [--c197 BIN] [--codex BIN] --out DIR
                   [--port 18095] [--worlds c332,c197,codex] [-k CHECK]...

Without --c332/--c197/--codex it reuses an install under /tmp (/tmp/*/node_modules/...) or
installs into --work as run.sh does. Runs the stand-in (standin.py) in-process on 127.0.0.1:PORT,
with one addition: every request it logs carries `watched_alive`, the processes the running
check watches (a crashed turn's CLI) that were still alive when the request arrived.
Each CLI gets its own world (DIR/<world>/world/{home,baton,codex,proj*,bin}: HOME, BATON_HOME,
CODEX_HOME, symlinks named claude/codex to the real binaries first on PATH). Checks, one terminal each, in every world:
  1  accepted means journalled: 5 x (`send --detach`, kill -9 of the server at once), then a
     restart; 1s the same with a restart and a settle after every round
  2  kill -9 in the middle of a held turn with three prompts queued behind it; 2i the same with
     the restart at once (what is left of the CLI is the restart's to stop)
  3  edit, withdraw, move and jump on waiting input behind a held turn
  4  steer: Claude joins a tool turn; Codex runs the steer next, ahead of a queued prompt
Evidence under DIR/<world>/<check>/: NN-step.{cmd,rc,stdout,stderr}, log.json (`baton log
--json`), requests.jsonl (the stand-in's lines of the check, system/tools cut to their sizes),
procs.json (the CLI processes seen), timeline.txt. DIR/checks.txt has every OK/FAIL line,
DIR/figures.json the figures.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import standin  # noqa: E402

# ---------------------------------------------------------------- processes

def stat(pid):
    """(ppid, state, starttime, comm) of pid, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    rp = s.rindex(")")
    fields = s[rp + 2:].split()
    return int(fields[1]), fields[0], int(fields[19]), s[s.index("(") + 1:rp]


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


def descendants(root):
    """[{pid, ppid, start, comm, cmd}] of every process under root."""
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = stat(int(d))
            if st:
                kids.setdefault(st[0], []).append((int(d), st))
    out, stack = [], [root]
    while stack:
        p = stack.pop()
        for pid, st in kids.get(p, []):
            out.append({"pid": pid, "ppid": p, "start": st[2], "comm": st[3],
                        "cmd": cmdline(pid)[:3000]})
            stack.append(pid)
    return out


def alive(p):
    st = stat(p["pid"])
    return bool(st) and st[2] == p["start"] and st[1] != "Z"


# ---------------------------------------------------------------- the stand-in, in-process

WATCH = {"procs": []}


class Hooked(standin.Handler):
    def _log(self, body, extra=None):
        extra = dict(extra or {})
        extra["watched_alive"] = [p["pid"] for p in WATCH["procs"] if alive(p)]
        super()._log(body, extra)


def start_standin(port, log):
    standin.LOG_PATH = log
    srv = standin.ThreadingHTTPServer(("127.0.0.1", port), Hooked)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def read_log(path, off=0):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        f.seek(off)
        return [json.loads(l) for l in f if l.strip()]


def is_model_request(e):
    b, p = e.get("body"), e.get("path", "")
    if not isinstance(b, dict) or "n" not in e:
        return False
    if "/v1/messages" in p and "count_tokens" not in p:
        return bool(b.get("stream") and b.get("tools"))  # the agent's own calls, not side queries
    return p.split("?")[0].endswith("/responses")


def req_prompt(e):
    """The text of the newest user message of a model request (its last non-empty text block,
    <system-reminder>s removed): the prompt of the turn it starts, '' for a tool-result call."""
    b = e["body"]
    if "/v1/messages" in e["path"]:
        users = [m for m in b.get("messages") or [] if m.get("role") == "user"]
        c = users[-1].get("content") if users else ""
        blocks = [{"text": c}] if isinstance(c, str) else [
            x for x in c or [] if isinstance(x, dict) and x.get("type") == "text"]
    else:
        users = [i for i in b.get("input") or [] if isinstance(i, dict) and i.get("role") == "user"]
        c = users[-1].get("content") if users else ""
        blocks = [{"text": c}] if isinstance(c, str) else [
            x for x in c or [] if isinstance(x, dict) and isinstance(x.get("text"), str)]
    texts = [standin.strip_reminders(x.get("text") or "") for x in blocks]
    texts = [t for t in texts if t]
    return texts[-1] if texts else ""


TAG = re.compile(r"\[(q\d[a-z]*-[a-z0-9]+)\]")


def tags(text):
    return TAG.findall(text or "")


def trim(e):
    b = e.get("body")
    if isinstance(b, dict):
        b = dict(b)
        for k in ("system", "tools", "instructions"):
            if k in b:
                b[k] = "<%d chars>" % len(json.dumps(b[k]))
        e = dict(e, body=b)
    return e


# ---------------------------------------------------------------- a world, a check

class World:
    def __init__(self, r, name, provider, claude_bin, codex_bin):
        self.r, self.name, self.provider = r, name, provider
        self.out = os.path.join(r.out, name)
        shutil.rmtree(self.out, ignore_errors=True)
        self.w = os.path.join(self.out, "world")
        for d in ("home", "codex", "baton", "bin"):
            os.makedirs(os.path.join(self.w, d))
        # The real binaries themselves first on PATH (symlinks: nothing in between, so the
        # timings of a kill are the CLI's own); their command lines are in procs.json.
        for cli, target in (("claude", claude_bin), ("codex", codex_bin)):
            os.symlink(os.path.abspath(target), os.path.join(self.w, "bin", cli))
        with open(os.path.join(self.w, "codex", "config.toml"), "w") as f:
            f.write('model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\n'
                    'name = "Mock"\nbase_url = "http://127.0.0.1:%d/v1"\nwire_api = "responses"\n'
                    'env_key = "MOCK_API_KEY"\n' % r.a.port)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC", "CLAUDE", "CODEX", "OPENAI", "BATON"))}
        env.update(HOME=self.w + "/home", CODEX_HOME=self.w + "/codex",
                   BATON_HOME=self.w + "/baton", ANTHROPIC_API_KEY="dummy", MOCK_API_KEY="dummy",
                   ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % r.a.port,
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_TELEMETRY="1",
                   DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1",
                   PATH=self.w + "/bin:" + os.environ["PATH"])
        self.env = env

    def status(self):
        p = subprocess.run([self.r.a.baton, "server", "status", "--json"], capture_output=True,
                           text=True, env=self.env, timeout=30)
        try:
            return json.loads(p.stdout)
        except ValueError:
            return None

    def stop(self):
        subprocess.run([self.r.a.baton, "server", "stop"], capture_output=True, env=self.env,
                       timeout=60)


class Check:
    def __init__(self, world, key, title):
        self.world, self.key, self.title = world, key, title
        self.r = world.r
        self.d = os.path.join(world.out, key)
        os.makedirs(self.d)
        self.proj = os.path.join(world.w, "proj-" + key)
        os.makedirs(self.proj)
        self.step = 0
        self.t0 = time.time()
        self.timeline = []
        self.off = os.path.getsize(self.r.log) if os.path.exists(self.r.log) else 0
        self.fig = {}
        self.procs = {}
        self.term = "t" + key

    def mark(self, what, ts=None):
        ts = ts or time.time()
        self.timeline.append((ts, what))
        return ts

    def _files(self, name, args):
        self.step += 1
        base = os.path.join(self.d, "%02d-%s" % (self.step, name))
        with open(base + ".cmd", "w") as f:
            f.write("baton " + " ".join(json.dumps(c) if (" " in c or not c) else c
                                        for c in args) + "\n")
        return base

    def baton(self, name, args, timeout=180):
        base = self._files(name, args)
        t = time.time()
        p = subprocess.run([self.r.a.baton] + args, capture_output=True, text=True,
                           env=self.world.env, cwd=self.proj, timeout=timeout)
        for ext, s in (("stdout", p.stdout), ("stderr", p.stderr), ("rc", "%d\n" % p.returncode)):
            with open(base + "." + ext, "w") as f:
                f.write(s)
        self.mark("%s rc=%d (%.0f ms)" % (name, p.returncode, (time.time() - t) * 1000), t)
        return p.returncode, p.stdout, p.stderr

    def background(self, name, args):
        base = self._files(name, args)
        so, se = open(base + ".stdout", "w"), open(base + ".stderr", "w")
        p = subprocess.Popen([self.r.a.baton] + args, stdout=so, stderr=se, env=self.world.env,
                             cwd=self.proj, stdin=subprocess.DEVNULL)
        self.mark("%s started in the background" % name)
        return p, base, name, time.time()

    def finish(self, h, timeout=180):
        p, base, name, t = h
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        with open(base + ".rc", "w") as f:
            f.write("%d\n" % rc)
        self.mark("%s ended rc=%d (%.0f ms)" % (name, rc, (time.time() - t) * 1000))
        return rc, open(base + ".stdout").read(), open(base + ".stderr").read()

    def new(self):
        rc, o, e = self.baton("new", ["new", self.term, "--dir", self.proj, "--provider",
                                      self.world.provider])
        if rc != 0:
            raise RuntimeError("baton new failed: " + e)
        rc, o, e = self.baton("show", ["show", self.term, "--json"])
        self.tid = json.loads(o)["id"]

    def tdir(self):
        return os.path.join(self.world.w, "baton", "terminals", getattr(self, "tid", "-"))

    def raw(self, turn_id):
        """The raw CLI stream baton stored for a turn, as lines."""
        try:
            with open(os.path.join(self.tdir(), "turns", turn_id + ".jsonl")) as f:
                return [l for l in f if l.strip()]
        except OSError:
            return []

    def detach(self, name, prompt, *extra):
        rc, o, e = self.baton(name, ["send", self.term, prompt, "--detach", "--json", *extra])
        try:
            return json.loads(o.strip().splitlines()[-1])["data"]["input"]
        except (ValueError, IndexError, KeyError, TypeError):
            raise RuntimeError("send --detach: rc=%d %s %s" % (rc, o, e))

    def server_pid(self):
        s = self.world.status()
        return s.get("pid") if s and s.get("running") else None

    def wait_idle(self, timeout=120):
        end = time.time() + timeout
        while time.time() < end:
            s = self.world.status()
            if s and s.get("running_turns") == 0 and s.get("waiting_inputs") == 0:
                self.mark("idle: %s" % json.dumps(s))
                return True
            time.sleep(0.3)
        self.mark("NOT idle after %d s" % timeout)
        return False

    def requests(self):
        return [e for e in read_log(self.r.log, self.off) if is_model_request(e)]

    def wait_request(self, tag, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            for e in self.requests():
                if tag in tags(req_prompt(e)):
                    return e
            time.sleep(0.05)
        return None

    def kill_server(self, what):
        pid = self.server_pid()
        if not pid:
            raise RuntimeError("no server to kill")
        tree = descendants(pid)
        os.kill(pid, signal.SIGKILL)
        t = self.mark("kill -9 server pid %d (%s); its processes then: %s" % (
            pid, what, json.dumps([(p["pid"], p["comm"]) for p in tree])))
        while stat(pid) and stat(pid)[1] != "Z":
            time.sleep(0.005)
        return pid, tree, t

    def log(self, name="log"):
        rc, o, e = self.baton(name, ["log", self.term, "--json"])
        try:
            j = json.loads(o)
        except ValueError:
            j = {"_error": o + e, "turns": []}
        with open(os.path.join(self.d, name + ".json"), "w") as f:
            json.dump(j, f, indent=1)
        return j

    def check(self, ok, what, detail=""):
        line = "%s [%s] %s %s%s" % ("OK  " if ok else "FAIL", self.world.name, self.key, what,
                                    (" -- " + detail) if detail else "")
        self.r.checks.append(line)
        print(line, flush=True)
        return ok

    def save(self):
        if os.path.isdir(self.tdir()):  # the terminal's journal and raw CLI streams
            shutil.copytree(self.tdir(), os.path.join(self.d, "baton-terminal"),
                            ignore=shutil.ignore_patterns("tmp", "screenshots"))
        reqs = read_log(self.r.log, self.off)
        with open(os.path.join(self.d, "requests.jsonl"), "w") as f:
            for e in reqs:
                f.write(json.dumps(trim(e), ensure_ascii=False) + "\n")
        with open(os.path.join(self.d, "procs.json"), "w") as f:
            json.dump(self.procs, f, indent=1)
        marks = [(ts, "MARK  " + w) for ts, w in self.timeline]
        for e in reqs:
            if is_model_request(e):
                marks.append((e["ts"], "REQ   #%d %s prompt=%r watched_alive=%s" % (
                    e["n"], e["path"], req_prompt(e)[:70], e.get("watched_alive"))))
        with open(os.path.join(self.d, "timeline.txt"), "w") as f:
            for ts, w in sorted(marks):
                f.write("%9.3f  %s\n" % (ts - self.t0, w))
        self.r.figures.setdefault(self.world.name, {})[self.key] = self.fig


def epoch(iso):
    try:
        return datetime.strptime(iso.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
    except (AttributeError, ValueError):
        return None


def streamed_text(lines):
    """The answer text a raw stream holds: Claude's text deltas, Codex's agent messages."""
    out = []
    for l in lines:
        try:
            e = json.loads(l)
        except ValueError:
            continue
        if e.get("type") == "stream_event":
            d = (e.get("event") or {}).get("delta") or {}
            if d.get("type") == "text_delta":
                out.append(d.get("text", ""))
        elif e.get("type") == "item.completed" and (e.get("item") or {}).get("type") == \
                "agent_message":
            out.append(e["item"].get("text", ""))
    return "".join(out)


def turn_table(log):
    return [(t.get("number"), t.get("input"), t.get("mode"), t.get("status"), t.get("prompt"))
            for t in log.get("turns", [])]


def reached(reqs):
    """{tag: [request numbers]} over the requests that start a turn (their newest user text)."""
    out = {}
    for e in reqs:
        for tg in tags(req_prompt(e)):
            out.setdefault(tg, []).append(e["n"])
    return out


# ---------------------------------------------------------------- the checks

def check1(c, settle):
    """5 rounds of `send --detach` followed at once by kill -9 of the server."""
    c.new()
    prompts, rounds = [], []
    for i in range(1, 6):
        tag = "q1%s-%d" % ("s" if settle else "", i)
        prompt = "crash round %d [%s]" % (i, tag)
        if not c.server_pid():
            c.baton("start-%d" % i, ["server", "start"])
        spid = c.server_pid()
        t = time.time()
        n = c.detach("send-%d" % i, prompt)
        ack = time.time()
        os.kill(spid, signal.SIGKILL)
        killed = c.mark("round %d: input %d acked %.1f ms after the send began; kill -9 %d "
                        "%.2f ms after the ack" % (i, n, (ack - t) * 1000, spid,
                                                   (time.time() - ack) * 1000))
        while stat(spid) and stat(spid)[1] != "Z":
            time.sleep(0.005)
        rounds.append({"round": i, "input": n, "server": spid, "ack": ack, "kill": killed,
                       "ack_to_kill_ms":
                       round((killed - ack) * 1000, 2)})
        prompts.append((n, prompt, tag))
        if settle:
            c.baton("restart-%d" % i, ["ls"])
            c.wait_idle(90)
    if not settle:
        c.baton("restart", ["ls"])
        c.wait_idle(120)
    log = c.log()
    reqs = c.requests()
    hit = reached(reqs)
    turns = log.get("turns", [])
    per = []
    for n, prompt, tag in prompts:
        ts = [t for t in turns if t.get("prompt") == prompt]
        rd = next(x for x in rounds if x["input"] == n)
        st = epoch(ts[0].get("started_at")) if ts else None
        per.append({"input": n, "tag": tag, "turns": [(t["number"], t["input"], t["status"],
                                                      t.get("error")) for t in ts],
                    "turn_started_ms_after_ack": round((st - rd["ack"]) * 1000, 1)
                    if st else None,
                    "ended_by_kill_of_round": next((x["round"] for x in rounds
                                                    if st and x["kill"] > st), None),
                    "raw_stream_lines": len(c.raw(ts[0]["id"])) if ts else None,
                    "model_requests": hit.get(tag, [])})
    c.fig.update(rounds=rounds, per_prompt=per, turns=turn_table(log),
                 statuses={s: sum(1 for p in per if p["turns"] and p["turns"][0][2] == s)
                           for s in ("completed", "interrupted", "failed")})
    # Each acked prompt is exactly one turn: completed, or interrupted by the kill once its start
    # was journalled (its prompt may have reached the model, so it is not run again by itself:
    # `baton queue NAME retry`); a prompt whose start the journal lacks waited and ran once.
    one_turn = all(len(p["turns"]) == 1 and p["turns"][0][2] in ("completed", "interrupted")
                   for p in per)
    order = [p["turns"][0][0] for p in per if p["turns"]]
    c.check(one_turn and order == sorted(order),
            "journalled: each of the 5 acked prompts is exactly one turn in `baton log` (completed, or "
            "interrupted by the kill and not run again), in order",
            "turns (number, input, status): %s" % [(t["number"], t["input"], t["status"])
                                                   for t in turns])
    counts = [len(p["model_requests"]) for p in per]
    first = [p["model_requests"][0] for p in per if p["model_requests"]]
    completed_once = all(n == 1 for p, n in zip(per, counts)
                         if p["turns"] and p["turns"][0][2] == "completed")
    c.check(completed_once and first == sorted(first),
            "ran: each completed prompt reached the model exactly once, in order (stand-in log)",
            "model requests per prompt %s; statuses %s; turn started (ms after its ack) %s; "
            "the kill that ended it (round) %s; raw stream lines %s%s" % (
                counts, [p["turns"][0][2] if p["turns"] else None for p in per],
                [p["turn_started_ms_after_ack"] for p in per],
                [p["ended_by_kill_of_round"] if p["turns"] and p["turns"][0][2] ==
                 "interrupted" else None for p in per], [p["raw_stream_lines"] for p in per],
                "; errors: %s" % sorted({p["turns"][0][3] for p in per if p["turns"] and
                                         p["turns"][0][3]}) if any(
                    p["turns"] and p["turns"][0][3] for p in per) else ""))
    c.check(all(n <= 1 for n in counts), "no prompt reached the model twice", str(counts))


def check2(c, immediate=False):
    """kill -9 in the middle of a held turn, three prompts queued behind it. immediate: restart
    at once (what is left of the CLI must be stopped by the restart), else when the CLI is
    gone (or after 5 s)."""
    P = "q2i" if immediate else "q2"
    c.new()
    held = "held turn, then a crash [[slow:200]] [%s-h]" % P
    nh = c.detach("send-held", held)
    queued = [("after the crash %d [%s-%d]" % (i, P, i), "%s-%d" % (P, i)) for i in (1, 2, 3)]
    nq = [c.detach("send-q%d" % i, p) for i, (p, _) in enumerate(queued, 1)]
    rc, o, e = c.baton("queue-before", ["queue", c.term, "--json"])
    req = c.wait_request(P + "-h", 60)
    if not req:
        c.check(False, "the held turn reached the model")
        return
    time.sleep(3.0)  # 40 pieces x 200 ms: ~15 pieces streamed
    spid = c.server_pid()
    tree = descendants(spid)
    c.procs["before_kill"] = tree
    WATCH["procs"] = tree
    _, _, tkill = c.kill_server("mid-turn")
    gone_at = {}
    end = tkill + (0 if immediate else 5.0)
    while time.time() < end and len(gone_at) < len(tree):
        for p in tree:
            if p["pid"] not in gone_at and not alive(p):
                gone_at[p["pid"]] = round((time.time() - tkill) * 1000)
        time.sleep(0.01)
    left = [p for p in tree if p["pid"] not in gone_at]
    c.mark("after the kill: gone (ms after the kill) %s; still alive at the restart: %s" % (
        gone_at, [(p["pid"], p["comm"]) for p in left]))
    c.procs["gone_ms_after_kill"] = gone_at
    c.procs["alive_at_the_restart"] = left
    trestart = time.time()
    stop_poll = []

    def poll():  # when each CLI process still alive at the restart goes
        while not stop_poll and len(gone_at) < len(tree):
            for p in tree:
                if p["pid"] not in gone_at and not alive(p):
                    gone_at[p["pid"]] = round((time.time() - tkill) * 1000)
            time.sleep(0.005)
    th = threading.Thread(target=poll, daemon=True)
    th.start()
    c.baton("restart", ["ls"])
    c.wait_idle(120)
    stop_poll.append(1)
    th.join()
    for p in left:
        if not alive(p):
            gone_at.setdefault(p["pid"], "after the restart")
    log = c.log()
    WATCH["procs"] = []
    reqs = c.requests()
    hit = reached(reqs)
    turns = log.get("turns", [])
    ht = [t for t in turns if t.get("prompt") == held]
    full = next((e for e in reqs if P + "-h" in tags(req_prompt(e))), None)
    c.fig.update(inputs={"held": nh, "queued": nq}, turns=turn_table(log),
                 cli_processes=[(p["pid"], p["comm"]) for p in tree],
                 gone_ms_after_kill=gone_at, restart_s_after_kill=round(trestart - tkill, 2))
    if ht:
        a = ht[0].get("answer") or ""
        c.fig["held_answer_kept"] = a
        c.fig["held_error"] = ht[0].get("error")
    c.check(len(ht) == 1 and ht[0].get("status") == "interrupted",
            "the crashed turn is `interrupted`",
            json.dumps([(t.get("status"), t.get("error")) for t in ht]))
    if ht:
        a = ht[0].get("answer") or ""
        raw = c.raw(ht[0]["id"])
        st = streamed_text(raw)
        c.fig["held_streamed_before_the_kill"] = st
        c.check(a == st and (not st or a.startswith("STANDIN-REPLY #%d" % full["n"])),
                "its partial answer is kept (what had streamed: %d chars)" % len(st),
                "%d chars kept: %r; raw stream %d lines%s" % (
                    len(a), a, len(raw), "" if st else
                    " (no answer text had streamed: nothing to keep)"))
    qt = [t for t in turns if t.get("prompt") in [p for p, _ in queued]]
    c.check([t.get("prompt") for t in qt] == [p for p, _ in queued] and
            all(t.get("status") == "completed" for t in qt) and
            [t.get("input") for t in qt] == nq,
            "the three queued prompts ran once each, in order, after the restart",
            str([(t["number"], t["input"], t["status"]) for t in qt]))
    counts = [hit.get(tg, []) for _, tg in queued]
    c.check([len(x) for x in counts] == [1, 1, 1] and [x[0] for x in counts] ==
            sorted(x[0] for x in counts) and len(hit.get(P + "-h", [])) == 1,
            "stand-in: held prompt once, the three once each, in order",
            "requests held %s queued %s" % (hit.get(P + "-h"), counts))
    first = next((e for e in reqs if P + "-1" in tags(req_prompt(e))), None)
    if first is not None:
        c.fig["watched_alive_at_first_queued_request"] = first.get("watched_alive")
        c.fig["first_queued_request_s_after_kill"] = round(first["ts"] - tkill, 2)
    q1 = next((t for t in turns if t.get("prompt") == queued[0][0]), None)
    q1_start = round((epoch(q1.get("started_at")) - tkill) * 1000) if q1 and \
        epoch(q1.get("started_at")) else None
    c.fig["first_queued_turn_started_ms_after_kill"] = q1_start
    before = q1_start is not None and all(isinstance(v, int) and v < q1_start
                                          for v in [gone_at.get(p["pid"]) for p in tree])
    c.check(first is not None and first.get("watched_alive") == [] and before,
            "the crashed turn's CLI processes were gone before the first queued turn started "
            "and when its request reached the model",
            "CLI processes %s gone (ms after the kill) %s; first queued turn started %s ms "
            "after the kill; alive at its request: %s" % (
                [(p["pid"], p["comm"]) for p in tree], gone_at, q1_start,
                first.get("watched_alive") if first else "no request"))
    if immediate:
        c.fig["alive_at_the_restart"] = [(p["pid"], p["comm"]) for p in left]
        return
    c.check(not left, "PR_SET_PDEATHSIG: the CLI ended by itself within 5 s of the kill (before "
            "any restart)", "gone after (ms) %s; still running 5 s after the kill: %s" % (
                gone_at, [(p["pid"], p["comm"], p["cmd"][:60]) for p in left]))


def check3(c):
    """edit, withdraw, move, jump on waiting input behind a held turn."""
    c.new()
    held = "held turn for the queue edits [[slow:250]] [q3-h]"
    nh = c.detach("send-held", held)
    texts = {k: "waiting input %s [q3-%s]" % (k, k.lower()) for k in "ABCDE"}
    n = {k: c.detach("send-" + k, texts[k]) for k in "ABCDE"}
    c.baton("queue-0", ["queue", c.term, "--json"])
    edited = "waiting input B, edited [q3-b2]"
    r_edit = c.baton("edit-B", ["queue", c.term, "edit", str(n["B"]), edited])[0]
    r_rm = c.baton("rm-C", ["queue", c.term, "rm", str(n["C"])])[0]
    r_move = c.baton("move-E-1", ["queue", c.term, "move", str(n["E"]), "1"])[0]
    rc, o, e = c.baton("queue-1", ["queue", c.term, "--json"])
    try:
        q1 = [(x["input"], x["prompt"]) for x in json.loads(o)]
    except (ValueError, KeyError, TypeError):
        q1 = o
    want_q1 = [(n["E"], texts["E"]), (n["A"], texts["A"]), (n["B"], edited), (n["D"], texts["D"])]
    c.check(q1 == want_q1 and (r_edit, r_rm, r_move) == (0, 0, 0),
            "`baton queue` after edit B, rm C, move E 1: E, A, B (edited, same number), D",
            "rc edit/rm/move %s; queue %s" % ((r_edit, r_rm, r_move), q1))
    req = c.wait_request("q3-h", 60)
    time.sleep(2.0)
    tj = time.time()
    r_jump = c.baton("jump-D", ["queue", c.term, "jump", str(n["D"])])[0]
    c.baton("queue-2", ["queue", c.term, "--json"])
    c.wait_idle(150)
    r_late = c.baton("edit-after-start", ["queue", c.term, "edit", str(n["A"]), "too late"])
    log = c.log()
    reqs = c.requests()
    hit = reached(reqs)
    turns = log.get("turns", [])
    got = [(t.get("input"), t.get("prompt")) for t in turns]
    want = [(nh, held), (n["D"], texts["D"]), (n["E"], texts["E"]), (n["A"], texts["A"]),
            (n["B"], edited)]
    c.fig.update(inputs=n, held_input=nh, turns=turn_table(log),
                 jump_s_after_held_request=round(tj - req["ts"], 2) if req else None,
                 late_edit=(r_late[0], (r_late[1] + r_late[2]).strip()))
    c.check(got == want, "`baton log`: exactly the held turn, D (jumped), E, A, B edited",
            "got %s" % got)
    c.check(r_jump == 0 and turns and turns[0].get("status") == "interrupted" and
            len(turns) > 1 and turns[1].get("mode") == "jump",
            "the jump interrupted the running turn and ran next",
            "jump rc %d; held %s (answer %r); next mode %s" % (
                r_jump, turns[0].get("status") if turns else None,
                (turns[0].get("answer") or "")[:60] if turns else None,
                turns[1].get("mode") if len(turns) > 1 else None))
    if len(turns) > 1:
        c.fig["held_answer_kept"] = turns[0].get("answer")
        c.fig["jump_same_session"] = turns[0].get("session_id") == turns[1].get("session_id")
    c.check("q3-c" not in hit and not any("q3-c" in json.dumps(e["body"]) for e in reqs) and
            "q3-b" not in hit and not any(texts["B"] in json.dumps(e["body"]) for e in reqs),
            "withdrawn C and B's old text never reached the model",
            "prompts seen: %s" % sorted(hit))
    c.check(all(len(hit.get(t, [])) == 1 for t in ("q3-h", "q3-d", "q3-e", "q3-a", "q3-b2")),
            "stand-in: each prompt that ran reached the model once",
            json.dumps({k: v for k, v in hit.items()}))
    c.check(r_late[0] == 2, "editing input A after it started is refused with exit 2",
            "rc %d: %s" % (r_late[0], (r_late[1] + r_late[2]).strip()))


def check4_claude(c):
    c.new()
    prompt = "tool turn to steer [[tools:1]] [[toolms:3000]] [q4-t]"
    steer = "STEER TEXT [q4-s]"
    nt = c.detach("send-tool-turn", prompt)
    spid = c.server_pid()
    end, sleeper = time.time() + 60, None
    while time.time() < end and not sleeper:
        sleeper = next((p for p in descendants(spid) if p["comm"] == "sleep"), None)
        time.sleep(0.05)
    c.procs["tool"] = sleeper
    c.mark("the tool runs: %s" % (sleeper and sleeper["cmd"]))
    if not sleeper:
        c.check(False, "the tool call ran (a `sleep` under the CLI)")
        return
    time.sleep(0.3)
    t = time.time()
    rc, o, e = c.baton("steer", ["send", c.term, steer, "--steer", "--json"], timeout=90)
    c.fig["steer_client_s"] = round(time.time() - t, 2)
    tool_end = c.mark("tool process ended" if not alive(sleeper) else "tool process still runs")
    c.wait_idle(90)
    log = c.log()
    reqs = c.requests()
    try:
        last = json.loads(o.strip().splitlines()[-1])
        data = last.get("data") or {}
    except (ValueError, IndexError):
        data = {}
    ns = data.get("input")
    notes_ev = [json.loads(l)["event"].get("message") for l in o.splitlines()
                if '"step":"note"' in l]
    c.fig.update(steer_input=ns, steer_reply=data, steer_note_events=notes_ev,
                 turns=turn_table(log))
    c.check(rc == 0 and data.get("mode") == "steer" and data.get("position") is None and
            "joined" in (data.get("note") or ""),
            "the steering client printed that it joined",
            "rc %d: %s" % (rc, json.dumps(data)))
    turns = log.get("turns", [])
    mine = [t for t in turns if t.get("prompt") in (prompt, steer)]
    notes = mine[0].get("notes") if mine else []
    c.check(len(turns) == 1 and len(mine) == 1 and mine[0].get("prompt") == prompt and
            any(x.startswith("input %s joined this turn" % ns) for x in notes) and
            mine[0].get("status") == "completed",
            "`baton log`: ONE turn, with the note \"input %s joined this turn\"" % ns,
            "turns %s; notes %s" % (turn_table(log), notes))
    turn_reqs = [e for e in reqs if e["path"].startswith("/v1/messages")]
    i0 = next((i for i, e in enumerate(turn_reqs) if "q4-t" in tags(req_prompt(e))), None)
    nxt = turn_reqs[i0 + 1] if i0 is not None and i0 + 1 < len(turn_reqs) else None
    carries = bool(nxt) and "q4-s" in json.dumps(nxt["body"].get("messages"))
    has_result = bool(nxt) and "tool_result" in json.dumps(nxt["body"].get("messages")[-3:])
    c.fig["requests_of_the_turn"] = [e["n"] for e in turn_reqs[i0:]] if i0 is not None else []
    c.fig["answer"] = mine[0].get("answer") if mine else None
    c.check(carries and has_result and len(turn_reqs) - i0 == 2,
            "the model's next request (after the tool result) carries the steer text, in the "
            "same turn", "requests of the turn %s; next carries steer %s, tool_result %s" % (
                c.fig["requests_of_the_turn"], carries, has_result))
    c.check(bool(mine) and "saw=" + steer in (mine[0].get("answer") or ""),
            "the turn's answer shows the model saw the steer", repr(c.fig["answer"]))


def check4_codex(c):
    c.new()
    slow = "slow codex turn [[slow:200]] [q4-s]"
    queued = "queued before the steer [q4-q]"
    steer = "STEER TEXT [q4-x]"
    ns = c.detach("send-slow", slow)
    nq = c.detach("send-queued", queued)
    req = c.wait_request("q4-s", 60)
    time.sleep(1.0)
    h = c.background("steer", ["send", c.term, steer, "--steer", "--json"])
    c.wait_idle(150)
    rc, o, e = c.finish(h, 120)
    log = c.log()
    reqs = c.requests()
    hit = reached(reqs)
    note = "codex exec cannot take input mid-turn: it runs next"
    notes_ev = [json.loads(l)["event"].get("message") for l in o.splitlines()
                if '"step":"note"' in l]
    last = {}
    for l in o.strip().splitlines()[::-1]:
        try:
            last = json.loads(l)
            break
        except ValueError:
            pass
    c.fig.update(inputs={"slow": ns, "queued": nq}, steer_note_events=notes_ev,
                 steer_last=last.get("data"), turns=turn_table(log))
    c.check(any(note in (m or "") for m in notes_ev) or note in o + e,
            "the steering client printed \"%s\"" % note, "notes %s" % notes_ev)
    turns = log.get("turns", [])
    got = [t.get("prompt") for t in turns]
    st = [t for t in turns if t.get("prompt") == steer]
    c.check(got == [slow, steer, queued] and st and st[0].get("mode") == "steer" and
            all(t.get("status") == "completed" for t in turns),
            "the steer ran as the next turn, before the prompt queued earlier",
            "turns %s" % turn_table(log))
    order = sorted((v[0], k) for k, v in hit.items() if k.startswith("q4-"))
    c.check([k for _, k in order] == ["q4-s", "q4-x", "q4-q"] and
            all(len(v) == 1 for v in hit.values()),
            "stand-in: slow, steer, queued, once each", str(hit))
    c.check(rc == 0, "the steering client ended when its turn completed (rc 0)", "rc %d" % rc)


# ---------------------------------------------------------------- main

def find_bins(a):
    def version(pkg):
        try:
            with open(os.path.join(pkg, "package.json")) as f:
                return json.load(f).get("version")
        except OSError:
            return None
    for pkg in sorted(glob.glob("/tmp/*/node_modules/@anthropic-ai/claude-code") +
                      glob.glob("/tmp/*/*/node_modules/@anthropic-ai/claude-code")):
        exe = os.path.join(pkg, "bin", "claude.exe")
        if not os.path.exists(exe):
            continue
        if version(pkg) == "2.1.332" and not a.c332:
            a.c332 = exe
        if version(pkg) == "2.1.197" and not a.c197:
            a.c197 = exe
    if not a.codex:
        a.codex = next(iter(sorted(glob.glob("/tmp/*/node_modules/.bin/codex"))), None)
    w = a.work
    if not (a.c332 and a.codex):
        os.makedirs(w, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", w, "@anthropic-ai/claude-code@2.1.332",
                        "@openai/codex"], check=True)
        a.c332 = a.c332 or w + "/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
        a.codex = a.codex or w + "/node_modules/.bin/codex"
    if not a.c197:
        os.makedirs(w + "/v197", exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", w + "/v197",
                        "@anthropic-ai/claude-code@2.1.197"], check=True)
        a.c197 = w + "/v197/node_modules/@anthropic-ai/claude-code/bin/claude.exe"


class Runner:
    def __init__(self, a):
        self.a = a
        self.out = os.path.abspath(a.out)
        os.makedirs(self.out, exist_ok=True)
        self.log = os.path.join(self.out, "standin.log.jsonl")
        if os.path.exists(self.log):
            os.unlink(self.log)
        self.checks, self.figures = [], {}

    def report(self, t_all):
        """Writes checks.txt and figures.json, prints the summary; 1 if a check failed."""
        self.figures["seconds"] = round(time.time() - t_all, 1)
        with open(os.path.join(self.out, "checks.txt"), "w") as f:
            f.write("\n".join(self.checks) + "\n")
        with open(os.path.join(self.out, "figures.json"), "w") as f:
            json.dump(self.figures, f, indent=1, ensure_ascii=False)
        fails = [l for l in self.checks if l.startswith("FAIL")]
        print("%d checks, %d FAIL, %.0f s; evidence in %s" % (
            len(self.checks), len(fails), time.time() - t_all, self.out), flush=True)
        return 1 if fails else 0

    def run(self):
        worlds = [("c332", "claude", self.a.c332), ("c197", "claude", self.a.c197),
                  ("codex", "codex", self.a.c332)]
        plan = [("1", "accepted means journalled (back to back)", lambda c: check1(c, False)),
                ("1s", "accepted means journalled (settled rounds)", lambda c: check1(c, True)),
                ("2", "crash mid-turn", check2),
                ("2i", "crash mid-turn, restart at once", lambda c: check2(c, True)),
                ("3", "edit, withdraw, move, jump", check3),
                ("4", "steer", None)]
        t_all = time.time()
        for name, provider, cbin in worlds:
            if name not in self.a.worlds.split(","):
                continue
            w = World(self, name, provider, cbin, self.a.codex)
            print("### %s (%s)" % (name, cbin if provider == "claude" else self.a.codex),
                  flush=True)
            tw = time.time()
            for key, title, fn in plan:
                if self.a.k and key not in self.a.k:
                    continue
                if fn is None:
                    fn = check4_claude if provider == "claude" else check4_codex
                c = Check(w, key, title)
                t = time.time()
                try:
                    fn(c)
                except Exception as ex:  # the script's own trouble: a FAIL line, go on
                    c.check(False, "%s: the check could not run" % title, repr(ex))
                finally:
                    WATCH["procs"] = []
                    c.fig["seconds"] = round(time.time() - t, 1)
                    c.save()
                    print("    (%s: %.1f s)" % (key, time.time() - t), flush=True)
            w.stop()
            self.figures.setdefault(name, {})["seconds"] = round(time.time() - tw, 1)
        return self.report(t_all)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", default="/tmp/baton-frozen")
    ap.add_argument("--c332")
    ap.add_argument("--c197")
    ap.add_argument("--codex")
    ap.add_argument("--work", default="/tmp/realcli", help="where to npm install when needed")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18095)
    ap.add_argument("--worlds", default="c332,c197,codex")
    ap.add_argument("-k", action="append", default=[], help="only these checks (1, 1s, 2, 2i, 3, 4)")
    a = ap.parse_args()
    a.baton = os.path.abspath(a.baton)
    find_bins(a)
    r = Runner(a)
    start_standin(a.port, r.log)
    sys.exit(r.run())


if __name__ == "__main__":
    main()
