/*
 * gf_zfp — what a general-purpose lossy compressor does with the same dense
 * GFs (used by gfcompress.sh): gf_zfp GF.h5 RMS1 [RMS2 ...] compresses /gf/xi
 * as a 2D float32 array with ZFP in fixed-accuracy mode over a ladder of
 * tolerances and prints, for each target relative RMS error, the compression
 * (float32 bytes / ZFP bytes) at that error, interpolated log-log between the
 * ladder's neighbours: "rms compression" per line.
 */
#include <math.h>
#include <zfp.h>

#include "bench.h"
#include "err.h"
#include "gf.h"

#define NTOL 16

/* Compress and decompress a[ny][nx] at tolerance tol: ratio and RMS error. */
static void zfp_run(const float *a, float *b, size_t nx, size_t ny, double tol, double ref2, double *ratio,
                    double *rms)
{
    zfp_field *in = zfp_field_2d((void *)a, zfp_type_float, nx, ny), *out = zfp_field_2d(b, zfp_type_float, nx, ny);
    zfp_stream *z = zfp_stream_open(NULL);
    zfp_stream_set_accuracy(z, tol);
    size_t cap = zfp_stream_maximum_size(z, in);
    void *buf = malloc(cap);
    bitstream *bs = stream_open(buf, cap);
    zfp_stream_set_bit_stream(z, bs);
    zfp_stream_rewind(z);
    size_t bytes = zfp_compress(z, in);
    zfp_stream_rewind(z);
    zfp_decompress(z, out);
    double e2 = 0;
    for (size_t i = 0; i < nx * ny; i++)
        e2 += ((double)b[i] - a[i]) * ((double)b[i] - a[i]);
    *ratio = 4.0 * nx * ny / (double)bytes;
    *rms = sqrt(e2 / ref2);
    stream_close(bs);
    zfp_stream_close(z);
    zfp_field_free(in);
    zfp_field_free(out);
    free(buf);
}

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    ep_gf_file g;
    if (argc < 3 || ep_gf_file_open(&g, argv[1], "gf")) {
        fprintf(stderr, "gf_zfp: %s\n", argc >= 3 ? ep_errmsg() : "usage: gf_zfp GF.h5 RMS...");
        return 1;
    }
    size_t nx = 3 * (size_t)g.L.n, ny = 3 * (size_t)g.L.m;
    double *row = malloc(sizeof *row * nx), ref2 = 0, amax = 0;
    float *a = malloc(sizeof *a * nx * ny), *b = malloc(sizeof *b * nx * ny);
    for (size_t r = 0; r < ny; r++) {
        if (ep_gf_file_rows(&g, (long)r, 1, row))
            return 1;
        for (size_t j = 0; j < nx; j++) {
            a[r * nx + j] = (float)row[j];
            ref2 += row[j] * row[j];
            amax = fmax(amax, fabs(row[j]));
        }
    }
    double tol[NTOL], ratio[NTOL], rms[NTOL];
    for (int k = 0; k < NTOL; k++) {
        tol[k] = amax * pow(10.0, -0.25 * (k + 2));
        zfp_run(a, b, nx, ny, tol[k], ref2, &ratio[k], &rms[k]);
    }
    for (int i = 2; i < argc; i++) {
        double want = atof(argv[i]), c = NAN;
        for (int k = 0; k + 1 < NTOL; k++) /* rms falls as the tolerance falls */
            if (rms[k] >= want && rms[k + 1] <= want && rms[k + 1] > 0) {
                double t = log(want / rms[k]) / log(rms[k + 1] / rms[k]);
                c = exp(log(ratio[k]) + t * (log(ratio[k + 1]) - log(ratio[k])));
            }
        printf("%g %.4g\n", want, c);
    }
    ep_gf_file_close(&g);
    free(row), free(a), free(b);
    return 0;
}
