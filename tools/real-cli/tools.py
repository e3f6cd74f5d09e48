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


# ---------------------------------------------------------------- baton on the real CLIs

def turn_events(stdout):
    """The TurnEvents of a `send --json` stream (objects with a `kind`), in order."""
    out = []

    def walk(v):
        if isinstance(v, dict):
            if v.get("kind") in ("tool_use", "tool_result", "denied", "subagent_text", "end", "text",
                                 "session"):
                out.append(v)
                return
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    for line in stdout.splitlines():
        try:
            walk(json.loads(line))
        except ValueError:
            pass
    return out


class Drive:
    def __init__(self, a, world, provider, claude_bin, codex_bin):
        self.a, self.world, self.provider = a, world, provider
        self.w = os.path.join(a.out, world)
        shutil.rmtree(self.w, ignore_errors=True)
        self.home = os.path.join(self.w, "home")
        for d in ("home/.codex", "baton", "bin"):
            os.makedirs(os.path.join(self.w, d))
        # The real binaries first on PATH, under the names baton looks for.
        for cli, target in (("claude", claude_bin), ("codex", codex_bin)):
            if target:
                os.symlink(os.path.abspath(target), os.path.join(self.w, "bin", cli))
        self.env = env_for(self.home, a.port)
        self.env.update(BATON_HOME=os.path.join(self.w, "baton"),
                        PATH=os.path.join(self.w, "bin") + ":" + os.environ["PATH"])
        self.lines = []
        self.step = 0

    def baton(self, name, args, timeout=240):
        self.step += 1
        p = subprocess.run([self.a.baton] + args, capture_output=True, text=True, env=self.env,
                           cwd=self.w, timeout=timeout)
        base = os.path.join(self.w, "%02d-%s" % (self.step, name))
        for ext, text in (("cmd", " ".join(["baton"] + args) + "\n"), ("stdout", p.stdout),
                          ("stderr", p.stderr), ("rc", "%d\n" % p.returncode)):
            with open(base + "." + ext, "w") as f:
                f.write(text)
        return p

    def check(self, ok, what, detail=""):
        line = "%s %s %s%s" % ("OK  " if ok else "FAIL", self.world, what,
                               "" if ok or not detail else ": " + str(detail)[:600])
        self.lines.append(line)
        print(line, flush=True)
        return ok

    def case(self, name, prompt, model=None):
        """A terminal of its own in a plain folder holding a.txt; one turn; its events and log."""
        proj = os.path.join(self.w, "proj-" + name)
        os.makedirs(proj)
        with open(os.path.join(proj, "a.txt"), "w") as f:
            f.write("old line\nsecond\n")
        args = ["new", name, "--dir", proj, "--provider", self.provider]
        if model:
            args += ["--model", model]
        p = self.baton("new-" + name, args)
        self.check(p.returncode == 0, "%s: baton new" % name, p.stderr)
        p = self.baton("send-" + name, ["send", name, prompt, "--json"])
        self.check(p.returncode == 0, "%s: send exits 0" % name, p.stderr[-400:])
        events = turn_events(p.stdout)
        log = self.baton("log-" + name, ["log", name, "--json"])
        try:
            turn = json.loads(log.stdout)["turns"][-1]
        except (ValueError, KeyError, IndexError):
            turn = {}
        return proj, events, turn

    def uses(self, events):
        return [e for e in events if e["kind"] == "tool_use"]

    def results(self, events):
        return {e["id"]: e for e in events if e["kind"] == "tool_result"}

    def ends(self, events):
        return [e for e in events if e["kind"] == "end"]


def claude_checks(d, version):
    proj, ev, turn = d.case("edits", CASES["edits"][0])
    d.check(turn.get("tools") == ["Read a.txt", "Edit a.txt", "Write b.txt", "Bash ls"],
            "edits: log tools relative to the checkout", turn.get("tools"))
    uses, res = d.uses(ev), d.results(ev)
    edit = next((u for u in uses if u["name"] == "Edit"), {})
    d.check(edit.get("edits") == [{"path": "a.txt", "old": "old line", "new": "new line"}],
            "edits: the Edit's edit", edit)
    write = next((u for u in uses if u["name"] == "Write"), {})
    d.check(write.get("edits") == [{"path": "b.txt", "old": "", "new": "written by standin\n"}],
            "edits: the Write's edit", write)
    d.check(all(u.get("id") in res and not res[u["id"]].get("is_error") for u in uses) and len(uses) == 4,
            "edits: every call has its result, none failed", [res.get(u.get("id")) for u in uses])
    bash = next((u for u in uses if u["name"] == "Bash"), {})
    d.check("a.txt" in res.get(bash.get("id"), {}).get("output", ""), "edits: ls's output", res)
    d.check(open(os.path.join(proj, "a.txt")).read() == "new line\nsecond\n", "edits: a.txt edited on disk")
    d.check(turn.get("status") == "completed" and len(d.ends(ev)) == 1, "edits: completed, one end",
            (turn.get("status"), d.ends(ev)))

    proj, ev, turn = d.case("deny", CASES["deny"][0])
    outside = os.path.join(os.path.dirname(proj), "outside.txt")
    denied = [(e["tool"], e["target"]) for e in ev if e["kind"] == "denied"]
    d.check(denied == [("Bash", "cargo build"), ("Write", outside)], "deny: two refusals (the path resolved)",
            denied)
    res = d.results(ev)
    texts = [res.get(u.get("id"), {}) for u in d.uses(ev)]
    d.check([t.get("is_error") for t in texts] == [True, True], "deny: both results are errors", texts)
    d.check(texts and texts[0].get("output") == "This command requires approval", "deny: Bash's refusal text",
            texts)
    d.check(not os.path.exists(outside), "deny: nothing written outside")
    d.check(turn.get("tools") == ["Bash cargo build", "Write ../outside.txt"], "deny: log tools",
            turn.get("tools"))

    for name, prompt in (("subagent", CASES["subagent"][0]), ("subagentfg", CASES["subagent-fg"][0])):
        proj, ev, turn = d.case(name, prompt)
        uses = d.uses(ev)
        agent = next((u for u in uses if u["name"] in ("Agent", "Task")), {})
        sub = [u for u in uses if u.get("parent")]
        d.check(agent.get("summary") == "Agent Look around", "%s: the Agent call" % name, agent)
        d.check([(u["summary"], u["parent"]) for u in sub] == [("Read a.txt", agent.get("id"))],
                "%s: the subagent's Read nested under it" % name, sub)
        res = d.results(ev)
        d.check(sub and res.get(sub[0]["id"], {}).get("parent") == agent.get("id"),
                "%s: its result nested too" % name, res)
        d.check(len(d.ends(ev)) == 1 and turn.get("status") == "completed", "%s: one end, completed" % name,
                d.ends(ev))
        d.check("Subagent done" not in (turn.get("answer") or ""), "%s: the subagent's words not the answer"
                % name, turn.get("answer"))
        d.check(turn.get("tools") == ["Agent Look around", "Read a.txt"], "%s: log tools" % name,
                turn.get("tools"))


def codex_checks(d):
    proj, ev, turn = d.case("edits", CODEX_CASES["edits"], model="gpt-5.5")
    d.check(turn.get("tools") == ["Edit a.txt", "Add b.txt", "Shell ls"], "codex edits: log tools",
            turn.get("tools"))
    res = d.results(ev)
    shell = next((u for u in d.uses(ev) if u["name"] == "shell"), {})
    d.check("a.txt" in res.get(shell.get("id"), {}).get("output", ""), "codex edits: ls's output", res)
    d.check(open(os.path.join(proj, "a.txt")).read() == "new line\nsecond\n", "codex edits: a.txt patched")
    d.check(os.path.exists(os.path.join(proj, "b.txt")), "codex edits: b.txt added")
    d.check(turn.get("status") == "completed", "codex edits: completed", turn.get("status"))


def drive(a):
    lines = []
    for world in a.worlds.split(","):
        if world in ("c332", "c197"):
            binary = a.c332 if world == "c332" else a.c197
            if not binary:
                continue
            d = Drive(a, world, "claude", binary, a.codex)
            claude_checks(d, world)
        elif world == "codex" and a.codex:
            d = Drive(a, world, "codex", a.c332, a.codex)
            codex_checks(d)
        else:
            continue
        d.baton("server-stop", ["server", "stop"])
        lines += d.lines
    with open(os.path.join(a.out, "checks.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    fails = sum(1 for l in lines if l.startswith("FAIL"))
    print("%d checks, %d FAIL" % (len(lines), fails))
    return fails


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
    a.baton = a.baton and os.path.abspath(a.baton)
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
