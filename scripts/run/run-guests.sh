#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot rocx test guests under TCG, joined by one rocx-switch, and collect
# each guest script's exit status.  The launcher is the Python package
# scripts/run/launcher/ (standard library only); `run-guests.sh --help`
# prints its usage.  Debian's own python3 runs it where there is one: a
# version manager's shim first on PATH costs up to a second per start on
# a loaded machine, and the launcher starts twice (once more inside its
# network namespace).
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$(dirname "$0")/launcher" "$@"
