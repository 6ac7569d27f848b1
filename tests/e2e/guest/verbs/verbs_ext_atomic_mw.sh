# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "ext_atomic_mw": the rest of the extended verbs over each GID kind
# (our check program: ibv_wr_atomic_*, ibv_wr_bind_mw, ibv_wr_local_inv,
# ibv_wr_send_inv, ibv_resize_cq, SRQ resize, ibv_query_rt_values_ex and
# wall-clock completion timestamps, data verified, errors provoked) in
# each guest, and the atomics between the guests.
for kind in v2 v6 v1; do
	verbs_py verbs_ext_atomic_mw.py "$kind"
done
