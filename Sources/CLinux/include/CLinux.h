// The Linux calls Swift cannot reach through Glibc's module: atomics and futexes on words
// shared between processes through a file mapping, the file system's magic number, the
// calling thread's name, and the glibc calls that module leaves out: `sched_getcpu`,
// `renameat2` and the extended-attribute calls.
//
// Swift's `Atomic` lives in a stored property; these words live in a MAP_SHARED page that
// other processes write, so they are reached through raw pointers. glibc wraps neither
// `futex(2)` nor `futex_waitv(2)`, and `syscall` is variadic, which Swift does not import.
// The DomainStorage module calls these only from Platform/SystemCalls*.swift.
//
// futex.c implements the futex calls, thread.c the thread's name, files.c the glibc calls on
// files; glibc itself provides `sched_getcpu`.
#ifndef C_LINUX_H
#define C_LINUX_H

#include <stddef.h>
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

// glibc declares `sched_getcpu` (<sched.h>) and `renameat2` (<stdio.h>) only under
// _GNU_SOURCE, and the extended-attribute calls in <sys/xattr.h>, which Glibc's module leaves
// out. This header can neither define _GNU_SOURCE nor include <sys/xattr.h>: Swift builds it
// as a Clang module beside Glibc's, and the glibc headers it includes are declared again in
// it. Under _GNU_SOURCE they differ from Glibc's (fd_set's member is `fds_bits`, not
// `__fds_bits`), which Clang rejects; and <sys/xattr.h> brings <sys/types.h>, whose pthread
// types Swift would then take from this module rather than from Glibc. So `sched_getcpu`,
// called on every read of a store, is declared here as glibc declares it (exported since
// glibc 2.6), and the file calls are wrapped in files.c, which includes glibc's own headers.

/// The processor the calling thread is running on (`sched_getcpu(3)`), or -1 with errno set.
int sched_getcpu(void);

/// Renames `oldpath` (relative to `olddirfd`) to `newpath` (relative to `newdirfd`), failing
/// with EEXIST rather than replace a file there (`renameat2(2)` with `RENAME_NOREPLACE`).
/// Returns 0, or -1 with errno set.
int rename_no_replace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// Sets extended attribute `name` of the open file `fd` to `size` bytes at `value`
/// (`fsetxattr(2)`). Returns 0, or -1 with errno set.
int set_extended_attribute(int fd, const char *name, const void *value, size_t size, int flags);

/// Reads extended attribute `name` of the open file `fd` into `size` bytes at `value`
/// (`fgetxattr(2)`). Returns its length (an ssize_t), or -1 with errno set.
long get_extended_attribute(int fd, const char *name, void *value, size_t size);

/// Reads extended attribute `name` of the file at `path`, not following a symbolic link
/// there, into `size` bytes at `value` (`lgetxattr(2)`). Returns its length (an ssize_t), or
/// -1 with errno set.
long get_path_extended_attribute(const char *path, const char *name, void *value, size_t size);

#endif
