/* hl_student.h: what a student's C cell is compiled against, and all it can reach of the kit.
 *
 * hybridlab.runs.student_c builds each C cell as its own translation unit:
 *     #include "hl_student.h"
 *     #include "<kernel>_student.h"   the functions the cell defines, the kit helpers it may call
 *     #line 1 "<name>.c"               so compiler messages give the cell's own line numbers
 *     ...the cell...
 * compiled with -DHL_STUDENT_TU, every MPI call traced (hl_mpi_trace.h, which also includes
 * hybridlab.h: MPI, OpenMP and the kit's public helpers such as hl_require_level, hl_measure,
 * hl_now) and MPI_Send made synchronous (-DHL_SYNCHRONOUS_SENDS), then linked with the kit's
 * kernel (kernels_c/<kernel>.c, built with the part's define). The kernel's own static functions
 * and data are out of reach: the cell can call only what <kernel>_student.h declares.
 */
#ifndef HL_STUDENT_H
#define HL_STUDENT_H

#ifndef HL_STUDENT_TU
#error "hl_student.h is for a student's translation unit (hybridlab.runs.student_c builds it)"
#endif

#include "hybridlab.h"

#endif /* HL_STUDENT_H */
