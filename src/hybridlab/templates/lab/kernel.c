/* {{kernel}}: the sum over all ranks of every rank's values (lab {{lab}}, scaffolded by
 * `hybridlab new-lab`; make it the kernel of your own exercise).
 *
 * Rank r holds n values, value(r, i), shifted by the parameter `salt` (whole numbers, so every
 * order of summing gives the same doubles); its OpenMP threads make them. Every rank must end with
 * their sum over all ranks, element by element.
 *     variant=kit      the kit's way: one MPI_Allreduce;
 *     variant=student  (built by hybridlab.runs.student_c.build_student with HL_STUDENT_{{KERNEL}}):
 *                      the student's global_sum(), declared in {{kernel}}_student.h, called by
 *                      the main thread outside any parallel region (MPI_THREAD_FUNNELED is enough).
 *
 * Checks, on every rank: the sum equals MPI_Allreduce of the values, element by element, in
 * each repetition. Records: "time" per repetition on rank 0 (seconds of the sum, slowest rank);
 * "check" on rank 0 (ok, wrong = values wrong summed over ranks and repetitions, values).
 * hybridlab.runs.student_c.run_student fails a run whose "check" record says ok=0.
 */
#include "hybridlab.h"

#ifdef HL_STUDENT_{{KERNEL}}
#include "{{kernel}}_student.h"
#endif

const char *const hl_kernel_description =
    "a sum of every rank's values over all ranks: the kit's MPI_Allreduce or the student's "
    "global_sum(), checked element by element";

const hl_param hl_kernel_params[] = {
    {"variant", "kit", "kit: one MPI_Allreduce; student: the student's global_sum()"},
    {"n", "1000", "values per rank"},
    {"salt", "0", "shifts every value (hidden tests draw it)"},
    {"reps", "3", "repetitions, each timed"},
    HL_END_PARAMS,
};

static double value(int rank, long i, long salt) {
    return (double)((long)(rank + 1) * 1000 + (i * 7 + salt) % 997);
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    static const char *const variants[] = {"kit", "student"};
    int ok = 1;
    int variant = hl_param_choice(ctx, "variant", variants, 2);
    long n = hl_param_long(ctx, "n", 1, &ok);
    long salt = hl_param_long(ctx, "salt", 0, &ok);
    long reps = hl_param_long(ctx, "reps", 1, &ok);
    if (!ok || variant < 0) return -1;
    if (n > (1L << 24)) return hl_fail(ctx, "parameter n=%ld is too large (at most 2^24)", n);
#ifndef HL_STUDENT_{{KERNEL}}
    if (variant == 1)
        return hl_fail(ctx, "variant=student needs the student's code (student_c.build_student)");
#endif
    double *mine = malloc((size_t)n * sizeof *mine), *want = malloc((size_t)n * sizeof *want);
    double *sum = malloc((size_t)n * sizeof *sum);
    if (!mine || !want || !sum) {
        free(mine), free(want), free(sum);
        return hl_fail(ctx, "no memory for %ld values", n);
    }
#pragma omp parallel for
    for (long i = 0; i < n; i++) mine[i] = value(ctx->rank, i, salt);
    MPI_Allreduce(mine, want, (int)n, MPI_DOUBLE, MPI_SUM, comm); /* the reference */

    long wrong = 0;
    for (long rep = 0; rep < reps; rep++) {
        for (long i = 0; i < n; i++) sum[i] = NAN;
        double t0 = hl_start_together(comm);
        if (variant == 0) MPI_Allreduce(mine, sum, (int)n, MPI_DOUBLE, MPI_SUM, comm);
#ifdef HL_STUDENT_{{KERNEL}}
        else global_sum(mine, sum, (int)n, comm);
#endif
        double seconds = hl_slowest_since(comm, t0);
        for (long i = 0; i < n; i++) wrong += sum[i] != want[i];
        if (ctx->rank == 0)
            hl_emit(ctx, "\"record\":\"time\",\"repetition\":%ld,\"seconds\":%.9g,\"n\":%ld", rep,
                    seconds, n);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, comm);
    if (ctx->rank == 0)
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"wrong\":%ld,\"values\":%ld,\"variant\":\"%s\"",
                wrong == 0, wrong, n * ctx->size * reps, variants[variant]);
    free(mine), free(want), free(sum);
    return 0;
}
