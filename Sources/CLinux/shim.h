#ifndef TALKING_CLOCK_CLINUX_SHIM_H
#define TALKING_CLOCK_CLINUX_SHIM_H
/* Linux interfaces missing from Swift's Glibc module: timerfd, signalfd, epoll, inotify, mallinfo2.
   No _GNU_SOURCE here: it would change shared struct layouts (fd_set) against the Glibc module. */
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/eventfd.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <malloc.h>

/* struct ucred needs _GNU_SOURCE; this has the same layout (pid, uid, gid). */
struct tc_peer_credentials { int pid; unsigned int uid; unsigned int gid; };

/* getsockopt(SO_PEERCRED): who is on the other end of a Unix socket. */
static inline int tc_peer_credentials(int fd, struct tc_peer_credentials *out) {
    socklen_t len = sizeof(*out);
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, out, &len);
}

/* mallinfo2: bytes malloc has handed out and not taken back (main arena + mmapped chunks). Unlike
   RSS it does not count freed memory the allocator keeps for reuse, so a leak shows here and
   fragmentation does not (memory-growth measurements; glibc >= 2.33). */
static inline size_t tc_heap_in_use_bytes(void) {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

static inline int tc_sigprocmask_block(const sigset_t *set) { return sigprocmask(SIG_BLOCK, set, 0); }
#endif
