#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of a rocx guest, started by the initramfs in the overlay of the
# host's root.  Sets the guest up, runs the test script named by rocx_cmd=
# with its output in /rocx-out/log and on the console, stores its exit
# status in /rocx-out/rc and powers off.
#
# Kernel command-line words it reads (run-guests.sh sets them):
#   rocx_cmd=PATH     script to run (required)
#   rocx_guest=N      guest index, 0-based (default 0)
#   rocx_nguests=N    guests in this run (default 1)
#   rocx_repo=DIR     repository, the script's working directory
#   rocx_kmods=DIR    /lib/modules/$(uname -r) for a kernel the host has no
#                     modules directory for (the debug kernel's, with its
#                     modules.builtin: modprobe of a built-in driver works)
#   rocx_stay=1       a lab's guest (Documentation/lab.rst): once the script
#                     succeeds, write /rocx-out/ready and stay up until the
#                     host ends the guest
# Under a kernel with kmemleak, leaks found after boot and before the script
# ends are written to /rocx-out/kmemleak (empty: none).
# The script sees ROCX_GUEST_INDEX, ROCX_NGUESTS, ROCX_IP (198.18.0.<N+1>),
# ROCX_OUT=/rocx-out, ROCX_SHARED=/rocx-shared and ROCX_REPO.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

poweroff_now() {
	sync
	busybox poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 10
}

# Not "mountpoint": in the overlay, /proc and /sys are the host's directories
# seen over 9p and may look like mount points.  The initramfs hands over
# /dev only.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
grep -q '^[^ ]* /dev ' /proc/mounts || mount -t devtmpfs devtmpfs /dev
# What udev would add: process substitution needs /dev/fd.
ln -sfn /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# The repository may live under a directory the guest covers with a tmpfs
# (a CI clone in /tmp): keep it visible at the same path.
repo_dir=${rocx_repo:-/}
case $repo_dir in
/tmp/* | /run/*)
	mkdir -p /mnt/rocx-repo
	mount --bind "$repo_dir" /mnt/rocx-repo
	;;
esac
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /run
if grep -q ' /mnt/rocx-repo ' /proc/mounts; then
	mkdir -p "$repo_dir"
	mount --move /mnt/rocx-repo "$repo_dir"
fi
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# DMA-API debug prints only the first error of a boot unless all_errors
# is set; tests/e2e/host/splat_check.sh excuses one kind of report, which
# must not hide the errors after it.
dma_api=/sys/kernel/debug/dma-api/all_errors
[ -w "$dma_api" ] && echo 1 >"$dma_api"
mount -t configfs configfs /sys/kernel/config 2>/dev/null
if [ -n "${rocx_kmods:-}" ] && [ ! -e "/lib/modules/$(uname -r)" ]; then
	mkdir -p /lib/modules
	ln -s "$rocx_kmods" "/lib/modules/$(uname -r)"
fi

# The debug kernel scans only when asked (no automatic scan).  Boot leaves
# no unreferenced object there, so whatever a scan at the end reports
# leaked after boot.
kmemleak=/sys/kernel/debug/kmemleak

idx=${rocx_guest:-0}
export ROCX_GUEST_INDEX=$idx
export ROCX_NGUESTS=${rocx_nguests:-1}
export ROCX_IP=198.18.0.$((idx + 1))
export ROCX_OUT=/rocx-out ROCX_SHARED=/rocx-shared
export ROCX_REPO=${rocx_repo:-/}
# This checkout's provider, not the shared build's (scripts/build/rdma-core.sh).
for so in "$ROCX_REPO"/build/rdma-prov/librocx-rdmav*.so; do
	[ -f "$so" ] && export RDMAV_DRIVERS=${so%-rdmav*.so}
done
hostname "guest$idx"
ip link set lo up

read -r up _ </proc/uptime
echo "$up" >"$ROCX_OUT/boot_seconds" 2>/dev/null
echo "guest$idx: up after ${up}s, running ${rocx_cmd:-<none>}"

rc=127
if [ -z "${rocx_cmd:-}" ]; then
	echo "guest$idx: no rocx_cmd= on the kernel command line"
elif [ ! -x "$rocx_cmd" ]; then
	echo "guest$idx: $rocx_cmd is not executable"
else
	cd "$ROCX_REPO" || cd /
	# Not a pipeline: a daemon the script leaves running would hold the
	# pipe open and keep "| tee" waiting for ever.
	exec 3> >(tee "$ROCX_OUT/log")
	tee_pid=$!
	"$rocx_cmd" </dev/null >&3 2>&1
	rc=$?
	exec 3>&-
	for ((i = 0; i < 20; i++)); do
		kill -0 "$tee_pid" 2>/dev/null || break
		sleep 0.1
	done
fi

echo "guest$idx: exit status $rc"
if [ "$rc" = 0 ] && [ "${rocx_stay:-}" = 1 ]; then
	: >"$ROCX_OUT/ready"
	echo "guest$idx: up"
	# As PID 1, bash's wait also reaps the orphans that commands run
	# through the guest agent leave behind.
	while :; do
		sleep 3600 &
		wait
	done
fi
# Tell the other guests not to wait for this one (see guest_lib.sh).
[ "$rc" = 0 ] || : >"$ROCX_SHARED/failed.$idx" 2>/dev/null
if [ -w "$kmemleak" ]; then
	# Twice: an object is reported once a scan finds it unreferenced with
	# the contents the scan before saw, and the first scan has none to
	# compare with.
	echo scan >"$kmemleak" && echo scan >"$kmemleak"
	cat "$kmemleak" >"$ROCX_OUT/kmemleak.tmp"
	mv "$ROCX_OUT/kmemleak.tmp" "$ROCX_OUT/kmemleak"
	if [ -s "$ROCX_OUT/kmemleak" ]; then
		echo "guest$idx: kmemleak reports unreferenced objects:"
		cat "$ROCX_OUT/kmemleak"
	fi
fi
dmesg >"$ROCX_OUT/dmesg" 2>/dev/null
echo "$rc" >"$ROCX_OUT/rc.tmp" && mv "$ROCX_OUT/rc.tmp" "$ROCX_OUT/rc"
poweroff_now
