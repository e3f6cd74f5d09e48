#!/usr/bin/env python3
"""Compare the raw CLI streams baton stored for two runs of drive.py (e.g. real vs shim).

  python3 compare.py OUT_A OUT_B
For each turn number: the sequence of event kinds (type/subtype or item.type) and, per kind,
the keys present in one run but not the other (nested one level: message.*, item.*, usage.*).
"""
import glob
import json
import sys


def turns(out):
    log = sorted(glob.glob(out + "/*-log.stdout"))[0]
    j = json.load(open(log))
    res = {}
    for t in j["turns"]:
        f = glob.glob(out + "/world/baton/terminals/*/turns/%s.jsonl" % t["id"])
        res[t["number"]] = (t["provider"], f[0] if f else None, t["prompt"])
    return res


def kind(e):
    k = e.get("type", "?")
    if "subtype" in e:
        k += "/" + str(e["subtype"])
    if isinstance(e.get("item"), dict):
        k += ":" + str(e["item"].get("type"))
    return k


def keys(e, prefix=""):
    out = set()
    for k, v in e.items():
        out.add(prefix + k)
        if isinstance(v, dict) and not prefix and k in ("message", "item", "usage", "info"):
            out |= keys(v, k + ".")
    return out


def load(path):
    evs = []
    for line in open(path):
        try:
            evs.append(json.loads(line))
        except ValueError:
            evs.append({"type": "NON-JSON", "text": line[:200]})
    return evs


def main(a, b):
    ta, tb = turns(a), turns(b)
    for n in sorted(set(ta) | set(tb)):
        if n not in ta or n not in tb or not ta[n][1] or not tb[n][1]:
            print("turn %d: missing in one run" % n)
            continue
        ea, eb = load(ta[n][1]), load(tb[n][1])
        sa, sb = [kind(e) for e in ea], [kind(e) for e in eb]
        print("turn %d (%s) %r" % (n, ta[n][0], ta[n][2][:50]))
        if sa != sb:
            print("   order A: %s\n   order B: %s" % (sa, sb))
        ka, kb = {}, {}
        for e in ea:
            ka.setdefault(kind(e), set()).update(keys(e))
        for e in eb:
            kb.setdefault(kind(e), set()).update(keys(e))
        for k in sorted(set(ka) & set(kb)):
            only_a, only_b = ka[k] - kb[k], kb[k] - ka[k]
            if only_a or only_b:
                print("   %s: only A %s; only B %s" % (k, sorted(only_a), sorted(only_b)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
