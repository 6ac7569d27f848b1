#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/run/kunit.sh: load rocx_core.ko and rocx_ib.ko with
# their KUnit tests linked in (build/debug/kunit-modules, as ROCX_MODDIR).
# KUnit runs a module's suites as it loads and prints their KTAP to the
# kernel log, which init.sh saves as /rocx-out/dmesg; the host counts it.
# Then unload both, so that the final kmemleak scan sees what unloading
# left behind.
set -u
. "$ROCX_REPO/scripts/guest/guest_lib.sh"

rc=0
for m in rocx_core rocx_ib; do
	insmod "$ROCX_MODDIR/$m.ko" || { rocx_log "insmod $m failed"; rc=1; }
done
rmmod rocx_ib || rc=1
rmmod rocx_core || rc=1
exit "$rc"
