#!/usr/bin/env python3
"""When the real CLIs' files are complete against their turn's last stdout line, and how long
they take to exit after it: what `providers::closing` relies on (by hand, not CI).

For each Claude binary: `-p --input-format stream-json` turns; at the `result` line, whether the
session file holds the turn's assistant entry and its final output count; then turns of one warm
process (stdin left open), each with how long after its result the file first held the turn's
last message id (`providers::claude_written`). For codex: `exec
--json` turns (the 2nd on resume); at `turn.completed`, how many rollout rows exist and the last
ones, against the same after exit, and the exit's delay.

    python3 tools/real-cli/turn_end.py --port 18081 [--c332 BIN] [--c197 BIN] [--codex BIN] \
        [--turns 3] [--work /tmp/turn-end]

Needs the stand-in on PORT (`python3 tools/real-cli/standin.py PORT LOG`). Seen on 2026-12-03:
2.1.332 has the entry, final count included, at its result; 2.1.197 has not written the turn's
entry at its result (a first turn: no file yet, or one without it) and writes it a few ms later;
codex 0.171.0 has every rollout row (task_complete last) at turn.completed and exits 60-130 ms
later; the Claude CLIs exit 35-130 ms after their stdin closes at the result. Warm, 2.1.332 had
each turn on disk at its first look; 2.1.197 wrote it 3-75 ms after its result (12-03, 8 turns).
"""
import argparse
import glob
import json
import os
import subprocess
import time
import uuid

W = "/tmp/realcli"
DEFAULTS = {
    "c332": W + "/node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    "c197": W + "/v197/node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    "codex": W + "/node_modules/.bin/codex",
}


def claude_world(port, work):
    """A HOME of its own, the project folder, and the environment to run Claude Code there."""
    home = os.path.join(work, "home-" + uuid.uuid4().hex[:8])
    proj = os.path.join(work, "proj")
    os.makedirs(home), os.makedirs(proj, exist_ok=True)
    env = dict(os.environ, HOME=home, ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % port,
               ANTHROPIC_API_KEY="dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
               DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1")
    return home, proj, env


def claude(bin_, port, work, turns):
    home, proj, env = claude_world(port, work)
    sid = str(uuid.uuid4())

    def outputs():
        files = glob.glob(home + "/.claude/projects/*/" + sid + ".jsonl")
        if not files:
            return None
        return [json.loads(l)["message"]["usage"]["output_tokens"] for l in open(files[0])
                if json.loads(l).get("type") == "assistant"]

    for i in range(turns):
        flags = ["--session-id", sid] if i == 0 else ["--resume", sid]
        p = subprocess.Popen([bin_, "-p", "--output-format", "stream-json", "--verbose",
                              "--include-partial-messages", "--input-format", "stream-json"] + flags,
                             cwd=proj, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
        line = {"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": "turn %d [[ctx:20000]]" % i}]}}
        p.stdin.write(json.dumps(line) + "\n")
        p.stdin.flush()
        for out in p.stdout:
            if json.loads(out).get("type") == "result":
                at, seen = outputs(), time.time()
                p.stdin.close()
                break
        p.wait()
        print("  turn %d: assistant output counts at result %s; after exit (+%.0f ms) %s"
              % (i, at, (time.time() - seen) * 1000, outputs()))


def claude_warm(bin_, port, work, turns):
    home, proj, env = claude_world(port, work)
    sid = str(uuid.uuid4())

    def ids():
        files = glob.glob(home + "/.claude/projects/*/" + sid + ".jsonl")
        if not files:
            return []
        return [json.loads(l)["message"].get("id") for l in open(files[0])
                if json.loads(l).get("type") == "assistant"]

    p = subprocess.Popen([bin_, "-p", "--output-format", "stream-json", "--verbose",
                          "--include-partial-messages", "--input-format", "stream-json",
                          "--session-id", sid], cwd=proj, env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for i in range(turns):
        line = {"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": "warm turn %d [[ctx:20000]]" % i}]}}
        p.stdin.write(json.dumps(line) + "\n")
        p.stdin.flush()
        last = None
        for out in p.stdout:
            d = json.loads(out)
            if d.get("type") == "assistant":
                last = d["message"].get("id")
            if d.get("type") == "result":
                break
        seen, looks, after = time.time(), 0, None
        while time.time() - seen < 2:
            looks += 1
            if last in ids():
                after = (time.time() - seen) * 1000
                break
            time.sleep(0.0005)
        if after is None:
            print("  warm turn %d: not in the session file 2 s after its result" % i)
        elif looks == 1:
            print("  warm turn %d: in the session file at its result" % i)
        else:
            print("  warm turn %d: in the session file %.1f ms after its result" % (i, after))
    p.stdin.close()
    p.wait()


def codex(bin_, port, work, turns):
    home = os.path.join(work, "codex-" + uuid.uuid4().hex[:8])
    proj = os.path.join(work, "proj")
    os.makedirs(home), os.makedirs(proj, exist_ok=True)
    with open(home + "/config.toml", "w") as f:
        f.write('model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\n'
                'name = "Mock"\nbase_url = "http://127.0.0.1:%d/v1"\nwire_api = "responses"\n'
                'env_key = "MOCK_API_KEY"\n' % port)
    env = dict(os.environ, HOME=home, CODEX_HOME=home, MOCK_API_KEY="dummy")
    thread = None

    def rows():
        files = glob.glob(home + "/sessions/*/*/*/rollout-*%s.jsonl" % thread)
        if not files:
            return None
        kinds = []
        for l in open(files[0]):
            d = json.loads(l)
            kinds.append("%s:%s" % (d.get("type"), d.get("payload", {}).get("type")))
        return len(kinds), kinds[-2:]

    for i in range(turns):
        args = [bin_, "exec", "--json", "--skip-git-repo-check"] + (["resume", thread] if thread else [])
        p = subprocess.Popen(args + ["-"], cwd=proj, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        p.stdin.write("turn %d [[ctx:20000]]\n" % i)
        p.stdin.close()
        at, seen = None, time.time()
        for out in p.stdout:
            d = json.loads(out)
            if d.get("type") == "thread.started":
                thread = d["thread_id"]
            if d.get("type") == "turn.completed":
                at, seen = rows(), time.time()
        p.wait()
        print("  turn %d: rollout rows at turn.completed %s; after exit (+%.0f ms) %s"
              % (i, at, (time.time() - seen) * 1000, rows()))


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--port", type=int, default=18080)
    a.add_argument("--work", default="/tmp/turn-end")
    a.add_argument("--turns", type=int, default=3)
    for k, v in DEFAULTS.items():
        a.add_argument("--" + k, default=v)
    a = a.parse_args()
    os.makedirs(a.work, exist_ok=True)
    for name in ("c332", "c197"):
        print("claude %s (%s)" % (name, getattr(a, name)))
        claude(getattr(a, name), a.port, a.work, a.turns)
        claude_warm(getattr(a, name), a.port, a.work, a.turns + 1)
    print("codex (%s)" % a.codex)
    codex(a.codex, a.port, a.work, a.turns)


if __name__ == "__main__":
    main()
