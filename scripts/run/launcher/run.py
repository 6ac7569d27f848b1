# SPDX-License-Identifier: GPL-2.0
"""A whole run: switches, guests and the host command started, supervised
until they end or the deadline, and each guest's verdict collected."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import launcher
from launcher import (REPO, Die, capture, now_ms, read_text, say, secs,
                      status_of)
from launcher import fabric, guest, spec

POLL_S = 0.2
# How long QEMUs and the host command have between SIGTERM and SIGKILL.
TERM_GRACE_S = 2
# Default output directories (build/guest/runs) kept, the new one included.
RUNS_KEPT = 20


def start_host_cmd(cmd, out, env):
    with open(os.path.join(out, "host.log"), "wb") as f:
        return subprocess.Popen(["bash", "-c", cmd], env=env,
                                stdin=subprocess.DEVNULL, stdout=f,
                                stderr=subprocess.STDOUT,
                                preexec_fn=launcher.background)


def signal_all(procs, sig):
    for p in procs:
        if p is not None and p.poll() is None:
            try:
                p.send_signal(sig)
            except OSError:
                pass


# ------------------------------------------------------------ supervision

def supervise(guests, host, deadline, t0, out, rt, sched):
    """Wait for every QEMU (and the host command HOST) or DEADLINE (a
    time.time() second); sets each guest's state.  RT: the QEMU PIDs
    whose main thread is still to get the priority of --qemu-sched
    SCHED (fabric.qemu_priority())."""
    while True:
        for pid in list(rt):
            if fabric.qemu_priority(pid, sched):
                rt.discard(pid)
        alive = 0
        for g in guests:
            if g.state:
                continue
            rc = g.proc.poll()
            if rc is None:
                alive += 1
                continue
            g.state = "exited" if rc == 0 \
                else "qemu-exit-%d" % status_of(rc)
            # Peers waiting in a barrier give up at once
            # (scripts/guest/guest_lib.sh).
            if read_text("%s/guest%d/rc" % (out, g.index)) != "0":
                open("%s/shared/failed.%d" % (out, g.index), "w").close()
            say("guest%d: qemu exited after %ss"
                % (g.index, secs(now_ms() - t0)))
        if host is not None and host.poll() is None:
            alive += 1
        if alive == 0:
            return
        if int(time.time()) >= deadline:
            for g in guests:
                if not g.state:
                    g.state = "timeout"
            procs = [g.proc for g in guests] + [host]
            signal_all(procs, signal.SIGTERM)
            time.sleep(TERM_GRACE_S)
            signal_all(procs, signal.SIGKILL)
            return
        time.sleep(POLL_S)


# ------------------------------------------------------------- collection

def host_status(host, deadline):
    """The host command's status: its exit code, or timeout if a signal
    ended it once the deadline had passed."""
    rc = status_of(host.wait())
    if rc >= 128 and int(time.time()) >= deadline:
        return "timeout"
    return str(rc)


def boot_time(gdir, launched_ms):
    """Boot to shell: QEMU's start to guest init's first write, on the
    host's clock; the guest kernel's own uptime at that point beside it."""
    path = os.path.join(gdir, "boot_seconds")
    try:
        st = os.stat(path)
    except OSError:
        return "?"
    if st.st_size == 0:
        return "?"
    ms = st.st_mtime_ns // 1000000
    return "%ss (kernel uptime %ss)" % (secs(ms - launched_ms),
                                        read_text(path))


def collect(guests, out, host_rc):
    """Print each guest's verdict (and the host command's); 1 if any
    failed, else 0."""
    fail = 0
    for g in guests:
        gdir = "%s/guest%d" % (out, g.index)
        try:
            os.unlink(os.path.join(gdir, "monitor.sock"))
        except OSError:
            pass
        rcfile = os.path.join(gdir, "rc")
        if g.state == "timeout":
            rc = "timeout"
        elif os.path.isfile(rcfile) and os.path.getsize(rcfile) > 0:
            rc = read_text(rcfile)
        else:
            rc = "none"
        cmd = g.cmd[len(REPO) + 1:] if g.cmd.startswith(REPO + "/") \
            else g.cmd
        say("guest%d: %s: %s, boot to shell %s"
            % (g.index, cmd, g.state, boot_time(gdir, g.launched_ms)))
        say("guest%d: rc=%s" % (g.index, rc))
        if rc != "0":
            fail = 1
    if host_rc is not None:
        say("host: rc=" + host_rc)
        if host_rc != "0":
            fail = 1
    return fail


def default_out():
    runs = os.path.join(REPO, "build/guest/runs")
    out = os.path.join(runs, time.strftime("%Y%m%d-%H%M%S") +
                       "-%d" % os.getpid())
    # Default output dirs pile up: keep the newest RUNS_KEPT.
    try:
        old = sorted(e.path for e in os.scandir(runs)
                     if e.is_dir(follow_symlinks=False))
    except OSError:
        old = []
    for d in old[:max(0, len(old) - (RUNS_KEPT - 1))]:
        shutil.rmtree(d, ignore_errors=True)
    return out


class Run:
    """What a run started, for cleanup whatever way it ends."""

    def __init__(self):
        self.run = None
        self.out = None
        self.switches = []
        self.procs = []

    def cleanup(self):
        procs = self.procs + self.switches
        signal_all(procs, signal.SIGKILL)
        for p in procs:
            if p is not None:
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
        if self.run:
            shutil.rmtree(self.run, ignore_errors=True)
        if self.out:
            for e in os.scandir(self.out) if os.path.isdir(self.out) else ():
                if e.name.startswith("guest"):
                    try:
                        os.unlink(os.path.join(e.path, "monitor.sock"))
                    except OSError:
                        pass


def _on_signal(signum, frame):
    raise SystemExit(130)


def main(argv):
    fabric.enter_fabric_netns(argv)
    o = spec.parse_args(argv)

    qemu = o.qemu
    if not qemu:
        qemu = "/usr/bin/qemu-system-x86_64"
        built = os.path.join(REPO, "build/qemu-system-x86_64")
        if os.access(built, os.X_OK):
            qemu = built
    if not os.access(qemu, os.X_OK):
        raise Die("no QEMU at " + qemu)
    initrd = capture(["bash",
                      os.path.join(REPO, "scripts/build/mkinitramfs.sh")])
    if initrd is None:
        raise Die("initramfs build failed")
    switch = os.path.join(REPO, "build/tools/rocx-switch")
    make = ["make", "-s", "-C", os.path.join(REPO, "tools/rocx-switch"),
            "O=" + os.path.join(REPO, "build/tools")]
    if subprocess.run(make, stdout=sys.stderr, check=False).returncode:
        raise Die("cannot build rocx-switch")

    out = o.out or default_out()
    os.makedirs(out, exist_ok=True)
    out = os.path.abspath(out)
    # What the guests' sockets may hold, as the run saw it (checked by the
    # pair group).
    with open(os.path.join(out, "fabric.txt"), "w") as f:
        f.write("max_dgram_qlen=%s\n" % read_text(fabric.QLEN_PATH))
    shutil.rmtree(os.path.join(out, "shared"), ignore_errors=True)
    os.makedirs(os.path.join(out, "shared"))

    r = Run()
    r.out = out
    # Unix socket paths must stay under 108 bytes: keep them in a short
    # dir.
    r.run = tempfile.mkdtemp(prefix="rocx-run.", dir="/tmp")
    # As the shell's trap: a signal ignored when the launcher started (a
    # shell script ran it in the background) stays ignored.
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, _on_signal)
    try:
        return _run(o, r, qemu, initrd, switch)
    finally:
        r.cleanup()


# A timed run's wall time against an untimed one's: instruction counting
# costs TCG about 1.6-2x, and every latency of virtual time a round of
# promises through the switch.
TIMED_SCALE = 4

# What a timed guest adds to its QEMU command line: instruction counting
# without sleeping (virtual time runs as fast as the host can), and no
# host time or entropy coming in through the RTC.
TIMED_QEMU = ["-rtc", "clock=vm,base=2026-01-01T00:00:00"]


def timed_qemu_args(o, g):
    return ["-icount", "shift=%d,sleep=off" % o.icount_shift] + TIMED_QEMU \
        + ["-seed", str(int(o.seed or "1") + g.index)]


def plan(o, out, run, initrd):
    """The guests of Options O, parsed, wired under RUN and with their
    kernels resolved; returns them, the segment sizes, the rocx-switch's
    port count and the time scale's kernel command-line words (and sets
    O.timeout for it).  Writes OUT/segments."""
    # Segments first: how a NIC on one is wired depends on how many NICs
    # share it.
    sizes = fabric.segment_sizes([s for s, _ in o.guests])
    open(os.path.join(out, "segments"), "w").close()
    guests = [spec.parse_guest(i, s, extra, o.kernel)
              for i, (s, extra) in enumerate(o.guests)]
    port, seg_lines = fabric.wire(guests, run, sizes)
    if o.timed:
        fabric.check_timed(guests)
    with open(os.path.join(out, "segments"), "w") as f:
        f.writelines(line + "\n" for line in seg_lines)
    kernels = guest.Kernels(initrd)
    for g in guests:
        if not g.cmd.startswith("/"):
            g.cmd = os.path.join(REPO, g.cmd)
        if not os.access(g.cmd, os.X_OK):
            raise Die("guest %d: %s is not executable" % (g.index, g.cmd))
        kernels.resolve(g)

    # One slow guest slows its peers' barriers too: scale the whole run.
    # The kernel logs these words, and guest checks take a rocx line that
    # says "timeout" or "error" for a driver's complaint: no such word in
    # them.
    scale_words = ""
    if o.timed:
        o.timeout *= TIMED_SCALE
    if kernels.any_debug:
        scale = guest.time_scale()
        o.timeout *= scale
        scale_words = " ROCX_TIME_SCALE=%d ROCX_WAIT=%d" \
            % (scale, guest.GUEST_WAIT_S * scale)
    return guests, sizes, port, scale_words


def switch_mode(o):
    """The rocx-switch's options for the run's mode: its clock in a timed
    run, stepping aside between two NICs with --link direct."""
    if o.timed:
        return ["--timed", "--latency", str(o.link_latency)]
    return ["--direct"] if o.link == "direct" else []


def start_fabric(o, r, switch, sizes, port):
    """The rocx-switch (if any NIC is on it) and a switch for every
    segment that is not a link; exports ROCX_SWITCH_CTL_<SEG>."""
    seed = ["--seed", o.seed] if o.seed else []
    if port > 0:
        # A session of its own, for fabric_priority()'s fallback.
        pcap = ["--pcap", o.pcap] if o.pcap else []
        r.switches.append(fabric.start_switch(
            switch, r.run, port, os.path.join(r.out, "switch.log"),
            seed + switch_mode(o) + o.switch_opts + pcap, session=True,
            name="rocx-switch"))
    for seg, size in sizes.items():
        if size == 2:
            continue
        sdir = os.path.join(r.run, "s-" + seg)
        os.makedirs(sdir, exist_ok=True)
        r.switches.append(fabric.start_switch(
            switch, sdir, size, os.path.join(r.out, "switch-%s.log" % seg),
            seed))
        os.environ["ROCX_SWITCH_CTL_" + seg] = os.path.join(sdir, "ctl.sock")


def launch_guests(o, r, qemu, guests, scale_words):
    """One QEMU per guest; exports ROCX_MONITOR_<N> and ROCX_QEMU_PID_<N>
    for each."""
    for g in guests:
        gdir = "%s/guest%d" % (r.out, g.index)
        timed = timed_qemu_args(o, g) if o.timed else []
        tail = ["-m", g.mem] + \
            fabric.nic_args(g, o.timed, o.link in ("channel", "direct")) + timed + \
            g.extra + [
            "-append",
            guest.kernel_cmdline(g, len(guests), scale_words, o.append)]
        argv = guest.qemu_argv(qemu, o.machine, g, r.run, r.out, gdir, tail)
        g.proc = guest.launch_guest(argv, gdir, g.kind, r.run, g.index)
        r.procs.append(g.proc)
        g.launched_ms = now_ms()
        os.environ["ROCX_MONITOR_%d" % g.index] = gdir + "/monitor.sock"
        os.environ["ROCX_QEMU_PID_%d" % g.index] = str(g.proc.pid)


def _run(o, r, qemu, initrd, switch):
    guests, sizes, port, scale_words = plan(o, r.out, r.run, initrd)
    t0 = now_ms()
    start_fabric(o, r, switch, sizes, port)
    launch_guests(o, r, qemu, guests, scale_words)
    host = None
    if o.host_cmd:
        env = dict(os.environ, ROCX_RUN_OUT=r.out,
                   ROCX_NGUESTS=str(len(guests)), ROCX_REPO=REPO,
                   ROCX_SWITCH=switch,
                   ROCX_SWITCH_CTL=os.path.join(r.run, "ctl.sock"))
        host = start_host_cmd(o.host_cmd, r.out, env)
        r.procs.append(host)

    deadline = int(time.time()) + o.timeout
    rt = {g.proc.pid for g in guests} if o.qemu_sched != "other" else set()
    supervise(guests, host, deadline, t0, r.out, rt, o.qemu_sched)
    wall = secs(now_ms() - t0)
    host_rc = host_status(host, deadline) if host is not None else None
    for p in r.switches:
        signal_all([p], signal.SIGTERM)
        p.wait()

    fail = collect(guests, r.out, host_rc)
    say("run-guests: wall %ss, output in %s" % (wall, r.out))
    return fail
