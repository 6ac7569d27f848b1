# SPDX-License-Identifier: GPL-2.0
#
# rocx top-level Makefile.
#
#   make            build rocx_core.ko and rocx_ib.ko out of tree (KDIR)
#   make setup      install packages, build QEMU, rdma-core and everything
#   make demo       two guests: ping, verified TCP transfer, ibv_devinfo
#   make check      every test suite; last line "N passed, N failed, N skipped"
#   make check-debug  every end-to-end group on the debug guest kernel
#   make lint       checkpatch --strict, sparse and W=1 on the driver
#   make bench      benchmarks, one table

include scripts/versions.mk

KDIR ?= /usr/src/linux-headers-$(ROCX_KVER)
BUILD := $(CURDIR)/build

KMAKE = $(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_ROCX_CORE=m CONFIG_INFINIBAND_ROCX=m \
	CONFIG_INFINIBAND_ROCX_KVTEST=m

.PHONY: all modules clean setup demo check check-debug lint bench qemu rdma-core tools

all: modules

modules:
	$(KMAKE) modules
	@mkdir -p $(BUILD)/modules
	@cp drivers/net/ethernet/rocx/rocx_core.ko drivers/infiniband/hw/rocx/rocx_ib.ko \
		drivers/infiniband/hw/rocx/rocx_ib_kvtest.ko $(BUILD)/modules/

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

check:
	scripts/run/check.sh

check-debug:
	tests/e2e/run.sh --kernel debug

lint:
	scripts/run/lint.sh

bench:
	scripts/run/bench.sh
