# SPDX-License-Identifier: GPL-2.0
"""make bench's host side (standard library only).

  bench.py sample [KINDS]
                     run-guests' host command: sample every QEMU thread and
                     the switch around each perftest run on request of the
                     client guest (scripts/guest/bench.sh), writing
                     $ROCX_RUN_OUT/acct/TAG.json; with KINDS (the guests'
                     kinds in order, colon-separated: ROCX_BENCH_KINDS),
                     also stop the vCPUs of the guests that take no part
                     in a run for its length (below)
  bench.py stallprobe CPU FILE
                     sample's probe of one CPU (below); runs until its
                     parent exits
  bench.py report OUT PLAN KINDS
                     the table of the run in OUT (build/bench): one row
                     per plan entry and figure, median [min-max] over the
                     repetitions, then the host's cost of every run
  bench.py timed-report OUT PLAN
                     the table of a timed run (make bench TIMED=1, in
                     build/bench-timed): each repetition's figures in
                     virtual time side by side, and how far apart they
                     are ("same": as perftest printed them)

A sample reads, for every thread of each QEMU (named by debug-threads: the
main loop is the thread whose id is the process's, "CPU n/TCG" a vCPU,
"worker" QEMU's thread pool, which serves 9p) and of rocx-switch:
/proc/PID/task/TID/schedstat (time on a CPU, time runnable but waiting on a
run queue, in ns), /proc/PID/task/TID/status (voluntary context switches:
the thread slept and was woken; involuntary: it was preempted), and the
host's steal time from /proc/stat.  The schedstat files need only
CONFIG_SCHED_INFO, not the schedstats sysctl.

Host stalls: this host may itself be a virtual machine whose hypervisor
takes a CPU away for ~100 ms at a time (its CPU quota) without counting
steal time.  Beside the sampling, one probe per CPU, pinned to it at the
highest real-time priority, sleeps STALL_TICK_S at a time and writes down
every sleep that lasted STALL_MIN_S or more: nothing in this machine can
keep such a thread from its CPU that long, so the gap is time the CPU did
not run at all.  A latency run's max or p99.9 near such a stall is the
host's, not rocx's.

Waiting guests: a guest with no part in a run only waits for its end, but
under TCG each of its wakes (its kernel's timers, its script's look for
its turn) costs about a millisecond of host CPU, and the three waiting
guests of make bench took a fifth to a third of a CPU from the measured
pair.  So, given KINDS, sample stops their vCPUs through their monitors
("stop") before a run's first sample and starts them again ("cont")
after its last.  A stopped VM's clocks stop with it, so its kernel sees
no time pass; its QEMU main loop still runs, so a NIC keeps its link.
Untimed runs only: a timed pair is alone and keeps its clock with the
switch.
"""
import socket
import json
import os
import re
import statistics
import subprocess
import sys
import time

POLL_S = 0.05
STALL_TICK_S = 0.005
STALL_MIN_S = 0.010


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def role(pid, tid, comm):
    if tid == pid:
        return "main"
    if comm.startswith("CPU "):
        return "vcpu"
    if comm.startswith("worker"):
        return "worker"
    if comm == "call_rcu":
        return "rcu"
    return "other"


def threads(pid):
    """{tid: (role, cpu_ns, wait_ns, voluntary, involuntary)} of PID."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for t in tids:
        base = "/proc/%d/task/%s/" % (pid, t)
        sched, status, comm = (read(base + f)
                               for f in ("schedstat", "status", "comm"))
        if not sched or not status or comm is None:
            continue
        cpu_ns, wait_ns = (int(v) for v in sched.split()[:2])
        vol = re.search(r"^voluntary_ctxt_switches:\s*(\d+)", status, re.M)
        inv = re.search(r"^nonvoluntary_ctxt_switches:\s*(\d+)", status, re.M)
        out[int(t)] = (role(pid, int(t), comm.strip()), cpu_ns, wait_ns,
                       int(vol.group(1)) if vol else 0,
                       int(inv.group(1)) if inv else 0)
    return out


def cpu_ticks():
    """(steal, total) jiffies of the host from /proc/stat."""
    f = (read("/proc/stat") or "cpu 0").split("\n")[0].split()[1:]
    v = [int(x) for x in f]
    return (v[7] if len(v) > 7 else 0), sum(v[:8])


def stallprobe(cpu, path):
    """Write "CPU T0 T1" (CLOCK_MONOTONIC s) for every sleep of
    STALL_TICK_S that took STALL_MIN_S or more, until the parent exits."""
    parent = os.getppid()
    os.sched_setaffinity(0, {cpu})
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(99))
        policy = "fifo"
    except OSError:
        policy = "other"      # without the right, waits for a CPU count too
    with open(path, "w", buffering=1) as f:
        f.write("# cpu %d policy %s tick %g min %g\n"
                % (cpu, policy, STALL_TICK_S, STALL_MIN_S))
        while os.getppid() == parent:
            t0 = time.monotonic()
            time.sleep(STALL_TICK_S)
            t1 = time.monotonic()
            if t1 - t0 >= STALL_MIN_S:
                f.write("%d %.6f %.6f\n" % (cpu, t0, t1))
    return 0


def read_stalls(paths):
    """[(cpu, t0, t1)] of the probes' files."""
    out = []
    for p in paths:
        for line in (read(p) or "").splitlines():
            f = line.split()
            if len(f) == 3 and not line.startswith("#"):
                out.append((int(f[0]), float(f[1]), float(f[2])))
    return out


def stalls_within(stalls, t0, t1):
    """[count, seconds lost, longest] of the stalls overlapping [t0, t1]:
    a stall's part inside, less the tick the probe meant to sleep."""
    n, lost, longest = 0, 0.0, 0.0
    for _, a, b in stalls:
        part = min(b, t1) - max(a, t0)
        if part <= 0:
            continue
        n += 1
        lost += max(0.0, part - STALL_TICK_S)
        longest = max(longest, b - a - STALL_TICK_S)
    return [n, lost, longest]


def snapshot(procs):
    return {"t": time.monotonic(), "ticks": cpu_ticks(),
            "procs": {who: threads(pid) for who, pid in procs.items()}}


def delta(a, b, stalls=()):
    """Per (who, role): cpu_ns, wait_ns, voluntary, involuntary, threads,
    between snapshots A and B.  A thread born in between counts from 0.
    STALLS: the probes' [(cpu, t0, t1)], summed over the interval."""
    acc = {}
    for who, ths in b["procs"].items():
        before = a["procs"].get(who, {})
        for tid, (rl, *vals) in ths.items():
            old = before.get(tid, (rl, 0, 0, 0, 0))[1:]
            key = "%s %s" % (who, rl)
            cur = acc.setdefault(key, [0, 0, 0, 0, 0])
            for i, v in enumerate(vals):
                cur[i] += v - old[i]
            cur[4] += 1
    steal = b["ticks"][0] - a["ticks"][0]
    total = b["ticks"][1] - a["ticks"][1]
    return {"wall_s": b["t"] - a["t"], "steal_ticks": steal,
            "total_ticks": total, "threads": acc,
            "stalls": stalls_within(stalls, a["t"], b["t"])}


def run_procs():
    """{who: pid}: guestN's QEMU and the switch of this run."""
    procs = {}
    for k, v in os.environ.items():
        m = re.fullmatch(r"ROCX_QEMU_PID_(\d+)", k)
        if m:
            procs["guest" + m.group(1)] = int(v)
    pidfile = os.path.join(os.path.dirname(os.environ["ROCX_SWITCH_CTL"]),
                           "switch.pid")
    for _ in range(50):
        txt = (read(pidfile) or "").strip()
        if txt:
            procs["switch"] = int(txt)
            break
        time.sleep(0.1)
    return procs


def hmp(path, command):
    """Send one HMP command to a guest's monitor socket; True if it
    answered (the prompt came back)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(path)
            got = b""
            while b"(qemu)" not in got:
                chunk = s.recv(4096)
                if not chunk:
                    return False
                got += chunk
            s.sendall(command.encode() + b"\n")
            got = b""
            # The command's echo, then the next prompt once it is done.
            while got.count(b"(qemu)") < 1:
                chunk = s.recv(4096)
                if not chunk:
                    return False
                got += chunk
            return True
    except OSError:
        return False


def bystanders(kinds, tag):
    """The guests (monitor socket paths) with no part in run TAG
    (NAME.KIND.REP)."""
    parts = tag.split(".")
    who = players(kinds)
    if len(parts) < 3 or parts[-2] not in who:
        return []
    mine = set(who[parts[-2]])
    out = []
    for g in sorted({x for pair in who.values() for x in pair} - mine):
        path = os.environ.get("ROCX_MONITOR_" + g[len("guest"):])
        if path:
            out.append(path)
    return out


def put(shared, key):
    tmp = os.path.join(shared, "val.%s.tmp.host" % key)
    with open(tmp, "w") as f:
        f.write("1\n")
    os.rename(tmp, os.path.join(shared, "val." + key))


def sample(kinds=()):
    out = os.environ["ROCX_RUN_OUT"]
    shared = os.path.join(out, "shared")
    acct = os.path.join(out, "acct")
    os.makedirs(acct, exist_ok=True)
    procs = run_procs()
    nguests = int(os.environ["ROCX_NGUESTS"])
    begun = {}
    done = set()
    stopped = {}
    # ROCX_STALL_PROBE=off: without them, to see what they change.
    cpus = sorted(os.sched_getaffinity(0)) \
        if os.environ.get("ROCX_STALL_PROBE") != "off" else []
    probes = [os.path.join(acct, "stalls.cpu%d" % c) for c in cpus]
    for c, path in zip(cpus, probes):
        subprocess.Popen([sys.executable, os.path.abspath(__file__),
                          "stallprobe", str(c), path])
    while True:
        names = os.listdir(shared)
        for n in names:
            m = re.fullmatch(r"val\.acct\.(begin|end)\.(.+)", n)
            if not m or n in done or ".tmp." in n:
                continue
            what, tag = m.groups()
            if what == "begin":
                stopped[tag] = [p for p in bystanders(kinds, tag)
                                if hmp(p, "stop")]
                begun[tag] = snapshot(procs)
            elif tag in begun:
                d = delta(begun.pop(tag), snapshot(procs),
                          read_stalls(probes))
                d["stopped"] = len(stopped.get(tag, []))
                with open(os.path.join(acct, tag + ".json"), "w") as f:
                    json.dump(d, f)
            if what == "end":
                for p in stopped.pop(tag, []):
                    hmp(p, "cont")
            done.add(n)
            put(shared, "acct.%s-done.%s" % (what, tag))
        quit_ = sum(1 for n in names if n.startswith("val.acct.quit."))
        alive = [p for w, p in procs.items()
                 if w != "switch" and os.path.exists("/proc/%d" % p)]
        # A guest that died ends no run: the stopped ones must run again
        # to see it (rocx_check_peers) and give up as they would have.
        if quit_ >= nguests or len(alive) < nguests:
            for paths in stopped.values():
                for p in paths:
                    hmp(p, "cont")
            stopped.clear()
        if quit_ >= nguests or not alive:
            return 0
        time.sleep(POLL_S)


# ------------------------------------------------------------------ report

def read_plan(path):
    rows = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, kinds, reps, tool, size, run = line.split(None, 5)
            rows.append({"name": name, "kinds": kinds.split(","),
                         "reps": int(reps), "tool": tool,
                         "bytes": int(size), "run": run.split()})
    return rows


def opt(run, flag):
    return run[run.index(flag) + 1] if flag in run else None


def size_label(n):
    return "%d KiB" % (n // 1024) if n >= 1024 and n % 1024 == 0 \
        else "%d B" % n


def label_of(e):
    extra = []
    if "-R" in e["run"]:
        extra.append("-R")
    if opt(e["run"], "-q"):
        extra.append("-q %s" % opt(e["run"], "-q"))
    if opt(e["run"], "-m"):
        extra.append("mtu %s" % opt(e["run"], "-m"))
    if e["kinds"] == ["sink"]:
        extra.append("sink")
    return " ".join([e["tool"]] + extra + [size_label(e["bytes"])])


def results(out, nguests):
    """{(name, kind): [result dict or reason str, ...]} from every
    guest's results file."""
    res = {}
    for g in range(nguests):
        text = read(os.path.join(out, "guest%d" % g, "results")) or ""
        for line in text.splitlines():
            w = line.split()
            if len(w) < 4:
                continue
            lst = res.setdefault((w[0], w[1]), [])
            if w[3] == "ok":
                d = dict(x.split("=", 1) for x in w[4:] if "=" in x)
                d["rep"] = w[2]
                lst.append(d)
            else:
                lst.append(" ".join(w[4:]) or "failed")
    return res


def guest_trouble(out):
    """Why the run's guests did not finish, in one line, or None."""
    log = read(os.path.join(out, "run.log")) or ""
    for line in log.splitlines():
        if line.startswith("run-guests:") and "wall" not in line:
            return line
    g = 0
    while os.path.isdir(os.path.join(out, "guest%d" % g)):
        gdir = os.path.join(out, "guest%d" % g)
        g += 1
        rc = (read(os.path.join(gdir, "rc")) or "none").strip()
        if rc == "0":
            continue
        glog = read(os.path.join(gdir, "log")) or ""
        if "giving up" in glog:
            continue
        if re.search(r"^guest%d: rc=timeout" % (g - 1), log, re.M):
            rc = "timeout"
        cons = read(os.path.join(gdir, "console.log")) or ""
        m = re.search(r".*(Kernel panic|BUG:|Oops|general protection).*",
                      cons)
        msg = m.group(0) if m else ""
        if not msg:
            fails = [x for x in glog.splitlines() if "FAIL:" in x]
            msg = fails[-1] if fails else ""
        return "guest%d rc=%s%s" % (g - 1, rc, ": " + " ".join(msg.split())
                                    if msg else "")
    return None


def fmt(v):
    return "%.2f" % v if v < 100 else "%.1f" % v if v < 1000 else "%.0f" % v


def summary(vals):
    """'median [min-max]' of VALS, or the one value."""
    if len(vals) == 1:
        return fmt(vals[0])
    return "%s [%s-%s]" % (fmt(statistics.median(vals)), fmt(min(vals)),
                           fmt(max(vals)))


# (label suffix, unit, key, scale, for latency)
BW_FIGS = [("", "MiB/s", "bw_avg", 1)]
MSG_FIGS = [("", "Kmsg/s", "msg_rate", 1000)]
LAT_FIGS = [(" p50", "usec", "t_typical", 1), (" p99", "usec", "t_p99", 1),
            (" p99.9", "usec", "t_p999", 1), (" max", "usec", "t_max", 1)]


def figures(e):
    if e["tool"].endswith("_lat"):
        return LAT_FIGS
    return BW_FIGS + (MSG_FIGS if e["bytes"] < 4096 else [])


def moved(e, r):
    """(messages, bytes) a run moved: a bandwidth run's rate over its -D
    seconds (perftest moves data for all of them; it measures the middle),
    a latency run's round trips."""
    if e["tool"].endswith("_lat"):
        n = float(r["iters"])
        return n, 2 * n * e["bytes"]
    secs = float(opt(e["run"], "-D") or 0)
    return (float(r["msg_rate"]) * 1e6 * secs,
            float(r["bw_avg"]) * 1048576 * secs)


def players(kinds):
    """{kind: (server guest, client guest)} as scripts/guest/bench.sh pairs
    them: the pairs in order, the sink guest last, its own server."""
    pairs = [k for k in kinds if k != "sink"]
    who = {k: ("guest%d" % (2 * i), "guest%d" % (2 * i + 1))
           for i, k in enumerate(pairs)}
    if "sink" in kinds:
        who["sink"] = ("guest%d" % (2 * len(pairs)),) * 2
    return who


def acct_lines(out, e, kind, r, who):
    """Lines of the host's cost of run R of entry E: totals per message and
    per GB over the run's two guests (WHO) and the switch, what the idle
    guests cost meanwhile, then per thread role."""
    a = read(os.path.join(out, "acct", "%s.%s.%s.json"
                          % (e["name"], kind, r["rep"])))
    if not a:
        return []
    a = json.loads(a)
    msgs, nbytes = moved(e, r)
    if msgs <= 0:
        return []
    th = a["threads"]
    mine = [v for k, v in th.items() if k.split()[0] in who + ("switch",)]
    idle = sum(v[0] for k, v in th.items()
               if k.split()[0] not in who + ("switch",)) / 1e9
    cpu = sum(v[0] for v in mine) / 1e9
    wait = sum(v[1] for v in mine) / 1e9
    vol = sum(v[2] for v in mine)
    steal = 100.0 * a["steal_ticks"] / max(1, a["total_ticks"])
    head = "%-18s %-4s rep %s: %.1f s, host CPU %.2f s (%.0f us/msg, " \
        "%.2f s/GB), run-queue wait %.0f us/msg, wakeups %.1f/msg, " \
        "steal %.1f%%; idle guests %.2f s" \
        % (e["name"], kind, r["rep"], a["wall_s"], cpu, cpu / msgs * 1e6,
           cpu / (nbytes / 1e9), wait / msgs * 1e6, vol / msgs, steal, idle)
    if "stalls" in a:
        n, lost, longest = a["stalls"]
        head += "; host stalls %d (%.0f ms, longest %.0f ms)" \
            % (n, lost * 1e3, longest * 1e3)
    lines = [head]
    for key in sorted(th, key=lambda k: -th[k][0]):
        c, w, v, i, n = th[key]
        if c < 1e6 and v == 0:
            continue
        lines.append("    %-15s x%-2d cpu %7.1f ms %7.1f us/msg %6.3f s/GB"
                     "  wait %7.1f ms %6.1f us/msg  wakeups %7d %6.2f/msg"
                     "  preempted %6d"
                     % (key, n, c / 1e6, c / 1e3 / msgs,
                        c / 1e9 / (nbytes / 1e9), w / 1e6, w / 1e3 / msgs,
                        v, v / msgs, i))
    return lines


def report(out, plan, kinds):
    env = read(os.path.join(out, "run.env")) or ""
    meta = dict(re.findall(r"^(\w+)=(.*)$", env, re.M))
    nguests = 0
    while os.path.isdir(os.path.join(out, "guest%d" % nguests)):
        nguests += 1
    entries = read_plan(plan)
    res = results(out, nguests)
    trouble = guest_trouble(out)
    notes = []

    def note(text):
        if text not in notes:
            notes.append(text)
        return "n/a [%d]" % (notes.index(text) + 1)

    cols = ["rocx", "rxe"]
    rows = []
    for e in entries:
        for suffix, unit, key, scale in figures(e):
            cell = {}
            med = {}
            for col in cols:
                kind = "sink" if e["kinds"] == ["sink"] and col == "rocx" \
                    else col
                if kind not in e["kinds"]:
                    cell[col] = "-"
                    continue
                if kind not in kinds:
                    cell[col] = note("%s: not run (--kinds)" % kind)
                    continue
                got = res.get((e["name"], kind), [])
                vals = [float(r[key]) * scale for r in got
                        if isinstance(r, dict) and key in r]
                if vals:
                    cell[col] = summary(vals)
                    med[col] = statistics.median(vals)
                    want = opt(e["run"], "-n")
                    short = sorted({r["iters"] for r in got
                                    if isinstance(r, dict) and want and
                                    r.get("iters", want) != want})
                    if short:
                        cell[col] += " " + note(
                            "%s: %s of the plan's %s round trips, what fit "
                            "in the time at its pilot's pace"
                            % (kind, ",".join(short), want))[4:]
                    bad = [r for r in got if not isinstance(r, dict)]
                    if bad:
                        cell[col] += " " + note("%s: %d of %d runs failed: %s"
                                                % (kind, len(bad), len(got),
                                                   bad[0]))[4:]
                elif got:
                    reason = next((r for r in got if isinstance(r, str)),
                                  "perftest printed no " + key)
                    cell[col] = note("%s: %s" % (kind, reason))
                else:
                    cell[col] = note("%s: %s" % (kind, trouble or
                                                 "no result (not run)"))
            ratio = "n/a"
            if "rocx" in med and "rxe" in med and med["rxe"] > 0:
                ratio = "%.2f" % (med["rocx"] / med["rxe"])
            rows.append("%-30s %-7s %24s %24s %8s"
                        % (label_of(e) + suffix, unit, cell["rocx"],
                           cell["rxe"], ratio))
    print("rocx bench: perftest 4.5 between TCG guests per NIC kind, RC, "
          "RoCE v2, MTU 1024 unless the row says")
    print("(bandwidth: higher is better; latency: lower is better; MiB/s as "
          "perftest's MB/sec; median [min-max]")
    print(" over repetitions; p50 is perftest's t_typical; -R: rdma_cm; "
          "sink: rocx with x-sink=on, the rate a vCPU posts)")
    print("%-30s %-7s %24s %24s %8s" % ("test", "unit", "rocx", "rxe",
                                         "rocx/rxe"))
    for r in rows:
        print(r)
    for i, n in enumerate(notes):
        print("[%d] %s" % (i + 1, n))
    print("host: %d CPUs, load average before %s, after %s (other work on "
          "the host slows TCG guests); run-guests wall %s s"
          % (os.cpu_count(), meta.get("load_before", "?"),
             meta.get("load_after", "?"), meta.get("wall", "?")))
    acct = os.path.join(out, "acct")
    probes = [os.path.join(acct, n) for n in sorted(os.listdir(acct))
              if n.startswith("stalls.cpu")] if os.path.isdir(acct) else []
    if probes:
        n, lost, longest = stalls_within(read_stalls(probes), 0,
                                         float("inf"))
        print("host stalls: a CPU of this machine did not run for %d ms or "
              "more %d times (%.0f ms in all, longest %.0f ms; a "
              "hypervisor's, never counted as steal): latency maxima near "
              "them are the host's"
              % (STALL_MIN_S * 1e3, n, lost * 1e3, longest * 1e3))
    where = os.path.relpath(out)
    where = out if where.startswith("..") else where
    print("raw results: %s/guest*/results, perftest output in %s/guest*/, "
          "host accounting in %s/acct.txt" % (where, where, where))

    lines = []
    for e in entries:
        for kind in e["kinds"]:
            for r in res.get((e["name"], kind), []):
                if isinstance(r, dict):
                    lines += acct_lines(out, e, kind, r,
                                        players(kinds).get(kind, ()))
    with open(os.path.join(out, "acct.txt"), "w") as f:
        f.write("Host cost of each run (scripts/run/bench.py): CPU time on "
                "the host, run-queue wait and\nwakeups (voluntary context "
                "switches) of the guests' QEMU threads and rocx-switch,\n"
                "per message (a latency run's round trip) and per GB "
                "moved, over the run's\nserver and client guests and the "
                "switch (the idle guests' CPU beside it); then\nper "
                "thread role of every guest (guest0 serves the rocx pair "
                "and the sink guest,\nguest2 the rxe pair).\n")
        f.write("\n".join(lines) + "\n")
    print()
    print("host cost per run (build/bench/acct.txt has each thread role):")
    for ln in lines:
        if not ln.startswith(" "):
            print(ln)
    return 0


def virtual_clock(out):
    """The switch's account of a timed run: its virtual and wall time."""
    log = read(os.path.join(out, "switch.log")) or ""
    m = re.search(r"^rocx-switch: timed: (.*)$", log, re.M)
    return m.group(1) if m else None


def timed_report(out, plan):
    """The table of a timed run: rocx only, every figure of every
    repetition as perftest printed it, and whether the repetitions agree.
    Returns 1 when no run gave a figure (the harness or the guests
    broke), else 0: a difference is reported, not a failure of the
    bench."""
    env = read(os.path.join(out, "run.env")) or ""
    meta = dict(re.findall(r"^(\w+)=(.*)$", env, re.M))
    entries = read_plan(plan)
    res = results(out, 2)
    trouble = guest_trouble(out)
    reps = max([e["reps"] for e in entries] or [1])
    rows, notes, differ = [], [], []
    nfig = nsame = 0
    for e in entries:
        got = res.get((e["name"], "rocx"), [])
        for suffix, unit, key, scale in figures(e):
            label = label_of(e) + suffix
            cells = []
            for r in got:
                if isinstance(r, dict) and key in r:
                    cells.append(fmt(float(r[key]) * scale)
                                 if scale != 1 else r[key])
                else:
                    reason = r if isinstance(r, str) else \
                        "perftest printed no " + key
                    if reason not in notes:
                        notes.append(reason)
                    cells.append("n/a [%d]" % (notes.index(reason) + 1))
            if not got:
                reason = trouble or "no result (not run)"
                if reason not in notes:
                    notes.append(reason)
                cells = ["n/a [%d]" % (notes.index(reason) + 1)]
            ok = [c for c in cells if not c.startswith("n/a")]
            same = "-"
            if len(ok) > 1 and len(ok) == len(cells):
                nfig += 1
                vals = [float(c) for c in ok]
                if len(set(ok)) == 1:
                    same = "same"
                    nsame += 1
                else:
                    d = (max(vals) - min(vals)) / max(abs(v) for v in vals)
                    same = "%.1g%%" % (100 * d)
                    differ.append((d, label))
            cells += [""] * (reps - len(cells))
            rows.append("%-30s %-7s " % (label, unit) +
                        " ".join("%12s" % c for c in cells) +
                        " %8s" % same)
    print("rocx timed bench: perftest 4.5 between two TCG guests in virtual "
          "time, RC, RoCE v2, MTU 1024")
    print("unless the row says; NICs and switch ports at %s Mb/s, links of "
          "%s ns, -icount shift=0"
          % (meta.get("speed", "?"), meta.get("link_ns", "?")))
    print("(1 ns of virtual time per guest instruction); every figure in "
          "virtual time as perftest")
    print("printed it (MiB/s as perftest's MB/sec, p50 its t_typical), "
          "one column per run, and")
    print("how far apart the runs are (the largest less the smallest, "
          "over the largest)")
    print("%-30s %-7s " % ("test", "unit") +
          " ".join("%12s" % ("run %d" % (i + 1)) for i in range(reps)) +
          " %8s" % "apart")
    for r in rows:
        print(r)
    for i, n in enumerate(notes):
        print("[%d] %s" % (i + 1, n))
    clock = virtual_clock(out)
    print("switch: %s" % (clock or "no account of its clock"))
    print("run-guests wall %s s; raw results: %s/guest1/results, perftest "
          "output in %s/guest*/" % (meta.get("wall", "?"), out, out))
    if nfig:
        worst = max(differ) if differ else None
        print("timed bench: %d of %d figures the same in every run%s"
              % (nsame, nfig, "" if not worst else
                 "; the others at most %.2g%% apart (%s)"
                 % (100 * worst[0], worst[1])))
    has = any(isinstance(r, dict) for v in res.values() for r in v)
    return 0 if has else 1


def main(argv):
    if argv[:1] == ["sample"] and len(argv) <= 2:
        return sample(argv[1].split(":") if len(argv) == 2 else ())
    if len(argv) == 3 and argv[0] == "stallprobe":
        return stallprobe(int(argv[1]), argv[2])
    if len(argv) == 3 and argv[0] == "timed-report":
        return timed_report(argv[1], argv[2])
    if len(argv) == 4 and argv[0] == "report":
        return report(argv[1], argv[2], argv[3].split())
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
