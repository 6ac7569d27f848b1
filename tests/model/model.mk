# SPDX-License-Identifier: GPL-2.0-or-later
#
# The device model as the host tests and the fuzzers build it (included by
# tests/model/Makefile and tests/fuzz/Makefile; REPO is the checkout).
#
# MODEL_SRCS: the core's files, read from the one list of them, the
# rocx_core_files block of qemu/hw/net/rocx/meson.build.

MODEL := $(REPO)/qemu/hw/net/rocx
MODEL_SRCS := $(addprefix $(MODEL)/,$(shell sed -n \
	"/^rocx_core_files = files(/,/^)/s/[ ',]//gp" $(MODEL)/meson.build | \
	grep '^rocx-.*\.c$$'))
ifeq ($(MODEL_SRCS),)
$(error no rocx_core_files list in $(MODEL)/meson.build)
endif
# A file added to or dropped from the list rebuilds what links the model.
MODEL_DEPS := $(MODEL)/meson.build $(REPO)/tests/model/model.mk
