# SPDX-License-Identifier: GPL-2.0
#
# iolat: tracepoints and live eBPF tools for the io.latency controller.
# Run 'make help' for the targets.

BUILD ?= $(CURDIR)/build
# Absolute, and passed to tools/ on its command line (a BUILD= given to
# make reaches sub-makes as given, relative): BUILD=out built into, and
# cleaned, tools/out.
override BUILD := $(abspath $(BUILD))
export BUILD

# The kernel the kernel, check and guest targets work on: 6.1 (the
# default, in build/linux and build/kbuild*) or 6.12 (build/linux-6.12,
# build/kbuild-6.12*); guest/kver.sh has the list.  The tools are built
# once, from 6.1's BTF, and run on both.
KVER ?= 6.1
# The default run's debug kernel is the other version's: KVER_DEBUG's
# (guest/kver.sh), or the default version's when KVER is KVER_DEBUG.
KVER_DEBUG := $(shell sed -n 's/^KVER_DEBUG=//p' guest/kver.sh)
KVER_OTHER := $(if $(filter $(KVER),$(KVER_DEBUG)),$(shell sed -n 's/^KVER_DEFAULT=//p' guest/kver.sh),$(KVER_DEBUG))

.PHONY: help deps kernel kernel-debug kernel-unpatched test-unpatched tree check-patches check-notrace check-series \
	guest tools install uninstall test test-debug test-port test-all demo scenario bench bench-scale bench-db clean distclean

help:
	@echo 'make deps           install the Debian packages the project needs (root)'
	@echo 'make kernel         build the patched guest kernel (build/kbuild)'
	@echo 'make kernel-debug   build it with guest/debug.config (build/kbuild-debug)'
	@echo 'make kernel-unpatched  the same kernel without the series: io.latency, no'
	@echo '                    events (build/kbuild-unpatched), as distributions ship it'
	@echo '   KVER=6.12        ... of linux-source-6.12 (build/kbuild-6.12[-debug]);'
	@echo '                    the kernel, check, test and guest targets take KVER'
	@echo 'make tools          build the BPF tools against the kernel BTF'
	@echo 'make install        install the built tools, man pages, exporter unit, alert'
	@echo '                    rules (PREFIX=/usr/local, DESTDIR=); make uninstall'
	@echo 'make test           every suite on the kernel, the debug subset on'
	@echo '                    $(KVER_OTHER)'"'"'s debug kernel (both built if missing)'
	@echo 'make test-port KVER=6.12  the harness, tracepoints, tools and reliability'
	@echo '                    suites on that kernel (CI'"'"'s second job: .ci/run 6.12)'
	@echo 'make test-unpatched iolat-top and iolat-why on the kernel without the series'
	@echo 'make test-all       the whole matrix, before a change to patches/: make test,'
	@echo '                    the debug subset on $(KVER)-debug, test-port on $(KVER_OTHER),'
	@echo '                    test-unpatched (every kernel built if missing; hours)'
	@echo 'make demo           the demo: boot, run a noisy neighbour, show iolat-top'
	@echo 'make scenario S=N   one scenario of guest/scenarios/ (1-8), recorded, plotted'
	@echo 'make bench          IOPS with no tracing, iolat-top, all events (printed)'
	@echo 'make bench-scale    iolat-top CPU and syscalls per interval, 100-10,000 cgroups'
	@echo 'make bench-db       a database'"'"'s commits beside a bulk writer on ext4, io.latency off/on'
	@echo 'make guest CMD=..   boot the guest and run CMD in it'
	@echo 'make check-patches  checkpatch --strict every patch of patches/$(KVER)/series and the debug kernels'"'"' test-only patches/$(KVER)/debug'
	@echo 'make check-notrace  W=1 without CONFIG_TRACEPOINTS: no warning added; io.latency off: no iolatency event'
	@echo 'make check-series   build the kernel after each patch in turn'
	@echo 'make clean          remove the tools (build/tools); distclean removes build/'
	@echo '                     (the kernel trees too: an hour to build again)'

deps:
	@guest/install-deps

kernel:
	@guest/build-kernel --kver $(KVER)

kernel-debug:
	@guest/build-kernel --kver $(KVER) --variant debug

kernel-unpatched:
	@guest/build-kernel --kver $(KVER) --unpatched

tree:
	@guest/build-kernel --kver $(KVER) --tree-only

check-patches:
	@guest/check-patches --kver $(KVER)

check-notrace:
	@guest/check-notrace --kver $(KVER)

check-series:
	@guest/build-kernel --kver $(KVER) --check-series

guest:
	@test -n "$(CMD)" || { echo 'usage: make guest CMD="command"' >&2; exit 2; }
	@guest/run --kver $(KVER) -- sh -c '$(CMD)'

tools:
	@$(MAKE) -s -C tools BUILD=$(BUILD)
	@$(MAKE) -s -C guest/workloads BUILD=$(BUILD)

# PREFIX and DESTDIR on the command line reach tools/Makefile.
install uninstall:
	@$(MAKE) -s -C tools $@

# Both versions: every suite on KVER's kernel, then a subset on the
# other version's debug kernel.
test: kernel tools
	@guest/build-kernel --kver $(KVER_OTHER) --variant debug
	@tests/run --kver $(KVER)

test-debug: kernel-debug tools
	@tests/run --kver $(KVER) --variant debug

# What checks a port of the series to another kernel (KVER=6.12): the
# suites that rest on the events, the tools and the fixes, on its normal
# kernel; CI's second job (.ci/run 6.12).
test-port: kernel tools
	@tests/run --kver $(KVER) --port

# Both versions, normal, debug and unpatched: six kernels, one summary.
test-all: kernel tools
	@guest/build-kernel --kver $(KVER_OTHER) --variant debug
	@guest/build-kernel --kver $(KVER) --variant debug
	@guest/build-kernel --kver $(KVER_OTHER)
	@guest/build-kernel --kver $(KVER) --unpatched
	@tests/run --kver $(KVER) --all

# Not in make test (CI's budget): the io.stat mode on a kernel that lacks
# the events for real, beside tools/07-fallback's --no-events on ours.
test-unpatched: kernel-unpatched tools
	@tests/run --kver $(KVER) unpatched:unpatched

# Set up whatever is missing, then boot and show the noisy neighbour.
demo: deps kernel tools
	@guest/run --kver $(KVER) -t 600 -e IOLAT_TOOLS=$(BUILD)/tools -- $(CURDIR)/guest/demo

# One scenario of guest/scenarios/, S=N or its name (SECS=N: each phase's
# length).  Its output, its iolat-top -j recording and, with gnuplot, the
# recording's timeline land in build/scenarios/<name>/.
scenario: tools
	@test -n "$(S)" || { echo 'usage: make scenario S=N [SECS=N] (N: 1-8, see guest/scenarios/)' >&2; exit 2; }
	@s=$$(ls -d guest/scenarios/$(S) guest/scenarios/$(S)-* 2>/dev/null | head -1); \
	test -n "$$s" && test -x "$$s" || { echo "make scenario: no scenario '$(S)' in guest/scenarios/" >&2; exit 2; }; \
	name=$${s##*/}; out=$(BUILD)/scenarios/$$name; \
	guest/run --kver $(KVER) -t 900 -o "$$out" -e IOLAT_TOOLS=$(BUILD)/tools \
		$(if $(SECS),-e IOLAT_SECS=$(SECS)) -- $(CURDIR)/$$s || exit; \
	echo "recording: $$out/$$name.json"; \
	if command -v gnuplot >/dev/null && command -v jq >/dev/null; then \
		tools/iolat-plot -o "$$out/$$name.png" "$$out/$$name.json" && \
		echo "timeline: $$out/$$name.png"; \
	fi

# Printed figures, not a test: IOPS with and without tracing.
bench: tools
	@guest/run --kver $(KVER) -t 900 -e IOLAT_TOOLS=$(BUILD)/tools -- $(CURDIR)/guest/bench

# Printed figures, not a test: iolat-top's own CPU and system calls per
# interval with 100, 1,000 and 10,000 cgroups (IOLAT_BENCH_SIZES, _SECS,
# _SYSCALL_SECS, _WORKERS, _STRACE=1 passed on when set).
BENCH_ENV := $(foreach v,IOLAT_BENCH_SIZES IOLAT_BENCH_SECS IOLAT_BENCH_SYSCALL_SECS \
	IOLAT_BENCH_WORKERS IOLAT_BENCH_STRACE IOLAT_BENCH_TOP_ARGS IOLAT_BENCH_PHASES \
	IOLAT_BENCH_ROUNDS IOLAT_BENCH_THROTTLED_SECS,$(if $($(v)),-e "$(v)=$($(v))"))
bench-scale: tools
	@guest/run --kver $(KVER) -t 3600 -e IOLAT_TOOLS=$(BUILD)/tools $(BENCH_ENV) -- $(CURDIR)/guest/bench-scale

# Printed figures, not a test: a database's commits with io.latency off
# and on, beside a bulk writer through the page cache and with O_DIRECT.
bench-db: tools
	@guest/run --kver $(KVER) -t 1800 -e IOLAT_TOOLS=$(BUILD)/tools \
		$(foreach v,IOLAT_BENCH_SECS IOLAT_BENCH_ROUNDS IOLAT_TARGET_US,$(if $($(v)),-e $(v)=$($(v)))) \
		-- $(CURDIR)/guest/bench-db

clean:
	@$(MAKE) -s -C tools BUILD=$(BUILD) clean

distclean: clean
	rm -rf $(BUILD)
