# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/verbs.sh
# verbs part "wire", run first: the rxe group's script (guest/rxe.sh) with
# rocx on both sides (RC SEND, WRITE and READ, data verified, and
# rocx_verbs_test), whose RoCE frames the host checks in the group's
# capture (groups/verbs.sh).  rxe.sh runs as a program of its own and in
# a shared directory of its own, where its barriers and values cannot
# meet this script's; it finds the port up (roce_up leaves it so).  The
# capture's QPN check holds the frames before rxe.sh's mark to the QPNs
# it records: no part may send before it.
mkdir -p "$ROCX_SHARED/wire"
ROCX_SHARED=$ROCX_SHARED/wire ROCX_INTEROP_PEER_KIND=rocx \
	ROCX_INTEROP_TAG=wire bash "$ROCX_REPO/tests/e2e/guest/rxe.sh"
rc=$?
if [ "$rc" -ne 0 ]; then
	rocx_log "part wire: rxe.sh exited $rc"
	ROCX_FAILED=$((ROCX_FAILED + 1))
fi
