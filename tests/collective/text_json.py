#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Does verify --collective --json say what the text said?

usage: text_json.py TEXT JSON

TEXT is "p2pmap verify --collective"'s stdout, JSON that of the same run
with --json: one line, one document.  Each text line is written again
from the document (the NCCL line, each group's verdict line with whom it
blames, each run's line) and compared; the two are runs of their own, so
a time and bus bandwidth only as there in both or in neither.  Prints each difference as a TAP comment; exit 1 if any.
"""
import json
import re
import sys


def words(enum):
    return {"p2p_broken": "P2P broken", "not_p2p": "not P2P"}.get(
        enum, enum.replace("_", " "))


def size_text(n):
    return "%d MiB" % (n >> 20) if n >= 1 << 20 else "%d KiB" % (n >> 10)


def verdict_line(g):
    s = "collective {%s}: %s" % (",".join("GPU%d" % x["gpu"]
                                          for x in g["gpus"]),
                                 words(g["verdict"]))
    if g["verdict"] == "p2p_broken":
        b = g["blame"]
        for i, d in enumerate(b["directions"]):
            s += ", " if i else ("; " if d["by"] == "diagnostics"
                                 else "; faulted: ")
            s += "GPU%d -> GPU%d " % (d["from"], d["to"])
            s += ("(NCCL's diagnostics: %s)" % d["check"]
                  if d["by"] == "diagnostics" else "(%d faults)" % d["faults"])
        if not b["directions"] and b["pair"]:
            s += "; the pair GPU%d <-> GPU%d" % (g["gpus"][0]["gpu"],
                                                g["gpus"][1]["gpu"])
        elif not b["directions"]:
            s += "; no fault counted: see its 2-rank groups"
    elif g["verdict"] == "not_p2p":
        s += "; fails without P2P too"
    if not g["faults_known"]:
        s += " (fault counters unknown)"
    return s


def run_line(r, timeout):
    """The run's line up to its time, and whether it was timed."""
    s = "  %-8s %s: %s" % (r["arm"], size_text(r["size"]),
                           words(r["result"]))
    if r["result"] == "hung":
        s += " (killed after %d s)" % timeout
    elif r["result"] == "died":
        s += " (%s)" % r["error"]
    elif r["result"] == "failed":
        s += " (%s: %s)" % (r["call"], r["error"])
    elif r["result"] == "wrong_data":
        w = r["first_wrong"]
        s += " (rank %d element %d is %g, not %g)" % (
            w["rank"], w["element"], w["got"], w["want"])
    if r["transports"]:
        s += ", " + ",".join(r["transports"])
    return s, r["bus_gbps"] is not None


def main(argv):
    text = open(argv[1]).read().splitlines()
    lines = open(argv[2]).read().splitlines()
    problems = []
    if len(lines) != 1:
        print("# text_json: %d lines, not one document" % len(lines))
        return 1
    doc = json.loads(lines[0])
    want = ["nccl: %s, version %d (found: %s)" % (
        doc["nccl"]["library"], doc["nccl"]["version_code"],
        doc["nccl"]["found"])]
    bus = [False]
    for g in doc["groups"]:
        want.append(verdict_line(g))
        bus.append(False)
        for r in g["runs"]:
            line, b = run_line(r, doc["timeout_s"])
            want.append(line)
            bus.append(b)
    if len(text) != len(want):
        problems.append("%d text lines, %d from the document" %
                        (len(text), len(want)))
    for t, w, timed in zip(text, want, bus):
        # Two runs: each timed or not alike, the figures their own.
        if timed:
            w = re.escape(w) + r", [0-9.]+ ms, bus [0-9.]+ GB/s"
        if not re.fullmatch(w if timed else re.escape(w), t):
            problems.append("text %r, document %r" % (t, w))
    working = sum(g["verdict"] == "works" for g in doc["groups"])
    if doc["summary"] != {"groups": len(doc["groups"]), "working": working}:
        problems.append("summary %r" % doc["summary"])
    for p in problems:
        print("# text_json: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
