/* hl_memory.h: what a rank's process holds in memory, measured by the kernel (Linux).
 *
 * The proportional set size (PSS, /proc/self/smaps_rollup) counts each resident page once over
 * the processes that map it: a page shared by k ranks (a shared-memory window, MPI's own
 * shared segments, the library's code) adds 1/k page to each, so the PSS of a node's ranks
 * added up is the memory the node really uses. RSS counts a shared page whole in every rank.
 */
#ifndef HL_MEMORY_H
#define HL_MEMORY_H

#include "hybridlab.h"

/* One "memory" record for this rank: kB of PSS (and of its anonymous and shared-memory parts)
 * and of RSS, read now, followed by `tail` (the run's own fields). Not collective. */
static inline void hl_emit_memory(hl_ctx *ctx, const char *tail) {
    long pss = -1, anon = -1, shmem = -1, rss = -1, kb;
    char line[256];
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "Pss: %ld", &kb) == 1) pss = kb;
        else if (sscanf(line, "Pss_Anon: %ld", &kb) == 1) anon = kb;
        else if (sscanf(line, "Pss_Shmem: %ld", &kb) == 1) shmem = kb;
        else if (sscanf(line, "Rss: %ld", &kb) == 1) rss = kb;
    }
    if (f) fclose(f);
    hl_emit(ctx, "\"record\":\"memory\",\"pss_kb\":%ld,\"pss_anon_kb\":%ld,\"pss_shmem_kb\":%ld,"
                 "\"rss_kb\":%ld,%s", pss, anon, shmem, rss, tail);
}

#endif /* HL_MEMORY_H */
