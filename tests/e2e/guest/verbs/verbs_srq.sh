# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "srq": shared receive queues over each GID kind: our check
# program (three QPs sharing an SRQ with data verified, the limit event,
# QP_LAST_WQE) in each guest and between the guests, and Debian's
# ibv_srq_pingpong --chk (16 QPs on one SRQ) between the guests.
for kind in v2 v6 v1; do
	verbs_py verbs_srq.py "$kind"
done
srq_gid() { case $1 in v2) echo "$gid_v2" ;; v6) echo "$gid_v6" ;; v1) echo "$gid_v1" ;; esac; }
# TCP ports 195xx: each part its own hundred (tool_pair's keys and
# barriers are named by port).
port=19500
for kind in v2 v6 v1; do
	port=$((port + 1))
	tool_pair "ibv_srq_pingpong --chk, $kind GID" "$port" 'bytes in .* seconds' \
		ibv_srq_pingpong -d "$ibdev" -g "$(srq_gid "$kind")" -s 4096 -n 50 -c
done
