#!/usr/bin/env python3
"""A warm CLI's own memory, as baton's budget counts it, on the REAL CLIs against the stand-in
(standin.py, in-process on 127.0.0.1:PORT): per CLI, one terminal, TURNS turns through baton,
then `server status --json` once the CLI is warm: its resident memory (`memory_bytes`, VmRSS of
its process group) and its own (`own_bytes`, the Private_Clean + Private_Dirty of its group's
/proc/PID/smaps_rollup: what stopping it gives back).

  python3 warm_memory.py --baton PATH [--claude BIN] [--codex BIN] --out DIR [--port 18093]

Writes DIR/memory.json and prints one line per CLI. Nothing here is a check of baton.
"""
import argparse
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import standin  # noqa: E402
import warm  # noqa: E402
import codex_warm_baton  # noqa: E402

MIB = 1024 * 1024


def warm_entry(w, deadline=60):
    """The first warm CLI `server status` lists, once there is one."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        listed = w.json("server", "status").get("warm") or []
        if listed:
            return listed[0]
        time.sleep(0.2)
    return {}


def measure(w, provider, turns):
    made = w.baton("new", "t", "--dir", os.path.join(w.dir, "proj"), "--provider", provider)
    assert made.returncode == 0, made.stderr
    for i in range(turns):
        sent = w.baton("send", "t", "turn %d" % (i + 1))
        assert sent.returncode == 0, sent.stderr
    entry = warm_entry(w)
    time.sleep(2)  # the pages a settled CLI keeps, not those of its last turn's peak
    entry = warm_entry(w) or entry
    w.baton("server", "stop")
    return {"rss_mib": round(entry.get("memory_bytes", 0) / MIB, 1),
            "own_mib": round(entry.get("own_bytes", 0) / MIB, 1), "turns": entry.get("turns")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--claude", default=warm.find("2.1.332"))
    ap.add_argument("--codex", default="/tmp/cx/node_modules/.bin/codex")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18093)
    ap.add_argument("--turns", type=int, default=3)
    a = ap.parse_args()
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    standin.LOG_PATH = os.path.join(a.out, "standin.log.jsonl")
    srv = standin.ThreadingHTTPServer(("127.0.0.1", a.port), standin.Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    fig = {"date": time.strftime("%Y-%m-%d"), "claude": a.claude, "codex": a.codex}
    if a.claude:
        fig["claude"] = measure(warm.World(a, "claude", a.claude), "claude", a.turns)
    if a.codex:
        fig["codex"] = measure(codex_warm_baton.World(a), "codex", a.turns)
    with open(os.path.join(a.out, "memory.json"), "w") as f:
        json.dump(fig, f, indent=1)
    for k in ("claude", "codex"):
        if isinstance(fig.get(k), dict):
            print("%s: own %.1f MiB, resident %.1f MiB" % (k, fig[k]["own_mib"], fig[k]["rss_mib"]))


if __name__ == "__main__":
    main()
