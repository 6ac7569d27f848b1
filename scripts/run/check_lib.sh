# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # logdir, expect: the caller's
#
# make check's bookkeeping, sourced by scripts/run/check.sh and by its
# self-test (tests/check/selftest.sh): how a suite runs, is timed and is
# held to what tests/suites.expect says it must run.  The caller sets
# logdir and expect, and reads total_p, total_f, total_s and times.

total_p=0 total_f=0 total_s=0
times=()

# clear_env - unset every ROCX_* variable but where the caches live and
# how many jobs builds use: what make check runs must not depend on the
# caller's environment (ROCX_PYVERBS_DEV=rxe, for one, would run
# rdma-core's suite on Soft-RoCE and count it for rocx).
clear_env() {
	local v

	for v in $(compgen -e | grep '^ROCX_'); do
		case $v in
		ROCX_CACHE | ROCX_JOBS) ;;
		*)
			echo "check: ignoring $v=${!v} (make check runs what it always runs)"
			unset "$v"
			;;
		esac
	done
}

# secs S - S seconds as "22m 34s".
secs() {
	echo "$(($1 / 60))m $(($1 % 60))s"
}

# expect_of SUITE FIELD - the suite's expected minimum run (2) or maximum
# skipped (3) from $expect; empty if the suite is not listed.
expect_of() {
	awk -v s="$1" -v f="$2" '$1 == s { print $f }' "$expect"
}

# failures - what failed, a line each, from every suite's log in $logdir:
# its TAP "not ok" lines but known ones (# TODO), other suites' FAIL
# lines and make check's own verdicts, which run_suite adds to the log.
# make check prints them among the lines before its total, because a CI
# log is often read from its tail alone.  At most 30 lines, then how many
# more there were.
failures() {
	local f n=0 line

	for f in "$logdir"/*.log; do
		[ -e "$f" ] || continue
		while IFS= read -r line; do
			n=$((n + 1))
			line=${line#"${line%%[![:space:]]*}"}
			[ "$n" -le 30 ] && echo "  $(basename "$f" .log): $line"
		done < <(grep -E '^[[:space:]]*not ok |: not ok |^FAIL ' "$f" | grep -v '# TODO')
	done
	[ "$n" -gt 30 ] && echo "  ... and $((n - 30)) more"
	return 0
}

# failure_notes - for each failure failures() lists, the comment lines
# ("# ...") its test printed just before it, as they are in the suite's
# log: a test shows there what it saw (a peer's log, the device's
# counters).  CI keeps only the end of make check's output, so this goes
# just above the list, at most 12 lines a failure and 60 in all.  The
# end-to-end suites prefix each guest's lines with "GROUP/guestN: ", so
# the comments are the ones of the failing line's own prefix, from after
# its last line that was not a comment.
failure_notes() {
	local f

	for f in "$logdir"/*.log; do
		[ -e "$f" ] || continue
		awk -v suite="$(basename "$f" .log)" -v max=12 '
		{
			p = ""; rest = $0
			if (match($0, /^[^ #]+: /)) {
				p = substr($0, 1, RLENGTH)
				rest = substr($0, RLENGTH + 1)
			}
			if (rest ~ /^[[:space:]]*#/) {
				n[p]++
				buf[p, n[p] % max] = $0
				next
			}
			if ((rest ~ /(^|[[:space:]]|: )not ok / || rest ~ /^FAIL /) &&
			    rest !~ /# TODO/ && n[p] > 0) {
				print "  " suite ": before " rest
				k = n[p] > max ? n[p] - max + 1 : 1
				if (k > 1)
					print "    (" k - 1 " lines more in the log)"
				for (i = k; i <= n[p]; i++)
					print "    " buf[p, i % max]
			}
			n[p] = 0
		}' "$f"
	done | head -n 60
	return 0
}

# verdict WHY - make check's own finding against the running suite, shown
# and kept in its log for failures().
verdict() {
	echo "$name: not ok - $*" | tee -a "$logdir/$name.log"
}

# run_suite NAME LIMIT CMD... - run one suite under LIMIT seconds (timeout
# kills the suite's whole process group, guests included), hold its
# counts to $expect and add them to the totals.
run_suite() {
	local name=$1 limit=$2 line p f s rc t0 min maxs

	shift 2
	t0=$(date +%s)
	echo "=== $name: $* (limit $(secs "$limit"))"
	timeout -k 30 "$limit" "$@" 2>&1 | tee "$logdir/$name.log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$logdir/$name.log" | tail -n 1)
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		verdict "stopped at its limit of $(secs "$limit")"
	fi
	if [ -z "$line" ]; then
		verdict "no summary line (exit $rc): counted as 1 failed"
		p=0 f=1 s=0
	else
		p=$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
		s=$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$line")
		s=${s:-0}
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			verdict "exited $rc with no failure counted: counted as 1 failed"
			f=1
		fi
	fi
	min=$(expect_of "$name" 2) maxs=$(expect_of "$name" 3)
	if [ -z "$min" ] || [ -z "$maxs" ]; then
		verdict "no expected counts in $expect: counted as 1 failed"
		f=$((f + 1))
	else
		if [ $((p + f + s)) -lt "$min" ]; then
			verdict "ran $((p + f + s)) tests, expected at least $min: counted as 1 failed"
			f=$((f + 1))
		fi
		if [ "$s" -gt "$maxs" ]; then
			verdict "skipped $s tests, expected at most $maxs: counted as 1 failed"
			f=$((f + 1))
		fi
	fi
	t0=$(($(date +%s) - t0))
	times+=("$(printf '%-12s %8s  %s passed, %s failed, %s skipped' "$name" "$(secs "$t0")" "$p" "$f" "$s")")
	echo "=== $name done in ${t0}s: $p passed, $f failed, $s skipped"
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
}
