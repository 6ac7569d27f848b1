#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host's part of the timed-incast group (tests/e2e/groups/timed-incast.sh),
from the run's directory OUT:

  timed_incast.py judge OUT [SCEN+SCEN...]
      TAP lines: from each scenario's series (the switch's running
      totals, every 50 us of virtual time), lossy dropped frames; pfc
      and dcqcn dropped none; pfc sent PFC frames, and its goodput (the
      bytes R checked over the time R's port sent them, net_goodput())
      is at least 90% of the bottleneck's payload; dcqcn sent fewer
      than pfc; in each, the senders' traffic began within 200 us of
      one another.  A scenario not asked for (default lossy+pfc+dcqcn) is
      skipped.  Then, as comments, the table: per scenario its flows'
      virtual time and goodput (guest 0's timed-incast.jsonl, R's
      clock), what R's switch port sent meanwhile (Mb/s of frames, the
      series' "R tx"), drops, PFC frames, CE marks, CNPs, and its wall
      time.
  timed_incast.py goal OUT [--assert]
      the DCQCN paper's thresholds for dcqcn (the issue's goal): R's
      queue median between Kmin and Kmax and its p95 below Kmax, Jain's
      index of the senders' rates at least 0.95 in every 1 ms window,
      from WARMUP_S after every sender has started until the first
      stops; at least 90% fewer PFC frames than pfc; goodput at least
      90% of the bottleneck's payload.  As comments, met or missed
      (make check reports them); with --assert as TAP lines (make
      check-lossless TIMED=1 asserts them).
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
# The goal's checks: what the bottleneck carries of payload (1024 of
# every 1106 bytes of line time at 25 Gb/s: guest/timed-incast.sh), the
# warm-up after every sender has started, Jain's windows.
CAP_MBPS = 25000 * 1024 / 1106
WARMUP_S = 2e-3
WINDOW_S = 1e-3


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
                         ("pfc", ("nodrop", "pauses", "goodput")),
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
            elif c == "goodput":
                gp = net_goodput(out, scen)
                tap(gp is not None and gp >= 0.9 * CAP_MBPS,
                    "%s: goodput at least 90%% of the bottleneck's %.0f Mb/s "
                    "of payload (%s Mb/s: every byte R checked, over the "
                    "time R's port sent the flows)"
                    % (scen, CAP_MBPS, "%.1f" % gp if gp is not None
                       else "?"))
            elif got.get("pfc") is None:
                print("ok - %s: fewer PFC frames than pfc # SKIP no pfc "
                      "scenario" % scen)
            else:
                tap(pauses < got["pfc"][1],
                    "%s: fewer PFC frames than PFC alone (%d, pfc %d)"
                    % (scen, pauses, got["pfc"][1]))
    for scen in SCENARIOS:
        if scen not in only:
            print("ok - %s: the senders start together # SKIP not asked "
                  "for" % scen)
            continue
        rows = series(out, scen) or []
        gap = start_gap(rows)
        tap(gap is not None and gap <= START_TOL,
            "%s: the %d senders started within %d us of one another (the "
            "last %s us after the first)"
            % (scen, len(senders(rows)), START_TOL * 1e6,
               "%.0f" % (gap * 1e6) if gap is not None else "?"))
    table(out, got, "# ")
    return 0


def senders(rows):
    """The senders' switch ports: every port of the series but R's."""
    if not rows:
        return []
    return [p["port"] for p in rows[0]["ports"] if p["port"] != incast.R]


def start_gap(rows):
    """The last sender's first sample with the flow's traffic at its
    port less the first sender's, in seconds; None if one never sent.
    Traffic of the flow: over 1 Gb/s of the scenario's priority in a
    sample, more than a control frame's worth (lossy's priority 0 also
    carries the senders' TCP)."""
    if not rows:
        return None
    prio = flow_prio(rows)
    first = {}
    for r in rows:
        for p in senders(rows):
            if p not in first and \
                    incast.port(r, p)["rx_mbps_prio"][prio] > 1000:
                first[p] = r["t"]
    if len(first) < len(senders(rows)):
        return None
    return max(first.values()) - min(first.values())


def net_goodput(out, scen):
    """SCEN's goodput, Mb/s: the bytes R's receivers checked, every flow
    (guest0/flow.SCEN.sN, their summaries), over the time R's switch port
    sent the flows' priority (over 1 Gb/s in a sample, from the first
    such sample to the end of the last).  R's own figure (its clock from
    the first message checked to the last, less one message a flow)
    also counts R's checks, which lag the frames: with eight flows on
    one vCPU the last came 2.5 ms after the last frame."""
    rows = series(out, scen)
    if not rows or len(rows) < 2:
        return None
    prio = flow_prio(rows)
    ts = [r["t"] for r in rows
          if incast.port(r, incast.R)["tx_mbps_prio"][prio] > 1000]
    if not ts:
        return None
    span = ts[-1] - ts[0] + (rows[1]["t"] - rows[0]["t"])
    total, n = 0, 0
    for p in senders(rows):
        path = os.path.join(out, "guest0", "flow.%s.s%d" % (scen, p))
        try:
            with open(path) as f:
                summ = [json.loads(x) for x in f if '"summary": true' in x]
        except (OSError, ValueError):
            return None
        if not summ:
            return None
        total += summ[-1]["bytes"]
        n += 1
    return total * 8 / span / 1e6 if n else None


def bottleneck_mbps(rows):
    """What R's port sent on the flows' priority, Mb/s of frames, from
    the first sample in which a sender brought the flows' traffic in
    (over 1 Gb/s, as start_gap() counts it) to the last: the network's
    side of the goodput R measures on its clock."""
    if not rows:
        return None
    prio = flow_prio(rows)
    ts = [i for i, r in enumerate(rows)
          if any(incast.port(r, p)["rx_mbps_prio"][prio] > 1000
                 for p in senders(rows))]
    if not ts:
        return None
    run = rows[ts[0]:ts[-1] + 1]
    return sum(incast.port(r, incast.R)["tx_mbps_prio"][prio]
               for r in run) / len(run)


def table(out, got, pre=""):
    rows, walls = guest_rows(out), ctl_walls(out)
    print(pre + "%-6s %8s %10s %9s %7s %6s %7s %6s %7s" % (
        "scen", "virt ms", "Mb/s", "R tx", "drops", "PFC", "marked",
        "CNPs", "wall s"))
    for scen in SCENARIOS:
        if got.get(scen) is None:
            continue
        r = rows.get(scen, {})
        tx = bottleneck_mbps(series(out, scen))
        print(pre + "%-6s %8s %10s %9s %7d %6d %7s %6s %7s" % (
            scen, r.get("virtual_ms"), r.get("goodput_mbps"),
            "%.0f" % tx if tx is not None else "-", got[scen][0],
            got[scen][1], r.get("ecn_marked"), r.get("cnp_sent"),
            "%.1f" % walls[scen] if scen in walls else "-"))
    return 0 if any(got.values()) else 1


def red_config(out):
    """RED's Kmin and Kmax at R's port, in bytes, from the switch settings
    of the group that ran in OUT (groups/NAME.sh, NAME being OUT's last
    component: timed-incast or timed-incast8), so that the plot shows
    what the run had."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "groups", os.path.basename(os.path.normpath(out)) +
                        ".sh")
    if not os.path.exists(path):
        path = os.path.join(os.path.dirname(path), "timed-incast.sh")
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
                 for p in senders(rows))]
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
            red_config(out) if scen == "dcqcn" else None, 1e3,
            "virtual time (ms)", senders(rows))
    return 0 if ok and drawn else 1


def percentile(vals, q):
    v = sorted(vals)
    return v[min(len(v) - 1, int(q * len(v)))] if v else None


def jain(xs):
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq else None


def converged(rows, prio):
    """The samples from WARMUP_S after the last sender's first traffic
    on PRIO until the first sender's last: the time every flow runs."""
    firsts, lasts = [], []
    for p in senders(rows):
        ts = [r["t"] for r in rows
              if incast.port(r, p)["rx_mbps_prio"][prio] > 1000]
        if not ts:
            return []
        firsts.append(ts[0])
        lasts.append(ts[-1])
    return [r for r in rows
            if max(firsts) + WARMUP_S <= r["t"] <= min(lasts)]


def goal(out, strict):
    """The goal's figures for dcqcn, met or missed; returns 0 unless
    STRICT and one was missed or could not be worked out."""
    rows = series(out, "dcqcn")
    got = scenario_counts(out)
    red = red_config(out)
    res = []
    if not rows or not red:
        res.append((False, "dcqcn: no series or no RED settings"))
    else:
        prio = flow_prio(rows)
        run = converged(rows, prio)
        q = [incast.port(r, incast.R)["depth_prio"][prio] for r in run]
        med, p95 = percentile(q, 0.5), percentile(q, 0.95)
        kmin, kmax = red
        res.append((med is not None and kmin <= med <= kmax,
                    "dcqcn: R's queue median between Kmin and Kmax (%s KB; "
                    "%d and %d KB, %d samples from %.0f ms after the last "
                    "sender started)" % (
                        "%.1f" % (med / 1e3) if med is not None else "?",
                        kmin / 1e3, kmax / 1e3, len(q), WARMUP_S * 1e3)))
        res.append((p95 is not None and p95 < kmax,
                    "dcqcn: R's queue p95 below Kmax (%s KB)"
                    % ("%.1f" % (p95 / 1e3) if p95 is not None else "?")))
        per = max(1, int(round(WINDOW_S / (run[1]["t"] - run[0]["t"])))) \
            if len(run) > 1 else 1
        js = []
        for i in range(0, len(run) - per + 1, per):
            w = run[i:i + per]
            js.append(jain([sum(incast.port(r, p)["rx_mbps_prio"][prio]
                                for r in w) for p in senders(rows)]))
        low = min([j for j in js if j is not None], default=None)
        res.append((bool(js) and low is not None and None not in js and
                    low >= 0.95,
                    "dcqcn: Jain's index of the %d senders' rates at least "
                    "0.95 in each of %d windows of %.0f ms (lowest %s)" % (
                        len(senders(rows)), len(js), WINDOW_S * 1e3,
                        "%.4f" % low if low is not None else "?")))
    pfc, dcq = got.get("pfc"), got.get("dcqcn")
    if pfc and dcq and pfc[1]:
        res.append((dcq[1] <= pfc[1] / 10,
                    "dcqcn: at least 90%% fewer PFC frames than pfc (%d, pfc "
                    "%d: %.0f%% fewer)" % (dcq[1], pfc[1],
                                           100 * (1 - dcq[1] / pfc[1]))))
    else:
        res.append((False, "dcqcn: PFC frames against pfc: no pfc or dcqcn "
                    "series, or pfc sent none"))
    gp = net_goodput(out, "dcqcn")
    res.append((gp is not None and gp >= 0.9 * CAP_MBPS,
                "dcqcn: goodput at least 90%% of the bottleneck's %.0f Mb/s "
                "of payload (%s Mb/s, as pfc's is judged)"
                % (CAP_MBPS, "%.1f" % gp if gp is not None else "?")))
    for ok, what in res:
        if strict:
            tap(ok, what)
        else:
            print("# goal %s: %s" % ("met" if ok else "missed", what))
    return 1 if strict and not all(ok for ok, _ in res) else 0


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
    if len(argv) >= 3 and argv[1] == "goal":
        return goal(argv[2], "--assert" in argv[3:])
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
