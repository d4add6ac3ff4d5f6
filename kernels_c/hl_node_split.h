/* hl_node_split.h: the nodes of labs 06 and 07, real or made up, and nothing else of the kit's.
 *
 * hl_node_split() behaves as MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, ...), except when
 * hl_fake_ranks_per_node > 0 (set by the kernel from its ranks_per_node parameter): then rank r
 * is on "node" r / hl_fake_ranks_per_node. In a student's translation unit (HL_STUDENT_TU) the
 * student's own MPI_Comm_split_type calls go through it (the redirect is defined after
 * hl_node_split, whose body still calls the real, or traced, MPI function); the kit's reference
 * communicators (hl_nodes.h) are not reachable from there.
 */
#ifndef HL_NODE_SPLIT_H
#define HL_NODE_SPLIT_H

#include "hybridlab.h"

/* The ranks of a made-up node, 0 for real nodes (MPI_COMM_TYPE_SHARED): set by the kernel, read
 * by a student's translation unit through hl_node_ranks() (the kit's unit defines it). */
#ifdef HL_STUDENT_TU
int hl_node_ranks(void);
#else
static int hl_fake_ranks_per_node;
__attribute__((visibility("hidden"))) int hl_node_ranks(void) { return hl_fake_ranks_per_node; }
#endif

static inline int hl_node_split(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out) {
    int fake = hl_node_ranks();
    if (fake > 0 && type == MPI_COMM_TYPE_SHARED) {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        return MPI_Comm_split(comm, rank / fake, key, out);
    }
    return MPI_Comm_split_type(comm, type, key, info, out);
}

#ifdef HL_STUDENT_TU
#undef MPI_Comm_split_type
#define MPI_Comm_split_type hl_node_split
#endif

#endif
