# SPDX-License-Identifier: GPL-2.0
#
# rocx top-level Makefile.
#
#   make            build rocx_core.ko and rocx_ib.ko out of tree (KDIR)
#   make modules-6.1  the same for Debian 12's own 6.1 kernel (KDIR61), in
#                   build/k61/, into build/modules-6.1/
#   make kvtest     the kverbs group's test module (tests/e2e/kmod), into
#                   build/modules/
#   make setup      install packages, build QEMU, rdma-core and everything
#   make demo       two guests: ping, verified TCP transfer, ibv_devinfo
#   make check      every test suite; last line "N passed, N failed, N skipped"
#   make check-debug  every end-to-end group on the debug guest kernel
#   make check-6.1  the end-to-end suite on Debian 12's 6.1 (part of check)
#   make lint       checkpatch --strict, sparse and W=1 on the driver
#   make bench      benchmarks, one table (about 10 minutes); TIMED=1: rocx
#                   in virtual time, each run twice (about 11 minutes);
#                   the rocx pair on direct rings; LINK=channel or
#                   LINK=netdev puts the switch between them
#   make bench-sweep  what does not fit make bench: more rows, and sweeps
#                   of the requester's window and WQEs in flight (about
#                   45 minutes)
#   make bench-switch  rocx-switch's forwarding alone, host only (about
#                   half a minute; tests/switch/bench_fwd.c)
#   make soak-kverbs  the kverbs group's perftest -R pair ROUNDS times
#                   (default 40) in one boot; not part of check
#   make check-own-kernel KTREE=DIR  a kernel tree of one's own as a lab
#                   node beside one on Debian's; not part of check

include scripts/versions.mk

KDIR ?= /usr/src/linux-headers-$(ROCX_KVER)
BUILD := $(CURDIR)/build

KDIR61 ?= $(if $(ROCX_KVER61),/usr/src/linux-headers-$(ROCX_KVER61))

KMAKE = $(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_ROCX_CORE=m CONFIG_INFINIBAND_ROCX=m

.PHONY: all modules modules-6.1 kvtest clean setup demo demo-lossless check check-debug check-6.1 check-lossless check-determinism check-own-kernel \
	soak-kverbs lint bench bench-sweep bench-switch qemu rdma-core tools

all: modules

modules:
	$(KMAKE) modules
	@mkdir -p $(BUILD)/modules
	@cp drivers/net/ethernet/rocx/rocx_core.ko drivers/infiniband/hw/rocx/rocx_ib.ko \
		$(BUILD)/modules/

# The kverbs group's test module (tests/e2e/kmod), which tests/e2e/run.sh
# builds: a test, so not part of `make`.  In a copy, as modules-6.1 is
# built, so that no objects land beside the test's sources.
KVSRC := $(BUILD)/kmod/src
kvtest:
	@mkdir -p $(KVSRC) $(BUILD)/modules
	@rsync -rc --delete tests/e2e/kmod/ $(KVSRC)/
	$(MAKE) -C $(KDIR) M=$(KVSRC) modules
	@cp $(KVSRC)/rocx_ib_kvtest.ko $(BUILD)/modules/

# In a copy of the sources: objects for one kernel beside the sources
# would be taken for the other's.  Unchanged files keep their mtimes.
K61SRC := $(BUILD)/k61/src
modules-6.1:
	@[ -n "$(KDIR61)" ] && [ -d "$(KDIR61)" ] || { echo "modules-6.1: no" \
		"linux-headers-6.1.0-*-amd64 installed (scripts/install/deps.sh)" >&2; exit 1; }
	@mkdir -p $(K61SRC) $(BUILD)/modules-6.1
	@rsync -rc --delete --exclude-from=.gitignore --include=/Kbuild \
		--include='/drivers/***' --include='/include/***' --exclude='*' ./ $(K61SRC)/
	$(MAKE) -C $(KDIR61) M=$(K61SRC) CONFIG_ROCX_CORE=m CONFIG_INFINIBAND_ROCX=m modules
	@cp $(K61SRC)/drivers/net/ethernet/rocx/rocx_core.ko \
		$(K61SRC)/drivers/infiniband/hw/rocx/rocx_ib.ko $(BUILD)/modules-6.1/

clean:
	$(KMAKE) clean
	rm -rf $(BUILD)

qemu:
	scripts/build/qemu.sh

rdma-core:
	scripts/build/rdma-core.sh

tools:
	$(MAKE) -C tools/rocx-switch BUILD=$(BUILD)/tools

setup:
	scripts/setup.sh

demo:
	scripts/run/demo.sh

# The lossless-Ethernet experiments with their table and plots; TIMED=1:
# the 2-to-1 and the 8-to-1 in virtual time at 25 Gb/s, plotted over
# virtual time.
demo-lossless:
	scripts/run/demo-lossless.sh $(if $(TIMED),--timed)

check:
	scripts/run/check.sh

check-debug:
	tests/e2e/run.sh --kernel debug

check-6.1:
	tests/e2e/run.sh --kernel 6.1

# The lossless-Ethernet experiments on the wall clock (the incast group,
# scaled rates, retries on a loaded host: Documentation/experiments.rst),
# which make check does not run; TIMED=1: the 2-to-1 in virtual time at
# 25 Gb/s (timed-incast), which make check runs among the other groups,
# and the 8-to-1 (timed-incast8, nine guests), which it does not, each
# asserting the DCQCN paper's thresholds, the goal, which make check
# only reports (Documentation/experiments.rst, "The goal").
check-lossless:
	$(if $(TIMED),ROCX_TINCAST_GOAL=1) tests/e2e/run.sh $(if $(TIMED),timed-incast timed-incast8,incast)

# The timed group alone, which make check also runs: two guests in virtual
# time and its determinism test, a second boot beside a spinning process
# and the two runs compared (Documentation/testing.rst, "The timed group's
# determinism test").
check-determinism:
	tests/e2e/run.sh timed

# A kernel tree of one's own under rocx lab, against a node on Debian's
# (tests/lab/own-kernel.sh; Documentation/lab.rst, "Your own kernel").
check-own-kernel:
	@[ -n "$(KTREE)" ] || { echo "check-own-kernel: give KTREE=DIR, a built kernel tree" >&2; exit 2; }
	flock /tmp/rocx-guests.lock tests/lab/own-kernel.sh $(KTREE)

# A soak, for a failure seen once in many runs of make check: perftest's
# ib_send_bw and ib_write_bw with -R (rdma_cm) between two guests, ROUNDS
# rounds in one boot (tests/e2e/groups/soak-kverbs.sh).  About 15 s a
# round under TCG; make check does not run it.
ROUNDS ?= 40
soak-kverbs:
	ROCX_SOAK=$(ROUNDS) tests/e2e/run.sh soak-kverbs

lint:
	scripts/run/lint.sh

bench:
	scripts/run/bench.sh $(if $(TIMED),--timed) $(if $(LINK),--link $(LINK))

bench-sweep:
	scripts/run/bench-sweep.sh

bench-switch:
	tests/switch/bench.sh
