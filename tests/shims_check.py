#!/usr/bin/env python3
"""Checks shims/claude and shims/codex against the captures of the real CLIs.

Run: python3 tests/shims_check.py [-v] [-k SUBSTRING]

Every check runs the shims as executables in a temporary HOME / CODEX_HOME and
compares the shape (keys, their order, nesting; event order) of what they print
and write with fixtures/captures/{claude-code,codex}/; error texts and exit codes
are compared exactly. Prints `N passed, M failed` and exits non-zero on any failure.
"""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIMS = os.path.join(ROOT, "shims")
CLAUDE = os.path.join(SHIMS, "claude")
CODEX = os.path.join(SHIMS, "codex")
CAP = os.path.join(ROOT, "fixtures", "captures")
CC = os.path.join(CAP, "claude-code")
CX = os.path.join(CAP, "codex")
SYSFILE = os.path.join(CAP, "system-file")


def sysfile_cap(name):
    """(rc, stdout, stderr) of a capture in fixtures/captures/system-file."""
    def read(ext):
        with open(os.path.join(SYSFILE, name + "." + ext), encoding="utf-8") as f:
            return f.read()
    return int(read("rc")), read("stdout"), read("stderr")
STREAM = ["-p", "--output-format", "stream-json", "--verbose"]
EXEC = ["exec", "--json", "--skip-git-repo-check"]
MISSING = "11111111-2222-4333-8444-555555555555"

VERBOSE = False


class CheckFailed(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise CheckFailed(msg)


def eq(a, b, what):
    if a != b:
        raise CheckFailed("%s: expected %r, got %r" % (what, b, a))


# --------------------------------------------------------------------------
# reading captures

def cap_text(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as f:
        return f.read()


def cap_jsonl(*parts):
    return [json.loads(l) for l in cap_text(*parts).splitlines() if l.strip()]


def cap_rc(name):
    p = os.path.join(CC, name + ".rc")
    return int(cap_text(p).strip()) if os.path.exists(p) else 0


# --------------------------------------------------------------------------
# shape comparison

MAP_KEYS = {"modelUsage", "model_usage_since_last_result"}  # dicts keyed by model name


def shape_diff(got, want, path="$"):
    """First difference in shape (keys, key order, nesting) between got and want, or None."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return "%s: expected an object, got %s" % (path, type(got).__name__)
        if path.rsplit(".", 1)[-1] in MAP_KEYS:
            if want and got:
                w = next(iter(want.values()))
                for k, g in got.items():
                    d = shape_diff(g, w, "%s[%s]" % (path, k))
                    if d:
                        return d
            return None
        if list(got.keys()) != list(want.keys()):
            return "%s: keys differ:\n    got  %s\n    want %s" % (path, list(got.keys()), list(want.keys()))
        for k in want:
            d = shape_diff(got[k], want[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(want, list):
        if not isinstance(got, list) and got is not None:
            return "%s: expected an array, got %s" % (path, type(got).__name__)
        if got and want and isinstance(want[0], dict):
            return shape_diff(got[0], want[0], path + "[0]")
        return None
    if want is None or got is None:
        return None
    if isinstance(want, bool) != isinstance(got, bool):
        return "%s: expected %s, got %r" % (path, type(want).__name__, got)
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        if not isinstance(got, (int, float)) or isinstance(got, bool):
            return "%s: expected a number, got %r" % (path, got)
        return None
    if isinstance(want, str) and not isinstance(got, str):
        return "%s: expected a string, got %r" % (path, got)
    return None


def same_shape(got, want, what):
    d = shape_diff(got, want)
    if d:
        raise CheckFailed("%s: %s" % (what, d))


def kinds(events):
    out = []
    for e in events:
        t = e.get("type")
        if t == "system":
            t += "/" + str(e.get("subtype"))
        elif t in ("item.started", "item.completed"):
            t += "/" + str((e.get("item") or {}).get("type"))
        out.append(t)
    return out


def same_events(got, want, what):
    eq(kinds(got), kinds(want), what + " event sequence")
    for i, (g, w) in enumerate(zip(got, want)):
        same_shape(g, w, "%s event %d (%s)" % (what, i, kinds([w])[0]))


# --------------------------------------------------------------------------
# running the shims

class Env:
    """A temporary HOME (with .claude and .codex inside) and a project dir."""

    def __init__(self):
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="baton-shims-check-"))
        self.home = os.path.join(self.base, "home")
        self.codex_home = os.path.join(self.home, ".codex")
        self.proj = os.path.join(self.base, "proj1")
        self.proj2 = os.path.join(self.base, "proj2")
        for d in (self.home, self.codex_home, self.proj, self.proj2):
            os.makedirs(d)
        self.log = os.path.join(self.base, "shim.log")

    def env(self, **extra):
        e = {k: v for k, v in os.environ.items()
             if not k.startswith("BATON_SHIM_") and k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "IS_SANDBOX")}
        e["HOME"] = self.home
        e["CODEX_HOME"] = self.codex_home
        e["BATON_SHIM_LOG"] = self.log
        for k, v in extra.items():
            if v is None:
                e.pop(k, None)
            else:
                e[k] = v
        return e

    def projects(self):
        return os.path.join(self.home, ".claude", "projects")

    def cleanup(self):
        shutil.rmtree(self.base, ignore_errors=True)


class Run:
    def __init__(self, argv, rc, out, err, elapsed):
        self.argv, self.rc, self.out, self.err, self.elapsed = argv, rc, out, err, elapsed

    def events(self):
        evs = []
        for l in self.out.splitlines():
            if l.strip():
                try:
                    evs.append(json.loads(l))
                except ValueError:
                    raise CheckFailed("non-JSON stdout line from %s: %r" % (self.argv, l))
        return evs

    def __repr__(self):
        return "<rc=%s out=%r err=%r>" % (self.rc, self.out[-600:], self.err[-600:])


def run(E, prog, args, stdin="", cwd=None, timeout=30, **envx):
    t0 = time.monotonic()
    p = subprocess.run([prog] + list(args), input=stdin.encode("utf-8"), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, cwd=cwd or E.proj, env=E.env(**envx), timeout=timeout)
    return Run([os.path.basename(prog)] + list(args), p.returncode, p.stdout.decode("utf-8"),
               p.stderr.decode("utf-8"), time.monotonic() - t0)


def claude(E, prompt, *extra, cwd=None, **envx):
    return run(E, CLAUDE, STREAM + list(extra), stdin=prompt, cwd=cwd, **envx)


def codex(E, prompt, *extra, resume=None, cwd=None, **envx):
    args = EXEC + list(extra)
    if resume is not None:
        args += ["resume", resume]
    return run(E, CODEX, args, stdin=prompt, cwd=cwd, **envx)


def ok(r, what):
    check(r.rc == 0, "%s: rc %s, stderr %r" % (what, r.rc, r.err[-800:]))
    return r.events()


def rollouts(E):
    out = []
    for dp, dn, fns in os.walk(os.path.join(E.codex_home, "sessions")):
        out += [os.path.join(dp, f) for f in fns]
    return sorted(out)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def session_file(E, sid, cwd):
    return os.path.join(E.projects(), sanitize_ref(cwd), sid + ".jsonl")


def ref_djb2(s):
    # Independent re-statement of claude-code's djb2Hash (JS: ((h << 5) - h + c) | 0 over UTF-16 units).
    h = 0
    units = s.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(units), 2):
        c = int.from_bytes(units[i:i + 2], "little")
        h = (h * 31 + c) % (1 << 32)
    return h - (1 << 32) if h >= (1 << 31) else h


def ref_base36(n):
    s = ""
    while True:
        n, r = divmod(n, 36)
        s = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + s
        if not n:
            return s


def sanitize_ref(p):
    units = p.encode("utf-16-le", "surrogatepass")
    s = "".join(chr(c) if chr(c).isascii() and chr(c).isalnum() else "-"
                for c in (int.from_bytes(units[i:i + 2], "little") for i in range(0, len(units), 2)))
    return s if len(s) <= 200 else s[:200] + "-" + ref_base36(abs(ref_djb2(p)))


def usage_ctx(u):
    return u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]


# --------------------------------------------------------------------------
# the checks

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def claude_hello_shapes(E):
    r = claude(E, "hello")
    evs = ok(r, "hello")
    want = cap_jsonl(CC, "run1-hello.stdout")
    same_events(evs, want, "run1-hello")
    init, asst, res = evs
    sid = init["session_id"]
    eq(init["cwd"], E.proj, "init.cwd")
    eq(init["model"], "claude-opus-5-5", "init.model")
    eq(init["permissionMode"], "default", "init.permissionMode")
    eq(init["claude_code_version"], "2.1.332", "init.claude_code_version")
    eq(asst["session_id"], sid, "assistant.session_id")
    eq(res["session_id"], sid, "result.session_id")
    eq(asst["message"]["content"][0]["text"], "MOCK-REPLY #1 model=claude-opus-5-5 last_user=hello", "reply")
    eq(res["result"], asst["message"]["content"][0]["text"], "result.result")
    eq(asst["message"]["usage"]["output_tokens"], 1, "streamed output_tokens")
    eq(res["modelUsage"]["claude-opus-5-5"]["contextWindow"], 1000000, "contextWindow")
    eq(res["is_error"], False, "is_error")
    path = session_file(E, sid, E.proj)
    check(os.path.isfile(path), "session file not at %s" % path)


@test
def claude_session_file_shapes(E):
    r = claude(E, "please [[calls:2]]", "--append-system-prompt", "APPENDED-INSTRUCTIONS", "--model",
               "claude-opus-5-5")
    evs = ok(r, "calls:2")
    sid = evs[0]["session_id"]
    rows = read_jsonl(session_file(E, sid, E.proj))
    real = cap_jsonl(CC, "sessions", "tooluse-b868a233-cb59-492d-a502-8da5d8381056.jsonl")

    def pick(rows_, pred):
        return [x for x in rows_ if pred(x)]

    for name, pred in [
        ("enqueue", lambda x: x.get("type") == "queue-operation" and x.get("operation") == "enqueue"),
        ("dequeue", lambda x: x.get("type") == "queue-operation" and x.get("operation") == "dequeue"),
        ("user prompt", lambda x: x.get("type") == "user" and isinstance(x["message"]["content"], str)),
        ("tool_use assistant", lambda x: x.get("type") == "assistant" and
         x["message"]["content"][0]["type"] == "tool_use"),
        ("tool_result user", lambda x: x.get("type") == "user" and isinstance(x["message"]["content"], list)),
        ("text assistant", lambda x: x.get("type") == "assistant" and x["message"]["content"][0]["type"] == "text"),
        ("environment attachment", lambda x: x.get("type") == "attachment" and
         x["attachment"]["type"] == "environment"),
        ("last-prompt", lambda x: x.get("type") == "last-prompt"),
        ("cost-state", lambda x: x.get("type") == "cost-state"),
    ]:
        g, w = pick(rows, pred), pick(real, pred)
        check(g, "session file has no %s entry" % name)
        g0, w0 = dict(g[0]), dict(w[0])
        if name == "environment attachment":  # its `rendered` text is a stand-in
            g0.pop("rendered", None)
            w0.pop("rendered", None)
        same_shape(g0, w0, "session %s entry" % name)
    snaps = pick(rows, lambda x: x.get("type") == "attachment" and x["attachment"]["type"] == "prompt_snapshot")
    check(snaps and "APPENDED-INSTRUCTIONS" in snaps[0]["attachment"]["systemPrompt"],
          "the appended system prompt is not recorded in a prompt_snapshot attachment")
    models = pick(rows, lambda x: x.get("type") == "attachment" and x["attachment"]["type"] == "model")
    check(models and models[-1]["attachment"]["identity"]["modelId"] == "claude-opus-5-5", "model not recorded")
    assistants = pick(rows, lambda x: x.get("type") == "assistant")
    eq([a["message"]["usage"]["output_tokens"] for a in assistants], [41, 42], "final output tokens in the file")
    eq([a["requestedModel"] for a in assistants], ["claude-opus-5-5"] * 2, "requestedModel")
    chain = [x for x in rows if "parentUuid" in x]
    for prev, cur in zip(chain, chain[1:]):
        eq(cur["parentUuid"], prev["uuid"], "parentUuid chain")


@test
def claude_tooluse_calls2(E):
    r = claude(E, "please [[calls:2]]")
    evs = ok(r, "calls:2")
    same_events(evs, cap_jsonl(CC, "tooluse.stdout"), "tooluse")
    a1, a2, res = evs[1], evs[3], evs[4]
    u = res["usage"]
    for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
        eq(u[k], a1["message"]["usage"][k] + a2["message"]["usage"][k], "result.usage.%s is the sum" % k)
    eq(u["output_tokens"], 41 + 42, "result.usage.output_tokens sums the final outputs")
    eq(evs[2]["message"]["content"][0]["tool_use_id"], a1["message"]["content"][0]["id"], "tool_use_id")
    eq(res["num_turns"], 2, "num_turns")
    check(a2["message"]["content"][0]["text"].startswith("MOCK-REPLY #2 "), "second call is reply #2")


@test
def claude_ctx_window_exact(E):
    r = claude(E, "big [[ctx:150000]] [[window:200000]] [[calls:3]]")
    evs = ok(r, "ctx")
    sid = evs[0]["session_id"]
    res = evs[-1]
    eq(res["modelUsage"]["claude-opus-5-5"]["contextWindow"], 200000, "[[window]] contextWindow")
    rows = [x for x in read_jsonl(session_file(E, sid, E.proj)) if x.get("type") == "assistant"]
    eq(len(rows), 3, "assistant entries")
    for a in rows:  # every call reports the same context N
        u = a["message"]["usage"]
        eq(usage_ctx(u) + u["output_tokens"], 150000, "in+cache_creation+cache_read+output of a call")
    streamed = [e for e in evs if e["type"] == "assistant"]
    eq(usage_ctx(streamed[-1]["message"]["usage"]) + rows[-1]["message"]["usage"]["output_tokens"], 150000,
       "last streamed call + its final output")
    eq(usage_ctx(res["usage"]) + res["usage"]["output_tokens"], 3 * 150000, "summed usage is K x N")
    r = claude(E, "tiny [[ctx:7]]")
    evs = ok(r, "ctx:7")
    rows = [x for x in read_jsonl(session_file(E, evs[0]["session_id"], E.proj)) if x.get("type") == "assistant"]
    u = rows[-1]["message"]["usage"]
    eq(usage_ctx(u) + u["output_tokens"], 7, "[[ctx:7]]")
    check(min(u["input_tokens"], u["cache_creation_input_tokens"], u["cache_read_input_tokens"],
              u["output_tokens"]) >= 0, "no negative token part")


@test
def claude_resume_continues(E):
    evs = ok(claude(E, "hello"), "first")
    sid = evs[0]["session_id"]
    r = claude(E, "follow-up after resume", "--resume", sid)
    evs2 = ok(r, "resume")
    same_events(evs2, cap_jsonl(CC, "resume1.stdout"), "resume1")
    eq(evs2[0]["session_id"], sid, "resumed session_id")
    eq(evs2[1]["message"]["content"][0]["text"],
       "MOCK-REPLY #2 model=claude-opus-5-5 last_user=follow-up after resume", "reply counter continues")
    mu = evs2[-1]["modelUsage"]["claude-opus-5-5"]
    eq(mu["inputTokens"], 1001 + 1002, "modelUsage is cumulative over the session")
    eq(mu["outputTokens"], 41 + 42, "modelUsage.outputTokens cumulative")
    eq(evs2[-1]["model_usage_since_last_result"]["claude-opus-5-5"]["inputTokens"], 1002, "since last result")
    eq(evs2[-1]["usage"]["input_tokens"], 1002, "result.usage is this turn only")
    # 2.1.332 finds the session from another cwd too, and appends to the same file.
    r = claude(E, "resume from other cwd", "--resume", sid, cwd=E.proj2)
    evs3 = ok(r, "resume other cwd")
    check(evs3[1]["message"]["content"][0]["text"].startswith("MOCK-REPLY #3 "), "#3 from the other cwd")
    check(not os.path.exists(session_file(E, sid, E.proj2)), "resume from another cwd must not start a new file")
    rows = read_jsonl(session_file(E, sid, E.proj))
    eq(sum(1 for x in rows if x.get("type") == "assistant"), 3, "assistant entries after 3 turns")


@test
def claude_resume_missing(E):
    r = claude(E, "x", "--resume", MISSING)
    eq(r.rc, cap_rc("resume-missing"), "rc")
    eq(r.err, cap_text(CC, "resume-missing.stderr"), "stderr")
    evs = r.events()
    same_events(evs, cap_jsonl(CC, "resume-missing.stdout"), "resume-missing")
    eq(evs[0]["errors"], cap_jsonl(CC, "resume-missing.stdout")[0]["errors"], "errors")
    eq(evs[0]["session_id"], MISSING, "session_id")


@test
def claude_resume_notuuid(E):
    r = claude(E, "x", "--resume", "not-a-uuid-name")
    eq(r.rc, cap_rc("resume-notuuid"), "rc")
    eq(r.err, cap_text(CC, "resume-notuuid.stderr"), "stderr")
    want = cap_jsonl(CC, "resume-notuuid.stdout")
    same_events(r.events(), want, "resume-notuuid")
    eq(r.events()[0]["errors"], want[0]["errors"], "errors")


@test
def claude_resume_with_id_nofork(E):
    sid = ok(claude(E, "hello"), "first")[0]["session_id"]
    r = claude(E, "x", "--resume", sid, "--session-id", "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee")
    eq(r.rc, cap_rc("resume-with-id-nofork"), "rc")
    eq(r.err, cap_text(CC, "resume-with-id-nofork.stderr"), "stderr")
    eq(r.out, cap_text(CC, "resume-with-id-nofork.stdout"), "stdout")
    # with --fork-session: a new session that continues the old one
    new = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
    r = claude(E, "forked", "--resume", sid, "--session-id", new, "--fork-session")
    evs = ok(r, "fork")
    eq(evs[0]["session_id"], new, "forked session id")
    check(evs[1]["message"]["content"][0]["text"].startswith("MOCK-REPLY #2 "), "fork continues the counter")
    check(os.path.isfile(session_file(E, new, E.proj)), "forked session file")


@test
def claude_sessid_reuse(E):
    sid = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
    evs = ok(claude(E, "hello", "--session-id", sid), "new with --session-id")
    eq(evs[0]["session_id"], sid, "--session-id is used")
    r = claude(E, "again", "--session-id", sid)
    eq(r.rc, cap_rc("sessid-reuse"), "rc")
    eq(r.err, cap_text(CC, "sessid-reuse.stderr"), "stderr")
    eq(r.out, "", "stdout")


@test
def claude_fail_api(E):
    r = claude(E, "boom [[fail:api]]")
    want = cap_jsonl(CC, "err-529.stdout")
    eq(r.rc, cap_rc("err-529"), "rc")
    eq(r.err, cap_text(CC, "err-529.stderr"), "stderr")
    evs = r.events()
    same_events(evs, want, "err-529")
    for k in ("is_error", "api_error_status", "api_error_type", "terminal_reason", "result", "subtype"):
        eq(evs[-1][k], want[-1][k], "result." + k)
    eq(evs[-2]["message"]["content"], want[-2]["message"]["content"], "synthetic message text")


@test
def claude_max_turns(E):
    r = claude(E, "loop [[calls:3]]", "--max-turns", "1")
    eq(r.rc, cap_rc("maxturns1"), "rc")
    same_events(r.events(), cap_jsonl(CC, "maxturns1.stdout"), "maxturns1")
    eq(r.events()[-1]["errors"], cap_jsonl(CC, "maxturns1.stdout")[-1]["errors"], "errors")


@test
def claude_output_json(E):
    r = run(E, CLAUDE, ["-p", "--output-format", "json"], stdin="json output")
    evs = ok(r, "json")
    same_events(evs, cap_jsonl(CC, "out-json.stdout"), "out-json")
    r = run(E, CLAUDE, ["-p", "--output-format", "stream-json"], stdin="x")
    eq(r.rc, 1, "stream-json without --verbose")
    check("requires --verbose" in r.err, "stream-json without --verbose: %r" % r.err)


@test
def claude_v197(E):
    v = {"BATON_SHIM_CLAUDE_VERSION": "2.1.197"}
    r = claude(E, "hello from 197", **v)
    evs = ok(r, "v197")
    same_events(evs, cap_jsonl(CC, "v197-hello.stdout"), "v197-hello")
    sid = evs[0]["session_id"]
    eq(evs[0]["model"], "claude-opus-4-8[1m]", "197 new-session model")
    eq(evs[0]["claude_code_version"], "2.1.197", "version")
    eq(evs[1]["message"]["model"], "claude-opus-4-8", "API model")
    eq(evs[-1]["modelUsage"]["claude-opus-4-8[1m]"]["contextWindow"], 1000000, "197 new-session window")
    real = cap_jsonl(CC, "sessions", "v2.1.197-hello-49557436-d9e3-4bce-8089-ed1f5437ce4e.jsonl")
    rows = read_jsonl(session_file(E, sid, E.proj))
    for t in ("user", "assistant", "last-prompt"):
        same_shape([x for x in rows if x.get("type") == t][0], [x for x in real if x.get("type") == t][0],
                   "197 session %s entry" % t)
    # a resume without --model runs on claude-opus-4-8 with a 200,000 window
    evs2 = ok(claude(E, "again", "--resume", sid, **v), "v197 resume")
    eq(evs2[0]["model"], "claude-opus-4-8", "197 resume model")
    eq(evs2[-1]["modelUsage"]["claude-opus-4-8"]["contextWindow"], 200000, "197 resume window")
    # pinned with --model it keeps the 1M window
    evs3 = ok(claude(E, "pinned", "--resume", sid, "--model", "claude-opus-4-8[1m]", **v), "v197 pinned")
    eq(evs3[-1]["modelUsage"]["claude-opus-4-8[1m]"]["contextWindow"], 1000000, "pinned window")
    # 2.1.197 finds a session only from its own cwd
    r = claude(E, "elsewhere", "--resume", sid, cwd=E.proj2, **v)
    eq(r.rc, cap_rc("v197-resume-missing"), "197 resume from other cwd rc")
    eq(r.err, "No conversation found with session ID: %s\n" % sid, "197 resume from other cwd stderr")
    r = claude(E, "x", "--resume", MISSING, **v)
    eq(r.err, cap_text(CC, "v197-resume-missing.stderr"), "197 missing stderr")
    same_events(r.events(), cap_jsonl(CC, "v197-resume-missing.stdout"), "v197-resume-missing")


@test
def claude_long_path_encoding(E):
    # Vectors computed with claude-code's sanitizePath (Node, simpleHash = djb2 base 36).
    vectors = {
        "/tmp/baton-long/" + "deeply_nested.dir-" * 14 + "end":
            "-tmp-baton-long" + "-deeply-nested-dir" * 10 + "-deep-9tiafa",
        "/tmp/\u00fcn\u00ef/\U0001F600 x": "-tmp--n-----x",
        "/home/dev/proj1": "-home-dev-proj1",
    }
    for p, want in vectors.items():
        eq(sanitize_ref(p), want, "reference sanitizePath(%r)" % p)
    long_dir = os.path.join(E.base, *(["a-very-long-directory-name_%d" % i for i in range(8)]))
    os.makedirs(long_dir)
    evs = ok(claude(E, "deep", cwd=long_dir), "long cwd")
    enc = sanitize_ref(long_dir)
    check(len(enc) > 200 and enc[200] == "-", "test dir not long enough")
    p = os.path.join(E.projects(), enc, evs[0]["session_id"] + ".jsonl")
    check(os.path.isfile(p), "long-path session not at %s (have %s)" % (p, os.listdir(E.projects())))
    eq(evs[0]["memory_paths"]["auto"], os.path.join(E.projects(), enc, "memory") + "/", "memory_paths.auto")
    link = os.path.join(E.base, "link")
    os.symlink(E.proj, link)
    evs = ok(claude(E, "via symlink", cwd=link), "symlinked cwd")
    eq(evs[0]["cwd"], E.proj, "the physical cwd")
    check(os.path.isfile(session_file(E, evs[0]["session_id"], E.proj)), "symlinked cwd: physical project dir")
    cfg = os.path.join(E.base, "cfgdir")
    evs = ok(claude(E, "cfg", CLAUDE_CONFIG_DIR=cfg), "CLAUDE_CONFIG_DIR")
    check(os.path.isfile(os.path.join(cfg, "projects", sanitize_ref(E.proj), evs[0]["session_id"] + ".jsonl")),
          "CLAUDE_CONFIG_DIR session path")


@test
def claude_no_persistence_and_flags(E):
    evs = ok(claude(E, "ephemeral", "--no-session-persistence"), "no persistence")
    check(not os.path.exists(session_file(E, evs[0]["session_id"], E.proj)), "--no-session-persistence wrote a file")
    r = claude(E, "x", "--bogus-flag")
    eq((r.rc, r.err), (1, "error: unknown option '--bogus-flag'\n"), "unknown flag")
    # --add-dir is variadic (eats a positional prompt); --add-dir=D takes one
    extra = os.path.join(E.base, "shots")
    evs = ok(run(E, CLAUDE, STREAM + ["--add-dir", extra, os.path.join(E.base, "b"), "--permission-mode",
                                      "acceptEdits", "--settings", '{"sandbox":{"enabled":true}}',
                                      "--include-partial-messages", "--max-turns", "5", "--model", "opus-x"],
                 stdin="from stdin"), "flags")
    eq(evs[0]["additional_directories"], [extra, os.path.join(E.base, "b")], "variadic --add-dir")
    eq(evs[0]["permissionMode"], "acceptEdits", "permissionMode")
    eq(evs[0]["sandbox_enabled"], True, "sandbox_enabled from --settings")
    eq(evs[-1]["modelUsage"]["opus-x"]["contextWindow"], 200000, "other model: 200,000 window")
    evs = ok(run(E, CLAUDE, STREAM + ["--add-dir=" + extra, "positional prompt"], stdin=""), "--add-dir=")
    eq(evs[0]["additional_directories"], [extra], "--add-dir=D")
    check(evs[1]["message"]["content"][0]["text"].endswith("last_user=positional prompt"), "positional prompt")
    r = claude(E, "x", "--session-id", "nope")
    eq((r.rc, r.err), (1, "Error: Invalid session ID. Must be a valid UUID.\n"), "invalid --session-id")


@test
def claude_markers(E):
    evs = ok(claude(E, "x [[reply:Custom answer here]] [[write:out/made.txt]]"), "reply/write")
    eq(evs[-1]["result"], "Custom answer here", "[[reply]]")
    with open(os.path.join(E.proj, "out", "made.txt")) as f:
        eq(f.read(), "written by shim\n", "[[write]] content")
    r = claude(E, "[[garbage]]")
    eq(r.rc, 0, "garbage rc")
    check(r.out.strip() and not any(l.startswith('{"type":"result"') for l in r.out.splitlines()), "garbage")
    for l in r.out.splitlines():
        try:
            json.loads(l)
            raise CheckFailed("garbage printed a JSON line: %r" % l)
        except ValueError:
            pass
    r = claude(E, "[[die]]")
    eq(r.rc, 3, "die rc")
    eq(kinds(r.events()), ["system/init"], "die prints the first events only")


@test
def claude_sigint_hang(E):
    p = subprocess.Popen([CLAUDE] + STREAM, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=E.proj, env=E.env())
    p.stdin.write(b"wait [[hang]]")
    p.stdin.close()
    first = p.stdout.readline()
    check(json.loads(first)["subtype"] == "init", "hang: init first")
    time.sleep(0.2)
    check(p.poll() is None, "hang: exited before a signal")
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=3)
    except subprocess.TimeoutExpired:
        p.kill()
        raise CheckFailed("SIGINT during [[hang]]: still running after 3 s")
    rest = p.stdout.read().decode()
    p.stderr.close()
    p.stdout.close()
    eq(rc, 0, "claude rc on SIGINT (the real CLI exits 0)")
    check(time.monotonic() - t0 < 1.5, "SIGINT: slow exit")
    events = [json.loads(l) for l in rest.splitlines() if l.strip()]
    real = cap_jsonl(os.path.join(ROOT, "fixtures", "captures", "real-sigint"), "claude-2.1.332-sigint.stdout.jsonl")
    eq([e["type"] for e in events[-2:]], ["user", "result"], "SIGINT: user note, then result")
    same_shape(events[-2], real[-2], "SIGINT user line")
    eq(events[-2]["message"], real[-2]["message"], "SIGINT user text")
    for k in ("subtype", "is_error", "terminal_reason", "errors"):
        eq(events[-1][k], real[-1][k], "SIGINT result " + k)
    # SIGTERM just ends it
    p = subprocess.Popen([CLAUDE] + STREAM, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         cwd=E.proj, env=E.env())
    p.stdin.write(b"wait [[hang]]")
    p.stdin.close()
    p.stdout.readline()
    p.send_signal(signal.SIGTERM)
    eq(p.wait(timeout=3), -signal.SIGTERM, "SIGTERM")
    p.stdout.close()


@test
def claude_delay_streaming(E):
    p = subprocess.Popen([CLAUDE] + STREAM, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         cwd=E.proj, env=E.env(BATON_SHIM_DELAY_MS="250"))
    p.stdin.write(b"slow [[calls:2]]")
    p.stdin.close()
    stamps = []
    for line in p.stdout:
        stamps.append(time.monotonic())
    p.wait(timeout=10)
    p.stdout.close()
    eq(len(stamps), 5, "events")
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    check(min(gaps) >= 0.2, "BATON_SHIM_DELAY_MS: events not spaced (%s)" % gaps)


PARTIAL = STREAM + ["--include-partial-messages"]


def stream_kinds(events):
    """kinds(), with a stream_event's own event type."""
    return [k + "/" + e["event"]["type"] if k == "stream_event" else k for k, e in zip(kinds(events), events)]


def deltas(events, kind="text_delta", field="text"):
    return [e["event"]["delta"][field] for e in events
            if e.get("type") == "stream_event" and e["event"].get("delta", {}).get("type") == kind]


@test
def claude_partial_messages(E):
    r = run(E, CLAUDE, PARTIAL, stdin="partial")
    evs = ok(r, "partial")
    want = cap_jsonl(CC, "out-partial.stdout")
    eq(stream_kinds(evs), stream_kinds(want), "out-partial event sequence")
    for i, (g, w) in enumerate(zip(evs, want)):
        same_shape(g, w, "out-partial event %d (%s)" % (i, stream_kinds([w])[0]))
    sid = evs[0]["session_id"]
    start = evs[2]["event"]["message"]
    asst = [e for e in evs if e["type"] == "assistant"][0]
    res = evs[-1]
    text = asst["message"]["content"][0]["text"]
    eq(text, "MOCK-REPLY #1 model=claude-opus-5-5 last_user=partial", "reply")
    eq("".join(deltas(evs)), text, "the deltas joined are the assistant text")
    check(len(deltas(evs)) >= 2, "the answer streams in several deltas")
    eq(res["result"], text, "result.result")
    for e in evs:
        if e["type"] == "stream_event":
            eq(e["api_message_id"], asst["message"]["id"], "api_message_id")
            eq(e["session_id"], sid, "stream_event session_id")
            eq(e["parent_tool_use_id"], None, "parent_tool_use_id")
    eq(start["id"], asst["message"]["id"], "message_start id")
    eq(start["usage"], {k: asst["message"]["usage"][k] for k in start["usage"]}, "message_start usage")
    eq(evs[1], dict(evs[1], type="system", subtype="status", status="requesting", session_id=sid), "status line")
    # message_delta carries the call's final output count, as the session file keeps it.
    final = [e for e in evs if e["type"] == "stream_event" and e["event"]["type"] == "message_delta"][0]
    eq(final["event"]["delta"], {"stop_reason": "end_turn", "stop_sequence": None}, "message_delta.delta")
    rows = read_jsonl(session_file(E, sid, E.proj))
    disk = [x for x in rows if x["type"] == "assistant"][-1]["message"]["usage"]
    eq(final["event"]["usage"]["output_tokens"], disk["output_tokens"], "message_delta output_tokens")
    eq(res["usage"]["output_tokens"], disk["output_tokens"], "result output_tokens")
    # Without the flag: no stream events at all.
    evs = ok(claude(E, "partial"), "no flag")
    eq(kinds(evs), ["system/init", "assistant", "result"], "without --include-partial-messages")


@test
def claude_partial_tool_calls(E):
    evs = ok(run(E, CLAUDE, PARTIAL, stdin="read [[calls:2]]"), "partial calls:2")
    per_call = ["system/status", "stream_event/message_start", "stream_event/content_block_start"]
    tail = ["stream_event/content_block_stop", "stream_event/message_delta", "stream_event/message_stop"]
    got = stream_kinds(evs)
    n_json = len(deltas(evs, "input_json_delta", "partial_json"))
    n_text = len(deltas(evs))
    want = (["system/init"] + per_call + ["stream_event/content_block_delta"] * n_json + ["assistant"] + tail
            + ["user"] + per_call + ["stream_event/content_block_delta"] * n_text + ["assistant"] + tail
            + ["result"])
    eq(got, want, "two calls streamed")
    tool = [e for e in evs if e["type"] == "assistant"][0]["message"]["content"][0]
    block = [e for e in evs if e["type"] == "stream_event" and e["event"]["type"] == "content_block_start"][0]
    eq(block["event"]["content_block"], {"type": "tool_use", "id": tool["id"], "name": "Read", "input": {}},
       "tool_use content_block_start")
    eq(json.loads("".join(deltas(evs, "input_json_delta", "partial_json"))), tool["input"], "tool input deltas")
    stops = [e["event"]["delta"]["stop_reason"] for e in evs
             if e["type"] == "stream_event" and e["event"]["type"] == "message_delta"]
    eq(stops, ["tool_use", "end_turn"], "stop reasons")


def start_held(E, prompt, *extra):
    p = subprocess.Popen([CLAUDE] + PARTIAL + list(extra), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, cwd=E.proj, env=E.env())
    p.stdin.write(prompt.encode())
    p.stdin.close()
    seen = []
    while not deltas(seen):
        line = p.stdout.readline()
        check(line, "the shim ended before its first delta")
        seen.append(json.loads(line))
    return p, seen


@test
def claude_partial_hold(E):
    # Held after the first delta until the file exists: the test decides when the rest comes.
    p, seen = start_held(E, "slowly [[hold:go-on]]")
    check(p.poll() is None, "hold: the shim went on without the file")
    with open(os.path.join(E.proj, "go-on"), "w"):
        pass
    rest = [json.loads(l) for l in p.stdout.read().decode().splitlines() if l.strip()]
    p.stdout.close()
    eq(p.wait(timeout=10), 0, "rc after the hold")
    evs = seen + rest
    text = [e for e in evs if e["type"] == "assistant"][0]["message"]["content"][0]["text"]
    eq("".join(deltas(evs)), text, "held deltas joined")
    eq(evs[-1]["result"], text, "held result")
    # SIGINT while held: the message as far as it streamed, then the interruption (real-sigint).
    p, seen = start_held(E, "slowly [[hold:never]]")
    p.send_signal(signal.SIGINT)
    eq(p.wait(timeout=3), 0, "rc on SIGINT while held")
    rest = [json.loads(l) for l in p.stdout.read().decode().splitlines() if l.strip()]
    p.stdout.close()
    eq(kinds(rest), ["assistant", "user", "result"], "SIGINT while held")
    real = cap_jsonl(os.path.join(ROOT, "fixtures", "captures", "real-sigint"), "claude-2.1.332-sigint.stdout.jsonl")
    same_shape(rest[0], real[1], "aborted assistant line")
    eq(rest[0]["aborted"], True, "aborted")
    eq(rest[0]["message"]["content"], [{"type": "text", "text": "".join(deltas(seen))}], "aborted text")
    eq(rest[-1]["terminal_reason"], "aborted_streaming", "SIGINT result")


@test
def shim_log(E):
    ok(claude(E, "logged prompt\nline two"), "claude")
    ok(codex(E, "codex prompt"), "codex")
    with open(E.log) as f:
        recs = [json.loads(l) for l in f]
    eq(len(recs), 2, "log lines")
    c, x = recs
    eq(sorted(c.keys()), sorted(["cli", "argv", "stdin", "system", "cwd", "pid", "env", "sig_ignored"]), "log keys")
    # Started from this script (nothing ignored but what Python itself ignores, SIGPIPE…):
    # SIGINT (bit 1) and SIGTERM (bit 14) are not.
    check(isinstance(c["sig_ignored"], int) and c["sig_ignored"] & ((1 << 1) | (1 << 14)) == 0, "sig_ignored")
    eq((c["system"], x["system"]), (None, None), "no system text given")
    eq((c["cli"], c["argv"], c["stdin"], c["cwd"]), ("claude", STREAM, "logged prompt\nline two", E.proj), "claude log")
    eq((x["cli"], x["argv"], x["stdin"], x["cwd"]), ("codex", EXEC, "codex prompt", E.proj), "codex log")
    eq(c["env"], {"HOME": E.home, "CODEX_HOME": E.codex_home, "CLAUDE_CONFIG_DIR": None,
                  "BATON_PORT": None, "BATON_PORTS": None}, "log env")
    check(isinstance(c["pid"], int), "pid")


# Everything a shell, TOML or JSON could mangle, and a trailing newline.
AWKWARD = 'Say "hi" \\ $HOME `id` \t tab\n中文 ✓ 🎉\n'


def private_file(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def log_records(E):
    with open(E.log) as f:
        return [json.loads(l) for l in f]


@test
def claude_append_system_prompt_file(E):
    # Both versions (fixtures/captures/system-file): the file's text verbatim, trailing newline
    # included; a missing file is rc 1 before anything is printed.
    path = os.path.join(E.base, "system.txt")
    private_file(path, AWKWARD)
    for version in ("2.1.332", "2.1.197"):
        sid = ok(claude(E, "hello", "--append-system-prompt-file", path,
                        BATON_SHIM_CLAUDE_VERSION=version), version)[0]["session_id"]
        snaps = [x["attachment"] for x in read_jsonl(session_file(E, sid, E.proj))
                 if x.get("type") == "attachment" and x["attachment"]["type"] == "prompt_snapshot"]
        eq(snaps[0]["systemPrompt"][-1], AWKWARD, "%s: the file's text, last" % version)
        eq(log_records(E)[-1]["system"], AWKWARD, "%s: logged" % version)
        missing = "/tmp/sys/missing.txt"
        r = claude(E, "hello", "--append-system-prompt-file", missing, BATON_SHIM_CLAUDE_VERSION=version)
        name = "claude-missing-file" if version == "2.1.332" else "v197-claude-missing-file"
        eq((r.rc, r.out, r.err), sysfile_cap(name), "%s: missing file" % version)
    r = claude(E, "hello", "--append-system-prompt", "X", "--append-system-prompt-file", path,
               BATON_SHIM_CLAUDE_VERSION="2.1.197")
    eq((r.rc, r.out, r.err), sysfile_cap("v197-claude-both-flags"), "2.1.197 refuses both")
    r = claude(E, "hello", "--append-system-prompt-file")
    eq((r.rc, r.err), (1, "error: option '--append-system-prompt-file <file>' argument missing\n"), "no value")


@test
def codex_profile_developer_instructions(E):
    # 0.171: `-p NAME` reads $CODEX_HOME/NAME.config.toml when the thread is created; a missing
    # profile is silently ignored (rc 0, no instructions); two -p are refused (measured).
    os.makedirs(E.codex_home, exist_ok=True)
    text = AWKWARD
    toml = 'developer_instructions = ' + json.dumps(text, ensure_ascii=False) + "\n"
    private_file(os.path.join(E.codex_home, "baton-t-u.config.toml"), toml)
    tid = ok(codex(E, "turn one", "-p", "baton-t-u"), "with a profile")[0]["thread_id"]
    eq(log_records(E)[-1]["system"], text, "logged")
    rows = read_jsonl(rollouts(E)[0])
    devs = [x for x in rows if x["payload"].get("role") == "developer"]
    eq(devs[0]["payload"]["content"][0]["text"], text, "stored at creation, byte for byte")
    ok(codex(E, "turn two", resume=tid), "resume without the profile")
    devs = [x for x in read_jsonl(rollouts(E)[0]) if x["payload"].get("role") == "developer"]
    eq(len(devs), 1, "a resume adds no second copy")
    r = codex(E, "turn one", "-p", "nope")
    ok(r, "a missing profile")
    eq(log_records(E)[-1]["system"], None, "a missing profile gives no instructions")
    new = [f for f in rollouts(E) if r.events()[0]["thread_id"] in f][0]
    check(not any(x["payload"].get("role") == "developer" and
                  x["payload"]["content"][0]["text"] == text for x in read_jsonl(new)), "nothing from nope")
    r = run(E, CODEX, ["exec", "--json", "--skip-git-repo-check", "-p", "a", "-p", "b"])
    rc, out, err = sysfile_cap("codex-two-profiles")
    eq((r.rc, r.out, r.err), (rc, out, err.replace("/home/dev/.codex", E.codex_home)), "two -p")


# ---- codex

def codex_warning(E):
    return ('WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper '
            'binaries under temporary dir "/tmp" (codex_home: AbsolutePathBuf("%s"))\n' % E.codex_home)


@test
def codex_success_shapes(E):
    r = codex(E, "Say hello to the research harness")
    evs = ok(r, "codex")
    want = cap_jsonl(CX, "exec-json-success.stdout.jsonl")
    same_events(evs, want, "exec-json-success")
    eq(evs[1], {"type": "item.completed", "item": {"id": "item_0", "type": "error", "message": want[1]["item"][
        "message"].replace("mock-model", "gpt-5.5")}}, "model-metadata warning item")
    tid = evs[0]["thread_id"]
    check(re.match(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", tid), "UUIDv7 %s" % tid)
    eq(evs[3]["item"]["text"], "MOCK-REPLY #1 model=gpt-5.5 last_user=Say hello to the research harness", "reply")
    files = rollouts(E)
    eq(len(files), 1, "one rollout")
    name = os.path.basename(files[0])
    check(re.match(r"^rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-%s\.jsonl$" % tid, name), "rollout name %s" % name)
    ymd = name[8:18].split("-")
    eq(os.path.dirname(files[0]), os.path.join(E.codex_home, "sessions", *ymd), "rollout dir")
    rows = read_jsonl(files[0])
    real = cap_jsonl(CX, "rollout-turn1.jsonl")
    eq(rows[0]["type"], "session_meta", "first rollout entry")
    meta = rows[0]["payload"]
    same_shape(meta, real[0]["payload"], "session_meta")
    eq((meta["id"], meta["cwd"], meta["cli_version"]), (tid, E.proj, "0.171.0"), "session_meta values")

    def key(x):
        p = x["payload"]
        kinds_ = (p.get("internal_chat_message_metadata_passthrough") or {}).get("content_item_kinds") or [""]
        return "/".join([x["type"], str(p.get("type")), str(p.get("role")), kinds_[-1]])

    real_by = {}
    for x in real:
        real_by.setdefault(key(x), x)
    for x in rows:
        k = key(x)
        check(k in real_by, "rollout entry %s not in the capture" % k)
        g, w = json.loads(json.dumps(x)), json.loads(json.dumps(real_by[k]))
        if k.startswith("event_msg/item_completed/"):
            continue  # several item kinds share this key; checked below
        same_shape(g, w, "rollout %s" % k)
    eq(r.err, codex_warning(E) + "Reading prompt from stdin...\n", "stderr")
    tc = [x for x in rows if x["type"] == "event_msg" and x["payload"]["type"] == "token_count"]
    eq(tc[-1]["payload"]["info"]["model_context_window"], 258400, "default window")
    eq(rows[-1]["payload"]["type"], "task_complete", "last entry")


@test
def codex_tool_call_calls2(E):
    evs = ok(codex(E, "Please run it [[calls:2]] [[ctx:30000]] [[window:100000]]"), "calls:2")
    same_events(evs, cap_jsonl(CX, "exec-json-tool-call.stdout.jsonl"), "exec-json-tool-call")
    rows = read_jsonl(rollouts(E)[0])
    real = cap_jsonl(CX, "rollout-tool-call.jsonl")
    for t in ("function_call", "function_call_output"):
        same_shape([x for x in rows if x["payload"].get("type") == t][0],
                   [x for x in real if x["payload"].get("type") == t][0], "rollout " + t)
    for kind in ("CommandExecution", "AgentMessage", "UserMessage"):
        g = [x for x in rows if x["payload"].get("type") == "item_completed"
             and x["payload"]["item"]["type"] == kind]
        w = [x for x in real if x["payload"].get("type") == "item_completed"
             and x["payload"]["item"]["type"] == kind]
        same_shape(g[0], w[0], "rollout item_completed " + kind)
    tc = [x["payload"]["info"] for x in rows if x["payload"].get("type") == "token_count"]
    eq(len(tc), 2, "token_count per model call")
    eq([t["last_token_usage"]["total_tokens"] for t in tc], [30000, 30000], "last_token_usage per call")
    eq(tc[-1]["total_token_usage"]["total_tokens"], 60000, "total_token_usage cumulative")
    eq([t["model_context_window"] for t in tc], [100000, 100000], "[[window]]")
    done = evs[-1]["usage"]
    eq(done["input_tokens"] + done["output_tokens"], 60000, "turn.completed usage sums the calls")


@test
def demo_mode_turns_read_like_an_agents(E):
    os.makedirs(os.path.join(E.proj, "src"), exist_ok=True)
    server = os.path.join(E.proj, "src", "server.rs")
    with open(server, "w", encoding="utf-8") as f:
        f.write("Router::new()\n        // routes\n")
    r = claude(E, "Add a /health endpoint to the server.", BATON_SHIM_DEMO="1")
    evs = ok(r, "claude demo turn")
    check("MOCK" not in r.out, "no MOCK text in a demo turn")
    uses = [c for e in evs if e.get("type") == "assistant" for c in e["message"]["content"]
            if c["type"] == "tool_use"]
    eq([u["name"] for u in uses], ["Read", "Edit", "Edit", "Bash"], "named tool calls")
    eq(uses[0]["input"]["file_path"], server, "an absolute path, as the real CLI")
    res = evs[-1]
    check(res["result"].startswith("Added a `/health` endpoint."), "the scene's answer: %r" % res["result"])
    eq(list(res["modelUsage"].values())[0]["contextWindow"], 200000, "the demo's window")
    with open(server, encoding="utf-8") as f:
        check('.route("/health", get(health))' in f.read(), "the edit was made")
    # Markers still win; without the variable nothing changes.
    r = claude(E, "Add a /health endpoint [[reply:as scripted]]", BATON_SHIM_DEMO="1")
    eq(ok(r, "scripted")[-1]["result"], "as scripted", "[[reply]] wins")
    r = claude(E, "Add a /health endpoint")
    check(ok(r, "plain")[-1]["result"].startswith("MOCK-REPLY #1 "), "no demo without the variable")
    r = codex(E, "Review the changes on this branch.", BATON_SHIM_DEMO="1")
    evs = ok(r, "codex demo turn")
    check("MOCK" not in r.out and "shim-tool-call" not in r.out, "no scripting text in codex's")
    cmds = [e["item"]["command"] for e in evs if e.get("type") == "item.completed"
            and e["item"]["type"] == "command_execution"]
    eq(cmds, ["/bin/bash -lc 'cat src/server.rs'", "/bin/bash -lc 'cargo clippy --all-targets'"],
       "codex's commands")
    # A command holding quotes is quoted as the real CLI quotes it (shlex.quote): one script.
    r = codex(E, "Suggest a layout for the tests.", BATON_SHIM_DEMO="1")
    cmds = [e["item"]["command"] for e in ok(r, "codex demo quotes") if e.get("type") == "item.completed"
            and e["item"]["type"] == "command_execution"]
    eq([shlex.split(c) for c in cmds], [["/bin/bash", "-lc", "ls -R src tests"],
                                       ["/bin/bash", "-lc", "grep -n 'pub fn' src/invoices.rs"]],
       "codex's quoted commands")


@test
def demo_answers_fit_the_prompt_and_context_only_grows(E):
    """The demo's scene is the one the prompt asks for, and a session's context never falls."""
    # "Write the invoices tests first" once got the health endpoint's test answer.
    r = claude(E, "Look at the project layout and suggest which tests to write first.", BATON_SHIM_DEMO="1")
    first = ok(r, "layout turn")
    sid = first[-1]["session_id"]
    r = claude(E, "Write the invoices tests first", "--resume", sid, BATON_SHIM_DEMO="1")
    second = ok(r, "invoices turn")
    check("invoices" in second[-1]["result"] and "health" not in second[-1]["result"],
          "the invoices scene: %r" % second[-1]["result"])
    r = claude(E, "Add a test for the /health endpoint.", "--resume", sid, BATON_SHIM_DEMO="1")
    check("tests/health.rs" in ok(r, "health test turn")[-1]["result"], "the health test scene")

    def ctx(evs):
        u = [e for e in evs if e.get("type") == "assistant"][-1]["message"]["usage"]
        return sum(u[k] for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    check(ctx(second) > ctx(first), "context grows in a session: %d then %d" % (ctx(first), ctx(second)))
    # Codex: the same across a resumed thread.
    evs = ok(codex(E, "Look at the project layout and suggest which tests to write first.",
                   BATON_SHIM_DEMO="1"), "codex layout")
    tid = evs[0]["thread_id"]
    evs2 = ok(codex(E, "Write the invoices tests first", resume=tid, BATON_SHIM_DEMO="1"), "codex invoices")
    check("invoices" in [e for e in evs2 if e.get("type") == "item.completed"][-1]["item"]["text"],
          "codex's invoices scene")
    sizes = [((r.get("payload") or {}).get("info") or {}).get("last_token_usage", {}).get("total_tokens")
             for r in read_jsonl(rollouts(E)[0])
             if r.get("type") == "event_msg" and (r.get("payload") or {}).get("type") == "token_count"]
    sizes = [n for n in sizes if n]
    check(len(sizes) >= 4 and sizes == sorted(sizes), "codex's context grows call by call: %s" % sizes)


@test
def codex_resume_cumulative(E):
    evs = ok(codex(E, "turn one", "-c", "developer_instructions=DEVONE first"), "turn 1")
    tid = evs[0]["thread_id"]
    evs2 = ok(codex(E, "turn two [[ctx:12345]]", "-c", "developer_instructions=\"dev2\"", resume=tid), "turn 2")
    eq(evs2[0]["thread_id"], tid, "same thread")
    check(evs2[3]["item"]["text"].startswith("MOCK-REPLY #2 "), "reply counter continues")
    files = rollouts(E)
    eq(len(files), 1, "resume appends to the same rollout")
    rows = read_jsonl(files[0])
    tc = [x["payload"]["info"] for x in rows if x["payload"].get("type") == "token_count"]
    eq(tc[-1]["last_token_usage"]["total_tokens"], 12345, "[[ctx]] after resume")
    eq(tc[-1]["total_token_usage"]["total_tokens"], tc[0]["total_token_usage"]["total_tokens"] + 12345,
       "total is cumulative")
    u = evs2[-1]["usage"]
    eq(u["input_tokens"], tc[-1]["total_token_usage"]["input_tokens"], "turn.completed usage is thread-cumulative")
    real = cap_jsonl(CX, "rollout-3-turns-resumed.jsonl")

    def second_turn(rs):
        first_done = [i for i, x in enumerate(rs) if x["payload"].get("type") == "task_complete"][0]
        return [x["type"] + "/" + str(x["payload"].get("type")) for x in rs[first_done + 1:first_done + 6]]

    eq(second_turn(rows), second_turn(real), "resumed-turn entry order")
    devs = [x for x in rows if x["payload"].get("role") == "developer"]
    eq(len(devs), 1, "one developer message")
    eq(devs[0]["payload"]["content"][0]["text"], "DEVONE first", "developer_instructions stored at creation")
    check("dev2" not in json.dumps([x for x in rows if x["payload"].get("role") != "user"]), "ignored on resume")
    ords = [x["ordinal"] for x in rows]
    eq(ords, list(range(len(rows))), "ordinals")


@test
def codex_resume_errors(E):
    r = codex(E, "x", resume=MISSING)
    eq(r.rc, 1, "rc")
    eq(r.out, "", "stdout")
    want = cap_text(CX, "resume-nonexistent-uuid.stderr.txt").replace(
        'AbsolutePathBuf("/home/dev/.codex")', 'AbsolutePathBuf("%s")' % E.codex_home)
    eq(r.err, want, "stderr")
    r = codex(E, "named", resume="not-a-uuid")
    evs = ok(r, "non-UUID resume")
    check(evs[0]["thread_id"] != "not-a-uuid", "new thread")
    eq(len(rollouts(E)), 1, "non-UUID resume starts a new thread")
    r = run(E, CODEX, EXEC + ["resume", "--sandbox", "workspace-write", MISSING], stdin="x")
    eq(r.rc, 2, "--sandbox after resume rc")
    check("error: unexpected argument '--sandbox' found" in r.err and "Usage: codex exec resume" in r.err,
          "--sandbox after resume: %r" % r.err)
    eq(r.out, "", "stdout")
    r = run(E, CODEX, EXEC + ["resume", MISSING, "-C", E.proj2], stdin="x")
    eq(r.rc, 2, "-C after resume rc")
    check("unexpected argument '-C' found" in r.err, "-C after resume: %r" % r.err)


@test
def codex_fail_api(E):
    r = codex(E, "boom [[fail:api]]")
    eq(r.rc, 1, "rc")
    want = cap_jsonl(CX, "exec-json-FAIL400.stdout.jsonl")
    evs = r.events()
    same_events(evs, want, "exec-json-FAIL400")
    eq(evs[3:], want[3:], "error / turn.failed events")


@test
def codex_sigint_hang(E):
    p = subprocess.Popen([CODEX] + EXEC, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=E.proj, env=E.env())
    p.stdin.write(b"SLOW please INT [[hang]]")
    p.stdin.close()
    got = []
    for _ in range(3):
        got.append(json.loads(p.stdout.readline()))
    time.sleep(0.2)
    check(p.poll() is None, "hang: exited before a signal")
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=3)
    except subprocess.TimeoutExpired:
        p.kill()
        raise CheckFailed("SIGINT during [[hang]]: still running after 3 s")
    got += [json.loads(l) for l in p.stdout.read().decode().splitlines() if l.strip()]
    p.stdout.close()
    p.stderr.close()
    eq(rc, 1, "codex rc on SIGINT")
    check(time.monotonic() - t0 < 1.5, "SIGINT: slow exit")
    # The capture was interrupted before any answer; the shim streams one partial message
    # first (so tests can check it is kept), then the same end: no turn.completed.
    eq(got[3]["item"]["type"], "agent_message", "partial answer before the hang")
    same_events(got[:3], cap_jsonl(CX, "exec-json-sigint.stdout.jsonl"), "exec-json-sigint")
    check(all(e["type"] not in ("turn.completed", "turn.failed") for e in got), "no turn end after SIGINT")
    rows = read_jsonl(rollouts(E)[0])
    real = cap_jsonl(CX, "rollout-sigint-aborted.jsonl")
    eq(rows[-1]["payload"]["type"], "turn_aborted", "rollout ends with turn_aborted")
    same_shape(rows[-1], real[-1], "turn_aborted entry")
    same_shape(rows[-2], real[-2], "turn_aborted user message")
    eq(rows[-2]["payload"]["content"], real[-2]["payload"]["content"], "turn_aborted text")


@test
def codex_misc(E):
    ok(codex(E, "no file", "--ephemeral"), "ephemeral")
    eq(rollouts(E), [], "--ephemeral writes no rollout")
    extra = os.path.join(E.base, "shots")
    evs = ok(run(E, CODEX, ["exec", "--json", "--skip-git-repo-check", "-m", "gpt-test", "--sandbox",
                            "workspace-write", "--add-dir", extra, "-c",
                            "sandbox_workspace_write.exclude_slash_tmp=true", "-c",
                            "sandbox_workspace_write.exclude_tmpdir_env_var=true", "-"],
                 stdin="fenced [[write:made-by-codex.txt]] [[reply:done.]]"), "options")
    eq(evs[-2]["item"]["text"], "done.", "[[reply]]")
    with open(os.path.join(E.proj, "made-by-codex.txt")) as f:
        eq(f.read(), "written by shim\n", "[[write]]")
    rows = read_jsonl(rollouts(E)[0])
    tcx = [x["payload"] for x in rows if x["type"] == "turn_context"][0]
    eq(tcx["model"], "gpt-test", "turn_context.model")
    eq(tcx["sandbox_policy"], {"type": "workspace-write", "writable_roots": [extra], "network_access": False,
                               "exclude_tmpdir_env_var": True, "exclude_slash_tmp": True}, "sandbox_policy")
    r = codex(E, "[[garbage]]")
    eq(r.rc, 0, "garbage rc")
    check(r.out and all(not l.startswith('{"type":"turn') for l in r.out.splitlines()), "garbage")
    r = codex(E, "[[die]]")
    eq(r.rc, 3, "die rc")
    eq(kinds(r.events()), ["thread.started", "item.completed/error", "turn.started"], "die events")
    r = run(E, CODEX, ["exec", "--json", "positional prompt"], stdin="")
    eq(r.rc, 1, "outside a git repo without --skip-git-repo-check")
    r = run(E, CODEX, EXEC + ["positional prompt"], stdin="piped")
    evs = ok(r, "positional + stdin")
    check("<stdin>\npiped\n</stdin>" in rows_text(E, evs[0]["thread_id"]), "stdin appended as a <stdin> block")
    check("Reading additional input from stdin...\n" in r.err, "additional input note")
    r = run(E, CODEX, ["exec", "--json", "--skip-git-repo-check", "--sandbox", "bogus"], stdin="x")
    eq(r.rc, 2, "invalid --sandbox value")


def rows_text(E, tid):
    """The texts of a thread's response_items, joined."""
    for f in rollouts(E):
        if tid in f:
            return "\n".join(c.get("text", "") for x in read_jsonl(f) if x["type"] == "response_item"
                             for c in x["payload"].get("content") or [])
    return ""


# --------------------------------------------------------------------------

# ---- codex fork / app-server (fixtures/captures/fork/codex/, see its README)

CODEX_FORK = os.path.join(CAP, "fork", "codex")
DEV_B = "You work in the checkout /CHECKOUT-B. (baton system text B)"


def fork_cap_rows(name_part):
    """The captured rollout whose file name contains name_part."""
    for fn in sorted(os.listdir(CODEX_FORK)):
        if fn.startswith("rollout-") and name_part in fn:
            return cap_jsonl(CODEX_FORK, fn)
    raise CheckFailed("no captured rollout %s" % name_part)


def fork_ids():
    return json.loads(cap_text(CODEX_FORK, "ids.json"))


def history_rows_ref(E, tid):
    """A thread's history rows, a fork's history_base followed (independent of the shim's code)."""
    path = [f for f in rollouts(E) if f.endswith("-%s.jsonl" % tid)]
    check(len(path) == 1, "one rollout for %s: %s" % (tid, path))
    rows = read_jsonl(path[0])
    base = rows[0]["payload"].get("history_base")
    if not base:
        return rows
    return [r for r in history_rows_ref(E, base["thread_id"]) if r["ordinal"] < base["end_ordinal_exclusive"]] + rows


def visible(rows, role):
    return [x["payload"]["content"][0]["text"] for x in rows if x["type"] == "response_item"
            and x["payload"].get("role") == role and not x["payload"]["content"][0]["text"].startswith("<environment")]


def three_turns(E):
    tid = ok(codex(E, "first prompt ONE", "-c", "developer_instructions=\"DEV A\""), "turn 1")[0]["thread_id"]
    for p in ("second prompt TWO", "third prompt THREE"):
        ok(codex(E, p, resume=tid), p)
    return tid


@test
def codex_exec_fork(E):
    orig = three_turns(E)
    before = read_jsonl(rollouts(E)[0])
    r = run(E, CODEX, EXEC + ["-c", "developer_instructions=" + json.dumps(DEV_B), "fork", orig, "-"],
            stdin="fork prompt FOUR", cwd=E.proj2)
    evs = ok(r, "exec fork")
    same_events(evs, cap_jsonl(CODEX_FORK, "a2-fork.stdout.jsonl"), "a2-fork")
    fork = evs[0]["thread_id"]
    check(fork != orig, "a new thread id")
    eq(r.err, codex_warning(E), "stderr (with `-`: no reading note)")
    eq(len(rollouts(E)), 2, "the fork has its own rollout")
    real = fork_cap_rows(fork_ids()["fork"])
    rows = read_jsonl([f for f in rollouts(E) if fork in f][0])
    same_shape(rows[0], real[0], "fork session_meta")
    meta = rows[0]["payload"]
    eq((meta["forked_from_id"], meta["cwd"], meta["source"]), (orig, E.proj2, "exec"), "session_meta values")
    eq(meta["forked_from_ordinal_exclusive"], before[-1]["ordinal"] + 1, "cut after the original's last row")
    eq(meta["history_base"]["end_ordinal_exclusive"], meta["forked_from_ordinal_exclusive"], "history_base")
    eq(rows[0]["ordinal"], meta["forked_from_ordinal_exclusive"], "ordinals go on")

    def kind(x):
        return x["type"] + "/" + str(x["payload"].get("type"))

    eq([kind(x) for x in rows[:8]], [kind(x) for x in real[:8]], "the fork's first rows")
    check(not any(x["type"] == "response_item" and x["payload"].get("role") == "assistant" and "ONE" in json.dumps(x)
                  for x in rows), "nothing of the original is copied")
    hist = history_rows_ref(E, fork)
    eq(visible(hist, "user"), ["first prompt ONE", "second prompt TWO", "third prompt THREE", "fork prompt FOUR"],
       "the fork's history")
    eq(visible(hist, "developer"), ["DEV A"], "the original's developer message, once")
    check(DEV_B not in json.dumps(rows), "-c developer_instructions is ignored by a fork")
    envs = [x["payload"]["content"][0]["text"] for x in hist if x["type"] == "response_item"
            and x["payload"]["content"][0]["text"].startswith("<environment_context>")]
    eq([("<cwd>%s</cwd>" % E.proj) in envs[0], ("<cwd>%s</cwd>" % E.proj2) in envs[-1], len(envs)],
       [True, True, 2], "a second environment context names the fork's cwd")
    check(evs[3]["item"]["text"].startswith("MOCK-REPLY #4 "), "the fork counts the original's calls")
    ok(codex(E, "fork second FIVE", resume=fork, cwd=E.proj2), "resume the fork")
    eq(read_jsonl([f for f in rollouts(E) if orig in f][0]), before, "the original is untouched")
    eq(visible(history_rows_ref(E, fork), "user")[-1], "fork second FIVE", "resume appends to the fork")


@test
def codex_exec_fork_errors(E):
    orig = three_turns(E)
    for args, name in ((["fork", MISSING, "-"], "a5-fork-missing"), (["fork", "not-a-uuid", "-"], "a6-fork-notuuid"),
                       (["fork", orig], "a7-fork-noprompt")):
        r = run(E, CODEX, EXEC + args, stdin="x" if "-" in args else "", cwd=E.proj2)
        want_err = cap_text(CODEX_FORK, name + ".stderr.txt").replace(
            'AbsolutePathBuf("/tmp/codexfork-a/codex-home")', 'AbsolutePathBuf("%s")' % E.codex_home)
        eq(r.rc, int(cap_text(CODEX_FORK, name + ".rc")), name + " rc")
        eq(r.err, want_err, name + " stderr")
        if name == "a7-fork-noprompt":
            same_events(r.events(), cap_jsonl(CODEX_FORK, name + ".stdout.jsonl"), name)
            rows = read_jsonl([f for f in rollouts(E) if r.events()[0]["thread_id"] in f][0])
            eq([x["type"] for x in rows], ["session_meta", "event_msg"], "a fork without a prompt: two rows")
        else:
            eq(r.out, "", name + " stdout")
    eq(len(rollouts(E)), 2, "only the prompt-less fork wrote a rollout")


def rpc_cap(name):
    """A captured app-server session: the answers and notifications it printed, by request id."""
    sent, printed = [], []
    for l in cap_text(CODEX_FORK, name).splitlines():
        if l.startswith(">> "):
            sent.append(json.loads(l[3:]))
        elif l.startswith("<< "):
            printed.append(json.loads(l[3:]))
    return sent, printed


def cap_answer(name, rid):
    return [m for m in rpc_cap(name)[1] if m.get("id") == rid and "method" not in m][0]


class AppRpc:
    def __init__(self, E, cwd):
        self.p = subprocess.Popen([CODEX, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=cwd, env=E.env())
        self.n = 0
        self.notes = []

    def send(self, obj):
        self.p.stdin.write((json.dumps(obj) + "\n").encode())
        self.p.stdin.flush()

    def call(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            check(line, "app-server closed stdout before answering %s" % method)
            msg = json.loads(line)
            if msg.get("id") == self.n and "method" not in msg:
                return msg
            self.notes.append(msg)

    def close(self):
        self.p.stdin.close()
        rest = [json.loads(l) for l in self.p.stdout.read().decode().splitlines() if l.strip()]
        rc = self.p.wait(10)
        self.p.stdout.close()
        self.p.stderr.close()
        return rc, rest


@test
def codex_app_server_fork(E):
    orig = three_turns(E)
    a = AppRpc(E, E.proj2)
    eq(a.call("thread/turns/list", {"threadId": orig}), {"error": {"code": -32600, "message": "Not initialized"},
                                                         "id": 1}, "before initialize (b6)")
    init = a.call("initialize", {"clientInfo": {"name": "baton", "version": "0.0.0"}})
    same_shape(init, cap_answer("c1-fork-inject.rpc.txt", 1), "initialize")
    eq(init["result"]["codexHome"], E.codex_home, "codexHome")
    a.send({"jsonrpc": "2.0", "method": "initialized"})
    listed = a.call("thread/turns/list", {"threadId": orig, "sortDirection": "asc"})
    want = cap_answer("c1-fork-inject.rpc.txt", 2)
    same_shape(listed, want, "thread/turns/list")
    turns = listed["result"]["data"]
    eq([t["items"][0]["content"][0]["text"] for t in turns],
       ["first prompt ONE", "second prompt TWO", "third prompt THREE"], "turns oldest first")
    same_shape(turns[0]["items"][1], want["result"]["data"][0]["items"][1], "agentMessage item")
    desc = a.call("thread/turns/list", {"threadId": orig})["result"]["data"]
    eq([t["id"] for t in desc], [t["id"] for t in reversed(turns)], "newest first by default")
    fk = a.call("thread/fork", {"threadId": orig, "cwd": E.proj2, "excludeTurns": True,
                                "developerInstructions": DEV_B, "lastTurnId": turns[1]["id"]})
    same_shape(fk, cap_answer("c1-fork-inject.rpc.txt", 3), "thread/fork")
    fork = fk["result"]["thread"]["id"]
    eq((fk["result"]["thread"]["forkedFromId"], fk["result"]["cwd"]), (orig, E.proj2), "fork answer values")
    eq(os.path.exists(fk["result"]["thread"]["path"]), True, "thread.path is the rollout, on disk")
    inj = a.call("thread/inject_items", {"threadId": fork, "items": [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "NEW CHECKOUT"}]}]})
    eq(inj["result"], {}, "thread/inject_items")
    started = [m for m in a.notes if m.get("method") == "thread/started"]
    want_started = [m for m in rpc_cap("c1-fork-inject.rpc.txt")[1] if m.get("method") == "thread/started"][0]
    check(started, "a thread/started notification after the fork")
    same_shape(started[0], want_started, "thread/started")
    kept = a.call("thread/turns/list", {"threadId": fork, "sortDirection": "asc"})["result"]["data"]
    eq([t["id"] for t in kept], [t["id"] for t in turns[:2]], "the fork lists the kept turns, same ids")
    rc, rest = a.close()
    eq(rc, 0, "app-server exits at EOF with rc 0")
    rows = read_jsonl(fk["result"]["thread"]["path"])
    real = fork_cap_rows(fork_ids()["c1"])
    same_shape(rows[0], real[0], "app-server fork session_meta")
    eq(rows[0]["payload"]["source"], "vscode", "source")
    orig_rows = read_jsonl([f for f in rollouts(E) if orig in f][0])
    done2 = [x["ordinal"] for x in orig_rows if x["payload"].get("type") == "task_complete"][1]
    eq(rows[0]["payload"]["forked_from_ordinal_exclusive"], done2 + 1, "cut after turn 2's task_complete (lastTurnId)")
    same_shape(rows[-1], real[2], "the injected developer message")
    check(DEV_B not in json.dumps(rows), "developerInstructions is ignored by a fork")
    evs = ok(codex(E, "after inject TWELVE", resume=fork, cwd=E.proj2), "exec resume of the fork")
    check(evs[3]["item"]["text"].startswith("MOCK-REPLY #3 "), "the fork goes on from the kept calls")
    hist = history_rows_ref(E, fork)
    eq(visible(hist, "user"), ["first prompt ONE", "second prompt TWO", "after inject TWELVE"], "kept turns only")
    eq(visible(hist, "developer"), ["DEV A", "NEW CHECKOUT"], "the injected message after the original's")


@test
def codex_app_server_errors(E):
    orig = three_turns(E)
    a = AppRpc(E, E.proj2)
    a.call("initialize", {"clientInfo": {"name": "baton", "version": "0.0.0"}})
    a.send({"jsonrpc": "2.0", "method": "initialized"})
    sent, _ = rpc_cap("b5-errors.rpc.txt")
    for req in sent:
        if "id" not in req or req["method"] == "initialize":
            continue
        params = json.loads(json.dumps(req["params"]).replace(fork_ids()["orig"], orig).replace(
            "/tmp/codexfork-a/checkout-b", E.proj2))
        if req["method"] == "thread/revert":
            continue  # not emulated: baton's fork never reverts (see the README)
        got = a.call(req["method"], params)
        want = cap_answer("b5-errors.rpc.txt", req["id"])
        if "error" in want:
            eq(got, {"error": want["error"], "id": got["id"]}, "%s %s" % (req["method"], req["params"]))
        else:
            same_shape(got, want, "%s %s" % (req["method"], req["params"]))
    dep = [m for m in a.notes if m.get("method") == "deprecationNotice"]
    eq(len(dep), 1, "a fork without excludeTurns gets the deprecation notice")
    got = a.call("thread/inject_items", {"threadId": MISSING, "items": []})
    eq(got["error"], cap_answer("c3-inject-unloaded.rpc.txt", 3)["error"], "inject into an unknown thread (c3)")
    rc, _ = a.close()
    eq(rc, 0, "rc")
    # A thread another process forked is not loaded here (c3).
    fork = [f for f in rollouts(E) if orig not in f][0][-len(MISSING + ".jsonl"):-len(".jsonl")]
    b = AppRpc(E, E.proj2)
    b.call("initialize", {"clientInfo": {"name": "baton", "version": "0.0.0"}})
    got = b.call("thread/inject_items", {"threadId": fork, "items": []})
    eq(got["error"], {"code": -32600, "message": "thread not found: %s" % fork}, "inject into an unloaded thread")
    b.close()

# ---- end of codex fork / app-server

# --------------------------------------------------------------------------
# codex app-server warm turns (fixtures/captures/codex-warm/, its README has the facts)

CODEX_WARM = os.environ.get("SHIMS_CHECK_CODEX_WARM") or os.path.join(CAP, "codex-warm")


class Skipped(Exception):
    pass


def warm_cap(name, ext="stdout.jsonl"):
    if not os.path.isdir(CODEX_WARM):
        raise Skipped("no %s" % CODEX_WARM)
    return cap_jsonl(CODEX_WARM, "%s.%s" % (name, ext))


def warm_cap_rollout(name):
    """The rollout of the thread a captured app-server session resumed."""
    tid = [m for m in warm_cap(name, "sent.jsonl") if m.get("method") == "thread/resume"][0]["params"]["threadId"]
    return cap_jsonl(CODEX_WARM, [f for f in os.listdir(CODEX_WARM) if f.endswith(tid + ".jsonl")][0])


def warm_cap_turn(name, rid):
    """What a captured session printed from the answer to request `rid` (a turn/start) through the
    turn/completed of that turn."""
    msgs = warm_cap(name)
    start = [k for k, m in enumerate(msgs) if m.get("id") == rid and "method" not in m][0]
    turn = msgs[start]["result"]["turn"]["id"]
    end = [k for k, m in enumerate(msgs) if k > start and m.get("method") == "turn/completed"
           and m["params"]["turn"]["id"] == turn][0]
    return msgs[start:end + 1]


def warm_seq(msgs, drop=("configWarning",)):
    """The kinds of app-server lines, runs of deltas collapsed: RESP / ERR for answers."""
    out = []
    for m in msgs:
        k = m.get("method") or ("ERR" if "error" in m else "RESP")
        if k in drop:
            continue
        if k in ("item/started", "item/completed"):
            k += "/" + m["params"]["item"]["type"]
        if k == "item/agentMessage/delta" and out and out[-1] == k:
            continue
        out.append(k)
    return out


def same_warm_lines(got, want, what, drop=("configWarning",)):
    """The same kinds in the same order, and each kind's first line of the same shape."""
    eq(warm_seq(got, drop), warm_seq(want, drop), what + " sequence")
    firsts = {}
    for m in want:
        firsts.setdefault(warm_seq([m], ())[0], m)
    for m in got:
        k = warm_seq([m], ())[0]
        if k in firsts:
            same_shape(m, firsts.pop(k), "%s %s" % (what, k))


def row_kinds(rows):
    out = []
    for r in rows:
        p = r.get("payload") or {}
        k = r["type"] if r["type"] not in ("event_msg", "response_item") else p.get("type")
        if p.get("role"):
            k += "/" + p["role"]
        out.append(k)
    return out


def after_first_turn(rows):
    """The rows after a thread's first (cold) turn: what the warm session wrote."""
    end = [k for k, r in enumerate(rows) if (r.get("payload") or {}).get("type") == "task_complete"][0]
    return rows[end + 1:]


WARM_PROMPT_ARGS = ["--sandbox", "workspace-write", "-c", "sandbox_workspace_write.exclude_slash_tmp=true",
                    "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true"]


def same_warm_rows(E, tid, name):
    """The rows the warm session wrote have the kinds and shapes of the captured session's; returns them."""
    rows, real = after_first_turn(thread_rollout(E, tid)), after_first_turn(warm_cap_rollout(name))
    eq(row_kinds(rows), row_kinds(real), "the rollout rows of %s" % name)
    for k, (g, want) in enumerate(zip(rows, real)):
        same_shape(g, want, "%s rollout row %d (%s)" % (name, k, row_kinds([want])[0]))
    return rows


class Warm:
    """`codex app-server` driven as baton drives it (codex-warm README): stdout read by a thread."""

    def __init__(self, E, args=None, **envx):
        import queue
        import threading
        self.E = E
        self.shots = os.path.join(E.base, "shots")
        os.makedirs(self.shots, exist_ok=True)
        self.args = args if args is not None else [
            "-c", 'sandbox_mode="workspace-write"', "-c", "sandbox_workspace_write.writable_roots=[%s]"
            % json.dumps(self.shots), "-c", "sandbox_workspace_write.exclude_slash_tmp=true", "-c",
            "sandbox_workspace_write.exclude_tmpdir_env_var=true"]
        self.p = subprocess.Popen([CODEX, "app-server"] + self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=E.proj, env=E.env(**envx))
        self.q = queue.Queue()
        self.n = 0
        self.seen = []

        def pump():
            for line in self.p.stdout:
                self.q.put(line)
            self.q.put(None)
        threading.Thread(target=pump, daemon=True).start()

    def send(self, obj):
        self.p.stdin.write((json.dumps(obj) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        return self.n

    def until(self, pred, timeout=10):
        """Lines up to and including the first that pred accepts."""
        import queue
        got, deadline = [], time.monotonic() + timeout
        while True:
            try:
                line = self.q.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise CheckFailed("app-server: nothing matched in %ss; last lines %s" % (timeout, got[-3:]))
            check(line is not None, "app-server closed stdout; last lines %s" % got[-3:])
            msg = json.loads(line)
            got.append(msg)
            self.seen.append(msg)
            if pred(msg):
                return got

    def answer(self, rid, timeout=10):
        return self.until(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def call(self, method, params):
        return self.answer(self.request(method, params))[-1]

    def open(self, tid):
        """initialize, initialized, thread/resume; the lines from the resume request on."""
        self.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
        self.send({"jsonrpc": "2.0", "method": "initialized"})
        rid = self.request("thread/resume", {"threadId": tid, "cwd": self.E.proj, "model": "gpt-5.5",
                                             "approvalPolicy": "never", "sandbox": "workspace-write",
                                             "excludeTurns": True})
        lines = self.answer(rid)
        if "result" in lines[-1]:  # the thread's usage and (the first time) its goal cleared follow
            lines += self.until(lambda m: m.get("method") == "thread/goal/cleared")
        self.tid = tid
        return lines

    def start_turn(self, prompt, policy="never"):
        return self.request("turn/start", {
            "threadId": self.tid, "input": [{"type": "text", "text": prompt, "text_elements": []}],
            "cwd": self.E.proj, "model": "gpt-5.5", "approvalPolicy": policy,
            "sandboxPolicy": {"type": "workspaceWrite", "writableRoots": [self.shots], "networkAccess": False,
                              "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}})

    def turn_end(self, timeout=10):
        return self.until(lambda m: m.get("method") == "turn/completed", timeout)

    def turn(self, prompt):
        self.start_turn(prompt)
        return self.turn_end()

    def steer(self, text, turn):
        return self.call("turn/steer", {"threadId": self.tid, "input": [{"type": "text", "text": text,
                                                                          "text_elements": []}],
                                        "expectedTurnId": turn})

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(10)
        self.p.stderr.close()
        return rc


def cold_thread(E, prompt="open the thread [[reply:thread opened]]"):
    return ok(codex(E, prompt, "-m", "gpt-5.5", *WARM_PROMPT_ARGS), "cold create")[0]["thread_id"]


def thread_rollout(E, tid):
    return read_jsonl([f for f in rollouts(E) if f.endswith(tid + ".jsonl")][0])


def last_count(rows):
    return [r["payload"]["info"] for r in rows if (r.get("payload") or {}).get("type") == "token_count"][-1]


def turn_id_of(lines):
    return [m for m in lines if "result" in m and "turn" in m["result"]][0]["result"]["turn"]["id"]


def fake_git(d, sha="565bcad424f3d787e1171076d5222b35ada387ff"):
    """A checkout's .git as far as thread.gitInfo reads it (HEAD on master)."""
    os.makedirs(os.path.join(d, ".git", "refs", "heads"))
    with open(os.path.join(d, ".git", "HEAD"), "w") as f:
        f.write("ref: refs/heads/master\n")
    with open(os.path.join(d, ".git", "refs", "heads", "master"), "w") as f:
        f.write(sha + "\n")


@test
def codex_app_server_warm_turns(E):
    fake_git(E.proj)
    tid = cold_thread(E)
    w = Warm(E)
    opened = w.open(tid)
    cap = warm_cap("w1-plain")
    want_open = cap[[k for k, m in enumerate(cap) if m.get("method") == "thread/status/changed"][0]:
                    [k for k, m in enumerate(cap) if m.get("method") == "thread/goal/cleared"][0] + 1]
    same_warm_lines(opened, want_open, "thread/resume", drop=("configWarning", "remoteControl/status/changed"))
    res = [m for m in opened if "result" in m][0]["result"]
    eq((res["cwd"], res["runtimeWorkspaceRoots"], res["sandbox"]["writableRoots"]),
       (E.proj, [E.proj, w.shots], [w.shots]), "resume: cwd, roots, sandbox from the -c overrides")
    eq(res["thread"]["gitInfo"], {"sha": "565bcad424f3d787e1171076d5222b35ada387ff", "branch": "master",
                                  "originUrl": None}, "thread.gitInfo")
    eq(os.path.realpath(res["thread"]["path"]), os.path.realpath([f for f in rollouts(E) if tid in f][0]),
       "thread.path")
    got = w.turn("first warm turn [[reply:the first warm answer, streamed in forty pieces so the deltas show]]")
    same_warm_lines(got, warm_cap_turn("w1-plain", 3), "warm turn 1")
    deltas = "".join(m["params"]["delta"] for m in got if m.get("method") == "item/agentMessage/delta")
    eq(deltas, "the first warm answer, streamed in forty pieces so the deltas show", "the deltas make the answer")
    got2 = w.turn("second warm turn [[ctx:7777]] [[window:90000]]")
    same_warm_lines(got2, warm_cap_turn("w1-plain", 4), "warm turn 2")
    usage = [m for m in got2 if m.get("method") == "thread/tokenUsage/updated"][-1]["params"]["tokenUsage"]
    info = last_count(thread_rollout(E, tid))
    eq((usage["last"]["totalTokens"], usage["modelContextWindow"]),
       (info["last_token_usage"]["total_tokens"], info["model_context_window"]), "tokenUsage = the rollout's")
    eq((usage["last"]["totalTokens"], usage["modelContextWindow"]), (7777, 90000), "[[ctx:N]] [[window:W]]")
    done = got2[-1]["params"]["turn"]
    check(done["items"][0]["text"].startswith("MOCK-REPLY #3 model=gpt-5.5 last_user=second warm turn"),
          "the reply counter goes on: %r" % done["items"][0]["text"])
    eq(w.close(), 0, "EOF when idle: rc 0")
    rows = same_warm_rows(E, tid, "w1-plain")
    eq([r["payload"]["turn_attribution"]["turn_trigger"] for r in rows if r["payload"].get("type") == "task_started"],
       [None, None], "a warm turn's trigger")
    evs = ok(codex(E, "cold after warm", resume=tid), "exec resume after the warm turns")
    check(evs[3]["item"]["text"].startswith("MOCK-REPLY #4 "), "a cold turn counts the warm calls")
    eq(visible(history_rows_ref(E, tid), "user"), [
        "open the thread [[reply:thread opened]]",
        "first warm turn [[reply:the first warm answer, streamed in forty pieces so the deltas show]]",
        "second warm turn [[ctx:7777]] [[window:90000]]", "cold after warm"], "the thread holds every turn")
    recs = [r for r in log_records(E) if r["argv"][:1] == ["app-server"]]
    eq([(r.get("turn"), r["stdin"][:16]) for r in recs], [(None, ""), (0, "first warm turn "), (1, "second warm turn")],
       "BATON_SHIM_LOG: the server, then each turn")
    eq(len({r["pid"] for r in recs}), 1, "one process")
    eq(recs[1]["params"]["sandboxPolicy"]["writableRoots"], [w.shots], "the turn's params are logged")


@test
def codex_app_server_tool_items(E):
    tid = cold_thread(E)
    w = Warm(E)
    w.open(tid)
    got = w.turn("run a command [[calls:2]] [[reply:ran it]]")
    same_warm_lines(got, warm_cap_turn("w2-tools", 3), "a turn with a command",
                    drop=("configWarning", "item/commandExecution/outputDelta"))
    cmd = [m for m in got if m.get("method") == "item/completed"][1]["params"]["item"]
    eq((cmd["status"], cmd["exitCode"], cmd["cwd"], cmd["commandActions"][0]["command"]),
       ("completed", 0, E.proj, "echo shim-tool-call-2 && pwd"), "commandExecution")
    got = w.turn("write and edit [[tool:Write:new.txt]] [[tool:Edit:README]] [[tool:Bash:ls]]")
    want = warm_cap_turn("w2-tools", 4) + warm_cap_turn("w2-tools", 5)
    for kind in ("item/started/fileChange", "item/completed/fileChange", "turn/diff/updated"):
        g = [m for m in got if warm_seq([m], ())[0] == kind]
        wm = [m for m in want if warm_seq([m], ())[0] == kind]
        check(g, "no %s" % kind)
        same_shape(g[0], wm[0], kind)
        if kind == "item/completed/fileChange":
            eq([c["kind"]["type"] for m in g for c in m["params"]["item"]["changes"]], ["add", "update"],
               "a Write adds, an Edit updates")
    eq(w.close(), 0, "rc")


def held(w, prompt, path, kind="item/agentMessage/delta"):
    """Starts a turn held by [[hold:PATH]]; returns its lines up to the first of `kind`, and its id."""
    rid = w.start_turn("%s [[hold:%s]]" % (prompt, path))
    lines = w.until(lambda m: warm_seq([m], ())[0] == kind)
    return lines, [m for m in lines if m.get("id") == rid][0]["result"]["turn"]["id"]


@test
def codex_app_server_interrupt(E):
    tid = cold_thread(E)
    w = Warm(E)
    w.open(tid)
    lines, turn = held(w, "slow", "never")
    rid = w.request("turn/interrupt", {"threadId": tid, "turnId": turn})
    lines += w.turn_end()
    same_warm_lines(lines, warm_cap_turn("w4-interrupt", 3), "interrupted turn")
    eq([m for m in lines if m.get("id") == rid][0]["result"], {}, "turn/interrupt's answer")
    done = lines[-1]["params"]["turn"]
    eq((done["status"], done["items"], done["error"]), ("interrupted", [], None), "turn/completed")
    eq(row_kinds(thread_rollout(E, tid))[-3:], ["token_count", "message/user", "turn_aborted"], "the rollout's end")
    real = row_kinds(warm_cap_rollout("w4-interrupt"))
    eq(row_kinds(thread_rollout(E, tid))[-3:], real[real.index("turn_aborted") - 2:real.index("turn_aborted") + 1],
       "as the real one's")
    again = w.turn("after the interrupt [[reply:next turn works]]")
    same_warm_lines(again, warm_cap_turn("w4-interrupt", 5), "the next turn")
    eq(w.close(), 0, "rc")
    same_warm_rows(E, tid, "w4-interrupt")
    evs = ok(codex(E, "cold", resume=tid), "exec resume after an interrupt")
    check("turn_aborted" in json.dumps(thread_rollout(E, tid)), "aborted turn in the thread")


@test
def codex_app_server_steer(E):
    tid = cold_thread(E)
    w = Warm(E)
    w.open(tid)
    lines, turn = held(w, "slow one", "never")
    ans = w.steer("STEER-ONE also say banana", turn)
    eq(ans["result"], {"turnId": turn}, "turn/steer's answer")
    lines += [ans] + w.turn_end()
    same_warm_lines(lines, warm_cap_turn("w5-steer", 3), "a steer into a streaming answer")
    done = lines[-1]["params"]["turn"]
    eq(len(done["items"]), 1, "turn/completed holds only the new answer")
    check(done["items"][0]["text"].endswith("last_user=STEER-ONE also say banana"), "answers the steer")
    lines, turn = held(w, "tool one [[calls:2]]", "go", "item/started/commandExecution")
    ans = w.steer("STEER-TWO during the command", turn)
    open(os.path.join(E.proj, "go"), "w").close()
    lines += [ans] + w.turn_end()
    same_warm_lines(lines, warm_cap_turn("w5-steer", 5), "a steer while a command runs")
    check(lines[-1]["params"]["turn"]["items"][0]["text"].endswith("last_user=STEER-TWO during the command"),
          "the answer after the command names the steer")
    real = {m["id"]: m for m in warm_cap("w5-steer") if "error" in m}
    lines, turn = held(w, "slow two", "go2")
    wrong = w.steer("STEER-WRONG", "not-the-turn")
    eq(wrong["error"], {"code": -32600, "message": real[8]["error"]["message"].replace(
        real[8]["error"]["message"].rsplit("`", 2)[1], turn)}, "wrong expectedTurnId")
    open(os.path.join(E.proj, "go2"), "w").close()
    w.turn_end()
    eq(w.steer("STEER-IDLE", turn)["error"], real[9]["error"], "no active turn")
    eq(w.call("turn/steer", {"threadId": tid, "input": []})["error"], real[10]["error"], "no expectedTurnId")
    eq(w.close(), 0, "rc")
    same_warm_rows(E, tid, "w5-steer")


@test
def codex_app_server_turn_start_while_active(E):
    tid = cold_thread(E)
    w = Warm(E)
    w.open(tid)
    lines, turn = held(w, "slow", "never")
    rid = w.start_turn("SECOND-WHILE-ACTIVE [[reply:second]]")
    lines += w.turn_end()
    eq([m for m in lines if m.get("id") == rid][0]["result"]["turn"]["id"], turn, "the answer names the active turn")
    same_warm_lines(lines, warm_cap_turn("w12-extra", 3), "turn/start while a turn runs")
    lines, turn = held(w, "cmd [[calls:2]]", "never", "item/started/commandExecution")
    w.request("turn/interrupt", {"threadId": tid, "turnId": turn})
    lines += w.turn_end()
    lines += w.until(lambda m: m.get("method") == "item/completed")
    want = warm_cap("w12-extra")
    want = want[[k for k, m in enumerate(want) if m.get("id") == 5][0]:]
    same_warm_lines(lines, want, "an interrupt while a command runs (its item completes after the turn)")
    eq(w.close(), 0, "rc")
    w = Warm(E)  # w12-eof-midturn, on the same thread
    w.open(tid)
    held(w, "slow", "never")
    eq(w.close(), 0, "EOF mid-turn: rc 0")
    same_warm_rows(E, tid, "w12-extra")


@test
def codex_app_server_failed_turn(E):
    tid = cold_thread(E)
    w = Warm(E)
    w.open(tid)
    got = w.turn("bad request [[fail:api]]")
    same_warm_lines(got, warm_cap_turn("w6-fail", 3), "failed turn")
    done = got[-1]["params"]["turn"]
    eq((done["status"], done["error"]["codexErrorInfo"]), ("failed", "other"), "turn/completed failed")
    err = [m for m in got if m.get("method") == "error"][0]["params"]
    eq((err["error"], err["willRetry"]), (done["error"], False), "the error notification")
    tc = [r["payload"] for r in thread_rollout(E, tid) if r["payload"].get("type") == "task_complete"][-1]
    real = [r["payload"] for r in warm_cap_rollout("w6-fail") if r["payload"].get("type") == "task_complete"][1]
    same_shape(tc, real, "a failed turn's task_complete")
    again = w.turn("after failures [[reply:works again]]")
    same_warm_lines(again, warm_cap_turn("w6-fail", 5), "the turn after")
    eq(w.close(), 0, "rc")
    r = codex(E, "cold fail [[fail:api]]", resume=tid)
    eq(r.rc, 1, "exec: rc 1")
    tc = [x["payload"] for x in thread_rollout(E, tid) if x["payload"].get("type") == "task_complete"][-1]
    same_shape(tc, real, "exec's failed turn writes the same task_complete")


@test
def codex_app_server_turn_errors(E):
    tid = cold_thread(E)
    real = {m["id"]: m["error"] for m in warm_cap("w7-errors") if "error" in m}
    sent = {m["id"]: m for m in warm_cap("w7-errors", "sent.jsonl") if "id" in m}
    w = Warm(E)

    def same(rid, params, what, sub=None):
        got = w.call(sent[rid]["method"], params)
        want = dict(real[rid])
        if sub:
            want["message"] = want["message"].replace(sub[0], sub[1])
        eq(got.get("error"), want, what)
    same(1, {"threadId": tid}, "before initialize", (sent[1]["params"]["threadId"], tid))
    w.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
    same(3, sent[3]["params"], "initialize twice")
    same(4, {"threadId": tid, "input": []}, "turn/start on a thread not resumed", (sent[4]["params"]["threadId"], tid))
    same(5, sent[5]["params"], "turn/start on an unknown thread")
    same(6, sent[6]["params"], "thread/resume of an unknown thread")
    same(7, sent[7]["params"], "thread/resume of a non-uuid")
    same(8, {}, "an unknown method")
    same(9, {"threadId": tid, "turnId": "nope"}, "turn/interrupt on a thread not loaded",
         (sent[9]["params"]["threadId"], tid))
    eq(w.close(), 0, "the server stays up after each")


def warm_held(E, path):
    tid = cold_thread(E)
    w = Warm(E)
    w.open(tid)
    held(w, "slow", path)
    return tid, w


@test
def codex_app_server_exits(E):
    for sig, rc in ((signal.SIGINT, -2), (signal.SIGTERM, 0)):
        w = Warm(E)
        w.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
        w.p.send_signal(sig)
        eq(w.p.wait(10), rc, "idle, signal %d (w10-sig*)" % sig)
        eq(rc, {signal.SIGINT: -2, signal.SIGTERM: 0}[sig], "")
    for how in ("SIGTERM", "EOF"):
        tid, w = warm_held(E, "never")
        t0 = time.monotonic()
        if how == "EOF":
            w.p.stdin.close()
        else:
            w.p.send_signal(signal.SIGTERM)
        eq(w.p.wait(10), 0, how + " mid-turn: rc 0")
        check(time.monotonic() - t0 < 2, how + " mid-turn: exits at once")
        rest = [json.loads(l) for l in w.p.stdout.read().splitlines() if l.strip()] if not w.p.stdout.closed else []
        check(not any(m.get("method") == "turn/completed" for m in rest + w.seen), how + ": no turn/completed")
        eq(row_kinds(thread_rollout(E, tid))[-3:], ["token_count", "message/user", "turn_aborted"],
           how + " mid-turn: the rollout records the abort (w12-eof-midturn, w10-sigterm-midturn)")
    w = Warm(E)
    rid = w.request("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
    w.answer(rid)
    w.send({"jsonrpc": "2.0", "method": "initialized"})
    eq(w.close(), 0, "EOF when idle")


@test
def codex_app_server_die_and_delay(E):
    tid = cold_thread(E)
    w = Warm(E)
    w.open(tid)
    w.start_turn("[[die]]")
    eq(w.p.wait(10), 3, "[[die]]: rc 3")
    w = Warm(E, BATON_SHIM_DELAY_MS="60")
    w.open(tid)
    t0 = time.monotonic()
    got = w.turn("paced [[reply:one two three four]]")
    check(time.monotonic() - t0 >= 0.06 * 5, "BATON_SHIM_DELAY_MS paces the notifications")
    eq(got[-1]["params"]["turn"]["status"], "completed", "paced turn")
    eq(w.close(), 0, "rc")

@test
def codex_app_server_writer_lock(E):
    tid = cold_thread(E)
    facts = json.load(open(os.path.join(CODEX_WARM, "facts.json"))) if os.path.isdir(CODEX_WARM) else None
    if facts is None:
        raise Skipped("no %s" % CODEX_WARM)
    lock = facts["w10_lock"]
    real_tid = lock["second_app_resume"]["error"]["message"].split()[1]
    w = Warm(E)
    w.open(tid)
    r = codex(E, "cold while warm", resume=tid)
    eq(r.rc, 1, "exec resume of a thread an app-server holds: rc 1")
    real_err = cap_text(CODEX_WARM, "w10-mix-cold.stderr.txt")
    check(real_err[real_err.index("Error: "):].replace(real_tid, tid) in r.err, "the real error: %r" % r.err)
    eq(r.out, "", "no output")
    b = Warm(E)
    b.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
    got = b.call("thread/resume", {"threadId": tid, "cwd": E.proj, "excludeTurns": True})
    eq(got["error"], {"code": -32600, "message": lock["second_app_resume"]["error"]["message"].replace(real_tid, tid)},
       "a second app-server's thread/resume")
    b.close()
    eq(w.close(), 0, "rc")
    ok(codex(E, "cold after the server", resume=tid), "the lock goes with the process")
    cold = subprocess.Popen([CODEX] + EXEC + ["resume", tid, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=E.proj, env=E.env())
    cold.stdin.write(b"a cold turn running [[hang]]")
    cold.stdin.close()
    check(json.loads(cold.stdout.readline())["type"] == "thread.started", "the cold turn runs")
    w = Warm(E)
    w.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
    got = w.call("thread/resume", {"threadId": tid, "cwd": E.proj, "excludeTurns": True})
    eq(got["error"], {"code": -32600, "message": "thread %s already has an active writer" % tid},
       "thread/resume while a cold turn runs on the thread")
    cold.send_signal(signal.SIGINT)
    cold.wait(10)
    cold.stdout.close()
    cold.stderr.close()
    check("result" in w.call("thread/resume", {"threadId": tid, "cwd": E.proj, "excludeTurns": True}),
          "free once the cold turn ended")
    eq(w.close(), 0, "rc")


@test
def codex_app_server_markers(E):
    tid = cold_thread(E)
    w = Warm(E)
    w.open(tid)
    got = w.turn("write it [[write:out/made.txt]] [[reply:done]]")
    eq(got[-1]["params"]["turn"]["status"], "completed", "[[write:]] turn")
    eq(open(os.path.join(E.proj, "out", "made.txt")).read(), "written by shim\n", "[[write:PATH]] writes the file")
    rid = w.start_turn("hang [[hang]]")
    lines = w.until(lambda m: m.get("method") == "item/agentMessage/delta")
    eq(lines[-1]["params"]["delta"], "MOCK-PARTIAL before hang", "[[hang]]: the partial answer")
    turn = [m for m in lines if m.get("id") == rid][0]["result"]["turn"]["id"]
    w.request("turn/interrupt", {"threadId": tid, "turnId": turn})
    eq(w.turn_end()[-1]["params"]["turn"]["status"], "interrupted", "[[hang]] ends at turn/interrupt")
    w.start_turn("[[garbage]]")
    eq(w.p.wait(10), 0, "[[garbage]]: rc 0")
    w = Warm(E, BATON_SHIM_DEMO="1")
    w.open(tid)
    got = w.turn("add a health endpoint")
    text = got[-1]["params"]["turn"]["items"][-1]["text"]
    check(text.startswith("Added a `/health` endpoint.") and "MOCK" not in json.dumps(got), "demo scene: %r" % text)
    cmds = [m["params"]["item"]["command"] for m in got if warm_seq([m], ())[0] == "item/started/commandExecution"]
    eq(len(cmds), 4, "the scene's tool calls as commands")
    eq(w.close(), 0, "rc")


# --------------------------------------------------------------------------
# --input-format stream-json: steering (fixtures/captures/steer/)

STEER = os.path.join(CAP, "steer")
STREAM_IN = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
             "--include-partial-messages"]
STEER_SID = "5e5e0001-0000-4000-8000-000000000001"


def steer_cap(case, version, fn="stdout.jsonl"):
    return cap_jsonl(STEER, "%s-%s" % (case, version), fn)


def user_line(text):
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}})


class Streaming:
    """The claude shim with stdin kept open: write lines, read events as they come."""

    def __init__(self, E, version, *extra):
        import threading
        self.p = subprocess.Popen([CLAUDE] + STREAM_IN + list(extra), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=E.proj,
                                  env=E.env(BATON_SHIM_CLAUDE_VERSION=version), start_new_session=True)
        self.events, self.cond, self.err = [], threading.Condition(), []
        self.seen = 0

        def read():
            for line in self.p.stdout:
                with self.cond:
                    self.events.append(json.loads(line))
                    self.cond.notify_all()
            with self.cond:
                self.events.append(None)
                self.cond.notify_all()
        threading.Thread(target=read, daemon=True).start()
        threading.Thread(target=lambda: self.err.append(self.p.stderr.read()), daemon=True).start()

    def send(self, line):
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()

    def wait_for(self, pred, what, timeout=10):
        """The first event after those already waited for that matches."""
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                while self.seen < len(self.events):
                    e = self.events[self.seen]
                    self.seen += 1
                    check(e is not None, "stdout ended while waiting for %s" % what)
                    if pred(e):
                        return e
                left = end - time.monotonic()
                check(left > 0, "no %s within %s s" % (what, timeout))
                self.cond.wait(left)

    def idle(self, secs=0.3):
        """Nothing more comes out for a while."""
        time.sleep(secs)
        with self.cond:
            return self.seen == len(self.events)

    def end(self, timeout=10):
        rc = self.p.wait(timeout=timeout)
        time.sleep(0.05)
        with self.cond:
            evs = [e for e in self.events if e is not None]
        return rc, evs

    def kill(self):
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()


def is_kind(t, sub=None):
    return lambda e: e.get("type") == t and (sub is None or e.get("subtype") == sub)


def collapsed(evs):
    """Event kinds (stream events by their event type), repeated deltas counted once."""
    out = []
    for e in evs:
        k = kinds([e])[0]
        if k == "stream_event":
            k += "/" + e["event"]["type"]
        elif k == "user" and isinstance(e["message"]["content"], list) and \
                e["message"]["content"][0].get("type") == "tool_result":
            k = "user/tool_result"
        elif k == "user" and e.get("isReplay"):
            k = "user/replay"
        if not out or out[-1] != k or not k.endswith("content_block_delta"):
            out.append(k)
    return out


def real_kinds(case, version, drop=("system/task_started", "system/task_notification")):
    return [k for k in collapsed(steer_cap(case, version)) if k not in drop]


def first_of(evs, k):
    return next(e for e in evs if collapsed([e])[0] == k)


def same_kinds_and_shapes(got, case, version, what):
    want = [e for e in steer_cap(case, version) if collapsed([e])[0] not in
            ("system/task_started", "system/task_notification")]
    eq(collapsed(got), collapsed(want), "%s: event order as %s-%s" % (what, case, version))
    for k in dict.fromkeys(collapsed(want)):
        if k.startswith("stream_event"):
            continue
        g, w = tool_neutral(first_of(got, k)), tool_neutral(first_of(want, k))
        same_shape(g, w, "%s: %s line" % (what, k))


def tool_neutral(e):
    """The shim's tool is Read, the captures' Bash: their input and result details differ."""
    e = json.loads(json.dumps(e))
    if e.get("type") == "assistant":
        for b in e["message"]["content"]:
            b.pop("input", None)
    e.pop("tool_use_result", None)
    c = e.get("message", {}).get("content") if e.get("type") == "user" else None
    for b in c if isinstance(c, list) else []:
        if b.get("type") == "tool_result" and b.get("is_error") is False:
            b.pop("is_error")  # Bash results carry is_error: false, Read results do not
    for m in e.get("tool_result_meta") or []:
        m.pop("permission_decision", None)
    return e


def session_rows(E, sid=STEER_SID):
    return read_jsonl(session_file(E, sid, E.proj))


def queue_ops(rows):
    return [(r["operation"], r.get("content"), r.get("reason")) for r in rows if r.get("type") == "queue-operation"]


@test
def claude_stream_json_two_turns(E):
    for v in ("2.1.332", "2.1.197"):
        E2 = Env()
        try:
            s = Streaming(E2, v, "--session-id", STEER_SID)
            try:
                s.send(user_line("first turn"))
                r1 = s.wait_for(is_kind("result"), "the first result")
                check(s.idle(), "%s: output after the first result with stdin open" % v)
                eq(s.p.poll(), None, "%s: the process waits for the next line after a result" % v)
                s.send(user_line("second turn"))
                r2 = s.wait_for(is_kind("result"), "the second result")
                s.close()
                rc, evs = s.end()
            finally:
                s.kill()
            eq(rc, 0, "%s rc at EOF" % v)
            same_kinds_and_shapes(evs, "two-turns", v, "two turns " + v)
            real = [e for e in steer_cap("two-turns", v) if e["type"] == "result"]
            same_shape(r2, real[1], "second result " + v)
            eq(r2["session_id"], r1["session_id"], "one session")
            check(r2["result"].endswith("last_user=second turn"), "second answer: %r" % r2["result"])
            eq([r1["num_turns"], r2["num_turns"]], [1, 1], "num_turns")
            if v == "2.1.332":
                eq([r1["result_index"], r2["result_index"]], [0, 1], "result_index counts the results")
            m = next(iter(r2["modelUsage"]))
            eq(list(r2["modelUsage"]), list(real[1]["modelUsage"].keys()) if v == "2.1.332" else [m], "model key")
            eq(r2["modelUsage"][m]["inputTokens"], r1["usage"]["input_tokens"] + r2["usage"]["input_tokens"],
               "modelUsage is cumulative over the process")
            eq(m, "claude-opus-5-5" if v == "2.1.332" else "claude-opus-4-8[1m]",
               "the model stays for the second turn")
            ops = [o[0] for o in queue_ops(session_rows(E2))]
            eq(ops, ["enqueue", "dequeue", "enqueue", "dequeue"], "queue rows of two turns")
        finally:
            E2.cleanup()


@test
def claude_stream_json_steer_joins_turn(E):
    """A steer written while the first tool runs (held) joins the turn at its tool result."""
    for v in ("2.1.332", "2.1.197"):
        E2 = Env()
        try:
            s = Streaming(E2, v, "--session-id", STEER_SID, "--replay-user-messages")
            try:
                s.send(user_line("tool then answer [[calls:2]] [[hold:go]]"))
                s.wait_for(lambda e: e["type"] == "assistant" and
                           e["message"]["content"][0]["type"] == "tool_use", "the tool_use")
                s.wait_for(lambda e: e["type"] == "stream_event" and e["event"]["type"] == "message_stop",
                           "the tool call's message_stop")
                check(s.idle(), "held: nothing after the tool call")
                s.send(user_line("STEER while the tool runs"))
                open(os.path.join(E2.proj, "go"), "w").close()
                res = s.wait_for(is_kind("result"), "the result")
                check(s.idle(), "%s: a steer read within the turn must not start a second turn" % v)
                s.close()
                rc, evs = s.end()
            finally:
                s.kill()
            eq(rc, 0, "rc")
            same_kinds_and_shapes(evs, "steer-replay", v, "steer " + v)
            eq(sum(1 for e in evs if e["type"] == "result"), 1, "one result")
            eq(res["num_turns"], 2, "num_turns")
            check(res["result"].endswith("last_user=STEER while the tool runs"), "answer shows the steer: %r"
                  % res["result"])
            echo = [e for e in evs if e.get("isReplay")]
            eq([e["message"]["content"] for e in echo], ["tool then answer [[calls:2]] [[hold:go]]",
                                                         "STEER while the tool runs"], "replayed user lines")
            real = [e for e in steer_cap("steer-replay", v) if e.get("isReplay")]
            same_shape(echo[1], real[1], "steer echo")
            k = collapsed(evs)
            eq(k[k.index("user/tool_result") + 1], "user/replay", "the steer echo follows the tool result")
            rows = session_rows(E2)
            rrows = steer_cap("steer-while-tool-runs", v, "session.jsonl")
            eq(queue_ops(rows)[2:], queue_ops(rrows)[2:], "queue rows of the steer")
            eq([o[0] for o in queue_ops(rows)], [o[0] for o in queue_ops(rrows)], "queue row operations")
            for name, pred in (("remove", lambda r: r.get("operation") == "remove"),
                               ("queued_command", lambda r: (r.get("attachment") or {}).get("type") ==
                                "queued_command")):
                g = [r for r in rows if pred(r)]
                w = [r for r in rrows if pred(r)]
                check(g, "no %s row" % name)
                same_shape(g[0], w[0], "session %s row %s" % (name, v))
            qc = [r for r in rows if (r.get("attachment") or {}).get("type") == "queued_command"][0]
            eq(qc["attachment"]["prompt"], "STEER while the tool runs", "queued_command prompt")
        finally:
            E2.cleanup()


@test
def claude_stream_json_steer_after_last_call(E):
    """A message that arrives once the turn's last call streams runs as a turn of its own."""
    for v in ("2.1.332", "2.1.197"):
        E2 = Env()
        try:
            s = Streaming(E2, v, "--session-id", STEER_SID)
            try:
                s.send(user_line("tool then answer [[calls:2]]"))
                s.wait_for(is_kind("result"), "the first result")
                s.send(user_line("x"))  # warm: a plain second turn
                s.wait_for(is_kind("result"), "the warm-up result")
                s.send(user_line("answer slowly [[hold:go]]"))
                s.wait_for(lambda e: e["type"] == "stream_event" and
                           e["event"]["type"] == "content_block_delta", "the first delta")
                s.send(user_line("STEER after the last call"))
                open(os.path.join(E2.proj, "go"), "w").close()
                r1 = s.wait_for(is_kind("result"), "the held turn's result")
                r2 = s.wait_for(is_kind("result"), "the steer's own result")
                s.close()
                rc, evs = s.end()
            finally:
                s.kill()
            eq(rc, 0, "rc")
            check("last_user=answer slowly" in r1["result"], "held answer: %r" % r1["result"])
            check(r2["result"].endswith("last_user=STEER after the last call"), "steer turn: %r" % r2["result"])
            eq(r2["num_turns"], 1, "the steer's turn has num_turns 1")
            k = collapsed(evs)
            eq(k.count("system/init"), 4, "every turn starts with system/init")
            eq(k[-8:], real_kinds("steer-after-last-call", v)[-8:], "the steer's turn as the capture")
            ops = queue_ops(session_rows(E2))
            eq(ops[-2:], [("enqueue", "STEER after the last call", None), ("dequeue", None, None)],
               "a queued message: enqueue while the turn ran, dequeue when its turn starts")
        finally:
            E2.cleanup()


@test
def claude_compact(E):
    """`/compact` (fixtures/captures/compact): the real CLI's event order, its boundary and a
    result that counts nothing in `usage` but bills the compaction's calls since the last one."""
    real = cap_jsonl(CAP, "compact", "claude-2.1.332-compact.stdout.jsonl")
    s = Streaming(E, "2.1.332", "--session-id", STEER_SID, "--replay-user-messages")
    try:
        s.send(user_line("first"))
        s.wait_for(is_kind("result"), "the first result")
        seen = len(s.events)
        s.send(user_line("/compact"))
        res = s.wait_for(is_kind("result"), "the compaction's result")
        s.close()
        rc, evs = s.end()
    finally:
        s.kill()
    got = [e for e in evs[seen:] if e is not None and e["type"] != "control_response"]
    got = got[:[i for i, e in enumerate(got) if e["type"] == "result"][0] + 1]
    eq(collapsed(got), collapsed(real), "compact: event order as the capture")
    boundary = first_of(got, "system/compact_boundary")["compact_metadata"]
    check(boundary["trigger"] == "manual" and 0 < boundary["post_tokens"] < boundary["pre_tokens"],
          "compact_boundary: %s" % boundary)
    want = [e for e in real if e["type"] == "result"][0]
    for key in ("subtype", "is_error", "num_turns", "local_command", "result"):
        eq(res[key], want[key], "compact result " + key)
    eq({k: v for k, v in res["usage"].items() if k.endswith("tokens")},
       {k: v for k, v in want["usage"].items() if k.endswith("tokens")}, "compact result usage (zero)")
    since = list(res["model_usage_since_last_result"].values())
    check(len(since) == 1 and since[0]["inputTokens"] > 0 and since[0]["outputTokens"] > 0,
          "compact result bills its calls: %s" % since)
    eq(rc, 0, "rc 0")


@test
def claude_stream_json_interrupts(E):
    for v in ("2.1.332", "2.1.197"):
        # control_request interrupt while the answer streams (held): control_response first.
        E2 = Env()
        try:
            s = Streaming(E2, v, "--session-id", STEER_SID)
            try:
                s.send(user_line("long answer [[hold:never]]"))
                s.wait_for(lambda e: e["type"] == "stream_event" and
                           e["event"]["type"] == "content_block_delta", "the first delta")
                s.send(json.dumps({"type": "control_request", "request_id": "ctl-1",
                                   "request": {"subtype": "interrupt"}}))
                res = s.wait_for(is_kind("result"), "the interrupted result")
                s.send(user_line("after the interrupt"))
                res2 = s.wait_for(is_kind("result"), "the next turn's result")
                s.close()
                rc, evs = s.end()
            finally:
                s.kill()
            real = steer_cap("control-interrupt", v)
            same_kinds_and_shapes(evs, "control-interrupt", v, "control interrupt " + v)
            cr = [e for e in evs if e["type"] == "control_response"][0]
            want = [e for e in real if e["type"] == "control_response"][0]
            eq(cr, want, "control_response line")
            rr = [e for e in real if e["type"] == "result"][0]
            for key in ("subtype", "is_error", "terminal_reason", "num_turns", "stop_reason", "errors"):
                eq(res[key], rr[key], "interrupted result " + key)
            eq(res["usage"], rr["usage"], "interrupted result usage (zero)")
            if v == "2.1.332":
                # ...while `model_usage_since_last_result` bills the call cut short
                since = list(res["model_usage_since_last_result"].values())
                check(len(since) == 1 and since[0]["inputTokens"] > 0 and since[0]["costUSD"] > 0,
                      "interrupted result bills the cut call: %s" % since)
            check(res2["result"].endswith("last_user=after the interrupt"), "the process reads on")
            eq(rc, 0, "rc 0 when the last result succeeded")
        finally:
            E2.cleanup()
        # control_request interrupt while the tool runs (held), then EOF: rc 1.
        E2 = Env()
        try:
            s = Streaming(E2, v, "--session-id", STEER_SID)
            try:
                s.send(user_line("tool then answer [[calls:2]] [[hold:never]]"))
                s.wait_for(lambda e: e["type"] == "assistant" and
                           e["message"]["content"][0]["type"] == "tool_use", "the tool_use")
                s.send(json.dumps({"type": "control_request", "request_id": "ctl-2",
                                   "request": {"subtype": "interrupt"}}))
                res = s.wait_for(is_kind("result"), "the interrupted result")
                s.close()
                rc, evs = s.end()
            finally:
                s.kill()
            eq(rc, 1, "rc 1 at EOF after an interrupted (error) result")
            same_kinds_and_shapes(evs, "control-interrupt-tool", v, "tool interrupt " + v)
            real = steer_cap("control-interrupt-tool", v)
            rr = [e for e in real if e["type"] == "result"][0]
            for key in ("subtype", "is_error", "terminal_reason", "num_turns", "stop_reason", "errors"):
                eq(res[key], rr[key], "tool-interrupted result " + key)
            got_u = [e for e in evs if e["type"] == "user"]
            want_u = [e for e in real if e["type"] == "user"]
            eq([u["message"]["content"][0].get("text") or u["message"]["content"][0]["content"] for u in got_u],
               [u["message"]["content"][0].get("text") or u["message"]["content"][0]["content"] for u in want_u],
               "rejection and note texts")
            same_shape(got_u[0], want_u[0], "tool rejection line")
        finally:
            E2.cleanup()
        # an interrupt when no turn runs: only the control_response
        E2 = Env()
        try:
            s = Streaming(E2, v, "--session-id", STEER_SID)
            try:
                s.send(user_line("hello then idle"))
                s.wait_for(is_kind("result"), "the result")
                s.send(json.dumps({"type": "control_request", "request_id": "ctl-4",
                                   "request": {"subtype": "interrupt"}}))
                cr = s.wait_for(is_kind("control_response"), "the control_response")
                check(s.idle(), "idle interrupt: nothing but the control_response")
                s.close()
                rc, evs = s.end()
            finally:
                s.kill()
            eq(rc, 0, "idle interrupt rc")
            eq(cr, [e for e in steer_cap("control-interrupt-idle", v) if e["type"] == "control_response"][0],
               "idle control_response")
        finally:
            E2.cleanup()


@test
def claude_stream_json_eof_sigint_badline(E):
    for v in ("2.1.332", "2.1.197"):
        # EOF while the turn is held, with a steer written: the turn finishes with it, rc 0.
        s = Streaming(E, v)
        try:
            s.send(user_line("tool then answer [[calls:2]] [[hold:go-%s]]" % v))
            s.wait_for(lambda e: e["type"] == "assistant", "the tool_use")
            s.send(user_line("STEER then EOF"))
            s.close()
            open(os.path.join(E.proj, "go-" + v), "w").close()
            rc, evs = s.end()
        finally:
            s.kill()
        eq(rc, 0, "steer then EOF: rc")
        res = [e for e in evs if e["type"] == "result"]
        eq(len(res), 1, "steer then EOF: one result")
        check(res[0]["result"].endswith("last_user=STEER then EOF"), "EOF: the steer still joined")
        # SIGINT when idle: rc 0, no output.
        s = Streaming(E, v)
        try:
            s.send(user_line("hello then idle"))
            s.wait_for(is_kind("result"), "the result")
            # Idle once nothing more comes (a loaded machine may still be delivering lines).
            n = -1
            while n != len(s.events):
                n = len(s.events)
                time.sleep(0.3)
            os.killpg(s.p.pid, signal.SIGINT)
            rc, evs = s.end(timeout=3)
        finally:
            s.kill()
        eq((rc, len(evs)), (0, n), "SIGINT when idle: rc 0 and nothing more")
        eq(int(cap_text(STEER, "sigint-idle-" + v, "rc")), 0, "capture rc")
        # EOF with no message: rc 0, nothing.
        r = run(E, CLAUDE, STREAM_IN, stdin="", BATON_SHIM_CLAUDE_VERSION=v)
        eq((r.rc, r.out), (0, ""), "EOF without a message")
        # a line that is not JSON: rc 1, the error on stderr, no stdout
        r = run(E, CLAUDE, STREAM_IN, stdin="this is not json\n", BATON_SHIM_CLAUDE_VERSION=v)
        eq((r.rc, r.out), (1, ""), "bad line rc/stdout")
        eq(r.err, cap_text(STEER, "bad-line-" + v, "stderr.txt"), "bad line stderr")
    r = run(E, CLAUDE, ["-p", "--input-format", "stream-json", "--output-format", "text"], stdin="")
    eq((r.rc, r.err), (1, "Error: --input-format=stream-json requires output-format=stream-json.\n"),
       "stream-json input needs stream-json output")
    # text stdin stays as it was: --replay-user-messages needs stream-json input
    r = run(E, CLAUDE, STREAM + ["--replay-user-messages"], stdin="hi")
    eq(r.rc, 1, "--replay-user-messages without stream-json input")


# ---- claude fork / rewind (fixtures/captures/fork/claude/): the shim against the real CLIs'
# fork (`--resume S --fork-session --session-id NEW`) and rewind (`… --resume-session-at UUID`)

FORK = os.path.join(CAP, "fork", "claude")
FORK_IN = ["-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
           "--input-format", "stream-json", "--replay-user-messages"]
FORK_S = "f0f0aaaa-0000-4000-8000-000000000001"
FORK_NEW = "f0f0f0b0-0000-4000-8000-0000000000b1"
FORK_TURNS = ["turn one: hello", "turn two: use a tool [[calls:2]]", "turn three: last one"]
FORK_VERSIONS = ("2.1.332", "2.1.197")


def fork_cap(version, step, fn):
    d = [x for x in os.listdir(os.path.join(FORK, version)) if x[3:] == step or x == step]
    check(len(d) == 1, "capture %s/%s" % (version, step))
    return cap_text(FORK, version, d[0], fn)


def fork_run(E, version, cwd, args, prompt):
    return run(E, CLAUDE, FORK_IN + list(args), stdin=user_line(prompt) + "\n", cwd=cwd,
               BATON_SHIM_CLAUDE_VERSION=version)


def fork_three_turns(E, version):
    ok(fork_run(E, version, E.proj, ["--session-id", FORK_S], FORK_TURNS[0]), "turn 1")
    for t in FORK_TURNS[1:]:
        ok(fork_run(E, version, E.proj, ["--resume", FORK_S], t), "turn")
    return read_jsonl(session_file(E, FORK_S, E.proj))


def chain_rows(rows):
    return [r for r in rows if r.get("type") in ("user", "assistant", "attachment", "system") and r.get("uuid")]


def prompt_rows(rows):
    return [r for r in rows if r.get("type") == "user" and isinstance(r["message"].get("content"), str)]


def talk(rows):
    """user/assistant entries as (type, what): the conversation a cut or fork kept."""
    out = []
    for r in rows:
        if r.get("type") not in ("user", "assistant"):
            continue
        c = r["message"].get("content")
        kind = "prompt" if isinstance(c, str) else (c[0].get("type") if c else "?")
        out.append((r["type"], kind))
    return out


def cap_session(version, step, sid):
    base = os.path.join(FORK, version)
    d = [x for x in os.listdir(base) if x[3:] == step][0]
    for dp, _, fns in os.walk(os.path.join(base, d, "sessions")):
        if sid + ".jsonl" in fns:
            return read_jsonl(os.path.join(dp, sid + ".jsonl"))
    raise CheckFailed("no %s in capture %s/%s" % (sid, version, step))


def error_line_check(r, version, step, bad_id, new_id, what):
    """rc, stderr and the one error result as the capture has them (ids put in)."""
    cap_out = fork_cap(version, step, "stdout.jsonl")
    want = json.loads(cap_out)
    want_err = fork_cap(version, step, "stderr.txt")
    cap_bad = want["errors"][0].rsplit(" ", 1)[1]
    eq(r.rc, int(fork_cap(version, step, "rc")), "%s rc" % what)
    eq(r.err, want_err.replace(cap_bad, bad_id), "%s stderr" % what)
    evs = r.events()
    eq(len(evs), 1, "%s: one stdout line" % what)
    same_shape(evs[0], want, "%s result" % what)
    eq(evs[0]["errors"], [want["errors"][0].replace(cap_bad, bad_id)], "%s errors" % what)
    eq(evs[0]["session_id"], new_id, "%s: the error result names the fork's id" % what)


@test
def claude_fork_from_another_cwd(E):
    for version in FORK_VERSIONS:
        E2 = Env()
        try:
            rows = fork_three_turns(E2, version)
            args = ["--resume", FORK_S, "--fork-session", "--session-id", FORK_NEW]
            r = fork_run(E2, version, E2.proj2, args, "fork prompt in B")
            if version == "2.1.197":
                # 2.1.197 looks only in its cwd's project folder (fork-into-B): copy S there first
                error_line_check(r, version, "fork-into-B", FORK_S, FORK_NEW, "%s fork" % version)
                dst = session_file(E2, FORK_S, E2.proj2)
                os.makedirs(os.path.dirname(dst))
                shutil.copyfile(session_file(E2, FORK_S, E2.proj), dst)
                r = fork_run(E2, version, E2.proj2, args, "fork prompt in B")
            evs = ok(r, "%s fork" % version)
            eq(evs[0]["session_id"], FORK_NEW, "fork init")
            check(os.path.isfile(session_file(E2, FORK_NEW, E2.proj2)), "the fork's file is in B's folder")
            frows = read_jsonl(session_file(E2, FORK_NEW, E2.proj2))
            # as the capture: the prompt's queue rows, S's chain (same uuids, the fork's sessionId
            # and cwd), then the fork's turn
            cap = cap_session(version, "fork-into-B-after-copy" if version == "2.1.197" else "fork-into-B",
                              "f0f0f0b0-0000-4000-8000-0000000000b%d" % (2 if version == "2.1.197" else 1))
            cap_lead = [r.get("operation") for r in cap if r.get("type") == "queue-operation"][:2]
            eq([r.get("operation") for r in frows[:2]], cap_lead, "%s: queue rows first" % version)
            src = chain_rows(rows)
            got = chain_rows(frows)[:len(src)]
            eq([r["uuid"] for r in got], [r["uuid"] for r in src], "%s: copied chain" % version)
            for a, b in zip(got, src):
                eq(a["sessionId"], FORK_NEW, "copied sessionId")
                eq(a["cwd"], E2.proj2, "copied cwd")
                if version == "2.1.332" and a["type"] == "assistant":
                    eq(a["requestSessionId"], FORK_S, "2.1.332 copied requestSessionId")
                if version == "2.1.332" and a["type"] == "user":
                    eq(a["promptId"], prompt_rows(frows)[-1]["promptId"], "2.1.332 copied promptId")
                if version == "2.1.197":
                    eq(sorted(a), sorted(b), "2.1.197 copies keep their keys")
            eq(prompt_rows(frows)[-1]["parentUuid"], src[-1]["uuid"], "the fork's prompt follows S's leaf")
            eq(talk(frows)[:len(talk(cap))], talk(cap), "%s: the conversation as the capture's" % version)
            # S is untouched, and its next resume does not carry the fork's prompt
            ok(fork_run(E2, version, E2.proj, ["--resume", FORK_S], "turn four in A"), "resume S")
            srows = read_jsonl(session_file(E2, FORK_S, E2.proj))
            check("fork prompt in B" not in json.dumps(srows), "S knows nothing of the fork")
        finally:
            E2.cleanup()


@test
def claude_rewind_cut_and_errors(E):
    new = "f0f0e0e0-0000-4000-8000-000000000001"
    for version in FORK_VERSIONS:
        E2 = Env()
        try:
            rows = fork_three_turns(E2, version)
            p3 = prompt_rows(rows)[2]
            last = [r for r in rows[:rows.index(p3)] if r["type"] == "assistant"][-1]
            eq(p3["parentUuid"], last["uuid"], "prompt 3 follows turn 2's last assistant entry")
            base = ["--resume", FORK_S, "--fork-session", "--session-id", new, "--resume-session-at"]
            r = fork_run(E2, version, E2.proj, base + [last["message"]["id"]], "by msg id")
            error_line_check(r, version, "rewind-at-msg-id", last["message"]["id"], new, "msg id")
            unknown = "12345678-1234-4234-8234-123456789abc"
            r = fork_run(E2, version, E2.proj, base + [unknown], "unknown")
            error_line_check(r, version, "rewind-at-unknown-uuid", unknown, new, "unknown uuid")
            check(not os.path.exists(session_file(E2, new, E2.proj)), "no file for a refused rewind")
            r = fork_run(E2, version, E2.proj, ["--session-id", new, "--resume-session-at", unknown], "x")
            eq((r.rc, r.err, r.out), (int(fork_cap(version, "at-without-resume", "rc")),
                                      fork_cap(version, "at-without-resume", "stderr.txt"),
                                      fork_cap(version, "at-without-resume", "stdout.jsonl")),
               "--resume-session-at without --resume")
            # the cut: turns 1-2 and the new prompt, as the capture's rewind file
            evs = ok(fork_run(E2, version, E2.proj, base + [last["uuid"]], "rewound prompt 3"), "rewind")
            eq(evs[0]["session_id"], new, "rewind init")
            frows = read_jsonl(session_file(E2, new, E2.proj))
            eq([r["message"]["content"] for r in prompt_rows(frows)], FORK_TURNS[:2] + ["rewound prompt 3"],
               "%s: the rewind keeps turns 1-2" % version)
            check(FORK_TURNS[2] not in json.dumps(frows), "nothing of turn 3")
            cap = cap_session(version, "rewind-at-last-assistant", new)
            eq(talk(frows), talk(cap), "%s: the conversation as the capture's" % version)
            eq(prompt_rows(frows)[-1]["parentUuid"], last["uuid"], "the new prompt follows the cut")
            check("STANDIN-REPLY" not in json.dumps(frows), "shim rows only")
            # a reply numbering that continues from what was kept (turn 2's calls: 1 + 2)
            check(evs[-1]["result"].startswith("MOCK-REPLY #4 "), "reply counter after the cut: %r" % evs[-1]["result"])
            # at prompt 3 itself: the kept chain ends with prompt 3 (the CLI folds the two prompts)
            r = fork_run(E2, version, E2.proj, base[:-3] + ["--session-id", "f0f0e0e0-0000-4000-8000-000000000005",
                                                             "--resume-session-at", p3["uuid"]], "at p3")
            ok(r, "cut at prompt 3")
            # without --fork-session: S itself branches at the cut
            ok(fork_run(E2, version, E2.proj, ["--resume", FORK_S, "--resume-session-at", last["uuid"]],
                        "rewind without --fork-session"), "in-place cut")
            srows = read_jsonl(session_file(E2, FORK_S, E2.proj))
            eq(prompt_rows(srows)[-1]["parentUuid"], last["uuid"], "S branches at the cut")
            eq(prompt_rows(srows)[-1]["sessionId"], FORK_S, "same session")
        finally:
            E2.cleanup()


@test
def claude_fork_copies_left_behind(E):
    """2.1.332 prefers its cwd's copy of S (stale or not) and refuses an id two other folders
    hold (fork-from-C-stale-copy, fork-from-D-two-copies)."""
    version = "2.1.332"
    rows = fork_three_turns(E, version)
    c, d = os.path.join(E.base, "C"), os.path.join(E.base, "D")
    os.makedirs(c)
    os.makedirs(d)
    dst = session_file(E, FORK_S, c)
    os.makedirs(os.path.dirname(dst))
    with open(dst, "w", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in rows[:rows.index(prompt_rows(rows)[2])]))
    evs = ok(fork_run(E, version, c, ["--resume", FORK_S, "--fork-session", "--session-id", FORK_NEW], "from C"),
             "fork from C")
    frows = read_jsonl(session_file(E, FORK_NEW, c))
    check(FORK_TURNS[2] not in json.dumps(frows), "the fork in C read C's stale copy")
    new = "f0f0e0e0-0000-4000-8000-000000000011"
    r = fork_run(E, version, d, ["--resume", FORK_S, "--fork-session", "--session-id", new], "from D")
    error_line_check(r, version, "fork-from-D-two-copies", FORK_S, new, "two copies")
    check(evs[0]["session_id"] == FORK_NEW, "fork init")
    # 2.1.197 with the same copies: only its cwd's folder counts
    ok(fork_run(E, "2.1.197", c, ["--resume", FORK_S, "--fork-session", "--session-id",
                                  "f0f0e0e0-0000-4000-8000-000000000012"], "197 from C"), "2.1.197 fork from C")


def timing(n=10):
    E = Env()
    try:
        out = []
        for prog, args, stdin in ((CLAUDE, STREAM, "timing"), (CODEX, EXEC, "timing")):
            t = []
            for _ in range(n):
                r = run(E, prog, args, stdin=stdin)
                t.append(r.elapsed)
            t.sort()
            out.append("%s median %.0f ms" % (os.path.basename(prog), 1000 * t[len(t) // 2]))
        return ", ".join(out)
    finally:
        E.cleanup()


# --------------------------------------------------------------------------
# tool calls, refusals, subagents (fixtures/captures/tools/, made by tools/real-cli/tools.py)

TOOLS = os.path.join(CAP, "tools")
TOOL_PROMPTS = {
    "edits": "edit and run [[tool:Read:a.txt]] [[tool:Edit:a.txt]] [[tool:Write:b.txt]] [[tool:Bash:ls]]",
    "deny": "build it [[deny:Bash:cargo build]] [[deny:Write:../outside.txt]]",
    "subagent": "look around [[tool:Task:Look around]]",
}
TOOL_SYSTEM = ("permission_denied", "task_started", "task_progress", "task_updated", "task_notification")


def tool_lines(events):
    """The lines a tool call makes: its `assistant` tool_use, `user` lines (results, a subagent's
    prompt), the refusal and subagent `system` lines; the text answer, init, status, stream
    events and the result left out (their shapes are checked elsewhere)."""
    out = []
    for e in events:
        t = e.get("type")
        if t == "assistant" and any(b.get("type") == "tool_use" for b in e["message"]["content"]):
            out.append(e)
        elif t == "user" and not e.get("isReplay") and isinstance(e["message"].get("content"), list):
            out.append(e)
        elif t == "system" and e.get("subtype") in TOOL_SYSTEM:
            out.append(e)
    return out


def block_texts(e, cwd=None):
    """What a line says, ids and numbers aside: tool names, result texts (a shim's run's `cwd`
    written as the captures' /home/dev/proj)."""
    if e["type"] == "system":
        return e.get("subtype"), e.get("message") and plain(e["message"], cwd)
    b = e["message"]["content"][0]
    if b.get("type") == "tool_use":
        return "use", b["name"]
    if b.get("type") == "tool_result":
        c = b["content"]
        text = c if isinstance(c, str) else "\n".join(x.get("text", "") for x in c)
        return "result", bool(b.get("is_error")), plain(text, cwd)
    return "text", e.get("parent_tool_use_id") is not None


def plain(text, cwd):
    if cwd:
        text = text.replace(cwd, "/home/dev/proj").replace(os.path.dirname(cwd), "/home/dev/world")
    return re.sub(r"\d+", "N", re.sub(r"a[0-9a-f]{16}", "AGENT", text))


def real_tool_texts(events):
    """block_texts of a capture, its Read of the stand-in's a.txt (old line, second) and its `ls`
    as the shim's."""
    out = []
    for e in tool_lines(events):
        t = block_texts(e)
        if t[0] == "result":
            text = t[2].replace("N\told line\nN\tsecond\nN\t", "N\tfile content N\nN\t")
            if text.startswith("a.txt\nb.txt"):  # the real `ls`
                text = "\n".join("ls: output line N" for _ in range(8))
            t = (t[0], t[1], text)
        out.append(t)
    return out


@test
def claude_tool_calls_match_the_real_ones(E):
    for case, prompt in TOOL_PROMPTS.items():
        for version in ("2.1.332", "2.1.197"):
            want = cap_jsonl(TOOLS, "claude-%s-%s.stdout.jsonl" % (case, version))
            r = run(E, CLAUDE, STREAM_IN + ["--permission-mode", "acceptEdits"], stdin=user_line(prompt) + "\n",
                    BATON_SHIM_CLAUDE_VERSION=version)
            got = ok(r, "%s %s" % (case, version))
            what = "claude %s %s" % (case, version)
            if case == "subagent" and version == "2.1.332":
                # 2.1.332 runs it in the background by default; the shim has the foreground shape
                want = cap_jsonl(TOOLS, "claude-subagent-fg-2.1.332.stdout.jsonl")
                for e in want:  # the flag the stand-in's model set to get it
                    for b in e.get("message", {}).get("content") or []:
                        if isinstance(b, dict) and b.get("type") == "tool_use":
                            b["input"].pop("run_in_background", None)
            g, w = tool_lines(got), tool_lines(want)
            eq(kinds(g), kinds(w), what + " tool lines")
            for i, (a, b) in enumerate(zip(g, w)):
                same_shape(a, b, "%s tool line %d (%s)" % (what, i, kinds([b])[0]))
            eq([block_texts(e, E.proj) for e in g], real_tool_texts(want), what + " texts")
            res = [e for e in got if e["type"] == "result"][-1]
            real = [e for e in want if e["type"] == "result"][0]
            eq([d["tool_name"] for d in res["permission_denials"]],
               [d["tool_name"] for d in real["permission_denials"]], what + " denials")
            for d, rd in zip(res["permission_denials"], real["permission_denials"]):
                same_shape(d, rd, what + " denial")
                eq(d["tool_input"].get("file_path", "").replace(os.path.dirname(E.proj), "/home/dev/world"),
                   rd["tool_input"].get("file_path", ""), what + " denial path (resolved)")


@test
def codex_tool_items_match_the_real_ones(E):
    want = [e for e in cap_jsonl(TOOLS, "codex-edits.stdout.jsonl") if e["type"].startswith("item.")]
    r = codex(E, "patch and run [[tool:Edit:a.txt]] [[tool:Write:b.txt]] [[tool:Bash:ls]]")
    got = [e for e in ok(r, "codex tools") if e["type"].startswith("item.")
           and e["item"]["type"] in ("file_change", "command_execution")]
    want = [e for e in want if e["item"]["type"] in ("file_change", "command_execution")]
    same_events(got, want, "codex tool items")
    for g, w in zip(got, want):
        gi, wi = g["item"], w["item"]
        if gi["type"] == "file_change":
            eq([(c["path"].replace(E.proj, "/home/dev/proj"), c["kind"]) for c in gi["changes"]],
               [(c["path"], c["kind"]) for c in wi["changes"]], "file_change changes")
        else:
            eq(gi["command"], wi["command"], "command as shown")
        eq(gi["status"], wi["status"], "item status")


# permission prompts over stdio (fixtures/captures/approvals/, made by tools/real-cli/approvals.py)

APPROVALS = os.path.join(CAP, "approvals")
# case -> (the shim's prompt: [[deny:]] is what the shim refuses, the answer)
APPROVAL_CASES = {
    "write-allow": ("[[deny:Write:../outside/o.txt]] [[reply:done]]", "allow"),
    "write-deny": ("[[deny:Write:../outside/o.txt]] [[reply:done]]", "deny"),
    "bash-allow": ("[[deny:Bash:cat /etc/hostname]] [[reply:done]]", "allow"),
    "bash-deny": ("[[deny:Bash:cat /etc/hostname]] [[reply:done]]", "deny"),
    "eof": ("[[deny:Write:../outside/o.txt]] [[reply:done]]", "eof"),
    "sigint": ("[[deny:Write:../outside/o.txt]] [[reply:done]]", "sigint"),
}
ASK_LINES = ("control_request", "control_response", "control_cancel_request")


def drive_asking(E, prompt, answer, version):
    """Runs the shim with --permission-prompt-tool stdio, answering its can_use_tool request as
    the capture's driver did; its stdout lines."""
    os.makedirs(os.path.join(E.base, "outside"), exist_ok=True)
    p = subprocess.Popen([CLAUDE] + STREAM_IN + ["--permission-mode", "acceptEdits",
                                                 "--permission-prompt-tool", "stdio"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=E.proj,
                         env=E.env(BATON_SHIM_CLAUDE_VERSION=version))
    p.stdin.write((user_line(prompt) + "\n").encode())
    p.stdin.flush()
    lines = []
    for raw in p.stdout:
        ev = json.loads(raw)
        lines.append(ev)
        if ev.get("type") == "control_request" and ev["request"].get("subtype") == "can_use_tool":
            rid = ev["request_id"]
            if answer == "allow":
                resp = {"behavior": "allow", "updatedInput": ev["request"]["input"]}
            elif answer == "deny":
                resp = {"behavior": "deny", "message": "DENIED-BY-USER: not there"}
            if answer in ("allow", "deny"):
                p.stdin.write((json.dumps({"type": "control_response", "response": {
                    "subtype": "success", "request_id": rid, "response": resp}}) + "\n").encode())
                p.stdin.flush()
            elif answer == "eof":
                p.stdin.close()
            else:
                p.send_signal(signal.SIGINT)
        if ev.get("type") == "result" and not p.stdin.closed:
            p.stdin.close()
    p.wait(timeout=30)
    check(p.returncode == 0, "rc %s: %r" % (p.returncode, p.stderr.read()[-400:]))
    return lines


def asking_lines(events):
    """The permission exchange and the tool lines around it, as (kind, what it says)."""
    out = []
    for e in events:
        if e.get("type") in ASK_LINES:
            req = e.get("request") or {}
            resp = (e.get("response") or {}).get("response") or {}
            out.append((e["type"], req.get("tool_name"), resp.get("behavior")))
        elif e in tool_lines([e]):
            t = block_texts(e)
            out.append(t[:2] + (re.sub(r"\d+", "N", t[2]),) if t[0] == "result" else t)
    return out


@test
def claude_permission_prompts_match_the_real_ones(E):
    for case, (prompt, answer) in APPROVAL_CASES.items():
        for version in ("2.1.332", "2.1.197"):
            want = cap_jsonl(APPROVALS, "claude-%s-%s.stdout.jsonl" % (case, version))
            got = drive_asking(E, prompt, answer, version)
            what = "claude %s %s" % (case, version)
            g = [asking_lines([e]) for e in got]
            w = [asking_lines([e]) for e in want]
            g = [x[0] for x in g if x and x[0][:2] != ("result", False)]
            w = [x[0] for x in w if x and x[0][:2] != ("result", False)]
            eq(g, w, what + " exchange")
            ask = [e for e in got if e.get("type") == "control_request"][0]
            real = [e for e in want if e.get("type") == "control_request"][0]
            same_shape(ask, real, what + " control_request")
            res = [e for e in got if e.get("type") == "result"][-1]
            real_res = [e for e in want if e.get("type") == "result"][-1]
            if case != "sigint":  # the shim's interrupted result lists no denials (baton reads none there)
                eq(len(res["permission_denials"]), len(real_res["permission_denials"]), what + " denials")
            if case == "write-allow":
                check(os.path.exists(os.path.join(E.base, "outside", "o.txt")), what + ": the write landed")
            if case == "write-deny":
                check(not os.path.exists(os.path.join(E.base, "outside", "o.txt")), what + ": nothing written")
            if os.path.exists(os.path.join(E.base, "outside", "o.txt")):
                os.remove(os.path.join(E.base, "outside", "o.txt"))


# Codex app-server approval requests (fixtures/captures/approvals/codex/, made by
# tools/real-cli/codex_approvals.py); the shim's [[deny:…]] is a call the sandbox would refuse.
CODEX_APPROVALS = os.path.join(APPROVALS, "codex")
# case -> (the shim's prompt, the answer)
CODEX_APPROVAL_CASES = {
    "write-outside-accept": ("[[deny:Write:../outside.txt]] [[reply:done]]", "accept"),
    "write-outside-decline": ("[[deny:Write:../outside.txt]] [[reply:done]]", "decline"),
    "decline-then-steer": ("[[deny:Write:../outside.txt]] [[reply:done]]", "decline+steer"),
    "interrupt-waiting": ("[[deny:Write:../outside.txt]] [[reply:done]]", "interrupt"),
    # The real one asked for this command under `untrusted`; the shim asks under on-request.
    "untrusted-bash": ("[[deny:Bash:cat /etc/hostname]] [[reply:done]]", "accept"),
}
# What an approval's exchange is read as: the lines about the call, the request, its end.
ASK_KINDS = ("item/started/fileChange", "item/completed/fileChange", "item/started/commandExecution",
             "item/completed/commandExecution", "item/fileChange/requestApproval",
             "item/commandExecution/requestApproval", "serverRequest/resolved", "turn/completed")


def codex_ask_exchange(msgs):
    """An approval's exchange: the kinds of ASK_KINDS in order, with an item's status, the
    waiting flag, and a user message (a steer) once the request was asked."""
    out, asked = [], False
    for m in msgs:
        k = warm_seq([m], ())[0]
        asked = asked or k.endswith("requestApproval")
        if k in ASK_KINDS:
            item = (m.get("params") or {}).get("item") or {}
            out.append((k, item.get("status") or ((m.get("params") or {}).get("turn") or {}).get("status")))
        elif k == "item/started/userMessage" and asked:
            out.append((k, None))
        elif k == "thread/status/changed" and "waitingOnApproval" in json.dumps(m):
            out.append(("waitingOnApproval", None))
    return out


def drive_codex_asking(E, prompt, answer):
    """A warm turn under on-request whose request is answered as the capture's driver did; its
    lines from the turn/start on."""
    for f in (os.path.join(E.base, "outside.txt"),):
        if os.path.exists(f):
            os.remove(f)
    tid = cold_thread(E)
    w = Warm(E)
    w.open(tid)
    rid = w.start_turn(prompt, "on-request")
    lines = w.until(lambda m: "id" in m and "method" in m)
    turn = [m for m in lines if m.get("id") == rid][0]["result"]["turn"]["id"]
    req = lines[-1]
    if answer == "interrupt":
        w.request("turn/interrupt", {"threadId": tid, "turnId": turn})
    else:
        decision = "accept" if answer == "accept" else "decline"
        w.send({"jsonrpc": "2.0", "id": req["id"], "result": {"decision": decision}})
        if answer == "decline+steer":
            w.request("turn/steer", {"threadId": tid, "expectedTurnId": turn, "input": [
                {"type": "text", "text": "REASON-XYZ: write it under docs/ instead", "text_elements": []}]})
    lines += w.turn_end()
    if answer == "interrupt":  # the request is resolved after the turn's end
        lines += w.until(lambda m: m.get("method") == "serverRequest/resolved")
    eq(w.close(), 0, "rc")
    return lines


@test
def codex_approval_requests_match_the_real_ones(E):
    for case, (prompt, answer) in CODEX_APPROVAL_CASES.items():
        want = cap_jsonl(CODEX_APPROVALS, "%s.stdout.jsonl" % case)
        got = drive_codex_asking(E, prompt, answer)
        eq(codex_ask_exchange(got), codex_ask_exchange(want), "codex %s exchange" % case)
        ask = [m for m in got if m.get("method", "").endswith("requestApproval")][0]
        real = [m for m in want if m.get("method", "").endswith("requestApproval")][0]
        same_shape(ask, real, "codex %s request" % case)
        written = os.path.exists(os.path.join(E.base, "outside.txt"))
        eq(written, case == "write-outside-accept", "codex %s: written" % case)
    # Under `never` (exec's, and a turn that may not ask) nothing is asked.
    tid = cold_thread(E)
    w = Warm(E)
    w.open(tid)
    got = w.turn("[[deny:Write:../outside.txt]] [[reply:done]]")
    eq([m for m in got if "id" in m and "method" in m], [], "nothing asked under never")
    eq(w.close(), 0, "rc")


# A new thread's first turn on the app-server (fixtures/captures/approvals/codex-first-turn/, made
# by tools/real-cli/codex_first_turn.py): thread/start with the system text, then a turn that asks.
CODEX_FIRST_TURN = os.path.join(APPROVALS, "codex-first-turn")


@test
def codex_thread_start_matches_the_real_one(E):
    real = cap_jsonl(CODEX_FIRST_TURN, "start-param-start.stdout.jsonl")
    sent = [m for m in cap_jsonl(CODEX_FIRST_TURN, "start-param-start.sent.jsonl")
            if m.get("method") == "thread/start"][0]
    params = dict(sent["params"], cwd=E.proj, developerInstructions=AWKWARD)
    w = Warm(E)
    w.call("initialize", {"clientInfo": {"name": "baton", "version": "0.1.0"}})
    w.send({"jsonrpc": "2.0", "method": "initialized"})
    reply = w.call("thread/start", params)
    want = [m for m in real if m.get("id") == sent["id"] and "method" not in m][0]
    same_shape(reply, want, "thread/start answer")
    started = w.until(lambda m: m.get("method") == "thread/started")[-1]
    same_shape(started, [m for m in real if m.get("method") == "thread/started"][0], "thread/started")
    tid = reply["result"]["thread"]["id"]
    eq(started["params"]["thread"]["id"], tid, "thread/started names it")
    w.tid = tid
    w.start_turn("[[deny:Write:../outside.txt]] [[reply:done]]", "on-request")
    lines = w.until(lambda m: "id" in m and "method" in m)
    w.send({"jsonrpc": "2.0", "id": lines[-1]["id"], "result": {"decision": "accept"}})
    lines += w.turn_end()
    eq(codex_ask_exchange(lines), codex_ask_exchange(real), "the first turn's approval exchange")
    check(os.path.exists(os.path.join(E.base, "outside.txt")), "accept wrote it")
    eq(log_records(E)[-1]["system"], AWKWARD, "logged as exec logs its profile's")
    eq(w.close(), 0, "rc")
    devs = [x for x in thread_rollout(E, tid) if x["payload"].get("role") == "developer"]
    eq(devs[0]["payload"]["content"][0]["text"], AWKWARD, "stored at creation, byte for byte")
    # Later turns keep it: a warm resume and `exec resume` add no second copy.
    w = Warm(E)
    w.open(tid)
    w.turn("a later warm turn [[reply:later]]")
    eq(w.close(), 0, "rc")
    ok(codex(E, "a later cold turn", resume=tid), "exec resume")
    devs = [x for x in thread_rollout(E, tid) if x["payload"].get("role") == "developer"]
    eq(len(devs), 1, "one copy")


def main(argv):
    global VERBOSE
    VERBOSE = "-v" in argv
    only = argv[argv.index("-k") + 1] if "-k" in argv else None
    for p in (CLAUDE, CODEX):
        if not os.access(p, os.X_OK):
            print("FAIL: %s is not executable" % p)
            print("0 passed, 1 failed")
            return 1
    passed = failed = skipped = 0
    for fn in TESTS:
        if only and only not in fn.__name__:
            continue
        E = Env()
        t0 = time.monotonic()
        try:
            fn(E)
        except Skipped as e:
            skipped += 1
            print("skip %s: %s" % (fn.__name__, e))
        except CheckFailed as e:
            failed += 1
            print("FAIL %s: %s" % (fn.__name__, e))
        except Exception:
            failed += 1
            print("FAIL %s: crashed\n%s" % (fn.__name__, traceback.format_exc()))
        else:
            passed += 1
            if VERBOSE:
                print("ok   %s (%.2fs)" % (fn.__name__, time.monotonic() - t0))
        finally:
            E.cleanup()
    if "--timing" in argv:
        print("timing: " + timing())
    print("%d passed, %d failed" % (passed, failed) + (", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
