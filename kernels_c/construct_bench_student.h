/* Lab 02: the student's OpenMP construct and its measurement for construct_bench.c. */
#ifndef CONSTRUCT_BENCH_STUDENT_H
#define CONSTRUCT_BENCH_STUDENT_H
#include "hybridlab.h"

/* Shared by the whole team: the delay length and the counter the construct protects. */
typedef struct {
    long delay;
    volatile long updates;
} construct_state;

/* The construct's name, as the records will show it. */
extern const char *const construct_name;
/* EPCC's test loop: `inner` repetitions of the delay and the construct (arg: construct_state). */
void construct_test(void *arg, long inner);
/* Time construct_test against reference_loop with hl_measure; 0, or -1 after hl_fail. */
int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out);
/* The kit's helper: EPCC's reference, the delay alone (arg: construct_state). */
void reference_loop(void *arg, long inner);

/* In the cell, hl_delay and hl_measure are the kit's own (construct_bench.c): the same delay and
 * the same measurement, seen from the kit's side. It counts each thread's delays in every call of
 * the test (its nesting level and team size too) and checks that the measurement times
 * construct_test against reference_loop. */
void construct_delay(long length);
int construct_measure(hl_ctx *ctx, const char *name, hl_work_fn test, hl_work_fn reference,
                      void *arg, const hl_method *method, hl_result *out);
#ifdef HL_STUDENT_TU
#define hl_delay construct_delay
#define hl_measure construct_measure
#endif

#endif
