/* hl_stream_guard.h: the descriptors of the trace stream and of the records, written by the tracer
 * alone (included by hl_trace.c only).
 *
 * A cell cannot open or write a file (hybridlab.kernels.unit_checks), but it can reach a
 * descriptor the process holds through the C library it may call: a FILE built by copying
 * `*stdout` and setting its descriptor, then fwrite, writes there; the key that frames the
 * stream's lines is readable on the tracer's sealed page. The same FILE pointed at nothing would
 * lose the records the kit prints at the end, after framed lines of the cell's own. So both
 * descriptors are guarded: the stream and a copy of stdout for the records are kept at numbers of
 * their own (HL_STREAM_FD_MIN or above), and a seccomp filter, installed once for every thread of
 * the process (SECCOMP_FILTER_FLAG_TSYNC), fails with EPERM every system call that would write to
 * either number, copy it, move another file onto it or map it, unless it comes from the one
 * `syscall` instruction below (the filter compares the instruction pointer). A cell has no way to
 * run that instruction: its object may not hold assembly, system calls or indirect calls
 * (unit_checks), so it cannot jump there.
 *
 * x86-64 Linux only; elsewhere (or where seccomp is refused) the stream is written unguarded and
 * its origin line says "guarded":0 (tests/test_compliance.py checks that it says 1 here).
 */
#ifndef HL_STREAM_GUARD_H
#define HL_STREAM_GUARD_H

#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HL_STREAM_FD_MIN 900 /* below the usual limit of 1024 descriptors, above what MPI uses */

#if defined(__x86_64__) && defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

extern const char hl_stream_syscall_return[] __attribute__((visibility("hidden")));

/* The only system call the filter lets touch the stream's descriptor: nr(a, b, c). */
__attribute__((noinline, noclone)) static long stream_syscall(long nr, long a, long b, long c) {
    long ret;
    __asm__ volatile("syscall\n"
                     "hl_stream_syscall_return:\n"
                     : "=a"(ret)
                     : "0"(nr), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    if (ret < 0 && ret > -4096) {
        errno = (int)-ret;
        return -1;
    }
    return ret;
}

/* Install the filter guarding descriptors `a` and `b`; 1 when the kernel took it. */
static int stream_guard(int a, int b) {
    /* the calls that write through, copy, replace or map a descriptor, and which argument */
    static const struct {
        int nr, arg;
    } guarded[] = {
        {SYS_write, 0},    {SYS_writev, 0},     {SYS_pwrite64, 0}, {SYS_pwritev, 0},
        {SYS_pwritev2, 0}, {SYS_ftruncate, 0},  {SYS_fallocate, 0}, {SYS_sendfile, 0},
        {SYS_dup, 0},      {SYS_dup2, 0},       {SYS_dup2, 1},     {SYS_dup3, 0},
        {SYS_dup3, 1},     {SYS_fcntl, 0},      {SYS_close, 0},    {SYS_mmap, 4},
        {SYS_splice, 2},   {SYS_tee, 1},        {SYS_copy_file_range, 2},
    };
    enum { N = sizeof guarded / sizeof *guarded, CHECK = 3 + 5 * N + 1 };
    uint64_t site = (uint64_t)(uintptr_t)hl_stream_syscall_return;
    struct sock_filter f[CHECK + 6];
    int n = 0;
#define HL_LD(off) (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define HL_JEQ(k, jt, jf) (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (jt), (jf))
#define HL_RET(k) (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, (k))
    f[n++] = HL_LD(offsetof(struct seccomp_data, arch));
    f[n++] = HL_JEQ(AUDIT_ARCH_X86_64, 1, 0);
    f[n++] = HL_RET(SECCOMP_RET_ALLOW);
    for (int i = 0; i < N; i++) { /* this call with `a` or `b` in its argument: to the check */
        f[n++] = HL_LD(offsetof(struct seccomp_data, nr));
        f[n++] = HL_JEQ((uint32_t)guarded[i].nr, 0, 3);
        f[n++] = HL_LD(offsetof(struct seccomp_data, args) + 8 * guarded[i].arg);
        f[n] = HL_JEQ((uint32_t)a, (uint8_t)(CHECK - n - 1), 0);
        n++;
        f[n] = HL_JEQ((uint32_t)b, (uint8_t)(CHECK - n - 1), 0);
        n++;
    }
    f[n++] = HL_RET(SECCOMP_RET_ALLOW);
    /* CHECK: allowed only from the instruction after stream_syscall's `syscall` */
    f[n++] = HL_LD(offsetof(struct seccomp_data, instruction_pointer) + 4);
    f[n++] = HL_JEQ((uint32_t)(site >> 32), 0, 2);
    f[n++] = HL_LD(offsetof(struct seccomp_data, instruction_pointer));
    f[n++] = HL_JEQ((uint32_t)site, 1, 0);
    f[n++] = HL_RET(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    f[n++] = HL_RET(SECCOMP_RET_ALLOW);
#undef HL_LD
#undef HL_JEQ
#undef HL_RET
    struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 0;
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0;
}
#else
static long stream_syscall(long nr, long a, long b, long c) { return syscall(nr, a, b, c); }
static int stream_guard(int a, int b) {
    (void)a;
    (void)b;
    return 0;
}
#endif

#endif
