#!/usr/bin/env python3
"""Why does a warm `codex app-server` wake while idle? On the REAL Codex CLI against the
stand-in (standin.py, in-process on 127.0.0.1:PORT), as baton keeps one: started through the
`codex` on PATH (npm's node launcher, which runs the native binary as its child), `initialize`,
`thread/resume` of a thread one `codex exec` turn opened, one `turn/start`, then left idle.

  python3 codex_idle.py [--codex-launcher BIN] --out DIR [--port 18096] [--window 10]
      [--config 'KEY=VALUE' ...]   # extra `-c` overrides for the app-server, to try a setting

After SETTLE seconds idle, counts over WINDOW seconds, per process and per thread (by its
name): context switches (voluntary + involuntary, /proc/PID/task/TID/status: each is a wakeup)
and CPU time (/proc/PID/task/TID/stat), then the syscalls of the same length of idleness
(`strace -f -c -p`). Writes DIR/idle.json and prints a summary.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import standin  # noqa: E402
from codex_warm import AppServer, exec_turn, world  # noqa: E402

SETTLE = 5.0
TICK = os.sysconf("SC_CLK_TCK")


def threads(pid):
    """{tid: (name, switches, cpu seconds)} of a process's threads now."""
    out = {}
    for task in glob.glob("/proc/%d/task/*" % pid):
        try:
            with open(task + "/status") as f:
                st = dict(line.split(":", 1) for line in f if ":" in line)
            with open(task + "/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        switches = int(st["voluntary_ctxt_switches"]) + int(st["nonvoluntary_ctxt_switches"])
        cpu = (int(fields[11]) + int(fields[12])) / TICK
        out[int(task.rsplit("/", 1)[1])] = (st["Name"].strip(), switches, cpu)
    return out


def window(pid, seconds):
    """Per thread name: wakeups per second and CPU ms per second over `seconds`."""
    a = threads(pid)
    time.sleep(seconds)
    b = threads(pid)
    per = {}
    for tid, (name, sw, cpu) in b.items():
        sw0, cpu0 = (a[tid][1], a[tid][2]) if tid in a else (0, 0.0)
        w, c = per.get(name, (0.0, 0.0))
        per[name] = (w + (sw - sw0) / seconds, c + (cpu - cpu0) * 1000 / seconds)
    return {k: {"wakeups_per_s": round(v[0], 1), "cpu_ms_per_s": round(v[1], 2)}
            for k, v in sorted(per.items(), key=lambda kv: -kv[1][0])}


def strace_counts(pid, seconds):
    """`strace -f -c` of the process for `seconds`: {syscall: calls}."""
    p = subprocess.run(["timeout", "-s", "INT", str(seconds), "strace", "-f", "-c", "-p",
                        str(pid)], capture_output=True, text=True)
    calls = {}
    for line in p.stderr.splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] != "total":
            calls[parts[-1]] = int(parts[3])
    return calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--codex-launcher", default="/tmp/cx/node_modules/.bin/codex")
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=18096)
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--config", action="append", default=[])
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    env, cwd = world(out, a.port)
    standin.LOG_PATH = os.path.join(out, "standin.log.jsonl")
    srv = standin.ThreadingHTTPServer(("127.0.0.1", a.port), standin.Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    thread, _, _ = exec_turn(a.codex_launcher, env, cwd, "open the thread")
    launcher = a.codex_launcher
    app = AppServer(launcher, env, cwd)
    if a.config:
        app.p.kill()
        app.p.wait()
        argv = [launcher, "app-server"] + [x for kv in a.config for x in ("-c", kv)]
        app.p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    app.call("initialize", {"clientInfo": {"name": "baton-measure", "version": "0"}})
    app.send({"jsonrpc": "2.0", "method": "initialized"})
    app.call("thread/resume", {"threadId": thread})
    app.turn(thread, "one warm turn")
    # Notifications keep coming only if something happens: drain them on the side.
    threading.Thread(target=lambda: [None for _ in app.messages()], daemon=True).start()
    time.sleep(SETTLE)
    node = app.p.pid
    native = [int(t) for t in open("/proc/%d/task/%d/children" % (node, node)).read().split()]
    fig = {"config": a.config, "window_s": a.window, "launcher_pid": node,
           "launcher": window(node, a.window)}
    for pid in native:
        fig["native_%d" % pid] = window(pid, a.window)
        fig["native_%d_syscalls" % pid] = strace_counts(pid, a.window)
    fig["launcher_syscalls"] = strace_counts(node, a.window)
    app.stop()
    with open(os.path.join(out, "idle.json"), "w") as f:
        json.dump(fig, f, indent=1)
    print(json.dumps(fig, indent=1))


if __name__ == "__main__":
    main()
