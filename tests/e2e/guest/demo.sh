#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the e2e group demo: the README's demo itself
# (scripts/guest/demo.sh), whose steps print TAP lines, so that what a
# newcomer's first command shows is what make check tests.
exec bash "$ROCX_REPO/scripts/guest/demo.sh"
