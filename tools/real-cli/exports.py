#!/usr/bin/env python3
"""`baton export` on one machine, `baton import` on another, on the REAL CLIs.

  python3 exports.py [--baton PATH] [--c332 BIN] [--c197 BIN] [--codex BIN] --out DIR
                     [--port 18098] [--worlds c332,c197,codex]

Built on forks.py and queue.py (their World, Check, stand-in and binary finder). Per CLI, two
worlds stand for two machines: A = DIR/<world>/world and B = DIR/<world>-b/world, each with its
own HOME, BATON_HOME and CODEX_HOME. In A, terminal `api` works in a git repository (so in a
worktree of its own) and runs two turns (P1, P2, each with a word to remember); `baton export
api --json` writes the archive. In B, the repository is cloned at another path and `baton
import FILE --dir CLONE --json` brings the terminal in; then one turn P3 in B. Checks:
  - the archive: a zip, mode 0600, its manifest names the journal, the turns' streams and the
    CLI's session file, each digest matching the bytes; taken at once after P2, a Claude session
    file in it holds both turns' answers (2.1.197 writes a turn after its result);
  - the import: the terminal in B's `ls`, in a worktree of the clone (not at A's path);
  - B's first request carries P1 and P2 (the same provider session, resumed: its session id is
    A's), and its system text names B's checkout (and whether it still names A's is reported);
  - the CLI ran in B's worktree, and with a resume of A's session (argv).
Evidence under DIR/<world>/export/ and DIR/<world>-b/import/ as in forks.py; DIR/checks.txt and
DIR/figures.json.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import queue as _stdlib_queue  # noqa: F401  (before queue.py puts its folder first on sys.path)
import stat
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("realcli_forks", os.path.join(HERE, "forks.py"))
F = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(F)
Q = F.Q

WORDS = {1: "ZXAMBER", 2: "ZXBIRCH", 3: "ZXCEDAR"}
PROMPTS = {i: "turn %d of api, remember the word %s" % (i, w) for i, w in WORDS.items()}


def archive_facts(path):
    """What the archive holds: its mode, the manifest, and the members whose digest is wrong."""
    facts = {"mode": oct(stat.S_IMODE(os.stat(path).st_mode))}
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        facts["members"] = names
        manifest = json.loads(z.read("manifest.json"))
        facts["manifest"] = manifest
        bad = []
        for f in manifest.get("files") or []:
            p = f.get("path") or f.get("name")
            data = z.read(p) if p in names else None
            if data is None or hashlib.sha256(data).hexdigest() != f.get("sha256") or \
                    len(data) != f.get("size"):
                bad.append(p)
        facts["bad_digests"] = bad
        # Per CLI file (a session or rollout): its assistant entries (Claude's session files).
        facts["answers"] = {}
        for p in names:
            if p.startswith(("claude/", "codex/")) and p.endswith(".jsonl"):
                rows = [json.loads(l) for l in z.read(p).decode(errors="replace").splitlines()
                        if l.strip().startswith("{")]
                facts["answers"][p] = sum(1 for r in rows if r.get("type") == "assistant")
    return facts


def check_export_import(ca, cb):
    """ca: a check in world A (the first machine); cb: one in world B (the second)."""
    ca.new_term("api")
    rcs = [ca.send("p%d" % i, "api", PROMPTS[i])[0] for i in (1, 2)]
    ca.check(rcs == [0, 0], "two turns in api on the first machine", "rc %s" % rcs)
    # At once after the second send: 2.1.197 writes a turn to its session file after its result.
    rc, ej, e = ca.jrun("export", ["export", "api"])
    a = ca.show("api", "api-a")
    a_sessions = F.session_ids(a)
    ca.fig["export"] = ej
    path = ej.get("path") if isinstance(ej, dict) else None
    ca.check(rc == 0 and bool(path) and os.path.isfile(path),
             "`export api --json` writes the archive", "rc %d: %s" % (rc, ej or e))
    if not path or not os.path.isfile(path):
        return
    facts = archive_facts(path)
    ca.fig["archive"] = {k: v for k, v in facts.items() if k != "manifest"}
    ca.fig["manifest"] = facts["manifest"]
    members = facts["members"]
    cli_files = [m for m in members if m.endswith(".jsonl") and "journal" not in m and
                 "/turns/" not in m and not m.startswith("turns/")]
    ca.check(facts["mode"] == "0o600" and not facts["bad_digests"],
             "the archive is 0600 and every manifest digest matches its member",
             "%s; bad %s" % (facts["mode"], facts["bad_digests"]))
    ca.check(any(m.endswith("journal.jsonl") for m in members) and
             sum(1 for m in members if "turns/" in m) >= 2 and bool(cli_files),
             "it holds the journal, both turns' raw streams and the CLI's session file",
             json.dumps(members))
    if ca.world.provider == "claude":
        ca.check(bool(facts["answers"]) and all(n >= 2 for n in facts["answers"].values()),
                 "the session file exported right after the second send holds both turns' answers",
                 json.dumps(facts["answers"]))
    ca.world.stop()

    # The second machine: the repository cloned at another path.
    clone = os.path.join(cb.world.w, "elsewhere", "api-clone")
    os.makedirs(os.path.dirname(clone))
    subprocess.run(["git", "clone", "-q", ca.proj, clone], check=True, capture_output=True)
    cb.names.append("api")
    rc, ij, e = cb.jrun("import", ["import", path, "--dir", clone])
    cb.fig["import"] = ij
    ok = rc == 0 and isinstance(ij, dict)
    cb.check(ok, "`import FILE --dir CLONE --json` on the second machine",
             "rc %d: %s" % (rc, ij or e))
    if not ok:
        return
    b = cb.show("api", "api-b")
    b_dir = b.get("dir") or ""
    cb.fig.update(a_dir=a.get("dir"), b_dir=b_dir, b_sessions=F.session_ids(b))
    common = (F.git(b_dir, "rev-parse", "--path-format=absolute", "--git-common-dir") or
              "").strip() if os.path.isdir(b_dir) else ""
    cb.fig["b_git_common_dir"] = common
    cb.check(b_dir != a.get("dir") and os.path.realpath(common) ==
             os.path.realpath(os.path.join(clone, ".git")),
             "the imported terminal works in a worktree of the clone, not at the first path",
             "dir %s of %s (first machine: %s)" % (b_dir, common, a.get("dir")))
    rc3 = cb.send("p3", "api", PROMPTS[3])[0]
    r3 = cb.request(WORDS[3], "api-b-p3")
    has = F.carries(r3, WORDS[1], WORDS[2], WORDS[3])
    cb.check(rc3 == 0 and r3 is not None and all(has.values()),
             "the first turn on the second machine carries P1 and P2 (and P3)",
             "rc %d; %s" % (rc3, has))
    rs = F.session_of(r3) if r3 else None
    after = cb.show("api", "api-b-after")
    cb.fig.update(request_session=rs, sessions_after=F.session_ids(after))
    cb.check(bool(a_sessions) and (rs == a_sessions[-1] or
                                   F.session_ids(after)[-1:] == a_sessions[-1:]),
             "it resumed the first machine's provider session",
             "first machine %s; request says %s; after %s" % (a_sessions, rs,
                                                              F.session_ids(after)))
    named = F.dirs_named(r3, b_dir, a.get("dir"))
    cb.fig["system_text"] = named
    cb.check(bool(named["names_own"]), "its system text names the new checkout",
             json.dumps(named))
    runs = [x for x in cb.argvs if x["cwd"] == b_dir]
    cb.fig["cli_runs"] = [{"cwd": x["cwd"], "argv": x["argv"][1:]} for x in cb.argvs]
    resumed = [x for x in runs if a_sessions and a_sessions[-1] in x["argv"]]
    cb.check(bool(runs) and bool(resumed),
             "the CLI ran in the new checkout, resuming the session by its id",
             json.dumps(cb.fig["cli_runs"]))


class Runner(Q.Runner):
    def run(self):
        worlds = [("c332", "claude", self.a.c332), ("c197", "claude", self.a.c197),
                  ("codex", "codex", self.a.c332)]
        t_all = time.time()
        for name, provider, cbin in worlds:
            if name not in self.a.worlds.split(","):
                continue
            wa = Q.World(self, name, provider, cbin, self.a.codex)
            wb = Q.World(self, name + "-b", provider, cbin, self.a.codex)
            print("### %s" % name, flush=True)
            t = time.time()
            ca, cb = F.Check(wa, "export", "export"), F.Check(wb, "import", "import")
            try:
                check_export_import(ca, cb)
            except Exception as ex:  # the script's own trouble: a FAIL line, go on
                import traceback
                ca.check(False, "export/import: the check could not run",
                         traceback.format_exc().strip().splitlines()[-1] + " " + repr(ex))
                traceback.print_exc()
            finally:
                for c in (ca, cb):
                    c.fig["seconds"] = round(time.time() - t, 1)
                    c.save()
                wa.stop()
                wb.stop()
        return self.report(t_all)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", default="/tmp/baton-export")
    ap.add_argument("--c332")
    ap.add_argument("--c197")
    ap.add_argument("--codex")
    ap.add_argument("--work", default="/tmp/realcli", help="where to npm install when needed")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18098)
    ap.add_argument("--worlds", default="c332,c197,codex")
    ap.add_argument("-k", action="append", default=[])
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
