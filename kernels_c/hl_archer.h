/* hl_archer.h: what MPI did to memory, told to ThreadSanitizer (Archer) in a kit kernel.
 *
 * Archer sees the memory accesses of instrumented code only (-fsanitize=thread): the MPI
 * library's own copies into a receive buffer are invisible to it (hybridlab.kernels.archer runs
 * with ignore_noninstrumented_modules=1, since the library's and the OpenMP runtime's internals
 * would otherwise raise false reports). A kernel calls hl_mpi_wrote(buf, bytes) on the thread that
 * called MPI, right after a call that wrote `buf`: ThreadSanitizer then sees that thread write
 * the buffer there, and reports any other thread's access that nothing of OpenMP orders with it.
 * Without the sanitizer (every ordinary build) it is nothing.
 */
#ifndef HL_ARCHER_H
#define HL_ARCHER_H
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HL_ARCHER 1
#endif
#endif

#ifdef HL_ARCHER
void __tsan_write_range(void *addr, unsigned long size);
static inline void hl_mpi_wrote(void *buf, size_t bytes) { __tsan_write_range(buf, bytes); }
#else
static inline void hl_mpi_wrote(void *buf, size_t bytes) { (void)buf, (void)bytes; }
#endif

#endif
