#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host's part of the timed-incast group (tests/e2e/groups/timed-incast.sh),
from the run's directory OUT:

  timed_incast.py judge OUT [SCEN+SCEN...]
      TAP lines: from each scenario's series (the switch's running
      totals, every 50 us of virtual time), lossy dropped frames; pfc
      and dcqcn dropped none; pfc sent PFC frames; dcqcn sent fewer
      than pfc; in each, S1's and S2's traffic began within 200 us of
      each other.  A scenario not asked for (default lossy+pfc+dcqcn) is
      skipped.  Then, as comments, the table: per scenario its flows'
      virtual time and goodput (guest 0's timed-incast.jsonl, R's
      clock), drops, PFC frames, CE marks, CNPs, and its wall time.
  timed_incast.py cost OUT
      per scenario its wall time per virtual ms of series, and the
      switch's virtual and wall time, waits and wall time per wait;
      fails only when a figure is missing.
  timed_incast.py table OUT
      the table alone, as judge prints it (make demo-lossless TIMED=1).
  timed_incast.py plot OUT
      OUT/series.NAME.png per scenario over virtual time (gnuplot), as
      host/incast.py draws the wall-clock runs': R's queue, each
      sender's rate, the PFC frames sent to them and the CE marks, on
      the priority the scenario's flows came in on, with RED's Kmin and
      Kmax as dashed lines in dcqcn.

Every figure judged is virtual; the wall times are what the run cost,
not what it measured."""
import json
import os
import re
import shutil
import sys

import incast

SCENARIOS = ("lossy", "pfc", "dcqcn")
# The two flows start when their goes arrive, a datagram from R to each
# sender a few microseconds apart; the series shows it to a sample (50
# us).  A start further apart is not the incast the checks judge.
START_TOL = 200e-6


def series(out, scen):
    path = os.path.join(out, "series.%s.jsonl" % scen)
    try:
        with open(path) as f:
            return [json.loads(x) for x in f if x.strip()]
    except (OSError, ValueError):
        return None


def total(line, key):
    return sum(sum(p[key]) for p in line["ports"])


def counts(s):
    """Frames dropped and PFC frames sent over a series: its running
    totals' last line less its first (the first tick comes 50 us after
    the series starts, well before the go)."""
    return (total(s[-1], "dropped") - total(s[0], "dropped"),
            total(s[-1], "pause_tx") - total(s[0], "pause_tx"))


def ctl_walls(out):
    """Each scenario's wall time: its series' start to its end, as
    switch-ctl.log stamped the requests."""
    walls, cur = {}, None
    try:
        with open(os.path.join(out, "switch-ctl.log")) as f:
            for line in f:
                m = re.match(r"^([0-9.]+) guest0 series file=\S*series\."
                             r"(\w+)\.jsonl", line)
                if m:
                    cur = (m.group(2), float(m.group(1)))
                    continue
                m = re.match(r"^([0-9.]+) guest0 series off", line)
                if m and cur:
                    walls[cur[0]] = float(m.group(1)) - cur[1]
                    cur = None
    except OSError:
        pass
    return walls


def guest_rows(out):
    rows = {}
    try:
        with open(os.path.join(out, "guest0", "timed-incast.jsonl")) as f:
            for line in f:
                r = json.loads(line)
                rows[r["scenario"]] = r
    except (OSError, ValueError):
        pass
    return rows


def tap(ok, what):
    print("%s - %s" % ("ok" if ok else "not ok", what))


def scenario_counts(out, only=SCENARIOS):
    got = {}
    for scen in SCENARIOS:
        s = series(out, scen) if scen in only else None
        got[scen] = counts(s) if s else None
    return got


def judge(out, only):
    got = scenario_counts(out, only)
    for scen, checks in (("lossy", ("drops",)),
                         ("pfc", ("nodrop", "pauses")),
                         ("dcqcn", ("nodrop", "fewer"))):
        for c in checks:
            if scen not in only:
                print("ok - %s: %s # SKIP not asked for" % (scen, c))
                continue
            n = got[scen]
            if n is None:
                tap(False, "%s: %s: no series" % (scen, c))
                continue
            drops, pauses = n
            if c == "drops":
                tap(drops > 0, "%s: the switch dropped frames (%d)"
                    % (scen, drops))
            elif c == "nodrop":
                tap(drops == 0, "%s: no frame dropped at the switch (%d)"
                    % (scen, drops))
            elif c == "pauses":
                tap(pauses > 0, "%s: the switch sent PFC frames (%d)"
                    % (scen, pauses))
            elif got.get("pfc") is None:
                print("ok - %s: fewer PFC frames than pfc # SKIP no pfc "
                      "scenario" % scen)
            else:
                tap(pauses < got["pfc"][1],
                    "%s: fewer PFC frames than PFC alone (%d, pfc %d)"
                    % (scen, pauses, got["pfc"][1]))
    for scen in SCENARIOS:
        if scen not in only:
            print("ok - %s: S1 and S2 start together # SKIP not asked for"
                  % scen)
            continue
        gap = start_gap(series(out, scen) or [])
        tap(gap is not None and abs(gap) <= START_TOL,
            "%s: S1 and S2 started within %d us of each other (S2 %s us "
            "after S1)" % (scen, START_TOL * 1e6,
                           "%+.0f" % (gap * 1e6) if gap is not None
                           else "?"))
    table(out, got, "# ")
    return 0


def start_gap(rows):
    """S2's first sample with the flow's traffic at its port, less S1's,
    in seconds; None if either never sent.  Traffic of the flow: over
    1 Gb/s of the scenario's priority in a sample, more than a control
    frame's worth (lossy's priority 0 also carries the senders' TCP)."""
    if not rows:
        return None
    prio = flow_prio(rows)
    first = {}
    for r in rows:
        for p in (incast.S1, incast.S2):
            if p not in first and \
                    incast.port(r, p)["rx_mbps_prio"][prio] > 1000:
                first[p] = r["t"]
    if len(first) < 2:
        return None
    return first[incast.S2] - first[incast.S1]


def table(out, got, pre=""):
    rows, walls = guest_rows(out), ctl_walls(out)
    print(pre + "%-6s %8s %10s %7s %6s %7s %6s %7s" % (
        "scen", "virt ms", "Mb/s", "drops", "PFC", "marked", "CNPs",
        "wall s"))
    for scen in SCENARIOS:
        if got.get(scen) is None:
            continue
        r = rows.get(scen, {})
        print(pre + "%-6s %8s %10s %7d %6d %7s %6s %7s" % (
            scen, r.get("virtual_ms"), r.get("goodput_mbps"), got[scen][0],
            got[scen][1], r.get("ecn_marked"), r.get("cnp_sent"),
            "%.1f" % walls[scen] if scen in walls else "-"))
    return 0 if any(got.values()) else 1


def red_config():
    """RED's Kmin and Kmax at R's port, in bytes, from the group's switch
    settings (groups/timed-incast.sh), so that the plot shows what the
    run had."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "groups", "timed-incast.sh")
    try:
        with open(path) as f:
            m = re.search(r"kmin=(\d+) kmax=(\d+)", f.read())
    except OSError:
        m = None
    return (int(m.group(1)), int(m.group(2))) if m else None


def flow_prio(rows):
    """The priority the senders' traffic came in on at S1's port: the
    scenario's (lossy flows go untagged, priority 0)."""
    tot = [0.0] * 8
    for r in rows:
        for i, v in enumerate(incast.port(r, incast.S1)["rx_mbps_prio"]):
            tot[i] += v
    return max(range(8), key=lambda i: tot[i])


def active(rows, prio, margin=1e-3):
    """ROWS from MARGIN seconds before the first sample in which a sender
    brought traffic in on PRIO to MARGIN after the last: a scenario's
    series starts well before its flows' go."""
    ts = [r["t"] for r in rows
          if any(incast.port(r, p)["rx_mbps_prio"][prio] > 0
                 for p in (incast.S1, incast.S2))]
    if not ts:
        return rows
    return [r for r in rows if ts[0] - margin <= r["t"] <= ts[-1] + margin]


def plot(out):
    if not shutil.which("gnuplot"):
        print("timed_incast.py: plot needs gnuplot (gnuplot-nox)",
              file=sys.stderr)
        return 1
    ok, drawn = True, 0
    for scen in SCENARIOS:
        rows = series(out, scen)
        if not rows:
            continue
        drawn += 1
        prio = flow_prio(rows)
        ok &= incast.draw(
            active(rows, prio), prio, os.path.join(out, "series.%s.dat" % scen),
            os.path.join(out, "series.%s.png" % scen),
            "timed incast: %s (virtual time)" % scen,
            red_config() if scen == "dcqcn" else None, 1e3,
            "virtual time (ms)")
    return 0 if ok and drawn else 1


def switch_summary(out):
    try:
        with open(os.path.join(out, "switch.log")) as f:
            for line in f:
                m = re.match(r"^rocx-switch: timed: ([0-9.]+) s virtual in "
                             r"([0-9.]+) s wall: .* (\d+) events, (\d+) "
                             r"waits", line)
                if m:
                    return (float(m.group(1)), float(m.group(2)),
                            int(m.group(3)), int(m.group(4)))
    except OSError:
        pass
    return None


def cost(out):
    walls = ctl_walls(out)
    ok = True
    for scen in SCENARIOS:
        s = series(out, scen)
        if s is None:
            continue
        virt_ms = s[-1]["t"] * 1e3 if s else 0
        wall = walls.get(scen)
        if not s or wall is None:
            print("# %s: no series or no wall time" % scen)
            ok = False
            continue
        print("# %s: %.1f virtual ms of series in %.1f s wall (%.2f s "
              "wall per virtual ms)" % (scen, virt_ms, wall,
                                        wall / virt_ms if virt_ms else 0))
    sw = switch_summary(out)
    if not sw:
        print("# no timed summary in switch.log")
        return False
    virt, wall, events, waits = sw
    print("# switch: %.3f s virtual in %.1f s wall, %d events, %d waits, "
          "%.1f us wall per wait" % (virt, wall, events, waits,
                                     wall / waits * 1e6 if waits else 0))
    return ok


def main(argv):
    if len(argv) >= 3 and argv[1] == "judge":
        only = argv[3].split("+") if len(argv) >= 4 else list(SCENARIOS)
        return judge(argv[2], only)
    if len(argv) >= 3 and argv[1] == "cost":
        return 0 if cost(argv[2]) else 1
    if len(argv) >= 3 and argv[1] == "table":
        return table(argv[2], scenario_counts(argv[2]))
    if len(argv) >= 3 and argv[1] == "plot":
        return plot(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
