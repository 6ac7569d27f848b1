#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Send one HMP command to a running guest's monitor and print the answer.
#   scripts/run/hmp.sh SOCKET COMMAND...
# e.g. from a run-guests.sh --host-cmd:
#   scripts/run/hmp.sh "$ROCX_MONITOR_1" set_link n0 off
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 SOCKET COMMAND..." >&2; exit 2; }
sock=$1
shift
# QEMU creates the socket a moment after it starts.
for ((i = 0; i < 100; i++)); do
	[ -S "$sock" ] && break
	sleep 0.1
done
# socat waits a second after our end closes so the answer comes back; the
# greeting, the prompt echo and terminal escapes are stripped.
printf '%s\n' "$*" | timeout 10 socat -t 1 - "UNIX-CONNECT:$sock" |
	tr -d '\r' | sed -e '/^QEMU .* monitor/d' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' \
		-e '/^(qemu)/d'
