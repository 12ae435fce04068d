#ifndef TALKING_CLOCK_CSPEECHD_H
#define TALKING_CLOCK_CSPEECHD_H
// libspeechd (speech-dispatcher's client library), loaded on first use (dlopen) instead of linked:
// only `voice-output = "speech-dispatcher"` uses it. The library is libspeechd2; loader.c compiles
// against libspeechd-dev's <speech-dispatcher/libspeechd.h>. Imported by the SpeechDispatcher
// target only.
#include <stddef.h>

/// Loads libspeechd.so.2 once per process (thread-safe). NULL when loaded, else a sentence.
const char *tc_speechd_load(void);

/// Opens a connection (spd_open2, SPD_MODE_SINGLE, the default address: $SPEECHD_ADDRESS or
/// $XDG_RUNTIME_DIR/speech-dispatcher/speechd.sock). `autospawn` lets libspeechd start the server
/// when none runs. NULL with a sentence in err on failure.
void *tc_speechd_open(const char *client_name, int autospawn, char *err, size_t errlen);

/// Says `text` at SSIP priority `message` (spd_say with SPD_MESSAGE: it waits behind whatever is
/// speaking and interrupts nothing). Returns the message id (> 0), or -1 with a sentence in err.
int tc_speechd_say_message(void *connection, const char *text, char *err, size_t errlen);

/// spd_close.
void tc_speechd_close(void *connection);

#endif
