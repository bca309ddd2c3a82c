#!/bin/sh
# OpenBLAS's kernels (blas.h, ep_blas_kernels_for_cpu): Debian 12's OpenBLAS
# 0.3.21 falls back to its generic Prescott kernels on a CPU model it does
# not know, and a tool then sets OPENBLAS_CORETYPE by the instructions the
# CPU reports and starts again, once; a kernel the user names is kept.
# OPENBLAS_VERBOSE=2 makes OpenBLAS print its "Core:" as it loads.
. "$(dirname "$0")/common"
D=data
run() { OPENBLAS_VERBOSE=2 "$@" "$BIN/loopsub" -q $D/icosahedron.obj -l 1 -o "$WORK/l.obj" 2>&1 | sed -n 's/^Core: //p' | tr '\n' ' '; }

cores=$(run env -u OPENBLAS_CORETYPE)
first=${cores%% *}
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { for f in "$@"; do case " $flags " in *" $f "*) ;; *) return 1 ;; esac; done; }
if [ "$first" != Prescott ]; then
    check "OpenBLAS chose its own kernels ($first): the tool does not start again" [ "$cores" = "$first " ]
elif has avx512f avx512bw avx512dq avx512vl; then
    check "Prescott on an AVX-512 CPU: started again once with SkylakeX ($cores)" [ "$cores" = "Prescott SkylakeX " ]
elif has avx2 fma; then
    check "Prescott on an AVX2 CPU: started again once with Haswell ($cores)" [ "$cores" = "Prescott Haswell " ]
else
    check "Prescott on a CPU without AVX2: kept ($cores)" [ "$cores" = "Prescott " ]
fi
check "OPENBLAS_CORETYPE given by the user is kept (no second start)" [ "$(run env OPENBLAS_CORETYPE=Prescott)" = "Prescott " ]
check "the output is written after a restart" [ -s "$WORK/l.obj" ]
finish
