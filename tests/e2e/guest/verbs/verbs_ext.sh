# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "ext": the extended verbs over each GID kind (our check
# program: ibv_create_cq_ex with timestamps and every read function,
# ibv_create_qp_ex with every ibv_wr_* opcode, ibv_query_qp and rdma
# resource show against what was set), and ibv_devinfo -v's limits.
for kind in v2 v6 v1; do
	verbs_py verbs_ext.py "$kind"
done

# ibv_devinfo -v: the limits the model has (rocx-core.h) and its clock.
devinfo=$(rdma_env ibv_devinfo -v -d "$ibdev" 2>&1)
for want in 'max_qp:[[:space:]]*1024$' 'max_qp_wr:[[:space:]]*4096$' \
	'max_sge:[[:space:]]*8$' 'max_cq:[[:space:]]*1024$' \
	'max_cqe:[[:space:]]*65536$' 'max_mr:[[:space:]]*4096$' \
	'max_pd:[[:space:]]*1024$' 'max_qp_rd_atom:[[:space:]]*16$' \
	'hca_core_clock:[[:space:]]*1000000kHZ$' \
	'completion timestamp_mask:[[:space:]]*0xffffffffffffffff$'; do
	if grep -q -- "$want" <<<"$devinfo"; then
		t_ok "ibv_devinfo -v: ${want%%:*} as the device has it"
	else
		t_not_ok "ibv_devinfo -v: ${want%%:*} as the device has it"
		grep -- "${want%%:*}" <<<"$devinfo" | sed 's/^/# /'
	fi
done
