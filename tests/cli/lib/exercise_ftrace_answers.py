#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# exercise_ftrace_answers.py: the ftrace exercise's known answers, read from
# its fixtures by a second, independent implementation (this one, in Python;
# the reference solution in C is the first). tests/cli/exercise_ftrace.t runs
# it with --check: the answer files in labs/ftrace/checks/data must be what
# this reading gives. With --write it writes them (after new fixtures).
#
# Usage: exercise_ftrace_answers.py DATA_DIR --check|--write
import os
import re
import sys

# lt fixtures, and wm fixtures with the pid they follow.
LT = ["irqsoff", "irqsoff-ftrace", "preemptoff", "preemptoff-ftrace", "preemptirqsoff",
      "preemptirqsoff-ftrace", "wakeup_rt", "wakeup_dl", "rt61-wakeup",
      "constructed-preemptoff-4x", "constructed-preemptirqsoff-rt",
      "constructed-wakeup-ftrace", "timerlat", "tracer-only", "empty", "truncated-ftrace",
      "truncated-header"]
WM = {"plain": 26000, "plain-cut": 26000, "busy": 31086, "hog": 26303, "both": 26472,
      "wakeup-only": 26524}

ENTRY = re.compile(rb"(?:^|\s)(\d+)us.:")


def name(b):
    b = b.strip().split()
    return b[0][:63].decode() if b else "-"


def lt_answer(text):
    a = {"tracer": "-", "latency": 0, "started": "-", "ended": "-", "entries": 0,
         "gap": (0, 0), "cause": "-"}
    have_latency = False
    ents = []
    for no, line in enumerate(text.split(b"\n"), 1):
        if line.startswith(b"#"):
            for key, k in ((b"# tracer:", "tracer"), (b"=> started at:", "started"),
                           (b"=> ended at:", "ended")):
                if key in line:
                    a[k] = name(line.split(key, 1)[1])
                    break
            else:
                if b"# latency:" in line:
                    a["latency"] = int(line.split(b"# latency:", 1)[1].split()[0])
                    have_latency = True
            continue
        m = ENTRY.search(line)
        if not m:
            continue
        txt = line[m.end():]
        txt = txt[1:] if txt.startswith(b" ") else txt
        func = caller = None
        if txt[:1].isalpha() or txt[:1] == b"_":
            func = name(txt)
            if b" <-" in txt:
                caller = name(txt.split(b" <-", 1)[1])
        ents.append((no, int(m.group(1)), func, caller))
    a["entries"] = len(ents)
    best = None
    for (l0, t0, f0, c0), (l1, t1, f1, c1) in zip(ents, ents[1:]):
        if best is None or t1 - t0 > best[1]:
            cause = "-" if f0 is None else (c0 if c0 and c0 == c1 else f0)
            best = (l0, t1 - t0, cause)
    if best:
        a["gap"] = best[:2]
        a["cause"] = best[2]
    rc = 0 if have_latency else -2
    return ("rc %d tracer %s latency %d started %s ended %s entries %d gap %d %d cause %s"
            % (rc, a["tracer"], a["latency"], a["started"], a["ended"], a["entries"],
               a["gap"][0], a["gap"][1], a["cause"]))


def wm_answer(text, pid):
    started = None
    wakes = []
    unmatched = 0
    for line in text.decode().split("\n"):
        m = re.search(r"\s(\d+)\.(\d+): (sched_waking|sched_wakeup|sched_switch): (.*)$", line)
        if not m or line.startswith("#"):
            continue
        ts = int(m.group(1)) * 10**9 + int(m.group(2).ljust(9, "0")[:9])
        if m.group(3) == "sched_switch":
            prev = int(re.search(r" prev_pid=(\d+)", m.group(4)).group(1))
            nxt = int(re.search(r" next_pid=(\d+)", m.group(4)).group(1))
            if prev == pid:
                started = None
            if nxt == pid:
                if started is None:
                    unmatched += 1
                else:
                    wakes.append((started, ts))
                    started = None
        elif int(re.search(r" pid=(\d+)", " " + m.group(4)).group(1)) == pid:
            if started is None:
                started = ts
    out = ["pid %d" % pid, "counts %d %d %d" % (len(wakes), unmatched, started is not None)]
    out += ["wake %d %d %d" % (w, r, r - w) for w, r in wakes]
    return "\n".join(out) + "\n"


def main():
    data, mode = sys.argv[1], sys.argv[2]
    files = {}
    files["lt-answers.txt"] = "".join(
        "lt-%s.txt %s\n" % (f, lt_answer(open(os.path.join(data, "lt-%s.txt" % f), "rb").read()))
        for f in LT)
    for f, pid in WM.items():
        files["wm-%s.answer" % f] = wm_answer(
            open(os.path.join(data, "wm-%s.txt" % f), "rb").read(), pid)
    bad = 0
    for f, want in files.items():
        path = os.path.join(data, f)
        if mode == "--write":
            open(path, "w").write(want)
        elif not os.path.exists(path) or open(path).read() != want:
            print("%s: not what the fixtures give" % path)
            bad = 1
    sys.exit(bad)


main()
