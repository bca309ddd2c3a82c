/*
 * ranks.c — MPI ranks, one status, the BLACS grid (ranks.h).
 */
#include "ranks.h"
#include "cli.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void finalize(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
}

int ep_ranks_start(int *argc, char ***argv)
{
    int rank = 0;
    ep_cli_restart(*argv); /* before MPI_Init: a started rank must not exec */
    MPI_Init(argc, argv);
    atexit(finalize);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) { /* rank 0 speaks for the run */
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            return rank;
    }
    return rank;
}

int ep_ranks_agree(int st)
{
    int rank, size, first;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = st ? rank : size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == size)
        return 0;
    char msg[EP_ERRMSG_MAX + 4];
    int status = st;
    if (rank == first)
        snprintf(msg, sizeof msg, "%s", *ep_errmsg() ? ep_errmsg() : "failed");
    MPI_Bcast(&status, 1, MPI_INT, first, MPI_COMM_WORLD);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, MPI_COMM_WORLD);
    return ep_fail(status, "%s", msg);
}

double ep_ranks_max(double x)
{
    double y = x;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return y;
}

int ep_ranks_grid_init(ep_ranks_grid *g, const char *spec)
{
    memset(g, 0, sizeof *g);
    g->ctxt = g->ctxt_line = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g->size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &g->node_ranks);
    MPI_Comm_free(&node);
    if (spec && *spec) {
        char tail;
        if (sscanf(spec, "%dx%d%c", &g->pr, &g->pc, &tail) != 2 || g->pr < 1 || g->pc < 1)
            return ep_fail(EP_EUSAGE, "--grid wants PRxPC (two positive whole numbers), not '%s'", spec);
        if ((long)g->pr * g->pc != g->size)
            return ep_fail(EP_EUSAGE, "--grid %dx%d needs %ld ranks, the run has %d", g->pr, g->pc,
                           (long)g->pr * g->pc, g->size);
    } else { /* the most nearly square grid: P_c the largest divisor <= sqrt(P) (bemmpi.h: fewer
              * column ranks, fewer triangles integrated twice) */
        for (g->pc = 1; (g->pc + 1) * (g->pc + 1) <= g->size; g->pc++)
            ;
        while (g->size % g->pc)
            g->pc--;
        g->pr = g->size / g->pc;
    }
    int np, one = 1;
    Cblacs_get(-1, 0, &g->ctxt);
    Cblacs_gridinit(&g->ctxt, "Row", g->pr, g->pc);
    Cblacs_gridinfo(g->ctxt, &np, &np, &g->myrow, &g->mycol);
    Cblacs_get(-1, 0, &g->ctxt_line);
    Cblacs_gridinit(&g->ctxt_line, "Row", one, g->size);
    return EP_OK;
}

void ep_ranks_grid_free(ep_ranks_grid *g)
{
    if (g->ctxt >= 0)
        Cblacs_gridexit(g->ctxt);
    if (g->ctxt_line >= 0)
        Cblacs_gridexit(g->ctxt_line);
    g->ctxt = g->ctxt_line = -1;
}
