#!/usr/bin/env python3
"""Warm Codex through baton on the REAL Codex CLI: after a clean cold turn (`codex exec --json
... resume THREAD -`) baton keeps a `codex app-server` with the thread resumed, and the next
prompt is a `turn/start` into it.

  python3 codex_warm_baton.py --baton PATH [--codex BIN] --out DIR [--port 18099] [--cold 5]

One world (DIR/w/{home,codex,baton,bin,proj}: HOME, CODEX_HOME pointing at the stand-in,
BATON_HOME with `[providers.codex] model = "gpt-5.5"`, the real binary symlinked first on PATH
as `codex`, PROJ a git repo with one commit) against the stand-in (standin.py, in-process on
127.0.0.1:PORT). A request's user-agent tells who sent it: `codex_exec/...` a cold exec,
`baton/...` (the app-server's clientInfo) a warm turn.
  1. turns 1..5 (`baton send t "turn N"`, timed to the first stdout byte and to the first answer
     byte; baton's header goes to stderr, so they coincide): turn 1 cold, 2-5 in one app-server (server status pid), each completed with the
     context/window and cost the stand-in's usage implies; the system text (developer items,
     `instructions`) byte-identical on every request.
  2. server stop: the app-server exits; then --cold runs of `codex exec --json resume THREAD -`
     with the app-server's own options (cwd, TMPDIR) timed to the first stdout byte and to the
     answer item; the warm median of turns 2-5 must be at most half the cold one.
  3. the restart's first turn is cold and completes; the next is warm.
  4. an interrupt of a slow warm turn after its first answer bytes; the next turn in the same
     app-server.
  5. a steer while a warm turn's command (sleep 3) runs.
  6. the fence and the commit of a warm turn.
  7. --model gpt-5.4: cold, completes, then warm again.
  8. server stop while warm; the restart's first turn cold.
  9. server.log lines.
Checks in DIR/checks.txt (OK/FAIL), figures in DIR/figures.json.
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
WINDOW = 258400  # gpt-5.5 / gpt-5.4 model_context_window as Codex 0.171.0 reports it


def check(ok, what, detail=""):
    line = "%s %s%s" % ("OK  " if ok else "FAIL", what, (": " + detail) if detail else "")
    print(line, flush=True)
    CHECKS.append(line)


class World:
    def __init__(self, a):
        self.a = a
        self.dir = os.path.join(a.out, "w")
        shutil.rmtree(self.dir, ignore_errors=True)
        for d in ("home", "codex", "baton", "bin", "proj"):
            os.makedirs(os.path.join(self.dir, d))
        os.symlink(os.path.abspath(a.codex), os.path.join(self.dir, "bin", "codex"))
        with open(os.path.join(self.dir, "codex", "config.toml"), "w") as f:
            f.write('model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\n'
                    'name = "Mock"\nbase_url = "http://127.0.0.1:%d/v1"\nwire_api = "responses"\n'
                    'env_key = "MOCK_API_KEY"\n' % a.port)
        with open(os.path.join(self.dir, "baton", "config.toml"), "w") as f:
            f.write('[providers.codex]\nmodel = "gpt-5.5"\n')
        self.proj = os.path.join(self.dir, "proj")
        g = ["git", "-C", self.proj, "-c", "user.email=t@t", "-c", "user.name=t"]
        subprocess.run(["git", "init", "-q", self.proj], check=True)
        with open(os.path.join(self.proj, "README"), "w") as f:
            f.write("project\n")
        subprocess.run(g + ["add", "."], check=True)
        subprocess.run(g + ["commit", "-qm", "init"], check=True)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC", "CLAUDE", "CODEX", "OPENAI", "BATON"))}
        env.update(HOME=self.dir + "/home", CODEX_HOME=self.dir + "/codex", MOCK_API_KEY="dummy",
                   BATON_HOME=self.dir + "/baton", PATH=self.dir + "/bin:" + os.environ["PATH"])
        self.env = env

    def baton(self, *args, timeout=120):
        return subprocess.run([self.a.baton, *args], capture_output=True, text=True,
                              env=self.env, timeout=timeout)

    def json(self, *args):
        p = self.baton(*args, "--json")
        try:
            return json.loads(p.stdout)
        except ValueError:
            print("bad json from %s: %r %r" % (args, p.stdout[:300], p.stderr[:300]))
            return {}

    def warm(self):
        listed = self.json("server", "status").get("warm") or []
        return listed[0] if listed else {}

    def timed_send(self, prompt, *extra, mark="STANDIN-REPLY"):
        """(s to the first stdout byte, s to the first byte of `mark`, rc, stdout, stderr)."""
        t0 = time.monotonic()
        p = subprocess.Popen([self.a.baton, "send", "t", prompt, *extra], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=self.env)
        buf, first, answer = b"", None, None
        while True:
            chunk = os.read(p.stdout.fileno(), 1 if first is None else 65536)
            if not chunk:
                break
            if first is None:
                first = time.monotonic() - t0
            buf += chunk
            if answer is None and mark.encode() in buf:
                answer = time.monotonic() - t0
        p.wait(timeout=120)
        err = p.stderr.read().decode("utf-8", "replace")
        return first, answer, p.returncode, buf.decode("utf-8", "replace"), err


def reqs(log, since):
    out = []
    with open(log, encoding="utf-8") as f:
        for line in f.readlines()[since:]:
            e = json.loads(line)
            if e.get("path", "").endswith("/responses") and isinstance(e.get("body"), dict):
                out.append(e)
    return out


def nlines(log):
    with open(log, encoding="utf-8") as f:
        return len(f.readlines())


def who(e):
    ua = (e.get("headers") or {}).get("user-agent", "")
    return "warm" if ua.startswith("baton/") else "cold" if ua.startswith("codex_exec/") else ua


def expected(rs):
    """The context and cost the stand-in's usage implies for one turn's requests."""
    n = [e["n"] for e in rs]
    return {"ctx": (10000 + n[-1]) + (10 + n[-1]) if n else None,
            "input": sum(10000 + k for k in n), "output": sum(10 + k for k in n)}


def system_items(body):
    dev = [json.dumps(i, sort_keys=True) for i in body.get("input", [])
           if isinstance(i, dict) and i.get("role") in ("developer", "system")]
    return json.dumps({"instructions": body.get("instructions"), "dev": dev})


def user_text(body):
    return json.dumps([i for i in body.get("input", []) if isinstance(i, dict)
                       and i.get("role") == "user"], ensure_ascii=False)


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid, secs=10):
    t = time.monotonic()
    while time.monotonic() - t < secs:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def cold_exec(argv, cwd, env, prompt):
    """(s to the first stdout byte, s to the agent_message item, rc, stderr)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdin.write(prompt.encode())
    p.stdin.close()
    first = answer = None
    for raw in p.stdout:
        if first is None:
            first = time.monotonic() - t0
        try:
            ev = json.loads(raw)
        except ValueError:
            continue
        if answer is None and ev.get("type") == "item.completed" and \
                (ev.get("item") or {}).get("type") == "agent_message":
            answer = time.monotonic() - t0
    p.wait(timeout=120)
    return first, answer, p.returncode, p.stderr.read().decode("utf-8", "replace")


def turn(w, log, prompt, *extra, mark="STANDIN-REPLY"):
    since = nlines(log)
    first, ans, rc, out, err = w.timed_send(prompt, *extra, mark=mark)
    time.sleep(0.3)
    rs = reqs(log, since)
    return {"first": first, "answer_s": ans, "rc": rc, "out": out, "err": err, "reqs": rs,
            "who": [who(e) for e in rs], "warm": w.warm()}


def last_turn(w):
    t = w.json("log", "t").get("turns") or [{}]
    return t[-1]


def run(a, log):
    w = World(a)
    fig = {}
    r = w.baton("new", "t", "--provider", "codex", "--dir", w.proj)
    check(r.returncode == 0, "baton new", r.stderr.strip()[:200])
    wt = w.json("show", "t").get("dir")
    fig["worktree"] = wt
    # 1. turns 1..5
    since0 = nlines(log)
    ts = [turn(w, log, "turn %d of the warm check" % n) for n in range(1, 6)]
    lt = w.json("log", "t").get("turns") or []
    show = w.json("show", "t")
    fig["turns_1_5"] = [{"first_byte_s": t["first"], "answer_byte_s": t["answer_s"], "rc": t["rc"],
                         "who": t["who"], "warm_pid": t["warm"].get("pid"),
                         "warm_turns": t["warm"].get("turns")} for t in ts]
    for i, t in enumerate(ts):
        ex = expected(t["reqs"])
        rec = lt[i] if i < len(lt) else {}
        ctx, cost = rec.get("context") or {}, rec.get("cost") or {}
        want = ["cold"] if i == 0 else ["warm"]
        check(t["rc"] == 0 and rec.get("status") == "completed" and t["who"] == want and
              ctx.get("tokens") == ex["ctx"] and ctx.get("window") == WINDOW,
              "turn %d completed, %s, context %s/%s (stand-in implies %s/%d)" %
              (i + 1, "/".join(t["who"]), ctx.get("tokens"), ctx.get("window"), ex["ctx"], WINDOW),
              "rc=%s status=%s" % (t["rc"], rec.get("status")))
        check(cost.get("input_tokens") == ex["input"] and cost.get("output_tokens") == ex["output"],
              "turn %d cost its own: in %s out %s (stand-in %d/%d)" %
              (i + 1, cost.get("input_tokens"), cost.get("output_tokens"), ex["input"],
               ex["output"]))
    sc = show.get("context") or {}
    check(sc.get("tokens") == expected(ts[-1]["reqs"])["ctx"] and sc.get("window") == WINDOW,
          "show --json context after turn 5: %s/%s" % (sc.get("tokens"), sc.get("window")))
    pids = [t["warm"].get("pid") for t in ts]
    wturns = [t["warm"].get("turns") for t in ts]
    check(len(set(pids)) == 1 and pids[0] and all(x == "warm" for t in ts[1:] for x in t["who"]),
          "one app-server for turns 2-5 (warm pid after each turn %s, warm turns %s)" %
          (pids, wturns))
    allr = reqs(log, since0)
    systems = {system_items(e["body"]) for e in allr}
    check(len(allr) >= 5 and len(systems) == 1,
          "system text (developer items + instructions) byte-identical on all %d requests of "
          "turns 1-5 (%d variants; instructions key present: %s)" %
          (len(allr), len(systems), any("instructions" in e["body"] for e in allr)))
    pid = pids[-1]
    argv_app = []
    cwd = env_tmp = None
    if pid and alive(pid):
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv_app = [x.decode() for x in f.read().split(b"\0") if x]
        cwd = os.readlink("/proc/%d/cwd" % pid)
        with open("/proc/%d/environ" % pid, "rb") as f:
            for kv in f.read().split(b"\0"):
                if kv.startswith(b"TMPDIR="):
                    env_tmp = kv[7:].decode()
    fig["app_server_argv"] = argv_app
    thread = (show.get("sessions") or [{}])[-1].get("session_id")
    # 2. stop (the writer lock goes with the app-server), then cold references
    r = w.baton("server", "stop")
    gone = wait_gone(pid) if pid else False
    check(r.returncode == 0 and gone, "server stop: the app-server (pid %s) exits" % pid,
          r.stderr.strip()[:200])
    cenv = dict(w.env)
    if env_tmp:
        cenv["TMPDIR"] = env_tmp
    opts = argv_app[2:] if argv_app[1:2] == ["app-server"] else []
    argv = [a.codex, "exec", "--json", "--skip-git-repo-check", "-m", "gpt-5.5", *opts,
            "resume", thread, "-"]
    fig["cold_argv"] = argv
    colds = [cold_exec(argv, cwd or wt, cenv, "cold turn %d" % i) for i in range(a.cold)]
    fig["cold"] = [{"first_byte_s": c[0], "answer_item_s": c[1], "rc": c[2]} for c in colds]
    check(all(c[2] == 0 for c in colds), "cold exec resume runs rc 0",
          "; ".join(c[3].strip()[-200:] for c in colds if c[2] != 0))
    med = statistics.median
    wf = med([t["first"] for t in ts[1:]])
    wa = med([t["answer_s"] for t in ts[1:] if t["answer_s"] is not None])
    cf = med([c[0] for c in colds if c[0] is not None])
    ca = med([c[1] for c in colds if c[1] is not None])
    fig.update(warm_first_byte_median_s=wf, warm_answer_byte_median_s=wa,
               cold_first_byte_median_s=cf, cold_answer_median_s=ca)
    # baton prints its header on stderr: a warm send's first stdout byte is the answer's first
    # byte. `exec --json` prints no deltas, and its first stdout line (thread.started) comes
    # before any model request: the answer item is the cold figure to hold it against.
    check(wf <= ca / 2, "turns 2-5 first stdout byte (= first answer byte) median %.0f ms <= half "
          "the cold exec resume answer-item median %.0f ms" % (wf * 1000, ca * 1000),
          "cold first stdout byte (thread.started, no model output yet) median %.0f ms; "
          "warm/cold %.2f" % (cf * 1000, wf / ca))
    # 3. restart: cold, then warm
    t6 = turn(w, log, "after the restart")
    rec = last_turn(w)
    check(t6["rc"] == 0 and rec.get("status") == "completed" and t6["who"] == ["cold"],
          "restart's first turn cold and completed", "who=%s rc=%s %s" %
          (t6["who"], t6["rc"], (t6["err"] + t6["out"]).strip()[-300:]))
    t7 = turn(w, log, "warm again after the restart")
    check(t7["rc"] == 0 and t7["who"] == ["warm"], "the next turn warm", "who=%s" % t7["who"])
    pid = t7["warm"].get("pid")
    # 4. interrupt a slow warm turn after its first answer bytes
    since = nlines(log)
    p = subprocess.Popen([a.baton, "send", "t", "slow one [[slow:200]]"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=w.env)
    buf = b""
    while b"STANDIN-REPLY" not in buf:
        c = os.read(p.stdout.fileno(), 4096)
        if not c:
            break
        buf += c
    time.sleep(0.5)
    ri = w.baton("interrupt", "t")
    rest, err = p.communicate(timeout=60)
    rec = last_turn(w)
    full = "STANDIN-REPLY"
    ans = rec.get("answer") or ""
    rs = reqs(log, since)
    fig["interrupt"] = {"rc": p.returncode, "interrupt_rc": ri.returncode, "status":
                        rec.get("status"), "answer": ans, "who": [who(e) for e in rs],
                        "send_stdout": (buf + rest).decode("utf-8", "replace"),
                        "send_stderr": err.decode("utf-8", "replace")}
    check(rec.get("status") == "interrupted" and ans.startswith(full) and
          len(ans) < len("STANDIN-REPLY #%d model=gpt-5.5 last_user=slow one [[slow:200]]" %
                         (rs[-1]["n"] if rs else 0)) and [who(e) for e in rs] == ["warm"],
          "interrupted warm turn keeps its partial answer (%d chars: %r)" % (len(ans), ans[:60]),
          "status=%s send rc=%s interrupt rc=%s %s" % (rec.get("status"), p.returncode,
                                                       ri.returncode, ri.stderr.strip()[:200]))
    time.sleep(0.5)
    wm = w.warm()
    check(pid and alive(pid) and wm.get("pid") == pid,
          "the app-server stays after the interrupt (pid %s, listed %s)" % (pid, wm.get("pid")))
    w.baton("queue", "t", "run")
    t8 = turn(w, log, "after the interrupt")
    check(t8["rc"] == 0 and t8["who"] == ["warm"] and t8["warm"].get("pid") == pid and
          "last_user=after the interrupt" in t8["out"],
          "the next turn runs in the same app-server", "who=%s pid=%s rc=%s %s" %
          (t8["who"], t8["warm"].get("pid"), t8["rc"], t8["err"].strip()[-200:]))
    # 5. steer while the warm turn's command runs
    nturns = len(w.json("log", "t").get("turns") or [])
    since = nlines(log)
    p = subprocess.Popen([a.baton, "send", "t", "[[tool:Bash:sleep 3; echo x]]"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=w.env)
    t0 = time.monotonic()
    while len(reqs(log, since)) < 1 and time.monotonic() - t0 < 30:
        time.sleep(0.05)
    time.sleep(1.0)
    rsteer = w.baton("send", "t", "STEER-TEXT", "--steer")
    out, err = p.communicate(timeout=60)
    time.sleep(0.3)
    rs = reqs(log, since)
    after = [e for e in rs[1:] if "STEER-TEXT" in user_text(e["body"])]
    lt = w.json("log", "t").get("turns") or []
    fig["steer"] = {"steer_rc": rsteer.returncode, "steer_stderr": rsteer.stderr,
                    "steer_stdout": rsteer.stdout[-500:], "turn_out": out.decode()[-500:],
                    "who": [who(e) for e in rs], "n_requests": len(rs),
                    "new_turns": len(lt) - nturns}
    check("joined the running turn" in rsteer.stderr, "steer: send says it joined the running turn",
          "rc=%s stderr=%r" % (rsteer.returncode, rsteer.stderr.strip()[:300]))
    check(len(rs) >= 2 and after and after[0] is rs[1] and all(x == "warm" for x in
                                                               fig["steer"]["who"]),
          "steer: the next request (%d of %d) carries STEER-TEXT, all warm" %
          (2, len(rs)), "who=%s" % fig["steer"]["who"])
    check(len(lt) - nturns == 1 and lt[-1].get("status") == "completed" and
          "STEER-TEXT" in (lt[-1].get("answer") or ""),
          "steer: one turn in the log, completed, its answer saw the steer",
          "new turns=%d last=%s %r" % (len(lt) - nturns, lt[-1].get("status"),
                                       (lt[-1].get("answer") or "")[:120]))
    # 6. the fence and the commit in a warm turn
    outside = "/tmp/cw-outside-%d" % os.getpid()
    if os.path.exists(outside):
        os.remove(outside)
    t9 = turn(w, log, "[[tool:Bash:touch %s ; touch inside.txt]] [[tool:Write:written.txt]]"
              % outside)
    rec = last_turn(w)
    glog = subprocess.run(["git", "-C", wt, "log", "--stat", "--format=%H %s", "-1"],
                          capture_output=True, text=True).stdout
    fig["fence"] = {"who": t9["who"], "commit": rec.get("commit"), "git_log": glog,
                    "tools": rec.get("tools")}
    check(not os.path.exists(outside) and os.path.exists(os.path.join(wt, "inside.txt")) and
          os.path.exists(os.path.join(wt, "written.txt")) and
          all(x == "warm" for x in t9["who"]) and t9["rc"] == 0,
          "fence in a warm turn: %s not created, inside.txt and written.txt created" % outside,
          "outside=%s inside=%s written=%s who=%s" % (
              os.path.exists(outside), os.path.exists(os.path.join(wt, "inside.txt")),
              os.path.exists(os.path.join(wt, "written.txt")), t9["who"]))
    check(bool(rec.get("commit")) and "inside.txt" in glog and "written.txt" in glog,
          "the warm turn's files committed by baton (commit %s)" % rec.get("commit"),
          glog.strip().replace("\n", " | ")[:300])
    # 7. --model gpt-5.4: cold, then warm again
    pid = w.warm().get("pid")
    t10 = turn(w, log, "switch model", "--model", "gpt-5.4")
    rec = last_turn(w)
    models = [e["body"].get("model") for e in t10["reqs"]]
    bad = "active writer" in (t10["out"] + t10["err"])
    check(t10["rc"] == 0 and rec.get("status") == "completed" and t10["who"] == ["cold"] and
          models == ["gpt-5.4"] and not bad,
          "--model gpt-5.4: cold, completed, model %s" % models,
          "who=%s rc=%s status=%s %s" % (t10["who"], t10["rc"], rec.get("status"),
                                         (t10["err"] + t10["out"]).strip()[-300:]))
    fig["model_switch"] = {"out": t10["out"], "err": t10["err"]}
    check(pid and not alive(pid), "the gpt-5.5 app-server (pid %s) is gone" % pid)
    t11 = turn(w, log, "after the switch")
    models = [e["body"].get("model") for e in t11["reqs"]]
    check(t11["rc"] == 0 and t11["who"] == ["warm"] and models == ["gpt-5.4"],
          "then warm again on gpt-5.4 (pid %s)" % t11["warm"].get("pid"),
          "who=%s models=%s rc=%s %s" % (t11["who"], models, t11["rc"], t11["err"][-200:]))
    # 8. server stop while warm; restart cold
    pid = w.warm().get("pid")
    r = w.baton("server", "stop")
    check(pid and wait_gone(pid), "server stop while warm: the app-server (pid %s) exits" % pid)
    t12 = turn(w, log, "after the second restart")
    rec = last_turn(w)
    check(t12["rc"] == 0 and rec.get("status") == "completed" and t12["who"] == ["cold"],
          "the restart's first turn cold and completed", "who=%s rc=%s" % (t12["who"], t12["rc"]))
    # extra: interrupt during a warm turn's command (turn/interrupt does not kill it in Codex)
    t13 = turn(w, log, "warm before the extras")
    pid = t13["warm"].get("pid")
    late = os.path.join(wt, "late.txt")
    p = subprocess.Popen([a.baton, "send", "t", "[[tool:Bash:sleep 3; echo late > late.txt]]"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=w.env)
    since = nlines(log)
    t0 = time.monotonic()
    while len(reqs(log, since)) < 1 and time.monotonic() - t0 < 30:
        time.sleep(0.05)
    time.sleep(1.0)
    w.baton("interrupt", "t")
    out, err = p.communicate(timeout=60)
    rec = last_turn(w)
    rs_int = [who(e) for e in reqs(log, since)]
    gone_after_int = bool(pid) and wait_gone(pid, 3)
    time.sleep(3.5)
    fig["interrupt_command"] = {"status": rec.get("status"), "commit": rec.get("commit"),
                                "late_exists": os.path.exists(late),
                                "git_status": subprocess.run(
                                    ["git", "-C", wt, "status", "--short"], capture_output=True,
                                    text=True).stdout, "stderr": err.decode()[-400:],
                                "who": rs_int, "app_server_exited": gone_after_int}
    check(rec.get("status") == "interrupted" and not os.path.exists(late),
          "extra: an interrupt during a warm turn's command ends the command (late.txt not "
          "written 3.5 s later)", "status=%s late.txt=%s git status=%r" % (
              rec.get("status"), os.path.exists(late), fig["interrupt_command"]["git_status"]))
    wm = w.warm()
    fig["interrupt_command"]["warm_after"] = wm
    check(rs_int == ["warm"], "extra: that turn ran warm; its app-server (pid %s) %s, warm list "
          "after: %s" % (pid, "exited" if gone_after_int else "still runs", wm.get("pid")))
    t13b = turn(w, log, "rewarm before the failure")
    pid = t13b["warm"].get("pid")
    # extra: a failing warm turn
    t14 = turn(w, log, "fail [[status:400]]")
    rec = last_turn(w)
    wm2 = w.warm()
    fig["fail"] = {"rc": t14["rc"], "status": rec.get("status"), "error": rec.get("error"),
                   "who": t14["who"], "warm_after": wm2, "err": t14["err"][-400:]}
    check(t14["rc"] != 0 and rec.get("status") == "failed" and t14["who"] == ["warm"],
          "extra: a failing warm turn ([[status:400]]) fails, exit %s, error %r" %
          (t14["rc"], str(rec.get("error"))[:160]), "who=%s status=%s" % (t14["who"],
                                                                        rec.get("status")))
    t15 = turn(w, log, "after the failure")
    check(t15["rc"] == 0 and last_turn(w).get("status") == "completed",
          "extra: the next turn completes (%s; warm pid before %s, after the failure %s, now %s)"
          % ("/".join(t15["who"]), pid, wm2.get("pid"), t15["warm"].get("pid")))
    fig["warm_at_end"] = w.warm()
    # the baton developer item (input[1]) on every request of the whole run
    allr = reqs(log, since0)
    baton_items = {json.dumps(e["body"]["input"][1], sort_keys=True) for e in allr
                   if len(e["body"].get("input", [])) > 1}
    check(len(baton_items) == 1 and "inside baton" in next(iter(baton_items)),
          "baton's developer item byte-identical on all %d requests of the run (Codex adds its "
          "own <model_switch> developer items after a model switch)" % len(allr))
    w.baton("server", "stop")
    # 9. server.log
    with open(os.path.join(w.dir, "baton", "server.log"), encoding="utf-8",
              errors="replace") as f:
        lines = f.read().splitlines()
    fig["server_log"] = lines[-200:]
    odd = [ln for ln in lines if any(k in ln.lower() for k in ("error", "warn", "panic", "fail"))]
    check(not odd, "server.log: %d lines, %d look wrong" % (len(lines), len(odd)),
          " | ".join(odd[:5])[:600])
    return fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--codex")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18099)
    ap.add_argument("--cold", type=int, default=5)
    a = ap.parse_args()
    a.out = os.path.abspath(a.out)
    a.baton = os.path.abspath(a.baton)
    a.codex = a.codex or next(iter(sorted(
        glob.glob("/tmp/*/node_modules/@openai/codex-linux-x64/vendor/*/bin/codex"))), None)
    os.makedirs(a.out, exist_ok=True)
    log = os.path.join(a.out, "standin.log.jsonl")
    open(log, "w").close()
    standin.LOG_PATH = log
    srv = standin.ThreadingHTTPServer(("127.0.0.1", a.port), standin.Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    fig = run(a, log)
    with open(os.path.join(a.out, "figures.json"), "w") as f:
        json.dump(fig, f, indent=1, default=str)
    with open(os.path.join(a.out, "checks.txt"), "w") as f:
        f.write("\n".join(CHECKS) + "\n")
    fails = sum(1 for c in CHECKS if c.startswith("FAIL"))
    print("%d checks, %d FAIL" % (len(CHECKS), fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
