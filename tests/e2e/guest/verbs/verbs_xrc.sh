# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "xrc": XRC domains, XRC SRQs and XRC send/receive QPs over
# each GID kind: our check program (SENDs into the SRQ each names with
# data verified, WRITE and READ over XRC, an SRQ of another domain
# refused) in each guest and between the guests, and Debian's
# ibv_xsrq_pingpong with two clients (its -c is --clients, the server's
# alone; each client is a process of its own) in loopback and between the
# guests.
for kind in v2 v6 v1; do
	verbs_py verbs_xrc.py "$kind"
done
xrc_gid() { case $1 in v2) echo "$gid_v2" ;; v6) echo "$gid_v6" ;; v1) echo "$gid_v1" ;; esac; }

# xsrq_run NAME PORT GID SERVER_HOST - one ibv_xsrq_pingpong server for two
# clients and the two clients: the server here when SERVER_HOST is
# 127.0.0.1 (loopback), else here if we are guest 0; the clients here if
# loopback or if we are guest 1.  Every process must print "success".
xsrq_run() {
	local name=$1 port=$2 gid=$3 host=$4 spid='' c pids=() rc
	local cmd=(ibv_xsrq_pingpong -d "$ibdev" -g "$gid" -s 4096 -n 20)

	if [ "$host" = 127.0.0.1 ] || [ "$me" -eq 0 ]; then
		rdma_env timeout "$tool_timeout" "${cmd[@]}" -c 2 -p "$port" \
			>"/tmp/$port.srv" 2>&1 &
		spid=$!
		if ! wait_for 30 roce_port_listening "$port"; then
			kill "$spid" 2>/dev/null
		fi
		[ "$host" = 127.0.0.1 ] || rocx_put "xsrq.$port" listening
	fi
	if [ "$host" = 127.0.0.1 ] || [ "$me" -eq 1 ]; then
		[ "$host" = 127.0.0.1 ] || rocx_get "xsrq.$port" >/dev/null
		for c in 1 2; do
			rdma_env timeout "$tool_timeout" "${cmd[@]}" -p "$port" \
				"$host" >"/tmp/$port.cli$c" 2>&1 &
			pids+=($!)
		done
		for c in 1 2; do
			wait "${pids[$((c - 1))]}"
			rc=$?
			tool_report "$rc" "/tmp/$port.cli$c" "$name, client $c" '^success'
		done
	fi
	if [ -n "$spid" ]; then
		wait "$spid"
		rc=$?
		tool_report "$rc" "/tmp/$port.srv" "$name, server" '^success'
	fi
	[ "$host" = 127.0.0.1 ] || rocx_barrier "xsrq.$port"
}

# TCP ports 196xx: each part its own hundred.
port=19600
for kind in v2 v6 v1; do
	port=$((port + 1))
	xsrq_run "ibv_xsrq_pingpong -c 2, loopback, $kind GID" "$port" \
		"$(xrc_gid "$kind")" 127.0.0.1
done
if [ -n "$peer" ]; then
	for kind in v2 v6 v1; do
		port=$((port + 1))
		xsrq_run "ibv_xsrq_pingpong -c 2, two guests, $kind GID" "$port" \
			"$(xrc_gid "$kind")" "$(rocx_ip 0)"
	done
fi
