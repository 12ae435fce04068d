#ifndef TALKING_CLOCK_CSNDFILE_H
#define TALKING_CLOCK_CSNDFILE_H
// libsndfile, loaded on first use (dlopen) instead of linked: a linked libsndfile brings its codec
// libraries (FLAC, Vorbis, Opus, mpg123, LAME) into every start of talking-clock, ~0.45 ms and ~100
// page faults each time, while only commands that decode or write clips need it.
// The types and constants come from the system's <sndfile.h> (package libsndfile1-dev).
#include <sndfile.h>

/// Loads libsndfile.so.1 once (thread-safe). Returns NULL when it is loaded, else a sentence
/// saying why it could not be (dlerror's text and the fix).
const char *tc_sf_load(void);

/// sf_open. NULL (with tc_sf_strerror(NULL) saying why) also when the library is not loaded.
SNDFILE *tc_sf_open(const char *path, int mode, SF_INFO *info);
/// sf_close
int tc_sf_close(SNDFILE *file);
/// sf_readf_float
sf_count_t tc_sf_readf_float(SNDFILE *file, float *ptr, sf_count_t frames);
/// sf_writef_short
sf_count_t tc_sf_writef_short(SNDFILE *file, const short *ptr, sf_count_t frames);
/// sf_strerror
const char *tc_sf_strerror(SNDFILE *file);

#endif
