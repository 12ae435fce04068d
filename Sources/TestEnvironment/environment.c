// Every test runs in a private XDG environment: before any test (or XCTest itself) starts, a
// constructor in the test binary points XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME,
// XDG_CACHE_HOME, XDG_RUNTIME_DIR and HOME at empty directories of its own, so that neither the
// code under test nor any program a test starts can read the user's config.toml, packs, state or
// control socket (issue 22, item 9: with chime = "westminster" in ~/.config 9 tests failed). Doing
// it here, rather than in each test or runner, covers in-process tests, Process() children and
// tests written later alike. The directory is removed when the process exits.
//
// SwiftPM links every test target into one test binary with this object (TestSupport depends on
// it), so the constructor runs whichever tests are selected.
#define _GNU_SOURCE
#include "TestEnvironment.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static char root[4096];
static char user_home[4096];
static int have_user_home;
static pid_t owner;
static pid_t package_check;

const char *talking_clock_test_root(void) { return root; }

const char *talking_clock_test_user_home(void) { return have_user_home ? user_home : NULL; }

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_root(void) {
    if (getpid() != owner) return;  // a forked child that exits without exec
    // A package check still running (its test was not run) is stopped with the suite.
    if (package_check > 0) kill(-package_check, SIGTERM);
    if (root[0] != '\0') nftw(root, remove_entry, 32, FTW_DEPTH | FTW_PHYS);
}

static void fail(const char *what) {
    fprintf(stderr,
            "talking-clock tests: cannot make the private test environment (%s: %s in %s); set TMPDIR "
            "to a writable directory. The tests do not run against your own config.\n",
            what, strerror(errno), root);
    _exit(70);
}

static void make(const char *name, const char *variable, mode_t mode) {
    char path[4096 + 32];
    snprintf(path, sizeof path, "%s/%s", root, name);
    if (mkdir(path, mode) != 0) fail("mkdir");
    if (setenv(variable, path, 1) != 0) fail("setenv");
}

// The Debian package check (scripts/test-deb: a release build, a clean Debian root, the package
// installed and run in it) takes minutes, most of them compiling or downloading while the other
// tests wait on their clocks. So when the whole suite runs (or DebianPackageTests is asked for),
// it starts here, before any test, in the background at the lowest CPU priority, and the test
// waits for its result. TALKING_CLOCK_PACKAGE_CHECK names the log it writes (and LOG.status its
// exit status once it ends); without that variable the test runs the check itself.
static int wants_package_check(void) {
    const char *off = getenv("TALKING_CLOCK_PACKAGE_TEST");
    if (off != NULL && strcmp(off, "0") == 0) return 0;
    // Already started by whoever runs this process (scripts/test starts it once for all the
    // classes it runs side by side); the test waits for that one.
    if (getenv("TALKING_CLOCK_PACKAGE_CHECK") != NULL) return 0;
    if (geteuid() != 0) return 0;
    if (access("/usr/sbin/debootstrap", X_OK) != 0 && access("/usr/bin/debootstrap", X_OK) != 0) return 0;
    // The test binary's arguments: none (everything runs) or one naming DebianPackageTests.
    char buffer[8192];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n <= 0) return 0;
    buffer[n] = '\0';
    int selected = 0, all = 1;
    for (char *arg = buffer + strlen(buffer) + 1; arg < buffer + n; arg += strlen(arg) + 1) {
        if (strncmp(arg, "--dump", 6) == 0 || strncmp(arg, "--list", 6) == 0) return 0;  // listing, not running
        if (arg[0] == '-' || arg[0] == '\0') continue;
        all = 0;
        if (strstr(arg, "DebianPackageTests") != NULL) selected = 1;
    }
    return all || selected;
}

static void start_package_check(void) {
    if (!wants_package_check()) return;
    // The checkout: the directory above the test binary that holds Package.swift and the script.
    char checkout[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", checkout, sizeof checkout - 1);
    if (length <= 0) return;
    checkout[length] = '\0';
    for (;;) {
        char *slash = strrchr(checkout, '/');
        if (slash == NULL || slash == checkout) return;
        *slash = '\0';
        char probe[PATH_MAX + 32];
        snprintf(probe, sizeof probe, "%s/scripts/test-deb", checkout);
        if (access(probe, X_OK) == 0) break;
    }
    // The release build goes beside the Debian root's cache, named after the checkout's path (the
    // same name DebianPackageTests.scratchPath gives), so the checkout stays clean.
    char scratch[PATH_MAX + 64];
    int at = snprintf(scratch, sizeof scratch, "/var/tmp/talking-clock-test-deb/build");
    for (const char *c = checkout; *c != '\0' && at < (int)sizeof scratch - 1; c++) {
        char ch = *c;
        scratch[at++] = ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-') ? ch : '_';
    }
    scratch[at] = '\0';
    char log[4096 + 64], status[4096 + 64], tmp[4096 + 64];
    snprintf(log, sizeof log, "%s/package-check.log", root);
    snprintf(status, sizeof status, "%s/package-check.log.status", root);
    snprintf(tmp, sizeof tmp, "%s/package-check-tmp", root);
    if (mkdir(tmp, 0700) != 0) return;
    const char *script =
        "trap 'kill -TERM 0 2>/dev/null; exit 143' TERM; cd \"$1\" || exit 70; "
        "HOME=\"$2\" TMPDIR=\"$3\" nice -n 19 scripts/test-deb --scratch-path \"$4\" > \"$5\" 2>&1 < /dev/null; "
        "echo $? > \"$6.new\" && mv \"$6.new\" \"$6\"";
    const char *home = have_user_home ? user_home : "/root";
    char *argv[] = {"sh", "-c", (char *)script, "sh", checkout, (char *)home, tmp, scratch, log, status, NULL};
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    pid_t pid;
    if (posix_spawn(&pid, "/bin/sh", NULL, &attributes, argv, environ) == 0) {
        package_check = pid;
        setenv("TALKING_CLOCK_PACKAGE_CHECK", log, 1);
    }
    posix_spawnattr_destroy(&attributes);
}

__attribute__((constructor)) static void talking_clock_private_environment(void) {
    const char *home = getenv("HOME");
    if (home != NULL && strlen(home) < sizeof user_home) {
        strcpy(user_home, home);
        have_user_home = 1;
    }
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > 2048) tmp = "/tmp";
    snprintf(root, sizeof root, "%s/talking-clock-tests-XXXXXX", tmp);
    if (mkdtemp(root) == NULL) fail("mkdtemp");
    owner = getpid();
    atexit(remove_root);
    make("home", "HOME", 0700);
    make("config", "XDG_CONFIG_HOME", 0700);
    make("data", "XDG_DATA_HOME", 0700);
    make("state", "XDG_STATE_HOME", 0700);
    make("cache", "XDG_CACHE_HOME", 0700);
    make("runtime", "XDG_RUNTIME_DIR", 0700);
    // After the private environment exists (the check's own child processes get it too, but
    // for HOME, which is the user's for SwiftPM's package cache).
    start_package_check();
}
