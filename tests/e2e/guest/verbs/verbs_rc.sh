# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "rc": the RC transport over each GID kind: our check program
# (SEND, RDMA WRITE and READ between two QPs, data verified) in each guest
# and between the guests, and ibv_rc_pingpong --chk between the guests.
for kind in v2 v6 v1; do
	verbs_py verbs_rc.py "$kind"
done
gid_idx() { case $1 in v2) echo "$gid_v2" ;; v6) echo "$gid_v6" ;; v1) echo "$gid_v1" ;; esac; }
port=19100
for kind in v2 v6 v1; do
	port=$((port + 1))
	tool_pair "ibv_rc_pingpong --chk, $kind GID" "$port" 'bytes in .* seconds' \
		ibv_rc_pingpong -d "$ibdev" -g "$(gid_idx "$kind")" -s 4096 -n 100 -c
done
