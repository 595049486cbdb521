// The Linux calls Swift cannot reach through Glibc's module: atomics and futexes on words
// shared between processes through a file mapping, the file system's magic number, and the
// calling thread's name.
//
// Swift's `Atomic` lives in a stored property; these words live in a MAP_SHARED page that
// other processes write, so they are reached through raw pointers. glibc wraps neither
// `futex(2)` nor `futex_waitv(2)`, and `syscall` is variadic, which Swift does not import.
// The DomainStorage module calls these only from Platform/SystemCalls*.swift.
#ifndef C_LINUX_H
#define C_LINUX_H

#include <stdint.h>
#include <sys/vfs.h>

/// The `f_type` of the file system holding `path` (`statfs(2)`, whose header Glibc's module
/// leaves out), or -1 with errno set.
static inline int64_t file_system_magic(const char *path) {
    struct statfs status;
    if (statfs(path, &status) != 0) return -1;
    return (int64_t)status.f_type;
}

/// Loads a shared 32-bit word (sequentially consistent).
static inline uint32_t shared_memory_load(const uint32_t *word) {
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

/// Adds to a shared 32-bit word and returns the new value (sequentially consistent).
static inline uint32_t shared_memory_add(uint32_t *word, uint32_t amount) {
    return __atomic_add_fetch(word, amount, __ATOMIC_SEQ_CST);
}

/// Subtracts from a shared 32-bit word and returns the new value (sequentially consistent).
static inline uint32_t shared_memory_subtract(uint32_t *word, uint32_t amount) {
    return __atomic_sub_fetch(word, amount, __ATOMIC_SEQ_CST);
}

/// Stores a 32-bit word in private memory (sequentially consistent).
static inline void shared_memory_store(uint32_t *word, uint32_t value) {
    __atomic_store_n(word, value, __ATOMIC_SEQ_CST);
}

/// Wakes every process waiting on `word` (`FUTEX_WAKE`, shared, not private).
/// Returns the number woken, or -errno.
long shared_memory_wake_all(uint32_t *word);

/// Waits until any of `count` words no longer holds its expected value, or the timeout
/// (relative, in nanoseconds) passes (`futex_waitv`, Linux 5.16 and later).
/// Returns the index of a woken word, or -errno: -EAGAIN if a word had already changed,
/// -ETIMEDOUT, -EINTR, -ENOSYS on older kernels.
long shared_memory_wait_any(uint32_t *const *words, const uint32_t *expected, unsigned count, int64_t timeout_ns);

/// Names the calling thread (`prctl(PR_SET_NAME)`, which keeps 15 bytes; variadic, so not
/// imported). Returns 0, or -errno.
int name_current_thread(const char *name);

#endif
