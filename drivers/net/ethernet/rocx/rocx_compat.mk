# SPDX-License-Identifier: GPL-2.0
#
# Kernel feature probes for rocx_compat.h and rocx_ib_compat.h, included by
# both drivers' Makefiles.  rocx_ib includes rocx.h too (its KUnit tests
# do), so it takes rocx_core's answers as well as its own.
#
# $(call rocx_probe,FILE,NAME) compiles the ROCX_PROBE_NAME block of FILE
# with the flags of the kernel being built for and gives -DROCX_HAVE_NAME
# if it builds.  Callers keep the result in a simply expanded variable:
# ccflags-y is expanded once per object.
rocx_probe = $(call try-run,$(CC) $(NOSTDINC_FLAGS) $(LINUXINCLUDE) \
	-include $(srctree)/include/linux/compiler_types.h $(KBUILD_CPPFLAGS) \
	$(KBUILD_CFLAGS) $(KBUILD_CFLAGS_MODULE) -Werror -DROCX_PROBE_$(2) \
	'-DKBUILD_MODNAME="rocx_probe"' -c $(1) -o "$$TMP",-DROCX_HAVE_$(2))

# The directory of a Makefile's sources, absolute in and out of tree.
rocx_srcdir = $(if $(filter /%,$(src)),$(src),$(srctree)/$(src))

rocx_core_probe_src := $(dir $(lastword $(MAKEFILE_LIST)))rocx_compat_probe.c
rocx_core_probes := NETIF_TXQ_COMPLETED_WAKE ETHTOOL_PUTS PCIM_IOMAP_RANGE \
		    DCBNL_APPTRUST

# Nothing is probed for a clean.
ifeq ($(filter clean,$(MAKECMDGOALS))$(filter %clean,$(MAKECMDGOALS)),)
rocx_core_have := $(foreach p,$(rocx_core_probes),\
	$(call rocx_probe,$(rocx_core_probe_src),$(p)))
endif
