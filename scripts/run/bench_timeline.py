#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a latency run's round trip goes, from the rocx guests' trace.

    scripts/run/bench.sh --kinds rocx --only write_lat_2 \\
        --trace rocx_db_write,rocx_tx,rocx_chan_rx --link channel
    scripts/run/bench_timeline.py [--worst N] [build/bench]

ib_write_lat is a ping-pong: the client writes, the server's guest sees
the data land and writes back, and so on.  Every step of it leaves a
trace event in one of the two QEMUs, stamped with the host's clock and
the thread that ran it (-msg timestamp=on): the send queue doorbell the
sender's vCPU rings (rocx_db_write), the record its NIC hands the fabric
(rocx_tx), the record the other NIC takes from the fabric
(rocx_chan_rx).  Following the chain from one client doorbell to the
next gives each round trip in six segments, three per direction:

    post     doorbell to the record leaving (the engine, in the thread
             that ran it)
    fabric   the record leaving one QEMU to the other taking it (its
             ring, the switch, the waking of the receiver)
    react    the record taken to the receiving guest's next doorbell
             (the engine writing the data, the guest's vCPU seeing it,
             the application posting its answer)

Prints each segment's median, 90th and 99th percentiles in us, over the
round trips of the longest run of consecutive ones, and how often the
client's write left from its main thread rather than its vCPU's
doorbell.  The trace costs a write(2)
per event, a few us each, which the segments include.  --worst N also
lists the N slowest round trips, each with the host's clock when it
began and its segments over a millisecond, to be set beside the
bench's host stalls (acct/stalls.cpu*, on CLOCK_MONOTONIC) or a
`perf sched` record of the same minutes.
"""
import collections
import os
import re
import sys

LINE = re.compile(r"^(\d+)@(\d+)\.(\d+):(rocx_db_write|rocx_tx|rocx_chan_rx) "
                  r"(.*)$")
LEN = re.compile(r"(?:len|record of) (\d+)")
DB = re.compile(r"page (\d+) off 0x([0-9a-f]+) ")


def events(path):
    """(us, tid, name, length or None) of a qemu.log, in order."""
    out = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = LINE.match(line)
                if not m:
                    continue
                name = m.group(4)
                if name == "rocx_db_write":
                    # Only a user page's send queue doorbell posts a
                    # write (include/rocx/rocx_hw.h, ROCX_DB_SQ).
                    d = DB.match(m.group(5))
                    if not d or d.group(1) == "0" or int(d.group(2), 16):
                        continue
                n = LEN.search(m.group(5))
                out.append((int(m.group(2)) * 1000000 + int(m.group(3)),
                            int(m.group(1)), name,
                            int(n.group(1)) if n else None))
    except OSError:
        pass
    return out


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p / 100))]


class Side:
    """One QEMU's events, searchable by time."""

    def __init__(self, evs):
        self.evs = evs
        self.i = 0

    def next(self, after, name, length=None, not_length=None):
        """The first event NAME at or after time AFTER (and with LENGTH, or
        not with NOT_LENGTH); None if none."""
        while self.i < len(self.evs) and self.evs[self.i][0] < after:
            self.i += 1
        for j in range(self.i, len(self.evs)):
            e = self.evs[j]
            if e[2] != name:
                continue
            if length is not None and e[3] != length:
                continue
            if not_length is not None and e[3] == not_length:
                continue
            return e
        return None


def ack_length(evs):
    """The length of the records that carry ACKs: of the two most frequent
    records the NIC sends (its writes and its ACKs of the other's), the
    shorter, since an ACK is a write's headers less its RETH and data."""
    c = collections.Counter(e[3] for e in evs if e[2] == "rocx_tx")
    two = [n for n, _ in c.most_common(2)]
    return min(two) if len(two) == 2 else None


# A record the other NIC takes is the first after the send that is not one
# of the sender's ACKs: a write can leave bundled with an ACK (one engine
# run, one record), longer than either alone.
def round_trips(cli, srv):
    """Each round trip as (t0, segments, whether the client's write left
    from its main thread: the lowest thread ID, QEMU's first), following
    the chain from one client doorbell to the next."""
    c, s = Side(cli), Side(srv)
    c_ack, s_ack = ack_length(cli), ack_length(srv)
    c_main = min(e[1] for e in cli)
    trips = []
    t = cli[0][0] if cli else 0
    while True:
        db0 = c.next(t, "rocx_db_write")
        if db0 is None:
            break
        tx0 = c.next(db0[0], "rocx_tx", not_length=c_ack)
        if tx0 is None:
            break
        rx0 = s.next(tx0[0], "rocx_chan_rx", not_length=c_ack)
        if rx0 is None:
            break
        db1 = s.next(rx0[0], "rocx_db_write")
        if db1 is None:
            break
        tx1 = s.next(db1[0], "rocx_tx", not_length=s_ack)
        if tx1 is None:
            break
        rx1 = c.next(tx1[0], "rocx_chan_rx", not_length=s_ack)
        if rx1 is None:
            break
        db2 = c.next(rx1[0], "rocx_db_write")
        if db2 is None:
            break
        trips.append((db0[0], {
            "client post": tx0[0] - db0[0],
            "fabric c->s": rx0[0] - tx0[0],
            "server react": db1[0] - rx0[0],
            "server post": tx1[0] - db1[0],
            "fabric s->c": rx1[0] - tx1[0],
            "client react": db2[0] - rx1[0],
            "round trip": db2[0] - db0[0],
        }, tx0[1] == c_main))
        t = db2[0]
    return trips


def main(argv):
    args = list(argv[1:])
    worst = 0
    if args[:1] == ["--worst"] and len(args) > 1 and args[1].isdigit():
        worst = int(args[1])
        args = args[2:]
    out = args[0] if args else "build/bench"
    # guest0 serves the pair (scripts/guest/bench.sh), guest1 is its client.
    srv = events(os.path.join(out, "guest0", "qemu.log"))
    cli = events(os.path.join(out, "guest1", "qemu.log"))
    if not srv or not cli:
        print("bench_timeline: no rocx trace in %s/guest{0,1}/qemu.log "
              "(bench.sh --trace rocx_db_write,rocx_tx,rocx_chan_rx)" % out,
              file=sys.stderr)
        return 1
    trips = round_trips(cli, srv)
    # The latency run proper: round trips that follow one another within
    # a millisecond, the longest such stretch.
    best, cur = [], []
    for tr in trips:
        if cur and tr[0] - (cur[-1][0] + cur[-1][1]["round trip"]) > 1000:
            cur = []
        cur.append(tr)
        if len(cur) > len(best):
            best = cur
    if not best:
        print("bench_timeline: no round trip found", file=sys.stderr)
        return 1
    print("%d round trips (of %d chained), us:" % (len(best), len(trips)))
    print("%-14s %8s %8s %8s" % ("segment", "p50", "p90", "p99"))
    for k in best[0][1]:
        xs = [tr[1][k] for tr in best]
        print("%-14s %8d %8d %8d" % (k, pct(xs, 50), pct(xs, 90), pct(xs, 99)))
    main_tx = sum(1 for tr in best if tr[2])
    print("client's write left from its main thread in %d of %d (else its "
          "vCPU's doorbell)" % (main_tx, len(best)))
    if worst:
        print("the %d slowest round trips (host clock at the client's "
              "doorbell; segments over 1 ms, us):" % worst)
        for t0, seg, _ in sorted(best, key=lambda tr: -tr[1]["round trip"])[
                :worst]:
            print("  %d.%06d %8d  %s" % (
                t0 // 1000000, t0 % 1000000, seg["round trip"],
                ", ".join("%s %d" % (k, v) for k, v in seg.items()
                          if v > 1000 and k != "round trip") or "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
