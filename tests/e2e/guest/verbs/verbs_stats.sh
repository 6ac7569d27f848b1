# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "stats": `rdma statistic show link` counters moved by
# traffic and provoked errors, on the side that saw them, by the right
# amounts (our check program), and `rdma resource show qp` for UD, UC and
# SRQ QPs (no TCP ports: 198xx stay free for this part).
verbs_py verbs_stats.py
