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
    if ((st = ep_ranks_agree(st)))
        return st;
    if (!w->dense) { /* every rank compresses its own columns */
        const ep_gf_layout *L = f->L;
        if (!(w->slot_domain = ep_malloc((size_t)L->n, 1)))
            return ep_ranks_agree(EP_ECOMPUTE);
        for (int s = 0; s < L->n; s++) /* as gfsink: domain 0 free rows, 1 fixed rows */
            w->slot_domain[s] = L->row_fixed[f->W.slot_row[s]];
        return ep_ranks_agree(ep_gfzip_init(&w->z, &f->W, w->slot_domain, f->threshold_base));
    }
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
    /* A collective write whose MPI-IO is each rank's own: a rank's rows
     * are one contiguous slab of /gf/xi, and two-phase I/O would route
     * them through an aggregator (on one node rank 0, which then held 3/4
     * of every block beside its share at P = 4: doc/DECISIONS.md). */
    H5Pset_dxpl_mpio(w->w.dxpl, H5FD_MPIO_COLLECTIVE);
    H5Pset_dxpl_mpio_collective_opt(w->w.dxpl, H5FD_MPIO_INDIVIDUAL_IO);
    if (w->par.id < 0 || (w->w.xi = H5Dopen2(w->par.id, "/gf/xi", H5P_DEFAULT)) < 0)
        st = ep_fail(EP_EIO, "%s: cannot open for parallel writing (MPI-IO)", cli->output);
    return ep_ranks_agree(st);
}

/* Grow the buffers of this rank's compressed columns to nc. */
static int reserve(ep_gfmpi *w, int nc)
{
    if (nc <= w->cap)
        return EP_OK;
    free(w->nnz), free(w->slot), free(w->blk);
    w->cap = 0;
    w->nnz = ep_malloc((size_t)nc, sizeof *w->nnz);
    w->slot = ep_malloc((size_t)nc * w->z.n, sizeof *w->slot);
    w->blk = ep_malloc((size_t)nc * 9 * w->z.n, sizeof *w->blk);
    if (!w->nnz || !w->slot || !w->blk)
        return EP_ECOMPUTE;
    w->cap = nc;
    return EP_OK;
}

/* This rank's nc compressed columns to rank 0, which writes every rank's
 * in rank order (the columns' order: bemmpi hands rank r the r-th share of
 * the block). */
static int gather_write(ep_gfmpi *w, int nc)
{
    int P = w->g->size, root = w->g->rank == 0, st = EP_OK, n = w->z.n, kept = 0;
    int *cnt = ep_calloc((size_t)3 * P, sizeof *cnt), *dsp = cnt ? cnt + P : NULL, *kcnt = cnt ? cnt + 2 * P : NULL;
    for (int c = 0; c < nc; c++) { /* packed: the kept slots and blocks of one column after another */
        memmove(&w->slot[kept], &w->slot[(size_t)c * n], sizeof(int) * (size_t)w->nnz[c]);
        memmove(&w->blk[9 * (size_t)kept], &w->blk[9 * (size_t)c * n], 9 * sizeof(float) * (size_t)w->nnz[c]);
        kept += w->nnz[c];
    }
    if ((st = ep_ranks_agree(cnt ? EP_OK : EP_ECOMPUTE))) {
        free(cnt);
        return st;
    }
    MPI_Gather(&nc, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&kept, 1, MPI_INT, kcnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t tcols = 0, tkept = 0;
    if (root) {
        for (int r = 0; r < P; r++)
            tcols += (size_t)cnt[r], tkept += (size_t)kcnt[r];
        if (tcols > w->all_ncols) {
            free(w->all_nnz);
            w->all_ncols = 0;
            if ((w->all_nnz = ep_malloc(tcols, sizeof *w->all_nnz)))
                w->all_ncols = tcols;
            else
                st = EP_ECOMPUTE;
        }
        if (tkept > w->all_cap || !w->all_slot) {
            free(w->all_slot), free(w->all_blk);
            w->all_cap = tkept > 1 ? tkept : 1;
            w->all_slot = ep_malloc(w->all_cap, sizeof *w->all_slot);
            w->all_blk = ep_malloc(9 * w->all_cap, sizeof *w->all_blk);
            if (!w->all_slot || !w->all_blk)
                st = EP_ECOMPUTE, w->all_cap = 0;
        }
    }
    if ((st = ep_ranks_agree(st))) {
        free(cnt);
        return st;
    }
    for (int pass = 0; pass < 3; pass++) { /* nnz, slots, blocks */
        int *counts = pass == 0 ? cnt : kcnt;
        for (int r = 0, at = 0; root && r < P; r++)
            dsp[r] = at, at += counts[r];
        if (pass == 0)
            MPI_Gatherv(w->nnz, nc, MPI_INT, w->all_nnz, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
        else if (pass == 1)
            MPI_Gatherv(w->slot, kept, MPI_INT, w->all_slot, kcnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
        else {
            for (int r = 0; root && r < P; r++)
                kcnt[r] *= 9, dsp[r] *= 9;
            MPI_Gatherv(w->blk, 9 * kept, MPI_FLOAT, w->all_blk, kcnt, dsp, MPI_FLOAT, 0, MPI_COMM_WORLD);
        }
    }
    ep_gfsink *k = &w->form->sink;
    for (size_t c = 0, at = 0; root && c < tcols && !st; at += (size_t)w->all_nnz[c], c++)
        st = ep_gfw_writer_put(&k->w, w->all_nnz[c], &w->all_slot[at], &w->all_blk[9 * at]);
    if (root) /* the rows the serial sink would have had */
        k->buf0 = k->next += 3L * (long)tcols;
    free(cnt);
    return st; /* the solver agrees it */
}

/* Dense: every rank writes its rows, one collective write.  Compressed:
 * every rank compresses its columns (gfzip.h, as the serial sink), rank 0
 * writes them. */
static int put_rows(void *ctx, long row0, long nrows, const double *rows)
{
    ep_gfmpi *w = ctx;
    (void)row0;
    if (w->dense)
        return ep_gf_writer_put(&w->w, row0, nrows, rows);
    int nc = (int)(nrows / 3), st = reserve(w, nc);
    if (!st && nc)
        st = ep_gfzip_block(&w->z, rows, nc, &w->form->eps, 1, &w->tl, w->nnz, w->slot, w->blk);
    if ((st = ep_ranks_agree(st)))
        return st;
    return gather_write(w, nc);
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
    return (ep_gf_sink){.put = put_rows, .progress = progress, .ctx = w}; /* .stage NULL: bemmpi reports no stages */
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
    if (!w->dense) { /* the ranks' errors and counts, added up as the serial sink's */
        ep_gfzip_tally *t = &w->tl, sum;
        MPI_Reduce(t->err2, sum.err2, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(t->ref2, sum.ref2, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&t->maxrel_free, &sum.maxrel_free, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&t->maxrel, &sum.maxrel, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(t->nnz, sum.nnz, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (w->g->rank == 0)
            w->form->sink.tl[0] = sum;
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
    ep_gfzip_free(&w->z);
    free(w->slot_domain), free(w->nnz), free(w->slot), free(w->blk);
    free(w->all_nnz), free(w->all_slot), free(w->all_blk);
    memset(w, 0, sizeof *w);
}
