#!/bin/sh
# The runtime as a library (issue 19 item 3): `make install` into a staging
# prefix, then the two programs of examples/ built from a copy outside the
# source tree with nothing but `pkg-config elastoprep` (PKG_CONFIG_PATH set to
# the stage), linked to the shared library and to the static one, run on a
# GF file, a gf-wavelet file and a cubic file, and their own checks passing
# (examples/contact.c, examples/newmark.c).  The public headers compile as C
# and as C++, each alone, and examples/press.cpp builds with c++ on the
# installed library and runs (issue 36 item 3).
. "$(dirname "$0")/common"
D=data
case $BIN in
*san*) echo "# skipped under SANITIZE: the installed library is the optimized build"; finish; exit ;;
esac
STAGE="$WORK/stage"
make -s install PREFIX="$STAGE" >"$WORK/install.log" 2>&1
check "make install PREFIX=stage" [ $? -eq 0 ]
for f in lib/libelastoprep.a lib/libelastoprep.so lib/libelastoprep.so.4 lib/pkgconfig/elastoprep.pc \
    include/elastoprep/elastoprep.h share/man/man3/libelastoprep.3 share/man/man3/ep_cma.3 share/man/man3/ep_cma_add.3; do
    check "installed: $f" [ -e "$STAGE/$f" ]
done
check "the shared library's soname is libelastoprep.so.4" sh -c "objdump -p '$STAGE/lib/libelastoprep.so' | grep -q 'SONAME *libelastoprep.so.4'"
# Every symbol the library exports carries the project's prefix (a stray
# global such as distfield.c's old `ncand_total` would clash with a host's).
stray=$(nm -g --defined-only "$STAGE/lib/libelastoprep.a" 2>/dev/null | awk 'NF == 3 && $3 !~ /^(ep_|\.gomp_critical_user_ep_)/ { print $3 }' | sort -u | tr '\n' ' ')
check "every exported symbol starts with ep_ (stray: ${stray:-none})" [ -z "$stray" ]
check "man ep_cma_add finds its page" sh -c "MANPATH='$STAGE/share/man' man -P cat ep_cma_add 2>/dev/null | grep -q ep_cma_add"

export PKG_CONFIG_PATH="$STAGE/lib/pkgconfig"
flags=$(pkg-config --cflags --libs elastoprep)
src=$(pwd)
check "pkg-config names no source-tree path" sh -c "! echo '$flags' | grep -q '$src'"
mkdir -p "$WORK/ex"
cp examples/contact.c examples/newmark.c examples/press.cpp "$WORK/ex/"
cd "$WORK/ex"
# Each installed header alone, as C99 and as C++ (extern "C", no C-only syntax).
hdr_bad=""
for h in "$STAGE"/include/elastoprep/*.h; do
    n=$(basename "$h")
    printf '#include <elastoprep/%s>\nint main(void) { return 0; }\n' "$n" >one.c
    cp one.c one.cpp
    cc -std=c99 -Wall -Wextra -pedantic -Werror -c one.c $(pkg-config --cflags elastoprep) -o one.o 2>>hdr.log || hdr_bad="$hdr_bad $n(C)"
    c++ -Wall -Wextra -pedantic -Werror -c one.cpp $(pkg-config --cflags elastoprep) -o one.o 2>>hdr.log || hdr_bad="$hdr_bad $n(C++)"
done
check "every installed header compiles alone as C99 and as C++${hdr_bad:+: not$hdr_bad}" [ -z "$hdr_bad" ]
check "no installed header needs CHOLMOD's (no cholmod.h, no SuiteSparse folder in --cflags)" sh -c \
    "! grep -l 'include <cholmod' '$STAGE'/include/elastoprep/*.h && ! pkg-config --cflags elastoprep | grep -q suitesparse"
check "every installed header declares its names extern \"C\" under C++" sh -c \
    "for h in '$STAGE'/include/elastoprep/*.h; do [ \$(basename \$h) = elastoprep.h ] || grep -q 'extern \"C\"' \$h || exit 1; done"
c++ -Wall -Wextra press.cpp $flags -o press 2>"$WORK/cc4"
check "press.cpp (C++) builds against the installed library, no warning" sh -c "[ -x press ] && [ ! -s '$WORK/cc4' ]"
cc -Wall -Wextra contact.c $flags -lm -o contact 2>"$WORK/cc1"
check "contact.c builds against the installed library" [ $? -eq 0 ]
cc -Wall -Wextra newmark.c $flags -lm -o newmark 2>"$WORK/cc2"
check "newmark.c builds against the installed library" [ $? -eq 0 ]
cc newmark.c $(pkg-config --cflags elastoprep) -Wl,-Bstatic -lelastoprep -Wl,-Bdynamic \
    $(pkg-config --static --libs elastoprep) -lm -o newmark-static 2>"$WORK/cc3"
check "newmark.c links the static library" [ $? -eq 0 ]
check "warnings: none" sh -c "[ ! -s '$WORK/cc1' ] && [ ! -s '$WORK/cc2' ]"
cd "$src"

B="$BIN"
"$B/loopsub" -q $D/icosahedron.obj -l 2 --fixed-box -2,-2,-2,2,2,-0.6 --no-xdmf -o "$WORK/s2.h5"
"$B/bemsolve" -q "$WORK/s2.h5" -E 1e5 --nu 0.3 --no-xdmf -o "$WORK/gf.h5"
"$B/gfcompress" -q "$WORK/gf.h5" --eps 0.01 --no-xdmf -o "$WORK/w.h5"
"$B/moddesc" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000 \
    -k 6 -r 8 --no-xdmf -o "$WORK/m.h5"
"$B/polycoef" -q "$WORK/m.h5" --no-xdmf -o "$WORK/c.h5"
export LD_LIBRARY_PATH="$STAGE/lib"
check "contact runs on the installed shared library" sh -c "ldd '$WORK/ex/contact' | grep -q '$STAGE/lib/libelastoprep.so.4'"
"$WORK/ex/contact" "$WORK/gf.h5" 12 >"$WORK/c1" 2>&1
check "contact loop on a gf file: its checks pass" [ $? -eq 0 ]
"$WORK/ex/contact" "$WORK/w.h5" 12 >"$WORK/c2" 2>&1
check "contact loop on a gf-wavelet file: its checks pass" [ $? -eq 0 ]
"$WORK/ex/press" "$WORK/gf.h5" 6 >"$WORK/p1" 2>&1
check "press (C++) on a gf file: its check passes" sh -c "[ $? -eq 0 ] && grep -q '^ok$' '$WORK/p1'"
"$WORK/ex/press" "$WORK/w.h5" 6 >"$WORK/p2" 2>&1
check "press (C++) on a gf-wavelet file: its check passes" sh -c "[ $? -eq 0 ] && grep -q '^ok$' '$WORK/p2'"
"$WORK/ex/press" "$WORK/c.h5" >"$WORK/p3" 2>&1
got=$?
check "press (C++) on a cubic file: exit 3 (got $got)" [ $got -eq 3 ]
check "contact: 12 frames printed" [ "$(grep -c '^ *[0-9]* *[0-9]* *-*[0-9]' "$WORK/c1")" = 12 ]
"$WORK/ex/newmark" "$WORK/c.h5" >"$WORK/n1" 2>&1
check "Newmark loop on a cubic file: its checks pass" [ $? -eq 0 ]
"$WORK/ex/newmark-static" "$WORK/c.h5" >"$WORK/n2" 2>&1
check "the statically linked one gives the same output" cmp -s "$WORK/n1" "$WORK/n2"
# A NaN state (issue 37, class 7): the first stiffness coefficient negated, so
# the start deflection sqrt(2e-8 / P11) is NaN; fmax dropped the NaN energy
# and the loop said "ok".
cp "$WORK/c.h5" "$WORK/neg.h5"
/usr/bin/python3 -c "import sys, h5py
f = h5py.File(sys.argv[1], 'a'); p = f['cubic/P'][()]; p[0, 0] = -p[0, 0]; f['cubic/P'][...] = p" "$WORK/neg.h5"
"$WORK/ex/newmark" "$WORK/neg.h5" >"$WORK/n3" 2>&1
got=$?
check "Newmark loop on a NaN state: FAILED, exit 1, the step named (exit $got, was ok)" sh -c "[ $got -eq 1 ] && grep -q '^newmark: step 1: the state is not finite' '$WORK/n3' && grep -qx FAILED '$WORK/n3'"
"$WORK/ex/contact" "$WORK/c.h5" >"$WORK/c3" 2>&1
got=$?
check "contact on a cubic file: exit 3, the reason named (got $got)" sh -c "[ $got -eq 3 ] && grep -q 'kind' '$WORK/c3'"
cat "$WORK/c1" "$WORK/n1" | sed 's/^/# /'
finish
