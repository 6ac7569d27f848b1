#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The switch's forwarding benchmark, host only (no guest): builds
# rocx-switch and tests/switch/bench_fwd.c, then runs it.
#   tests/switch/bench.sh [BENCH_FWD OPTION]...   (see bench_fwd.c)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/tools
make -s -C "$root/tools/rocx-switch" O="$out"
cc -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$root/include" \
	-o "$out/bench_fwd" "$here/bench_fwd.c" -lpthread
exec "$out/bench_fwd" "$out/rocx-switch" "$@"
