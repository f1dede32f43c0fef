# SPDX-License-Identifier: GPL-2.0-or-later
# rtlab: one non-recursive Makefile.
#
#   make deps      install the Debian packages rtlab needs (root; quiet when all present),
#                  and the npm tools the tests use into $(BUILD)/node
#   make deps-grade  only what grading needs (compiler, libraries, cmocka, jq), with
#                  the names of this distribution (Debian 12, Ubuntu 24.04)
#   make bench-deps  also what `make bench` needs: rt-tests (cyclictest), time (stress-ng is in deps)
#   make run       deps, build, start the ncurses UI
#   make check     deps, build, every test (unit tests also under ASan+UBSan,
#                  fuzz corpus replay, CLI and TUI tests)
#   make fuzz      build libFuzzer targets with clang (build/fuzz/)
#   make install   PREFIX=/usr/local DESTDIR= (binary, data, man page; the labs'
#                  reference solutions only with WITH_SOLUTIONS=1)
#   make man       regenerate the LAB OPTIONS section of doc/rtlab.1 from the option tables
#   make vm        classroom VM images for the stock, rt and lab kernels and the ARM image
#                  (kernel fcse: versatilepb, cross-compiled) ($(BUILD)/vm/images)
#   make vm-test   build them, boot each under TCG and test inside (tests/vm/)
#   make vm-arm    the ARM image alone; make vm-test-arm: it, tests/vm/arm.t and fcse_live.t alone
#   make kmod      the latency injector module against Debian's 6.1 stock and rt headers
#   make bench     rtlab's latency probe against cyclictest, then against the latency
#                  exercise's loop (root; calls bench-deps), after bench-sim, bench-fcse,
#                  bench-nop, bench-cookie and bench-grade
#   make bench-grade  thirty student folders graded on 2 jobs, idle and beside
#                  stress-ng --cpu 2: wall time, peak memory
#   make bench-sim simulated steps per second of every model in rtlab/sim/ (no root)
#   make bench-fcse the FCSE model's accesses per second beside cachegrind's (no root)
#   make bench-cookie the cookie lab's throughput, uni-directional vs ticket vs greedy,
#                  on two cores with fairness beside each (no root)
#   make bench-nop the nop model's frames per second with 8 nodes; as root, the real
#                  medium with 8 nodes for 30 s and 100 injected faults
#   make class-demo a class of 30 handed in, graded, re-graded, through LibreOffice
#                  and into the decks, timed (scripts/class-demo; minutes; not in check)
#   make V=1       show full commands
#
# `run` and `check` call make again after `deps`, because the library checks
# below can only pass once the packages are installed.

include config.mk

# ---- Toolchain and flags -------------------------------------------------

PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
FUZZ_CC ?= clang
BUILD ?= build

PKGS = ncursesw libtracefs libtraceevent ck libcmark jansson libseccomp
TEST_PKGS = cmocka

# Debian package that provides each pkg-config module.
deb_ncursesw = libncurses-dev
deb_libtracefs = libtracefs-dev
deb_libtraceevent = libtraceevent-dev
deb_ck = libck-dev
deb_libcmark = libcmark-dev
deb_jansson = libjansson-dev
deb_libseccomp = libseccomp-dev
deb_cmocka = libcmocka-dev

WARN = -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wformat=2 \
       -Wno-format-nonliteral
ifeq ($(CI),true)
WARN += -Werror
endif

# -iquote: the hypervisor model's reference policy (rtlab/sim/sim_hypervisor_policy.c) is the
# exercise's reference solution, which includes the exercise's hv_boost.h.
RT_CPPFLAGS = -D_GNU_SOURCE -Irtlab -I$(BUILD)/gen -iquote labs/hypervisor/checks
RT_CFLAGS = -std=gnu11 $(WARN) -MMD -MP -pthread
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# Goals that need no compiler and no libraries (checked before any build).
NOBUILD_GOALS = deps deps-grade bench-deps clean uninstall run check help vm-test vm-test-arm \
	bench kmod bench-grade
ifneq ($(filter-out $(NOBUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
  missing = $(foreach p,$(1),$(if $(shell $(PKG_CONFIG) --exists $(p) 2>/dev/null && echo y),,$(p)))
  MISSING := $(strip $(call missing,$(PKGS)))
  ifneq ($(MISSING),)
    $(error missing libraries: $(MISSING). Install the Debian packages \
      $(foreach p,$(MISSING),$(deb_$(p))) (as root: make deps))
  endif
  PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
  PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS))
  MISSING_TEST := $(strip $(call missing,$(TEST_PKGS)))
  ifeq ($(MISSING_TEST),)
    TEST_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka)
    TEST_LIBS := $(shell $(PKG_CONFIG) --libs cmocka)
  else ifneq ($(filter check-only test unit fuzz-replay %/tests/%,$(MAKECMDGOALS)),)
    $(error cmocka is missing, so the tests cannot be built. Install the Debian \
      package $(deb_cmocka) (as root: make deps))
  endif
endif

ifeq ($(V),1)
  Q =
  say = @true
else
  Q = @
  say = @printf '  %-7s %s\n'
endif

# ---- Sources --------------------------------------------------------------

# Everything but the front ends builds into librtlab.a; tests link only that.
LIB_SRCS := $(sort $(wildcard rtlab/core/*.c rtlab/doctor/*.c rtlab/labs/*.c \
	rtlab/trace/*.c rtlab/sim/*.c rtlab/grade/*.c rtlab/lesson/*.c rtlab/qemu/*.c rtlab/vm/*.c \
	rtlab/report/*.c rtlab/run/*.c))
APP_SRCS := rtlab/main.c $(sort $(wildcard rtlab/cli/*.c rtlab/ui/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_HELPERS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
APP_OBJS := $(APP_SRCS:%.c=$(BUILD)/obj/%.o)
SAN_LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/san/obj/%.o)
HELPER_OBJS := $(UNIT_HELPERS:%.c=$(BUILD)/obj/%.o)
SAN_HELPER_OBJS := $(UNIT_HELPERS:%.c=$(BUILD)/san/obj/%.o)

UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
SAN_UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/san/tests/%)
REPLAY_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/san/fuzz/%)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)

RTLAB := $(BUILD)/rtlab
# The FCSE lab's trace tool: convert, info, sim, bench (tools/fcse-trace.c);
# installed as rtlab-fcse-trace.
FCSE_TRACE := $(BUILD)/fcse-trace
# The FCSE check on an emulated ARM926EJ-S (tests/arm/, run by tests/cli/fcse_arm.t),
# built when the cross compiler is there (make deps installs gcc-arm-none-eabi).
ARM_CC ?= arm-none-eabi-gcc
FCSE_ARM := $(if $(shell command -v $(ARM_CC) 2>/dev/null),$(BUILD)/arm/fcse_mva.elf)

# ---- Build ----------------------------------------------------------------

.PHONY: FORCE all deps deps-grade run check check-only test unit fuzz fuzz-replay cli-test install \
	uninstall clean help bench bench-deps bench-sim bench-fcse bench-nop bench-cookie bench-grade \
	class-demo
.DEFAULT_GOAL := all
# Keep object files of tests and fuzz targets between runs.
.SECONDARY:

all: $(RTLAB) $(FCSE_TRACE) $(FCSE_ARM)

# Install paths compiled in; rewritten only when PREFIX/DATADIR change, so
# `make install PREFIX=/usr` rebuilds what depends on them.
CONFIG_H = $(BUILD)/gen/rt_config.h
$(CONFIG_H): FORCE
	@mkdir -p $(@D)
	@printf '/* generated by make */\n#define RTLAB_DATADIR "%s"\n' '$(DATADIR)' > $@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi
$(BUILD)/obj/rtlab/core/rt_paths.o $(BUILD)/san/obj/rtlab/core/rt_paths.o: $(CONFIG_H)
FORCE:

$(BUILD)/obj/%.o: %.c
	$(say) CC $<
	@mkdir -p $(@D)
	$(Q)$(CC) $(RT_CPPFLAGS) $(CPPFLAGS) $(RT_CFLAGS) $(PKG_CFLAGS) $(TEST_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/san/obj/%.o: %.c
	$(say) CC-SAN $<
	@mkdir -p $(@D)
	$(Q)$(CC) $(RT_CPPFLAGS) $(CPPFLAGS) $(RT_CFLAGS) $(PKG_CFLAGS) $(TEST_CFLAGS) \
		-O1 -g $(SAN_FLAGS) -c -o $@ $<

$(BUILD)/librtlab.a: $(LIB_OBJS)
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/san/librtlab.a: $(SAN_LIB_OBJS)
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(RTLAB): $(APP_OBJS) $(BUILD)/librtlab.a
	$(say) LD $@
	$(Q)$(CC) $(RT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

ARM_CFLAGS = -mcpu=arm926ej-s -marm -O2 -ffreestanding -nostdlib -nostartfiles -Wall -Wextra
$(BUILD)/arm/fcse_mva.elf: tests/arm/start.S tests/arm/fcse_mva.c tests/arm/fcse.ld
	$(say) ARM-CC $@
	@mkdir -p $(@D)
	$(Q)$(ARM_CC) $(ARM_CFLAGS) -T tests/arm/fcse.ld -o $@ tests/arm/start.S tests/arm/fcse_mva.c

$(FCSE_TRACE): $(BUILD)/obj/tools/fcse-trace.o $(BUILD)/librtlab.a
	$(say) LD $@
	$(Q)$(CC) $(RT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# Test tools the shell tests run (not installed): tests/tools/NAME.c -> build/tests/tools/NAME.
TEST_TOOLS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(wildcard tests/tools/*.c))
$(BUILD)/tests/tools/%: $(BUILD)/obj/tests/tools/%.o $(BUILD)/librtlab.a
	$(say) LD $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(RT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# The ARM image's workload program (vm/arm/fcse-work.c) built for the host: tests run its
# logic against a fixture in /proc/fcse's format (tests/cli/fcse_live.t).
FCSE_WORK_HOST := $(BUILD)/tests/tools/rtlab-fcse-work
$(FCSE_WORK_HOST): vm/arm/fcse-work.c
	$(say) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $<

# A test's extra link flags (e.g. -Wl,--wrap=...) go in LDFLAGS_<test name>.
LDFLAGS_test_rt_hist = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
LDFLAGS_test_lab_common = -Wl,--wrap=renameat2
LDFLAGS_test_rt_child = -Wl,--wrap=pidfd_open
$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(HELPER_OBJS) $(BUILD)/librtlab.a
	$(say) LD $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(RT_CFLAGS) $(CFLAGS) $(LDFLAGS) $(LDFLAGS_$*) -o $@ $^ \
		$(TEST_LIBS) $(PKG_LIBS) -lm

$(BUILD)/san/tests/%: $(BUILD)/san/obj/tests/unit/%.o $(SAN_HELPER_OBJS) $(BUILD)/san/librtlab.a
	$(say) LD-SAN $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(RT_CFLAGS) $(SAN_FLAGS) $(LDFLAGS) $(LDFLAGS_$*) -o $@ $^ \
		$(TEST_LIBS) $(PKG_LIBS) -lm

# Fuzz targets: a replay main() under ASan+UBSan with gcc for `make check`...
$(BUILD)/san/fuzz/%: $(BUILD)/san/obj/tests/fuzz/%.o $(BUILD)/san/obj/tests/fuzz/replay.o \
		$(BUILD)/san/librtlab.a
	$(say) LD-SAN $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(RT_CFLAGS) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# ...and real libFuzzer binaries with clang for `make fuzz`.
FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer -g -O1
$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB_SRCS)
	$(say) FUZZ $@
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(RT_CPPFLAGS) -std=gnu11 -pthread $(PKG_CFLAGS) $(FUZZ_FLAGS) \
		-o $@ $^ $(PKG_LIBS) -lm

# ---- Tests ----------------------------------------------------------------

check:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory check-only

check-only test: layers unit fuzz-replay lint-lessons lint-slides sim-purity mutants cli-test

# The exercises' checks measured like a test suite: every wrong solution in
# labs/*/mutants must fail the check it names while the reference keeps
# 100 % (scripts/grade-mutants prints the table per lab).
.PHONY: mutants
mutants: $(RTLAB)
	$(Q)RTLAB_DATADIR=$(CURDIR) scripts/grade-mutants $(RTLAB)

# No folder of rtlab/ includes one of a higher layer (doc/architecture.md).
.PHONY: layers
layers:
	$(Q)scripts/check-layers $(CURDIR)

unit: $(UNIT_BINS) $(SAN_UNIT_BINS)
	$(Q)scripts/run-tests unit $(UNIT_BINS)
	$(Q)scripts/run-tests unit-asan-ubsan $(SAN_UNIT_BINS)

fuzz-replay: $(REPLAY_BINS)
	$(Q)for f in $(REPLAY_BINS); do \
		n=$${f##*/}; n=$${n#fuzz_}; \
		$$f tests/fuzz/corpus/$$n || exit 1; \
	done

# The simulators keep doc/sim.md's contract: no mutable global or static
# data, and no call that does I/O, reads a clock or draws from rand().
.PHONY: sim-purity
sim-purity: $(filter $(BUILD)/obj/rtlab/sim/%,$(LIB_OBJS))
	$(Q)scripts/sim-purity $^

# Every shipped lesson must be well formed (lessons/FORMAT.md); problems print as file:line.
.PHONY: lint-lessons
lint-lessons: $(RTLAB)
	$(Q)$(RTLAB) lesson lint lessons

# Every shipped deck too (slides/FORMAT.md), each slide fitting 80x24.
.PHONY: lint-slides
lint-slides: $(RTLAB)
	$(Q)$(RTLAB) slides lint slides

cli-test: $(RTLAB) $(FCSE_TRACE) $(FCSE_ARM) $(TEST_TOOLS) $(FCSE_WORK_HOST)
	$(Q)RTLAB=$(abspath $(RTLAB)) SRCDIR=$(CURDIR) TOOLS=$(abspath $(BUILD)/tests/tools) \
		ACTION_VALIDATOR=$(abspath $(ACTION_VALIDATOR)) scripts/cli-tests

fuzz: $(FUZZ_BINS)
	@echo "libFuzzer targets are in $(BUILD)/fuzz; run e.g.:"
	@echo "  $(BUILD)/fuzz/fuzz_result -max_total_time=60 tests/fuzz/corpus/result"

# ---- Deps, run, install ---------------------------------------------------

# The GitHub workflow validator tests/cli/ci.t runs on what `rtlab ci github`
# writes, installed by npm into $(BUILD)/node (nothing system-wide).
NODE_TOOLS = @action-validator/cli@0.6.0
ACTION_VALIDATOR = $(BUILD)/node/node_modules/.bin/action-validator

deps:
	$(Q)scripts/deps.sh
	$(Q)scripts/deps-node.sh $(BUILD)/node $(NODE_TOOLS)

# Only what grading needs, for CI runners and the grading image (Containerfile).
deps-grade:
	$(Q)scripts/deps.sh grade

run:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(RTLAB)

DATA_DIRS = lessons labs slides vm kernel-patches

# The labs' reference solutions (labs/*/reference) and the wrong solutions that
# measure the checks (labs/*/mutants, each one change away from the reference)
# are for teachers: a learner's installation leaves them out unless
# WITH_SOLUTIONS=1 (doc/grading.md).
WITH_SOLUTIONS ?= 0

install: $(RTLAB) $(FCSE_TRACE) $(FCSE_ARM)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(RTLAB) $(DESTDIR)$(BINDIR)/rtlab
	install -m 0755 $(FCSE_TRACE) $(DESTDIR)$(BINDIR)/rtlab-fcse-trace
	for d in $(DATA_DIRS); do \
		rm -rf $(DESTDIR)$(DATADIR)/$$d; \
		cp -RL $$d $(DESTDIR)$(DATADIR)/$$d || exit 1; \
		chmod -R u=rwX,go=rX $(DESTDIR)$(DATADIR)/$$d; \
	done
	[ "$(WITH_SOLUTIONS)" = 1 ] || find $(DESTDIR)$(DATADIR)/labs -mindepth 2 -maxdepth 2 \
		-type d \( -name reference -o -name mutants \) -exec rm -rf {} +
	install -m 0644 doc/rtlab.1 $(DESTDIR)$(MANDIR)/man1/rtlab.1

# The JSON Schemas under doc/schema/ come from the key tables the code declares
# (rtlab schema); the CLI test tests/cli/schema.t fails when one is stale.
.PHONY: schemas
schemas: $(RTLAB)
	$(Q)scripts/schemas $(RTLAB) doc/schema

# The labs' options in the man page come from their tables (rtlab/labs/); the
# CLI test tests/cli/lab_opts.t fails when doc/rtlab.1 is behind them.
.PHONY: man
man: $(RTLAB)
	$(Q)scripts/man-lab-options $(RTLAB) doc/rtlab.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/rtlab $(DESTDIR)$(BINDIR)/rtlab-fcse-trace \
		$(DESTDIR)$(MANDIR)/man1/rtlab.1
	for d in $(DATA_DIRS); do rm -rf $(DESTDIR)$(DATADIR)/$$d; done
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	rm -rf $(BUILD)

# ---- Classroom VM and kernels (see kernel-patches/README.md) --------------

# Downloads and the lab kernel build are cached here and reused between builds.
RTLAB_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rtlab/vm-cache
VM_IMAGES = $(BUILD)/vm/images

.PHONY: vm vm-test vm-arm vm-test-arm kmod
vm: $(RTLAB)
	$(Q)RTLAB_CACHE=$(RTLAB_CACHE) WITH_SOLUTIONS=$(WITH_SOLUTIONS) vm/build.sh $(VM_IMAGES) \
		$(RTLAB) stock rt lab fcse

vm-test:
	$(Q)$(MAKE) --no-print-directory vm $(TEST_TOOLS) $(FCSE_WORK_HOST)
	$(Q)RTLAB=$(abspath $(RTLAB)) SRCDIR=$(CURDIR) RTLAB_VM_DIR=$(abspath $(VM_IMAGES)) \
		TOOLS=$(abspath $(BUILD)/tests/tools) prove -v tests/vm/

# The ARM image alone (kernel fcse: versatilepb, cross-compiled), and its test alone.
vm-arm: $(RTLAB)
	$(Q)RTLAB_CACHE=$(RTLAB_CACHE) vm/build.sh $(VM_IMAGES) $(RTLAB) fcse

vm-test-arm:
	$(Q)$(MAKE) --no-print-directory vm-arm
	$(Q)RTLAB=$(abspath $(RTLAB)) SRCDIR=$(CURDIR) RTLAB_VM_DIR=$(abspath $(VM_IMAGES)) \
		TOOLS=$(abspath $(BUILD)/tests/tools) prove -v tests/vm/arm.t tests/vm/fcse_live.t

# The running kernel's headers too, when installed (a Debian host kernel).
kmod:
	$(Q)for f in stock rt; do \
		HEADERS_ONLY=1 kernel-patches/scripts/fetch-debian.sh $$f $(RTLAB_CACHE) \
			$(BUILD)/kmod/$$f || exit 1; \
	done
	$(Q)if [ -d /lib/modules/$$(uname -r)/build ]; then \
		rm -rf $(BUILD)/kmod/host && mkdir -p $(BUILD)/kmod/host && \
		cp kernel-patches/rtlab_inject/rtlab_inject.c kernel-patches/rtlab_inject/Kbuild \
			$(BUILD)/kmod/host/ && \
		$(MAKE) -C /lib/modules/$$(uname -r)/build M=$(abspath $(BUILD))/kmod/host modules; \
	else \
		echo "kmod: no headers for the running kernel $$(uname -r); built for Debian's only"; \
	fi

# Not part of check: rtlab's probe against cyclictest, A B A B (root, a few
# minutes); e.g. make bench BENCH_ARGS="--pairs 3 --duration 10s". Then the
# latency exercise's loop live against rtlab's probe (bench/exercise-latency,
# the reference by default: EXERCISE_BENCH_ARGS="--work DIR" for a learner's
# loop; p99 ratio within 0.5..2). Its tools
# are installed by bench-deps, not by deps, so `make check` stays as light.
BENCH_PKGS = rt-tests time
bench-deps:
	$(Q)RTLAB_DEPS_TARGET=bench-deps RTLAB_DEPS_PKGS="$(BENCH_PKGS)" scripts/deps.sh

bench:
	$(Q)$(MAKE) --no-print-directory bench-deps
	$(Q)$(MAKE) --no-print-directory bench-sim
	$(Q)$(MAKE) --no-print-directory bench-fcse
	$(Q)$(MAKE) --no-print-directory bench-nop
	$(Q)$(MAKE) --no-print-directory bench-cookie
	$(Q)$(MAKE) --no-print-directory bench-grade
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bench/latency-vs-cyclictest $(BENCH_ARGS) $(abspath $(RTLAB))
	$(Q)bench/exercise-latency $(EXERCISE_BENCH_ARGS) $(abspath $(RTLAB))

# The simulators' steps per second, counters-only path against events path
# (bench/sim_bench.c); e.g. make bench-sim SIM_BENCH_ARGS="--model example --seconds 2".
SIM_BENCH := $(BUILD)/bench/sim_bench
$(SIM_BENCH): $(BUILD)/obj/bench/sim_bench.o $(BUILD)/librtlab.a
	$(say) LD $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(RT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

bench-sim: $(SIM_BENCH)
	$(Q)$(SIM_BENCH) $(SIM_BENCH_ARGS)

# The FCSE model's accesses per second (in memory, from its binary trace
# format, the text readers) beside cachegrind's references per second
# (bench/fcse-bench; needs valgrind, which make deps installs).
.PHONY: bench-fcse
bench-fcse: $(FCSE_TRACE)
	$(Q)bench/fcse-bench $(abspath $(BUILD)) $(CURDIR)

# The nop lab: the model's frames per CPU second with 8 nodes, and (root) the
# real medium with 8 nodes, 30 s and 100 faults (bench/nop-bench).
.PHONY: bench-nop
bench-nop: $(SIM_BENCH) $(RTLAB)
	$(Q)RTLAB_DATADIR=$(CURDIR) bench/nop-bench $(abspath $(RTLAB)) $(abspath $(SIM_BENCH))

# The cookie lab's table protocols on two cores, interleaved rounds
# (bench/cookie-bench), e.g. make bench-cookie COOKIE_BENCH_ARGS="5 1".
.PHONY: bench-cookie
bench-cookie: $(RTLAB)
	$(Q)bench/cookie-bench $(abspath $(RTLAB)) $(COOKIE_BENCH_ARGS)

# A class of thirty graded on 2 jobs (target: at most 120 s), e.g.
# make bench-grade GRADE_BENCH_ARGS="--students 30 --jobs 2".
bench-grade:
	$(Q)$(MAKE) --no-print-directory all
	$(Q)RTLAB_DATADIR=$(CURDIR) bench/grade-class $(GRADE_BENCH_ARGS) $(abspath $(RTLAB))
	$(Q)RTLAB_DATADIR=$(CURDIR) bench/grade-class --stress 2 $(GRADE_BENCH_ARGS) $(abspath $(RTLAB))

# doc/teaching.md's class of 30, end to end, into $(BUILD)/class-demo (CLASS_DEMO_OUT=DIR).
class-demo: $(RTLAB)
	$(Q)RTLAB=$(abspath $(RTLAB)) scripts/class-demo $(or $(CLASS_DEMO_OUT),$(BUILD)/class-demo)

help:
	@sed -n '4,/^#$$/s/^# \{0,1\}//p' Makefile

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
