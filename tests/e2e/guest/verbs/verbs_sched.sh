# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "sched": a QP's rate limit through ibv_modify_qp (the
# device's per-QP pacer), measured by our check program in each guest.
verbs_py verbs_sched.py
