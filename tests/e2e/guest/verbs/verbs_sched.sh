# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "sched": a QP's rate limit through ibv_modify_qp (the
# device's per-QP pacer), each guest's QP writing to the other's, its
# rate measured by the switch's per-priority byte counters over the
# guest's clock (verbs_sched.py).
verbs_py verbs_sched.py
