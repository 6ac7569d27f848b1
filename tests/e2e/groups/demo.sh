# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# demo: the README's demo (scripts/run/demo.sh runs the same guest script):
# two rocx guests ping, move 16 MiB over TCP, then RDMA: RC ping-pongs
# over RoCE v2 and v1 with their data checked, ib_write_bw, rping through
# rdma_cm, and the counters that moved.
timeout=300
guest rocx demo.sh
guest rocx demo.sh
