# SPDX-License-Identifier: GPL-2.0
"""The guest launcher's parsing and wiring (scripts/run/launcher), on
made-up command lines and with no guest booted: what a --guest SPEC
becomes on QEMU's command line, which socket and switch each NIC gets,
and what is refused.  tests/check/selftest.sh runs it; prints one
"ok - NAME" or "not ok - NAME" line per check."""
import contextlib
import io
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../scripts/run"))
from launcher import Die, secs  # noqa: E402
from launcher import fabric, guest, run, spec  # noqa: E402

bad = 0


def check(name, got, want):
    global bad
    if got == want:
        print("ok - launcher: " + name)
    else:
        print("not ok - launcher: %s (got %r, want %r)" % (name, got, want))
        bad += 1


def refusal(fn, *args):
    """(status, message) of a call that must be refused."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            fn(*args)
    except Die as e:
        return e.code, err.getvalue().strip()
    return None, "not refused"


def guests_of(argv, run="/R"):
    """ARGV's guests, parsed and wired under RUN, as run.plan does."""
    o = spec.parse_args(argv, environ={})
    sizes = fabric.segment_sizes([s for s, _ in o.guests])
    guests = [spec.parse_guest(i, s, extra, o.kernel)
              for i, (s, extra) in enumerate(o.guests)]
    port, lines = fabric.wire(guests, run, sizes)
    return guests, sizes, port, lines


o = spec.parse_args(["--guest", "cmd=a", "--append", "x=1", "--append",
                     "y=2", "--switch", "--queue-limit  4096", "--impair",
                     "port=all loss=1%", "--extra", "-d guest_errors",
                     "--guest", "cmd=b", "--extra", "-s", "--extra", "-S"],
                    environ={"ROCX_GUEST_KERNEL": "6.1"})
check("options: defaults and the environment's kernel",
      (o.timeout, o.machine, o.kernel, o.qemu, o.out),
      (300, "q35", "6.1", "", ""))
check("options: --append, --switch and --impair accumulate",
      (o.append, o.switch_opts),
      (" x=1 y=2", ["--queue-limit", "4096", "--impair", "port=all loss=1%"]))
check("options: --extra goes to the guest declared before it",
      [spec.split_extra(e) for _, e in o.guests],
      [["-d", "guest_errors"], ["-s", "-S"]])
check("options: refusals",
      [refusal(spec.parse_args, a, {}) for a in
       (["--extra", "-s", "--guest", "cmd=a"],
        ["--guest", "cmd=a", "--timeout", "5s"],
        ["--guest", "cmd=a", "--bogus"],
        ["--guest", "cmd=a", "--timeout"])],
      [(2, "run-guests: --extra before any --guest"),
       (2, "run-guests: bad --timeout 5s"),
       (2, "run-guests: unknown argument --bogus (see --help)"),
       (1, "run-guests: --timeout needs a value")])

check("spec: empty words count, one trailing comma does not",
      [spec.split_spec(s) for s in ("a,b,", "a,,b", "a,b,,", "")],
      [["a", "b"], ["a", "", "b"], ["a", "b", ""], []])
g = spec.parse_guest(3, "nic=rocx:speed=400:foo=1@seg1,mem=512,env=A=1,"
                     "cmd=t.sh,env=B=x=y,kernel=debug,nic=virtio,rootport=1",
                     " -s", "debian")
check("spec: the words of a guest",
      (g.index, g.cmd, g.mem, g.env_words, g.kernel, g.rootport, g.extra),
      (3, "t.sh", "512", " A=1 B=x=y", "debug", True, ["-s"]))
check("spec: NICs with properties and segments",
      [(n.index, n.model, n.props, n.seg) for n in g.nics],
      [(0, "rocx", ",speed=400,foo=1", "seg1"), (1, "virtio", "", "")])
check("spec: refusals",
      [refusal(spec.parse_guest, 1, s, "", "debian")[1] for s in
       ("cmd=a,rootport=0", "cmd=a,,mem=1", "nic=rocx,mem=2")],
      ["run-guests: guest 1: unknown word 'rootport=0' in --guest",
       "run-guests: guest 1: unknown word '' in --guest",
       "run-guests: guest 1: no cmd="])
check("segments: bad names refused",
      [refusal(fabric.segment_sizes, ["cmd=a", "cmd=b,nic=rocx@" + s])[1]
       for s in ("A", "", "a-b")],
      ["run-guests: guest 1: bad segment name '%s' in nic=rocx@%s" % (s, s)
       for s in ("A", "", "a-b")])

# The routed group: two segments of two NICs each are links, and no NIC
# is on the rocx-switch.
gs, sizes, port, lines = guests_of(
    ["--guest", "nic=rocx:speed=1000@b,cmd=x", "--guest",
     "nic=rocx:speed=1000@a,cmd=x", "--guest",
     "nic=virtio@a,nic=virtio@b,mem=512,cmd=x"])
check("segments: two links, no switch port",
      (sizes, port, lines),
      ({"b": 2, "a": 2}, 0,
       ["b link guest0 nic0", "a link guest1 nic0", "a link guest2 nic0",
        "b link guest2 nic1"]))
check("segments: a link's ends send to each other",
      [(n.lsock, n.rsock) for n in gs[1].nics + gs[2].nics[:1]],
      [("/R/w-a.0.sock", "/R/w-a.1.sock"),
       ("/R/w-a.1.sock", "/R/w-a.0.sock")])
check("segments: the router's QEMU arguments",
      fabric.nic_args(gs[2]),
      ["-netdev", "dgram,id=n0,local.type=unix,local.path=/R/w-a.1.sock,"
       "remote.type=unix,remote.path=/R/w-a.0.sock",
       "-device", "virtio-net-pci,romfile=,id=nic0,netdev=n0,"
       "mac=52:54:00:00:00:02",
       "-netdev", "dgram,id=n1,local.type=unix,local.path=/R/w-b.1.sock,"
       "remote.type=unix,remote.path=/R/w-b.0.sock",
       "-device", "virtio-net-pci,romfile=,id=nic1,netdev=n1,"
       "mac=52:54:00:00:01:02"])

# The rocx-switch's ports in declared order, and a segment of three
# NICs with a switch of its own.
gs, sizes, port, lines = guests_of(
    ["--guest", "nic=rocx,nic=rocx@c,cmd=x", "--guest",
     "nic=virtio@c,rootport=1,nic=rocx:speed=400,cmd=x", "--guest",
     "nic=e1000@c,cmd=x"])
check("segments: the rocx-switch's ports and a segment's switch",
      (sizes, port, lines,
       [(n.lsock, n.rsock) for g in gs for n in g.nics]),
      ({"c": 3}, 2,
       ["c switch-port0 guest0 nic1", "c switch-port1 guest1 nic0",
        "c switch-port2 guest2 nic0"],
       [("/R/g0.sock", "/R/sw0.sock"), ("/R/s-c/g0.sock", "/R/s-c/sw0.sock"),
        ("/R/s-c/g1.sock", "/R/s-c/sw1.sock"), ("/R/g1.sock", "/R/sw1.sock"),
        ("/R/s-c/g2.sock", "/R/s-c/sw2.sock")]))
check("launch: a NIC behind a root port of its own",
      [a for a in fabric.nic_args(gs[1]) if a.startswith(("pcie", "rocx"))],
      ["pcie-root-port,id=rp0,chassis=1,slot=1",
       "pcie-root-port,id=rp1,chassis=2,slot=2",
       "rocx,id=nic1,netdev=n1,mac=52:54:00:00:01:01,bus=rp1,speed=400"])

check("launch: --link channel: a rocx NIC on the rocx-switch joins by "
      "its fabric channel, one on a segment and a virtio NIC by netdev",
      fabric.nic_args(gs[0], channel=True) +
      [a for a in fabric.nic_args(gs[1], channel=True)
       if a.startswith(("pcie", "rocx", "virtio"))],
      ["-device", "rocx,id=nic0,fabric=/R/ch0.sock,mac=52:54:00:00:00:00",
       "-netdev", "dgram,id=n1,local.type=unix,local.path=/R/s-c/g0.sock,"
       "remote.type=unix,remote.path=/R/s-c/sw0.sock",
       "-device", "rocx,id=nic1,netdev=n1,mac=52:54:00:00:01:00",
       "pcie-root-port,id=rp0,chassis=1,slot=1",
       "virtio-net-pci,romfile=,id=nic0,netdev=n0,mac=52:54:00:00:00:01,"
       "bus=rp0",
       "pcie-root-port,id=rp1,chassis=2,slot=2",
       "rocx,id=nic1,fabric=/R/ch1.sock,mac=52:54:00:00:01:01,bus=rp1,"
       "speed=400"])
check("launch: --link takes netdev, channel or direct",
      refusal(spec.parse_args, ["--link", "shm", "--guest", "cmd=x"], {}),
      (2, "run-guests: bad --link shm (netdev, channel or direct)"))
check("launch: --link direct gives the switch --direct, untimed only",
      [run.switch_mode(spec.parse_args(a + ["--guest", "cmd=x"], {}))
       for a in (["--link", "direct"], ["--link", "channel"],
                 ["--link", "direct", "--timed"])],
      [["--direct"], [], ["--timed", "--latency", "1000"]])

check("launch: --qemu-sched is other unless asked, takes nice and fifo",
      [spec.parse_args(a + ["--guest", "cmd=x"], {}).qemu_sched
       for a in ([], ["--qemu-sched", "nice"], ["--qemu-sched", "fifo"])],
      ["other", "nice", "fifo"])
check("launch: --qemu-sched takes other, nice or fifo",
      refusal(spec.parse_args, ["--qemu-sched", "rr", "--guest", "cmd=x"],
              {}),
      (2, "run-guests: bad --qemu-sched rr (other, nice or fifo)"))


def fake_qemu_sched(mode="fifo"):
    """fabric.qemu_priority(MODE) on a process that names a thread "CPU
    0/TCG" when told: (answer before the thread, answer after, the main
    thread's policy, the vCPU thread's policy, the main thread's nice
    value, the vCPU thread's)."""
    code = """if 1:
        import ctypes, sys, threading
        def vcpu():
            ctypes.CDLL(None).prctl(15, b"CPU 0/TCG", 0, 0, 0)
            threading.Event().wait()
        sys.stdin.readline()
        threading.Thread(target=vcpu, daemon=True).start()
        print(threading.get_native_id(), flush=True)
        sys.stdin.readline()
    """
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    try:
        before = fabric.qemu_priority(p.pid, mode)
        p.stdin.write("\n")
        p.stdin.flush()
        p.stdout.readline()
        vtid = None
        for _ in range(100):
            for t in os.listdir("/proc/%d/task" % p.pid):
                with open("/proc/%d/task/%s/comm" % (p.pid, t)) as f:
                    if f.read().startswith("CPU "):
                        vtid = int(t)
            if vtid:
                break
            time.sleep(0.01)
        after = fabric.qemu_priority(p.pid, mode)
        return (before, after, os.sched_getscheduler(p.pid),
                os.sched_getscheduler(vtid),
                os.getpriority(os.PRIO_PROCESS, p.pid),
                os.getpriority(os.PRIO_PROCESS, vtid))
    finally:
        p.kill()
        p.wait()


sched = fake_qemu_sched()
if fabric._qemu_rt_refused:
    print("ok - launcher: --qemu-sched fifo: the main thread real-time, "
          "the vCPU's normal # SKIP SCHED_FIFO refused here")
else:
    check("launch: --qemu-sched fifo: the main thread real-time once a "
          "vCPU thread exists, the vCPU's normal",
          sched[:4], (False, True, os.SCHED_FIFO, os.SCHED_OTHER))
fabric._qemu_rt_refused = False
sched = fake_qemu_sched("nice")
if fabric._qemu_rt_refused:
    print("ok - launcher: --qemu-sched nice: the main thread at nice -20, "
          "the vCPU's at 0 # SKIP nice -20 refused here")
else:
    check("launch: --qemu-sched nice: the main thread at nice -20 once a "
          "vCPU thread exists, the vCPU's at 0, both in the normal class",
          sched, (False, True, os.SCHED_OTHER, os.SCHED_OTHER, -20, 0))

g = gs[0]
g.cmd, g.kwords, g.env_words = "/c.sh", " ROCX_MODDIR=/m", " A=1"
check("launch: the kernel command line",
      guest.kernel_cmdline(g, 3, " ROCX_TIME_SCALE=3 ROCX_WAIT=360", " z=1"),
      "console=ttyS0 panic=-1 loglevel=4 mitigations=off no_timer_check "
      "rocx_init=%s/scripts/guest/init.sh rocx_cmd=/c.sh rocx_guest=0 "
      "rocx_nguests=3 rocx_repo=%s ROCX_TIME_SCALE=3 ROCX_WAIT=360 "
      "ROCX_MODDIR=/m A=1 z=1" % (guest.REPO, guest.REPO))
check("launch: ROCX_TIME_SCALE",
      (guest.time_scale({}), guest.time_scale({"ROCX_TIME_SCALE": "5"}),
       refusal(guest.time_scale, {"ROCX_TIME_SCALE": "0"})),
      (3, 5, (2, "run-guests: bad ROCX_TIME_SCALE 0")))
check("collect: times as the shell printed them",
      [secs(ms) for ms in (0, 99, 1999, 61234)],
      ["0.0", "0.0", "1.9", "61.2"])

sys.exit(1 if bad else 0)
