# dm-ssastripe - top-level Makefile
#
#   make              build dm-ssastripe/dm-ssastripe.ko against KDIR
#   make demo         install what is missing, build, run the demo
#   make check        the test suite (host tests + guest kernel suite)
#   make check-full   the test suite with the long matrices
#   make bench        benchmarks against the kernel's own targets
#   make lint         checkpatch --strict and sparse on the module
#
# KDIR defaults to the running kernel's build directory when it exists,
# else the newest installed kernel headers (see tools/kdir).
SHELL := /bin/bash
export KDIR
TOP := $(CURDIR)
MOD := $(TOP)/dm-ssastripe
BUILD := $(TOP)/build
VM := $(TOP)/tools/vm

.PHONY: all module bootstrap demo check check-full unit lint bench clean

all: module

module:
	@kdir=$$(tools/kdir) || exit 1; \
	$(MAKE) -C "$$kdir" M=$(MOD) modules

bootstrap:
	@tools/bootstrap

$(BUILD)/unit/test_layout: tests/unit/test_layout.c tests/unit/kcompat.h \
		dm-ssastripe/ssa-layout.c dm-ssastripe/ssa-layout.h
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Werror -Itests/unit -Idm-ssastripe -o $@ \
		tests/unit/test_layout.c dm-ssastripe/ssa-layout.c

unit: $(BUILD)/unit/test_layout
	@$(BUILD)/unit/test_layout

lint: bootstrap
	@tests/lint

demo: bootstrap module
	@$(VM) -- tools/demo

check: bootstrap module $(BUILD)/unit/test_layout
	@tests/run-all

check-full: bootstrap module $(BUILD)/unit/test_layout
	@SSA_FULL=1 tests/run-all

bench: bootstrap module
	@$(VM) -- bench/run

clean:
	@kdir=$$(tools/kdir 2>/dev/null) && $(MAKE) -C "$$kdir" M=$(MOD) clean || true
	rm -rf $(BUILD)
