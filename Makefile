# dm-ssastripe - top-level Makefile
#
#   make              build dm-ssastripe/dm-ssastripe.ko against KDIR,
#                     build/ssatrace/ssatrace and build/ssaload/ssaload
#   make demo         install what is missing, build, run the demo
#   make check        the test suite (host tests + guest kernel suite)
#   make check-full   the test suite with the long matrices
#   make check-compat the kernel suite on a second kernel (Debian 12's
#                     newest 6.12), in its own guest boot
#   make check-debug  the kernel suite on a kernel with KASAN, lockdep,
#                     kmemleak and UBSAN (built once by tools/debug-kernel:
#                     hours the first time)
#   make experiments  the whole experiment catalogue (experiments/*.toml) on
#                     QEMU's instruction clock, into build/experiments
#                     (EXPERIMENTS="NAME ..." for some; hours for all;
#                     JOBS=N: N guests at once, same results, ~3 GiB each),
#                     then publishes them (experiments/results/) and remakes
#                     the Results section of Documentation/experiments.rst
#   make bench        benchmarks against the kernel's own targets
#   make bench-icount the benchmarks under QEMU's instruction clock: a
#                     cost per request, and disk-bound ratios, that repeat
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

.PHONY: all module bootstrap bootstrap-compat bootstrap-debug demo check check-full check-compat check-debug unit lint bench bench-icount clean ssatrace experiments install

all: module ssatrace ssaload

module:
	@kdir=$$(tools/kdir) || exit 1; \
	$(MAKE) -C "$$kdir" M=$(MOD) modules

bootstrap:
	@tools/bootstrap

$(BUILD)/unit/test_layout: tests/unit/test_layout.c tests/unit/kcompat.h tests/unit/tap.h \
		dm-ssastripe/ssa-layout.c dm-ssastripe/ssa-layout.h
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Wno-unused-parameter -Werror -Itests/unit -Idm-ssastripe -o $@ \
		tests/unit/test_layout.c dm-ssastripe/ssa-layout.c

# ssatrace: libbpf CO-RE tool (BPF object -> skeleton -> program)
SSAT := $(BUILD)/ssatrace
$(SSAT)/ssatrace: bpf/ssatrace.bpf.c bpf/vmlinux.h tools/ssatrace/ssatrace.c \
		tools/ssatrace/ssatrace.h tools/ssatrace/outbuf.h tools/ssatrace/record.h dm-ssastripe/ssa-trace-abi.h
	@mkdir -p $(SSAT)
	clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Ibpf -Itools/ssatrace \
		-Idm-ssastripe -c bpf/ssatrace.bpf.c -o $(SSAT)/ssatrace.bpf.o
	bpftool gen skeleton $(SSAT)/ssatrace.bpf.o > $(SSAT)/ssatrace.skel.h
	cc -g -O2 -Wall -Wextra -Wno-unused-parameter -I$(SSAT) -Itools/ssatrace \
		-Idm-ssastripe tools/ssatrace/ssatrace.c -lbpf -lelf -lz -o $@

ssatrace: $(SSAT)/ssatrace

# ssaload: the workload generator (open/closed loop, O_DIRECT, raw AIO)
SSALOAD := $(BUILD)/ssaload/ssaload
$(SSALOAD): tools/ssaload/ssaload.c
	@mkdir -p $(@D)
	gcc -g -O2 -Wall -Wextra -Werror -pthread -o $@ tools/ssaload/ssaload.c -lm

.PHONY: ssaload
ssaload: $(SSALOAD)

# test only: a BPF program that writes over ssastripe_record's buffer
SCRIB := $(BUILD)/tests
$(SCRIB)/scribble: tests/bpf/scribble.bpf.c tests/bpf/scribble.c bpf/vmlinux.h \
		dm-ssastripe/ssa-trace-abi.h
	@mkdir -p $(SCRIB)
	clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Ibpf -Idm-ssastripe \
		-c tests/bpf/scribble.bpf.c -o $(SCRIB)/scribble.bpf.o
	bpftool gen skeleton $(SCRIB)/scribble.bpf.o > $(SCRIB)/scribble.skel.h
	cc -g -O2 -Wall -Wextra -Wno-unused-parameter -I$(SCRIB) \
		tests/bpf/scribble.c -lbpf -lelf -lz -o $@

$(BUILD)/unit/test_disk: tests/unit/test_disk.c tests/unit/kcompat.h tests/unit/tap.h \
		dm-ssastripe/ssa-disk-model.c dm-ssastripe/ssa-disk-model.h
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Werror -Itests/unit -Idm-ssastripe -o $@ \
		tests/unit/test_disk.c dm-ssastripe/ssa-disk-model.c -lm

$(BUILD)/unit/test_ssatrace: tests/unit/test_ssatrace.c tests/unit/tap.h \
		tools/ssatrace/ssatrace.h tools/ssatrace/outbuf.h tools/ssatrace/record.h dm-ssastripe/ssa-trace-abi.h
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Werror -pthread -Itests/unit -Itools/ssatrace -Idm-ssastripe -o $@ \
		tests/unit/test_ssatrace.c

$(BUILD)/unit/test_args: tests/unit/test_args.c tests/unit/kcompat.h tests/unit/tap.h \
		dm-ssastripe/ssa-args.c dm-ssastripe/ssa-args.h
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Werror -Itests/unit -Idm-ssastripe -o $@ \
		tests/unit/test_args.c dm-ssastripe/ssa-args.c

$(BUILD)/unit/test_plan: tests/unit/test_plan.c tests/unit/kcompat.h tests/unit/tap.h \
		dm-ssastripe/ssa-parity-plan.c dm-ssastripe/ssa-parity-plan.h \
		dm-ssastripe/ssa-layout.c dm-ssastripe/ssa-layout.h
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Werror -Itests/unit \
		-Idm-ssastripe -o $@ tests/unit/test_plan.c dm-ssastripe/ssa-parity-plan.c \
		dm-ssastripe/ssa-layout.c

UNIT := $(BUILD)/unit/test_layout $(BUILD)/unit/test_disk $(BUILD)/unit/test_ssatrace \
	$(BUILD)/unit/test_args $(BUILD)/unit/test_plan

unit: $(UNIT)
	@$(BUILD)/unit/test_layout
	@$(BUILD)/unit/test_disk
	@$(BUILD)/unit/test_ssatrace
	@$(BUILD)/unit/test_args
	@$(BUILD)/unit/test_plan

lint: bootstrap
	@tests/lint

demo: bootstrap module $(SSAT)/ssatrace $(SSALOAD)
	@tools/demo

check: bootstrap module $(SSAT)/ssatrace $(SCRIB)/scribble $(UNIT) $(SSALOAD)
	@tests/run-all

check-full: bootstrap module $(SSAT)/ssatrace $(SCRIB)/scribble $(UNIT) $(SSALOAD)
	@SSA_FULL=1 tests/run-all

bootstrap-compat:
	@tools/bootstrap --compat

bootstrap-debug:
	@tools/bootstrap --debug

check-debug: bootstrap-debug $(SSAT)/ssatrace $(SCRIB)/scribble $(SSALOAD)
	@tests/run-debug

check-compat: bootstrap-compat $(SSAT)/ssatrace $(SCRIB)/scribble
	@tests/run-compat

bench: bootstrap module $(SSAT)/ssatrace
	@mkdir -p $(BUILD)/bench
	@bench/models
	@VM_TCG_THREAD=multi $(VM) -a tsc=reliable -o $(BUILD)/bench -- "bench/run && bench/trace-overhead && bench/mirror && bench/parity"

bench-icount: bootstrap module $(SSAT)/ssatrace
	@mkdir -p $(BUILD)/bench-icount
	@$(VM) -i -o $(BUILD)/bench-icount -- \
		"bench/run -r 2 -t 3 -o $(BUILD)/bench-icount/run && bench/trace-overhead -r 2 -t 3 -o $(BUILD)/bench-icount/overhead && bench/mirror -r 2 -t 8 -o $(BUILD)/bench-icount/mirror && bench/parity -r 2 -t 8 -o $(BUILD)/bench-icount/parity && bench/ppl -r 2 -t 8 -o $(BUILD)/bench-icount/ppl"

EXPERIMENTS ?= all
JOBS ?= 1
experiments: bootstrap module $(SSAT)/ssatrace $(SSALOAD)
	@$(TOP)/.venv/bin/python tools/ssa experiment run $(EXPERIMENTS) -j $(JOBS) \
		--out $(BUILD)/experiments; rc=$$?; \
	$(TOP)/.venv/bin/python tools/ssa experiment publish $(BUILD)/experiments && exit $$rc

# make install [PREFIX=/usr/local] [DESTDIR=...]: ssatrace and ssaload in
# PREFIX/bin; the ssa tool in PREFIX/bin with its package in
# PREFIX/lib/dm-ssastripe/pylib (numpy, scipy and matplotlib are the
# system's: apt install python3-numpy python3-scipy python3-matplotlib; or
# pip install . for a venv); the bpftrace scripts in
# PREFIX/share/dm-ssastripe/bpf; the documentation in
# PREFIX/share/doc/dm-ssastripe; the module's sources for DKMS in
# /usr/src/dm-ssastripe-VERSION (then: dkms install dm-ssastripe/VERSION).
PREFIX ?= /usr/local
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dm-ssastripe/dkms.conf)
MODSRC := dm-ssastripe/Kbuild dm-ssastripe/dkms.conf \
	$(filter-out %.mod.c,$(wildcard dm-ssastripe/*.c dm-ssastripe/*.h))
install: $(SSAT)/ssatrace $(SSALOAD)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/dm-ssastripe/pylib/ssa \
		$(DESTDIR)$(PREFIX)/share/dm-ssastripe/bpf $(DESTDIR)$(PREFIX)/share/doc/dm-ssastripe \
		$(DESTDIR)/usr/src/dm-ssastripe-$(VERSION)
	install -m 755 $(SSAT)/ssatrace $(SSALOAD) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 tools/pylib/ssa/*.py $(DESTDIR)$(PREFIX)/lib/dm-ssastripe/pylib/ssa/
	install -m 755 tools/ssa-installed $(DESTDIR)$(PREFIX)/bin/ssa
	install -m 644 bpf/*.bt $(DESTDIR)$(PREFIX)/share/dm-ssastripe/bpf/
	install -m 644 README.md Documentation/*.rst $(DESTDIR)$(PREFIX)/share/doc/dm-ssastripe/
	install -m 644 $(MODSRC) $(DESTDIR)/usr/src/dm-ssastripe-$(VERSION)/

clean:
	@kdir=$$(tools/kdir 2>/dev/null) && $(MAKE) -C "$$kdir" M=$(MOD) clean || true
	rm -rf $(BUILD)
