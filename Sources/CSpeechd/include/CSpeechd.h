#ifndef TALKING_CLOCK_CSPEECHD_H
#define TALKING_CLOCK_CSPEECHD_H
// libspeechd (speech-dispatcher's client library), loaded on first use (dlopen) instead of linked:
// only `voice-output = "speech-dispatcher"` uses it. The library is libspeechd2; loader.c compiles
// against libspeechd-dev's <speech-dispatcher/libspeechd.h>. Imported by the SpeechDispatcher
// target only.
//
// Every exchange is bounded. libspeechd waits for each SSIP reply with a blocking read and has no
// time-out of its own, and spd_open2 already waits for one (its SET CLIENT_NAME) before it hands
// the socket back, so a socket option set afterwards cannot bound the open. Each call below
// therefore runs under a deadline: a POSIX timer aimed at the calling thread only, which after
// `timeout` seconds (and every 20 ms after) sends a signal whose handler does nothing and is
// installed without SA_RESTART, so the blocked connect, read or write returns EINTR; libspeechd
// then treats the reply as lost and closes the connection's stream. The signal is deliverable on
// that thread only during the call (blocked otherwise, pending ones are drained), and SIGPIPE is
// held back the same way (libspeechd writes without MSG_NOSIGNAL). No thread is left blocked.
#include <stddef.h>

/// Loads libspeechd.so.2 once per process (thread-safe). NULL when loaded, else a sentence.
const char *tc_speechd_load(void);

/// How a call ended.
enum tc_speechd_status {
    TC_SPEECHD_OK = 0,
    /// No answer within the time-out; the connection is closed.
    TC_SPEECHD_TIMED_OUT = 1,
    /// speech-dispatcher answered with an error (its SSIP reply code in err).
    TC_SPEECHD_REFUSED = 2,
    /// Nothing listens at the address, the peer closed the connection, or libspeechd is missing.
    TC_SPEECHD_NOT_RUNNING = 3,
};

/// Opens a connection (spd_open2, SPD_MODE_SINGLE) within `timeout` seconds. `unix_path`: the
/// server's socket, or NULL for libspeechd's default address ($SPEECHD_ADDRESS or
/// $XDG_RUNTIME_DIR/speech-dispatcher/speechd.sock). `autospawn` lets libspeechd start the server
/// when none runs. NULL with *status and a sentence in err on failure.
void *tc_speechd_open(const char *client_name, const char *unix_path, int autospawn, double timeout, int *status,
                      char *err, size_t errlen);

/// Says `text` at SSIP priority `message` (spd_say with SPD_MESSAGE: it waits behind whatever is
/// speaking and interrupts nothing) within `timeout` seconds. Returns the message id (> 0), or -1
/// with *status and a sentence in err; after TIMED_OUT or NOT_RUNNING the connection is dead
/// (close it and open another).
int tc_speechd_say_message(void *connection, const char *text, double timeout, int *status, char *err,
                           size_t errlen);

/// spd_close (frees the connection; closes its socket if libspeechd has not already).
void tc_speechd_close(void *connection);

#endif
