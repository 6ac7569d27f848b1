# SPDX-License-Identifier: GPL-2.0
"""Segments and switches: the sockets behind every NIC, the rocx-switches
joining them and the network namespace they all run in."""
import os
import re
import subprocess
import sys
import time

import launcher
from launcher import Die, read_text
from launcher.spec import split_spec

# The fabric (switch, QEMUs, host commands) runs in a network namespace of
# its own, where a guest's datagram socket may hold more than Linux's
# default of 10 datagrams (net.unix.max_dgram_qlen): with 10, a receiver
# whose QEMU the host did not run for a millisecond refused the switch's
# next frame, and the bottleneck port of an incast stalled with it while
# its queue grew.  What a port leaves unread at a guest is the switch's to
# bound (rocx-switch's qos backlog=), as a wire bounds what it holds.  The
# namespace has no interface but lo: guests reach nothing else anyway.
# Where unshare is refused (no CAP_SYS_ADMIN) the run stays in the host's
# namespace, with its limit.
FABRIC_QLEN = 1024
QLEN_PATH = "/proc/sys/net/unix/max_dgram_qlen"

# Every rocx-switch is given this long (50 x 0.1 s) to bind its ports.
SWITCH_START_TRIES = 50

SEG_NAME = re.compile(r"[a-z0-9]+")


def nic_segment(word):
    """The segment of a nic=...@SEG word, None if it names none."""
    if not word.startswith("nic=") or "@" not in word:
        return None
    return word.rsplit("@", 1)[1]


def segment_sizes(specs):
    """{segment: number of NICs on it} over every guest's SPEC, in the
    order segments first appear; dies on a bad segment name."""
    sizes = {}
    for i, spec in enumerate(specs):
        for w in split_spec(spec):
            seg = nic_segment(w)
            if seg is None:
                continue
            if not SEG_NAME.fullmatch(seg):
                raise Die("guest %d: bad segment name '%s' in %s"
                          % (i, seg, w))
            sizes[seg] = sizes.get(seg, 0) + 1
    return sizes


def wire(guests, run, sizes):
    """Give every NIC its sockets under RUN: NICs without a segment take
    the rocx-switch's ports in order, a segment of two NICs is a link
    whose ends send to each other, any other segment a switch of its own
    in RUN/s-SEG.  Returns the rocx-switch's port count and the lines of
    OUT/segments."""
    port = 0
    seg_next = dict.fromkeys(sizes, 0)
    lines = []
    for g in guests:
        for nic in g.nics:
            where = "guest%d nic%d" % (g.index, nic.index)
            if not nic.seg:
                nic.lsock = "%s/g%d.sock" % (run, port)
                nic.rsock = "%s/sw%d.sock" % (run, port)
                nic.csock = "%s/ch%d.sock" % (run, port)
                port += 1
                continue
            k = seg_next[nic.seg]
            seg_next[nic.seg] = k + 1
            if sizes[nic.seg] == 2:
                nic.lsock = "%s/w-%s.%d.sock" % (run, nic.seg, k)
                nic.rsock = "%s/w-%s.%d.sock" % (run, nic.seg, 1 - k)
                lines.append("%s link %s" % (nic.seg, where))
            else:
                nic.lsock = "%s/s-%s/g%d.sock" % (run, nic.seg, k)
                nic.rsock = "%s/s-%s/sw%d.sock" % (run, nic.seg, k)
                lines.append("%s switch-port%d %s" % (nic.seg, k, where))
    return port, lines


def check_timed(guests):
    """A timed run carries time only over rocx NICs' fabric channels to
    the rocx-switch: refuse anything else."""
    for g in guests:
        for nic in g.nics:
            where = "guest%d nic%d" % (g.index, nic.index)
            if nic.model != "rocx":
                raise Die("--timed: %s is %s; only rocx NICs carry virtual "
                          "time" % (where, nic.model))
            if nic.seg:
                raise Die("--timed: %s is on segment %s; a timed run has "
                          "the rocx-switch only" % (where, nic.seg))


def nic_args(g, timed=False, channel=False):
    """Guest G's -netdev and -device arguments, its NICs in order; in a
    timed run, or with --link channel for a rocx NIC on the rocx-switch,
    the NIC's own fabric channel instead of a netdev."""
    args = []
    for nic in g.nics:
        mac = "52:54:00:00:%02x:%02x" % (nic.index, g.index)
        dev = "virtio-net-pci,romfile=" if nic.model == "virtio" \
            else nic.model
        props = nic.props
        if timed:
            args += ["-device", "rocx,id=nic%d,fabric=%s,timed=on,mac=%s%s"
                     % (nic.index, nic.csock, mac, props)]
            continue
        link = "netdev=n%d" % nic.index
        if channel and nic.model == "rocx" and not nic.seg:
            link = "fabric=%s" % nic.csock
        else:
            args += ["-netdev",
                     "dgram,id=n%d,local.type=unix,local.path=%s,"
                     "remote.type=unix,remote.path=%s"
                     % (nic.index, nic.lsock, nic.rsock)]
        if g.rootport:
            args += ["-device", "pcie-root-port,id=rp%d,chassis=%d,slot=%d"
                     % (nic.index, nic.index + 1, nic.index + 1)]
            props = ",bus=rp%d%s" % (nic.index, props)
        args += ["-device", "%s,id=nic%d,%s,mac=%s%s"
                 % (dev, nic.index, link, mac, props)]
    return args


# Real-time priority of every switch (fabric_priority()).
SWITCH_RT_PRIO = 10
_rt_refused = False


def fabric_priority(pid):
    """Run switch PID ahead of every guest thread.  The switch is the
    fabric's hardware, which no guest can slow: a switch ASIC is never
    descheduled.  At normal priority, on a host whose cores the guests'
    vCPUs keep busy, the kernel left a runnable switch waiting up to half
    a second, so every RC flow through it saw no ACK for that long and a
    QP at the default ACK timeout (14: 67 ms) and retry count (7) ended
    in a retry error (the busy group).  SCHED_FIFO runs it as soon as a
    frame wakes it; it sleeps in epoll_wait in between, and the kernel's
    real-time throttling would leave the guests 5% of each core should it
    ever spin.  Without CAP_SYS_NICE it gets nice -10 and, as the only
    process of its session, an autogroup of its own at -10: a share of
    the host beside the guests' session, not of it."""
    global _rt_refused
    try:
        os.sched_setscheduler(pid, os.SCHED_FIFO,
                              os.sched_param(SWITCH_RT_PRIO))
        return
    except OSError:
        pass
    try:
        os.setpriority(os.PRIO_PROCESS, pid, -10)
        with open("/proc/%d/autogroup" % pid, "w") as f:
            f.write("-10")
    except OSError:
        pass
    if not _rt_refused:
        print("run-guests: SCHED_FIFO refused: the switch runs at nice "
              "-10, and a busy host can still stall it", file=sys.stderr,
              flush=True)
    _rt_refused = True


# Real-time priority of every QEMU's main thread (qemu_priority()): below
# the switch's, above everything in the normal class.
QEMU_RT_PRIO = 5
# The nice value of --qemu-sched nice: the normal class's highest weight.
QEMU_NICE = -20
_qemu_rt_refused = False


def qemu_priority(pid, mode="fifo"):
    """With --qemu-sched fifo: run QEMU PID's main thread ahead of every
    vCPU once its vCPU threads exist; with nice, give it the normal
    class's highest weight (nice -20) instead, so that woken it preempts
    a vCPU whose share it is owed but, unlike the real-time class, does
    not take the CPU for every wake.  True when done (or refused), False
    to be asked again.  An untimed NIC's engine and its end of the fabric
    link run in that thread, and in the normal class a frame that woke
    it can wait out a spinning vCPU's time slice: make bench's write_lat
    p99 and maximum.  It is not the default because it halves the
    bandwidth and the 64-byte rate: woken at once for every doorbell, the
    thread takes the CPU from the vCPU that posts, which in the normal
    class posts on and leaves it a batch (Documentation/performance.rst,
    "Stage 3b").  The vCPU threads are created by the main thread before
    its loop starts, in the class it then had, so they stay in the
    normal one; the threads it starts later (the thread pool's workers,
    which do the 9p file systems' I/O) inherit the real-time class and
    sleep in system calls as it does.  Should the main thread ever spin,
    the kernel's real-time throttling leaves the vCPUs 5% of each
    core."""
    global _qemu_rt_refused
    try:
        comms = [read_text("/proc/%d/task/%s/comm" % (pid, t)) or ""
                 for t in os.listdir("/proc/%d/task" % pid)]
    except OSError:
        return True
    if not any(c.startswith("CPU ") for c in comms):
        return False
    try:
        # Both act on the thread whose id is PID: the main thread.
        if mode == "nice":
            os.setpriority(os.PRIO_PROCESS, pid, QEMU_NICE)
        else:
            os.sched_setscheduler(pid, os.SCHED_FIFO,
                                  os.sched_param(QEMU_RT_PRIO))
    except OSError as e:
        if not _qemu_rt_refused:
            print("run-guests: %s refused for QEMU (%s): its main thread "
                  "waits behind the vCPUs"
                  % ("nice %d" % QEMU_NICE if mode == "nice"
                     else "SCHED_FIFO", e.strerror),
                  file=sys.stderr, flush=True)
        _qemu_rt_refused = True
    return True


def start_switch(switch, sdir, ports, log, args, session=False, name=None):
    """A rocx-switch on SDIR's sockets, its output in LOG, returned once
    its ports are bound.  SESSION gives it a session of its own; NAME is
    how an error calls it (default: the switch on SDIR)."""
    pidfile = os.path.join(sdir, "switch.pid")
    with open(log, "wb") as f:
        p = subprocess.Popen(
            [switch, "--dir", sdir, "--ports", str(ports), "--pidfile",
             pidfile, "--ctl", os.path.join(sdir, "ctl.sock")] + args,
            stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
            start_new_session=session, preexec_fn=launcher.background)
    for _ in range(SWITCH_START_TRIES):
        if os.path.exists(pidfile) and os.path.getsize(pidfile) > 0:
            fabric_priority(p.pid)
            return p
        if p.poll() is not None:
            raise Die("rocx-switch failed: " + (read_text(log) or ""))
        time.sleep(0.1)
    p.kill()
    p.wait()
    raise Die("%s did not start" % (name or "rocx-switch on " + sdir))


def enter_fabric_netns(argv):
    """Re-run in a network namespace of our own, or set up the one this
    is in.  exec keeps the PID: only the process unshare ran matches the
    mark, so neither a caller's environment nor a nested run changes the
    host's own setting."""
    if os.environ.get("ROCX_FABRIC_NETNS", "") == str(os.getpid()):
        for argv_ in (["ip", "link", "set", "lo", "up"],
                      ["sysctl", "-qw",
                       "net.unix.max_dgram_qlen=%d" % FABRIC_QLEN]):
            r = subprocess.run(argv_, check=False)
            if r.returncode != 0:
                raise Die("%s failed" % " ".join(argv_), r.returncode)
        return
    try:
        ok = subprocess.run(["unshare", "--net", "true"],
                            stderr=subprocess.DEVNULL,
                            check=False).returncode == 0
    except OSError:
        ok = False
    if ok:
        sys.stdout.flush()
        os.execvp("unshare", ["unshare", "--net", "env",
                              "ROCX_FABRIC_NETNS=%d" % os.getpid(),
                              sys.executable,
                              os.path.dirname(os.path.abspath(__file__))]
                  + argv)
    print("run-guests: no network namespace of its own (unshare --net "
          "refused): net.unix.max_dgram_qlen stays %s" % read_text(QLEN_PATH),
          file=sys.stderr, flush=True)
