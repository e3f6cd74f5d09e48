#!/usr/bin/env python3
"""Claude Code's permission prompts over stdio, captured (fixtures/captures/approvals/).

  python3 tools/real-cli/approvals.py BIN CASE PORT OUTDIR VERSION

With tools/real-cli/standin.py listening on 127.0.0.1:PORT. Runs BIN (a real claude) with the
flags baton passes plus `--permission-prompt-tool stdio` in a private world (HOME, a checkout
`proj` with a.txt, a folder `outside` beside it), the prompt of CASE as one stream-json line,
and answers each `control_request` `can_use_tool` as CASE says: allow (`updatedInput` = the
asked input), deny (message "DENIED-BY-USER: not there"), SIGINT, or stdin EOF while it waits.
Writes OUTDIR/fix/claude-CASE-VERSION.{stdout.jsonl,stdin.jsonl,stderr,rc} (paths rewritten to
/home/dev/...). Cases: write-allow write-deny edit-allow bash-allow bash-deny inside sigint eof.
"""
import json, os, subprocess, sys, time, shutil, select, signal
binary, case, port, outdir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
w = os.path.join(outdir, "world-" + case)
shutil.rmtree(w, ignore_errors=True)
home, proj, shots = [os.path.join(w, d) for d in ("home", "proj", "shots")]
for d in (home, proj, shots, os.path.join(w, "outside")): os.makedirs(d)
open(os.path.join(proj, "a.txt"), "w").write("old line\nsecond\n")
env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "CLAUDE", "BATON"))}
env.update(HOME=home, ANTHROPIC_API_KEY="dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
           DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1",
           ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % port)
sysfile = os.path.join(w, "system.txt"); open(sysfile, "w").write("House rules.\n")
PROMPTS = {
 "write-allow": ("[[tool:Write:../outside/o.txt]] [[reply:done]]", ["allow"]),
 "write-deny": ("[[tool:Write:../outside/o.txt]] [[reply:done]]", ["deny"]),
 "edit-allow": ("[[tool:Edit:../outside/e.txt]] [[reply:done]]", ["allow"]),
 "bash-allow": ("[[tool:Bash:cat /etc/hostname]] [[reply:done]]", ["allow"]),
 "bash-deny": ("[[tool:Bash:cat /etc/hostname]] [[reply:done]]", ["deny"]),
 "inside": ("[[tool:Write:b.txt]] [[tool:Bash:ls]] [[reply:done]]", []),
 "sigint": ("[[tool:Write:../outside/o.txt]] [[reply:done]]", ["sigint"]),
 "eof": ("[[tool:Write:../outside/o.txt]] [[reply:done]]", ["eof"]),
}
prompt, answers = PROMPTS[case]
open(os.path.join(w, "outside", "e.txt"), "w").write("old line\n")
argv = [binary, "-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
        "--input-format", "stream-json", "--replay-user-messages", "--session-id",
        "7001aaaa-0000-4000-8000-0000000000%02d" % (list(PROMPTS).index(case)),
        "--append-system-prompt-file", sysfile, "--permission-mode", "acceptEdits",
        "--add-dir=" + shots, "--permission-prompt-tool", "stdio"]
p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=proj, env=env)
sent = []
def send(obj):
    line = json.dumps(obj) + "\n"; sent.append(line); p.stdin.write(line.encode()); p.stdin.flush()
send({"type": "user", "message": {"role": "user", "content": prompt}})
out = []
t0 = time.time()
while True:
    line = p.stdout.readline()
    if not line: break
    out.append(line.decode())
    try: ev = json.loads(line)
    except ValueError: continue
    if ev.get("type") == "control_request" and ev["request"].get("subtype") == "can_use_tool":
        a = answers.pop(0) if answers else "allow"
        rid = ev["request_id"]
        if a == "allow":
            send({"type": "control_response", "response": {"subtype": "success", "request_id": rid,
                  "response": {"behavior": "allow", "updatedInput": ev["request"]["input"]}}})
        elif a == "deny":
            send({"type": "control_response", "response": {"subtype": "success", "request_id": rid,
                  "response": {"behavior": "deny", "message": "DENIED-BY-USER: not there"}}})
        elif a == "sigint":
            t1 = time.time(); p.send_signal(signal.SIGINT)
        elif a == "eof":
            t1 = time.time(); p.stdin.close()
    if ev.get("type") == "result":
        try: p.stdin.close()
        except Exception: pass
rc = p.wait(timeout=60)
err = p.stderr.read().decode()
def rw(t):
    for s, d in ((proj, "/home/dev/proj"), (shots, "/home/dev/shots"), (home, "/home/dev"), (w, "/home/dev/world")):
        t = t.replace(s, d)
    return t
fix = os.path.join(outdir, "fix"); os.makedirs(fix, exist_ok=True)
ver = os.path.basename(os.path.dirname(os.path.dirname(os.path.dirname(binary)))) if False else sys.argv[5]
base = os.path.join(fix, "claude-%s-%s" % (case, ver))
open(base + ".stdout.jsonl", "w").write(rw("".join(out)))
open(base + ".stdin.jsonl", "w").write(rw("".join(sent)))
open(base + ".stderr", "w").write(rw(err))
open(base + ".rc", "w").write("%d\n" % rc)
print(case, ver, "rc", rc, "lines", len(out), "outside:", os.listdir(os.path.join(w, "outside")), "elapsed %.1f" % (time.time()-t0))
