# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "mw": memory windows of type 1 and 2 (bind, access in and out
# of range, remote and local invalidation, unbind) and ibv_rereg_mr over
# each GID kind, in each guest and between the guests; data verified,
# refused accesses checked for their status; in each guest, a rereg that
# would make a read-only file mapping writable is refused (verbs_mw.py).
for kind in v2 v6 v1; do
	verbs_py verbs_mw.py "$kind"
done
