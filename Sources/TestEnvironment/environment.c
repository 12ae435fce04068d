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
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[4096];
static char user_home[4096];
static int have_user_home;
static pid_t owner;

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
    // A forked child that exits without exec must not remove its parent's directory.
    if (root[0] != '\0' && getpid() == owner) nftw(root, remove_entry, 32, FTW_DEPTH | FTW_PHYS);
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
}
