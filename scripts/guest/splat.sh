#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/e2e/host/splat_selftest.sh, under the debug kernel:
# load the deliberately broken rocx_splat.ko (tests/debug/rocx_splat.c),
# which makes the kernel report every kind of bug the e2e checks must
# catch, then wait until its leaked object is old enough for kmemleak
# (5 s) before init.sh's final scan.
set -u
. "$ROCX_REPO/scripts/guest/guest_lib.sh"

insmod "$ROCX_REPO/build/debug/splat/rocx_splat.ko" || rocx_die "insmod rocx_splat"
grep -q 'rocx_splat: done' <(dmesg) || rocx_die "rocx_splat did not finish"
sleep 6
rmmod rocx_splat
