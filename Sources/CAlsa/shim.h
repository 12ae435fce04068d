#ifndef TALKING_CLOCK_CALSA_SHIM_H
#define TALKING_CLOCK_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* ALSA's error handler is variadic and cannot be written in Swift. By default alsa-lib prints
   its own diagnostics to stderr; the Swift side reports errors itself (call + snd_strerror), so
   this silences the duplicate, unstructured lines. */
static void tc_alsa_silent_error_handler(const char *file, int line, const char *function, int err,
                                         const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void tc_alsa_silence_errors(void) {
    snd_lib_error_set_handler(tc_alsa_silent_error_handler);
}
#endif
