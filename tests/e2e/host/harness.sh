# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # out, passed, failed, skipped: run.sh's
#
# The e2e harness on the host, sourced by tests/e2e/run.sh: how a group is
# declared, booted and counted.  A group file, groups/NAME.sh, is sourced
# with these defaults and may set or call:
#   timeout=SEC            wall-clock limit of the group's run (default 300)
#   host_cmd='CMD'         run CMD on the host beside the guests (its
#                          status counts like a guest's; run-guests --host-cmd)
#   capture=1              capture the fabric's traffic to $out/NAME/fabric.pcap
#   timed='OPTS'           run in virtual time: run-guests.sh --timed and
#                          OPTS (e.g. '--link-latency 10000'); rocx NICs
#                          only, on the rocx-switch
#   link=channel           untimed rocx NICs join the rocx-switch by their
#                          fabric channel (run-guests --link channel: the
#                          shared-memory rings) instead of QEMU's netdev;
#                          link=direct: the same, the switch stepping aside
#                          between two NICs (run-guests --link direct)
#   switch='OPTS'          more rocx-switch options (run-guests --switch);
#                          @OUT@ in them is the run's output directory
#   seed=N                 seed of the switch's impairments (default: the
#                          environment's ROCX_SWITCH_SEED, else random); to
#                          impair the fabric, guests use guest/lib/switch_lib.sh
#                          and the group host/switch_ctl.sh as host_cmd
#   guest NIC SCRIPT [NAME=VALUE]...
#                          add a guest with one NIC (rocx or virtio) that
#                          runs tests/e2e/guest/SCRIPT with NAME=VALUE in its
#                          environment; declared order is guest order.  NIC
#                          may name a segment (rocx@a: run-guests.sh) and
#                          carry more run-guests SPEC words after commas
#                          (rocx,rootport=1; virtio@a,nic=virtio@b)
#   checks() { ...; }      host checks once the guests are done, each
#                          `host_check NAME CMD...` or `host_tap CMD...`;
#                          $out/NAME holds the run's output (guest<N>/log,
#                          qemu.log, ...); `again SUB CMD` in checks()
#                          boots the group once more (below)
# With ROCX_GUEST_KERNEL=debug (run.sh --kernel debug) the guests boot the
# debug kernel (but see debug_peers), and every debug guest adds two checks
# of its own: no kernel report on its console or in its dmesg, and an empty
# final kmemleak scan (host/splat_check.sh).  run-guests.sh scales the
# group's timeout.
#
# Results are TAP-style lines, "ok - NAME" or "not ok - NAME", from the
# guests' logs and the host's checks.  A directive counts as TAP says:
# "ok - NAME # SKIP why" is a skip, "not ok - NAME # TODO why" a known
# failure that fails nothing (counted with the skips); everything else is
# a pass or a failure.

rg=scripts/run/run-guests.sh

# guest NIC SCRIPT [NAME=VALUE]... - declare the next guest of the group.
# Guests with a rocx NIC log the model's guest-error reports to qemu.log.
guest() {
	local spec="nic=$1,cmd=tests/e2e/guest/$2" e

	shift 2
	for e in "$@"; do
		spec="$spec,env=$e"
	done
	args+=(--guest "$spec")
	case $spec in
	nic=rocx,* | nic=rocx:* | nic=rocx@*) args+=(--extra "-d guest_errors") ;;
	esac
}

# tally FILE - add FILE's TAP lines to the counts; sets tally_failed to
# the number of FILE's failures alone.
tally() {
	local p s

	s=$(grep -cE '^ok .*# SKIP|^not ok .*# TODO' "$1" 2>/dev/null)
	p=$(grep -E '^ok ' "$1" 2>/dev/null | grep -cv '# SKIP')
	tally_failed=$(grep -E '^not ok ' "$1" 2>/dev/null | grep -cv '# TODO')
	passed=$((passed + ${p:-0})) failed=$((failed + ${tally_failed:-0}))
	skipped=$((skipped + ${s:-0}))
}

# count GROUP RC - add up the TAP lines of every guest of a finished group;
# RC is run-guests.sh's status, a failure of its own if no guest failed.
# The group's failures are told from the suite's so far: after one group
# failed, a later group's failure must still count.
count() {
	local g=$1 rc=$2 d f0=$failed

	for d in "$out/$g"/guest*; do
		[ -d "$d" ] || continue
		grep -E '^(not )?ok ' "$d/log" 2>/dev/null | sed "s|^|$g/$(basename "$d"): |"
		tally "$d/log"
		if [ "$(cat "$d/rc" 2>/dev/null)" != 0 ] && [ "${tally_failed:-0}" -eq 0 ]; then
			echo "$g/$(basename "$d"): not ok - guest ended with rc=$(cat "$d/rc" 2>/dev/null || echo none)"
			tail -n 30 "$d/console.log" 2>/dev/null | sed 's/^/#   /'
			failed=$((failed + 1))
		fi
	done
	if [ "$rc" -ne 0 ] && [ "$failed" -eq "$f0" ]; then
		echo "$g: not ok - run-guests exited $rc"
		failed=$((failed + 1))
	fi
}

# host_check NAME CMD... - a check made on the host after a group.
host_check() {
	local name=$1

	shift
	if "$@"; then
		echo "ok - $name"
		passed=$((passed + 1))
	else
		echo "not ok - $name"
		failed=$((failed + 1))
	fi
}

# model_guest_errors QEMU_LOG... - true if the rocx model reported a guest
# error in any of these logs: rocx-pci.c writes "<device id>: guest error N
# (info 0x...): ..." under -d guest_errors.  Matching that line, not a name,
# keeps the check true to the model whatever id a NIC is given.
model_guest_errors() {
	grep -qE '^[^ ]+: guest error [0-9]+ \(info 0x[0-9a-f]+\): ' "$@"
}

# no_model_guest_errors QEMU_LOG... - the opposite, for host_check.
no_model_guest_errors() {
	! model_guest_errors "$@"
}

# host_tap CMD... - a host check that prints TAP lines of its own, one per
# case it checks (and comments); each line counts as a guest's would.  CMD
# failing without a "not ok" line counts as one failure.
host_tap() {
	local log rc

	log=$(mktemp)
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	tally "$log"
	if [ "$rc" -ne 0 ] && [ "${tally_failed:-0}" -eq 0 ]; then
		echo "not ok - $* exited $rc"
		failed=$((failed + 1))
	fi
	rm -f "$log"
}

# debug_peers - under the debug kernel, a guest with no rocx NIC in a group
# that has a rocx guest keeps Debian's kernel: it is rocx's peer, not what
# is tested.  Soft-RoCE on the debug kernel under TCG stalls for half a
# second at times, longer than the 8 x 67 ms in which ibv_rc_pingpong and
# perftest make a requester see an ACK, and rocx's side then failed with
# "retry counter exceeded" (measured in group rxe, rocx -> rxe, 16 KiB
# and 64 KiB messages).  Groups without rocx (virtio) boot all on it.
debug_peers() {
	local i rocx=0

	for ((i = 0; i < ${#args[@]}; i++)); do
		[ "${args[$i]}" = --guest ] || continue
		case ${args[$((i + 1))]} in *nic=rocx*) rocx=1 ;; esac
	done
	[ "$rocx" = 1 ] || return 0
	for ((i = 0; i < ${#args[@]}; i++)); do
		[ "${args[$i]}" = --guest ] || continue
		case ${args[$((i + 1))]} in
		*nic=rocx*) ;;
		*) args[i + 1]="${args[$((i + 1))]},kernel=debian" ;;
		esac
	done
}

# debug_checks GROUP - the debug kernel's verdict on GROUP's debug guests.
debug_checks() {
	local g=$1 d n sc=tests/e2e/host/splat_check.sh

	for d in "$out/$g"/guest*; do
		[ "$(cat "$d/kernel" 2>/dev/null)" = debug ] || continue
		n=$g/$(basename "$d")
		host_check "$n: debug kernel: no KASAN, lockdep, WARNING, BUG or Oops" \
			"$sc" console "$d/console.log" "$d/dmesg"
		host_check "$n: debug kernel: kmemleak finds no leak" \
			"$sc" kmemleak "$d/kmemleak"
	done
}

# capture_checks GROUP - check the RoCE v2 frames GROUP's guests exchanged
# (headers and ICRC computed independently of the model).
capture_checks() {
	local g=$1 pc=tests/e2e/host/roce_pcap_check.py

	host_check "$g: capture: frames to UDP 4791 decode as RoCE v2" \
		"$pc" decode "$out/$g/fabric.pcap"
	host_check "$g: capture: IPv4, UDP and ICRC of every RoCE v2 frame" \
		"$pc" icrc "$out/$g/fabric.pcap"
	host_check "$g: capture: BTH destination QPs are those the guests used" \
		"$pc" qpn "$out/$g/fabric.pcap" "$out/$g"/guest*/qpns
	# The guests' addresses (scripts/guest/guest_lib.sh rocx_ip).
	host_check "$g: capture: both sides sent SEND, WRITE, READ and ACK packets" \
		"$pc" opcodes "$out/$g/fabric.pcap" 198.18.0.1 198.18.0.2
}

# again SUB HOST_CMD - in a group's checks(): boot its guests once more,
# as declared and with the same seed, into $out/NAME/SUB, with HOST_CMD
# beside them instead of the group's host_cmd; counts their results as
# the first run's are counted (as NAME/SUB).  For a check that compares
# two runs of one scenario (the timed group's determinism test).
again() {
	local sub=$1 hcmd=$2 d=$out/$g/$1 rc o=()

	o=(--timeout "$timeout" --host-cmd "$hcmd")
	[ "$capture" = 1 ] && o+=(--pcap "$d/fabric.pcap")
	[ -n "$switch" ] && o+=(--switch "${switch//@OUT@/$d}")
	[ -n "$seed" ] && o+=(--seed "$seed")
	# shellcheck disable=SC2206 # OPTS are words for run-guests.sh
	[ -n "$timed" ] && o+=(--timed $timed)
	[ -n "$link" ] && o+=(--link "$link")
	echo "--- e2e group $g: again as $g/$sub"
	rm -rf "${d:?}"
	mkdir -p "$d"
	"$rg" --out "$d" "${o[@]}" "${args[@]}" >"$d.log" 2>&1
	rc=$?
	count "$g/$sub" "$rc"
	return "$rc"
}

# run_group NAME - declare group NAME from groups/NAME.sh, boot its guests,
# count their results, then run its host checks.
run_group() {
	local g=$1 t0 rc opts=()
	local args=() timeout=300 host_cmd='' capture=0 switch= timed= link=
	local seed=${ROCX_SWITCH_SEED:-}

	t0=$(date +%s)
	unset -f checks
	# shellcheck source=/dev/null
	. "tests/e2e/groups/$g.sh"
	[ "${ROCX_GUEST_KERNEL:-}" = debug ] && debug_peers
	opts=(--timeout "$timeout")
	[ -n "$host_cmd" ] && opts+=(--host-cmd "$host_cmd")
	[ "$capture" = 1 ] && opts+=(--pcap "$out/$g/fabric.pcap")
	[ -n "$switch" ] && opts+=(--switch "${switch//@OUT@/$out/$g}")
	[ -n "$seed" ] && opts+=(--seed "$seed")
	# shellcheck disable=SC2206 # OPTS are words for run-guests.sh
	[ -n "$timed" ] && opts+=(--timed $timed)
	[ -n "$link" ] && opts+=(--link "$link")
	echo "--- e2e group $g"
	rm -rf "${out:?}/$g"
	"$rg" --out "$out/$g" "${opts[@]}" "${args[@]}" >"$out/$g.log" 2>&1
	rc=$?
	count "$g" "$rc"
	if declare -F checks >/dev/null; then
		checks
	fi
	[ "${ROCX_GUEST_KERNEL:-}" = debug ] && debug_checks "$g"
	echo "--- e2e group $g: $(($(date +%s) - t0)) s"
	return "$rc"
}
