# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# pyverbs: rdma-core's own test suite (tests/run_tests.py) on rocx0 in one
# guest (guest/pyverbs.sh), every test's outcome compared on the host with
# expect/pyverbs.txt (host/pyverbs_expect.py): one line per test, a pass or
# a skip as TAP says, an expected error as a TAP TODO (counted as a skip),
# any difference a failure by the test's name.  With ROCX_PYVERBS_DEV=rxe
# the same suite runs on Soft-RoCE against expect/pyverbs-rxe.txt instead:
# the comparison with a device of more features, not part of make check.
timeout=360
if [ "${ROCX_PYVERBS_DEV:-rocx}" = rxe ]; then
	guest virtio pyverbs.sh ROCX_PYVERBS_DEV=rxe
	pyverbs_expect=tests/e2e/expect/pyverbs-rxe.txt
else
	guest rocx pyverbs.sh
	pyverbs_expect=tests/e2e/expect/pyverbs.txt
fi

checks() {
	host_tap tests/e2e/host/pyverbs_expect.py check "$pyverbs_expect" \
		"$out/pyverbs/guest0/pyverbs.results"
	if [ "${ROCX_PYVERBS_DEV:-rocx}" != rxe ]; then
		host_check "pyverbs: the model logged no guest errors" \
			no_model_guest_errors "$out/pyverbs/guest0/qemu.log"
	fi
}
