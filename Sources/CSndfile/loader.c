#include "CSndfile.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static SNDFILE *(*p_open)(const char *, int, SF_INFO *);
static int (*p_close)(SNDFILE *);
static sf_count_t (*p_readf_float)(SNDFILE *, float *, sf_count_t);
static sf_count_t (*p_writef_short)(SNDFILE *, const short *, sf_count_t);
static const char *(*p_strerror)(SNDFILE *);

static void load(void) {
    // The soname libsndfile1 installs (the ABI this header describes).
    void *lib = dlopen("libsndfile.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure,
                 "libsndfile could not be loaded (%s); install it (Debian/Ubuntu: apt install libsndfile1)", dlerror());
        return;
    }
    p_open = (SNDFILE * (*)(const char *, int, SF_INFO *)) dlsym(lib, "sf_open");
    p_close = (int (*)(SNDFILE *))dlsym(lib, "sf_close");
    p_readf_float = (sf_count_t(*)(SNDFILE *, float *, sf_count_t))dlsym(lib, "sf_readf_float");
    p_writef_short = (sf_count_t(*)(SNDFILE *, const short *, sf_count_t))dlsym(lib, "sf_writef_short");
    p_strerror = (const char *(*)(SNDFILE *))dlsym(lib, "sf_strerror");
    if (!p_open || !p_close || !p_readf_float || !p_writef_short || !p_strerror) {
        snprintf(failure, sizeof failure,
                 "libsndfile.so.1 lacks a function talking-clock needs (%s); reinstall libsndfile1", dlerror());
        p_open = NULL;
    }
}

const char *tc_sf_load(void) {
    pthread_once(&once, load);
    return p_open ? NULL : failure;
}

SNDFILE *tc_sf_open(const char *path, int mode, SF_INFO *info) {
    return tc_sf_load() ? NULL : p_open(path, mode, info);
}

int tc_sf_close(SNDFILE *file) { return tc_sf_load() ? 0 : p_close(file); }

sf_count_t tc_sf_readf_float(SNDFILE *file, float *ptr, sf_count_t frames) {
    return tc_sf_load() ? 0 : p_readf_float(file, ptr, frames);
}

sf_count_t tc_sf_writef_short(SNDFILE *file, const short *ptr, sf_count_t frames) {
    return tc_sf_load() ? 0 : p_writef_short(file, ptr, frames);
}

const char *tc_sf_strerror(SNDFILE *file) {
    const char *why = tc_sf_load();
    return why ? why : p_strerror(file);
}
