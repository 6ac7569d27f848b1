# SPDX-License-Identifier: GPL-2.0
"""Parsing: run-guests.sh's command line and its --guest SPECs."""
import dataclasses
import os
import re
import shlex
import sys

import launcher
from launcher import Die


@dataclasses.dataclass
class Options:
    qemu: str = ""
    kernel: str = "debian"
    timeout: int = 300
    out: str = ""
    pcap: str = ""
    machine: str = "q35"
    host_cmd: str = ""
    append: str = ""
    seed: str = ""
    switch_opts: list = dataclasses.field(default_factory=list)
    # --timed: guests under instruction counting, rocx NICs on the
    # switch's fabric channels, every clock virtual.
    timed: bool = False
    # --link: how rocx NICs on the rocx-switch join it when untimed.
    link: str = "netdev"
    # --qemu-sched: the scheduling class of each QEMU's main thread.
    qemu_sched: str = "other"
    link_latency: int = 1000
    icount_shift: int = 0
    # One [SPEC, EXTRA] per --guest: EXTRA gathers its --extra words.
    guests: list = dataclasses.field(default_factory=list)


def usage(status=2):
    sys.stdout.write(launcher.__doc__)
    sys.stdout.flush()
    raise SystemExit(status)


def parse_args(argv, environ=None):
    """The command line as Options; dies on a bad one."""
    environ = os.environ if environ is None else environ
    o = Options(kernel=environ.get("ROCX_GUEST_KERNEL") or "debian")
    takes_value = {"--qemu", "--timeout", "--out", "--pcap", "--machine",
                   "--kernel", "--append", "--host-cmd", "--impair",
                   "--switch", "--seed", "--guest", "--extra"}
    takes_value |= {"--link-latency", "--icount-shift", "--link",
                    "--qemu-sched"}
    timeout = "300"
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            usage(0)
        if a == "--timed":
            o.timed = True
            i += 1
            continue
        if a not in takes_value:
            raise Die("unknown argument %s (see --help)" % a)
        if i + 1 >= len(argv):
            raise Die("%s needs a value" % a, 1)
        v = argv[i + 1]
        i += 2
        if a == "--qemu":
            o.qemu = v
        elif a == "--timeout":
            timeout = v
        elif a == "--out":
            o.out = v
        elif a == "--pcap":
            o.pcap = v
        elif a == "--machine":
            o.machine = v
        elif a == "--kernel":
            o.kernel = v
        elif a == "--append":
            o.append += " " + v
        elif a == "--host-cmd":
            o.host_cmd = v
        elif a == "--impair":
            o.switch_opts += ["--impair", v]
        elif a == "--switch":
            o.switch_opts += shlex.split(v)
        elif a == "--seed":
            o.seed = v
        elif a == "--link":
            if v not in ("netdev", "channel", "direct"):
                raise Die("bad --link %s (netdev, channel or direct)" % v)
            o.link = v
        elif a == "--qemu-sched":
            if v not in ("fifo", "nice", "other"):
                raise Die("bad --qemu-sched %s (other, nice or fifo)" % v)
            o.qemu_sched = v
        elif a in ("--link-latency", "--icount-shift"):
            if not re.fullmatch(r"[0-9]+", v) or \
                    (a == "--link-latency" and int(v) == 0) or \
                    (a == "--icount-shift" and int(v) > 10):
                raise Die("bad %s %s" % (a, v))
            if a == "--link-latency":
                o.link_latency = int(v)
            else:
                o.icount_shift = int(v)
        elif a == "--guest":
            o.guests.append([v, ""])
        elif a == "--extra":
            if not o.guests:
                raise Die("--extra before any --guest")
            o.guests[-1][1] += " " + v
    if not o.guests:
        usage()
    if not re.fullmatch(r"[0-9]+", timeout):
        raise Die("bad --timeout " + timeout)
    o.timeout = int(timeout)
    return o


def split_spec(spec):
    """SPEC's comma-separated words: an empty word between two commas is
    a word (and refused later), one trailing comma is dropped."""
    words = spec.split(",")
    if words[-1] == "":
        words.pop()
    return words


def split_extra(extra):
    # The first line's words, as the shell's `read -ra` takes them.
    return extra.split("\n", 1)[0].split()


@dataclasses.dataclass
class Nic:
    index: int              # K of nic<K> and n<K>, in declared order
    model: str              # -device model, or virtio or rocx
    props: str = ""         # ",P=V,..." appended to -device, or ""
    seg: str = ""           # segment name, "" for the rocx-switch
    # Filled by wire(): this end's socket and the one it sends to, and
    # for a NIC on the rocx-switch, its port's fabric channel socket.
    lsock: str = ""
    rsock: str = ""
    csock: str = ""


@dataclasses.dataclass
class Guest:
    index: int
    cmd: str = ""
    mem: str = "1024"
    kernel: str = ""        # as given (kernel= or --kernel), "" = debian
    env_words: str = ""     # " NAME=VALUE..." for the kernel command line
    rootport: bool = False
    nics: list = dataclasses.field(default_factory=list)
    extra: list = dataclasses.field(default_factory=list)
    # Filled once the run resolves and launches it.
    kfile: str = ""
    kinitrd: str = ""
    kwords: str = ""
    kind: str = ""          # debian, 6.1, debug or the file given
    proc: object = None
    launched_ms: int = 0
    state: str = ""         # exited, qemu-exit-N or timeout once done


def parse_guest(index, spec, extra, kernel):
    """Guest INDEX from its SPEC words, its --extra words and the run's
    --kernel; dies on an unknown word.  Paths are not checked here."""
    g = Guest(index, kernel=kernel, extra=split_extra(extra))
    words = split_spec(spec)
    g.rootport = "rootport=1" in words
    for w in words:
        key, _, value = w.partition("=")
        if key == "cmd" and _:
            g.cmd = value
        elif key == "mem" and _:
            g.mem = value
        elif key == "kernel" and _:
            g.kernel = value
        elif key == "env" and _:
            g.env_words += " " + value
        elif w == "rootport=1":
            pass
        elif key == "nic" and _:
            seg = ""
            if "@" in value:
                value, seg = value.rsplit("@", 1)
            model, colon, props = value.partition(":")
            props = "," + props.replace(":", ",") if colon else ""
            g.nics.append(Nic(len(g.nics), model, props, seg))
        else:
            raise Die("guest %d: unknown word '%s' in --guest" % (index, w))
    if not g.cmd:
        raise Die("guest %d: no cmd=" % index)
    return g
