#!/usr/bin/env python3
"""fork, rewind, `send --fresh`, conversation titles and archive, on the REAL CLIs.

  python3 forks.py [--baton PATH] [--c332 BIN] [--c197 BIN] [--codex BIN] --out DIR
                   [--port 18097] [--worlds c332,c197,codex] [-k CHECK]...

Built on queue.py (its World, Check, stand-in and binary finder): the stand-in (standin.py)
in-process on 127.0.0.1:PORT, one world per CLI (DIR/<world>/world/{home,baton,codex,proj-*,bin}:
HOME, BATON_HOME, CODEX_HOME, symlinks claude/codex to the real binaries first on PATH). Every
check's terminal works in a fresh git repository (one commit), so baton gives it a worktree.
Checks, in every world:
  fork    3 turns in `api`, `fork api` (session_mode forked), a turn in api-2 (carries P1-P3 and
          P4, its own session, its system text names api-2's worktree; whether it still names
          api's is reported), a turn in api (P1-P3 and P5, never P4), the fork lines of `log`
  rewind  4 turns in `web`, each with a file of its own (made in the worktree before the turn, so
          the turn's automatic commit takes it; turn 3's prompt has two lines, quotes and a
          trailing newline, sent on stdin), `rewind web 3` (history kept, the prompt byte for
          byte, the text form ends with it, the files as before turn 3's commit), a turn in the
          rewind (P1, P2 and P3b, nothing of P3/P4), a rewind to turn 1 (no earlier prompt)
  fresh   `send --fresh` (conversation 2, reason manual, none of the earlier prompts, the
          standing instruction added before it in the system text), conversation titles
          (first line, 40 chars; `rename --conversation`), archive (hidden from `ls`, `ls --all`
          marks it, `send` refused with exit 2 naming `baton unarchive`), unarchive
Evidence under DIR/<world>/<check>/: NN-step.{cmd,stdin,rc,stdout,stderr}, requests.jsonl (the
stand-in's lines of the check, whole), req-<label>.json (the model request of each turn that
matters, whole), system-<label>.txt (its system text), baton-<terminal>/ (journal and raw CLI
streams), timeline.txt. DIR/checks.txt has every OK/FAIL line, DIR/figures.json the figures.
"""
import argparse
import glob
import importlib.util
import json
import os
import queue as _stdlib_queue  # noqa: F401  (before queue.py puts its folder first on sys.path)
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("realcli_queue", os.path.join(HERE, "queue.py"))
Q = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(Q)
standin = Q.standin


# ---------------------------------------------------------------- the model requests

def is_claude(e):
    return "/v1/messages" in e.get("path", "")


def conv_text(e):
    """The conversation a request carries (messages / input items but developer and system)."""
    b = e["body"]
    if is_claude(e):
        return json.dumps(b.get("messages"), ensure_ascii=False)
    return json.dumps([i for i in b.get("input") or [] if not (
        isinstance(i, dict) and i.get("role") in ("developer", "system"))], ensure_ascii=False)


def system_parts(e):
    """[(where, text)]: Claude's `system` blocks; Codex's `instructions` and developer messages."""
    b = e["body"]
    out = []
    if is_claude(e):
        s = b.get("system")
        if isinstance(s, str):
            out.append(("system", s))
        for i, x in enumerate(s if isinstance(s, list) else []):
            if isinstance(x, dict):
                out.append(("system[%d]" % i, x.get("text") or ""))
        return out
    if b.get("instructions"):
        out.append(("instructions", b["instructions"]))
    for i, it in enumerate(b.get("input") or []):
        if isinstance(it, dict) and it.get("role") in ("developer", "system"):
            out.append(("input[%d].%s" % (i, it["role"]), standin.text_of(it.get("content"))))
    return out


def user_parts(e):
    """Codex: the user messages of `input` (AGENTS.md / environment context land there)."""
    if is_claude(e):
        return []
    return [("input[%d].user" % i, standin.text_of(it.get("content")))
            for i, it in enumerate(e["body"].get("input") or [])
            if isinstance(it, dict) and it.get("role") == "user"]


def names_path(text, path):
    """The text names this directory (not a longer name it is the prefix of: api vs api-2)."""
    return bool(path) and re.search(re.escape(path.rstrip("/")) + r"(?![\w-])", text) is not None


def session_of(e):
    """The session id a request says it belongs to (Claude: metadata.user_id; Codex: header)."""
    if is_claude(e):
        uid = ((e["body"].get("metadata") or {}).get("user_id")) or ""
        try:
            return json.loads(uid).get("session_id")
        except (ValueError, AttributeError):
            m = re.search(r"session_([0-9a-f-]{36})", uid)
            return m.group(1) if m else uid
    h = {k.lower(): v for k, v in (e.get("headers") or {}).items()}
    return h.get("session_id") or e["body"].get("prompt_cache_key")


# ---------------------------------------------------------------- a check with terminals

class Check(Q.Check):
    def __init__(self, world, key, title):
        super().__init__(world, key, title)
        self.names = []
        env = dict(world.env, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")
        for cmd in (["git", "init", "-q", "-b", "main"],
                    ["sh", "-c", "echo 'project %s' > README.md" % key],
                    ["git", "add", "-A"], ["git", "commit", "-q", "-m", "initial"]):
            subprocess.run(cmd, cwd=self.proj, env=env, check=True, capture_output=True)
        # Every CLI command line baton runs (polled under the server's pid): argv.jsonl.
        self.argvs, self._seen, self._stop = [], set(), threading.Event()
        self._poller = threading.Thread(target=self._poll, daemon=True)
        self._poller.start()

    def _poll(self):
        spid, t_pid = None, 0
        while not self._stop.is_set():
            if not spid or time.time() - t_pid > 2:
                spid, t_pid = self.server_pid(), time.time()
            for p in Q.descendants(spid) if spid else []:
                if p["comm"] in ("claude", "codex", "claude.exe", "node") or \
                        "claude" in p["cmd"][:200] or "codex" in p["cmd"][:200]:
                    if (p["pid"], p["start"]) in self._seen:
                        continue
                    try:
                        with open("/proc/%d/cmdline" % p["pid"], "rb") as f:
                            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0")[:-1]]
                        cwd = os.readlink("/proc/%d/cwd" % p["pid"])
                    except OSError:
                        continue
                    if not argv:
                        continue
                    self._seen.add((p["pid"], p["start"]))
                    # baton passes its system text in a file (never argv): read it while the
                    # run lasts (the file goes when it ends).
                    system = None
                    if "--append-system-prompt-file" in argv[:-1]:
                        try:
                            with open(argv[argv.index("--append-system-prompt-file") + 1],
                                      encoding="utf-8") as f:
                                system = f.read()
                        except OSError:
                            pass
                    # A CLI's own children (same command line) are not runs of baton's.
                    self.argvs.append({"ts": time.time(), "pid": p["pid"], "cwd": cwd,
                                       "argv": argv, "system": system,
                                       "by_server": p.get("ppid") == spid})
            time.sleep(0.01)

    def argv_with(self, flag):
        """The command lines with `flag` that baton itself ran (the server's children)."""
        return [a for a in self.argvs if flag in a["argv"] and a.get("by_server", True)]

    def run(self, name, args, stdin=None, timeout=240):
        base = self._files(name, args)
        if stdin is not None:
            with open(base + ".stdin", "w") as f:
                f.write(stdin)
        t = time.time()
        p = subprocess.run([self.r.a.baton] + args, capture_output=True, text=True,
                           env=self.world.env, cwd=self.proj, timeout=timeout,
                           input=stdin if stdin is not None else "",)
        for ext, s in (("stdout", p.stdout), ("stderr", p.stderr), ("rc", "%d\n" % p.returncode)):
            with open(base + "." + ext, "w") as f:
                f.write(s)
        self.mark("%s rc=%d (%.0f ms)" % (name, p.returncode, (time.time() - t) * 1000), t)
        return p.returncode, p.stdout, p.stderr

    def jrun(self, name, args, **kw):
        rc, o, e = self.run(name, args + ["--json"], **kw)
        try:
            return rc, json.loads(o), e
        except ValueError:
            return rc, None, o + e

    def new_term(self, name):
        rc, o, e = self.run("new-" + name, ["new", name, "--dir", self.proj, "--provider",
                                            self.world.provider])
        if rc != 0:
            raise RuntimeError("baton new %s failed: %s" % (name, o + e))
        self.names.append(name)

    def show(self, name, label=None):
        rc, j, e = self.jrun("show-" + (label or name), ["show", name])
        if not isinstance(j, dict):
            raise RuntimeError("show %s: %s" % (name, e))
        return j

    def logj(self, name, label=None):
        rc, j, e = self.jrun("log-" + (label or name), ["log", name])
        return j if isinstance(j, dict) else {"_error": e, "turns": []}

    def send(self, label, name, prompt, *extra, stdin=False):
        if stdin:
            return self.run("send-" + label, ["send", name, *extra, "-"], stdin=prompt)
        return self.run("send-" + label, ["send", name, *extra, prompt])

    def request(self, marker, label):
        """The first model request whose newest user text carries marker; saved whole."""
        for e in self.requests():
            if marker in Q.req_prompt(e):
                with open(os.path.join(self.d, "req-%s.json" % label), "w") as f:
                    json.dump(e, f, indent=1, ensure_ascii=False)
                with open(os.path.join(self.d, "system-%s.txt" % label), "w") as f:
                    for where, t in system_parts(e):
                        f.write("===== %s (%d chars)\n%s\n" % (where, len(t), t))
                return e
        return None

    def save(self):
        self._stop.set()
        with open(os.path.join(self.d, "argv.jsonl"), "w") as f:
            for a in self.argvs:
                f.write(json.dumps(a, ensure_ascii=False) + "\n")
        rc, o, e = self.run("ls-all-final", ["ls", "--all", "--json"])
        try:
            ids = {t["name"]: t["id"] for t in json.loads(o)}
        except (ValueError, KeyError, TypeError):
            ids = {}
        for name in self.names:
            src = os.path.join(self.world.w, "baton", "terminals", ids.get(name, "-"))
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(self.d, "baton-" + name),
                                ignore=shutil.ignore_patterns("tmp", "screenshots"))
        reqs = Q.read_log(self.r.log, self.off)
        with open(os.path.join(self.d, "requests.jsonl"), "w") as f:
            for e in reqs:
                f.write(json.dumps(e, ensure_ascii=False) + "\n")
        marks = [(ts, "MARK  " + w) for ts, w in self.timeline]
        for e in reqs:
            if Q.is_model_request(e):
                marks.append((e["ts"], "REQ   #%d %s prompt=%r session=%s" % (
                    e["n"], e["path"], Q.req_prompt(e)[:70], session_of(e))))
        with open(os.path.join(self.d, "timeline.txt"), "w") as f:
            for ts, w in sorted(marks):
                f.write("%9.3f  %s\n" % (ts - self.t0, w))
        self.r.figures.setdefault(self.world.name, {})[self.key] = self.fig


def dirs_named(e, own, orig):
    """Where a request's system text names a terminal's own checkout and the original's."""
    sysp = system_parts(e) if e else []
    return {"house_rules_own": [w for w, t in sysp if ("own checkout: %s." % own) in t],
            "house_rules_orig": [w for w, t in sysp if ("own checkout: %s." % orig) in t],
            "note": [w for w, t in sysp if "carried over from another terminal" in t],
            "names_own": [w for w, t in sysp if names_path(t, own)],
            "names_orig": [w for w, t in sysp if names_path(t, orig)]}


def carries(e, *markers):
    t = conv_text(e) if e else ""
    return {m: m in t for m in markers}


def session_ids(view):
    return [s.get("session_id") for s in view.get("sessions") or []]


def worktree_files(path):
    out = []
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d != ".git"]
        for f in files:
            if f == ".git":  # a worktree's link to its repository
                continue
            out.append(os.path.relpath(os.path.join(root, f), path))
    return sorted(out)


def git(path, *args):
    p = subprocess.run(["git", "-C", path] + list(args), capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else None


# ---------------------------------------------------------------- the checks

def check_fork(c):
    P = {i: "turn %d of api, remember the word %s" % (i, w) for i, w in
         ((1, "ZQAPRICOT"), (2, "ZQBASALT"), (3, "ZQCOBALT"), (4, "ZQDAHLIA"), (5, "ZQEMBER"))}
    M = {1: "ZQAPRICOT", 2: "ZQBASALT", 3: "ZQCOBALT", 4: "ZQDAHLIA", 5: "ZQEMBER"}
    c.new_term("api")
    rcs = [c.send("p%d" % i, "api", P[i])[0] for i in (1, 2, 3)]
    c.check(rcs == [0, 0, 0], "three turns in api", "rc %s" % rcs)
    api = c.show("api", "api-before")
    with open(os.path.join(api["dir"], "left-uncommitted.txt"), "w") as f:
        f.write("work left in api when it was forked\n")
    rc, fj, e = c.jrun("fork", ["fork", "api"])
    c.fig["fork"] = fj
    c.check(rc == 0 and isinstance(fj, dict) and fj.get("session_mode") == "forked" and
            fj.get("name") == "api-2" and fj.get("from_turn") == 3,
            "`fork api --json`: api-2, session_mode forked, from_turn 3",
            "rc %d: %s" % (rc, json.dumps(fj) if fj else e))
    c.names.append("api-2")
    wt = fj.get("worktree") if isinstance(fj, dict) else None
    st = git(api["dir"], "status", "--porcelain")
    subj = (git(api["dir"], "log", "-1", "--format=%s") or "").strip()
    c.fig.update(api_status_after_fork=st, api_head_subject=subj)
    c.check(bool(wt) and os.path.exists(os.path.join(wt, "left-uncommitted.txt")) and st == ""
            and "forked into api-2" in subj,
            "api's uncommitted work was committed on api's branch and is in api-2's worktree",
            "api status %r, head %r; in api-2: %s" % (st, subj, worktree_files(wt) if wt and
                                                     os.path.isdir(wt) else None))
    rc4 = c.send("p4", "api-2", P[4])[0]
    fork = c.show("api-2")
    r4 = c.request(M[4], "api-2-p4")
    has = carries(r4, M[1], M[2], M[3], M[4])
    c.check(rc4 == 0 and r4 is not None and all(has.values()),
            "api-2's request for P4 carries P1, P2, P3 and P4", "rc %d; %s" % (rc4, has))
    sa, sf = session_ids(api), session_ids(fork)
    rs = session_of(r4) if r4 else None
    c.fig.update(api_sessions=sa, fork_sessions=sf, fork_request_session=rs)
    c.check(bool(sf) and bool(sa) and sf[-1] not in sa and (rs is None or rs == sf[-1]),
            "api-2's session differs from api's (and is the one its request names)",
            "api %s; api-2 %s; request says %s" % (sa, sf, rs))
    api_dir, fork_dir = api.get("dir"), fork.get("dir")
    c.fig.update(api_dir=api_dir, fork_dir=fork_dir)
    sysp = system_parts(r4) if r4 else []
    where_new = [w for w, t in sysp if names_path(t, fork_dir)]
    where_old = [w for w, t in sysp if names_path(t, api_dir)]
    where_old_user = [w for w, t in (user_parts(r4) if r4 else []) if names_path(t, api_dir)]
    where_new_user = [w for w, t in (user_parts(r4) if r4 else []) if names_path(t, fork_dir)]
    carried_note = [w for w, t in sysp if "carried over from another terminal" in t]
    rules_new = [w for w, t in sysp if ("own checkout: %s." % fork_dir) in t]
    rules_old = [w for w, t in sysp if ("own checkout: %s." % api_dir) in t]
    r1 = c.request(M[1], "api-p1")
    rules_p1 = [w for w, t in (system_parts(r1) if r1 else []) if ("own checkout: %s." % api_dir) in t]
    c.fig["fork_system_text"] = {
        "names_api-2_dir_in": where_new, "names_api_dir_in": where_old,
        "carried_over_note_in": carried_note, "house_rules_with_api-2_dir_in": rules_new,
        "house_rules_with_api_dir_in": rules_old, "user_items_naming_api_dir": where_old_user,
        "user_items_naming_api-2_dir": where_new_user,
        "api_turn1_house_rules_in": rules_p1}
    c.check(bool(where_new), "api-2's system text (%s) names api-2's worktree %s" % (
        "system" if c.world.provider == "claude" else "instructions/developer messages", fork_dir),
        json.dumps(c.fig["fork_system_text"]))
    c.check(True, "REPORT: api-2's P4 request still names api's worktree: %s" % (
        "yes, in %s" % (where_old + where_old_user) if where_old or where_old_user else "no"),
        "baton's house rules with api-2's dir in %s, with api's dir in %s; carried-over note in "
        "%s" % (rules_new, rules_old, carried_note))
    note = "carried over from another terminal's checkout"
    body = json.dumps(r4["body"], ensure_ascii=False) if r4 else ""
    note_anywhere = note in body and names_path(body.split(note, 1)[1][:400], fork_dir)
    env_updates = [standin.text_of(m.get("content"))[:400] for m in
                   (r4["body"].get("messages") or [] if r4 and is_claude(r4) else [])
                   if m.get("role") == "system" and names_path(standin.text_of(m.get("content")),
                                                                fork_dir)]
    c.fig["fork_system_text"]["cli_system_messages_naming_api-2_dir"] = env_updates
    c.check(note_anywhere, "baton's carried-over note (\"...your working directory is now "
            "<api-2's worktree>\") reaches the model in api-2's request",
            "in system/developer: %s; CLI's own system messages naming api-2's dir: %s" % (
                carried_note, env_updates))
    # What baton ran for the fork's first turn.
    if c.world.provider == "claude":
        runs = c.argv_with("--fork-session")
        asp = [a["system"] for a in runs if a.get("system")]
        c.check(not any("--append-system-prompt" in a["argv"] for a in c.argvs),
                "no CLI run had its system text in argv", json.dumps([a["argv"] for a in runs])[:600])
        c.fig["fork_turn_argv"] = runs
        c.check(len(runs) == 1 and runs[0]["cwd"].rstrip("/") == fork_dir.rstrip("/") and
                asp and note in asp[0] and names_path(asp[0], fork_dir) and
                not names_path(asp[0], api_dir),
                "the fork turn ran `claude --resume S --fork-session` in api-2's worktree with "
                "api-2's own --append-system-prompt (the carried-over note, api-2's dir only)",
                "runs %d; cwd %s; append-system-prompt %r" % (
                    len(runs), runs[0]["cwd"] if runs else None, asp[0][-300:] if asp else None))
        # 2.1.332 keeps the system prompt in the session (`prompt_snapshot` attachments, copied
        # into a fork with the chain) and sends that one on --resume.
        snaps = []
        for f in glob.glob(os.path.join(c.world.w, "home", ".claude", "projects", "*",
                                        (sf[-1] if sf else "-") + ".jsonl")):
            for i, l in enumerate(open(f, encoding="utf-8")):
                try:
                    e = json.loads(l)
                except ValueError:
                    continue
                a = e.get("attachment")
                if isinstance(a, dict) and a.get("type") == "prompt_snapshot":
                    t = json.dumps(a.get("systemPrompt"), ensure_ascii=False)
                    snaps.append({"file": f, "line": i, "names_api_dir": names_path(t, api_dir),
                                  "names_api-2_dir": names_path(t, fork_dir),
                                  "carried_over_note": note in t})
        c.fig["fork_session_prompt_snapshots"] = snaps
        c.check(True, "REPORT: api-2's session file holds %d prompt_snapshot attachment(s); "
                "naming api's dir: %d, api-2's: %d" % (
                    len(snaps), sum(x["names_api_dir"] for x in snaps),
                    sum(x["names_api-2_dir"] for x in snaps)), json.dumps(snaps)[:600])
        c.check(True, "REPORT: the `system` of api-2's request carries %s" % (
            "api-2's --append-system-prompt (new text)" if rules_new and carried_note else
            "the ORIGINAL's --append-system-prompt (api's house rules, no carried-over note)"
            if rules_old and not carried_note else "neither baton text cleanly: %s" %
            c.fig["fork_system_text"]))
    else:
        c.fig["codex_argvs"] = [a["argv"][:3] + ["..."] for a in c.argvs]
        c.fig["codex_app_server_runs"] = [a for a in c.argvs if "app-server" in a["argv"]]
    rc5 = c.send("p5", "api", P[5])[0]
    r5 = c.request(M[5], "api-p5")
    has5 = carries(r5, M[1], M[2], M[3], M[4], M[5])
    c.check(rc5 == 0 and r5 is not None and has5[M[1]] and has5[M[2]] and has5[M[3]] and
            has5[M[5]] and not has5[M[4]],
            "api's request for P5 carries P1, P2, P3 and P5, not P4", "rc %d; %s" % (rc5, has5))
    rc6 = c.send("p6", "api-2", "second turn of the fork, word ZQFJORD")[0]
    r6 = c.request("ZQFJORD", "api-2-p6")
    d6 = dirs_named(r6, fork_dir, api_dir)
    c.fig["fork_second_turn_system_text"] = d6
    c.check(rc6 == 0 and r6 is not None and carries(r6, M[4])[M[4]] and
            not carries(r6, M[5])[M[5]],
            "api-2's second turn resumes its own session (P4 carried, P5 not)", "rc %d" % rc6)
    c.check(True, "REPORT: api-2's second turn: baton's house rules name %s; carried-over note "
            "%s" % ("api-2's dir" if d6["house_rules_own"] else "api's dir"
                    if d6["house_rules_orig"] else "no dir", "present" if d6["note"] else
                    "absent"), json.dumps(d6))
    api2 = c.show("api", "api-after")
    c.check(session_ids(api2)[-1:] == sa[-1:] and (session_of(r5) in (None, sa[-1])),
            "api keeps its own session", "before %s after %s request %s" % (
                sa, session_ids(api2), session_of(r5) if r5 else None))
    rc, lo, le = c.run("log-text-api", ["log", "api"])
    rc2, lo2, le2 = c.run("log-text-api-2", ["log", "api-2"])
    c.check("forked into api-2" in lo, "`baton log api` says \"forked into api-2\"",
            repr([l for l in lo.splitlines() if "fork" in l]))
    c.check("forked from api at turn 3" in lo2,
            "`baton log api-2` says \"forked from api at turn 3\"",
            repr([l for l in lo2.splitlines() if "fork" in l]))
    lj, lj2 = c.logj("api"), c.logj("api-2")
    c.fig.update(log_api_forked_into=lj.get("forked_into"), log_fork_from=lj2.get("forked_from"),
                 fork_turns=Q.turn_table(lj2), api_turns=Q.turn_table(lj))


def check_rewind(c):
    W = {1: "ZQWILLOW", 2: "ZQWALNUT", 3: "ZQWASABI", 4: "ZQWOMBAT", "3b": "ZQWREN",
         "1b": "ZQWHARF"}
    prompts = {1: "web turn 1, word %s" % W[1], 2: "web turn 2, word %s" % W[2],
               3: 'web turn 3 says "%s" and \'quotes\'\nits second line: "%s" again\n' % (
                   W[3], W[3]),
               4: "web turn 4, word %s" % W[4]}
    c.new_term("web")
    web = c.show("web")
    wdir = web.get("dir")
    rcs = []
    for i in (1, 2, 3, 4):
        with open(os.path.join(wdir, "turn%d.txt" % i), "w") as f:
            f.write("made before turn %d\n" % i)
        rcs.append(c.send("p%d" % i, "web", prompts[i], stdin=(i == 3))[0])
    log = c.logj("web")
    turns = log.get("turns", [])
    commits = [t.get("commit") for t in turns]
    c.fig.update(web_dir=wdir, web_turns=Q.turn_table(log), commits=commits)
    c.check(rcs == [0, 0, 0, 0] and len(turns) == 4 and all(commits),
            "four turns in web, each with an automatic commit", "rc %s commits %s" % (rcs, commits))
    c.check(len(turns) > 2 and turns[2].get("prompt") == prompts[3],
            "turn 3's prompt (sent on stdin) is stored byte for byte",
            "sent %r stored %r" % (prompts[3], turns[2].get("prompt") if len(turns) > 2 else None))
    rc, rj, e = c.jrun("rewind", ["rewind", "web", "3"])
    c.fig["rewind"] = rj
    c.names.append("web-2")
    c.check(rc == 0 and isinstance(rj, dict) and rj.get("history") == "kept" and
            rj.get("name") == "web-2" and rj.get("before_turn") == 3,
            "`rewind web 3 --json`: web-2, history kept", "rc %d: %s" % (rc, rj or e))
    c.check(isinstance(rj, dict) and rj.get("prompt") == prompts[3],
            "the rewind's `prompt` is turn 3's prompt byte for byte",
            "got %r" % (rj.get("prompt") if isinstance(rj, dict) else None))
    rc, to, te = c.run("rewind-text", ["rewind", "web", "3", "web-t"])
    c.names.append("web-t")
    c.check(rc == 0 and to.endswith(prompts[3]),
            "the text form (`rewind web 3 web-t`) ends with the prompt", "rc %d tail %r" % (
                rc, to[-len(prompts[3]) - 40:]))
    parent = git(wdir, "rev-parse", commits[2] + "^").strip() if len(commits) > 2 and \
        commits[2] and git(wdir, "rev-parse", commits[2] + "^") else None
    want = sorted((git(wdir, "ls-tree", "-r", "--name-only", parent) or "").split()) \
        if parent else None
    w2 = c.show("web-2")
    w2dir = w2.get("dir")
    have = worktree_files(w2dir) if w2dir and os.path.isdir(w2dir) else None
    head2 = (git(w2dir, "rev-parse", "HEAD") or "").strip() if have is not None else None
    c.fig.update(commit_before_turn3=parent, files_wanted=want, web2_files=have, web2_dir=w2dir,
                 web2_head=head2)
    c.check(want is not None and have == want and "turn3.txt" not in (have or []) and
            rj and rj.get("base_commit") == parent,
            "web-2's worktree is the commit before turn 3's automatic commit (files of turns "
            "1-2 only) and base_commit names it",
            "want %s (%s) have %s (HEAD %s, base_commit %s)" % (
                want, parent, have, head2, rj.get("base_commit") if rj else None))
    rc3 = c.send("p3b", "web-2", "web turn 3 again, word %s" % W["3b"])[0]
    r = c.request(W["3b"], "web-2-p3b")
    has = carries(r, W[1], W[2], W[3], W[4], W["3b"])
    c.check(rc3 == 0 and r is not None and has[W[1]] and has[W[2]] and has[W["3b"]] and
            not has[W[3]] and not has[W[4]],
            "web-2's request carries P1, P2, P3b and nothing of P3 or P4", "rc %d; %s" % (rc3, has))
    d3 = dirs_named(r, w2dir, wdir)
    c.fig["rewind_system_text"] = d3
    c.check(bool(d3["house_rules_own"]) and bool(d3["note"]),
            "web-2's request carries its own house rules (web-2's dir) and the carried-over "
            "note", json.dumps(d3))
    sw, s2 = session_ids(web), session_ids(c.show("web-2", "web-2-after"))
    sw = session_ids(c.show("web", "web-after"))
    c.check(bool(s2) and bool(sw) and s2[-1] not in sw, "web-2 runs a session of its own",
            "web %s web-2 %s" % (sw, s2))
    rc5 = c.send("p5", "web", "web turn 5, word ZQWAFFLE")[0]
    r = c.request("ZQWAFFLE", "web-p5")
    has = carries(r, W[1], W[2], W[3], W[4], W["3b"])
    c.check(rc5 == 0 and r is not None and all(has[W[i]] for i in (1, 2, 3, 4)) and
            not has[W["3b"]], "web itself is untouched: its turn 5 carries P1-P4, not P3b",
            "rc %d; %s" % (rc5, has))
    lo = c.run("log-text-web", ["log", "web"])[1]
    lo2 = c.run("log-text-web-2", ["log", "web-2"])[1]
    c.check("rewound into web-2 (before turn 3)" in lo and "rewound from web before turn 3" in lo2,
            "`log web` says \"rewound into web-2 (before turn 3)\", `log web-2` \"rewound from "
            "web before turn 3\"", repr([l for l in (lo + lo2).splitlines() if "rewound" in l]))
    rc, rj1, e = c.jrun("rewind-1", ["rewind", "web", "1", "web-r1"])
    c.names.append("web-r1")
    c.fig["rewind_1"] = rj1
    c.check(rc == 0 and isinstance(rj1, dict) and rj1.get("prompt") == prompts[1],
            "`rewind web 1 web-r1 --json` works and names turn 1's prompt",
            "rc %d: %s" % (rc, rj1 or e))
    rc1 = c.send("p1b", "web-r1", "web turn 1 again, word %s" % W["1b"])[0]
    r = c.request(W["1b"], "web-r1-p1b")
    has = carries(r, W[1], W[2], W[3], W[4], W["3b"], W["1b"])
    c.check(rc1 == 0 and r is not None and has[W["1b"]] and
            not any(v for k, v in has.items() if k != W["1b"]),
            "the rewind to turn 1: its request carries no earlier prompt", "rc %d; %s" % (rc1, has))
    r1 = c.show("web-r1")
    files1 = worktree_files(r1["dir"]) if os.path.isdir(r1.get("dir") or "") else None
    c.fig["web_r1_files"] = files1
    c.check(files1 is not None and not any(f.startswith("turn") for f in files1),
            "web-r1's worktree has none of the turns' files", str(files1))


def check_fresh(c):
    D = {1: "ZQDUNE", 2: "ZQDELTA", 3: "ZQDRIFT"}
    first = "A first line that is longer than forty characters, word %s\nand a second line" % D[1]
    c.new_term("docs")
    rcs = [c.send("p1", "docs", first)[0], c.send("p2", "docs", "second prompt %s" % D[2])[0]]
    s1 = c.show("docs", "docs-1")
    t1 = (s1.get("conversation") or {}).get("title")
    c.check(rcs == [0, 0] and t1 == first.splitlines()[0][:40],
            "conversation 1's title is the first line of its first prompt (40 chars)",
            "rc %s; title %r want %r" % (rcs, t1, first.splitlines()[0][:40]))
    standing = "Always end every answer with the word ZQSTANDING."
    rc_i = c.run("instructions-add", ["instructions", "docs", "add", standing])[0]
    p3 = "fresh start prompt %s\nwith another line" % D[3]
    rc3 = c.send("p3", "docs", p3, "--fresh")[0]
    s2 = c.show("docs", "docs-2")
    conv = s2.get("conversation") or {}
    c.fig.update(conversation_1=s1.get("conversation"), conversation_2=conv,
                 sessions_1=session_ids(s1), sessions_2=session_ids(s2))
    c.check(rc_i == 0 and rc3 == 0 and conv.get("number") == 2 and
            conv.get("opened_reason") == "manual",
            "`send --fresh` opened conversation 2 with reason manual",
            "rc add %d send %d; conversation %s" % (rc_i, rc3, conv))
    r3 = c.request(D[3], "docs-p3")
    has = carries(r3, D[1], D[2], D[3])
    c.check(r3 is not None and has[D[3]] and not has[D[1]] and not has[D[2]],
            "its request carries none of the earlier prompts", str(has))
    sysp = system_parts(r3) if r3 else []
    c.check(any(standing in t for _, t in sysp),
            "the standing instruction is in its system text",
            "in %s" % [w for w, t in sysp if standing in t])
    c.check(bool(session_ids(s2)) and not set(session_ids(s2)) & set(session_ids(s1)),
            "conversation 2 runs a session of its own", "%s vs %s" % (
                session_ids(s1), session_ids(s2)))
    c.check(conv.get("title") == p3.splitlines()[0][:40],
            "conversation 2's title is its first prompt's first line",
            "%r" % conv.get("title"))
    rc, rn, e = c.jrun("rename-conversation", ["rename", "docs", "--conversation",
                                                "Docs, renamed by hand"])
    s3 = c.show("docs", "docs-3")
    lj = c.logj("docs")
    titles = [(x.get("number"), x.get("title")) for x in lj.get("conversations", [])]
    c.fig.update(rename=rn, titles=titles)
    c.check(rc == 0 and (s3.get("conversation") or {}).get("title") == "Docs, renamed by hand"
            and titles[:1] == [(1, first.splitlines()[0][:40])],
            "`rename --conversation` retitles the live conversation (conversation 1 keeps its "
            "title)", "rc %d %s; show %r; log %s" % (
                rc, rn or e, (s3.get("conversation") or {}).get("title"), titles))
    rc_a, aj, e = c.jrun("archive", ["archive", "docs"])
    rc, ls, _ = c.jrun("ls", ["ls"])
    rc2, lsa, _ = c.jrun("ls-all", ["ls", "--all"])
    names = [t.get("name") for t in ls] if isinstance(ls, list) else ls
    marked = [(t.get("name"), t.get("archived")) for t in lsa] if isinstance(lsa, list) else lsa
    c.check(rc_a == 0 and isinstance(names, list) and "docs" not in names,
            "`archive` hides it from `ls --json`", "rc %d %s; ls %s" % (rc_a, aj, names))
    c.check(isinstance(marked, list) and ("docs", True) in marked,
            "`ls --all --json` shows it with archived: true", str(marked))
    rc, so, se = c.send("archived", "docs", "to an archived terminal ZQDNOPE")
    lines = [l for l in (so + se).splitlines() if l.strip()]
    c.check(rc == 2 and len(lines) == 1 and "baton unarchive" in lines[0],
            "`send` to it exits 2 with one line naming `baton unarchive`",
            "rc %d: %r" % (rc, so + se))
    c.check(not any("ZQDNOPE" in json.dumps(e.get("body")) for e in c.requests()),
            "the refused prompt never reached the model")
    rc_u = c.run("unarchive", ["unarchive", "docs"])[0]
    rc, ls2, _ = c.jrun("ls-after-unarchive", ["ls"])
    c.check(rc_u == 0 and isinstance(ls2, list) and "docs" in [t.get("name") for t in ls2],
            "`unarchive` shows it in `ls` again")


# ---------------------------------------------------------------- main

class Runner(Q.Runner):
    def run(self):
        worlds = [("c332", "claude", self.a.c332), ("c197", "claude", self.a.c197),
                  ("codex", "codex", self.a.c332)]
        plan = [("fork", "fork", check_fork), ("rewind", "rewind", check_rewind),
                ("fresh", "fresh, titles, archive", check_fresh)]
        t_all = time.time()
        for name, provider, cbin in worlds:
            if name not in self.a.worlds.split(","):
                continue
            w = Q.World(self, name, provider, cbin, self.a.codex)
            print("### %s (%s)" % (name, cbin if provider == "claude" else self.a.codex),
                  flush=True)
            tw = time.time()
            for key, title, fn in plan:
                if self.a.k and key not in self.a.k:
                    continue
                c = Check(w, key, title)
                t = time.time()
                try:
                    fn(c)
                except Exception as ex:  # the script's own trouble: a FAIL line, go on
                    import traceback
                    c.check(False, "%s: the check could not run" % title,
                            traceback.format_exc().strip().splitlines()[-1] + " " + repr(ex))
                    traceback.print_exc()
                finally:
                    c.fig["seconds"] = round(time.time() - t, 1)
                    c.save()
                    print("    (%s: %.1f s)" % (key, time.time() - t), flush=True)
            w.stop()
            self.figures.setdefault(name, {})["seconds"] = round(time.time() - tw, 1)
        return self.report(t_all)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", default="/tmp/baton-fork")
    ap.add_argument("--c332")
    ap.add_argument("--c197")
    ap.add_argument("--codex")
    ap.add_argument("--work", default="/tmp/realcli", help="where to npm install when needed")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18097)
    ap.add_argument("--worlds", default="c332,c197,codex")
    ap.add_argument("-k", action="append", default=[], help="only these checks (fork, rewind, "
                    "fresh)")
    a = ap.parse_args()
    a.baton = os.path.abspath(a.baton)
    musl = "/tmp/steerw/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
    if not a.codex and os.path.exists(musl):
        a.codex = musl
    Q.find_bins(a)
    r = Runner(a)
    Q.start_standin(a.port, r.log)
    sys.exit(r.run())


if __name__ == "__main__":
    main()
