# SPDX-License-Identifier: GPL-2.0
"""Guests: the kernel each boots, its QEMU command line and process."""
import os
import re
import shutil
import stat
import subprocess
import sys

import launcher
from launcher import REPO, Die, capture, read_text, userkernel

# scripts/guest/guest_lib.sh's barriers wait this long by default.
GUEST_WAIT_S = 120


def newer_source(ref):
    """A driver or contract source file newer than REF, or None."""
    ref_ns = os.stat(ref).st_mtime_ns
    for top in ("drivers", "include"):
        for dirpath, _, files in os.walk(os.path.join(REPO, top)):
            for f in files:
                if not (re.fullmatch(r".*\.[ch]", f)
                        or f in ("Kconfig", "Makefile")) \
                        or f.endswith(".mod.c"):
                    continue
                p = os.path.join(dirpath, f)
                st = os.lstat(p)
                if stat.S_ISREG(st.st_mode) and st.st_mtime_ns > ref_ns:
                    return p
    return None


class Kernels:
    """Guest kernels by name: debian, 6.1, debug or a file, each found
    (or extracted) once per run."""

    def __init__(self, initrd):
        self.initrd = initrd
        self.debian = None
        self.k61 = None
        self.kver61 = None
        self.any_debug = False

    def resolve(self, g):
        """Set G's kfile, kinitrd, kwords and kind from G.kernel."""
        name = g.kernel
        dbg = os.path.join(REPO, "build/debug")
        m61 = os.path.join(REPO, "build/modules-6.1")
        g.kwords, g.kinitrd, g.kind = "", self.initrd, name or "debian"
        if name in ("debian", ""):
            if self.debian is None:
                self.debian = capture(
                    ["bash", os.path.join(REPO, "scripts/build/vmlinux.sh")])
                if self.debian is None:
                    raise Die("no kernel")
            g.kfile = self.debian
        elif name == "6.1":
            if self.kver61 is None:
                self.kver61 = capture(
                    ["bash", "-c", '. "$1"; echo "$ROCX_KVER61"', "-",
                     os.path.join(REPO, "scripts/versions.sh")]) or ""
            kver = self.kver61
            if not kver:
                raise Die("no Debian 6.1 kernel installed: "
                          "run scripts/install/deps.sh")
            ko = os.path.join(m61, "rocx_ib.ko")
            if not os.path.isfile(ko) or os.path.getsize(ko) == 0:
                raise Die("no %s: run make modules-6.1" % ko)
            if self.k61 is None:
                kfile = capture(["bash", os.path.join(
                    REPO, "scripts/build/vmlinux.sh"), kver])
                if kfile is None:
                    raise Die("no kernel " + kver)
                initrd = capture(["bash", os.path.join(
                    REPO, "scripts/build/mkinitramfs.sh"), kver])
                if initrd is None:
                    raise Die("initramfs build for %s failed" % kver)
                self.k61 = (kfile, initrd)
                stale = newer_source(ko)
                if stale:
                    print("run-guests: warning: %s is newer than "
                          "build/modules-6.1: run make modules-6.1" % stale,
                          file=sys.stderr, flush=True)
            g.kfile, g.kinitrd = self.k61
            g.kwords = " ROCX_MODDIR=" + m61
        elif name == "debug":
            vmlinux = os.path.join(dbg, "vmlinux")
            release = os.path.join(dbg, "kernelrelease")
            if not all(os.path.isfile(p) and os.path.getsize(p) > 0
                       for p in (vmlinux, release)):
                raise Die("no debug kernel in %s: "
                          "run scripts/build/debug-kernel.sh" % dbg)
            # The modules must be the checkout's: stale ones test old code.
            if not self.any_debug:
                ko = os.path.join(dbg, "modules/rocx_ib.ko")
                if not os.path.exists(ko):
                    raise Die("no %s: run scripts/build/debug-kernel.sh"
                              % ko, 1)
                stale = newer_source(ko)
                if stale:
                    print("run-guests: warning: %s is newer than the debug "
                          "kernel's modules: run scripts/build/debug-kernel.sh"
                          % stale, file=sys.stderr, flush=True)
            self.any_debug = True
            g.kfile = vmlinux
            # modprobe finds the built-in drivers through rocx_kmods
            # (init.sh).
            g.kwords = " loglevel=5 rocx_kmods=%s/lib/modules/%s" \
                " ROCX_MODDIR=%s/modules" % (dbg, read_text(release), dbg)
        elif os.path.isdir(name):
            # A kernel tree of one's own (a lab's node): the modules are
            # the ones rocx lab up built for it (launcher/userkernel.py).
            g.kfile = os.path.join(name, userkernel.IMAGE)
            g.kwords = userkernel.kwords(name)
            g.kind = "%s (%s)" % (userkernel.release(name), name)
        else:
            g.kfile = name
        if not os.access(g.kfile, os.R_OK):
            raise Die("cannot read " + g.kfile)


def time_scale(environ=None):
    """ROCX_TIME_SCALE (default 3), the factor of a debug run's times."""
    environ = os.environ if environ is None else environ
    scale = environ.get("ROCX_TIME_SCALE") or "3"
    if not re.fullmatch(r"[1-9][0-9]*", scale):
        raise Die("bad ROCX_TIME_SCALE " + scale)
    return int(scale)


def kernel_cmdline(g, nguests, scale_words, append):
    # no_timer_check: the boot-time check that the timer interrupt arrives
    # panics ("IO-APIC + timer doesn't work!") when a TCG vCPU is starved
    # of host CPU for a moment, as on a loaded 2-core machine; the
    # emulated timer works, only its timing is late.
    return ("console=ttyS0 panic=-1 loglevel=4 mitigations=off "
            "no_timer_check rocx_init=%s/scripts/guest/init.sh rocx_cmd=%s "
            "rocx_guest=%d rocx_nguests=%d rocx_repo=%s%s%s%s%s"
            % (REPO, g.cmd, g.index, nguests, REPO, scale_words, g.kwords,
               g.env_words, append))


def firmware_args():
    # The firmware directories matter for a self-built QEMU without blobs.
    args = []
    for d in ("/usr/share/qemu", "/usr/share/seabios"):
        if os.path.isdir(d):
            args += ["-L", d]
    return args


def qemu_argv(qemu, machine, g, run, out, gdir, tail):
    """Guest G's QEMU command line; TAIL ends it (memory, NICs, --extra,
    -append).  debug-threads names QEMU's threads ("CPU 0/TCG",
    "worker", ...) for host accounting (scripts/run/bench_acct.py)."""
    return [qemu, "-name", "guest%d,debug-threads=on" % g.index, "-machine", machine,
            "-accel", "tcg", "-cpu", "max", "-smp", "1",
            "-nodefaults", "-display", "none", "-no-reboot"] \
        + firmware_args() + [
            "-kernel", g.kfile, "-initrd", g.kinitrd,
            "-serial", "file:%s/console.log" % gdir,
            "-monitor", "unix:%s/m%d.sock,server=on,wait=off"
            % (run, g.index),
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,"
            "readonly=on,multidevs=remap",
            "-virtfs", "local,path=%s,mount_tag=rocxout,security_model=none"
            % gdir,
            "-virtfs", "local,path=%s/shared,mount_tag=rocxshared,"
            "security_model=none" % out] + tail


def launch_guest(argv, gdir, kind, run, index):
    """Start one QEMU with ARGV in its fresh output directory GDIR."""
    shutil.rmtree(gdir, ignore_errors=True)
    os.makedirs(gdir)
    with open(os.path.join(gdir, "kernel"), "w") as f:
        f.write(kind + "\n")
    os.symlink("%s/m%d.sock" % (run, index),
               os.path.join(gdir, "monitor.sock"))
    with open(os.path.join(gdir, "qemu.log"), "wb") as f:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=f,
                                stderr=subprocess.STDOUT,
                                preexec_fn=launcher.background)
