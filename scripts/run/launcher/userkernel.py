# SPDX-License-Identifier: GPL-2.0
"""A kernel tree of the user's own as a guest's kernel (Documentation/
lab.rst, "Your own kernel"): checked against scripts/guest/minimum.config
before anything starts, then made bootable by scripts/build/user-kernel.sh
(the checkout's rocx modules built against it, its own modules where the
guest's modprobe finds them)."""
import hashlib
import os
import re
import subprocess
import sys

from launcher import REPO, Die, read_text

MINIMUM = os.path.join(REPO, "scripts/guest/minimum.config")
PREPARE = os.path.join(REPO, "scripts/build/user-kernel.sh")
OUT = os.path.join(REPO, "build/lab-kernels")
# The debug guest kernel's .config (scripts/build/debug-kernel.sh).
DEBUG_CONFIG = os.path.join(REPO, "build/debug/config")
# What QEMU's -kernel boots, relative to the tree.
IMAGE = "arch/x86/boot/bzImage"
# Files a built tree has that the modules' build and the boot need.
TREE_FILES = (".config", "include/config/kernel.release", "Module.symvers",
              IMAGE)

_LINE = re.compile(r"(CONFIG_[A-Za-z0-9_]+)=(.*)")


def minimum(path=MINIMUM):
    """[(option, "y" or "m")]: "y" must be built in, "m" may be either."""
    out = []
    for line in (read_text(path) or "").splitlines():
        m = _LINE.fullmatch(line.strip())
        if m:
            out.append((m.group(1), m.group(2)))
    if not out:
        raise Die("no options in " + path)
    return out


def read_config(path):
    """A .config's set options: {option: value}."""
    cfg = {}
    for line in (read_text(path) or "").splitlines():
        m = _LINE.fullmatch(line.strip())
        if m:
            cfg[m.group(1)] = m.group(2)
    return cfg


def config_problems(cfg, mins):
    """One sentence per option of MINS that CFG does not satisfy."""
    out = []
    for opt, want in mins:
        have = cfg.get(opt)
        now = "=" + have if have else " is not set"
        if want == "y" and have != "y":
            out.append("%s%s: it must be built in (=y)" % (opt, now))
        elif want == "m" and have not in ("y", "m"):
            out.append("%s%s: it must be =y or =m" % (opt, now))
    return out


def tree_problems(tree):
    """Why TREE cannot be a guest's kernel: [] when it can."""
    if not os.path.isdir(tree):
        return ["no such directory"]
    out = ["no %s: a built kernel tree has it (make bzImage modules, in "
           "the tree or its O= directory)" % f for f in TREE_FILES
           if not os.path.isfile(os.path.join(tree, f))]
    config = os.path.join(tree, ".config")
    if os.path.isfile(config):
        out += config_problems(read_config(config), minimum())
    return out


def release(tree):
    return (read_text(os.path.join(tree, "include/config/kernel.release"))
            or "").strip()


def out_dir(tree):
    """Where TREE's guest files go: one directory per tree."""
    key = hashlib.sha256(os.path.realpath(tree).encode()).hexdigest()[:12]
    return os.path.join(OUT, key)


def prepare(tree, log=None):
    """Build what TREE's guests need (scripts/build/user-kernel.sh);
    its progress goes to LOG (a file object) or stderr."""
    out = out_dir(tree)
    r = subprocess.run(["bash", PREPARE, tree, out], stdout=log or sys.stderr,
                       stderr=subprocess.STDOUT, check=False)
    if r.returncode:
        raise Die("scripts/build/user-kernel.sh %s failed (%s/build.log)"
                  % (tree, os.path.relpath(out)))
    return out


def kwords(tree):
    """The kernel command line's words for TREE's guests: its modules
    (init.sh's rocx_kmods) and the rocx modules built for it."""
    out = out_dir(tree)
    rel = release(tree)
    ko = os.path.join(out, "modules/rocx_ib.ko")
    if not os.path.isfile(ko) or \
            not os.path.isdir(os.path.join(out, "lib/modules", rel)):
        raise Die("no rocx modules for %s in %s: rocx lab up builds them "
                  "(scripts/build/user-kernel.sh)" % (tree, out))
    return " rocx_kmods=%s/lib/modules/%s ROCX_MODDIR=%s/modules" \
        % (out, rel, out)
