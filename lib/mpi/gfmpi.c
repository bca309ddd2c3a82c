/*
 * gfmpi.c — one GF file from every rank (gfmpi.h).
 */
#include "gfmpi.h"
#include "err.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

int ep_gfmpi_open(ep_gfmpi *w, const ep_ranks_grid *g, ep_gfform *f, ep_cli *cli, const ep_mesh *m,
                  const ep_material *mat, const char *fixed, const char *method, int single)
{
    int st = EP_OK;
    memset(w, 0, sizeof *w);
    w->g = g, w->form = f, w->cli = cli;
    w->dense = !f->wavelet;
    w->ncols = 3L * f->L->n;
    w->par.id = H5I_INVALID_HID;
    w->w.xi = H5I_INVALID_HID;
    if (g->rank == 0) {
        st = ep_gfform_open(f, cli, m, mat, fixed, method, "consistent", single);
        if (!st && w->dense) { /* rank 0 lets go of the file: every rank opens it with MPI-IO */
            if (ep_gf_writer_close(&f->sink.gw) || H5Fflush(cli->out.h5.id, H5F_SCOPE_GLOBAL) < 0 ||
                ep_h5_close(&cli->out.h5))
                st = ep_fail(EP_EIO, "%s: cannot write", cli->output);
        }
    }
    if ((st = ep_ranks_agree(st)) || !w->dense)
        return st;
    char tmp[sizeof cli->out.tmp];
    memcpy(tmp, cli->out.tmp, sizeof tmp);
    MPI_Bcast(tmp, (int)sizeof tmp, MPI_CHAR, 0, MPI_COMM_WORLD);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    w->par.id = H5Fopen(tmp, H5F_ACC_RDWR, fapl); /* collective */
    H5Pclose(fapl);
    snprintf(w->par.path, sizeof w->par.path, "%s", cli->output);
    w->w.f = &w->par;
    w->w.ncols = w->ncols;
    w->w.single = single;
    w->w.row_fixed = f->L->row_fixed;
    w->w.dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(w->w.dxpl, H5FD_MPIO_COLLECTIVE);
    if (w->par.id < 0 || (w->w.xi = H5Dopen2(w->par.id, "/gf/xi", H5P_DEFAULT)) < 0)
        st = ep_fail(EP_EIO, "%s: cannot open for parallel writing (MPI-IO)", cli->output);
    return ep_ranks_agree(st);
}

/* Dense: every rank writes its rows, one collective write.  Compressed:
 * the rows come to rank 0 in rank order (contiguous: bemmpi hands rank r
 * the r-th share of the block) and go to the serial sink. */
static int put_rows(void *ctx, long row0, long nrows, const double *rows)
{
    ep_gfmpi *w = ctx;
    if (w->dense)
        return ep_gf_writer_put(&w->w, row0, nrows, rows);
    int P = w->g->size, st = EP_OK, mine = (int)(nrows * w->ncols);
    int *counts = ep_malloc((size_t)P, sizeof *counts), *displs = ep_malloc((size_t)P, sizeof *displs);
    long first = 0;
    if (!counts || !displs)
        st = EP_ECOMPUTE;
    if ((st = ep_ranks_agree(st))) {
        free(counts), free(displs);
        return st;
    }
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t total = 0;
    if (w->g->rank == 0) {
        for (int r = 0; r < P; r++)
            displs[r] = (int)total, total += (size_t)counts[r];
        if (total > w->cap) {
            free(w->rows);
            w->cap = 0;
            if ((w->rows = ep_malloc(total, sizeof *w->rows)))
                w->cap = total;
            else
                st = EP_ECOMPUTE;
        }
    }
    if ((st = ep_ranks_agree(st))) {
        free(counts), free(displs);
        return st;
    }
    MPI_Gatherv(rows, mine, MPI_DOUBLE, w->rows, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    long start = nrows ? row0 : 0x7fffffffffffL;
    MPI_Reduce(&start, &first, 1, MPI_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
    if (w->g->rank == 0 && total)
        st = ep_gfsink_put(&w->form->sink, first, (long)(total / (size_t)w->ncols), w->rows);
    free(counts), free(displs);
    return st; /* the solver agrees it */
}

static void progress(void *ctx, long done, long total)
{
    (void)total;
    ep_gfmpi *w = ctx;
    if (w->g->rank == 0)
        ep_progress_update(&w->form->bar, done);
}

ep_gf_sink ep_gfmpi_sink(ep_gfmpi *w, const char *tool, int quiet)
{
    if (w->g->rank == 0)
        ep_progress_start(&w->form->bar, tool, 3L * w->form->L->m, quiet);
    return (ep_gf_sink){put_rows, progress, w};
}

int ep_gfmpi_close(ep_gfmpi *w)
{
    int st = EP_OK;
    ep_cli *cli = w->cli;
    if (w->dense) { /* collective closes */
        if (ep_gf_writer_close(&w->w) || ep_h5_close(&w->par))
            st = ep_fail(EP_EIO, "%s: cannot write (MPI-IO)", cli->output);
        if ((st = ep_ranks_agree(st)))
            return st;
    }
    if (w->g->rank == 0) {
        ep_progress_end(&w->form->bar);
        if (w->dense) { /* reopen for the sidecar and the commit */
            cli->out.h5.id = H5Fopen(cli->out.tmp, H5F_ACC_RDWR, H5P_DEFAULT);
            if (cli->out.h5.id < 0)
                st = ep_fail(EP_EIO, "%s: cannot reopen after the parallel writes", cli->output);
        }
        if (!st && !(st = ep_gfsink_close(&w->form->sink)))
            st = ep_output_commit(&cli->out);
    }
    return ep_ranks_agree(st);
}

void ep_gfmpi_free(ep_gfmpi *w)
{
    if (w->w.xi > 0)
        H5Dclose(w->w.xi);
    if (w->w.dxpl > 0)
        H5Pclose(w->w.dxpl);
    if (w->par.id > 0)
        H5Fclose(w->par.id);
    free(w->rows);
    memset(w, 0, sizeof *w);
}
