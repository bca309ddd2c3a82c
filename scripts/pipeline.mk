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
#
# Variables (defaults in brackets):
#   MESH     input mesh, any format loopsub reads [the asianDragon tet mesh]
#   PROJECT  fine surface to move new vertices onto, or empty [empty]; e.g.
#            PROJECT=data/models/asianDragon/asianDragon.obj refines the coarse
#            dragon onto its scan (closest points; loopsub warns about any
#            triangle the projection collapses)
#   LEVELS   subdivision levels [2]
#   FIXED    fixed-vertex options on the output surface [a slab under the feet]
#   OUT      output folder [demo-out]
#   BIN      folder of the tools [bin]

BIN     ?= bin
MESH    ?= data/models/asianDragon/asianDragon.veg
PROJECT ?=
LEVELS  ?= 2
FIXED   ?= --fixed-box -6,-3,-4,6,-1.95,4
OUT     ?= demo-out

PROJECT_OPT := $(if $(PROJECT),--project-onto $(PROJECT))

.PHONY: all
all: $(OUT)/surface.h5 $(OUT)/surface.obj
	@echo "pipeline: done; outputs in $(OUT)/"

$(OUT)/surface.h5: $(MESH) $(PROJECT) $(BIN)/loopsub
	@mkdir -p $(OUT)
	$(BIN)/loopsub $(MESH) -l $(LEVELS) $(PROJECT_OPT) $(FIXED) -o $@

$(OUT)/surface.obj: $(OUT)/surface.h5 $(BIN)/loopsub
	$(BIN)/loopsub -q $< -l 0 -o $@
