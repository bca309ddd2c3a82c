/*
 * fuzz_mesh.c — libFuzzer target for the readers of user text files (make
 * fuzz): the mesh formats (binary .msh and STL too), material files and
 * vertex-id (.bou) files.
 *
 * The first byte picks the format; the rest is the file.  For TetGen the input
 * is split at the first '|' into .node and .ele.  A mesh that reads and is a
 * closed surface is also subdivided once, so the derived-data code sees the
 * same adversarial input.  A material file is read for four elements of
 * regions 1, 2, 2, 5; an id file against 100 vertices.  Any crash, leak or
 * UB report is a bug: readers must answer every input with a status.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "material.h"
#include "mesh.h"
#include "select.h"
#include "subdiv.h"

static void put(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fwrite(d, 1, n, f);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *ext[] = {"obj", "off", "msh", "veg", "ele", "mat", "bou", "stl"};
    char path[64], other[64];
    ep_mesh m;
    if (size < 1)
        return 0;
#ifdef EP_FUZZ_VEG
    int k = 3; /* make fuzz-veg: the .veg parser alone (sets, regions, materials) */
#else
    int k = data[0] % 8;
#endif
    data++;
    size--;
    snprintf(path, sizeof path, "/tmp/ep-fuzz-%d.%s", (int)getpid(), ext[k]);
    if (k == 4) {
        const uint8_t *bar = memchr(data, '|', size);
        size_t n = bar ? (size_t)(bar - data) : size;
        snprintf(other, sizeof other, "/tmp/ep-fuzz-%d.node", (int)getpid());
        put(other, data, n);
        put(path, bar ? bar + 1 : data, bar ? size - n - 1 : 0);
    } else {
        put(path, data, size);
    }
    if (k == 5) {
        int region[4] = {1, 2, 2, 5};
        ep_material mat;
        ep_material_init(&mat);
        if (ep_material_read(&mat, path, 4, region) == 0)
            ep_material_free(&mat);
    } else if (k == 6) {
        int *ids, n;
        if (ep_select_read_ids(path, 100, &ids, &n) == 0)
            free(ids);
    } else if (ep_model_read(&m, path) == 0) {
        if (!m.tets && m.nv < 5000 && ep_mesh_check_closed(&m) == 0)
            ep_subdiv_refine(&m, EP_SUBDIV_LOOP, NULL);
        ep_mesh_free(&m);
    }
    unlink(path);
    if (k == 4)
        unlink(other);
    return 0;
}
