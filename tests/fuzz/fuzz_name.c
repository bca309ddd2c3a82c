/*
 * fuzz_name.c — libFuzzer target for the XDMF sidecar's name path (make
 * fuzz-name; issue 37, class 4): an input is an output file name.  Its
 * sidecar name (ep_xdmf_name) must end in ".xmf" and differ from it; when
 * ep_xdmf_href_ok accepts the base name, the sidecar written for it over a
 * mesh file (ep_xdmf_write into memory) must hold no control character and
 * no "--" inside its comment; when it refuses, ep_xdmf_write must refuse too.  Any crash,
 * leak, UB report or abort() below is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5.h"
#include "xdmf.h"

#ifndef EP_FUZZ_SEEDS
#define EP_FUZZ_SEEDS "tests/fuzz/h5seeds"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ep_h5 f;
    static int opened;
    char name[600], side[700];
    if (size >= 512)
        return 0;
    memcpy(name, data, size);
    name[size] = '\0';
    if (!opened) {
        if (ep_h5_open(&f, EP_FUZZ_SEEDS "/mesh.h5", NULL))
            abort();
        opened = 1;
    }
    if (!ep_xdmf_name(name, side, sizeof side)) {
        size_t n = strlen(side);
        if (n < 4 || strcmp(side + n - 4, ".xmf") || !strcmp(side, name))
            abort();
    }
    const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    int st = ep_xdmf_write(fp, &f, base, NULL);
    fclose(fp);
    if (ep_xdmf_href_ok(base) != !st)
        abort();
    if (!st) {
        const char *c0 = strstr(buf, "<!--"), *c1 = c0 ? strstr(c0 + 4, "-->") : NULL;
        if (!c0 || !c1)
            abort();
        for (const char *q = c0 + 4; q < c1; q++)
            if (q[0] == '-' && q[1] == '-')
                abort();
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\t')
                abort();
    }
    free(buf);
    return 0;
}
