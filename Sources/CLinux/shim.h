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
#include <dlfcn.h>
#include <elf.h>
#include <stdint.h>

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

/* dl_iterate_phdr (link.h declares it only under _GNU_SOURCE): each loaded object's base address,
   name and program headers, while the dynamic loader's list lock is held, so no object is added to
   or removed from the list during the walk. The struct is the start of glibc's dl_phdr_info (the
   callback's size argument says how much of it there is). */
struct tc_loaded_object_info {
    uintptr_t base;
    const char *name;
    const Elf64_Phdr *phdr;
    Elf64_Half phnum;
};
extern int tc_dl_iterate_phdr(int (*callback)(struct tc_loaded_object_info *, size_t, void *), void *data)
    __asm__("dl_iterate_phdr");

/* The walk, one Swift closure per object: `body(object, index, context)`; index 0 is the program. */
struct tc_object_walk {
    void (*body)(const struct tc_loaded_object_info *, int, void *);
    void *context;
    int index;
};
static inline int tc_object_walk_step(struct tc_loaded_object_info *info, size_t size, void *data) {
    struct tc_object_walk *walk = (struct tc_object_walk *)data;
    (void)size;
    walk->body(info, walk->index++, walk->context);
    return 0;
}
static inline void tc_each_loaded_object(void (*body)(const struct tc_loaded_object_info *, int, void *), void *context) {
    struct tc_object_walk walk = { body, context, 0 };
    tc_dl_iterate_phdr(tc_object_walk_step, &walk);
}
#endif
