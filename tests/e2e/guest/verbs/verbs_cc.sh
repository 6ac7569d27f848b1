# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "cc": the port's congestion control parameters, one file
# each under /sys/class/infiniband/$ibdev/ports/1/cc_param (rocx_ib_cc.c,
# mlx5's cc_params names).  The driver keeps no copy: every read is a
# QUERY_CC, every write a SET_CC of that field alone, so a value read
# back is the device's.  Each guest checks its own device: the defaults
# of rocx-device.rst; a set of values scaled for TCG written and read
# back; out-of-range and malformed writes refused with the value kept;
# the defaults written back.
cc=/sys/class/infiniband/$ibdev/ports/1/cc_param

# The spec's defaults, in the files' order.
cc_defaults="np_en=0xff rp_en=0xff np_cnp_dscp=48 np_cnp_prio=6
np_min_time_between_cnps=4 rp_initial_alpha_value=1023 rp_dce_tcp_g=1019
rp_dce_tcp_rtt=1 rp_gd=11 rp_min_dec_fac=50 rp_rate_to_set_on_first_cnp=0
rp_min_rate=1 rp_ai_rate=5 rp_hai_rate=50 rp_time_reset=300
rp_byte_reset=32767 rp_threshold=1 rp_clamp_tgt_rate=0"
# Time constants 100x longer, rates for a few hundred Mb/s, as the
# incast experiments of issue 8 use under TCG.
cc_scaled="np_en=0x08 rp_en=0x0c np_cnp_dscp=46 np_cnp_prio=3
np_min_time_between_cnps=400 rp_initial_alpha_value=512 rp_dce_tcp_g=960
rp_dce_tcp_rtt=100 rp_gd=10 rp_min_dec_fac=20 rp_rate_to_set_on_first_cnp=200
rp_min_rate=10 rp_ai_rate=2 rp_hai_rate=20 rp_time_reset=30000
rp_byte_reset=1048576 rp_threshold=5 rp_clamp_tgt_rate=1"

# cc_check WHAT LIST - every NAME=VALUE of LIST reads back as VALUE.
cc_check() {
	local what=$1 kv name want got bad=0

	for kv in $2; do
		name=${kv%%=*}
		want=${kv#*=}
		got=$(cat "$cc/$name" 2>&1)
		if [ "$got" != "$want" ]; then
			echo "# $name: read $got, want $want"
			bad=1
		fi
	done
	if [ $bad -eq 0 ]; then
		t_ok "cc_param: $what read back from the device"
	else
		t_not_ok "cc_param: $what read back from the device"
	fi
}

# cc_write LIST - write every NAME=VALUE of LIST; the failures are named.
cc_write() {
	local kv name bad=''

	for kv in $1; do
		name=${kv%%=*}
		echo "${kv#*=}" >"$cc/$name" 2>/dev/null || bad="$bad $name"
	done
	[ -z "$bad" ] || { echo "# refused:$bad"; return 1; }
}

# cc_refused NAME VALUE - writing VALUE fails with ERANGE or EINVAL and
# the value stays.
cc_refused() {
	local before after err

	before=$(cat "$cc/$1")
	err=$( (echo "$2" >"$cc/$1") 2>&1)
	after=$(cat "$cc/$1")
	if [ -n "$err" ] && [ "$before" = "$after" ]; then
		t_ok "cc_param: $1=$2 refused (${err##*: }), $after kept"
	else
		t_not_ok "cc_param: $1=$2 (error '$err', $before -> $after)"
	fi
}

t "cc_param: a directory under the ib port" test -d "$cc"
t "cc_param: 18 files" test "$(find "$cc" -maxdepth 1 -type f | wc -l)" -eq 18
cc_check "defaults" "$cc_defaults"
t "cc_param: scaled values written" cc_write "$cc_scaled"
cc_check "scaled values" "$cc_scaled"
cc_refused np_cnp_dscp 64
cc_refused np_cnp_prio 8
cc_refused np_en 0x100
cc_refused rp_initial_alpha_value 1024
cc_refused rp_dce_tcp_rtt 0
cc_refused rp_min_rate 0
cc_refused rp_ai_rate 400001
cc_refused rp_threshold 32
cc_refused rp_clamp_tgt_rate 2
cc_refused rp_gd eleven
cc_refused rp_byte_reset -1
cc_check "scaled values after the refusals" "$cc_scaled"
t "cc_param: defaults written back" cc_write "$cc_defaults"
cc_check "defaults again" "$cc_defaults"
