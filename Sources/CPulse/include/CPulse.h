#ifndef TALKING_CLOCK_CPULSE_H
#define TALKING_CLOCK_CPULSE_H
// libpulse (the PulseAudio client library; PipeWire serves it too through pipewire-pulse), loaded
// on first use (dlopen) instead of linked, like CSndfile and CMosquitto: a headless machine with
// no sound server never loads it. Only what the courtesy look and the ducker need, written in C
// because libpulse is callback-driven: each call below connects, runs its own pa_mainloop until
// done or until its deadline, and disconnects. Nothing is kept between calls.
// The library is libpulse0; the header that loader.c compiles against comes from libpulse-dev.
// Imported by the SoundServer target only.
#include <stddef.h>
#include <stdint.h>

#define TC_PULSE_MAX_CHANNELS 32

/// A sink input (a playing stream) or a source output (a recording stream), as the server lists it.
typedef struct {
    uint32_t index;
    /// 1: a source output (recording), 0: a sink input.
    int is_record;
    /// 1: corked (paused, or corked by module-role-cork).
    int corked;
    /// The property application.process.id, or 0.
    uint32_t pid;
    /// application.name (else media.name, else ""), media.role ("" when none), application.id.
    char application[128];
    char role[64];
    char app_id[128];
    uint8_t channels;
    uint32_t volume[TC_PULSE_MAX_CHANNELS];
} tc_pulse_stream;

/// A sink (an output device or a network/virtual one), as the server lists it.
typedef struct {
    uint32_t index;
    char name[256];
    char description[256];
    /// The module or driver behind it ("module-tunnel-sink.c", "module-raop-sink.c", …).
    char driver[128];
    /// 1: PA_SINK_NETWORK (a tunnel, RAOP, …).
    int network;
    /// 1: the sink reports a latency (PA_SINK_LATENCY).
    int has_latency;
    /// The sink's latency now and its configured latency, in microseconds.
    uint64_t latency_usec;
    uint64_t configured_latency_usec;
    /// pa_sink_state_t: 0 running, 1 idle, 2 suspended, -1 invalid.
    int state;
} tc_pulse_sink;

/// Lists the sinks into out[0..capacity); like tc_pulse_list_streams (count, or -1 with err).
int tc_pulse_list_sinks(const char *server, int timeout_ms, tc_pulse_sink *out, int capacity, char *err, size_t errlen);

/// Loads libpulse.so.0 once per process (thread-safe). NULL when loaded, else a sentence saying
/// why not and how to fix it.
const char *tc_pulse_load(void);

/// Lists the sink inputs, then the source outputs, into out[0..capacity). `server`: NULL for the
/// default (PULSE_SERVER, client.conf, $XDG_RUNTIME_DIR/pulse/native); never autospawns a server.
/// Gives up at `timeout_ms`. Returns how many streams there are (may exceed capacity: only
/// capacity are written), or -1 with a sentence in err.
int tc_pulse_list_streams(const char *server, int timeout_ms, tc_pulse_stream *out, int capacity, char *err,
                          size_t errlen);

/// Sets each sink input's volume: indices[i] gets volumes[i*TC_PULSE_MAX_CHANNELS ..] over
/// channels[i] channels (pa_context_set_sink_input_volume). Returns how many the server
/// accepted (a stream that ended meanwhile is not an error), or -1 with a sentence in err when
/// the server could not be reached in time.
int tc_pulse_set_volumes(const char *server, int timeout_ms, int count, const uint32_t *indices,
                         const uint8_t *channels, const uint32_t *volumes, char *err, size_t errlen);

#endif
