# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# virtio: the harness itself, without rocx: two virtio-net guests ping,
# move 16 MiB over TCP (sha256 checked) and run an RC ping-pong over
# Soft-RoCE.
timeout=300
guest virtio virtio.sh
guest virtio virtio.sh
