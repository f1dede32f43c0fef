#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""reaper.py: run a command as a child subreaper, stop it with a signal after
a delay, and report what it left behind.

Usage: reaper.py SIGNAL WHEN COMMAND...
WHEN: seconds after the start, or NAME: as soon as a process called NAME
(its comm) runs among the command's descendants (at most 60 s).

Every process the command starts that outlives its parent is re-parented to
us (PR_SET_CHILD_SUBREAPER), so after the command has ended the processes
still our children are exactly what it left running. Prints
"exit=N left=K" and, for each one left, "left: PID ARGS"; kills them. Exit
status 0 unless the command could not be started.
"""
import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def children():
    out = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                out += [int(p) for p in f.read().split()]
        except OSError:
            pass
    return out


def args_of(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def stat_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    comm = text[text.index("(") + 1:text.rindex(")")]
    return comm, int(text[text.rindex(")") + 2:].split()[1])


def descendant_named(root, name):
    """True when a process called name descends from root."""
    parent = {}
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            comm, ppid = stat_of(int(d))
        except (OSError, ValueError):
            continue
        parent[int(d)] = ppid
        if comm == name:
            found.append(int(d))
    for p in found:
        for _ in range(64):
            if p == root:
                return True
            p = parent.get(p, 0)
            if p <= 1:
                break
    return False


def main():
    sig = getattr(signal, "SIG" + sys.argv[1])
    when = sys.argv[2]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0):
        print("reaper: prctl failed", file=sys.stderr)
        return 2
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        try:
            os.execvp(sys.argv[3], sys.argv[3:])
        finally:
            os._exit(127)
    try:
        time.sleep(float(when))
    except ValueError:
        deadline = time.monotonic() + 60
        while not descendant_named(pid, when) and time.monotonic() < deadline:
            time.sleep(0.02)
        print(f"stopped with {when} running" if time.monotonic() < deadline
              else f"no {when} within 60 s")
    os.kill(pid, sig)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    # What ends by itself within a second is not left behind.
    deadline = time.monotonic() + 1.0
    left = children()
    while left and time.monotonic() < deadline:
        while True:
            try:
                p, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if p == 0:
                break
        time.sleep(0.05)
        left = [p for p in children() if os.path.exists(f"/proc/{p}") and
                not open(f"/proc/{p}/stat").read().split(")")[-1].split()[0] == "Z"]
    print(f"exit={code} left={len(left)}")
    for p in left:
        print(f"left: {p} {args_of(p)}")
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
