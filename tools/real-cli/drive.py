#!/usr/bin/env python3
"""Drive baton through the README flows on the real CLIs (or on the shims, to compare).

  python3 drive.py --baton PATH --mode real|shim [--claude-version 2.1.332|2.1.197]
                   --claude-bin PATH --codex-bin PATH --out DIR [--port 18080]

real: the stand-in (standin.py) must already listen on --port; wrappers named claude/codex that
log their argv and exec the given binaries are put first on PATH. shim: /work/main/shims (or
--shims) first on PATH. Everything runs in a private world under --out (HOME, CODEX_HOME,
BATON_HOME, the project). Each step writes NN-name.{cmd,rc,stdout,stderr,show.json} to --out,
then check lines "OK ..."/"FAIL ..." are printed and written to --out/checks.txt.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WRAP = """#!/bin/sh
python3 -c 'import json,os,sys; open(os.environ["REALCLI_ARGV_LOG"],"a").write(json.dumps({"cli":sys.argv[1],"argv":sys.argv[2:],"cwd":os.getcwd()})+"\\n")' %s "$@"
exec %s "$@"
"""


class Driver:
    def __init__(self, a):
        self.a = a
        self.out = os.path.abspath(a.out)
        shutil.rmtree(self.out, ignore_errors=True)
        self.world = os.path.join(self.out, "world")
        self.proj = os.path.join(self.world, "proj")
        for d in ("home", "codex", "baton", "proj", "bin"):
            os.makedirs(os.path.join(self.world, d))
        self.step_no = 0
        self.checks = []
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC", "CLAUDE", "CODEX", "OPENAI", "BATON"))}
        env.update(HOME=self.world + "/home", CODEX_HOME=self.world + "/codex",
                   BATON_HOME=self.world + "/baton", ANTHROPIC_API_KEY="dummy",
                   MOCK_API_KEY="dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1",
                   REALCLI_ARGV_LOG=self.out + "/argv.jsonl",
                   BATON_SHIM_LOG=self.out + "/argv.jsonl",
                   BATON_SHIM_CLAUDE_VERSION=a.claude_version)
        if a.mode == "real":
            env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:%d" % a.port
            bindir = self.world + "/bin"
            for name, target in (("claude", a.claude_bin), ("codex", a.codex_bin)):
                p = os.path.join(bindir, name)
                with open(p, "w") as f:
                    f.write(WRAP % (name, target))
                os.chmod(p, 0o755)
            with open(self.world + "/codex/config.toml", "w") as f:
                f.write('model = "mock-model"\nmodel_provider = "mock"\n\n'
                        '[model_providers.mock]\nname = "Mock"\n'
                        'base_url = "http://127.0.0.1:%d/v1"\nwire_api = "responses"\n'
                        'env_key = "MOCK_API_KEY"\n' % a.port)
        else:
            bindir = a.shims
        env["PATH"] = bindir + ":" + env["PATH"]
        self.env = env
        self.standin_log = a.standin_log

    # -- helpers --
    def run(self, name, args, stdin=None, background=False, show=True):
        self.step_no += 1
        base = os.path.join(self.out, "%02d-%s" % (self.step_no, name))
        cmd = [self.a.baton] + args
        with open(base + ".cmd", "w") as f:
            f.write(" ".join(json.dumps(c) if " " in c else c for c in cmd) + "\n")
        so, se = open(base + ".stdout", "w"), open(base + ".stderr", "w")
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin is not None else
                             subprocess.DEVNULL, stdout=so, stderr=se, env=self.env,
                             cwd=self.proj, text=True)
        if stdin is not None:
            p.stdin.write(stdin)
            p.stdin.close()
        if background:
            return (p, base)
        return self.finish((p, base), show)

    def finish(self, handle, show=True):
        p, base = handle
        rc = p.wait(timeout=300)
        with open(base + ".rc", "w") as f:
            f.write("%d\n" % rc)
        if not show:  # `baton show` would start the server again
            return rc, None, None, None
        show = self.show()
        with open(base + ".show.json", "w") as f:
            json.dump(show, f, indent=1)
        return rc, open(base + ".stdout").read(), open(base + ".stderr").read(), show

    def show(self):
        r = subprocess.run([self.a.baton, "show", "api", "--json"], capture_output=True,
                           text=True, env=self.env)
        try:
            return json.loads(r.stdout)
        except ValueError:
            return {"_error": r.stdout + r.stderr}

    def send(self, name, prompt, *extra, background=False):
        return self.run(name, ["send", "api", "--json", *extra, prompt], background=background)

    def check(self, ok, what, detail=""):
        line = "%s %s%s" % ("OK  " if ok else "FAIL", what, (" -- " + detail) if detail else "")
        self.checks.append(line)
        print(line, flush=True)

    def standin_requests(self, since):
        if self.a.mode != "real" or not os.path.exists(self.standin_log):
            return []
        out = []
        with open(self.standin_log) as f:
            for line in f:
                e = json.loads(line)
                if e.get("ts", 0) >= since and "n" in e:
                    out.append(e)
        return out

    def last_data(self, stdout):
        for line in reversed(stdout.strip().splitlines()):
            try:
                j = json.loads(line)
            except ValueError:
                continue
            if j.get("reply") in ("ok", "error"):
                return j
        return {}

    # -- the flow --
    def flow(self):
        a = self.a
        rc, o, e, s = self.run("new", ["new", "api", "--dir", self.proj, "--provider", "claude",
                                       "--brief", "Backend of the billing service"])
        self.check(rc == 0, "new rc 0", "rc=%d %s" % (rc, e.strip()))
        rc, o, e, s = self.run("instr", ["instructions", "api", "add",
                                         "Always run cargo fmt before committing."])
        self.check(rc == 0 and s.get("instructions"), "instructions add", e.strip())

        t0 = time.time()
        rc, o, e, s = self.send("send1", "hello [[ctx:20000]]")
        d = self.last_data(o).get("data", {})
        self.check(rc == 0 and d.get("status") == "completed", "send1 completed",
                   "rc=%d %s" % (rc, e.strip()[-300:]))
        sess1 = (s.get("sessions") or [{}])[0].get("session_id")
        self.check(s.get("context", {}) and s["context"].get("tokens") == 20000,
                   "send1 context 20000", json.dumps(s.get("context")))
        reqs = self.standin_requests(t0)
        self.models1 = [(r["body"].get("model"), r["headers"].get("anthropic-beta", "")
                         .count("context-1m")) for r in reqs]
        if reqs:
            sysprompt = json.dumps(reqs[-1]["body"].get("system"))
            self.check("Backend of the billing service" in sysprompt and
                       "Always run cargo fmt" in sysprompt, "send1 system prompt has brief and "
                       "instruction")

        t0 = time.time()
        rc, o, e, s = self.send("send2-resume", "second [[ctx:30000]]")
        self.check(rc == 0 and len(s.get("sessions", [])) == 1 and
                   s["sessions"][0].get("session_id") == sess1,
                   "send2 resumed the same session", "rc=%d sessions=%s" % (
                       rc, json.dumps(s.get("sessions"))))
        reqs = self.standin_requests(t0)
        if reqs:
            self.check(any("hello" in json.dumps(r["body"].get("messages")) for r in reqs),
                       "send2 request carried the earlier messages",
                       "n_messages=%s" % [r.get("n_messages") for r in reqs])
            models2 = [(r["body"].get("model"), r["headers"].get("anthropic-beta", "")
                        .count("context-1m")) for r in reqs]
            self.check(models2[-1:] == self.models1[-1:], "send2 same model (+1m beta) as send1",
                       "send1 %s send2 %s" % (self.models1, models2))

        window = (s.get("context") or {}).get("window") or 1000000
        big = int(window * 0.5)
        rc, o, e, s = self.send("send3-big", "big [[ctx:%d]]" % big)
        d = self.last_data(o).get("data", {})
        self.check(rc == 0 and d.get("rotates_next") is True, "send3 rotates_next",
                   "rc=%d ctx=%s rotates_next=%s" % (rc, json.dumps(s.get("context")),
                                                     d.get("rotates_next")))

        t0 = time.time()
        rc, o, e, s = self.send("send4-rotated", "after rotation [[ctx:10000]]")
        conv = s.get("conversation") or {}
        self.check(rc == 0 and conv.get("number") == 2 and conv.get("opened_reason") == "size",
                   "send4 opened conversation 2 (size)", "rc=%d conv=%s" % (rc, json.dumps(conv)))
        reqs = self.standin_requests(t0)
        if reqs:
            msgs = json.dumps(reqs[-1]["body"].get("messages"))
            self.check("hello" not in msgs and "big [[ctx" not in msgs,
                       "send4 request has no earlier messages")
            self.check("Always run cargo fmt" in json.dumps(reqs[-1]["body"].get("system")),
                       "send4 system prompt still has the instruction")

        t0 = time.time()
        rc, o, e, s = self.send("send5-switch", "switch to codex [[ctx:15000]]",
                                "--provider", "codex")
        ss = s.get("sessions") or []
        self.check(rc == 0 and ss and ss[-1].get("provider") == "codex" and
                   ss[-1].get("reason") == "switch", "send5 switched to codex",
                   "rc=%d %s sessions=%s" % (rc, e.strip()[-400:], json.dumps(ss)))
        codex_sess = ss[-1].get("session_id") if ss else None
        self.check((s.get("context") or {}).get("tokens") == 15000, "send5 context 15000",
                   json.dumps(s.get("context")))
        reqs = self.standin_requests(t0)
        if reqs:
            body = json.dumps(reqs[-1]["body"])
            self.check("Always run cargo fmt" in body and "Backend of the billing" in body,
                       "send5 codex request carries instruction and brief")

        t0 = time.time()
        rc, o, e, s = self.send("send6-codex-resume", "codex again [[ctx:16000]]")
        ss = s.get("sessions") or []
        self.check(rc == 0 and ss and ss[-1].get("session_id") == codex_sess and len(ss) == 2,
                   "send6 resumed the codex thread", "rc=%d %s sessions=%s" % (
                       rc, e.strip()[-400:], json.dumps(ss)))
        reqs = self.standin_requests(t0)
        if reqs:
            self.check("switch to codex" in json.dumps(reqs[-1]["body"].get("input")),
                       "send6 request carried the earlier codex turn")

        # interrupt on codex
        h = self.send("send7-codex-interrupt", "slow answer [[slow:400]] [[hang]]",
                      background=True)
        time.sleep(6)
        rci = self.run("interrupt-codex", ["interrupt", "api"])
        rc, o, e, s = self.finish(h)
        lt = s.get("last_turn") or {}
        self.check(rc == 1 and lt.get("status") == "interrupted", "send7 codex interrupted",
                   "send rc=%d interrupt rc=%d last_turn=%s" % (rc, rci[0], json.dumps(lt)))
        rc, o, e, s = self.send("send8-codex-after-int", "after interrupt [[ctx:17000]]")
        self.check(rc == 0, "send8 codex send after interrupt", "rc=%d %s" % (rc, e[-400:]))

        # back to claude, interrupt there
        rc, o, e, s = self.send("send9-back-claude", "back to claude [[ctx:18000]]",
                                "--provider", "claude")
        ss = s.get("sessions") or []
        self.check(rc == 0 and ss and ss[-1].get("provider") == "claude",
                   "send9 switched back to claude", "rc=%d %s" % (rc, json.dumps(ss)))
        h = self.send("send10-claude-interrupt", "slow answer [[slow:400]] [[hang]]",
                      background=True)
        time.sleep(6)
        rci = self.run("interrupt-claude", ["interrupt", "api"])
        rc, o, e, s = self.finish(h)
        lt = s.get("last_turn") or {}
        self.check(rc == 1 and lt.get("status") == "interrupted", "send10 claude interrupted",
                   "send rc=%d interrupt rc=%d last_turn=%s" % (rc, rci[0], json.dumps(lt)))
        rc, o, e, s = self.send("send11-claude-after-int", "after claude interrupt [[ctx:19000]]")
        self.check(rc == 0, "send11 claude send after interrupt", "rc=%d %s" % (rc, e[-400:]))

        # lost session
        ss = s.get("sessions") or []
        sid = ss[-1].get("session_id") if ss else "none"
        files = glob.glob(self.world + "/home/.claude/projects/*/%s.jsonl" % sid)
        self.check(bool(files), "claude session file found", str(files))
        for f in files:
            os.unlink(f)
        rc, o, e, s = self.send("send12-lost", "after deleting the session [[ctx:21000]]")
        ss = s.get("sessions") or []
        self.check(rc == 0 and ss and ss[-1].get("reason") == "lost" and
                   ss[-1].get("session_id") != sid, "send12 fresh session after loss",
                   "rc=%d %s sessions=%s" % (rc, e.strip()[-400:], json.dumps(ss[-2:])))
        rc, o, e, s = self.send("send13-after-lost", "and again [[ctx:22000]]")
        self.check(rc == 0, "send13 resume of the replacement session", "rc=%d" % rc)

        self.run("log", ["log", "api", "--json"])
        self.run("server-stop", ["server", "stop"], show=False)
        with open(self.out + "/checks.txt", "w") as f:
            f.write("\n".join(self.checks) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--mode", choices=("real", "shim"), required=True)
    ap.add_argument("--claude-version", default="2.1.332")
    ap.add_argument("--claude-bin", default="claude")
    ap.add_argument("--codex-bin", default="codex")
    ap.add_argument("--shims", default=os.path.normpath(os.path.join(HERE, "../../shims")))
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18080)
    ap.add_argument("--standin-log", default="")
    a = ap.parse_args()
    a.baton = os.path.abspath(a.baton)
    Driver(a).flow()


if __name__ == "__main__":
    main()
