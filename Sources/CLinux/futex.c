#define _GNU_SOURCE
#include "CLinux.h"

#include <errno.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#ifndef FUTEX_32
#define FUTEX_32 2
#endif

// Declared here rather than taken from <linux/futex.h>, whose copy on older build hosts
// lacks it; the layout is the kernel's ABI.
struct shared_memory_waitv {
    uint64_t val;
    uint64_t uaddr;
    uint32_t flags;
    uint32_t reserved;
};

long shared_memory_wake_all(uint32_t *word) {
    long woken = syscall(SYS_futex, word, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
    return woken < 0 ? -errno : woken;
}

long shared_memory_wait_any(uint32_t *const *words, const uint32_t *expected, unsigned count, int64_t timeout_ns) {
    enum { maximum = 128 };  // FUTEX_WAITV_MAX
    if (count == 0 || count > maximum) return -EINVAL;
    struct shared_memory_waitv waiters[maximum];
    memset(waiters, 0, sizeof waiters);
    for (unsigned i = 0; i < count; i++) {
        waiters[i].val = expected[i];
        waiters[i].uaddr = (uint64_t)(uintptr_t)words[i];
        waiters[i].flags = FUTEX_32;  // shared: not FUTEX_PRIVATE_FLAG
    }
    // futex_waitv takes an absolute time on the given clock.
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ns / 1000000000;
    deadline.tv_nsec += timeout_ns % 1000000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000;
    }
    long woken = syscall(SYS_futex_waitv, waiters, count, 0, &deadline, CLOCK_MONOTONIC);
    return woken < 0 ? -errno : woken;
}
