# SPDX-License-Identifier: GPL-2.0
"""
Boot rocx test guests under TCG, joined by one rocx-switch, and collect
each guest script's exit status.

Usage: run-guests.sh [OPTION]... --guest SPEC [--guest SPEC]...

SPEC is comma-separated KEY=VALUE words:
  cmd=PATH          script the guest runs (required; absolute, or relative
                    to the repository); it sees ROCX_GUEST_INDEX, ROCX_IP...
                    (scripts/guest/init.sh) and may source
                    scripts/guest/guest_lib.sh for barriers
  nic=MODEL[:P=V]...  a NIC on the next switch port; repeatable.  MODEL is
                    virtio (virtio-net-pci), rocx, or any -device model;
                    P=V are extra device properties, e.g. nic=rocx:foo=1
  mem=MIB           guest memory (default 1024)
  rootport=1        put each NIC behind a pcie-root-port of its own (rp<K>,
                    hot-pluggable, with a bus reset), for device_del and
                    device_add through the monitor and for resets of the
                    function; q35 only
  env=NAME=VALUE    extra kernel command-line word, which reaches the
                    script's environment (no spaces or commas; no dots in
                    NAME, or the kernel takes it for a module parameter)
  kernel=KERNEL     this guest's kernel, as --kernel below
  nic=MODEL[:P=V]...@SEG
                    the same NIC on network segment SEG (a name of
                    lower-case letters and digits) instead of the
                    rocx-switch: a segment of exactly two NICs is a
                    point-to-point link, QEMU's standard dgram netdev on
                    a pair of unix datagram sockets with nothing in
                    between; a segment of any other size gets a
                    rocx-switch of its own.  A guest may have NICs on
                    several segments (a bridge or a router), e.g.
                      --guest nic=virtio@a,nic=virtio@b,cmd=...
                      --guest nic=rocx:speed=1000@a,cmd=...
Guest N's NIC K gets MAC 52:54:00:00:KK:NN (hex, so guest 1's first NIC is
52:54:00:00:00:01), device id nic<K> and netdev n<K>, in the order NICs
are declared; a NIC without @SEG takes the next port of the rocx-switch,
one on a segment the next port of that segment.  OUT/segments lists
who is on which segment.  Guests configure addresses themselves; ROCX_IP
is meant for the first NIC.

Options:
  --qemu BIN        QEMU binary (default build/qemu-system-x86_64 if built,
                    else /usr/bin/qemu-system-x86_64)
  --timeout SEC     wall-clock limit for the whole run (default 300)
  --out DIR         output directory (default build/guest/runs/<time>-<pid>;
                    the 20 newest of those are kept)
  --pcap FILE       capture the switch's traffic (not a segment's)
  --extra 'ARGS'    more QEMU arguments for the guest declared last (split
                    on spaces); repeatable
  --append 'WORDS'  more kernel command-line words for every guest
  --host-cmd CMD    run CMD (bash -c) on the host while the guests run; its
                    status counts like a guest's.  It sees ROCX_RUN_OUT,
                    ROCX_NGUESTS, ROCX_MONITOR_<N> (guest N's HMP monitor
                    socket; scripts/run/hmp.sh talks to it),
                    ROCX_QEMU_PID_<N> (guest N's QEMU process), ROCX_SWITCH
                    and ROCX_SWITCH_CTL (the switch's control socket:
                    "$ROCX_SWITCH" ctl "$ROCX_SWITCH_CTL" show), and
                    ROCX_SWITCH_CTL_<SEG> for a segment's own switch
  --impair 'SPEC'   impair the fabric from the start: rocx-switch --impair,
                    e.g. 'port=all dir=egress loss=1%'; repeatable
  --switch 'ARGS'   more rocx-switch options (split as a shell would:
                    quotes keep a --qos SPEC whole), e.g.
                    '--queue-limit 4096'; repeatable
  --seed N          seed of the switch's impairments (rocx-switch --seed;
                    default: random, printed in OUT/switch.log); in a
                    timed run also the guests' (QEMU -seed N + guest)
  --timed           run in virtual time (Documentation/rocx-device.rst,
                    "Timed mode"): every guest under -icount
                    shift=N,sleep=off with its RTC on the virtual clock,
                    every NIC a rocx on the rocx-switch's fabric channel
                    (timed=on; virtio NICs and @SEG are refused), the
                    switch --timed; --timeout counts 4 times over
  --link-latency NS the switch's link latency in a timed run (default 1000)
  --link netdev|channel|direct
                    how an untimed run's rocx NICs on the rocx-switch join
                    it: QEMU's dgram netdev (default), or the device's own
                    fabric channel (fabric=, with its shared-memory rings;
                    Documentation/rocx-device.rst, "Fabric channel"); direct
                    is the channel with the switch's --direct: two NICs
                    with nothing set between them write each other's rings
                    ("Direct rings"); a timed run always uses the channel
  --icount-shift N  instruction time 2^N ns in a timed run (default 0)
  --qemu-sched other|nice|fifo
                    each QEMU's main thread, which runs an untimed NIC's
                    engine and its end of the fabric link, in the normal
                    class beside the vCPUs (default), in it at nice -20,
                    or at real-time priority below the switch's, ahead
                    of them: a shorter latency tail, a lower 64-byte
                    rate (Documentation/performance.rst, "Stage 3b")
  --machine TYPE    QEMU machine (default q35)
  --kernel KERNEL   guest kernel: debian (Debian's $ROCX_KVER, as the PVH
                    vmlinux scripts/build/vmlinux.sh extracts), 6.1
                    (Debian 12's own $ROCX_KVER61 the same way, with the
                    rocx modules of `make modules-6.1`), debug (the
                    debug kernel scripts/build/debug-kernel.sh built, with
                    the rocx modules built for it), or a file; default
                    $ROCX_GUEST_KERNEL, else debian

Under the debug kernel (KASAN, lockdep, kmemleak...) guests run slower:
when any guest boots it, --timeout and every guest's barrier waits
(ROCX_WAIT) are multiplied by $ROCX_TIME_SCALE (default 3), which the
guests see too.  A debug guest's console shows warnings (loglevel=5) and
its init ends with a kmemleak scan, kept in OUT/guest<N>/kmemleak.
run-guests.sh does not judge those: the e2e harness does
(tests/e2e/host/splat_check.sh).

Output per guest in OUT/guest<N>/: console.log (serial), log (script
output), rc, boot_seconds, dmesg, qemu.log, kernel (its --kernel),
monitor.sock while running.
OUT/switch.log holds the switch's counters, OUT/switch-<SEG>.log a
segment switch's; OUT/fabric.txt the sockets' datagram limit in the
fabric's namespace.  Prints "guest<N>: rc=<rc>"
per guest and exits 1 if any guest failed or timed out.
"""
# The launcher behind scripts/run/run-guests.sh (its --help is this
# package's docstring), one module per step of a run, so that another
# front end (a topology file, a lab whose guests stay up) can reuse each:
#   spec.py      parsing: the command line (parse_args) and a --guest SPEC
#                (parse_guest) into a Guest of Nics
#   fabric.py    segments: which socket each NIC uses and which switch or
#                point-to-point link is behind it (segment_sizes, wire,
#                nic_args), starting a rocx-switch, the fabric's network
#                namespace
#   guest.py     launch: a guest's kernel (Kernels), its QEMU command line
#                and process
#   run.py       supervision and collection: a whole run, main()
# This file holds what they all use.  Standard library only.
import os
import signal
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


class Die(SystemExit):
    """A refused run: the message goes to stderr, the status is 2."""

    def __init__(self, msg, status=2):
        print("run-guests: " + msg, file=sys.stderr, flush=True)
        super().__init__(status)


def say(msg):
    # Flushed line by line: the callers' logs interleave it with what the
    # builds this runs print.
    print(msg, flush=True)


def now_ms():
    return time.time_ns() // 1000000


def _tdiv(a, b):
    # Integer division truncated toward zero, as the shell's $((a / b)).
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def secs(ms):
    """MS milliseconds as seconds with one decimal, truncated ("12.3")."""
    whole = _tdiv(ms, 1000)
    return "%d.%d" % (whole, _tdiv(ms - whole * 1000, 100))


def read_text(path):
    """PATH's text without its trailing newlines, or None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().rstrip("\n")
    except OSError:
        return None


def capture(argv):
    """The standard output of ARGV (stderr passes through), without its
    trailing newlines, or None if it failed."""
    r = subprocess.run(argv, stdout=subprocess.PIPE, check=False)
    if r.returncode != 0:
        return None
    return r.stdout.decode(errors="replace").rstrip("\n")


def status_of(returncode):
    """A Popen returncode as the shell reports it (128 + signal)."""
    return 128 - returncode if returncode < 0 else returncode


def background():
    """A child's start, as the shell starts a command in the background
    without job control: an interrupt from the terminal is the launcher's
    to handle (it ends everything it started), not the child's."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)
