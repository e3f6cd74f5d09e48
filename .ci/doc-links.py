#!/usr/bin/env python3
"""Every relative link of README.md and docs/*.md must name a file that exists and, with a
#fragment, a heading of that file (GitHub's anchors). Exits 1 naming each broken link."""
import glob
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SOURCES = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
FENCED = re.compile(r"```.*?```", re.S)


def anchors(path):
    """The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as -."""
    seen, out = {}, set()
    for heading in re.findall(r"^#+ (.*)$", FENCED.sub("", open(path).read()), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


bad = 0
for source in SOURCES:
    for link in re.findall(r"\]\(([^)\s]+)\)", FENCED.sub("", open(source).read())):
        if re.match(r"[a-z]+:", link):
            continue
        path, _, fragment = link.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(source), path)) if path else source
        where = os.path.relpath(source, ROOT)
        if not os.path.exists(target):
            print(f"{where}: {link}: no such file")
            bad += 1
        elif fragment and target.endswith(".md") and fragment not in anchors(target):
            print(f"{where}: {link}: no heading with that anchor")
            bad += 1
sys.exit(1 if bad else 0)
