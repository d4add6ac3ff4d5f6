/* Lab 01 (b): the student's thread level check and block exchange for thread_ring.c. */
#ifndef THREAD_RING_STUDENT_H
#define THREAD_RING_STUDENT_H
#include "hybridlab.h"

/* 0 when MPI provided the level exchange_block needs, else hl_fail's -1 (hl_require_level). */
int check_thread_level(hl_ctx *ctx);
/* Called by every thread of the team for its own block: send `n` ints to `right`, receive `n`
 * from `left`, the thread number telling the blocks apart. */
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm);

#endif
