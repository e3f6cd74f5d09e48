#!/usr/bin/env python3
"""Drive baton's `local` provider against a real OpenAI-compatible server (issue 6), by its CLI.

  python3 drive.py --baton PATH --shims DIR --out DIR
                   --big URL --big-log FILE --small URL --small-log FILE

--big / --small: base URLs (ending in /v1) of two logging pass-throughs (proxy.py) in front of
the real server(s): `big` with a roomy window, `small` with a small one (its window is NOT
configured in baton: baton has to learn it from the server). The logs are what the server
received. Everything runs in a private world under --out (HOME, BATON_HOME, a git checkout).
Each step writes NN-name.{cmd,rc,stdout,stderr} to --out; check lines "OK ..."/"FAIL ..." are
printed and written to --out/checks.txt; figures go to --out/figures.json.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

BRIEF = "Checkout of the demo shop; the codeword of this terminal is HERON-42."
RULE1 = "Always answer in plain English."
RULE2 = "Keep every answer under five sentences."
FILES = {
    "README.md": "# demo shop\n\nA tiny shop used to check baton against a real server.\n",
    "notes.txt": "The secret fruit is PLUM.\n",
    "src/shop.py": "def price(item):\n    return {'plum': 3, 'pear': 2}[item]\n",
}


class Driver:
    def __init__(self, a):
        self.a = a
        self.out = os.path.abspath(a.out)
        shutil.rmtree(self.out, ignore_errors=True)
        self.world = os.path.join(self.out, "world")
        self.proj = os.path.join(self.world, "shop")
        for d in ("home", "baton", "shop"):
            os.makedirs(os.path.join(self.world, d))
        for path, text in FILES.items():
            p = os.path.join(self.proj, path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC", "CLAUDE", "CODEX", "OPENAI", "BATON"))}
        env.update(HOME=self.world + "/home", BATON_HOME=self.world + "/baton",
                   CODEX_HOME=self.world + "/home/.codex",
                   GIT_AUTHOR_NAME="check", GIT_AUTHOR_EMAIL="check@example.invalid",
                   GIT_COMMITTER_NAME="check", GIT_COMMITTER_EMAIL="check@example.invalid")
        env["PATH"] = os.path.abspath(a.shims) + ":" + env["PATH"]
        self.env = env
        for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                    ["git", "commit", "-q", "-m", "demo shop"]):
            subprocess.run(cmd, cwd=self.proj, env=env, check=True)
        with open(self.world + "/baton/config.toml", "w") as f:
            f.write("# model and window are left to the server (/v1/models)\n"
                    "[providers.local.endpoints.big]\nbase_url = \"%s\"\n\n"
                    "[providers.local.endpoints.small]\nbase_url = \"%s\"\n\n"
                    "# the small server, with a window configured too big by mistake\n"
                    "[providers.local.endpoints.liar]\nbase_url = \"%s\"\n"
                    "context_window = 8192\n"
                    % (a.big, a.small, a.small))
        self.step_no = 0
        self.checks = []
        self.figures = {}

    def run(self, name, args, stdin=None):
        self.step_no += 1
        base = os.path.join(self.out, "%02d-%s" % (self.step_no, name))
        cmd = [self.a.baton] + args
        with open(base + ".cmd", "w") as f:
            f.write(" ".join(json.dumps(c) if " " in c else c for c in cmd) + "\n")
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=self.env,
                           cwd=self.world, timeout=900)
        for ext, text in (("stdout", p.stdout), ("stderr", p.stderr), ("rc", str(p.returncode))):
            with open(base + "." + ext, "w") as f:
                f.write(text)
        return p

    def json(self, args):
        p = self.run(args[0] + "-json", args + ["--json"])
        return json.loads(p.stdout)

    def check(self, ok, what, detail=""):
        line = ("OK   " if ok else "FAIL ") + what + ("" if ok or not detail else ": " + str(detail)[:600])
        print(line, flush=True)
        self.checks.append(line)

    def send(self, name, term, prompt, extra=()):
        p = self.run(name, ["send", term, *extra, "-"], stdin=prompt)
        self.check(p.returncode == 0, "%s: baton send exits 0" % name, p.stderr[-600:])
        return p


def chats(log):
    """The chat requests the server received, in order."""
    out = []
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                r = json.loads(line)
                if r["method"] == "POST" and r["path"].endswith("/chat/completions"):
                    out.append(r)
    return out


def system_of(req):
    m = req["body"]["messages"][0]
    return m["content"] if m["role"] == "system" else None


def prompt_of(req):
    """The prompt of the turn a request belongs to (its last user message)."""
    users = [m for m in req["body"]["messages"] if m["role"] == "user"]
    return users[-1]["content"] if users else ""


def usage_of(req):
    for d in req["answer"] if isinstance(req["answer"], list) else []:
        if isinstance(d, dict) and isinstance(d.get("usage"), dict):
            return d["usage"]
    return None


def tool_calls_of(req):
    calls = []
    for d in req["answer"] if isinstance(req["answer"], list) else []:
        if isinstance(d, dict):
            for c in d.get("choices") or []:
                calls += (c.get("delta") or {}).get("tool_calls") or []
    return calls


def joined_arguments(req, index):
    return "".join((c.get("function") or {}).get("arguments") or ""
                   for c in tool_calls_of(req) if c.get("index") == index)


def whole_json(text):
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def whole_turns(msgs):
    """Splits messages after the system one into turns (each opening on a user message)."""
    turns = []
    for m in msgs[1:]:
        if m["role"] == "user" or not turns:
            turns.append([])
        turns[-1].append(m)
    return turns


def main():
    ap = argparse.ArgumentParser()
    for k in ("baton", "shims", "out", "big", "big_log", "small", "small_log"):
        ap.add_argument("--" + k.replace("_", "-"), required=True)
    a = ap.parse_args()
    d = Driver(a)
    big, small = a.big_log, a.small_log

    # --- 1. a multi-turn conversation with tool use, standing text on every request ---------
    p = d.run("new-api", ["new", "api", "--dir", d.proj, "--provider", "local:big",
                          "--brief", BRIEF])
    d.check(p.returncode == 0, "baton new api --provider local:big", p.stderr)
    d.run("instr-add-1", ["instructions", "api", "add", RULE1])
    before = len(chats(big))
    d.send("send-api-1", "api", "Read the file notes.txt.")
    d.send("send-api-2", "api", "Run the command ls.")
    d.run("instr-add-2", ["instructions", "api", "add", RULE2])
    d.send("send-api-3", "api", "Name one file you saw in the checkout.")
    show = d.json(["show", "api"])
    log = d.json(["log", "api"])
    reqs = chats(big)[before:]
    d.figures["api_requests"] = len(reqs)
    d.figures["api_usage"] = [usage_of(r) for r in reqs]
    d.figures["api_context"] = show.get("context")
    d.figures["api_model"] = show.get("model")
    d.figures["api_tools"] = [t["tools"] for t in log["turns"]]
    d.figures["api_forced"] = [r["forced"] for r in reqs]
    systems = [system_of(r) for r in reqs]
    d.check(len(reqs) >= 4, "at least 4 chat requests for 3 turns (one tool round)", len(reqs))
    d.check(all(s and BRIEF in s and RULE1 in s for s in systems),
            "every request's system message carries the brief and the first instruction",
            systems)
    d.check(all(s and show["dir"] in s for s in systems),
            "every request's system message names the checkout", show["dir"])
    turn3 = [r for r in reqs if prompt_of(r).startswith("Name one")]
    d.check(bool(turn3) and all(RULE2 in system_of(r) for r in turn3),
            "the instruction added before turn 3 is in turn 3's system message (current text)")
    d.check(all(RULE2 not in system_of(r) for r in reqs if r not in turn3),
            "…and in no earlier request")
    calls = tool_calls_of(reqs[0])
    d.check(bool(calls), "the server streamed a real tool call in the first request", reqs[0]["answer"])
    d.check(any(t["tools"] for t in log["turns"]), "baton ran tools (shown in the turns' tools)",
            [t["tools"] for t in log["turns"]])
    second = reqs[1]["body"]["messages"] if len(reqs) > 1 else []
    d.check(any(m["role"] == "tool" and calls and m.get("tool_call_id") == calls[0].get("id")
                for m in second),
            "the next request answers the tool call by its id", second[-3:])
    results = [m.get("content") or "" for r in reqs for m in r["body"]["messages"]
               if m["role"] == "tool"]
    # Which tool and arguments is the model's choice (it varies with the checkout's path in
    # the system text); a result that is not an arguments error means the tool really ran.
    d.check(any(not t.startswith("error: the arguments") for t in results),
            "a tool really ran in the checkout and its result reached the model", results[:6])
    cut = {(r["n"], c["index"]) for r in reqs for c in tool_calls_of(r)
           if not whole_json(joined_arguments(r, c["index"]))}
    d.figures["api_cut_tool_calls"] = len(cut)
    d.figures["api_tool_results"] = sorted(set(t[:60] for t in results))
    last = reqs[-1]["body"]["messages"]
    turns = whole_turns(last)
    d.check([t[0]["content"][:12] for t in turns] ==
            [t["prompt"][:12] for t in log["turns"]],
            "turn 3's request carries turns 1 and 2 whole, then the prompt",
            [[m["role"] for m in t] for t in turns])
    d.check(any(m["role"] == "tool" for m in turns[0]) if turns else False,
            "turn 1 is carried with its tool call and result")
    d.check(all(t["status"] == "completed" for t in log["turns"]), "every api turn completed",
            [t["status"] for t in log["turns"]])
    d.check(show["context"] and show["context"]["tokens"] == sum(usage_of(reqs[-1])[k] for k in (
        "prompt_tokens", "completion_tokens")),
            "the context baton shows is the server's usage of the last call",
            (show["context"], usage_of(reqs[-1])))

    # --- 2. switch local -> claude (shim) -> local in one terminal --------------------------
    d.send("send-api-claude", "api", "Now on claude. [[reply:CLAUDE-SAID-THIS]]",
           ("--provider", "claude"))
    before = len(chats(big))
    d.send("send-api-back", "api", "Back on the local model: what did the previous answer say?",
           ("--provider", "local"))
    show = d.json(["show", "api"])
    back = chats(big)[before:]
    d.check(len(back) >= 1, "the switch back reached the real server")
    msgs = back[0]["body"]["messages"] if back else []
    d.check(any(m["role"] == "user" and "Now on claude" in (m.get("content") or "") for m in msgs)
            and any(m["role"] == "assistant" and m.get("content") == "CLAUDE-SAID-THIS" for m in msgs),
            "claude's turn rides along as prompt and answer",
            [(m["role"], (m.get("content") or "")[:40]) for m in msgs])
    d.check(BRIEF in (system_of(back[0]) if back else ""), "…under the same standing text")
    d.check([(s["provider"], s["reason"]) for s in show["sessions"]] ==
            [("local", "fresh"), ("claude", "switch"), ("local", "switch")]
            and show["conversation"]["number"] == 1,
            "sessions local fresh, claude switch, local switch; one conversation",
            show["sessions"])
    d.figures["switch_sessions"] = show["sessions"]

    # --- 3. a small window: trimming by whole turns, window learnt from the server ----------
    plain = os.path.join(d.world, "plain")
    os.makedirs(plain)
    p = d.run("new-small", ["new", "small", "--dir", plain, "--provider", "local:small"])
    d.check(p.returncode == 0, "baton new small --provider local:small", p.stderr)
    before = len(chats(small))
    prompts = ["Tell me a long story about a plum number %d, in many sentences." % i
               for i in range(1, 9)]
    for i, prompt in enumerate(prompts, 1):
        d.send("send-small-%d" % i, "small", prompt)
    show = d.json(["show", "small"])
    log = d.json(["log", "small"])
    reqs = chats(small)[before:]
    d.figures["small_window"] = show["context"]
    d.figures["small_usage"] = [usage_of(r) for r in reqs]
    d.figures["small_notes"] = [t["notes"] for t in log["turns"]]
    d.figures["small_kept"] = [len(whole_turns(r["body"]["messages"])) - 1 for r in reqs]
    models = [json.loads(l) for l in open(small) if '"/v1/models"' in l]
    n_ctx = models[-1]["answer"]["data"][0]["meta"].get("n_ctx") if models else None
    d.figures["small_server_n_ctx"] = n_ctx
    d.check(show["context"] and show["context"]["window"] == n_ctx,
            "the window baton uses is the server's context (meta.n_ctx)", (show["context"], n_ctx))
    d.check(all(r["status"] == 200 for r in reqs), "the server accepted every request",
            [(r["status"], r["answer"]) for r in reqs if r["status"] != 200][:1])
    d.check(all(t["status"] == "completed" for t in log["turns"]), "every small turn completed",
            [(t["status"], t["error"]) for t in log["turns"]])
    ok_shape = True
    for r in reqs:
        msgs = r["body"]["messages"]
        turns = whole_turns(msgs)
        sent = [t[0]["content"] for t in turns]
        # the prompts carried are the newest ones, in order, each turn whole (user, assistant)
        k = len(sent)
        idx = prompts.index(sent[-1])
        if sent != prompts[idx - k + 1: idx + 1] or any(len(t) != 2 for t in turns[:-1]):
            ok_shape = False
    d.check(ok_shape and reqs, "every request carries the newest turns whole, oldest dropped first")
    left = [n for t in log["turns"] for n in t["notes"] if "left out of the request" in n]
    d.check(bool(left), "trimming happened and the turn notes say so", d.figures["small_kept"])
    d.check(show["conversation"]["number"] == 1, "no rotation: one conversation all along")
    d.check(all(usage_of(r) and usage_of(r)["prompt_tokens"] + 160 <= n_ctx for r in reqs),
            "no request leaves less than the answer's 160 tokens of the server's context",
            [usage_of(r) and usage_of(r)["prompt_tokens"] for r in reqs])

    # --- 4. a window configured bigger than the server's: the server's refusal is learnt from --
    plain = os.path.join(d.world, "plain2")
    os.makedirs(plain)
    p = d.run("new-liar", ["new", "liar", "--dir", plain, "--provider", "local:liar"])
    d.check(p.returncode == 0, "baton new liar --provider local:liar", p.stderr)
    before = len(chats(small))
    for i, prompt in enumerate(prompts[:7], 1):
        d.send("send-liar-%d" % i, "liar", prompt)
    log = d.json(["log", "liar"])
    reqs = chats(small)[before:]
    refused = [r for r in reqs if r["status"] != 200]
    d.figures["liar_statuses"] = [r["status"] for r in reqs]
    d.figures["liar_notes"] = [t["notes"] for t in log["turns"]]
    d.check(bool(refused), "the server refused a request as too long", d.figures["liar_statuses"])
    d.check(all(t["status"] == "completed" for t in log["turns"]),
            "every turn still completed (asked again with fewer earlier turns)",
            [(t["status"], t["error"]) for t in log["turns"]])
    notes = [n for t in log["turns"] for n in t["notes"]]
    d.check(any("server's context is %d tokens" % n_ctx in n for n in notes)
            and any("asking again with fewer earlier turns" in n for n in notes),
            "the notes say what the server counted and what baton did", notes)

    d.run("server-stop", ["server", "stop"])
    with open(os.path.join(d.out, "checks.txt"), "w") as f:
        f.write("\n".join(d.checks) + "\n")
    with open(os.path.join(d.out, "figures.json"), "w") as f:
        json.dump(d.figures, f, indent=1)
    fails = [c for c in d.checks if c.startswith("FAIL")]
    print("%d checks, %d failed" % (len(d.checks), len(fails)))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
