# SPDX-License-Identifier: GPL-2.0
"""make bench's host side (scripts/run/bench.py) on made-up results and
samples, with no guest booted: the table's median [min-max], the latency
percentiles, n/a with its reason, the host accounting's arithmetic, and
a latency run's timeline from a made-up trace (bench_timeline.py).
tests/check/selftest.sh runs it; prints one "ok - NAME" or "not ok - NAME"
line per check."""
import contextlib
import io
import json
import os
import socket
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../scripts/run"))
import bench  # noqa: E402
import bench_timeline  # noqa: E402

bad = 0


def check(name, got, want):
    global bad
    if got == want:
        print("ok - bench: " + name)
    else:
        print("not ok - bench: %s (got %r, want %r)" % (name, got, want))
        bad += 1


PLAN = """# NAME KINDS REPS TOOL BYTES RUN
write_bw_64k  rocx,rxe 3 ib_write_bw  65536 -D 4
write_lat_2   rocx,rxe 1 ib_write_lat 2     -n 1000
write_lat_8   rocx,rxe 1 ib_write_lat 8     -n 1000
write_bw_64_sink sink  1 ib_write_bw  64    -D 2
"""


def row(text, label, unit):
    for line in text.splitlines():
        if line.startswith(label + " ") and (" %s " % unit) in line:
            return line[len(label):].split(unit, 1)[1].strip()
    return None


def main():
    with tempfile.TemporaryDirectory() as out:
        for g in range(5):
            os.makedirs(os.path.join(out, "guest%d" % g))
        os.makedirs(os.path.join(out, "acct"))
        with open(os.path.join(out, "plan"), "w") as f:
            f.write(PLAN)
        with open(os.path.join(out, "guest1", "results"), "w") as f:
            f.write("write_bw_64k rocx 1 ok bytes=65536 iters=1 bw_peak=1 "
                    "bw_avg=300.00 msg_rate=0.0048\n"
                    "write_bw_64k rocx 2 ok bytes=65536 iters=1 bw_peak=1 "
                    "bw_avg=100.00 msg_rate=0.0016\n"
                    "write_bw_64k rocx 3 na timed out after 40s\n"
                    "write_lat_2 rocx 1 ok bytes=2 iters=1000 t_min=20 "
                    "t_max=900 t_typical=57 t_avg=60 t_stdev=9 t_p99=300 "
                    "t_p999=800\n"
                    "write_lat_8 rocx 1 ok bytes=8 iters=1000 t_min=20 "
                    "t_max=900 t_typical=60 t_avg=60 t_stdev=9 t_p99=300 "
                    "t_p999=800\n")
        with open(os.path.join(out, "guest3", "results"), "w") as f:
            for rep, bw in ((1, 10), (2, 30), (3, 20)):
                f.write("write_bw_64k rxe %d ok bytes=65536 iters=1 "
                        "bw_peak=1 bw_avg=%d.00 msg_rate=0.0003\n" % (rep, bw))
            # The pilot said 400 round trips fit in the time.
            f.write("write_lat_8-pilot rxe 1 ok bytes=8 iters=1000 t_min=9 "
                    "t_max=9 t_typical=9 t_avg=9 t_stdev=9 t_p99=9 t_p999=9\n"
                    "write_lat_8 rxe 1 ok bytes=8 iters=400 t_min=200 "
                    "t_max=9000 t_typical=600 t_avg=700 t_stdev=9 "
                    "t_p99=3000 t_p999=8000\n")
        # 2 s of sink run at 0.1 Mpps: 200 000 messages, 12.8 MB.
        with open(os.path.join(out, "guest4", "results"), "w") as f:
            f.write("write_bw_64_sink sink 1 ok bytes=64 iters=1 bw_peak=1 "
                    "bw_avg=6.10 msg_rate=0.100000\n")
        with open(os.path.join(out, "acct", "write_bw_64_sink.sink.1.json"),
                  "w") as f:
            json.dump({"wall_s": 3.0, "steal_ticks": 5, "total_ticks": 500,
                       "stalls": [1, 0.1, 0.1],
                       "threads": {"guest4 vcpu": [2e9, 1e8, 100000, 7, 1],
                                   "guest2 vcpu": [1e9, 0, 5, 0, 1],
                                   "switch main": [0, 0, 0, 0, 1]}}, f)
        with open(os.path.join(out, "acct", "stalls.cpu0"), "w") as f:
            f.write("# cpu 0 policy fifo tick 0.005 min 0.01\n"
                    "0 10.000000 10.105000\n0 20.000000 20.012000\n")
        with open(os.path.join(out, "acct", "stalls.cpu1"), "w") as f:
            f.write("# cpu 1 policy fifo tick 0.005 min 0.01\n")
        with open(os.path.join(out, "run.env"), "w") as f:
            f.write("kinds=rocx rxe sink\nwall=9\n")
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            bench.report(out, os.path.join(out, "plan"),
                         ["rocx", "rxe", "sink"])
        text = text.getvalue()
        acct = open(os.path.join(out, "acct.txt")).read()

    check("median [min-max] over the repetitions that ran, with a note "
          "for the one that failed",
          row(text, "ib_write_bw 64 KiB", "MiB/s"),
          "200.0 [100.0-300.0] [1]      20.00 [10.00-30.00]    10.00")
    check("... and the note says why", "[1] rocx: 1 of 3 runs failed: "
          "timed out after 40s" in text, True)
    check("latency: p50 is perftest's t_typical",
          row(text, "ib_write_lat 2 B p50", "usec").split()[0], "57.00")
    check("latency: p99.9 and max",
          (row(text, "ib_write_lat 2 B p99.9", "usec").split()[0],
           row(text, "ib_write_lat 2 B max", "usec").split()[0]),
          ("800.0", "900.0"))
    check("latency without an rxe result is n/a with its reason",
          row(text, "ib_write_lat 2 B p99", "usec").split()[1:3],
          ["n/a", "[2]"])
    check("a latency run cut short by its pilot's pace says so",
          row(text, "ib_write_lat 8 B p50", "usec").split(),
          ["60.00", "600.0", "[3]", "0.10"])
    check("... with how many round trips it did",
          "[3] rxe: 400 of the plan's 1000 round trips" in text, True)
    check("a pilot is no row of the table", "-pilot" in text, False)
    check("the sink row: the rate in the rocx column, no rxe",
          row(text, "ib_write_bw sink 64 B", "Kmsg/s").split()[:2],
          ["100.0", "-"])
    # 2 s of CPU over 200 000 messages and 6.10 MiB/s for 2 s.
    check("host CPU per message and per GB",
          "host CPU 2.00 s (10 us/msg, 156.34 s/GB)" in text, True)
    check("wakeups per message and steal",
          "wakeups 0.5/msg, steal 1.0%" in text, True)
    check("a run's host stalls",
          "steal 1.0%; idle guests 1.00 s; host stalls 1 (100 ms, "
          "longest 100 ms)" in text, True)
    check("the whole run's host stalls, from every CPU's probe",
          "more 2 times (107 ms in all, longest 100 ms;" in text, True)
    check("the idle guests' CPU apart from the run's",
          "idle guests 1.00 s" in text, True)
    check("who plays which run",
          bench.players(["rocx", "rxe", "sink"]),
          {"rocx": ("guest0", "guest1"), "rxe": ("guest2", "guest3"),
           "sink": ("guest4", "guest4")})
    check("per thread role in acct.txt",
          "guest4 vcpu" in acct and "switch main" not in acct, True)

    a = {"t": 1.0, "ticks": (10, 100),
         "procs": {"guest0": {5: ("main", 100, 10, 1, 0)}}}
    b = {"t": 3.0, "ticks": (15, 300),
         "procs": {"guest0": {5: ("main", 400, 30, 4, 1),
                              6: ("vcpu", 50, 5, 2, 0)}}}
    d = bench.delta(a, b, [(0, 1.5, 1.605), (1, 2.95, 3.06),
                           (0, 0.2, 0.3)])
    check("host stalls within a sample: counted if they overlap it, the "
          "part inside less the probe's tick",
          [round(v, 6) for v in d["stalls"]], [2, 0.145, 0.105])
    check("a sample's difference per role; a thread born meanwhile "
          "counts from 0",
          (d["wall_s"], d["steal_ticks"], d["total_ticks"],
           d["threads"]["guest0 main"], d["threads"]["guest0 vcpu"]),
          (2.0, 5, 200, [300, 20, 3, 1, 1], [50, 5, 2, 0, 1]))
    check("thread roles by QEMU's debug-threads names",
          [bench.role(7, t, c) for t, c in ((7, "qemu-system-x86"),
                                             (8, "CPU 0/TCG"), (9, "worker"),
                                             (10, "call_rcu"), (11, "vnc"))],
          ["main", "vcpu", "worker", "rcu", "other"])
    timeline()
    waiting_guests()
    return 1 if bad else 0


def fake_monitor(path, heard):
    """A one-client HMP monitor: greeting and prompt, then the command
    line echoed and a prompt after it."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)

    def serve():
        conn, _ = srv.accept()
        with conn:
            conn.sendall(b"QEMU 10.0.2 monitor - type 'help'\r\n(qemu) ")
            line = b""
            while not line.endswith(b"\n"):
                chunk = conn.recv(64)
                if not chunk:
                    break
                line += chunk
            heard.append(line.decode().strip())
            conn.sendall(line.rstrip(b"\n") + b"\r\n(qemu) ")
        srv.close()

    th = threading.Thread(target=serve)
    th.start()
    return th


def waiting_guests():
    kinds = ["rocx", "rxe", "sink"]
    env = {"ROCX_MONITOR_%d" % g: "/m%d" % g for g in range(5)}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        check("a rocx run stops the Soft-RoCE pair and the sink guest",
              bench.bystanders(kinds, "write_bw_64.rocx.2"),
              ["/m2", "/m3", "/m4"])
        check("a pilot of rxe stops the rocx pair and the sink guest",
              bench.bystanders(kinds, "write_lat_2-pilot.rxe.1"),
              ["/m0", "/m1", "/m4"])
        check("a sink run stops both pairs",
              bench.bystanders(kinds, "write_bw_64_sink.sink.1"),
              ["/m0", "/m1", "/m2", "/m3"])
        check("a pair alone (a timed run) stops no one",
              bench.bystanders(["rocx"], "write_lat_2.rocx.1"), [])
        check("a tag of no kind stops no one",
              bench.bystanders(kinds, "write_bw_64.virtio.1"), [])
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.sock")
        heard = []
        th = fake_monitor(path, heard)
        ok = bench.hmp(path, "stop")
        th.join(10)
        check("hmp: the command reaches the monitor and its prompt comes "
              "back", (ok, heard), (True, ["stop"]))
        check("hmp: a monitor that is not there is False, not an error",
              bench.hmp(os.path.join(d, "none.sock"), "cont"), False)


def timeline():
    """scripts/run/bench_timeline.py on a made-up trace of three round
    trips, with the events that are not the chain's between them."""
    def ev(f, tid, us, what):
        f.write("%d@%d.%06d:%s\n" % (tid, 1700000000 + us // 1000000,
                                      us % 1000000, what))

    with tempfile.TemporaryDirectory() as out:
        for g in ("guest0", "guest1"):
            os.makedirs(os.path.join(out, g))
        cli = open(os.path.join(out, "guest1", "qemu.log"), "w")
        srv = open(os.path.join(out, "guest0", "qemu.log"), "w")
        sq = "rocx_db_write page 1 off 0x000 size 8 val 0x1"
        t = 1000
        for i in range(3):
            ev(cli, 101, t, sq)                                  # post
            ev(cli, 101, t + 5, "rocx_tx len 106")
            ev(srv, 200, t + 45, "rocx_chan_rx record of 106 bytes from "
               "the fabric channel: result 0")
            ev(srv, 200, t + 47, "rocx_tx len 90")               # its ACK
            ev(srv, 201, t + 60, "rocx_db_write page 1 off 0x018 size 8 "
               "val 0x2")                                        # a CQ's
            ev(srv, 201, t + 90, "rocx_db_write page 0 off 0x000 size 8 "
               "val 0x3")                                        # kernel's
            ev(srv, 201, t + 95 + i, sq)
            ev(srv, 201, t + 101 + i, "rocx_tx len 106")
            # The second answer reaches the client in one record with the
            # ACK (the switch bundles what it forwards to a port).
            if i != 1:
                ev(cli, 100, t + 110, "rocx_chan_rx record of 90 bytes "
                   "from the fabric channel: result 0")
            ev(cli, 100, t + 143 + i, "rocx_chan_rx record of %d bytes "
               "from the fabric channel: result 0" % (170 if i == 1 else 106))
            ev(cli, 100, t + 145 + i, "rocx_tx len 90")
            t += 198 + 2 * i
        ev(cli, 101, t, sq)
        cli.close()
        srv.close()
        trips = bench_timeline.round_trips(
            bench_timeline.events(os.path.join(out, "guest1", "qemu.log")),
            bench_timeline.events(os.path.join(out, "guest0", "qemu.log")))
        check("timeline: each round trip's six segments, the chain "
              "followed past CQ, kernel and ACK records and through a "
              "bundle",
              [tr[1] for tr in trips],
              [{"client post": 5, "fabric c->s": 40, "server react": 50 + i,
                "server post": 6, "fabric s->c": 42, "client react": 55 + i,
                "round trip": 198 + 2 * i} for i in range(3)])
        check("timeline: the client's writes left from its vCPU",
              [tr[2] for tr in trips], [False] * 3)
        err = io.StringIO()
        with contextlib.redirect_stdout(err):
            rc = bench_timeline.main(["x", out])
        check("timeline: the table's medians",
              (rc, [line.split()[-3] for line in err.getvalue().splitlines()
                    if line.startswith(("fabric c->s", "round trip"))]),
              (0, ["40", "200"]))
        err = io.StringIO()
        with contextlib.redirect_stdout(err):
            rc = bench_timeline.main(["x", "--worst", "1", out])
        check("timeline: --worst lists the slowest round trip first, at "
              "its doorbell's time",
              (rc, err.getvalue().splitlines()[-1].split()),
              (0, ["1700000000.001398", "202", "-"]))


if __name__ == "__main__":
    sys.exit(main())
