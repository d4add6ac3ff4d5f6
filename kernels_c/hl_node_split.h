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

/* 0: real nodes (MPI_COMM_TYPE_SHARED); shared with a student's translation unit */
#ifdef HL_STUDENT_TU
extern __attribute__((visibility("hidden"))) int hl_fake_ranks_per_node;
#else
__attribute__((visibility("hidden"))) int hl_fake_ranks_per_node;
#endif

static inline int hl_node_split(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out) {
    if (hl_fake_ranks_per_node > 0 && type == MPI_COMM_TYPE_SHARED) {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        return MPI_Comm_split(comm, rank / hl_fake_ranks_per_node, key, out);
    }
    return MPI_Comm_split_type(comm, type, key, info, out);
}

#ifdef HL_STUDENT_TU
#undef MPI_Comm_split_type
#define MPI_Comm_split_type hl_node_split
#endif

#endif
