/*
 * fuzz_name.c — libFuzzer target for the XDMF sidecars' name path (make
 * fuzz-name; issue 37, class 4; one sidecar per grid, issue 45): an input is
 * an output file name.  Each part's sidecar name (ep_xdmf_name) must end in
 * ".xmf" (".PART.xmf" for all but the mesh), differ from the name and from
 * every other part's; when ep_xdmf_href_ok accepts the base name, the
 * sidecars written for it over a pointshell file (three grids: the mesh,
 * its surface, the points; ep_xdmf_write into memory) must
 * hold no control character and no "--" inside their comment, and a sidecar
 * on disk must be recognized as one of that name (ep_xdmf_is_sidecar_of,
 * which the commit trusts to remove a stale one) and not as one of another
 * name; when it refuses, ep_xdmf_write must refuse too.  Any crash, leak, UB
 * report or abort() below is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5.h"
#include "xdmf.h"

#ifndef EP_FUZZ_SEEDS
#define EP_FUZZ_SEEDS "tests/fuzz/h5seeds"
#endif

/* The sidecar text: one comment, no "--" in it, no control character. */
static void check_text(const char *buf, size_t len)
{
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ep_h5 f;
    static int opened;
    static char tmp[64];
    char name[600], side[EP_XDMF_NPARTS][700];
    if (size >= 512)
        return 0;
    memcpy(name, data, size);
    name[size] = '\0';
    if (!opened) {
        if (ep_h5_open(&f, EP_FUZZ_SEEDS "/pointshell.h5", NULL))
            abort();
        snprintf(tmp, sizeof tmp, "/tmp/fuzz_name.%d.xmf", (int)getpid());
        opened = 1;
    }
    for (int p = 0; p < EP_XDMF_NPARTS; p++) {
        if (ep_xdmf_name(name, p, side[p], sizeof side[p])) {
            side[p][0] = '\0';
            continue;
        }
        char end[32];
        size_t n = strlen(side[p]);
        snprintf(end, sizeof end, "%s%s.xmf", p ? "." : "", ep_xdmf_part_name(p));
        if (n < strlen(end) || strcmp(side[p] + n - strlen(end), end) || !strcmp(side[p], name))
            abort();
        for (int q = 0; q < p; q++)
            if (side[q][0] && !strcmp(side[p], side[q]))
                abort();
    }
    const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
    char *buf[EP_XDMF_NPARTS] = {0};
    size_t len[EP_XDMF_NPARTS] = {0};
    FILE *fp[EP_XDMF_NPARTS];
    unsigned parts = 0;
    for (int p = 0; p < EP_XDMF_NPARTS; p++)
        fp[p] = open_memstream(&buf[p], &len[p]);
    int st = ep_xdmf_write(fp, &f, base, NULL, &parts);
    for (int p = 0; p < EP_XDMF_NPARTS; p++)
        fclose(fp[p]);
    unsigned three = 1u << EP_XDMF_MESH | 1u << EP_XDMF_SURFACE | 1u << EP_XDMF_POINTSHELL;
    if (ep_xdmf_href_ok(base) != !st || (!st && parts != three))
        abort();
    for (int p = 0; !st && p < EP_XDMF_NPARTS; p++) {
        if (!(parts & 1u << p)) {
            if (len[p])
                abort(); /* a part not written stays untouched */
            continue;
        }
        check_text(buf[p], len[p]);
        if (p == EP_XDMF_MESH) { /* on disk: its own name's sidecar, no other's */
            char other[600];
            FILE *t = fopen(tmp, "w");
            if (!t || fwrite(buf[p], 1, len[p], t) != len[p] || fclose(t))
                abort();
            snprintf(other, sizeof other, "%sx", base);
            if (!ep_xdmf_is_sidecar_of(tmp, base) || (ep_xdmf_href_ok(other) && ep_xdmf_is_sidecar_of(tmp, other)))
                abort();
            unlink(tmp);
        }
    }
    for (int p = 0; p < EP_XDMF_NPARTS; p++)
        free(buf[p]);
    return 0;
}
