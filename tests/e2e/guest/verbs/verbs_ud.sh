# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "ud": UD queue pairs over each GID kind: our check program
# (SEND with and without immediate, data and GRH area verified, a wrong
# Q_Key not delivered, a message over the active MTU refused) in each
# guest and between the guests; ibv_ud_pingpong --chk between the guests
# over each GID kind; perftest's ib_send_bw and ib_send_lat on UD.
ud_t0=$SECONDS
for kind in v2 v6 v1; do
	verbs_py verbs_ud.py "$kind"
done
ud_gid_idx() { case $1 in v2) echo "$gid_v2" ;; v6) echo "$gid_v6" ;; v1) echo "$gid_v1" ;; esac; }
# ibv_ud_pingpong's -s must fit the active MTU (its receives add the GRH).
ud_mtu=$(rdma_env ibv_devinfo -d "$ibdev" -i 1 | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
port=19400
for kind in v2 v6 v1; do
	port=$((port + 1))
	tool_pair "ibv_ud_pingpong --chk, $kind GID" "$port" 'bytes in .* seconds' \
		ibv_ud_pingpong -d "$ibdev" -g "$(ud_gid_idx "$kind")" \
		-s "${ud_mtu:-1024}" -n 100 -c
done
# perftest on UD: -n below its receive depth, so that every SEND finds a
# receive posted (UD drops what finds none, and the server would wait).
port=$((port + 1))
tool_pair "ib_send_bw -c UD, v2 GID" "$port" '^ *[0-9]+ +200 ' \
	ib_send_bw -F -d "$ibdev" -x "$gid_v2" -c UD -s "${ud_mtu:-1024}" -n 200
port=$((port + 1))
tool_pair "ib_send_lat -c UD, v6 GID" "$port" '^ *2 +200 ' \
	ib_send_lat -F -d "$ibdev" -x "$gid_v6" -c UD -s 2 -n 200
rocx_log "verbs_ud took $((SECONDS - ud_t0)) s"
