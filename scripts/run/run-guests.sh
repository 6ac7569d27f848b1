#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot rocx test guests under TCG, joined by one rocx-switch, and collect
# each guest script's exit status.
#
# Usage: run-guests.sh [OPTION]... --guest SPEC [--guest SPEC]...
#
# SPEC is comma-separated KEY=VALUE words:
#   cmd=PATH          script the guest runs (required; absolute, or relative
#                     to the repository); it sees ROCX_GUEST_INDEX, ROCX_IP...
#                     (scripts/guest/init.sh) and may source
#                     scripts/guest/lib.sh for barriers
#   nic=MODEL[:P=V]...  a NIC on the next switch port; repeatable.  MODEL is
#                     virtio (virtio-net-pci), rocx, or any -device model;
#                     P=V are extra device properties, e.g. nic=rocx:foo=1
#   mem=MIB           guest memory (default 1024)
#   rootport=1        put each NIC behind a pcie-root-port of its own (rp<K>,
#                     hot-pluggable, with a bus reset), for device_del and
#                     device_add through the monitor and for resets of the
#                     function; q35 only
#   env=NAME=VALUE    extra kernel command-line word, which reaches the
#                     script's environment (no spaces or commas; no dots in
#                     NAME, or the kernel takes it for a module parameter)
#   kernel=KERNEL     this guest's kernel, as --kernel below
#   nic=MODEL[:P=V]...@SEG
#                     the same NIC on network segment SEG (a name of
#                     lower-case letters and digits) instead of the
#                     rocx-switch: a segment of exactly two NICs is a
#                     point-to-point link, QEMU's standard dgram netdev on
#                     a pair of unix datagram sockets with nothing in
#                     between; a segment of any other size gets a
#                     rocx-switch of its own.  A guest may have NICs on
#                     several segments (a bridge or a router), e.g.
#                       --guest nic=virtio@a,nic=virtio@b,cmd=...
#                       --guest nic=rocx:speed=1000@a,cmd=...
# Guest N's NIC K gets MAC 52:54:00:00:KK:NN (hex, so guest 1's first NIC is
# 52:54:00:00:00:01), device id nic<K> and netdev n<K>, in the order NICs
# are declared; a NIC without @SEG takes the next port of the rocx-switch,
# one on a segment the next port of that segment.  OUT/segments lists
# who is on which segment.  Guests configure addresses themselves; ROCX_IP
# is meant for the first NIC.
#
# Options:
#   --qemu BIN        QEMU binary (default build/qemu-system-x86_64 if built,
#                     else /usr/bin/qemu-system-x86_64)
#   --timeout SEC     wall-clock limit for the whole run (default 300)
#   --out DIR         output directory (default build/guest/runs/<time>-<pid>;
#                     the 20 newest of those are kept)
#   --pcap FILE       capture the switch's traffic (not a segment's)
#   --extra 'ARGS'    more QEMU arguments for the guest declared last (split
#                     on spaces); repeatable
#   --append 'WORDS'  more kernel command-line words for every guest
#   --host-cmd CMD    run CMD (bash -c) on the host while the guests run; its
#                     status counts like a guest's.  It sees ROCX_RUN_OUT,
#                     ROCX_NGUESTS, ROCX_MONITOR_<N> (guest N's HMP monitor
#                     socket; scripts/run/hmp.sh talks to it), ROCX_SWITCH
#                     and ROCX_SWITCH_CTL (the switch's control socket:
#                     "$ROCX_SWITCH" ctl "$ROCX_SWITCH_CTL" show), and
#                     ROCX_SWITCH_CTL_<SEG> for a segment's own switch
#   --impair 'SPEC'   impair the fabric from the start: rocx-switch --impair,
#                     e.g. 'port=all dir=egress loss=1%'; repeatable
#   --switch 'ARGS'   more rocx-switch options (split on spaces), e.g.
#                     '--queue-limit 4096'; repeatable
#   --seed N          seed of the switch's impairments (rocx-switch --seed;
#                     default: random, printed in OUT/switch.log)
#   --machine TYPE    QEMU machine (default q35)
#   --kernel KERNEL   guest kernel: debian (Debian's $ROCX_KVER, as the PVH
#                     vmlinux scripts/build/vmlinux.sh extracts), 6.1
#                     (Debian 12's own $ROCX_KVER61 the same way, with the
#                     rocx modules of `make modules-6.1`), debug (the
#                     debug kernel scripts/build/debug-kernel.sh built, with
#                     the rocx modules built for it), or a file; default
#                     $ROCX_GUEST_KERNEL, else debian
#
# Under the debug kernel (KASAN, lockdep, kmemleak...) guests run slower:
# when any guest boots it, --timeout and every guest's barrier waits
# (ROCX_WAIT) are multiplied by $ROCX_TIME_SCALE (default 3), which the
# guests see too.  A debug guest's console shows warnings (loglevel=5) and
# its init ends with a kmemleak scan, kept in OUT/guest<N>/kmemleak.
# run-guests.sh does not judge those: the e2e harness does
# (tests/e2e/host/splat_check.sh).
#
# Output per guest in OUT/guest<N>/: console.log (serial), log (script
# output), rc, boot_seconds, dmesg, qemu.log, kernel (its --kernel),
# monitor.sock while running.
# OUT/switch.log holds the switch's counters, OUT/switch-<SEG>.log a
# segment switch's; OUT/fabric.txt the sockets' datagram limit in the
# fabric's namespace.  Prints "guest<N>: rc=<rc>"
# per guest and exits 1 if any guest failed or timed out.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/scripts/versions.sh"

# The fabric (switch, QEMUs, host commands) runs in a network namespace of
# its own, where a guest's datagram socket may hold more than Linux's
# default of 10 datagrams (net.unix.max_dgram_qlen): with 10, a receiver
# whose QEMU the host did not run for a millisecond refused the switch's
# next frame, and the bottleneck port of an incast stalled with it while
# its queue grew.  What a port leaves unread at a guest is the switch's to
# bound (rocx-switch's qos backlog=), as a wire bounds what it holds.  The
# namespace has no interface but lo: guests reach nothing else anyway.
# Where unshare is refused (no CAP_SYS_ADMIN) the run stays in the host's
# namespace, with its limit.
fabric_qlen=1024
# exec keeps the PID: only the process unshare ran matches the mark, so
# neither a caller's environment nor a nested run changes the host's own
# setting.
if [ "${ROCX_FABRIC_NETNS:-}" != $$ ]; then
	if unshare --net true 2>/dev/null; then
		exec unshare --net env ROCX_FABRIC_NETNS=$$ bash "$0" "$@"
	fi
	echo "run-guests: no network namespace of its own (unshare --net refused): net.unix.max_dgram_qlen stays $(cat /proc/sys/net/unix/max_dgram_qlen)" >&2
else
	ip link set lo up
	sysctl -qw net.unix.max_dgram_qlen=$fabric_qlen
fi

qemu='' kernel=${ROCX_GUEST_KERNEL:-debian} timeout_s=300 out='' pcap='' machine=q35 host_cmd='' append=''
seed=''
specs=() extras=() switch_opts=()

die() { echo "run-guests: $*" >&2; exit 2; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
secs() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
usage() { sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }

while [ $# -gt 0 ]; do
	case $1 in
	--qemu) qemu=$2; shift ;;
	--timeout) timeout_s=$2; shift ;;
	--out) out=$2; shift ;;
	--pcap) pcap=$2; shift ;;
	--machine) machine=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--append) append="$append $2"; shift ;;
	--host-cmd) host_cmd=$2; shift ;;
	--impair) switch_opts+=(--impair "$2"); shift ;;
	# shellcheck disable=SC2206 # split on purpose
	--switch) switch_opts+=($2); shift ;;
	--seed) seed=$2; shift ;;
	--guest) specs+=("$2"); extras+=(""); shift ;;
	--extra)
		[ ${#specs[@]} -gt 0 ] || die "--extra before any --guest"
		extras[-1]="${extras[-1]} $2"
		shift
		;;
	-h | --help) usage 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
	shift
done
[ ${#specs[@]} -gt 0 ] || usage
[[ $timeout_s =~ ^[0-9]+$ ]] || die "bad --timeout $timeout_s"

if [ -z "$qemu" ]; then
	qemu=/usr/bin/qemu-system-x86_64
	[ -x "$repo/build/qemu-system-x86_64" ] && qemu=$repo/build/qemu-system-x86_64
fi
[ -x "$qemu" ] || die "no QEMU at $qemu"
# kernel_for KERNEL - set kfile, the -kernel of a guest booting KERNEL
# (debian, 6.1, debug or a file), kinitrd, its initramfs, and kwords, the
# command-line words it needs.
debian_kernel='' k61_kernel='' k61_initrd='' any_debug=0
kernel_for() {
	local dbg=$repo/build/debug m61=$repo/build/modules-6.1 stale

	kwords='' kinitrd=$initrd
	case $1 in
	debian | '')
		if [ -z "$debian_kernel" ]; then
			debian_kernel=$(bash "$repo/scripts/build/vmlinux.sh") || die "no kernel"
		fi
		kfile=$debian_kernel
		;;
	6.1)
		[ -n "$ROCX_KVER61" ] ||
			die "no Debian 6.1 kernel installed: run scripts/install/deps.sh"
		[ -s "$m61/rocx_ib.ko" ] || die "no $m61/rocx_ib.ko: run make modules-6.1"
		if [ -z "$k61_kernel" ]; then
			k61_kernel=$(bash "$repo/scripts/build/vmlinux.sh" "$ROCX_KVER61") ||
				die "no kernel $ROCX_KVER61"
			k61_initrd=$(bash "$repo/scripts/build/mkinitramfs.sh" "$ROCX_KVER61") ||
				die "initramfs build for $ROCX_KVER61 failed"
			stale=$(find "$repo/drivers" "$repo/include" -type f \
				\( -name '*.[ch]' -o -name Kconfig -o -name Makefile \) \
				! -name '*.mod.c' -newer "$m61/rocx_ib.ko" -print -quit)
			[ -z "$stale" ] || echo "run-guests: warning: $stale is newer" \
				"than build/modules-6.1: run make modules-6.1" >&2
		fi
		kfile=$k61_kernel kinitrd=$k61_initrd
		kwords=" ROCX_MODDIR=$m61"
		;;
	debug)
		if [ ! -s "$dbg/vmlinux" ] || [ ! -s "$dbg/kernelrelease" ]; then
			die "no debug kernel in $dbg: run scripts/build/debug-kernel.sh"
		fi
		# The modules must be the checkout's: stale ones test old code.
		if [ "$any_debug" = 0 ]; then
			stale=$(find "$repo/drivers" "$repo/include" -type f \
				\( -name '*.[ch]' -o -name Kconfig -o -name Makefile \) \
				! -name '*.mod.c' -newer "$dbg/modules/rocx_ib.ko" -print -quit)
			[ -z "$stale" ] || echo "run-guests: warning: $stale is newer" \
				"than the debug kernel's modules: run scripts/build/debug-kernel.sh" >&2
		fi
		any_debug=1
		kfile=$dbg/vmlinux
		# modprobe finds the built-in drivers through rocx_kmods (init.sh).
		kwords=" loglevel=5 rocx_kmods=$dbg/lib/modules/$(cat "$dbg/kernelrelease")"
		kwords="$kwords ROCX_MODDIR=$dbg/modules"
		;;
	*) kfile=$1 ;;
	esac
	[ -r "$kfile" ] || die "cannot read $kfile"
}
initrd=$(bash "$repo/scripts/build/mkinitramfs.sh") || die "initramfs build failed"
switch=$repo/build/tools/rocx-switch
make -s -C "$repo/tools/rocx-switch" O="$repo/build/tools" >&2 ||
	die "cannot build rocx-switch"

if [ -z "$out" ]; then
	out=$repo/build/guest/runs/$(date +%Y%m%d-%H%M%S)-$$
	# Default output dirs pile up: keep the newest 20.
	find "$repo/build/guest/runs" -mindepth 1 -maxdepth 1 -type d 2>/dev/null |
		sort | head -n -19 | xargs -r rm -rf
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
# What the guests' sockets may hold, as the run saw it (checked by the
# pair group).
echo "max_dgram_qlen=$(cat /proc/sys/net/unix/max_dgram_qlen)" >"$out/fabric.txt"
rm -rf "$out/shared"
mkdir -p "$out/shared"
# Unix socket paths must stay under 108 bytes: keep them in a short dir.
run=$(mktemp -d /tmp/rocx-run.XXXXXX)

pids=() switch_pid='' host_pid='' seg_pids=()
# shellcheck disable=SC2317 # reached through the trap
cleanup() {
	local p

	for p in "${pids[@]}" "$host_pid" "$switch_pid" "${seg_pids[@]}"; do
		[ -n "$p" ] && kill -KILL "$p" 2>/dev/null || true
	done
	rm -rf "$run"
	rm -f "$out"/guest*/monitor.sock
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Segments first: how a NIC on one is wired depends on how many NICs
# share it.
declare -A seg_size seg_next
seg_names=()
nguests=${#specs[@]}
for ((i = 0; i < nguests; i++)); do
	IFS=, read -ra words <<<"${specs[$i]}"
	for w in "${words[@]}"; do
		case $w in
		nic=*@*)
			seg=${w##*@}
			[[ $seg =~ ^[a-z0-9]+$ ]] || die "guest $i: bad segment name '$seg' in $w"
			[ -n "${seg_size[$seg]:-}" ] || seg_names+=("$seg")
			seg_size[$seg]=$((${seg_size[$seg]:-0} + 1))
			seg_next[$seg]=0
			;;
		esac
	done
done
: >"$out/segments"

# Parse the specs into per-guest QEMU arguments; NICs take switch ports in
# order.
port=0
declare -a g_cmd g_kind g_kfile g_initrd g_words launched
for ((i = 0; i < nguests; i++)); do
	cmd='' mem=1024 env_words='' nic=0 nic_args=() rootport=0 gk=$kernel
	IFS=, read -ra words <<<"${specs[$i]}"
	for w in "${words[@]}"; do
		[ "$w" = rootport=1 ] && rootport=1
	done
	for w in "${words[@]}"; do
		case $w in
		cmd=*) cmd=${w#cmd=} ;;
		mem=*) mem=${w#mem=} ;;
		kernel=*) gk=${w#kernel=} ;;
		env=*) env_words="$env_words ${w#env=}" ;;
		rootport=1) ;;
		nic=*)
			spec=${w#nic=} seg=''
			case $spec in *@*) seg=${spec##*@} spec=${spec%@*} ;; esac
			model=${spec%%:*}
			props=''
			[ "$spec" != "$model" ] && props=,${spec#*:} && props=${props//:/,}
			mac=$(printf '52:54:00:00:%02x:%02x' "$nic" "$i")
			case $model in
			virtio) dev="virtio-net-pci,romfile=" ;;
			*) dev=$model ;;
			esac
			if [ -z "$seg" ]; then
				lsock=$run/g$port.sock rsock=$run/sw$port.sock
				port=$((port + 1))
			elif [ "${seg_size[$seg]}" = 2 ]; then
				# A link: each end sends to the other's socket.
				k=${seg_next[$seg]}
				lsock=$run/w-$seg.$k.sock rsock=$run/w-$seg.$((1 - k)).sock
				echo "$seg link guest$i nic$nic" >>"$out/segments"
			else
				k=${seg_next[$seg]}
				mkdir -p "$run/s-$seg"
				lsock=$run/s-$seg/g$k.sock rsock=$run/s-$seg/sw$k.sock
				echo "$seg switch-port$k guest$i nic$nic" >>"$out/segments"
			fi
			[ -n "$seg" ] && seg_next[$seg]=$((seg_next[$seg] + 1))
			nic_args+=(-netdev "dgram,id=n$nic,local.type=unix,local.path=$lsock,remote.type=unix,remote.path=$rsock")
			if [ "$rootport" = 1 ]; then
				nic_args+=(-device "pcie-root-port,id=rp$nic,chassis=$((nic + 1)),slot=$((nic + 1))")
				props=",bus=rp$nic$props"
			fi
			nic_args+=(-device "$dev,id=nic$nic,netdev=n$nic,mac=$mac$props")
			nic=$((nic + 1))
			;;
		*) die "guest $i: unknown word '$w' in --guest" ;;
		esac
	done
	[ -n "$cmd" ] || die "guest $i: no cmd="
	case $cmd in /*) ;; *) cmd=$repo/$cmd ;; esac
	[ -x "$cmd" ] || die "guest $i: $cmd is not executable"
	g_cmd[i]=$cmd
	kernel_for "$gk"
	g_kind[i]=${gk:-debian} g_kfile[i]=$kfile g_initrd[i]=$kinitrd
	g_words[i]="$kwords$env_words"
	read -ra more <<<"${extras[$i]}"
	# Kept NUL-separated in the run dir: bash has no arrays of arrays.
	printf '%s\0' -m "$mem" "${nic_args[@]}" "${more[@]}" >"$run/args$i"
done

# One slow guest slows its peers' barriers too: scale the whole run.  The
# kernel logs these words, and guest checks take a rocx line that says
# "timeout" or "error" for a driver's complaint: no such word in them.
scale_words=''
if [ "$any_debug" = 1 ]; then
	scale=${ROCX_TIME_SCALE:-3}
	[[ $scale =~ ^[1-9][0-9]*$ ]] || die "bad ROCX_TIME_SCALE $scale"
	timeout_s=$((timeout_s * scale))
	# scripts/guest/lib.sh waits 120 s by default.
	scale_words=" ROCX_TIME_SCALE=$scale ROCX_WAIT=$((120 * scale))"
fi
for ((i = 0; i < nguests; i++)); do
	# no_timer_check: the boot-time check that the timer interrupt
	# arrives panics ("IO-APIC + timer doesn't work!") when a TCG vCPU
	# is starved of host CPU for a moment, as on a loaded 2-core machine;
	# the emulated timer works, only its timing is late.
	printf '%s\0' -append \
		"console=ttyS0 panic=-1 loglevel=4 mitigations=off no_timer_check rocx_init=$repo/scripts/guest/init.sh rocx_cmd=${g_cmd[$i]} rocx_guest=$i rocx_nguests=$nguests rocx_repo=$repo$scale_words${g_words[$i]}$append" \
		>>"$run/args$i"
done

# fabric_priority PID - run switch PID ahead of every guest thread.  The
# switch is the fabric's hardware, which no guest can slow: a switch ASIC
# is never descheduled.  At normal priority, on a host whose cores the
# guests' vCPUs keep busy, the kernel left a runnable switch waiting up to
# half a second, so every RC flow through it saw no ACK for that long and
# a QP at the default ACK timeout (14: 67 ms) and retry count (7) ended in
# a retry error (the busy group).  SCHED_FIFO runs it as soon as a frame
# wakes it; it sleeps in epoll_wait in between, and the kernel's real-time
# throttling would leave the guests 5% of each core should it ever spin.
# Without CAP_SYS_NICE it gets nice -10 and, as the only process of its
# session (setsid), an autogroup of its own at -10: a share of the host
# beside the guests' session, not of it.
fabric_priority() {
	chrt -f -p "$rt_prio" "$1" >/dev/null 2>&1 && return 0
	renice -n -10 -p "$1" >/dev/null 2>&1
	[ -w "/proc/$1/autogroup" ] && echo -10 >"/proc/$1/autogroup" 2>/dev/null
	[ -n "${rt_refused:-}" ] ||
		echo "run-guests: chrt -f refused: the switch runs at nice -10, and a busy host can still stall it" >&2
	rt_refused=1
}
rt_prio=10

t0=$(now_ms)
if [ "$port" -gt 0 ]; then
	# A session of its own, for fabric_priority's fallback.  setsid execs
	# in place here (not a process group leader), so $! is the switch.
	setsid "$switch" --dir "$run" --ports "$port" --pidfile "$run/switch.pid" \
		--ctl "$run/ctl.sock" ${seed:+--seed "$seed"} "${switch_opts[@]}" \
		${pcap:+--pcap "$pcap"} </dev/null >"$out/switch.log" 2>&1 &
	switch_pid=$!
	for ((i = 0; i < 50; i++)); do
		[ -s "$run/switch.pid" ] && break
		kill -0 "$switch_pid" 2>/dev/null || die "rocx-switch failed: $(cat "$out/switch.log")"
		sleep 0.1
	done
	[ -s "$run/switch.pid" ] || die "rocx-switch did not start"
	fabric_priority "$switch_pid"
fi

# start_switch DIR PORTS LOG ARGS... - a rocx-switch on DIR's sockets;
# sets started_pid once its ports are bound.
start_switch() {
	local dir=$1 ports=$2 log=$3 i

	shift 3
	"$switch" --dir "$dir" --ports "$ports" --pidfile "$dir/switch.pid" \
		--ctl "$dir/ctl.sock" "$@" </dev/null >"$log" 2>&1 &
	started_pid=$!
	for ((i = 0; i < 50; i++)); do
		[ -s "$dir/switch.pid" ] && { fabric_priority "$started_pid"; return 0; }
		kill -0 "$started_pid" 2>/dev/null || die "rocx-switch failed: $(cat "$log")"
		sleep 0.1
	done
	die "rocx-switch on $dir did not start"
}
for seg in "${seg_names[@]}"; do
	[ "${seg_size[$seg]}" = 2 ] && continue
	start_switch "$run/s-$seg" "${seg_size[$seg]}" "$out/switch-$seg.log" \
		${seed:+--seed "$seed"}
	seg_pids+=("$started_pid")
	export "ROCX_SWITCH_CTL_$seg=$run/s-$seg/ctl.sock"
done

# The firmware directories matter for a self-built QEMU without blobs.
firmware=()
for d in /usr/share/qemu /usr/share/seabios; do
	[ -d "$d" ] && firmware+=(-L "$d")
done

for ((i = 0; i < nguests; i++)); do
	g=$out/guest$i
	rm -rf "$g"
	mkdir -p "$g"
	echo "${g_kind[$i]}" >"$g/kernel"
	ln -s "$run/m$i.sock" "$g/monitor.sock"
	mapfile -d '' -t extra <"$run/args$i"
	"$qemu" -name "guest$i" -machine "$machine" -accel tcg -cpu max -smp 1 \
		-nodefaults -display none -no-reboot "${firmware[@]}" \
		-kernel "${g_kfile[$i]}" -initrd "${g_initrd[$i]}" \
		-serial "file:$g/console.log" \
		-monitor "unix:$run/m$i.sock,server=on,wait=off" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$g,mount_tag=rocxout,security_model=none" \
		-virtfs "local,path=$out/shared,mount_tag=rocxshared,security_model=none" \
		"${extra[@]}" </dev/null >"$g/qemu.log" 2>&1 &
	pids[i]=$!
	launched[i]=$(now_ms)
	export "ROCX_MONITOR_$i=$g/monitor.sock"
done

if [ -n "$host_cmd" ]; then
	ROCX_RUN_OUT=$out ROCX_NGUESTS=$nguests ROCX_REPO=$repo \
		ROCX_SWITCH=$switch ROCX_SWITCH_CTL=$run/ctl.sock bash -c "$host_cmd" \
		</dev/null >"$out/host.log" 2>&1 &
	host_pid=$!
fi

# Wait for every QEMU (and the host command) or the deadline.
deadline=$(($(date +%s) + timeout_s))
declare -a state
while :; do
	alive=0
	for ((i = 0; i < nguests; i++)); do
		[ -z "${state[$i]:-}" ] || continue
		if kill -0 "${pids[$i]}" 2>/dev/null; then
			alive=$((alive + 1))
		else
			if wait "${pids[$i]}" 2>/dev/null; then
				state[i]=exited
			else
				state[i]="qemu-exit-$?"
			fi
			# Peers waiting in a barrier give up at once (lib.sh).
			[ "$(cat "$out/guest$i/rc" 2>/dev/null)" = 0 ] ||
				: >"$out/shared/failed.$i"
			echo "guest$i: qemu exited after $(secs $(($(now_ms) - t0)))s"
		fi
	done
	if [ -n "$host_pid" ] && kill -0 "$host_pid" 2>/dev/null; then
		alive=$((alive + 1))
	fi
	[ "$alive" -eq 0 ] && break
	if [ "$(date +%s)" -ge "$deadline" ]; then
		for ((i = 0; i < nguests; i++)); do
			[ -z "${state[$i]:-}" ] || continue
			state[i]=timeout
			kill -TERM "${pids[$i]}" 2>/dev/null || true
		done
		[ -n "$host_pid" ] && kill -TERM "$host_pid" 2>/dev/null || true
		sleep 2
		for p in "${pids[@]}" "$host_pid"; do
			[ -n "$p" ] && kill -KILL "$p" 2>/dev/null || true
		done
		break
	fi
	sleep 0.2
done
wall=$(secs $(($(now_ms) - t0)))

host_rc=''
if [ -n "$host_pid" ]; then
	wait "$host_pid" 2>/dev/null && host_rc=0 || host_rc=$?
	[ "$host_rc" -ge 128 ] && [ "$(date +%s)" -ge "$deadline" ] && host_rc=timeout
fi

for p in "$switch_pid" "${seg_pids[@]}"; do
	[ -n "$p" ] || continue
	kill -TERM "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
done
switch_pid='' seg_pids=()

fail=0
for ((i = 0; i < nguests; i++)); do
	g=$out/guest$i
	rm -f "$g/monitor.sock"
	if [ "${state[$i]}" = timeout ]; then
		rc=timeout
	elif [ -s "$g/rc" ]; then
		rc=$(cat "$g/rc")
	else
		rc=none
	fi
	# Boot to shell: QEMU's start to guest-init's first write, on the host's
	# clock; the guest kernel's own uptime at that point beside it.
	boot='?'
	if [ -s "$g/boot_seconds" ]; then
		b=$(stat -c %.3Y "$g/boot_seconds")
		boot="$(secs $((${b/./} - launched[i])))s (kernel uptime $(cat "$g/boot_seconds")s)"
	fi
	echo "guest$i: ${g_cmd[$i]#"$repo"/}: ${state[$i]}, boot to shell $boot"
	echo "guest$i: rc=$rc"
	[ "$rc" = 0 ] || fail=1
done
if [ -n "$host_pid" ]; then
	echo "host: rc=$host_rc"
	[ "$host_rc" = 0 ] || fail=1
fi
echo "run-guests: wall ${wall}s, output in $out"
exit "$fail"
