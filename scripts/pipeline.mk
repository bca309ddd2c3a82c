# pipeline.mk — the elastoprep pipeline as make rules.
#
#   make demo                                   (the shipped dragon, via the top Makefile)
#   make -f scripts/pipeline.mk MESH=body.veg FIXED="--fixed-ids body.bou" OUT=run1
#
# Each step is one tool writing one HDF5 file; make reruns only what changed,
# and since every tool writes atomically an interrupted step never leaves a
# file that make would take as up to date.  Steps present so far:
#
#   $(OUT)/surface.h5    loopsub: the subdivision-connectivity surface
#   $(OUT)/surface.obj   loopsub: the same surface for a viewer
#   $(OUT)/gf-fem.h5     femcondense: boundary Green's functions of the tet mesh
#   $(OUT)/gf-bem.h5     bemsolve: boundary Green's functions of the subdivided surface
#   $(OUT)/gf-wavelet.h5 gfcompress: those GFs wavelet-compressed (and the sweep table
#                        $(OUT)/gf-wavelet.txt)
#   $(OUT)/modes.h5      moddesc: modes, modal derivatives and the reduced basis
#   $(OUT)/cubic.h5      polycoef: cubic polynomials of the reduced StVK forces
#   $(OUT)/rtcheck.txt   rtcheck: every file above run, verified and timed as a
#                        simulator would use it (the step fails if a check fails)
#
# Variables (defaults in brackets):
#   MESH     tetrahedral input mesh [the asianDragon tet mesh]
#   FIXED    its support, femcondense options [--fixed-ids of its .bou file]
#   MATERIAL material options [-E 1e7 --nu 0.4 --rho 1000, the dragon's]
#   LEVELS   subdivision levels of the surface [1; the BEM matrix grows as 16^LEVELS]
#   PROJECT  fine surface to move new vertices onto, or empty [empty]; e.g.
#            PROJECT=data/models/asianDragon/asianDragon.obj refines the coarse
#            dragon onto its scan (closest points; loopsub warns about any
#            triangle the projection collapses)
#   SURFACE_FIXED  support on the subdivided surface [a slab under the feet]
#   EPS      gfcompress threshold [0.05]
#   MODES    moddesc options [-k 20 -r 30]
#   OUT      output folder [demo-out]
#   BIN      folder of the tools [bin]

BIN      ?= bin
MESH     ?= data/models/asianDragon/asianDragon.veg
FIXED    ?= --fixed-ids data/models/asianDragon/asianDragon.bou
MATERIAL ?= -E 1e7 --nu 0.4 --rho 1000
LEVELS   ?= 1
PROJECT  ?=
SURFACE_FIXED ?= --fixed-box -6,-3,-4,6,-1.95,4
EPS      ?= 0.05
MODES    ?= -k 20 -r 30
OUT      ?= demo-out

PROJECT_OPT := $(if $(PROJECT),--project-onto $(PROJECT))

.PHONY: all
all: $(OUT)/surface.h5 $(OUT)/surface.obj $(OUT)/gf-fem.h5 $(OUT)/gf-bem.h5 $(OUT)/gf-wavelet.h5 \
     $(OUT)/modes.h5 $(OUT)/cubic.h5 $(OUT)/rtcheck.txt
	@echo "pipeline: done; outputs in $(OUT)/"

$(OUT)/surface.h5: $(MESH) $(PROJECT) $(BIN)/loopsub
	@mkdir -p $(OUT)
	$(BIN)/loopsub $(MESH) -l $(LEVELS) $(PROJECT_OPT) $(SURFACE_FIXED) -o $@

$(OUT)/surface.obj: $(OUT)/surface.h5 $(BIN)/loopsub
	$(BIN)/loopsub -q $< -l 0 -o $@

$(OUT)/gf-fem.h5: $(MESH) $(BIN)/femcondense
	@mkdir -p $(OUT)
	$(BIN)/femcondense $(MESH) $(FIXED) $(MATERIAL) -o $@

$(OUT)/gf-bem.h5: $(OUT)/surface.h5 $(BIN)/bemsolve
	$(BIN)/bemsolve $< $(MATERIAL) --check -o $@

# The sweep table goes to a file written whole by the shell's rename, so make
# never sees half of it.
$(OUT)/gf-wavelet.h5: $(OUT)/gf-bem.h5 $(BIN)/gfcompress
	$(BIN)/gfcompress $< --eps $(EPS) --sweep 0.01,0.02,0.05,0.1,0.2 -o $@ >$(OUT)/gf-wavelet.txt.tmp
	@mv $(OUT)/gf-wavelet.txt.tmp $(OUT)/gf-wavelet.txt
	@cat $(OUT)/gf-wavelet.txt

$(OUT)/modes.h5: $(MESH) $(BIN)/moddesc
	@mkdir -p $(OUT)
	$(BIN)/moddesc $(MESH) $(FIXED) $(MATERIAL) $(MODES) -o $@

$(OUT)/cubic.h5: $(OUT)/modes.h5 $(BIN)/polycoef
	$(BIN)/polycoef $< -o $@

# The demo ends by verifying every file the pipeline made.
RTCHECK_FILES := $(OUT)/surface.h5 $(OUT)/gf-fem.h5 $(OUT)/gf-bem.h5 $(OUT)/modes.h5 $(OUT)/cubic.h5
$(OUT)/rtcheck.txt: $(RTCHECK_FILES) $(OUT)/gf-wavelet.h5 $(BIN)/rtcheck
	@rm -f $@.tmp
	@for f in $(RTCHECK_FILES); do \
	    echo "$(BIN)/rtcheck $$f"; $(BIN)/rtcheck $$f >>$@.tmp || exit 1; done
	$(BIN)/rtcheck $(OUT)/gf-wavelet.h5 --reference $(OUT)/gf-bem.h5 >>$@.tmp
	@mv $@.tmp $@
	@grep -E "FAILED|us$$" $@ | sed 's/^rtcheck: //'
