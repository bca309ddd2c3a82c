# pipeline.mk — the elastoprep pipeline as make rules.
#
#   make demo                                   (the shipped dragon, via the top Makefile)
#   make -f scripts/pipeline.mk MESH=part.msh FIXED="--fixed-box x0,y0,z0,x1,y1,z1" \
#        MATERIAL="-E 2e11 --nu 0.3 --rho 7800" OUT=run1
#   make -f scripts/pipeline.mk SCAN=scan.obj BASE=150 LEVELS=2 OUT=run2
#   make -f scripts/pipeline.mk SCAN=scan.obj LEVELS=3 LEVEL=0 OUT=run3   (large: direct forms)
#   make -f scripts/pipeline.mk SOUP=asset.obj RES=64 OUT=run4
#   make -f scripts/pipeline.mk SDF=object.obj RES=256 OUT=run5
#   make -f scripts/pipeline.mk MESH=part.msh FIXED=... MATERIAL=... CONTACT=tool.obj OUT=run6
#   make -f scripts/pipeline.mk MESH=tagged.msh ZONES="1 2" FIXED=... MATERIAL=... OUT=run7
#
# With SCAN, the model comes from a scanned surface: loopsub cleans it up,
# simplifies it to a base of about BASE vertices and fits LEVELS Loop levels
# onto it; TetGen fills that surface with tets that keep it as their
# boundary (-Y); the FEM Green's functions, the modes and the cubic
# polynomials are those of that interior, and the GFs are compressed on the
# surface's hierarchy (gfcompress --hierarchy: every GF row matched to a
# surface vertex by position).
#
# Each step is one tool writing one HDF5 file; make reruns only what changed,
# and since every tool writes atomically an interrupted step never leaves a
# file that make would take as up to date.  Steps present so far:
#
#   $(OUT)/surface.h5    loopsub: the subdivision-connectivity surface (with SCAN:
#                        fitted onto the scan, the quality report in /mesh's attributes)
#   $(OUT)/surface.obj   loopsub: the same surface for a viewer
#   $(OUT)/interior.ele  tetgen (with SCAN): the tets inside surface.off, and
#                        $(OUT)/interior.node; their boundary is the surface
#   $(OUT)/gf-fem-wavelet.h5  gfcompress (with SCAN): the FEM GFs compressed on
#                        the surface's hierarchy
#   $(OUT)/gf-fem.h5     femcondense: boundary Green's functions of the tet mesh
#   $(OUT)/gf-bem.h5     bemsolve: boundary Green's functions of the subdivided surface
#   $(OUT)/gf-wavelet.h5 gfcompress: those GFs wavelet-compressed (and the sweep table
#                        $(OUT)/gf-wavelet.txt)
#   $(OUT)/modes.h5      moddesc: modes, modal derivatives and the reduced basis
#   $(OUT)/cubic.h5      polycoef: cubic polynomials of the reduced StVK forces
#   $(OUT)/cubature.h5   cubature: weighted elements for the same reduced forces
#                        (sampled poses, StVK), checked by rtcheck beside cubic.h5
#   $(OUT)/vega/         epexport: the model, its support, basis and cubic
#                        polynomials in Vega FEM's formats (.veg .bou .U .cub)
#   $(OUT)/gf-fem-level.h5  femcondense --constraint-level LEVEL (when LEVEL is
#                        given): GFs of the level-LEVEL hat constraints, solved
#                        directly (one right-hand side per coarse hat load)
#   $(OUT)/trajectory.h5 fullsim (make $(OUT)/trajectory.h5; not in the demo): the
#                        full-space run under LOADS, the reference of the reduced
#                        model; $(OUT)/rtcheck-reference.txt: rtcheck --reference
#                        of cubic.h5 along it (e(t), frequencies, time per step)
#   $(OUT)/fem.h5        femdata: K, M and the lumped M as CSR, the corotated element
#                        data, the reduced mass and gravity of modes.h5's basis
#   $(OUT)/multigrid.h5  mghier: a hierarchy of MG_LEVELS levels (coarse ones by
#                        TetGen), prolongations, Galerkin operators
#   $(OUT)/rtcheck.txt   rtcheck: every file above run, verified and timed as a
#                        simulator would use it (the step fails if a check fails)
#
# Variables (defaults in brackets):
#   SCAN     scanned surface to build the model from, or empty [empty]; e.g.
#            SCAN=data/models/asianDragon/asianDragon.obj (then MESH and FIXED
#            are the interior and SURFACE_FIXED)
#   BASE     base mesh size in vertices, with SCAN [150]
#   TETGEN   tetgen switches, with SCAN [-pq1.414Y: quality bound on the
#            radius-edge ratio, the surface kept]
#   MESH     tetrahedral input mesh [the asianDragon tet mesh]
#   FIXED    its support, femcondense options [the dragon's: --fixed-ids of
#            its .bou file; required for another MESH]
#   MATERIAL material options [the dragon's -E 1e7 --nu 0.4 --rho 1000 for the
#            dragon only; required for any other model]
#   LEVELS   subdivision levels of the surface [1; with SCAN 2; the dense GF
#            matrices grow as 16^LEVELS: 7 GB at 3 levels of the dragon, the
#            compressed and hierarchical forms made directly are issue 16]
#   PROJECT  fine surface to move new vertices onto, or empty [empty]; e.g.
#            PROJECT=data/models/asianDragon/asianDragon.obj refines the coarse
#            dragon onto its scan (closest points; loopsub warns about any
#            triangle the projection collapses)
#   SURFACE_FIXED  support on the subdivided surface [the dragon: a slab under
#            the feet; another MESH: FIXED when a --fixed-box or --fixed-region,
#            else required]
#   SCHEME   surface subdivision, loop or linear, without SCAN [loop for the
#            dragon; else linear: a CAD part's faces and corners stay put]
#   DIRECT   yes: the solvers write the compressed GFs themselves (femcondense
#            and bemsolve --wavelet --eps EPS), and no step writes a dense GF
#            file [yes with SCAN and LEVELS >= 3, where the dense GFs of all
#            free columns would be 7 GB; else empty: dense GFs, then gfcompress]
#   LEVEL    constraint level of the hierarchical GFs to make, or empty [empty;
#            with SCAN e.g. 0: the GFs of the base mesh's hat loads, solved
#            directly on the fine model]
#   EPS      wavelet threshold [0.05; with SCAN 0.003: on the dragon scan's
#            2-level surface rtcheck's capacitance matrix of the wavelet GFs is
#            singular at 0.05 (condition 1e23, BEM) and at 0.01 (2e18, FEM on
#            the hierarchy), and 2.3e4 at 0.003, as for the dense GFs]
#   MODES    moddesc options [-k 20 -r 30]
#   MG_LEVELS  levels of mghier's hierarchy, the finest included [3]
#   CUBATURE   make cubature.h5 [yes]; empty for a hexahedral MESH, which
#              cubature(1) refuses (tetrahedra only)
#   ZONES    region tags of MESH to bond as zones (000 §5.1), or empty [empty;
#            the demo's dragon has no regions]: zonesplit -> femcondense
#            --traction lumped --columns all -> rtcheck --zones, the goal zones
#   LOADS    fullsim's load file [$(OUT)/gravity.loads: gravity ramped over 0.05 s]
#   FULLSIM  fullsim options [--dt 0.0033333333333333335 -n 60 --alpha 0.5]
#   PARTS    split femcondense, bemsolve, moddesc and polycoef into PARTS
#            make jobs each (--part I/PARTS into $(OUT)/parts/), merged by
#            epmerge into the same files [empty: one job per step]; with -j
#            the parts run side by side (moddesc's parts 1.. wait for part 0,
#            whose modes they read); the direct forms (DIRECT, LEVEL) run
#            as one job each (--part does not go with --wavelet)
#   SOUP     a triangle soup (game or film asset, scan) to build a voxel model
#            from, or empty [empty]: then the pipeline is voxelize -> moddesc ->
#            polycoef -> embed -> rtcheck, the soup itself the render mesh:
#              $(OUT)/voxels.h5        voxelize: the hex mesh (with MATERIAL)
#              $(OUT)/voxel-modes.h5   moddesc on it (MODES, SOUP_FIXED)
#              $(OUT)/voxel-cubic.h5   polycoef
#              $(OUT)/render.h5        embed: the soup bound to the voxels, Ubar = W U
#              $(OUT)/rtcheck-soup.txt rtcheck of the cubic and the render files
#   SDF      a mesh or soup to make the signed distance field of (contact
#            data), or empty [empty]: then the pipeline is distfield -> rtcheck:
#              $(OUT)/distfield.h5     distfield --res RES (and its .xmf sidecars)
#              $(OUT)/distfield.dist   the same in Vega's .dist layout
#              $(OUT)/rtcheck-sdf.txt  rtcheck: values, signs, the eq. 3.14
#                                      bound, lookups timed
#   DISTFIELD  further distfield options, with SDF [empty]; e.g. --unsigned
#   CONTACT  a second object (mesh or closed surface), or empty [empty]: then
#            the pipeline is the reduced model of MESH (modes.h5, cubic.h5),
#            its pointshell and CONTACT's field, and the contact check:
#              $(OUT)/pointshell.h5       pointshell MESH --modes modes.h5
#              $(OUT)/contact-field.h5    distfield CONTACT --res CONTACT_RES
#              $(OUT)/rtcheck-contact.txt rtcheck of the three: the scripted
#                                         trajectory, traversal = brute force,
#                                         refinement, budget, sphere bound,
#                                         deformed normals, times
#   POINTSHELL  pointshell options, with CONTACT [--levels 4 --first 320]
#   CONTACT_RES  cells a side of CONTACT's field [128]
#   RES      voxels along the soup's longest side, with SOUP [32]; with SDF,
#            cells a side of the field
#   VOXEL    further voxelize options, with SOUP [--largest]
#   SOUP_FIXED  moddesc support of the voxel model [--free]
#   OUT      output folder [demo-out]
#   BIN      folder of the tools [bin]

# The rules below hand file names and options to the shell unquoted, and
# make cannot hold a blank, ':' or '%' in a target's name at all: a value
# with a character outside these sets is refused with one line before any
# rule runs (issue 37, class 3), never run as a command.  Checked on the raw
# value ($(value)), before anything expands it.
#   file names  letters, digits and _ . / , + - @ ~
#   options     the same and blanks, = and :
EP_NAME_VARS := BIN SCAN MESH OUT PROJECT SOUP CONTACT
EP_OPT_VARS  := BASE TETGEN MATERIAL SURFACE_FIXED MODES FIXED LEVELS LEVEL EPS DIRECT PARTS RES VOXEL SOUP_FIXED \
                MG_LEVELS POINTSHELL CONTACT_RES CUBATURE ZONES
ep_chars := a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y Z \
            0 1 2 3 4 5 6 7 8 9 _ . / , + - @ ~
ep_strip = $(if $(2),$(call ep_strip,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
ep_space := $(subst ,, )
ep_left = $(call ep_strip,$(if $(3),$(subst =,,$(subst :,,$(subst $(ep_space),,$(value $(1))))),$(value $(1))),$(2))
$(foreach v,$(EP_NAME_VARS),$(if $(or $(strip $(call ep_left,$(v),$(ep_chars),)),$(word 2,$(value $(v)))),\
    $(error $(v)="$(value $(v))": a file name here holds only letters, digits and _ . / , + - @ ~)))
$(foreach v,$(EP_OPT_VARS),$(if $(call ep_left,$(v),$(ep_chars),opt),\
    $(error $(v)="$(value $(v))": options here hold only letters, digits, blanks and _ . / , + - @ ~ = :)))

BIN      ?= bin
SCAN     ?=
BASE     ?= 150
TETGEN   ?= -pq1.414Y
# The shipped dragon's settings are defaults only for the dragon (make demo,
# SCAN= its scan).  A model of your own (MESH, SOUP, another SCAN) needs its
# own MATERIAL, and MESH its FIXED and SURFACE_FIXED: the latter defaults to
# FIXED when that is a --fixed-box or --fixed-region (a volume vertex id
# file does not number the surface's vertices).  Missing ones stop make with
# a message naming them (issue 45).
DEMO := $(if $(filter-out undefined,$(origin MESH))$(SOUP),,$(if $(SCAN),$(findstring data/models/asianDragon/,$(SCAN)),yes))
ifneq ($(DEMO),)
MATERIAL ?= -E 1e7 --nu 0.4 --rho 1000
SURFACE_FIXED ?= --fixed-box -6,-3,-4,6,-1.95,4
else
SURFACE_FIXED ?= $(if $(filter --fixed-box --fixed-region,$(firstword $(FIXED))),$(FIXED))
PIPELINE_NEED := $(if $(MATERIAL),,MATERIAL="-E PA --nu V --rho KG_M3" (SI: a mesh in metres))
ifeq ($(SOUP),)
PIPELINE_NEED += $(if $(or $(SCAN),$(FIXED)),,FIXED="--fixed-box x0,y0,z0,x1,y1,z1" (or --fixed-ids FILE, --fixed-region TAG))
PIPELINE_NEED += $(if $(SURFACE_FIXED),,SURFACE_FIXED="--fixed-box ..." (the support on the surface; FIXED's box or region by default))
endif
ifneq ($(strip $(PIPELINE_NEED)),)
$(error pipeline.mk: your own model needs $(strip $(PIPELINE_NEED)); the shipped dragon's settings are not defaults for it)
endif
endif
# Subdivision of the surface the BEM and wavelet GFs live on: Loop smooths
# (the dragon); linear keeps a CAD part's faces, edges and corners where they
# are, so that BEM and FEM see the same body [loop for the dragon, else linear].
SCHEME   ?= $(if $(DEMO),loop,linear)
PROJECT  ?=
MODES    ?= -k 20 -r 30
MG_LEVELS ?= 3
CUBATURE ?= yes
CUBATURE_H5 = $(if $(CUBATURE),$(OUT)/cubature.h5)
LOADS    ?= $(OUT)/gravity.loads
FULLSIM  ?= --dt 0.0033333333333333335 -n 60 --alpha 0.5
OUT      ?= demo-out
ifeq ($(SCAN),)
MESH     ?= data/models/asianDragon/asianDragon.veg
FIXED    ?= --fixed-ids data/models/asianDragon/asianDragon.bou
LEVELS   ?= 1
EPS      ?= 0.05
SURFACE_FROM := $(MESH)
else
MESH     := $(OUT)/interior.ele
FIXED    ?= $(SURFACE_FIXED)
LEVELS   ?= 2
EPS      ?= 0.003
SURFACE_FROM := $(SCAN)
endif
LEVEL    ?=
DIRECT   ?= $(if $(SCAN),$(if $(filter 0 1 2,$(LEVELS)),,yes))

PARTS    ?=

PROJECT_OPT := $(if $(PROJECT),--project-onto $(PROJECT))
SCAN_OPT := $(if $(SCAN),--base $(BASE),--scheme $(SCHEME))

HIER_OPT := $(if $(SCAN),--hierarchy $(OUT)/surface.h5)
HIER_DEP := $(if $(SCAN),$(OUT)/surface.h5)
DENSE_GF := $(if $(DIRECT),,$(OUT)/gf-fem.h5 $(OUT)/gf-bem.h5)
VEGA     := $(addprefix $(OUT)/vega/model.,veg bou U cub)
LEVEL_GF := $(if $(LEVEL),$(OUT)/gf-fem-level.h5)

# $(call pipeline_goal,GOAL,VAR,OUTPUTS): a pipeline other than the demo's,
# the default goal when VAR is set on the command line (SOUP=, SDF=...).
define pipeline_goal
ifneq ($$($2),)
.DEFAULT_GOAL := $1
endif
.PHONY: $1
$1: $3
	@echo "pipeline: done; outputs in $$(OUT)/"
endef

.PHONY: all
all: $(OUT)/surface.h5 $(OUT)/surface.obj $(DENSE_GF) $(OUT)/gf-wavelet.h5 $(LEVEL_GF) \
     $(OUT)/modes.h5 $(OUT)/cubic.h5 $(CUBATURE_H5) $(VEGA) $(OUT)/fem.h5 $(OUT)/multigrid.h5 $(OUT)/rtcheck.txt \
     $(if $(SCAN),$(OUT)/gf-fem-wavelet.h5)
	@echo "pipeline: done; outputs in $(OUT)/"

$(OUT)/surface.h5: $(SURFACE_FROM) $(PROJECT) $(BIN)/loopsub
	@mkdir -p $(OUT)
	$(BIN)/loopsub $(SURFACE_FROM) $(SCAN_OPT) -l $(LEVELS) $(PROJECT_OPT) $(SURFACE_FIXED) -o $@

$(OUT)/surface.obj $(OUT)/surface.off: $(OUT)/surface.h5 $(BIN)/loopsub
	$(BIN)/loopsub -q $< -l 0 -o $@

# The interior: TetGen writes surface.1.*; the .ele, which make takes as the
# target, is renamed last, so an interrupted run leaves no complete-looking
# interior.
$(OUT)/interior.ele: $(OUT)/surface.off
	tetgen $(TETGEN) -Q $<
	@mv $(OUT)/surface.1.node $(OUT)/interior.node
	@rm -f $(OUT)/surface.1.face $(OUT)/surface.1.edge $(OUT)/surface.1.smesh
	@mv $(OUT)/surface.1.ele $@

ifeq ($(DIRECT),)
$(OUT)/gf-fem-wavelet.h5: $(OUT)/gf-fem.h5 $(OUT)/surface.h5 $(BIN)/gfcompress
	$(BIN)/gfcompress $< --hierarchy $(OUT)/surface.h5 --eps $(EPS) -o $@
else
# Compressed as solved: the dense GFs never exist (femcondense(1) --wavelet).
$(OUT)/gf-fem-wavelet.h5: $(MESH) $(OUT)/surface.h5 $(BIN)/femcondense
	$(BIN)/femcondense $(MESH) $(FIXED) $(MATERIAL) --wavelet linear --eps $(EPS) --hierarchy $(OUT)/surface.h5 -o $@
endif

# Hierarchical constraints at LEVEL, solved directly (000 §3.5.3, §3.6).
$(OUT)/gf-fem-level.h5: $(MESH) $(HIER_DEP) $(BIN)/femcondense
	@mkdir -p $(OUT)
	$(BIN)/femcondense $(MESH) $(FIXED) $(MATERIAL) --constraint-level $(LEVEL) $(HIER_OPT) -o $@

ifeq ($(PARTS),)
$(OUT)/gf-fem.h5: $(MESH) $(BIN)/femcondense
	@mkdir -p $(OUT)
	$(BIN)/femcondense $(MESH) $(FIXED) $(MATERIAL) -o $@
endif

ifeq ($(PARTS),)
$(OUT)/gf-bem.h5: $(OUT)/surface.h5 $(BIN)/bemsolve
	$(BIN)/bemsolve $< $(MATERIAL) --check -o $@
endif

# The sweep table goes to a file written whole by the shell's rename, so make
# never sees half of it.
ifeq ($(DIRECT),)
$(OUT)/gf-wavelet.h5: $(OUT)/gf-bem.h5 $(BIN)/gfcompress
	$(BIN)/gfcompress $< --eps $(EPS) --sweep 0.01,0.02,0.05,0.1,0.2 -o $@ >$(OUT)/gf-wavelet.txt.tmp
	@mv $(OUT)/gf-wavelet.txt.tmp $(OUT)/gf-wavelet.txt
	@cat $(OUT)/gf-wavelet.txt
else
$(OUT)/gf-wavelet.h5: $(OUT)/surface.h5 $(BIN)/bemsolve
	$(BIN)/bemsolve $< $(MATERIAL) --wavelet linear --eps $(EPS) -o $@
endif

ifeq ($(PARTS),)
$(OUT)/modes.h5: $(MESH) $(BIN)/moddesc
	@mkdir -p $(OUT)
	$(BIN)/moddesc $(MESH) $(FIXED) $(MATERIAL) $(MODES) -o $@
endif

ifeq ($(PARTS),)
$(OUT)/cubic.h5: $(OUT)/modes.h5 $(BIN)/polycoef
	$(BIN)/polycoef $< -o $@
endif

# Hyper-reduction (issue 42): a cubature of the modes' basis, the other
# answer to the reduced forces (cubature(1) says when to choose which).
$(OUT)/cubature.h5: $(OUT)/modes.h5 $(BIN)/cubature
	$(BIN)/cubature $< -o $@

# Georgii's data (issue 44): the matrices a simulator loads, with the reduced
# mass and gravity of the modes' basis (femdata(1)); a multigrid hierarchy,
# which rtcheck runs V-cycles and a corotated step on (mghier(1)).
$(OUT)/fem.h5: $(OUT)/modes.h5 $(BIN)/femdata
	$(BIN)/femdata $< -o $@

$(OUT)/multigrid.h5: $(MESH) $(BIN)/mghier
	@mkdir -p $(OUT)
	$(BIN)/mghier $(MESH) $(FIXED) $(MATERIAL) -l $(MG_LEVELS) -o $@

# The full-space reference and the reduced model's error along it (fullsim(1)).
$(OUT)/gravity.loads:
	@mkdir -p $(OUT)
	printf 'gravity 0 -9.81 0 ramp 0.05\n' >$@

$(OUT)/trajectory.h5: $(MESH) $(LOADS) $(BIN)/fullsim
	$(BIN)/fullsim $(MESH) $(LOADS) $(FIXED) $(MATERIAL) $(FULLSIM) -o $@

$(OUT)/rtcheck-reference.txt: $(OUT)/trajectory.h5 $(OUT)/cubic.h5 $(BIN)/rtcheck
	$(BIN)/rtcheck --reference $(OUT)/trajectory.h5 $(OUT)/cubic.h5 --reference-tol 1e9 >$@.tmp
	@mv $@.tmp $@

# Vega FEM reads the reduced model as it reads its own (epexport(1)).
$(OUT)/vega/model.%: $(OUT)/cubic.h5 $(BIN)/epexport
	@mkdir -p $(OUT)/vega
	$(BIN)/epexport -q $< -o $@

# The demo ends by verifying every file the pipeline made.
# Direct runs have no dense GFs to compare the wavelet ones with.
RTCHECK_FILES := $(OUT)/surface.h5 $(DENSE_GF) $(LEVEL_GF) $(OUT)/modes.h5 $(OUT)/cubic.h5 $(CUBATURE_H5) \
                 $(OUT)/multigrid.h5
$(OUT)/rtcheck.txt: $(RTCHECK_FILES) $(OUT)/gf-wavelet.h5 $(if $(SCAN),$(OUT)/gf-fem-wavelet.h5) $(BIN)/rtcheck
	@rm -f $@.tmp
	@for f in $(RTCHECK_FILES); do \
	    echo "$(BIN)/rtcheck $$f"; $(BIN)/rtcheck $$f >>$@.tmp || exit 1; done
	$(BIN)/rtcheck $(OUT)/gf-wavelet.h5 $(if $(DIRECT),,--reference $(OUT)/gf-bem.h5) >>$@.tmp
	$(if $(SCAN),$(BIN)/rtcheck $(OUT)/gf-fem-wavelet.h5 $(if $(DIRECT),,--reference $(OUT)/gf-fem.h5) >>$@.tmp)
	@mv $@.tmp $@
	@grep -E "FAILED|us$$" $@ | sed 's/^rtcheck: //'

# --- a voxel model from a triangle soup (SOUP=...): voxelize -> moddesc ->
# polycoef -> embed -> rtcheck; the soup is the render mesh.
RES        ?= 32
VOXEL      ?= --largest
SOUP_FIXED ?= --free
$(eval $(call pipeline_goal,soup,SOUP,$(OUT)/rtcheck-soup.txt))

$(OUT)/voxels.h5: $(SOUP) $(BIN)/voxelize
	@mkdir -p $(OUT)
	$(BIN)/voxelize $(SOUP) -R $(RES) $(VOXEL) $(MATERIAL) -o $@

$(OUT)/voxel-modes.h5: $(OUT)/voxels.h5 $(BIN)/moddesc
	$(BIN)/moddesc $< $(SOUP_FIXED) $(MODES) -o $@

$(OUT)/voxel-cubic.h5: $(OUT)/voxel-modes.h5 $(BIN)/polycoef
	$(BIN)/polycoef $< -o $@

$(OUT)/render.h5: $(OUT)/voxels.h5 $(SOUP) $(OUT)/voxel-cubic.h5 $(BIN)/embed
	$(BIN)/embed $< $(SOUP) --modes $(OUT)/voxel-cubic.h5 -o $@

$(OUT)/rtcheck-soup.txt: $(OUT)/voxel-cubic.h5 $(OUT)/render.h5 $(BIN)/rtcheck
	$(BIN)/rtcheck $(OUT)/voxel-cubic.h5 >$@.tmp
	$(BIN)/rtcheck $(OUT)/render.h5 $(OUT)/voxel-cubic.h5 >>$@.tmp
	@mv $@.tmp $@
	@grep -E "FAILED|us$$" $@ | sed 's/^rtcheck: //'

# --- contact data from a mesh or soup (SDF=...): distfield -> rtcheck.
DISTFIELD ?=
$(eval $(call pipeline_goal,sdf,SDF,$(OUT)/rtcheck-sdf.txt $(OUT)/distfield.dist))

$(OUT)/distfield.h5: $(SDF) $(BIN)/distfield
	@mkdir -p $(OUT)
	$(BIN)/distfield $(SDF) --res $(RES) $(DISTFIELD) -o $@

$(OUT)/distfield.dist: $(SDF) $(BIN)/distfield
	@mkdir -p $(OUT)
	$(BIN)/distfield -q $(SDF) --res $(RES) $(DISTFIELD) -o $@

$(OUT)/rtcheck-sdf.txt: $(OUT)/distfield.h5 $(BIN)/rtcheck
	$(BIN)/rtcheck $< >$@.tmp
	@mv $@.tmp $@
	@grep -E "FAILED|us$$" $@ | sed 's/^rtcheck: //'

# --- pointshell contact (CONTACT=...): the reduced model's pointshell against
# the field of a second object, with the Newmark step in the loop.
POINTSHELL ?= --levels 4 --first 320
CONTACT_RES ?= 128
$(eval $(call pipeline_goal,contact,CONTACT,$(OUT)/rtcheck-contact.txt))

$(OUT)/pointshell.h5: $(MESH) $(OUT)/modes.h5 $(BIN)/pointshell
	$(BIN)/pointshell $(MESH) --modes $(OUT)/modes.h5 $(POINTSHELL) -o $@

$(OUT)/contact-field.h5: $(CONTACT) $(BIN)/distfield
	@mkdir -p $(OUT)
	$(BIN)/distfield $(CONTACT) --res $(CONTACT_RES) -o $@

$(OUT)/rtcheck-contact.txt: $(OUT)/pointshell.h5 $(OUT)/contact-field.h5 $(OUT)/cubic.h5 $(BIN)/rtcheck
	$(BIN)/rtcheck $(OUT)/pointshell.h5 $(OUT)/contact-field.h5 $(OUT)/cubic.h5 >$@.tmp
	@mv $@.tmp $@
	@grep -E "FAILED|us$$" $@ | sed 's/^rtcheck: //'

# PARTS=N: each splittable step as N parts and one merge (epmerge(1)).
ifneq ($(PARTS),)
PART_IDS := $(shell seq 0 $$(($(PARTS) - 1)))

$(OUT)/parts/gf-fem.%.h5: $(MESH) $(BIN)/femcondense
	@mkdir -p $(OUT)/parts
	$(BIN)/femcondense -q $(MESH) $(FIXED) $(MATERIAL) --part $*/$(PARTS) -o $@

$(OUT)/parts/gf-bem.%.h5: $(OUT)/surface.h5 $(BIN)/bemsolve
	@mkdir -p $(OUT)/parts
	$(BIN)/bemsolve -q $< $(MATERIAL) --part $*/$(PARTS) -o $@

$(OUT)/parts/modes.0.h5: $(MESH) $(BIN)/moddesc
	@mkdir -p $(OUT)/parts
	$(BIN)/moddesc -q $(MESH) $(FIXED) $(MATERIAL) $(MODES) --part 0/$(PARTS) -o $@

$(OUT)/parts/modes.%.h5: $(OUT)/parts/modes.0.h5 $(MESH) $(BIN)/moddesc
	$(BIN)/moddesc -q $(MESH) $(FIXED) $(MATERIAL) $(MODES) --modes $< --part $*/$(PARTS) -o $@

$(OUT)/parts/cubic.%.h5: $(OUT)/modes.h5 $(BIN)/polycoef
	@mkdir -p $(OUT)/parts
	$(BIN)/polycoef -q $< --part $*/$(PARTS) -o $@

define merge_parts
$(OUT)/$(1).h5: $(foreach i,$(PART_IDS),$(OUT)/parts/$(1).$(i).h5) $(BIN)/epmerge
	$(BIN)/epmerge $$(filter %.h5,$$^) -o $$@
endef
$(foreach s,gf-fem gf-bem modes cubic,$(eval $(call merge_parts,$(s))))
endif

# --- bonded zones (ZONES="1 2 ..."): each region tag of MESH its own model
# (zonesplit: its elements, the seam held), its GFs with every column
# (lumped traction: the bond is exact, DECISIONS), bonded by rtcheck --zones.
ZONES ?=
ZONE_GFS := $(foreach z,$(ZONES),$(OUT)/gf-zone-$(z).h5)
.SECONDARY: $(foreach z,$(ZONES),$(OUT)/zone-$(z).h5) # kept: their sidecars name them
$(eval $(call pipeline_goal,zones,ZONES,$(OUT)/rtcheck-zones.txt))

$(OUT)/zone-%.h5: $(MESH) $(BIN)/zonesplit
	@mkdir -p $(OUT)
	$(BIN)/zonesplit $(MESH) --region $* $(FIXED) $(MATERIAL) -o $@

$(OUT)/gf-zone-%.h5: $(OUT)/zone-%.h5 $(BIN)/femcondense
	$(BIN)/femcondense $< $(MATERIAL) --traction lumped --columns all -o $@

$(OUT)/rtcheck-zones.txt: $(ZONE_GFS) $(BIN)/rtcheck
	$(BIN)/rtcheck --zones $(ZONE_GFS) >$@.tmp
	@mv $@.tmp $@
	@grep -E "FAILED|us$$" $@ | sed 's/^rtcheck: //'
