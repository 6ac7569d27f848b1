# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "atomic": RC compare-and-swap and fetch-and-add.  Our check
# program (verbs_atomic.py) over each GID kind, in each guest and between
# the guests, with the values returned and left in memory verified; the
# error statuses; QPs of both guests on one counter (FAA, then a CAS
# lock); then perftest's ib_atomic_bw and ib_atomic_lat, CAS and FAA,
# between the guests.
for kind in v2 v6 v1; do
	verbs_py verbs_atomic.py ops "$kind"
done
verbs_py verbs_atomic.py errors
verbs_py verbs_atomic.py counter
port=19300
# Results line: 8 bytes, then the iterations.  A latency test's server
# measures nothing: its exit status says the run completed.
res='^ *8 +[0-9]+ '
lat_res=$res
[ "$me" -eq 0 ] && lat_res=''
for op in CMP_AND_SWAP FETCH_AND_ADD; do
	port=$((port + 1))
	tool_pair "ib_atomic_bw -A $op" "$port" "$res" \
		ib_atomic_bw -F -d "$ibdev" -x "$gid_v2" -A "$op" -n 1000
	port=$((port + 1))
	tool_pair "ib_atomic_lat -A $op" "$port" "$lat_res" \
		ib_atomic_lat -F -d "$ibdev" -x "$gid_v2" -A "$op" -n 300
done

