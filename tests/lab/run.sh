#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# rocx lab end to end (Documentation/lab.rst), in one boot: lab/two-hosts.yaml
# (under a name of its own, so a user's lab of that name is left alone,
# and node b on Debian's 6.1) brought up, commands run on its guests with their output and exit
# status, inspect --json read back (PFC set from the file included), ping
# and a data-checked
# ibv_rc_pingpong between the nodes through exec, a capture of a's port
# during a ping, shell, logs, stats and
# a link taken down and up with ping across it, and down with no
# process, socket or socket directory left.  First, without a guest, a
# lab whose switch refuses its settings: up fails and leaves nothing.
# Boots guests: run it under flock /tmp/rocx-guests.lock as the other
# guest suites.  Last line: "lab: N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
rocx=$repo/scripts/rocx
name=check-lab
sdir=$repo/build/lab/$name
work=$(mktemp -d /tmp/rocx-labtest.XXXXXX)
trap '"$rocx" lab down --name "$name" >/dev/null 2>&1; rm -rf "$work"' EXIT

n=0 bad=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1)) bad=$((bad + 1))
	echo "not ok $n - $1"
}
# is NAME WANT GOT
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$3', want '$2')"; fi
}

# pids_alive PID... - those of PID... still running (zombies are gone).
pids_alive() {
	local p

	for p in "$@"; do
		case $(ps -o stat= -p "$p" 2>/dev/null) in
		"" | Z*) ;;
		*) echo "$p" ;;
		esac
	done
}

# A lab that fails half-way: the switch refuses xon above xoff when it
# starts, after the file passed (the file does not judge values).
sed -e "s/^name: .*/name: $name-bad/" "$repo/lab/two-hosts.yaml" >"$work/bad.yaml"
printf '    prio:\n      3: {pfc: on, xoff: 1000, xon: 2000}\n' >>"$work/bad.yaml"
"$rocx" lab up "$work/bad.yaml" >"$work/bad.out" 2>&1
rc=$?
is "a lab whose switch fails: up exits non-zero" 1 "$rc"
if grep -q "xon" "$work/bad.out"; then
	ok "... and shows the switch's reason"
else
	sed 's/^/# /' "$work/bad.out"
	not_ok "... and shows the switch's reason"
fi
bad_run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"] or "")' \
	"$repo/build/lab/$name-bad/state.json" 2>/dev/null)
is "... leaves no socket directory" "gone" \
	"$([ -n "$bad_run" ] && [ ! -e "$bad_run" ] && echo gone || echo "'$bad_run'")"
is "... and no lab up" "" "$(pgrep -f "lab _supervise $repo/build/lab/$name-bad")"

# a's NIC with PFC on priorities 3 and 5 (set by dcb at up), b's left
# as the driver has it.  b runs Debian's 6.1, whose virtio console is a
# module that only lab.sh loads: every check below runs across the two
# kernels' drivers (the modules are the linux-6.1 suite's, built once).
make -s -C "$repo" modules-6.1 >"$work/m61.out" 2>&1 ||
	{ sed 's/^/# /' "$work/m61.out"; not_ok "make modules-6.1"; }
k61=$(. "$repo/scripts/versions.sh"; echo "$ROCX_KVER61")
sed -e "s/^name: two-hosts/name: $name/" "$repo/lab/two-hosts.yaml" |
	awk '{ print } /198\.18\.0\.1\/24/ { print "        pfc: [3, 5]" }
		/^  b:$/ { print "    kernel: \"6.1\"" }' \
	>"$work/lab.yaml"
t0=$(date +%s)
if "$rocx" lab up "$work/lab.yaml" >"$work/up.out" 2>&1; then
	ok "up: two hosts in $(($(date +%s) - t0)) s"
	sed 's/^/# /' "$work/up.out"
else
	sed 's/^/# /' "$work/up.out"
	not_ok "up"
	echo "lab: $((n - bad)) passed, $bad failed"
	exit 1
fi
state=$sdir/state.json
# What down must end: the supervisor, the switch, the QEMUs.
mapfile -t pids < <(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
print(s["supervisor"]); print(s["switch"])
for p in s["qemu"].values(): print(p)' "$state")
run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"])' "$state")
is "up: supervisor, switch and two QEMUs running" 4 "$(pids_alive "${pids[@]}" | wc -l)"

is "exec: runs on the node named" "a" "$("$rocx" lab exec a -- uname -n)"
is "b runs the kernel its file names (6.1)" "$k61" \
	"$("$rocx" lab exec b -- uname -r)"
"$rocx" lab exec b -- 'echo to-out; echo to-err >&2; exit 7' >"$work/o" 2>"$work/e"
rc=$?
is "exec: a failing command's status comes back" 7 "$rc"
is "exec: its stdout on stdout, stderr on stderr" "to-out/to-err" \
	"$(cat "$work/o")/$(cat "$work/e")"
"$rocx" lab exec a -- 'kill -9 $$'
is "exec: a command killed by SIGKILL exits 137" 137 "$?"
"$rocx" lab exec c -- true 2>"$work/e"
is "exec: an unknown node is refused" 2 "$?"

if "$rocx" lab inspect --json >"$work/inspect.json" 2>"$work/e"; then
	ok "inspect --json"
else
	sed 's/^/# /' "$work/e"
	not_ok "inspect --json"
fi
# Each node: its NIC's netdev, the file's addresses, and the RoCE v2 GID
# of its IPv4 address (::ffff:198.18.0.N), whose index pingpong takes.
summary=$(python3 - "$work/inspect.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for n in doc["nodes"]:
    c = n["nics"][0]
    v2 = [g["index"] for g in c["gids"] if g["type"] == "RoCE v2"
          and g["gid"].startswith("0000:0000:0000:0000:0000:ffff:c612")]
    print(n["name"], c["netdev"] is not None, c["ibdev"], ",".join(c["addresses"]),
          v2[0] if v2 else "none")
PY
)
echo "$summary" | sed 's/^/# /'
is "inspect: nodes, netdevs, ib devices and addresses" \
	"a True rocx0 198.18.0.1/24,fd00::1/64|b True rocx0 198.18.0.2/24,fd00::2/64" \
	"$(echo "$summary" | cut -d' ' -f1-4 | paste -sd'|')"
gid=$(echo "$summary" | awk '$1 == "b" { print $5 }')
is "inspect: an IPv4 RoCE v2 GID on each" "" "$(echo "$summary" | awk '$5 == "none"')"
# PFC as the guests have it (dcb pfc show), not as the file asked.
is "inspect: PFC on 3 and 5 at a's NIC (pfc: [3, 5]), on none at b's" \
	"a 3,5|b " "$(python3 -c '
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    print(n["name"], ",".join(str(p) for p in n["nics"][0]["pfc"]))' \
	"$work/inspect.json" | paste -sd'|')"

"$rocx" lab exec a -- ping -c 3 -i 0.2 -W 5 198.18.0.2 >"$work/o" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$work/o"
is "ping a -> b through exec" 0 "$rc"
"$rocx" lab exec b -- ping -c 3 -i 0.2 -W 5 fd00::1 >"$work/o" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$work/o"
is "ping b -> a over IPv6 through exec" 0 "$rc"

# capture: a's switch port during a ping a -> b, ended by another
# shell's capture --stop; the file holds a's echo requests as the switch
# received them and b's replies as it sent them to a, and no frame that
# a neither sent nor was sent.
cap=$work/a.pcap
"$rocx" lab capture a -w "$cap" >"$work/cap.out" 2>&1 &
capid=$!
listed=no
for _ in $(seq 100); do
	if "$repo/build/tools/rocx-switch" ctl "$run/ctl.sock" capture port=0 2>/dev/null |
		grep -q "file=$cap state=running"; then
		listed=yes
		break
	fi
	sleep 0.1
done
is "capture a: the switch captures a's port" yes "$listed"
"$rocx" lab exec a -- ping -c 3 -i 0.2 -W 5 198.18.0.2 >"$work/o" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$work/o"
is "... during ping a -> b" 0 "$rc"
"$rocx" lab capture a --stop >"$work/capstop.out" 2>&1
rc=$?
sed 's/^/# /' "$work/capstop.out"
is "capture a --stop from another shell, naming the file" "0 yes" \
	"$rc $(grep -q " in $cap\$" "$work/capstop.out" && echo yes || echo no)"
wait "$capid"
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$work/cap.out"
is "... and the capturing shell ends" 0 "$rc"
icmp=$(python3 - "$cap" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
a = bytes.fromhex("525400000000")
off, echo, foreign = 24, [], 0
while off + 16 <= len(data):
    n = struct.unpack("<IIII", data[off:off + 16])[2]
    f = data[off + 16:off + 16 + n]
    off += 16 + n
    # a's: sent by a, or sent to it (a flood of b's is a's too).
    if f[6:12] != a and f[0:6] != a and not f[0] & 1:
        foreign += 1
    # IPv4, ICMP: type, and the addresses it went between.
    if f[12:14] == b"\x08\x00" and f[23] == 1:
        ihl = (f[14] & 15) * 4
        src, dst = f[26:30], f[30:34]
        kind = {8: "request", 0: "reply"}.get(f[14 + ihl], "other")
        echo.append("%s-%d.%d" % (kind, src[3], dst[3]))
print(" ".join(sorted(set(echo))), echo.count("request-1.2"),
      echo.count("reply-2.1"), foreign, off == len(data))
PY
)
echo "# capture: $icmp"
is "capture: a's 3 echo requests to b and b's 3 replies, a whole file" \
	"reply-2.1 request-1.2 3 3 True" \
	"$(echo "$icmp" | awk '{ print $1, $2, $3, $4, $6 }')"
is "capture: no frame that is not a's" 0 "$(echo "$icmp" | awk '{ print $5 }')"
"$rocx" lab capture b --for 1 >"$work/o" 2>&1
rc=$?
sed 's/^/# /' "$work/o"
is "capture b --for 1: stops by itself, its file in the lab's state" \
	"0 yes" "$rc $(grep -q " in $sdir/b.pcap\$" "$work/o" && echo yes || echo no)"

# RC SEND data checked, server on b in the background, the client on a
# retrying until the server listens.
pp="ibv_rc_pingpong -d rocx0 -g $gid -n 100 -s 4096 --chk"
"$rocx" lab exec --timeout 90 b -- "timeout 80 $pp" >"$work/srv" 2>&1 &
srv=$!
cli=1
for _ in 1 2 3 4 5 6 7 8 9 10; do
	sleep 1
	"$rocx" lab exec --timeout 60 a -- "timeout 50 $pp 198.18.0.2" >"$work/cli" 2>&1 &&
		{ cli=0; break; }
	grep -q "Couldn't connect" "$work/cli" || break
done
wait "$srv"
srv_rc=$?
if [ $cli = 0 ] && [ $srv_rc = 0 ]; then
	grep -h "bytes in" "$work/cli" | sed 's/^/# /'
	ok "ibv_rc_pingpong --chk a -> b through exec"
else
	sed 's/^/# server: /' "$work/srv"
	sed 's/^/# client: /' "$work/cli"
	not_ok "ibv_rc_pingpong --chk a -> b through exec (client $cli, server $srv_rc)"
fi

# shell: the console's bash, fed from a pipe (no terminal: it ends once
# the guest is quiet).  The echoed command line holds $(hostname), its
# output the node's name.
printf 'echo shell-on-$(hostname)\n' | "$rocx" lab shell a >"$work/sh" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "shell-on-a" "$work/sh"; then
	ok "shell: a command typed into a's shell runs there"
else
	sed 's/^/# /' "$work/sh"
	not_ok "shell: a command typed into a's shell runs there (exit $rc)"
fi

"$rocx" lab logs b >"$work/logs" 2>&1
# init.sh's "up" alone on its line (the serial console ends lines with
# CR LF), not its earlier "up after Ns, running ...".
is "logs: b's console, its init's last word" 1 \
	"$(grep -cE $'^guest1: up\r?$' "$work/logs")"

# link down: a's port loses every frame (the switch counts them), ping
# fails; up: it goes through again.
lost() {
	"$rocx" lab stats | sed -nE 's/^rocx-switch: port0 .* rx_imp_lost=([0-9]+).*/\1/p'
}
lost0=$(lost)
is "stats: the switch's counters, port0's among them" yes \
	"$([ -n "$lost0" ] && echo yes || echo no)"
"$rocx" lab link a switch down >"$work/o" 2>&1
is "link a switch down" 0 "$?"
"$rocx" lab exec a -- ping -c 2 -i 0.2 -W 1 198.18.0.2 >/dev/null 2>&1
is "... ping a -> b fails" 1 "$?"
is "... and the switch counts what it lost" yes \
	"$(lost1=$(lost); [ "${lost1:-0}" -gt "${lost0:-0}" ] && echo yes || echo "no ($lost0 -> $lost1)")"
"$rocx" lab link b:nic0 switch:1 down >/dev/null 2>&1 &&
	"$rocx" lab link b:nic0 switch:1 up >/dev/null 2>&1
is "link b:nic0 switch:1 down and up" 0 "$?"
"$rocx" lab link a b down >/dev/null 2>&1
is "link: two nodes with no link between them refused" 2 "$?"
"$rocx" lab link switch a up >"$work/o" 2>&1
is "link switch a up" 0 "$?"
"$rocx" lab exec a -- ping -c 3 -i 0.2 -W 5 198.18.0.2 >"$work/o" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$work/o"
is "... ping a -> b again" 0 "$rc"

# down, from a shell that is not up's (a fresh one: no state but the
# lab's files).
t1=$(date +%s)
(cd / && env -i PATH="$PATH" "$rocx" lab down --name "$name") >"$work/down.out" 2>&1
rc=$?
sed 's/^/# /' "$work/down.out"
is "down in $(($(date +%s) - t1)) s" 0 "$rc"
is "down: supervisor, switch and QEMUs gone" "" "$(pids_alive "${pids[@]}")"
is "down: the socket directory removed" gone "$([ -e "$run" ] && echo "$run" || echo gone)"
is "down: no socket left in the state directory" "" "$(find "$sdir" -type s)"
"$rocx" lab exec --name "$name" a -- true 2>/dev/null
is "exec after down fails" 1 "$?"

echo "lab: wall time $(($(date +%s) - t0)) s"
echo "lab: $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
