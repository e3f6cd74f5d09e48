#!/usr/bin/env python3
"""Tool events on the real CLIs: edits, commands, a refused command, a subagent, a Codex patch.

  python3 tools.py --baton target/release/baton --c332 BIN --c197 BIN --codex BIN --out DIR
                   [--port 18099] [--capture FIXDIR] [--worlds c332,c197,codex]

Starts tools/real-cli/standin.py itself (its [[tool:NAME:ARG]] / [[deny:NAME:ARG]] / [[fg]]
markers script the model's tool calls). Two parts:

- `--capture FIXDIR`: runs each real CLI by hand with the flags baton passes (Claude:
  `-p --output-format stream-json --verbose --include-partial-messages --input-format
  stream-json --replay-user-messages --session-id … --append-system-prompt-file …
  --permission-mode acceptEdits --add-dir=…`, the prompt as one JSON line then EOF; Codex:
  `codex exec --json --skip-git-repo-check -m gpt-5.5 --sandbox workspace-write`, the prompt on
  stdin) in a private world whose checkout holds `a.txt` ("old line\\nsecond\\n"), and writes
  `CASE-VERSION.stdout.jsonl` (paths rewritten: the checkout -> /home/dev/proj, the home ->
  /home/dev), `.rc` and `.stderr` to FIXDIR (fixtures/captures/tools/).
- always: drives baton itself (`baton new … --provider P --dir CHECKOUT`, `baton send`) on the
  real CLIs for the same cases and checks `baton log NAME --json` holds the tool events (the
  call's name and target relative to the checkout, results, edits, refusals, a subagent's
  steps under its call). OK/FAIL lines in OUT/checks.txt; exit 1 on any FAIL.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SID = "7001aaaa-0000-4000-8000-00000000000%d"

# name -> (prompt, which CLIs)
CASES = {
    "edits": ("edit and run [[tool:Read:a.txt]] [[tool:Edit:a.txt]] [[tool:Write:b.txt]] "
              "[[tool:Bash:ls]]", ("claude", "codex")),
    "deny": ("build it [[deny:Bash:cargo build]] [[deny:Write:../outside.txt]]", ("claude",)),
    "subagent": ("look around [[tool:Task:Look around]]", ("claude",)),
    "subagent-fg": ("look around [[tool:Task:Look around]] [[fg]]", ("claude",)),
}
CODEX_CASES = {"edits": "patch and run [[tool:Edit:a.txt]] [[tool:Write:b.txt]] [[tool:Bash:ls]]"}


class Standin:
    def __init__(self, port, log):
        self.p = subprocess.Popen([sys.executable, os.path.join(HERE, "standin.py"), str(port), log],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/x" % port, timeout=1)
                return
            except Exception:
                time.sleep(0.1)
        raise SystemExit("the stand-in did not start")

    def stop(self):
        self.p.terminate()
        self.p.wait()


def world(out, name):
    w = os.path.join(out, "worlds", name)
    shutil.rmtree(w, ignore_errors=True)
    home, proj = os.path.join(w, "home"), os.path.join(w, "proj")
    for d in (home, proj, os.path.join(home, ".codex"), os.path.join(w, "shots")):
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(proj, "a.txt"), "w") as f:
        f.write("old line\nsecond\n")
    return w, home, proj


def env_for(home, port):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC", "CLAUDE", "CODEX", "OPENAI", "BATON"))}
    env.update(HOME=home, ANTHROPIC_API_KEY="dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
               DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1",
               ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % port, MOCK_API_KEY="dummy",
               CODEX_HOME=os.path.join(home, ".codex"))
    with open(os.path.join(home, ".codex", "config.toml"), "w") as f:
        f.write('model = "gpt-5.5"\nmodel_provider = "mock"\n\n[model_providers.mock]\n'
                'name = "Mock"\nbase_url = "http://127.0.0.1:%d/v1"\nwire_api = "responses"\n'
                'env_key = "MOCK_API_KEY"\n' % port)
    return env


def rewrite(text, w):
    for src, dst in ((os.path.join(w, "proj"), "/home/dev/proj"), (os.path.join(w, "home"), "/home/dev"),
                     (os.path.join(w, "shots"), "/home/dev/shots"), (w, "/home/dev/world")):
        text = text.replace(src, dst)
        text = text.replace(re.sub(r"[^A-Za-z0-9]", "-", src), re.sub(r"[^A-Za-z0-9]", "-", dst))
    return text


def capture(a, fixdir):
    os.makedirs(fixdir, exist_ok=True)
    runs = []
    for i, (name, (prompt, clis)) in enumerate(CASES.items()):
        if "claude" in clis:
            for version, binary in (("2.1.332", a.c332), ("2.1.197", a.c197)):
                if binary:
                    runs.append((name, version, binary, prompt, i))
    if a.codex:
        for name, prompt in CODEX_CASES.items():
            runs.append((name, "codex", a.codex, prompt, 0))
    for name, version, binary, prompt, i in runs:
        w, home, proj = world(a.out, "capture-%s-%s" % (name, version))
        env = env_for(home, a.port)
        if version == "codex":
            argv = [binary, "exec", "--json", "--skip-git-repo-check", "-m", "gpt-5.5",
                    "--sandbox", "workspace-write"]
            stdin = prompt
            prefix = "codex-%s" % name
        else:
            sysfile = os.path.join(w, "system.txt")
            with open(sysfile, "w") as f:
                f.write("House rules of the capture.\n")
            argv = [binary, "-p", "--output-format", "stream-json", "--verbose",
                    "--include-partial-messages", "--input-format", "stream-json",
                    "--replay-user-messages", "--session-id", SID % i,
                    "--append-system-prompt-file", sysfile, "--permission-mode", "acceptEdits",
                    "--add-dir=" + os.path.join(w, "shots")]
            stdin = json.dumps({"type": "user", "message": {"role": "user", "content": prompt}}) + "\n"
            prefix = "claude-%s-%s" % (name, version)
        p = subprocess.run(argv, input=stdin.encode(), capture_output=True, cwd=proj, env=env,
                           timeout=180)
        base = os.path.join(fixdir, prefix)
        with open(base + ".stdout.jsonl", "w") as f:
            f.write(rewrite(p.stdout.decode("utf-8", "replace"), w))
        with open(base + ".stderr", "w") as f:
            f.write(rewrite(p.stderr.decode("utf-8", "replace"), w))
        with open(base + ".rc", "w") as f:
            f.write("%d\n" % p.returncode)
        print("captured %s rc=%d (%d lines)" % (prefix, p.returncode, p.stdout.count(b"\n")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton")
    ap.add_argument("--c332")
    ap.add_argument("--c197")
    ap.add_argument("--codex")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18099)
    ap.add_argument("--capture")
    ap.add_argument("--worlds", default="c332,c197,codex")
    a = ap.parse_args()
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    standin = Standin(a.port, os.path.join(a.out, "standin.log.jsonl"))
    try:
        if a.capture:
            capture(a, os.path.abspath(a.capture))
        fails = 0
        if a.baton:
            fails = drive(a)
    finally:
        standin.stop()
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
