# elastoprep — offline precomputation tools for interactive deformable solids.
#
#   make                 library (build/opt/libelastoprep.a and .so) and every tool (bin/)
#   make check           unit and command-line tests (SANITIZE=1: ASan + UBSan)
#   make check-paraview  ParaView (installed on demand) opens every XDMF sidecar
#   make check-cluster   a split run and the MPI bemsolve on a private single-node Slurm
#   make mpi             bin/bemsolve-mpi: the BEM over MPI (ScaLAPACK, parallel HDF5)
#   make check-mpi       bemsolve-mpi on 1, 2 and 4 ranks against the serial run
#   make bench-mpi       pdgetrf beside LAPACK, bemsolve-mpi beside bemsolve, the model of scale
#   make check-ownmesh   the README's own-mesh pipeline on a Gmsh-made part
#   make demo            the example pipeline on a shipped model
#   make bench           benchmarks under tests/bench
#   make install PREFIX=/usr/local
#
# demo, check and bench first run scripts/install-deps when a dependency is
# missing, then re-enter make so pkg-config sees the installed packages.

PREFIX  ?= /usr/local
# Where `make install` puts the Python package: Debian's python3 looks in
# /usr/lib/python3/dist-packages and PREFIX/lib/python3.X/dist-packages.
PYVER   := $(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYSITE  ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYVER)/dist-packages)
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
LIBA     := build/opt/libelastoprep.a
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

override CFLAGS += -std=gnu11 -fopenmp -Wall -Wextra -Wshadow $(LIB_INC) $(CHOLMOD_CFLAGS) $(PKG_CFLAGS) $(SANFLAGS) $(ASSERTS)
override LDFLAGS += -fopenmp $(SANFLAGS)
# Embree 3 (closest-point queries of distfield, doc/DECISIONS.md) ships no .pc file on Debian 12.
EMBREE_LIBS := -lembree3
LDLIBS := $(PKG_LIBS) $(CHOLMOD_LIBS) $(EMBREE_LIBS) -lnettle -lm

# The shared library of the same (-fPIC) objects; its soname changes with
# an incompatible change of the runtime API (libelastoprep(3)): 1 since the
# capacitance object keeps the symmetric form's factor (ep_cma_load,
# ep_gfsrc_node_column and the rcond field went), 2 since it keeps an LDL^T
# too (ep_cma's chol became form, and the struct grew), 4 since a wavelet
# gather's mask is the source's (ep_gfsrc.kept, ep_wavelet_subset.seen;
# ep_gfw_columns_rows and ep_wavelet_subset_inverse changed) and since the
# GFs carry body-force rows (ep_gfsrc.body, ep_cma.gv, ep_gf_file.body: the
# structs grew; ep_cma_gravity, ep_gfsrc_gravity): one bump for both.  The
# file is named for the soname and the tools' version.
VERSION  := $(shell sed -n 's/^\#define EP_VERSION "\(.*\)"/\1/p' lib/cli/cli.h)
SONAME   := libelastoprep.so.4
SOLIB    := $(dir $(LIBA))$(SONAME).$(VERSION)
# lib/ holds one folder per subsystem (doc/MODULES.md); a module includes
# another by its bare name, so every folder is on the include path.
# lib/mpi is the MPI build's only (make mpi, below).
LIB_DIRS := $(filter-out lib/mpi/,$(sort $(dir $(wildcard lib/*/*.h))))
LIB_INC  := $(patsubst %/,-I%,$(LIB_DIRS))
# The runtime API a simulator includes: lib/runtime/elastoprep.h and the
# headers of lib/ it reaches, installed flat in include/elastoprep/.
API_HEADERS := $(sort $(filter lib/%,$(shell $(CC) $(LIB_INC) $(CHOLMOD_CFLAGS) $(PKG_CFLAGS) -MM -MG lib/runtime/elastoprep.h 2>/dev/null | tr -d '\\:' )))
LIB_SRC  := $(filter-out lib/mpi/%,$(wildcard lib/*/*.c))
LIB_HDR  := $(filter-out lib/mpi/%,$(wildcard lib/*/*.h))
LIB_OBJ  := $(LIB_SRC:lib/%.c=$(BUILD)/lib/%.o)
TOOLS    := $(patsubst cmd/%.c,%,$(wildcard cmd/*.c))
BINS     := $(TOOLS:%=$(BINDIR)/%)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNITS    := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard tests/bench/*.c)
BENCHES  := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)

.PHONY: all deps check check-paraview demo bench install clean run-check run-demo run-bench check-cluster run-check-cluster
all: $(LIBA) $(SOLIB) $(BINS)

$(BUILD)/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

$(SOLIB): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# A tool's command line is data (doc/DECISIONS.md, "Tool descriptions are
# data"): cmd/spec/TOOL.json, with the option groups of cmd/spec/groups/,
# becomes build/gen/TOOL_spec.h, which cmd/TOOL.c includes; a malformed spec
# stops the build with the generator's message.
GEN        := build/gen
SPEC_DEPS  := scripts/toolspec.py $(wildcard cmd/spec/groups/*.json)
$(GEN)/%_spec.h: cmd/spec/%.json $(SPEC_DEPS)
	python3 scripts/toolspec.py $< $@
.SECONDARY: $(TOOLS:%=$(GEN)/%_spec.h)

# Tools that run helper scripts (gfcompress --plot) also look in the source tree.
$(BINDIR)/%: cmd/%.c $(GEN)/%_spec.h $(LIBA) $(LIB_HDR)
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) -I$(GEN) -DEP_SOURCE_SCRIPTS='"$(CURDIR)/scripts"' $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) tests/fuzz/fuzz_mesh.c tests/fuzz/fuzz_h5.c $(LIBA) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/unit $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS) $(CMOCKA_LIBS)

$(BUILD)/bench/%: tests/bench/%.c tests/bench/bench.h $(LIBA) | $(BUILD)/bench
	$(CC) $(CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)

# test_select counts the library's reallocations (issue 22, class 14).
$(BUILD)/tests/test_select: override LDFLAGS += -Wl,--wrap=realloc

# Only the comparison with a general-purpose lossy compressor links ZFP.
$(BUILD)/bench/gf_zfp: LDLIBS += -lzfp

$(BUILD)/tests $(BUILD)/bench:
	@mkdir -p $@

deps:
	@scripts/install-deps --if-missing

check: deps
	@$(MAKE) --no-print-directory run-check

run-check: all $(UNITS)
	@tests/run $(BINDIR) $(UNITS)

# ParaView reads the XDMF sidecars of every kind of file; the first mode
# warped is kept as build/paraview/mode1.png.
check-paraview:
	@scripts/install-deps --if-missing --paraview
	@$(MAKE) --no-print-directory all
	@tests/paraview/run.sh $(BINDIR) build/paraview

# The README's own-mesh pipeline on a part Gmsh makes in the test.
.PHONY: check-ownmesh
check-ownmesh:
	@scripts/install-deps --if-missing --with-gmsh
	@$(MAKE) --no-print-directory all
	@tests/ownmesh/run.sh $(BINDIR)

# A private single-node Slurm runs a split femcondense step and the MPI
# bemsolve's sbatch template through srun (tests/cluster).
check-cluster:
	@scripts/install-deps --if-missing --with-slurm --with-mpi
	@$(MAKE) --no-print-directory run-check-cluster

run-check-cluster: all $(BINDIR)/bemsolve-mpi
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
	install -m 755 scripts/gfplot scripts/epview $(DESTDIR)$(PREFIX)/share/elastoprep
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/elastoprep \
	    $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libelastoprep.a
	install -m 755 $(SOLIB) $(DESTDIR)$(PREFIX)/lib
	ln -sf $(notdir $(SOLIB)) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libelastoprep.so
	install -m 644 $(API_HEADERS) $(DESTDIR)$(PREFIX)/include/elastoprep
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' scripts/elastoprep.pc.in \
	    >$(DESTDIR)$(PREFIX)/lib/pkgconfig/elastoprep.pc
	install -m 644 man/man3/*.3 $(DESTDIR)$(PREFIX)/share/man/man3
	@# the Python package (python/elastoprep), told where the library went
	install -d $(DESTDIR)$(PYSITE)/elastoprep $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 644 python/elastoprep/*.py $(DESTDIR)$(PYSITE)/elastoprep
	echo 'LIB = "$(PREFIX)/lib/$(SONAME)"' >$(DESTDIR)$(PYSITE)/elastoprep/_libpath.py
	install -m 644 man/man7/*.7 $(DESTDIR)$(PREFIX)/share/man/man7
	@# one page per function name: ".so man3/PAGE.3" stubs from each page's NAME line
	@for p in man/man3/*.3; do \
	    page=$$(basename $$p); \
	    for fn in $$(sed -n '/^\.SH NAME/{n;s/ \\-.*//;s/,//g;p;}' $$p); do \
	        [ "$$fn.3" = "$$page" ] || echo ".so man3/$$page" >$(DESTDIR)$(PREFIX)/share/man/man3/$$fn.3; \
	    done; \
	done

clean:
	rm -rf build bin demo-out

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
	@printf '\002' | cat - data/cube-bin41.msh | head -c 4000 >build/fuzz/corpus/msh41bin
	@printf '\002' | cat - data/cube-bin22.msh | head -c 4000 >build/fuzz/corpus/msh22bin
	@printf '\007solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid\n' >build/fuzz/corpus/stl
	clang -g -O1 -fsanitize=fuzzer,address,undefined $(LIB_INC) $(CHOLMOD_CFLAGS) $(PKG_CFLAGS) \
	    $(LIB_SRC) tests/fuzz/fuzz_mesh.c -o build/fuzz/fuzz_mesh $(LDLIBS) -fopenmp=libgomp
	build/fuzz/fuzz_mesh -max_total_time=$(FUZZ_SECONDS) -max_len=4096 build/fuzz/corpus

# Fuzz the HDF5 readers (tests/fuzz/fuzz_h5.c: structure-aware, mutating
# attributes, dataspaces, types, extents and bytes of valid files of every
# kind), from its fixed corpus: make fuzz-h5 FUZZ_SECONDS=1800.  Crashing
# inputs are written to build/fuzz/; add them to tests/fuzz/regressions as h5-*.
# libhdf5 asks malloc for sizes decoded from damaged headers (4 GB in
# regressions/h5-libhdf5-huge-header-malloc) and copes with NULL; libFuzzer
# would stop at 2 GB, so single allocations up to 8 GB pass, and the
# resident limit (2 GB) still catches memory a reader really uses.
.PHONY: fuzz-h5
fuzz: fuzz-h5
fuzz-h5:
	@mkdir -p build/fuzz/h5corpus
	@cp -n tests/fuzz/h5corpus/* tests/fuzz/regressions/h5-* build/fuzz/h5corpus/ 2>/dev/null || true
	clang -g -O1 -fsanitize=fuzzer,address,undefined $(LIB_INC) $(CHOLMOD_CFLAGS) $(PKG_CFLAGS) \
	    -DEP_FUZZ_SEEDS='"$(CURDIR)/tests/fuzz/h5seeds"' \
	    $(LIB_SRC) tests/fuzz/fuzz_h5.c -o build/fuzz/fuzz_h5 $(LDLIBS) -fopenmp=libgomp
	build/fuzz/fuzz_h5 -max_total_time=$(FUZZ_SECONDS) -max_len=129 -malloc_limit_mb=8192 -artifact_prefix=build/fuzz/ \
	    build/fuzz/h5corpus

# The BEM over MPI (issue 43; MATH.md §15): every module again, against
# Open MPI's parallel HDF5 instead of the serial one, in its own object
# folder, with lib/mpi, linked with ScaLAPACK into bin/bemsolve-mpi.  The
# serial build above neither sees nor needs any of it.
MPI_BUILD := build/mpi
MPICC     ?= mpicc
MPI_PKGS  := hdf5-openmpi openblas lapacke arpack
MPI_LIBA  := $(MPI_BUILD)/libelastoprep-mpi.a
MPI_SRC   := $(LIB_SRC) $(wildcard lib/mpi/*.c)
MPI_OBJ   := $(MPI_SRC:lib/%.c=$(MPI_BUILD)/lib/%.o)
MPI_FLAGS  = -O2 -g -std=gnu11 -fopenmp -Wall -Wextra -Wshadow $(LIB_INC) -Ilib/mpi $(CHOLMOD_CFLAGS) \
             $(shell pkg-config --cflags $(MPI_PKGS) 2>/dev/null) -DNDEBUG -DEP_MPI
MPI_LDLIBS = $(shell pkg-config --libs $(MPI_PKGS) 2>/dev/null) -lscalapack-openmpi $(CHOLMOD_LIBS) -lnettle -lm

.PHONY: mpi run-mpi check-mpi run-check-mpi bench-mpi run-bench-mpi
mpi:
	@scripts/install-deps --if-missing --with-mpi
	@$(MAKE) --no-print-directory run-mpi

run-mpi: $(BINDIR)/bemsolve-mpi

$(MPI_BUILD)/lib/%.o: lib/%.c $(LIB_HDR) $(wildcard lib/mpi/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(MPI_FLAGS) -c $< -o $@

$(MPI_LIBA): $(MPI_OBJ)
	$(AR) rcs $@ $^

$(BINDIR)/bemsolve-mpi: cmd/bemsolve.c $(GEN)/bemsolve_spec.h $(MPI_LIBA)
	@mkdir -p $(BINDIR)
	$(MPICC) $(MPI_FLAGS) -I$(GEN) $< -o $@ -fopenmp $(MPI_LIBA) $(MPI_LDLIBS)

# The LU over MPI beside LAPACK, and the model of scale (tests/bench/mpi/run.sh).
$(MPI_BUILD)/bench/%: tests/bench/mpi/%.c $(MPI_LIBA)
	@mkdir -p $(dir $@)
	$(MPICC) $(MPI_FLAGS) $< -o $@ -fopenmp $(MPI_LIBA) $(MPI_LDLIBS)

bench-mpi:
	@scripts/install-deps --if-missing --with-mpi
	@$(MAKE) --no-print-directory run-bench-mpi

run-bench-mpi: all $(BINDIR)/bemsolve-mpi $(MPI_BUILD)/bench/lu
	@BIN=$(BINDIR) BENCH=$(MPI_BUILD)/bench sh tests/bench/mpi/run.sh

check-mpi:
	@scripts/install-deps --if-missing --with-mpi
	@$(MAKE) --no-print-directory run-check-mpi

run-check-mpi: all $(BINDIR)/bemsolve-mpi
	@BIN=$(BINDIR) sh tests/mpi/check.sh

# Issue 37's fuzz targets (make fuzz runs them too): epmerge's part reader
# (fuzz_h5.c built with EP_FUZZ_PART: a damaged part merged with two intact
# ones), the XDMF sidecar's name path (tests/fuzz/fuzz_name.c) and the .veg
# set and region parser (fuzz_mesh.c on .veg seeds with *SET and *REGION).
# Each: make fuzz-h5-part FUZZ_SECONDS=1800.
FUZZ_CC = clang -g -O1 -fsanitize=fuzzer,address,undefined $(LIB_INC) $(CHOLMOD_CFLAGS) $(PKG_CFLAGS) \
    -DEP_FUZZ_SEEDS='"$(CURDIR)/tests/fuzz/h5seeds"'
.PHONY: fuzz-h5-part fuzz-name fuzz-veg
fuzz-h5: fuzz-h5-part
fuzz: fuzz-name fuzz-veg
fuzz-h5-part:
	@mkdir -p build/fuzz/partcorpus
	@printf '\000\001\003\000\000\001\000\000\000' >build/fuzz/partcorpus/seed
	$(FUZZ_CC) -DEP_FUZZ_PART $(LIB_SRC) tests/fuzz/fuzz_h5.c -o build/fuzz/fuzz_part $(LDLIBS) -fopenmp=libgomp
	build/fuzz/fuzz_part -max_total_time=$(FUZZ_SECONDS) -max_len=129 -malloc_limit_mb=8192 \
	    -artifact_prefix=build/fuzz/part- build/fuzz/partcorpus
fuzz-name:
	@mkdir -p build/fuzz/namecorpus
	@printf 'run/a:b.h5' >build/fuzz/namecorpus/colon
	@printf 'x--y&<z>"q'"'"'.hdf5' >build/fuzz/namecorpus/xml
	$(FUZZ_CC) $(LIB_SRC) tests/fuzz/fuzz_name.c -o build/fuzz/fuzz_name $(LDLIBS) -fopenmp=libgomp
	build/fuzz/fuzz_name -max_total_time=$(FUZZ_SECONDS) -max_len=511 -artifact_prefix=build/fuzz/name- build/fuzz/namecorpus
fuzz-veg:
	@mkdir -p build/fuzz/vegcorpus
	@printf '\003' | cat - tests/fuzz/seed.veg >build/fuzz/vegcorpus/veg
	@printf '\003' | cat - tests/fuzz/seed-sets.veg >build/fuzz/vegcorpus/sets
	$(FUZZ_CC) -DEP_FUZZ_VEG $(LIB_SRC) tests/fuzz/fuzz_mesh.c -o build/fuzz/fuzz_veg $(LDLIBS) -fopenmp=libgomp
	build/fuzz/fuzz_veg -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -artifact_prefix=build/fuzz/veg- build/fuzz/vegcorpus
