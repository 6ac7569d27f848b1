# SPDX-License-Identifier: GPL-2.0-or-later
#
# The device model as the host tests and the fuzzers build it (included by
# tests/model/Makefile and tests/fuzz/Makefile; REPO is the checkout).
#
# MODEL_SRCS: the core's files, read from the one list of them, the
# rocx_core_files block of qemu/hw/net/rocx/meson.build.
# MODEL_CFLAGS, MODEL_LIBS: what they compile and link against.  The core
# includes QEMU's own qemu/osdep.h, qemu/bswap.h and net/eth.h, so they
# come from the QEMU source tree that scripts/build/qemu.sh built this
# checkout's QEMU in (build/qemu-system-x86_64 points into its build/
# directory, which holds config-host.h); QEMU's headers need glib.  The
# checkout's include/ comes first: the cached tree's include/rocx is
# whichever checkout overlaid it last.

MODEL := $(REPO)/qemu/hw/net/rocx
MODEL_SRCS := $(addprefix $(MODEL)/,$(shell sed -n \
	"/^rocx_core_files = files(/,/^)/s/[ ',]//gp" $(MODEL)/meson.build | \
	grep '^rocx-.*\.c$$'))
ifeq ($(MODEL_SRCS),)
$(error no rocx_core_files list in $(MODEL)/meson.build)
endif

QEMU_BIN := $(realpath $(REPO)/build/qemu-system-x86_64)
QEMU_SRC := $(firstword $(subst /build/, ,$(QEMU_BIN)))
ifeq ($(wildcard $(QEMU_SRC)/build/config-host.h),)
$(error no QEMU build for this checkout: run scripts/build/qemu.sh first)
endif
QEMU_HOST_ARCH := $(shell uname -m)
MODEL_CFLAGS := -I$(REPO)/include -I$(MODEL) \
	-I$(QEMU_SRC)/include -I$(QEMU_SRC)/build \
	-I$(QEMU_SRC)/host/include/$(QEMU_HOST_ARCH) \
	-I$(QEMU_SRC)/host/include/generic \
	$(shell pkg-config --cflags glib-2.0)
MODEL_LIBS := $(shell pkg-config --libs glib-2.0)
# The QEMU files the core calls into (net_raw_checksum()), from the same
# tree.  Each test build makes objects of them, named $(MODEL_QEMU_OBJS) in
# its build directory: they are written for QEMU's warnings, not for the
# -Wextra the tests hold the model to.
MODEL_QEMU_SRCS := $(QEMU_SRC)/net/checksum.c
MODEL_QEMU_OBJS = $(patsubst $(QEMU_SRC)/%.c,qemu/%.o,$(MODEL_QEMU_SRCS))

# A file added to or dropped from the list rebuilds what links the model.
MODEL_DEPS := $(MODEL)/meson.build $(REPO)/tests/model/model.mk
