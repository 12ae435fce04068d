"""Audio helpers: resampling via sox, clip finishing, FLAC writing.

All processing is done in float64 at the pack rate; the only quantisation is
the final rounding to 16 bit (no dither, so output is a pure function of the
input).
"""

import subprocess

import numpy as np

# Voice clip finishing parameters (see Sounds/default/README.md).
FRAME_MS = 5.0            # envelope frame for trimming / loudness
TRIM_BELOW_PEAK_DB = 50.0 # frames quieter than peak-50 dB count as silence
KEEP_BEFORE_MS = 20.0     # kept before the first active frame
KEEP_AFTER_MS = 40.0      # kept after the last active frame
ACTIVE_BELOW_PEAK_DB = 30.0  # frames within 30 dB of the peak frame = speech for RMS
TARGET_RMS_DBFS = -18.0   # common active-speech RMS of every voice clip
PEAK_CAP_DBFS = -1.0      # no voice sample above this
FADE_IN_MS = 4.0
VOWEL_FADE_IN_MS = 10.0
FADE_OUT_MS = 10.0


def run(cmd, input_bytes=None):
    """Run a command, return stdout bytes; raise with stderr on failure."""
    p = subprocess.run(cmd, input=input_bytes, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n"
                           f"{p.stderr.decode(errors='replace')}")
    return p.stdout


def load_resampled(path, rate):
    """Read any sox-readable file, return mono float64 samples at `rate`."""
    raw = run(["sox", "-R", "-V1", str(path),
               "-t", "raw", "-e", "floating-point", "-b", "32", "-L", "-c", "1", "-",
               "rate", "-v", str(rate)])
    return np.frombuffer(raw, dtype="<f4").astype(np.float64)


def resample_array(x, in_rate, out_rate):
    """Resample a float array with sox (used for engines that return arrays)."""
    if in_rate == out_rate:
        return np.asarray(x, dtype=np.float64)
    data = np.asarray(x, dtype="<f4").tobytes()
    raw = run(["sox", "-R", "-V1",
               "-t", "raw", "-e", "floating-point", "-b", "32", "-L", "-c", "1",
               "-r", str(in_rate), "-",
               "-t", "raw", "-e", "floating-point", "-b", "32", "-L", "-c", "1", "-",
               "rate", "-v", str(out_rate)], input_bytes=data)
    return np.frombuffer(raw, dtype="<f4").astype(np.float64)


def db(x):
    return 20.0 * np.log10(np.maximum(x, 1e-12))


def frame_rms_db(x, rate):
    n = max(1, int(round(rate * FRAME_MS / 1000.0)))
    nf = (len(x) + n - 1) // n
    padded = np.zeros(nf * n)
    padded[:len(x)] = x
    rms = np.sqrt(np.mean(padded.reshape(nf, n) ** 2, axis=1))
    return db(rms), n


ONSET_LOOK_MS = 150.0      # the vowel's level is its maximum in this span
ONSET_BELOW_DB = 15.0      # the vowel has begun once a frame is this close to it
ONSET_MARGIN_MS = 2.5
MURMUR_MAX_MS = 40.0       # longest voiced residue removed before a voiceless onset
MURMUR_BAND_HZ = 400.0     # voicing shows as energy below this; /f s th t/ have none
MURMUR_BELOW_DB = 30.0     # residue = low-band energy within this of the clip's maximum


def skip_to_vowel_onset(x, rate, i):
    """For a clip that starts with a vowel cut out of running speech, move the
    cut from festival's boundary to where the vowel sounds in full.

    After a voiceless consonant HTS often leaves a near-silent gap or a weak,
    breathy start before the vowel.  Kept in the clip, that plus the vowel's
    attack is heard as an extra syllable or stop when the clip follows
    another word: "thirty a.m." became "thirty-eight a.m." for a speech
    recogniser.
    """
    n = max(1, int(rate * FRAME_MS / 1000.0))
    look = x[i:i + int(rate * ONSET_LOOK_MS / 1000.0)]
    env, _ = frame_rms_db(look, rate)
    if len(env) == 0:
        return i
    hit = np.nonzero(env > env.max() - ONSET_BELOW_DB)[0]
    k = int(hit[0]) if len(hit) else 0
    return max(i, i + k * n - int(rate * ONSET_MARGIN_MS / 1000.0))


def band_energy_db(x, rate, hi_hz, hop, win):
    """Energy below hi_hz (dB) of windows of `win` samples every `hop` samples."""
    out = []
    w = np.hanning(win)
    nbins = int(hi_hz * win / rate) + 1
    for start in range(0, max(1, len(x) - win + 1), hop):
        seg = x[start:start + win]
        if len(seg) < win:
            seg = np.pad(seg, (0, win - len(seg)))
        spec = np.abs(np.fft.rfft(seg * w)) ** 2
        out.append(float(np.sum(spec[1:nbins])))
    return db(np.sqrt(np.array(out)))


def skip_voiced_murmur(x, rate, i):
    """For a clip that starts with a voiceless consonant right after a voiced
    sound (e.g. "fifteen" after "ten"), skip the few ms of the neighbour's
    voicing (nasal murmur) that festival's boundary leaves in the clip."""
    hop = max(1, int(rate * 0.0025))
    win = int(rate * 0.010)
    env = band_energy_db(x[i:], rate, MURMUR_BAND_HZ, hop, win)
    if len(env) == 0:
        return i
    limit = int(MURMUR_MAX_MS / 2.5)
    thr = env.max() - MURMUR_BELOW_DB
    quiet = np.nonzero(env[:limit + 1] < thr)[0]
    if len(quiet) == 0:
        return i
    k = int(quiet[0])
    # The window starting at k*hop is the first one free of murmur.
    return i + k * hop


def trim(x, rate):
    """Trim leading/trailing silence relative to the clip's own peak frame."""
    env, n = frame_rms_db(x, rate)
    active = np.nonzero(env > env.max() - TRIM_BELOW_PEAK_DB)[0]
    if len(active) == 0:
        raise ValueError("silent clip")
    start = active[0] * n - int(round(rate * KEEP_BEFORE_MS / 1000.0))
    end = (active[-1] + 1) * n + int(round(rate * KEEP_AFTER_MS / 1000.0))
    return x[max(0, start):min(len(x), end)]


def active_rms(x, rate):
    env, _ = frame_rms_db(x, rate)
    act = env[env > env.max() - ACTIVE_BELOW_PEAK_DB]
    return float(np.sqrt(np.mean((10.0 ** (act / 20.0)) ** 2)))


def normalise(x, rate):
    """Scale so active-speech RMS hits the target, unless the peak cap binds."""
    rms = active_rms(x, rate)
    peak = float(np.max(np.abs(x)))
    gain = min(10.0 ** (TARGET_RMS_DBFS / 20.0) / rms,
               10.0 ** (PEAK_CAP_DBFS / 20.0) / peak)
    return x * gain


def fades(x, rate, fade_in_ms=FADE_IN_MS, fade_out_ms=FADE_OUT_MS):
    x = x.copy()
    ni = min(len(x), int(round(rate * fade_in_ms / 1000.0)))
    no = min(len(x), int(round(rate * fade_out_ms / 1000.0)))
    if ni:
        x[:ni] *= 0.5 - 0.5 * np.cos(np.pi * (np.arange(ni) + 0.5) / ni)
    if no:
        x[len(x) - no:] *= 0.5 + 0.5 * np.cos(np.pi * (np.arange(no) + 0.5) / no)
    return x


def finish_voice_clip(x, rate, vowel_onset=False):
    """Trim, loudness-normalise and fade one cut-out word.  A clip whose start
    was moved to a vowel onset gets a longer fade-in: an abrupt vowel attack
    is heard as a plosive ("a.m." -> "p.m.")."""
    fade_in = VOWEL_FADE_IN_MS if vowel_onset else FADE_IN_MS
    return fades(normalise(trim(x, rate), rate), rate, fade_in_ms=fade_in)


def to_int16(x):
    return np.clip(np.round(x * 32767.0), -32768, 32767).astype("<i2")


def write_flac(path, x, rate):
    """Write mono 16-bit FLAC with fixed encoder options (no padding/seektable,
    no tags besides libFLAC's fixed vendor string), so equal audio gives equal
    bytes."""
    pcm = to_int16(x).tobytes()
    run(["flac", "--silent", "--force", "--best", "--no-padding", "--no-seektable",
         "--force-raw-format", "--endian=little", "--sign=signed",
         "--channels=1", "--bps=16", f"--sample-rate={rate}",
         "-o", str(path), "-"], input_bytes=pcm)


def level_pack(clips, rate):
    """Bring every clip of a pack to one active-speech level: the target, or lower when a
    clip's peak cap keeps it below the target (a voice with a high crest factor), so no word
    stands out from the others.  Returns (clips, the common level in dBFS)."""
    cap = 10.0 ** (PEAK_CAP_DBFS / 20.0)
    reach = {k: active_rms(x, rate) * cap / max(float(np.max(np.abs(x))), 1e-12)
             for k, x in clips.items()}
    level = min([10.0 ** (TARGET_RMS_DBFS / 20.0)] + list(reach.values()))
    out = {k: x * (level / active_rms(x, rate)) for k, x in clips.items()}
    return out, 20.0 * np.log10(level)


# --- loudness (ITU-R BS.1770-4 / EBU R128, measured with pyloudnorm) ---------------------------

PHRASE_GAP_S = 0.5  # silence between phrases when several are measured as one programme


def meter(rate):
    try:
        import pyloudnorm
    except ImportError:
        raise SystemExit("make-pack: the Python module pyloudnorm (ITU-R BS.1770 loudness) is "
                         "missing; install it with scripts/install-deps --packs "
                         "(or: python3 -m pip install pyloudnorm)")
    return pyloudnorm.Meter(rate)


def programme(renders, rate):
    """The renders one after another with PHRASE_GAP_S of silence between them: measured as one
    programme, silence is gated out and every phrase counts by its length."""
    gap = np.zeros(int(rate * PHRASE_GAP_S))
    parts = []
    for r in renders:
        parts += [np.asarray(r, dtype=np.float64), gap]
    return np.concatenate(parts) if parts else np.zeros(0)


def integrated_loudness(renders, rate):
    """Integrated loudness (LUFS) of the renders as one programme."""
    return float(meter(rate).integrated_loudness(programme(renders, rate)))


def render(clips, ids):
    """A phrase as the player chains clips with no gap (every pack here has word_gap_ms 0)."""
    return np.concatenate([clips[c] for c in ids])


LIMIT_HOP_MS = 2.5     # the peak limiter's gain is set per hop ...
LIMIT_SPREAD_HOPS = 4  # ... and held over this many hops on each side (10 ms), then interpolated


def limit_peaks(x, rate, cap_dbfs=PEAK_CAP_DBFS):
    """Bring every sample to at most cap_dbfs with a smooth gain (a look-ahead peak limiter: the
    gain of each 2.5 ms hop is what its loudest sample needs, held 10 ms either side and
    interpolated), so a word whose few peaks stand over the cap keeps its level.  Returns
    (samples, largest reduction in dB)."""
    cap = 10.0 ** (cap_dbfs / 20.0)
    if float(np.max(np.abs(x))) <= cap:
        return x, 0.0
    hop = max(1, int(rate * LIMIT_HOP_MS / 1000.0))
    nf = (len(x) + hop - 1) // hop
    padded = np.zeros(nf * hop)
    padded[:len(x)] = np.abs(x)
    peaks = padded.reshape(nf, hop).max(axis=1)
    g = np.minimum(1.0, cap / np.maximum(peaks, 1e-12))
    held = g.copy()
    for d in range(1, LIMIT_SPREAD_HOPS + 1):
        held[d:] = np.minimum(held[d:], g[:-d])
        held[:-d] = np.minimum(held[:-d], g[d:])
    centres = np.arange(nf) * hop + hop / 2.0
    gain = np.interp(np.arange(len(x)), centres, held)
    y = np.clip(x * gain, -cap, cap)
    return y, float(-20.0 * np.log10(held.min()))
