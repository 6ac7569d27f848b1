#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The timed group's determinism test: compare what two runs of one
scenario left (groups/timed.sh: run A as the host happens to be, run B
beside a process spinning on a core) in a window of virtual time.

  timed_compare.py A B FROM_NS TO_NS [--shift-tol NS] [--first-tol NS]
                   [--report]

A and B are run-guests output directories with the switch's events.log
(--event-log: "NS KIND [PORT BYTES CLASS]"), series.jsonl (--series) and
guest<N>/measured.json (rc_flow's reports of the measured flow).  Events
are the switch's frame events (the QoS timer's are its series').  Prints
TAP lines; with --shift-tol 0 (the default) it asserts byte-identical
events, series and reports in the window, else:

- the same frames: each kind of event (arrive or depart, port, bytes,
  class) happens as often in both runs;
- the window's first frame reaches the switch within --first-tol ns
  (default 10 us) in both runs: the runs start the flow at the same
  virtual instant;
- the n-th event of each kind happens within --shift-tol ns in both runs;
- the series have as many samples, with the same bytes in total;
- each guest's flow moved the same bytes, in a time within --shift-tol.

With --report it prints what differs and by how much as comments and
asserts nothing, for measuring the leaks."""
import collections
import json
import os
import sys


def events(d, t0, t1):
    out = []
    with open(os.path.join(d, "events.log")) as f:
        for line in f:
            w = line.split()
            if len(w) > 2 and t0 <= int(w[0]) < t1:
                out.append((int(w[0]), tuple(w[1:])))
    return out


def series(d, t0, t1):
    out = []
    with open(os.path.join(d, "series.jsonl")) as f:
        for line in f:
            try:
                j = json.loads(line)
            except ValueError:
                continue
            if t0 <= round(j.get("t", -1) * 1e9) < t1:
                out.append((line.rstrip("\n"), j))
    return out


def sample_bytes(j, dt):
    """Bytes each port sent in sample J, of DT seconds."""
    return [round(p["tx_mbps"] * 1e6 * dt / 8) for p in j["ports"]]


def interval(s):
    return s[1][1]["t"] - s[0][1]["t"] if len(s) > 1 else 0


def flows(d):
    out = {}
    for g in sorted(os.listdir(d)):
        p = os.path.join(d, g, "measured.json")
        if g.startswith("guest") and os.path.exists(p):
            with open(p) as f:
                out[g] = f.read().splitlines()
    return out


def summary(lines):
    for line in lines:
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if j.get("summary"):
            return j
    return {}


def main(argv):
    report = "--report" in argv
    argv = [a for a in argv if a != "--report"]
    tol, first_tol = 0, 10000
    for opt in ("--shift-tol", "--first-tol"):
        if opt in argv:
            i = argv.index(opt)
            if opt == "--shift-tol":
                tol = int(argv[i + 1])
            else:
                first_tol = int(argv[i + 1])
            del argv[i:i + 2]
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    a, b, t0, t1 = argv[0], argv[1], int(argv[2]), int(argv[3])
    fails = 0

    def tap(ok, name):
        nonlocal fails
        if report:
            print("# %s: %s" % ("holds" if ok else "fails", name))
            return
        print("%s - %s" % ("ok" if ok else "not ok", name))
        fails += not ok

    win = "from %.3f to %.3f s" % (t0 / 1e9, t1 / 1e9)
    ea, eb = events(a, t0, t1), events(b, t0, t1)
    print("# events %s: %d in A, %d in B" % (win, len(ea), len(eb)))
    first = next((i for i, (x, y) in enumerate(zip(ea, eb)) if x != y),
                 None if len(ea) == len(eb) else min(len(ea), len(eb)))
    if first is not None:
        print("# first difference, event %d: A %s, B %s" % (
            first, ea[first] if first < len(ea) else "none",
            eb[first] if first < len(eb) else "none"))
    ka, kb = collections.defaultdict(list), collections.defaultdict(list)
    for t, k in ea:
        ka[k].append(t)
    for t, k in eb:
        kb[k].append(t)
    same = {k: len(v) for k, v in ka.items()} == \
        {k: len(v) for k, v in kb.items()}
    shifts = [y - x for k in ka for x, y in zip(ka[k], kb.get(k, []))]
    worst = max((abs(s) for s in shifts), default=0)
    print("# %d kinds of event; of their events %d moved between the "
          "runs, by at most %d ns" % (len(ka), sum(1 for s in shifts if s),
                                      worst))
    if tol == 0:
        tap(ea == eb and len(ea) > 0,
            "timed: the switch's events %s are byte-identical in both runs"
            % win)
    else:
        tap(same and len(ea) > 0, "timed: the switch's events %s are the "
            "same frames in both runs" % win)
        d0 = abs(eb[0][0] - ea[0][0]) if ea and eb else None
        print("# the window's first frame: A %s, B %s, %s ns apart" % (
            ea[0] if ea else "none", eb[0] if eb else "none", d0))
        tap(d0 is not None and ea[0][1] == eb[0][1] and d0 <= first_tol,
            "timed: the flow's first frame at the same virtual instant in "
            "both runs within %d ns" % first_tol)
        tap(same and len(ea) > 0 and worst <= tol,
            "timed: each of them at the same virtual instant in both "
            "runs within %d ns" % tol)

    sa, sb = series(a, t0, t1), series(b, t0, t1)
    differ = sum(1 for x, y in zip(sa, sb) if x[0] != y[0])
    dt = interval(sa)
    per = [max(abs(u - v) for u, v in zip(sample_bytes(x[1], dt),
                                           sample_bytes(y[1], dt)))
           for x, y in zip(sa, sb)]
    print("# series %s: %d samples in A, %d in B, %d differ, by at most "
          "%d bytes sent on a port" % (win, len(sa), len(sb), differ,
                                       max(per, default=0)))
    if tol == 0:
        tap([x[0] for x in sa] == [y[0] for y in sb] and len(sa) > 0,
            "timed: the time series %s are identical" % win)
    else:
        tot = [[sum(c) for c in zip(*(sample_bytes(x[1], dt) for x in s))]
               for s in (sa, sb)]
        tap(len(sa) == len(sb) and len(sa) > 0 and tot[0] == tot[1],
            "timed: the time series %s have as many samples and the same "
            "bytes per port" % win)

    fa, fb = flows(a), flows(b)
    for g in sorted(set(fa) | set(fb)):
        x, y = fa.get(g, []), fb.get(g, [])
        sx, sy = summary(x), summary(y)
        print("# %s: the measured flow: A %s bytes in %s s, B %s bytes in "
              "%s s" % (g, sx.get("bytes"), sx.get("seconds"),
                        sy.get("bytes"), sy.get("seconds")))
        if tol == 0:
            tap(x == y and len(x) > 0,
                "timed: %s's measured flow reported the same in both runs"
                % g)
        else:
            tap(bool(sx) and sx.get("bytes") == sy.get("bytes") and
                abs(sx["seconds"] - sy.get("seconds", -1)) * 1e9 <=
                max(tol, 1e6),
                "timed: %s's measured flow moved the same bytes in the "
                "same time in both runs" % g)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
