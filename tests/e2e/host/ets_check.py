#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ets_check.py LOG PHASE - group dcb's ETS measured at the switch.

LOG is host/switch_ctl.sh's switch-ctl.log of the run.  Guest 0 (part
"ets wire" of guest/dcb.sh) marks a phase with the request "# ets PHASE"
and then reads `qshow port=1` four times, 1.5 s apart, while its
device (line rate 20 Mb/s) sends RDMA WRITEs from three QPs, each with a
backlog, at priorities 1, 2 and 3 (classes 1, 2 and 3, ETS shares 50, 30
and 20) to guest 1 on port 1.  Each pair of consecutive reads is a
window: the switch's transmit bytes of port 1 per priority, over the
host's time between the two reads (the log's time of each request,
taken as it was carried out).

  shares   each window: priorities 1..3 share what was sent 50/30/20
  maxrate  class 3 has tc_maxrate 2 Mb/s: priority 3 at 2 Mb/s, and
           priorities 1 and 2 share the rest 50:30

Every class has a backlog throughout, so the device's deficit round
robin decides the order of every frame, whether the line or the model's
own pace (a TCG guest's device on a loaded host may not fill its line)
limits the total: the shares do not depend on the host's load, and
neither does a ceiling.  Each window must carry at least 12 Mb/s, below
which class 3's share (20%) would hardly reach its 2 Mb/s ceiling and
the maxrate phase would prove nothing, and at most the line rate.

Tolerances: shares within 5 points.  A window carries 2.2 MB or more,
at least 22 rounds of deficit round robin (quanta of 1024 bytes per
point of share, 100 KiB a round); each of a window's edges may cut a
round, which moves a class's share by at most its quantum, 50 KiB or
2.2 points, and the device may run 200 us of line time ahead of its clock, so
5 points leave room only for a class that ran dry, which is what the
check is there to catch.  The ceiling within 15%: a read's time is the
host's after the switch answered, late by the control client's start
(some 10 ms, more on a loaded host) at either edge of a 1.5 s window,
and a class under its ceiling keeps a DRR round of credit (41 ms at 20
Mb/s), 10 KB at 2 Mb/s.  The line rate within 10%, by the same timing.
"""
import re
import sys

SPEED = 20.0            # Mb/s, guest 0's line (groups/dcb.sh)
PRIOS = (1, 2, 3)
SHARES = {1: 50.0, 2: 30.0, 3: 20.0}
CAP = 2.0               # Mb/s, class 3's tc_maxrate in phase maxrate
MIN_TOTAL = 12.0        # Mb/s, for class 3's share to reach CAP
SHARE_TOL = 5.0         # points
CAP_TOL = 0.15          # of CAP
LINE_TOL = 0.10         # of SPEED

HEAD = re.compile(r"^(\d+\.\d+) guest(\d+) (.*)$")
PRIO = re.compile(r"^port1 prio(\d) .* tx_bytes=(\d+) ")


def reads(log, phase):
    """The (time, {prio: tx_bytes}) of guest 0's qshows after its mark
    of PHASE, up to its next request of another kind."""
    out, on, cur = [], False, None
    with open(log, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HEAD.match(line)
            if m and m.group(2) == "0":
                t, req = float(m.group(1)), m.group(3)
                if req == "# ets " + phase:
                    on = True
                elif on and req == "qshow port=1":
                    cur = (t, {})
                    out.append(cur)
                    continue
                elif on:
                    break
                cur = None
                continue
            m = PRIO.match(line)
            if m and cur is not None:
                cur[1][int(m.group(1))] = int(m.group(2))
    return out


def main():
    log, phase = sys.argv[1], sys.argv[2]
    rs = reads(log, phase)
    if len(rs) < 4 or any(set(PRIOS) - set(r[1]) for r in rs):
        print("# ets %s: %d reads of qshow port=1 in %s, expected 4"
              % (phase, len(rs), log))
        return 1
    fail = 0
    for n, (a, b) in enumerate(zip(rs, rs[1:])):
        dt = b[0] - a[0]
        mbps = {p: (b[1][p] - a[1][p]) * 8 / dt / 1e6 for p in PRIOS}
        total = sum(mbps.values())
        line = "# ets %s window %d (%.2f s): %s, total %.1f Mb/s" % (
            phase, n, dt,
            " ".join("prio%d %.1f Mb/s (%.1f%%)"
                     % (p, mbps[p], 100 * mbps[p] / total if total else 0)
                     for p in PRIOS), total)
        print(line)
        bad = []
        if total < MIN_TOTAL or total > SPEED * (1 + LINE_TOL):
            bad.append("%.1f Mb/s in all, not between %.0f and the line's %.0f"
                       % (total, MIN_TOTAL, SPEED))
        if phase == "shares":
            for p in PRIOS:
                got = 100 * mbps[p] / total if total else 0
                if abs(got - SHARES[p]) > SHARE_TOL:
                    bad.append("prio%d has %.1f%%, not %.0f%%"
                               % (p, got, SHARES[p]))
        else:
            if abs(mbps[3] - CAP) > CAP * CAP_TOL:
                bad.append("prio3 at %.2f Mb/s, not %.0f" % (mbps[3], CAP))
            rest = mbps[1] + mbps[2]
            got = 100 * mbps[1] / rest if rest else 0
            want = 100 * SHARES[1] / (SHARES[1] + SHARES[2])
            if abs(got - want) > SHARE_TOL:
                bad.append("prio1 has %.1f%% of prio1+2, not %.1f%%"
                           % (got, want))
        for b_ in bad:
            print("# ets %s window %d: %s" % (phase, n, b_))
        fail |= bool(bad)
    return fail


if __name__ == "__main__":
    sys.exit(main())
