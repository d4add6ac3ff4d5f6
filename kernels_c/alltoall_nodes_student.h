/* Lab 07: the student's two-level alltoall for alltoall_nodes.c. */
#ifndef ALLTOALL_NODES_STUDENT_H
#define ALLTOALL_NODES_STUDENT_H
#include "hybridlab.h"
#include "hl_node_split.h" /* the nodes, real or made up (ranks_per_node) */

/* What MPI_Alltoall(send, count, MPI_DOUBLE, recv, count, MPI_DOUBLE, world) gives, through the
 * node leaders: gather on the node, the leaders' exchange, scatter on the node. `node` holds the
 * ranks of this node, `leaders` the node leaders (MPI_COMM_NULL on the other ranks). */
void alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,
                    MPI_Comm leaders);

#endif
