# SPDX-License-Identifier: GPL-2.0
# Make's view of scripts/versions.sh (kept as plain assignments so both parse it).
ROCX_KVER := $(shell . $(dir $(lastword $(MAKEFILE_LIST)))versions.sh && echo $$ROCX_KVER)
ROCX_KVER61 := $(shell . $(dir $(lastword $(MAKEFILE_LIST)))versions.sh && echo $$ROCX_KVER61)
