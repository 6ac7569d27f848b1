#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The device model's floors, measured: every call (or reference to a
# function, as in a dispatch table) from one file of qemu/hw/net/rocx/ to
# a function defined in another is looked up in FLOORS below, and one that
# runs from a lower floor up into a higher one is listed, unless
# EXCEPTIONS names it with its reason.  Calls within a floor are free.
#
# The functions, variables and macros of the model and the lines they span
# come from a ctags index (universal-ctags); the references inside them
# from the source with comments and literals blanked out.  Declarations
# are no calls and are not counted.  Also checked: every file of the model
# has a floor, and the file map at the top of rocx-int.h names every file.
#
# Usage: layers.py [REPO]  (default: the checkout this script is in).
# Last line: `layers: N calls up a floor, N excepted`; exit status 1 if
# any call up is not excepted or a file is missing from the table or map.

import os
import re
import subprocess
import sys

MODEL = 'qemu/hw/net/rocx'

# Bottom floor first; a file may call its own floor and those before it.
FLOORS = [
    ('services', [
        'rocx-core.c', 'rocx-core.h', 'rocx-int.h', 'rocx-rdma.h',
        'rocx-hdr.h', 'rocx-icrc.c', 'rocx-clock.c', 'rocx-numgen.c',
    ]),
    ('blocks', [
        # Ethernet, GID, lossless
        'rocx-eth.c', 'rocx-fabric.c', 'rocx-chan.c', 'rocx-gid.c',
        'rocx-dcb.c', 'rocx-cc.c', 'rocx-delay.c', 'rocx-sched.c',
        # objects
        'rocx-qp.c', 'rocx-cq.c', 'rocx-srq.c', 'rocx-xrc.c', 'rocx-mr.c',
        'rocx-mw.c', 'rocx-fr.c', 'rocx-resize.c',
        # transport
        'rocx-wire.c', 'rocx-req.c', 'rocx-resp.c', 'rocx-comp.c',
        'rocx-uc.c', 'rocx-ud.c', 'rocx-atomic.c', 'rocx-mcast.c',
        'rocx-gsi.c', 'rocx-dbrec.c',
        # events
        'rocx-eq.c',
    ]),
    ('top', ['rocx-engine.c', 'rocx-rdma.c', 'rocx-aq.c', 'rocx-regs.c']),
    ('glue', ['rocx-pci.c', 'rocx-pci.h', 'rocx-pci-chan.c', 'rocx-pci-ring.c',
              'rocx-pci-direct.c', 'trace.h']),
]

# (caller, callee): why this call runs up a floor.
EXCEPTIONS = {
    ('rocx_sched_qp_turn', 'rocx_qp_run'):
        'the transmit scheduler decides when a QP may send and gives it '
        'its turn through the QP run loop: a callback into the engine '
        'that runs the scheduler',
}

MAP_FILE = 'rocx-int.h'


def blank(text):
    """Comments, string and character literals as spaces, lines kept."""
    def spaces(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    pat = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'
                     r"'(?:\\.|[^'\\\n])*'", re.S)
    return pat.sub(spaces, text)


def index(model, files):
    """ctags: [(name, kind, file, first line, last line, static)]."""
    out = subprocess.run(
        ['ctags', '-x', '--language-force=C', '--kinds-C=fvd',
         '--fields=+ne', '--_xformat=%N|%K|%F|%n|%e|%{file}', '-o', '-']
        + files, cwd=model, check=True, capture_output=True, text=True)
    tags = []
    for line in out.stdout.splitlines():
        name, kind, path, first, last, static = line.split('|')
        if not last.isdigit():
            last = first
        tags.append((name, kind, path, int(first), int(last), static == 'file'))
    return tags


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
    model = os.path.join(repo, MODEL)
    files = sorted(f for f in os.listdir(model) if re.search(r'\.[ch]$', f))
    floor = {f: i for i, (_, fl) in enumerate(FLOORS) for f in fl}
    names = [n for n, _ in FLOORS]
    bad = 0

    for f in files:
        if f not in floor:
            print(f'{MODEL}/{f}: no floor in {sys.argv[0]}\'s FLOORS')
            bad += 1
    for f in floor:
        if f not in files:
            print(f'{MODEL}/{f}: in FLOORS, but no such file')
            bad += 1
    with open(os.path.join(model, MAP_FILE)) as fp:
        top = fp.read().split('*/', 1)[0]
    for f in files:
        if not re.search(r'(?<![\w-])' + re.escape(f) + r'(?![\w-])', top):
            print(f'{MODEL}/{f}: missing from the file map of {MAP_FILE}')
            bad += 1

    tags = index(model, files)
    funcs = {}                  # name -> [(file, static)]
    scopes = {}                 # file -> [(first, last, name)]
    for name, kind, path, first, last, static in tags:
        if kind == 'function':
            funcs.setdefault(name, []).append((path, static))
        scopes.setdefault(path, []).append((first, last, name))

    up = {}                     # (caller, callee) -> [sites]
    for f in files:
        with open(os.path.join(model, f)) as fp:
            lines = blank(fp.read()).split('\n')
        for first, last, scope in scopes.get(f, []):
            for n in range(first, last + 1):
                for m in re.finditer(r'\b[A-Za-z_]\w*\b', lines[n - 1]):
                    callee = m.group(0)
                    defs = funcs.get(callee)
                    if not defs or any(p == f for p, _ in defs):
                        continue
                    shared = [p for p, static in defs if not static]
                    if len(shared) != 1 or shared[0] not in floor or \
                       f not in floor or floor[shared[0]] <= floor[f]:
                        continue
                    up.setdefault((scope, callee), []).append(
                        (f, n, shared[0]))

    excepted = 0
    for (caller, callee), sites in sorted(up.items(),
                                          key=lambda kv: kv[1][0][:2]):
        f, n, to = sites[0]
        why = EXCEPTIONS.get((caller, callee))
        if why:
            excepted += len(sites)
        print(f'{MODEL}/{f}:{n}: {caller} ({names[floor[f]]}) calls '
              f'{callee} ({to}, {names[floor[to]]})'
              + (f', {len(sites)} times' if len(sites) > 1 else '')
              + (f'; excepted: {why}' if why else ''))
    for key in EXCEPTIONS:
        if key not in up:
            print(f'exception {key[0]} -> {key[1]}: no such call up')
            bad += 1
    calls = sum(len(s) for s in up.values())
    print(f'layers: {calls} calls up a floor, {excepted} excepted')
    return 1 if bad or calls > excepted else 0


if __name__ == '__main__':
    sys.exit(main())
