# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "uc": UC queue pairs over each GID kind: our check program
# (SEND, SEND with immediate, RDMA WRITE and WRITE with immediate, data
# verified; a WRITE to a QP without REMOTE_WRITE dropped) in each guest
# and between the guests; ibv_uc_pingpong --chk over each GID kind and
# perftest's ib_write_bw on UC between the guests.
for kind in v2 v6 v1; do
	verbs_py verbs_uc.py "$kind"
done
uc_gid() { case $1 in v2) echo "$gid_v2" ;; v6) echo "$gid_v6" ;; v1) echo "$gid_v1" ;; esac; }
port=19200
for kind in v2 v6 v1; do
	port=$((port + 1))
	# tool_report fails a side that says "invalid data" (--chk).
	tool_pair "ibv_uc_pingpong --chk, $kind GID" "$port" 'bytes in .* seconds' \
		ibv_uc_pingpong -d "$ibdev" -g "$(uc_gid "$kind")" -s 4096 -n 100 -c
done
# ib_write_bw's buffers are files (--mmap), compared afterwards as
# guest/rxe.sh explains: the client's [0, S) lands at the server's
# [B, B + S), B = max(S, 4096).
uc_bw=/tmp/uc_write_bw.buf
truncate -s $((2 * 65536 + 8192)) "$uc_bw"
port=$((port + 1))
tool_pair "ib_write_bw -c UC, 100 x 64 KiB" "$port" '^ *65536 +100 ' \
	ib_write_bw -c UC -F -d "$ibdev" -x "$gid_v2" -m 1024 -s 65536 -n 100 \
	--mmap="$uc_bw"
if [ -n "$peer" ] && [ "$me" -eq 1 ]; then
	cp "$uc_bw" "$ROCX_SHARED/uc_write_bw.client"
	rocx_put uc_write_bw copied
elif [ -n "$peer" ]; then
	rocx_get uc_write_bw >/dev/null
	if cmp -n 65536 -i 0:65536 "$ROCX_SHARED/uc_write_bw.client" "$uc_bw"; then
		t_ok "ib_write_bw -c UC: 65536 bytes verified at the server"
	else
		t_not_ok "ib_write_bw -c UC: data differ (client [0, 65536) vs server [65536, 131072))"
	fi
fi
