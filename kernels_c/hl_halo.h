/* hl_halo.h: the phases of a halo-exchange code, for halo2d, halo3d and the labs' own halo
 * kernels (include it after hybridlab.h).
 *
 * Stathopoulos 2010, section 4.6 breaks a halo code's time down into: stencil and copy, halo
 * exchange, the reduction of the convergence test, waiting at barriers, and the whole iteration
 * loop. A halo kernel times these with hybridlab.h's per-thread timers (hl_phase,
 * hl_barrier_phase) and reports them with hl_halo_emit.
 */
#ifndef HL_HALO_H
#define HL_HALO_H

#include "hybridlab.h"

/* The largest grid (interior points over all ranks) a halo kernel accepts: a guard against a
 * typo filling the machine's memory. A simulated run (hybridlab.simulate, SimGrid SMPI) folds
 * the ranks' arrays onto shared pages and builds with -DHL_HALO_MAX_POINTS=... to run the
 * paper-size grids of Stathopoulos 2010 (3072 x 768 x 384 on 128 ranks). */
#ifndef HL_HALO_MAX_POINTS
#define HL_HALO_MAX_POINTS 400000000L
#endif

enum { HL_JACOBI, HL_HALO, HL_REDUCTION, HL_OTHER, HL_TOTAL, HL_HALO_PHASES };
static const char *const hl_halo_phase_names[HL_HALO_PHASES] = {"jacobi", "halo", "reduction",
                                                                "other", "total"};

/* The halo records of every thread: one "timer" record per phase and, when the threads kept a
 * timeline of `keep` > 0 iterations, one "timeline" record per interval (with
 * "recorded_iterations":keep), both followed by `tail` (the run's own fields). Collective over
 * ctx->comm (the timeline is checked first); 0, or -1 with ctx->error set. */
static inline int hl_halo_emit(hl_ctx *ctx, const hl_timers *acc, int nthreads, long keep,
                               double origin, const char *tail) {
    if (keep > 0 && hl_timeline_check(ctx, acc, nthreads) != 0) return -1;
    hl_emit_timers(ctx, acc, nthreads, hl_halo_phase_names, HL_HALO_PHASES, "%s", tail);
    if (keep > 0)
        hl_emit_timeline(ctx, acc, nthreads, hl_halo_phase_names, HL_HALO_PHASES, origin,
                         "%s,\"recorded_iterations\":%ld", tail, keep);
    return 0;
}

#endif /* HL_HALO_H */
