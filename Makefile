# elastoprep — offline precomputation tools for interactive deformable solids.
#
#   make                 library (lib/libelastoprep.a) and every tool (bin/)
#   make check           unit and command-line tests (SANITIZE=1: ASan + UBSan)
#   make check-cluster   a split run on a private single-node Slurm
#   make demo            the example pipeline on a shipped model
#   make bench           benchmarks under tests/bench
#   make install PREFIX=/usr/local
#
# demo, check and bench first run scripts/install-deps when a dependency is
# missing, then re-enter make so pkg-config sees the installed packages.

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
CFLAGS  ?= -O2 -g

ifeq ($(SANITIZE),1)
BUILD    := build/san
BINDIR   := build/san/bin
LIBA     := build/san/libelastoprep.a
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASSERTS  :=
else
BUILD    := build/opt
BINDIR   := bin
LIBA     := lib/libelastoprep.a
SANFLAGS :=
ASSERTS  := -DNDEBUG
endif

PKGS        := hdf5 openblas lapacke arpack
PKG_CFLAGS  := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)
# SuiteSparse 5 on Debian 12 ships no .pc file for CHOLMOD.
CHOLMOD_CFLAGS := -I/usr/include/suitesparse
CHOLMOD_LIBS   := -lcholmod -lsuitesparseconfig

override CFLAGS += -std=gnu11 -fopenmp -Wall -Wextra -Wshadow -Ilib $(CHOLMOD_CFLAGS) $(PKG_CFLAGS) $(SANFLAGS) $(ASSERTS)
override LDFLAGS += -fopenmp $(SANFLAGS)
LDLIBS := $(PKG_LIBS) $(CHOLMOD_LIBS) -lnettle -lm

LIB_SRC  := $(wildcard lib/*.c)
LIB_OBJ  := $(LIB_SRC:lib/%.c=$(BUILD)/lib/%.o)
TOOLS    := $(patsubst cmd/%.c,%,$(wildcard cmd/*.c))
BINS     := $(TOOLS:%=$(BINDIR)/%)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNITS    := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard tests/bench/*.c)
BENCHES  := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)

.PHONY: all deps check demo bench install clean run-check run-demo run-bench check-cluster run-check-cluster
all: $(LIBA) $(BINS)

$(BUILD)/lib/%.o: lib/%.c $(wildcard lib/*.h) | $(BUILD)/lib
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# Tools that run helper scripts (gfcompress --plot) also look in the source tree.
$(BINDIR)/%: cmd/%.c $(LIBA) $(wildcard lib/*.h)
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) -DEP_SOURCE_SCRIPTS='"$(CURDIR)/scripts"' $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/helpers.h tests/fuzz/fuzz_mesh.c $(LIBA) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/unit $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS) $(CMOCKA_LIBS)

$(BUILD)/bench/%: tests/bench/%.c tests/bench/bench.h $(LIBA) | $(BUILD)/bench
	$(CC) $(CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)

# Only the comparison with a general-purpose lossy compressor links ZFP.
$(BUILD)/bench/gf_zfp: LDLIBS += -lzfp

$(BUILD)/lib $(BUILD)/tests $(BUILD)/bench:
	@mkdir -p $@

deps:
	@scripts/install-deps --if-missing

check: deps
	@$(MAKE) --no-print-directory run-check

run-check: all $(UNITS)
	@tests/run $(BINDIR) $(UNITS)

# A private single-node Slurm runs a split femcondense step (tests/cluster).
check-cluster:
	@scripts/install-deps --if-missing --with-slurm
	@$(MAKE) --no-print-directory run-check-cluster

run-check-cluster: all
	@BIN=$(BINDIR) sh tests/cluster/slurm.sh

demo: deps
	@$(MAKE) --no-print-directory run-demo

run-demo: all
	$(MAKE) --no-print-directory -f scripts/pipeline.mk BIN=$(CURDIR)/$(BINDIR)

bench: deps
	@$(MAKE) --no-print-directory run-bench

run-bench: all $(BENCHES)
	@tests/bench/run $(BINDIR) $(BUILD)/bench

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin
	install -m 644 man/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 man/man5/*.5 $(DESTDIR)$(PREFIX)/share/man/man5
	install -d $(DESTDIR)$(PREFIX)/share/elastoprep
	install -m 755 scripts/gfplot $(DESTDIR)$(PREFIX)/share/elastoprep

clean:
	rm -rf build bin lib/libelastoprep.a demo-out

# Fuzz the readers of user text files (meshes, material and id files) with
# libFuzzer (clang): make fuzz FUZZ_SECONDS=120
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz:
	@mkdir -p build/fuzz/corpus
	@printf '\000' | cat - data/icosahedron.obj >build/fuzz/corpus/obj
	@printf '\001' | cat - data/octahedron.off >build/fuzz/corpus/off
	@printf '\002' | cat - data/cube-v22.msh | head -c 4000 >build/fuzz/corpus/msh22
	@printf '\002' | cat - data/cube.msh | head -c 4000 >build/fuzz/corpus/msh41
	@printf '\003' | cat - tests/fuzz/seed.veg >build/fuzz/corpus/veg
	@printf '\004' | cat - tests/fuzz/seed.tetgen >build/fuzz/corpus/tetgen
	@printf '\005# tag E nu rho\n1 1e6 0.3 1000\n2 2e6 0.35 1100\ndefault 3e6 0.4 1200\n' >build/fuzz/corpus/material
	@printf '\006' | cat - data/models/beam3/beam3.bou >build/fuzz/corpus/bou
	clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilib $(CHOLMOD_CFLAGS) $(PKG_CFLAGS) \
	    $(LIB_SRC) tests/fuzz/fuzz_mesh.c -o build/fuzz/fuzz_mesh $(LDLIBS) -fopenmp=libgomp
	build/fuzz/fuzz_mesh -max_total_time=$(FUZZ_SECONDS) -max_len=4096 build/fuzz/corpus
