#!/usr/bin/env python3
"""Capture `codex app-server` (JSON-RPC 2.0, one JSON object a line on stdio) the way baton will
drive it for warm Codex turns, on the REAL Codex CLI against the stand-in (standin.py, in-process
on 127.0.0.1:PORT). Standard library only.

  python3 codex_app_capture.py --out DIR [--codex BIN] [--port 18233] [-k w1,w4]

World in DIR: home/, codex/ (CODEX_HOME: config.toml with the `mock` provider, baton.config.toml
the profile holding `developer_instructions`), proj/ (a git repository, one commit), shots/,
tmp/ (TMPDIR). Each case starts from a thread made by a cold
`codex exec --json --skip-git-repo-check -m gpt-5.5 --sandbox workspace-write --add-dir SHOTS
--add-dir TMP -c …exclude_slash_tmp=true -c …exclude_tmpdir_env_var=true -p baton -`, then runs
app-servers started as baton will start them. Per run NAME it writes into DIR/out/:
  NAME.sent.jsonl      every line written to the app-server's stdin
  NAME.stdout.jsonl    every line it printed (verbatim)
  NAME.timeline.jsonl  both, in order, with ms since the app-server started ({"t","dir","msg"})
  NAME.stderr.txt, NAME.rc, NAME.argv.json
  NAME.requests.jsonl  the stand-in's log lines (model requests) made during the run
  NAME.notes.json      what the script measured (timings, file checks, rollout-at-completed)
  cold runs (`codex exec`): NAME.stdout.jsonl / .stderr.txt / .rc / .argv.json / .requests.jsonl
  rollout-*.jsonl      the rollout files (copied at the end)
and DIR/out/facts.json (the figures of all cases).

  python3 codex_app_capture.py --out DIR --fixture fixtures/captures/codex-warm

copies DIR/out/ there, each request's `instructions` and `tools` and the rollouts'
`base_instructions.text` and developer-message texts over 2000 characters in the requests
replaced by {"trimmed", "chars", "sha256"} (w9-body-*.json stay whole).
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import standin  # noqa: E402

SYSTEM_TEXT = "BATON SYSTEM TEXT: you are terminal cap in baton. Work in the project folder."
FACTS = {}


class World:
    def __init__(self, root, port, codex):
        self.root, self.codex = root, codex
        shutil.rmtree(root, ignore_errors=True)
        for d in ("home", "codex", "proj", "shots", "tmp", "out"):
            os.makedirs(os.path.join(root, d))
        self.home, self.chome = root + "/home", root + "/codex"
        self.proj, self.shots, self.tmp, self.out = (root + "/proj", root + "/shots",
                                                     root + "/tmp", root + "/out")
        with open(self.chome + "/config.toml", "w") as f:
            f.write('model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\n'
                    'name = "Mock"\nbase_url = "http://127.0.0.1:%d/v1"\nwire_api = "responses"\n'
                    'env_key = "MOCK_API_KEY"\n' % port)
        with open(self.chome + "/baton.config.toml", "w") as f:
            f.write("developer_instructions = %s\n" % json.dumps(SYSTEM_TEXT))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEX", "OPENAI"))}
        env.update(HOME=self.home, CODEX_HOME=self.chome, MOCK_API_KEY="dummy", TMPDIR=self.tmp)
        self.env = env
        g = dict(env, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                 GIT_COMMITTER_EMAIL="t@t")
        with open(self.proj + "/README", "w") as f:
            f.write("project\n")
        for c in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "one"]):
            subprocess.run(c, cwd=self.proj, env=g, check=True)
        self.log = root + "/standin.log.jsonl"
        open(self.log, "w").close()

    def log_mark(self):
        with open(self.log) as f:
            return sum(1 for _ in f)

    def log_since(self, mark, name):
        with open(self.log) as f:
            lines = f.readlines()[mark:]
        with open("%s/%s.requests.jsonl" % (self.out, name), "w") as f:
            f.writelines(lines)
        return [json.loads(x) for x in lines]

    def rollout(self, thread):
        r = glob.glob(self.chome + "/sessions/*/*/*/rollout-*%s.jsonl" % thread)
        return r[0] if r else None

    def cold_argv(self, thread=None):
        argv = [self.codex, "exec", "--json", "--skip-git-repo-check", "-m", "gpt-5.5",
                "--sandbox", "workspace-write", "--add-dir", self.shots, "--add-dir", self.tmp,
                "-c", "sandbox_workspace_write.exclude_slash_tmp=true",
                "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true", "-p", "baton"]
        return argv + (["resume", thread, "-"] if thread else ["-"])

    def cold(self, name, prompt, thread=None):
        """A cold `codex exec` turn; returns (thread id, parsed stdout events)."""
        argv = self.cold_argv(thread)
        mark = self.log_mark()
        t0 = time.monotonic()
        p = subprocess.run(argv, cwd=self.proj, env=self.env, input=prompt.encode(),
                           capture_output=True, timeout=180)
        el = time.monotonic() - t0
        b = "%s/%s" % (self.out, name)
        open(b + ".stdout.jsonl", "wb").write(p.stdout)
        open(b + ".stderr.txt", "wb").write(p.stderr)
        open(b + ".rc", "w").write("%d\n" % p.returncode)
        json.dump({"argv": argv, "cwd": self.proj, "stdin": prompt, "seconds": round(el, 3)},
                  open(b + ".argv.json", "w"), indent=1)
        self.log_since(mark, name)
        evs = []
        for raw in p.stdout.splitlines():
            try:
                evs.append(json.loads(raw))
            except ValueError:
                pass
        tid = thread
        for e in evs:
            if e.get("type") == "thread.started":
                tid = e.get("thread_id")
        return tid, evs

    def new_thread(self, name):
        tid, _ = self.cold(name, "open the thread [[reply:thread opened]]")
        return tid


class App:
    """One `codex app-server` started as baton will start it; every line kept."""

    def __init__(self, w, name, extra=()):
        self.w, self.name = w, name
        self.argv = [w.codex, "app-server", "-c", 'sandbox_mode="workspace-write"',
                     "-c", "sandbox_workspace_write.writable_roots=[%s,%s]" % (
                         json.dumps(w.shots), json.dumps(w.tmp)),
                     "-c", "sandbox_workspace_write.exclude_slash_tmp=true",
                     "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true"] + list(extra)
        b = "%s/%s" % (w.out, name)
        self.base = b
        self.f_sent = open(b + ".sent.jsonl", "w")
        self.f_out = open(b + ".stdout.jsonl", "wb")
        self.f_tl = open(b + ".timeline.jsonl", "w")
        self.f_err = open(b + ".stderr.txt", "wb")
        json.dump({"argv": self.argv, "cwd": w.proj,
                   "env": {k: w.env[k] for k in ("HOME", "CODEX_HOME", "TMPDIR", "MOCK_API_KEY")}},
                  open(b + ".argv.json", "w"), indent=1)
        self.mark = w.log_mark()
        self.notes = {}
        self.t0 = time.monotonic()
        self.p = subprocess.Popen(self.argv, cwd=w.proj, env=w.env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.f_err)
        self.q = []
        self.cv = threading.Condition()
        self.eof = False
        threading.Thread(target=self._reader, daemon=True).start()
        self.next_id = 0
        self.pos = 0  # messages consumed by wait()

    def ms(self):
        return round((time.monotonic() - self.t0) * 1000, 1)

    def _reader(self):
        for raw in self.p.stdout:
            t = self.ms()
            self.f_out.write(raw)
            self.f_out.flush()
            try:
                msg = json.loads(raw)
            except ValueError:
                msg = {"_unparsed": raw.decode("utf-8", "replace")}
            self.f_tl.write(json.dumps({"t": t, "dir": "<<", "msg": msg}) + "\n")
            self.f_tl.flush()
            extra = None
            if msg.get("method") == "turn/completed":
                extra = self.rollout_now(msg)
            with self.cv:
                self.q.append((t, msg, extra))
                self.cv.notify_all()
        with self.cv:
            self.eof = True
            self.cv.notify_all()

    def rollout_now(self, msg):
        """Read the rollout right at turn/completed: does it already hold the turn's end?"""
        tid = (msg.get("params") or {}).get("threadId")
        path = self.w.rollout(tid) if tid else None
        if not path:
            return {"rollout": None}
        lines = open(path).read().splitlines()
        kinds = []
        last_tc = None
        for ln in lines:
            try:
                e = json.loads(ln)
            except ValueError:
                kinds.append("<partial line>")
                continue
            p = e.get("payload") or {}
            kinds.append(p.get("type") or e.get("type"))
            if p.get("type") == "token_count":
                last_tc = p
        return {"rollout_lines_at_completed": len(lines), "last_kinds": kinds[-4:],
                "last_token_count": last_tc}

    def send(self, msg):
        line = json.dumps(msg)
        self.f_sent.write(line + "\n")
        self.f_sent.flush()
        self.f_tl.write(json.dumps({"t": self.ms(), "dir": ">>", "msg": msg}) + "\n")
        self.f_tl.flush()
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def request(self, method, params=None, rid=None):
        if rid is None:
            self.next_id += 1
            rid = self.next_id
        m = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)
        return rid

    def wait(self, pred, timeout=60):
        """Next message (from the reader's queue, in order) matching pred; None on timeout/EOF."""
        end = time.monotonic() + timeout
        with self.cv:
            while True:
                while self.pos < len(self.q):
                    t, msg, extra = self.q[self.pos]
                    self.pos += 1
                    if pred(msg):
                        return t, msg, extra
                if self.eof:
                    return None
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)

    def call(self, method, params=None, timeout=60):
        rid = self.request(method, params)
        r = self.wait(lambda m: m.get("id") == rid and ("result" in m or "error" in m), timeout)
        return r[1] if r else None

    def start(self, thread):
        self.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
        self.send({"jsonrpc": "2.0", "method": "initialized"})
        return self.call("thread/resume", self.resume_params(thread))

    def resume_params(self, thread):
        return {"threadId": thread, "cwd": self.w.proj, "model": "gpt-5.5",
                "approvalPolicy": "never", "sandbox": "workspace-write", "excludeTurns": True}

    def turn_params(self, thread, prompt):
        return {"threadId": thread, "input": [{"type": "text", "text": prompt,
                                               "text_elements": []}],
                "cwd": self.w.proj, "model": "gpt-5.5", "approvalPolicy": "never",
                "sandboxPolicy": {"type": "workspaceWrite",
                                  "writableRoots": [self.w.shots, self.w.tmp],
                                  "networkAccess": False, "excludeSlashTmp": True,
                                  "excludeTmpdirEnvVar": True}}

    def turn(self, thread, prompt, label, timeout=120):
        """turn/start and read to turn/completed; notes: timings and the rollout snapshot."""
        t0 = self.ms()
        r = self.call("turn/start", self.turn_params(thread, prompt))
        res = self.until_completed(label, t0, timeout)
        res["turn_start_response"] = r
        return res

    def until_completed(self, label, t0, timeout=120):
        first_delta = usage_t = None
        usage = None
        methods = []
        while True:
            got = self.wait(lambda m: "method" in m, timeout)
            if got is None:
                res = {"completed": None, "methods": methods}
                break
            t, msg, extra = got
            m = msg["method"]
            methods.append(m)
            if m == "item/agentMessage/delta" and first_delta is None:
                first_delta = t - t0
            if m == "thread/tokenUsage/updated":
                usage_t, usage = t, msg["params"]
            if m == "turn/completed":
                res = {"completed": msg["params"], "completed_ms": t - t0,
                       "first_delta_ms": first_delta,
                       "token_usage_before_completed_ms": (t - usage_t) if usage_t else None,
                       "token_usage": usage, "rollout_at_completed": extra}
                break
        res["method_counts"] = {k: methods.count(k) for k in dict.fromkeys(methods)}
        self.notes[label] = res
        return res

    def drain(self, secs):
        """Every message arriving within secs (for what follows an interrupt etc.)."""
        out = []
        end = time.monotonic() + secs
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return out
            g = self.wait(lambda m: True, left)
            if g is None:
                return out
            out.append(g[1])

    def rss_kib(self):
        try:
            for line in open("/proc/%d/status" % self.p.pid):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except OSError:
            return None

    def stop(self, how="eof", timeout=15):
        t0 = time.monotonic()
        if how == "eof":
            self.p.stdin.close()
        else:
            self.p.send_signal({"int": signal.SIGINT, "term": signal.SIGTERM}[how])
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = "killed after %ds: %s" % (timeout, self.p.wait())
        el = round((time.monotonic() - t0) * 1000, 1)
        time.sleep(0.2)
        self.notes["exit"] = {"how": how, "rc": rc, "ms": el}
        open(self.base + ".rc", "w").write("%s\n" % rc)
        self.w.log_since(self.mark, self.name)
        json.dump(self.notes, open(self.base + ".notes.json", "w"), indent=1)
        for f in (self.f_sent, self.f_tl, self.f_err):
            f.close()
        return rc, el


def reqs_texts(reqs):
    """Per /responses request: the user texts of its input (for history checks)."""
    out = []
    for r in reqs:
        b = r.get("body")
        if not isinstance(b, dict) or "input" not in b:
            continue
        ts = []
        for i in b["input"]:
            if i.get("role") == "user":
                for c in i.get("content") or []:
                    if isinstance(c, dict) and c.get("type") == "input_text":
                        ts.append(c["text"][:80])
        out.append(ts)
    return out


# ---------------------------------------------------------------- cases

def w1(w):
    t = w.new_thread("w1-cold-create")
    a = App(w, "w1-plain")
    a.start(t)
    a.turn(t, "first warm turn [[slow:30]] [[reply:the first warm answer, streamed in forty "
              "pieces so the deltas show]]", "turn1")
    a.turn(t, "second warm turn [[reply:second answer]]", "turn2")
    time.sleep(1.0)
    a.notes["idle_rss_kib"] = a.rss_kib()
    rc, ms = a.stop("eof")
    FACTS["w1"] = {"thread": t, "turn1": a.notes["turn1"], "turn2": a.notes["turn2"],
                   "idle_rss_kib": a.notes["idle_rss_kib"], "exit_on_eof": a.notes["exit"]}
    tc = [json.loads(x)["payload"] for x in open(w.rollout(t))
          if json.loads(x).get("payload", {}).get("type") == "token_count"]
    FACTS["w1"]["rollout_last_token_count_after"] = tc[-1] if tc else None


def w2(w):
    t = w.new_thread("w2-cold-create")
    a = App(w, "w2-tools")
    a.start(t)
    a.turn(t, "run a command [[tool:Bash:echo hi > made.txt]] [[reply:ran it]]", "bash")
    a.turn(t, "write a file [[tool:Write:new.txt]] [[reply:wrote it]]", "write")
    with open(w.proj + "/new.txt") if os.path.exists(w.proj + "/new.txt") else open(os.devnull) as f:
        a.notes["new.txt"] = f.read()
    with open(w.proj + "/README", "a") as f:
        f.write("old line\n")
    a.turn(t, "edit a file [[tool:Edit:README]] [[reply:edited it]]", "edit")
    a.notes["made.txt"] = open(w.proj + "/made.txt").read() if os.path.exists(
        w.proj + "/made.txt") else None
    a.notes["README"] = open(w.proj + "/README").read()
    a.stop()
    FACTS["w2"] = {k: a.notes[k] for k in ("made.txt", "new.txt", "README")}


def fence_cmd(w, tag):
    targets = ["/tmp/outside-%s" % tag, w.home + "/outside-%s" % tag,
               w.root + "/outside-%s" % tag, w.proj + "/inside-%s" % tag,
               w.shots + "/shot-%s" % tag, w.tmp + "/tmp-%s" % tag]
    cmd = "; ".join("(echo x > %s) 2>/dev/null && echo OK %s || echo FAIL %s" % (p, p, p)
                    for p in targets)
    return cmd + "; echo TMPDIR=$TMPDIR", targets


def fence_check(targets):
    res = {}
    for p in targets:
        res[p] = os.path.exists(p)
        if os.path.exists(p):
            os.unlink(p)
    return res


def w3(w):
    t = w.new_thread("w3-cold-create")
    cmd, targets = fence_cmd(w, "warm")
    a = App(w, "w3-fence-warm")
    a.start(t)
    a.turn(t, "fence [[tool:Bash:%s]] [[reply:fence done]]" % cmd, "fence")
    a.stop()
    warm = fence_check(targets)
    cmd, targets = fence_cmd(w, "cold")
    _, evs = w.cold("w3-fence-cold", "fence [[tool:Bash:%s]] [[reply:fence done]]" % cmd, t)
    cold = fence_check(targets)
    sb = subprocess.run([w.codex, "sandbox", "--", "true"], cwd=w.proj,
                        env=w.env, capture_output=True, timeout=30)
    FACTS["w3"] = {"warm_written": warm, "cold_written": cold,
                   "codex_sandbox_true": [sb.returncode, sb.stderr.decode()[-300:]]}


def w4(w):
    t = w.new_thread("w4-cold-create")
    a = App(w, "w4-interrupt")
    a.start(t)
    t0 = a.ms()
    r = a.call("turn/start", a.turn_params(t, "slow [[slow:200]] [[reply:%s]]" % (
        "this answer streams slowly and will be cut " * 2)))
    turn_id = r["result"]["turn"]["id"]
    a.wait(lambda m: m.get("method") == "item/agentMessage/delta", 30)
    ti = a.ms()
    rid = a.request("turn/interrupt", {"threadId": t, "turnId": turn_id})
    res = a.until_completed("interrupted", t0)
    a.notes["interrupt_sent_ms"] = ti - t0
    after = [m for _, m, _ in a.q if m.get("id") == rid]
    a.notes["interrupt_response"] = after
    a.notes["drain_after_completed"] = a.drain(2)
    ro = open(w.rollout(t)).read()
    a.notes["rollout_has_turn_aborted"] = "turn_aborted" in ro
    a.turn(t, "after the interrupt [[reply:next turn works]]", "next")
    a.stop()
    FACTS["w4"] = {"interrupt_response": after, "completed": res.get("completed"),
                   "turn_aborted_in_rollout": a.notes["rollout_has_turn_aborted"],
                   "next": a.notes["next"].get("completed")}


def w5(w):
    t = w.new_thread("w5-cold-create")
    a = App(w, "w5-steer")
    a.start(t)
    notes = {}
    # a) steer during a slow text answer
    t0 = a.ms()
    r = a.call("turn/start", a.turn_params(t, "slow one [[slow:200]] [[reply:%s]]" % (
        "a slow answer to steer into " * 2)))
    tid1 = r["result"]["turn"]["id"]
    a.wait(lambda m: m.get("method") == "item/agentMessage/delta", 30)
    notes["steer_text_response"] = a.call("turn/steer", {
        "threadId": t, "input": [{"type": "text", "text": "STEER-ONE also say banana",
                                  "text_elements": []}], "expectedTurnId": tid1})
    a.until_completed("steer_text", t0)
    # b) steer during a running command
    t0 = a.ms()
    r = a.call("turn/start", a.turn_params(t, "tool one [[tool:Bash:sleep 2; echo x]]"))
    tid2 = r["result"]["turn"]["id"]
    a.wait(lambda m: m.get("method") == "item/started" and
           m["params"]["item"].get("type") == "commandExecution", 30)
    time.sleep(0.3)
    notes["steer_tool_response"] = a.call("turn/steer", {
        "threadId": t, "input": [{"type": "text", "text": "STEER-TWO during the command",
                                  "text_elements": []}], "expectedTurnId": tid2})
    a.until_completed("steer_tool", t0)
    # c) wrong expectedTurnId during a turn
    t0 = a.ms()
    r = a.call("turn/start", a.turn_params(t, "slow two [[slow:50]] [[reply:%s]]" % (
        "another slow answer " * 2)))
    a.wait(lambda m: m.get("method") == "item/agentMessage/delta", 30)
    notes["steer_wrong_id"] = a.call("turn/steer", {
        "threadId": t, "input": [{"type": "text", "text": "STEER-WRONG", "text_elements": []}],
        "expectedTurnId": "not-the-turn"})
    a.until_completed("steer_wrong_turn", t0)
    # d) no turn active
    notes["steer_idle"] = a.call("turn/steer", {
        "threadId": t, "input": [{"type": "text", "text": "STEER-IDLE", "text_elements": []}],
        "expectedTurnId": tid2})
    notes["steer_no_expected"] = a.call("turn/steer", {
        "threadId": t, "input": [{"type": "text", "text": "STEER-NOEXP", "text_elements": []}]})
    a.notes.update(notes)
    a.stop()
    reqs = [json.loads(x) for x in open(a.base + ".requests.jsonl")]
    FACTS["w5"] = dict(notes, request_user_texts=reqs_texts(reqs))


def w6(w):
    t = w.new_thread("w6-cold-create")
    a = App(w, "w6-fail")
    a.start(t)
    a.turn(t, "bad request [[status:400]]", "s400")
    a.turn(t, "server error [[status:500]]", "s500", timeout=300)
    a.turn(t, "after failures [[reply:works again]]", "after")
    a.stop()
    FACTS["w6"] = {k: {"completed": a.notes[k].get("completed"),
                       "methods": a.notes[k].get("method_counts"),
                       "ms": a.notes[k].get("completed_ms")} for k in ("s400", "s500", "after")}
    FACTS["w6"]["error_notifications"] = [m for _, m, _ in a.q if m.get("method") == "error"]


def w7(w):
    t = w.new_thread("w7-cold-create")
    a = App(w, "w7-errors")
    n = {}
    n["before_initialize"] = a.call("thread/resume", a.resume_params(t), timeout=10)
    n["initialize"] = a.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
    a.send({"jsonrpc": "2.0", "method": "initialized"})
    n["initialize_again"] = a.call("initialize", {"clientInfo": {"name": "baton",
                                                                 "version": "0.1.0"}})
    n["turn_start_not_resumed"] = a.call("turn/start", a.turn_params(t, "x [[reply:no]]"))
    a.drain(2)
    n["turn_start_unknown_uuid"] = a.call("turn/start", a.turn_params(str(uuid.uuid4()), "x"))
    n["resume_unknown_uuid"] = a.call("thread/resume", a.resume_params(str(uuid.uuid4())))
    n["resume_not_uuid"] = a.call("thread/resume", a.resume_params("not-a-uuid"))
    n["unknown_method"] = a.call("thread/bogus", {})
    n["interrupt_no_turn"] = a.call("turn/interrupt", {"threadId": t, "turnId": "nope"})
    a.notes.update(n)
    a.stop()
    FACTS["w7"] = n


def w8_lifecycle(w):
    t = w.new_thread("w10-cold-create")
    res = {}
    for how in ("int", "term"):
        a = App(w, "w10-sig%s" % how)
        a.start(t)
        time.sleep(0.5)
        res[how] = a.stop(how)
    # signal during a turn
    a = App(w, "w10-sigterm-midturn")
    a.start(t)
    a.call("turn/start", a.turn_params(t, "slow [[slow:200]] [[reply:%s]]" % ("cut me " * 10)))
    a.wait(lambda m: m.get("method") == "item/agentMessage/delta", 30)
    res["term_midturn"] = a.stop("term")
    FACTS["w10_signals"] = res


def w10_mix(w):
    """Cold `exec resume` while an app-server holds the thread loaded, then a warm turn."""
    t = w.new_thread("w10-mix-cold-create")
    a = App(w, "w10-mix")
    a.start(t)
    a.turn(t, "WARM-A first warm [[reply:warm a]]", "warmA")
    w.cold("w10-mix-cold", "COLD-B cold turn while loaded [[reply:cold b]]", t)
    a.turn(t, "WARM-C warm after the cold one [[reply:warm c]]", "warmC")
    b = App(w, "w10-mix-second-app")
    b.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
    b.send({"jsonrpc": "2.0", "method": "initialized"})
    second = b.call("thread/resume", b.resume_params(t))
    b.stop()
    a.notes["unsubscribe"] = a.call("thread/unsubscribe", {"threadId": t})
    a.drain(1)
    _, ev = w.cold("w10-mix-cold-after-unsubscribe", "COLD-U after unsubscribe [[reply:cold u]]",
                   t)
    a.stop()
    # the other way round: an app-server resumes T while a cold turn on T is running
    cp = subprocess.Popen(w.cold_argv(t), cwd=w.proj, env=w.env, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    cp.stdin.write(b"COLD-S slow cold [[slow:100]] [[reply:%s]]" % (b"slow cold " * 8))
    cp.stdin.close()
    time.sleep(1.5)
    c = App(w, "w10-mix-app-during-cold")
    c.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
    c.send({"jsonrpc": "2.0", "method": "initialized"})
    during = c.call("thread/resume", c.resume_params(t))
    cold_rc = cp.wait(60)
    c.notes["cold_rc"] = cold_rc
    c.stop()
    FACTS["w10_lock"] = {"second_app_resume": second, "unsubscribe": a.notes["unsubscribe"],
                         "cold_after_unsubscribe_rc": open(
                             w.out + "/w10-mix-cold-after-unsubscribe.rc").read().strip(),
                         "app_resume_during_cold": during, "cold_rc": cold_rc,
                         "cold_during_app_rc": open(w.out + "/w10-mix-cold.rc").read().strip()}
    reqs = [json.loads(x) for x in open(a.base + ".requests.jsonl")]
    texts = reqs_texts(reqs)
    # w11: the app-server's turns, resumed cold afterwards
    w.cold("w11-cold-after-warm", "COLD-D cold after the app-server [[reply:cold d]]", t)
    r11 = [json.loads(x) for x in open(w.out + "/w11-cold-after-warm.requests.jsonl")]
    FACTS["w10_mix"] = {"warm_request_user_texts": texts,
                        "warmC_sees_COLD_B": any("COLD-B" in x for x in texts[-1])}
    FACTS["w11"] = {"cold_request_user_texts": reqs_texts(r11)}


def w9(w):
    """System text: a cold `exec resume` turn vs a warm turn, same thread."""
    t = w.new_thread("w9-cold-create")
    w.cold("w9-cold-resume", "COLD turn [[reply:cold]]", t)
    a = App(w, "w9-warm")
    a.start(t)
    a.turn(t, "WARM turn [[reply:warm]]", "warm")
    a.stop()
    cold = [json.loads(x) for x in open(w.out + "/w9-cold-resume.requests.jsonl")]
    warm = [json.loads(x) for x in open(a.base + ".requests.jsonl")]
    cb = [r["body"] for r in cold if isinstance(r.get("body"), dict) and "input" in r["body"]][-1]
    wb = [r["body"] for r in warm if isinstance(r.get("body"), dict) and "input" in r["body"]][-1]
    json.dump(cb, open(w.out + "/w9-body-cold.json", "w"), indent=1, ensure_ascii=False)
    json.dump(wb, open(w.out + "/w9-body-warm.json", "w"), indent=1, ensure_ascii=False)
    diff = {"instructions_equal": cb.get("instructions") == wb.get("instructions"),
            "tools_equal": cb.get("tools") == wb.get("tools"),
            "keys_differing": sorted(k for k in set(cb) | set(wb)
                                     if k != "input" and cb.get(k) != wb.get(k))}
    ci, wi = cb["input"], wb["input"]
    diff["n_input"] = [len(ci), len(wi)]
    same = 0
    while same < min(len(ci), len(wi)) and ci[same] == wi[same]:
        same += 1
    diff["common_input_prefix"] = same
    diff["cold_tail"] = ci[same:]
    diff["warm_tail"] = wi[same:]
    diff["dev_items_cold"] = [i for i in ci if i.get("role") in ("developer", "system")]
    diff["dev_items_warm"] = [i for i in wi if i.get("role") in ("developer", "system")]
    diff["dev_items_equal"] = diff["dev_items_cold"] == diff["dev_items_warm"]
    diff["other_key_values"] = {k: [cb.get(k), wb.get(k)] for k in diff["keys_differing"]}
    json.dump(diff, open(w.out + "/w9-compare.json", "w"), indent=1, ensure_ascii=False)
    FACTS["w9"] = {k: diff[k] for k in ("instructions_equal", "tools_equal", "keys_differing",
                                        "n_input", "common_input_prefix", "dev_items_equal",
                                        "other_key_values")}


def digest(v):
    raw = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True)
    return {"trimmed": True, "chars": len(raw),
            "sha256": hashlib.sha256(raw.encode()).hexdigest()}


def fixture(out, dest):
    """Copy out/ to dest with the big repeated parts replaced by their length and sha256: in the
    stand-in logs each request's `instructions` and `tools`, in the rollouts session_meta's
    `base_instructions.text` (w9-body-*.json keep them whole)."""
    os.makedirs(dest, exist_ok=True)
    for name in sorted(os.listdir(out)):
        src, dst = os.path.join(out, name), os.path.join(dest, name)
        if name.endswith(".requests.jsonl"):
            with open(src) as f, open(dst, "w") as g:
                for ln in f:
                    e = json.loads(ln)
                    b = e.get("body")
                    if isinstance(b, dict):
                        for k in ("instructions", "tools"):
                            if k in b:
                                b[k] = digest(b[k])
                        for i in b.get("input") or []:
                            if isinstance(i, dict) and i.get("role") in ("developer", "system"):
                                for c in i.get("content") or []:
                                    if isinstance(c, dict) and len(c.get("text") or "") > 2000:
                                        c["text"] = digest(c["text"])
                    g.write(json.dumps(e, ensure_ascii=False) + "\n")
        elif name.startswith("rollout-"):
            with open(src) as f, open(dst, "w") as g:
                for ln in f:
                    e = json.loads(ln)
                    bi = (e.get("payload") or {}).get("base_instructions")
                    if e.get("type") == "session_meta" and isinstance(bi, dict) and "text" in bi:
                        bi["text"] = digest(bi["text"])
                        ln = json.dumps(e, ensure_ascii=False) + "\n"
                    g.write(ln)
        else:
            shutil.copy(src, dst)


def w12(w):
    """Extras: turn/start while a turn runs; interrupt during a command; stdin closed mid-turn."""
    t = w.new_thread("w12-cold-create")
    a = App(w, "w12-extra")
    a.start(t)
    n = {}
    t0 = a.ms()
    r = a.call("turn/start", a.turn_params(t, "slow [[slow:50]] [[reply:%s]]" % ("busy " * 8)))
    a.wait(lambda m: m.get("method") == "item/agentMessage/delta", 30)
    n["turn_start_while_active"] = a.call("turn/start", a.turn_params(
        t, "SECOND-WHILE-ACTIVE [[reply:second]]"))
    a.until_completed("first", t0)
    a.drain(3)
    n["after_second_methods"] = [m.get("method") for _, m, _ in a.q[-40:]]
    # interrupt while a command runs
    t0 = a.ms()
    late = w.proj + "/late.txt"
    r = a.call("turn/start", a.turn_params(t, "cmd [[tool:Bash:sleep 3; echo late > %s]]" % late))
    tid = r["result"]["turn"]["id"]
    a.wait(lambda m: m.get("method") == "item/started" and
           m["params"]["item"].get("type") == "commandExecution", 30)
    time.sleep(0.5)
    n["interrupt_cmd_response"] = a.call("turn/interrupt", {"threadId": t, "turnId": tid})
    a.until_completed("interrupt_cmd", t0)
    n["after_interrupt_cmd"] = a.drain(4)
    n["late_txt_exists_4s_later"] = os.path.exists(late)
    a.notes.update(n)
    a.stop()
    # stdin closed mid-turn
    b = App(w, "w12-eof-midturn")
    b.start(t)
    b.call("turn/start", b.turn_params(t, "slow [[slow:200]] [[reply:%s]]" % ("cut " * 10)))
    b.wait(lambda m: m.get("method") == "item/agentMessage/delta", 30)
    n["eof_midturn_exit"] = b.stop("eof")
    ro = open(w.rollout(t)).read().splitlines()
    n["eof_midturn_rollout_last"] = [json.loads(x).get("payload", {}).get("type") for x in ro[-3:]]
    FACTS["w12"] = n


CASES = {"w1": w1, "w2": w2, "w3": w3, "w4": w4, "w5": w5, "w6": w6, "w7": w7,
         "w9": w9, "w10": w8_lifecycle, "w10mix": w10_mix, "w12": w12}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--codex")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18233)
    ap.add_argument("-k", default=",".join(CASES))
    ap.add_argument("--fixture", help="only copy an earlier --out's out/ here, trimmed")
    a = ap.parse_args()
    if a.fixture:
        return fixture(os.path.join(os.path.abspath(a.out), "out"), a.fixture)
    codex = a.codex or next(iter(sorted(
        glob.glob("/tmp/*/node_modules/@openai/codex-linux-x64/vendor/*/bin/codex"))), None)
    w = World(os.path.abspath(a.out), a.port, codex)
    standin.LOG_PATH = w.log
    srv = standin.ThreadingHTTPServer(("127.0.0.1", a.port), standin.Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    FACTS["codex_version"] = subprocess.run([codex, "--version"], capture_output=True,
                                            text=True).stdout.strip()
    for k in a.k.split(","):
        t0 = time.monotonic()
        try:
            CASES[k](w)
        except Exception as e:  # write down what happened and go on
            import traceback
            FACTS.setdefault("errors", {})[k] = traceback.format_exc()
            print("case %s failed: %s" % (k, e), flush=True)
        print("case %s: %.1f s" % (k, time.monotonic() - t0), flush=True)
        json.dump(FACTS, open(w.out + "/facts.json", "w"), indent=1, ensure_ascii=False)
    for r in glob.glob(w.chome + "/sessions/*/*/*/rollout-*.jsonl"):
        shutil.copy(r, w.out)


if __name__ == "__main__":
    main()
