#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script: rdma-core's own test suite (tests/run_tests.py, pyverbs)
# against one RDMA device of this guest: rocx0 (default) or, with
# ROCX_PYVERBS_DEV=rxe, Soft-RoCE on the virtio-net NIC.  The suite runs
# every test on the one device (traffic tests loop back between two QPs of
# it, the rdma_cm tests between two processes), on the port's RoCE v2 GID of
# ROCX_IP, with the self-built libibverbs and provider.
#
# The guest is made what the suite expects of a host, so that no test skips
# for the environment: 2 MiB huge pages reserved (the huge-page MR, ODP and
# parent-domain tests), /dev/shm a tmpfs (multiprocessing's semaphores;
# scripts/guest/init.sh mounts it), rdma_ucm loaded (the rdma_cm tests).
#
# Each test's outcome goes to /rocx-out/pyverbs.results
# (guest/parts/pyverbs_run.py), unittest's verbose report to
# /rocx-out/pyverbs.log; the host compares the results with
# tests/e2e/expect/ (groups/pyverbs.sh, host/pyverbs_expect.py).  The TAP
# lines here are the harness's own checks: the device and environment are
# ready, the suite ran to its end, the kernel logged no warning.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

kind=${ROCX_PYVERBS_DEV:-rocx}
runner=$ROCX_REPO/tests/e2e/guest/parts/pyverbs_run.py
results=$ROCX_OUT/pyverbs.results
log=$ROCX_OUT/pyverbs.log
# Huge pages the suite maps at once: each test takes one or two 2 MiB
# pages per buffer; 32 leave room and cost 64 MiB of the guest's memory.
hugepages=32
hp_sysfs=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
# The whole suite, bounded: under TCG it takes about 20 s on rocx, 40 s on
# rxe (the tests' own CQ polls give up after 10 s each).
suite_s=${ROCX_PYVERBS_TIMEOUT:-240}
# Random test attributes drawn the same way every run (pyverbs_run.py);
# ROCX_PYVERBS_SEED=N draws others.
seed=${ROCX_PYVERBS_SEED:-1}
export PYTHONHASHSEED=0

if [ ! -r "$ROCX_RDMA/bin/run_tests.py" ] || [ ! -d "$ROCX_RDMA/python/pyverbs" ]; then
	t_not_ok "pyverbs: rdma-core built with pyverbs ($ROCX_RDMA; scripts/build/rdma-core.sh)"
	t_done
fi

# shellcheck disable=SC2317 # these two are called through t
reserve_hugepages() {
	echo "$hugepages" >"$hp_sysfs" && [ "$(cat "$hp_sysfs")" -ge "$hugepages" ]
}

# shellcheck disable=SC2317
shm_ready() {
	grep -q '^tmpfs /dev/shm ' /proc/mounts && [ -w /dev/shm ]
}

t "pyverbs: $hugepages huge pages of 2 MiB reserved" reserve_hugepages
t "pyverbs: /dev/shm is a writable tmpfs" shm_ready
t "pyverbs: rdma_ucm loaded (rdma_cm tests)" modprobe rdma_ucm
if roce_up "$kind"; then
	t_ok "pyverbs: $kind $ROCE_DEV up on $ROCE_NETDEV, RoCE v2 GID index $ROCE_GID"
else
	t_not_ok "pyverbs: $kind device up with a RoCE v2 GID: $ROCE_ERR"
	t_done
fi

rocx_log "running rdma-core's tests/run_tests.py on $ROCE_DEV (log: $log)"
t0=$(date +%s)
timeout "$suite_s" python3 "$runner" --seed="$seed" "$ROCX_RDMA" "$results" \
	--dev "$ROCE_DEV" --port 1 --gid "$ROCE_GID" -v >"$log" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
tail -n 3 "$log" | sed 's/^/# /'
# run_tests.py exits 1 when any test failed or erred: whether those were
# expected is the host's verdict.  Not finishing is this script's.
if [ "$rc" -le 1 ] && grep -q '^# ran [0-9]* tests' "$results"; then
	t_ok "pyverbs: run_tests.py ran to its end ($(grep -o 'ran [0-9]* tests' "$results") in ${secs} s)"
else
	t_not_ok "pyverbs: run_tests.py ran to its end (exit $rc after ${secs} s; last: $(tail -n 1 "$results" | cut -f 1))"
fi
free -m | sed 's/^/# /'
t "pyverbs: dmesg free of warnings" dmesg_clean
t_done
