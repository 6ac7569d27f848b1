# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# ib: rocx_ib, two independent single-guest scripts booted side by side:
# the ib_device as ibv_devinfo sees it, and unloading under a user context
# (both hold one with guest/c/ib_uctx_hold.c).
timeout=600
guest rocx ib_devinfo.sh
guest rocx ib_unload.sh
