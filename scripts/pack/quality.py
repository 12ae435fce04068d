"""How a pack's phrases sound against the same engine speaking the whole phrase.

Used by scripts/pack-quality (the report) and by make-pack (which writes the whole phrases'
facts, `whole.json` and `whole.mfcc`, beside the pack so the test suite can compare without the
engines). Everything is measured on renders composed here exactly as the player lays clips out
(`Timeline.compose`: each clip after the previous one, `word_gap_ms` of silence between, or the
clips overlapping by `word_overlap_ms` and added); `check_renders` compares a few of them with the
binary's own `say --output`, sample for sample.

The measures, per junction (a place where one clip meets the next inside a phrase) and per phrase:

- **pause**: the silence around the junction (1 ms steps of 5 ms frames more than 45 dB under the
  phrase's loudest frame, the run that reaches within 10 ms of the junction), against the silence
  the engine makes at the same word boundary when it speaks the whole phrase; and **holes**:
  digital silence (exact zeros, 2 ms or more) at a junction where the engine has none there.
- **pitch**: the jump in semitones from the last voiced frames before the junction to the first
  after it, and the same at that word boundary in the whole phrase; the error is their
  difference (what the cut adds to the engine's own melody).
- **loudness** of each phrase (ITU-R BS.1770, pyloudnorm) and the pack's median.
- **listening proxy**: each quarter-hour render against the 96 whole phrases of its phrasing by
  DTW on MFCCs; heard right when the nearest whole phrase is its own.
"""

import concurrent.futures
import json
import os
import re
import subprocess
import zlib

import numpy as np

QUARTERS = [(h, m) for h in range(24) for m in (0, 15, 30, 45)]
# Beyond the quarters: minutes that reach other words (French "vingt et une", Russian "минуты"),
# at hours with their own words (midnight, one, noon, 20 h).
EXTRA = [(h, m) for h in (0, 1, 11, 12, 20, 23) for m in (1, 7, 13, 21, 39, 59)]
TIMES = QUARTERS + EXTRA

SILENCE_DB = 45.0
FRAME_MS, STEP_MS = 5.0, 1.0
REACH_MS = 10.0
HOLE_MS = 2.0
PAUSE_TOLERANCE_MS = 20.0


# --- the phrases -----------------------------------------------------------------------------

def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def private_env(scratch):
    """A private, empty configuration: the user's config must not count."""
    return dict(os.environ, XDG_CONFIG_HOME=os.path.join(scratch, "config"),
                XDG_DATA_HOME=os.path.join(scratch, "data"), HOME=scratch)


def dry_run(binary, pack, language, phrasing, hm, env):
    """(display words, clip ids) of one phrase, as the binary covers it with the pack's clips."""
    h, m = hm
    cmd = [binary, "say", "--local", "--dry-run", "--chime", "none", "--language", language,
           "--phrasing", phrasing, "--at", f"{h:02}:{m:02}", "--pack", pack]
    rc, so, se = run(cmd, env)
    lines = so.splitlines()
    if rc != 0 or len(lines) < 2 or not lines[1].startswith("clips: "):
        raise RuntimeError(f"{' '.join(cmd)} failed ({rc}): {se.strip() or so.strip()}")
    # A unit (several words) is printed in double quotes; other ids as they are ("l'una").
    clips = [a or b for a, b in re.findall(r'"([^"]*)"|(\S+)', lines[1][len("clips: "):])]
    return lines[0].split(), clips


def phrase_words(binary, language, phrasing, env):
    """{(h, m): clip ids of every word} for every minute, from `words --phrases` (one run)."""
    rc, so, se = run([binary, "words", "--language", language, "--phrasing", phrasing, "--phrases"], env)
    if rc != 0:
        raise RuntimeError(f"talking-clock words --language {language} --phrasing {phrasing}: {se.strip()}")
    out = {}
    for line in so.splitlines():
        hm, _, words = line.partition("\t")
        h, m = hm.split(":")
        out[(int(h), int(m))] = words.split()
    return out


def cover(words, available):
    """The fewest clips that say `words` (a pack's units: ids of several words), as the player's
    Vocabulary.cover chooses: from the end back, the longest unit first, kept on a tie."""
    lengths = sorted({len(c.split(" ")) for c in available if " " in c}, reverse=True)
    n = len(words)
    best = [None] * (n + 1)
    best[n] = []
    for i in range(n - 1, -1, -1):
        choice = None
        for k in lengths:
            if k >= 2 and i + k <= n:
                unit = " ".join(words[i:i + k])
                if unit in available and best[i + k] is not None and (
                        choice is None or len(best[i + k]) + 1 < len(choice)):
                    choice = [unit] + best[i + k]
        if words[i] in available and best[i + 1] is not None and (
                choice is None or 1 + len(best[i + 1]) < len(choice)):
            choice = [words[i]] + best[i + 1]
        best[i] = choice
    if best[0] is None:
        raise RuntimeError(f"the pack cannot say {' '.join(words)!r}")
    return best[0]


# --- the pack's audio ------------------------------------------------------------------------

def load_manifest(pack):
    with open(os.path.join(pack, "pack.json"), encoding="utf-8") as f:
        return json.load(f)


def decode(path):
    """A 16-bit mono clip as float64 in -1..1 (sox reads FLAC and WAV)."""
    p = subprocess.run(["sox", "-V1", path, "-t", "raw", "-e", "signed", "-b", "16", "-L", "-"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError(f"sox cannot read {path}: {p.stderr.decode(errors='replace').strip()}")
    return np.frombuffer(p.stdout, dtype="<i2").astype(np.float64) / 32768.0


def load_clips(pack, manifest, ids):
    paths = {c: os.path.join(pack, manifest["clips"][c]) for c in ids}
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        return dict(zip(paths, ex.map(decode, paths.values())))


def spacing(manifest):
    s = manifest.get("spacing", {})
    return int(s.get("word_gap_ms", 0)), int(s.get("word_overlap_ms", 0))


def frames(ms, rate):
    p = ms * rate
    return (p + 500) // 1000 if p >= 0 else -((-p + 500) // 1000)


def compose(clips, ids, rate, gap_ms=0, overlap_ms=0):
    """(samples, start of each clip) laid out as Timeline.compose does (no lead-in, no chime):
    each clip `gap_ms` after the previous one's end, or where there is no gap, `overlap_ms`
    before it but never more than either clip (overlapping clips are added, as the Mixer adds)."""
    starts, cursor = [], 0
    gap, overlap = max(0, frames(gap_ms, rate)), max(0, frames(overlap_ms, rate))
    for i, c in enumerate(ids):
        if i > 0:
            cursor += gap if gap > 0 else -min(overlap, len(clips[ids[i - 1]]), len(clips[c]))
        starts.append(cursor)
        cursor += len(clips[c])
    out = np.zeros(max(s + len(clips[c]) for s, c in zip(starts, ids)))
    for s, c in zip(starts, ids):
        out[s:s + len(clips[c])] += clips[c]
    # The Mixer's output is 16-bit: the same rounding here.
    peak = float(np.max(np.abs(out))) if len(out) else 0.0
    scale = 1.0 if peak <= 32767.0 / 32768.0 else (32767.0 / 32768.0) / peak
    return np.clip(np.round(out * scale * 32768.0), -32768, 32767) / 32768.0, starts


def junctions_of(clips, ids, starts):
    """Sample of each junction: where the next clip starts, or the middle of their overlap."""
    out = []
    for i in range(1, len(ids)):
        end_prev = starts[i - 1] + len(clips[ids[i - 1]])
        out.append((starts[i] + min(end_prev, starts[i] + len(clips[ids[i]]))) // 2
                   if end_prev > starts[i] else starts[i])
    return out


# --- measures --------------------------------------------------------------------------------

def envelope_db(x, rate):
    """Level (dB) of FRAME_MS frames every STEP_MS, centred on each step."""
    n = max(1, int(rate * FRAME_MS / 1000))
    step = max(1, int(rate * STEP_MS / 1000))
    c = np.concatenate([[0.0], np.cumsum(x * x)])
    centres = np.arange(0, len(x), step)
    lo = np.clip(centres - n // 2, 0, len(x))
    hi = np.clip(centres + n // 2, 0, len(x))
    e = (c[hi] - c[lo]) / np.maximum(hi - lo, 1)
    return 10 * np.log10(np.maximum(e, 1e-20)), step


def pause_ms(x, rate, at, env=None):
    """Length of the silence (ms) whose run comes within REACH_MS of sample `at`; 0 if none."""
    level, step = env if env is not None else envelope_db(x, rate)
    silent = level < level.max() - SILENCE_DB
    k = at // step
    reach = int(REACH_MS / STEP_MS)
    idx = [j for j in range(max(0, k - reach), min(len(silent), k + reach + 1)) if silent[j]]
    if not idx:
        return 0.0
    # The run nearest the junction.
    j = min(idx, key=lambda j: abs(j - k))
    a = b = j
    while a > 0 and silent[a - 1]:
        a -= 1
    while b + 1 < len(silent) and silent[b + 1]:
        b += 1
    return (b - a + 1) * STEP_MS


def zero_run_ms(x, rate, at):
    """Longest run of exact digital silence (16-bit zeros) that reaches within 5 ms of sample
    `at`, in ms."""
    w = int(rate * 0.005)
    lo, hi = max(0, at - w), min(len(x), at + w)
    if hi <= lo:
        return 0.0
    zero = np.abs(x) < 0.5 / 32768.0
    if not zero[lo:hi].any():
        return 0.0
    # Extend the window to the ends of the runs that touch it.
    a, b = lo, hi
    while a > 0 and zero[a - 1]:
        a -= 1
    while b < len(x) and zero[b]:
        b += 1
    z = zero[a:b].astype(np.int8)
    edges = np.diff(np.concatenate([[0], z, [0]]))
    starts, ends = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
    runs = [(e - s) for s, e in zip(starts, ends) if e + a > lo and s + a < hi]
    return max(runs, default=0) * 1000.0 / rate


F0_MIN, F0_MAX = 60.0, 450.0
PITCH_WIN_MS, PITCH_HOP_MS = 25.0, 5.0
YIN_THRESHOLD = 0.15
VOICED_BELOW_DB = 35.0


def pitch_track(x, rate):
    """(frame centres in samples, F0 in Hz or 0 where unvoiced) by YIN (de Cheveigné and
    Kawahara 2002): the cumulative-mean-normalised difference of 25 ms frames every 5 ms, the
    first dip under 0.15 (else none: unvoiced), parabolic interpolation; frames 35 dB under the
    loudest are unvoiced; then only steady runs are kept (`steady`)."""
    win = int(rate * PITCH_WIN_MS / 1000)
    hop = int(rate * PITCH_HOP_MS / 1000)
    lag_lo, lag_hi = int(rate / F0_MAX), int(rate / F0_MIN)
    span = win + lag_hi + 1
    if len(x) < span:
        return np.zeros(0, dtype=int), np.zeros(0)
    starts = np.arange(0, len(x) - span, hop)
    fr = np.stack([x[s:s + span] for s in starts])
    nfft = 1 << int(np.ceil(np.log2(span + win)))
    # r(tau) = sum_{j<win} x_j x_{j+tau}
    a = np.fft.rfft(fr[:, :win], nfft)
    b = np.fft.rfft(fr, nfft)
    r = np.fft.irfft(np.conj(a) * b, nfft)[:, :lag_hi + 1]
    sq = np.concatenate([np.zeros((len(fr), 1)), np.cumsum(fr * fr, axis=1)], axis=1)
    e0 = sq[:, win]
    taus = np.arange(lag_hi + 1)
    etau = sq[:, taus + win] - sq[:, taus]
    d = e0[:, None] + etau - 2 * r
    d[:, 0] = 0
    cm = np.cumsum(d[:, 1:], axis=1) / np.arange(1, lag_hi + 1)
    cmnd = np.ones_like(d)
    cmnd[:, 1:] = d[:, 1:] / np.maximum(cm, 1e-20)
    edb = 10 * np.log10(np.maximum(e0, 1e-20))
    c = cmnd[:, lag_lo:lag_hi]
    below = c < YIN_THRESHOLD
    has = below.any(axis=1) & (edb >= edb.max() - VOICED_BELOW_DB)
    t = np.argmax(below, axis=1)
    # Down to the bottom of the dip: the first lag from t on where the curve rises again.
    rising = np.concatenate([c[:, 1:] >= c[:, :-1], np.ones((len(c), 1), dtype=bool)], axis=1)
    rising &= np.arange(c.shape[1])[None, :] >= t[:, None]
    t = np.argmax(rising, axis=1)
    rows = np.arange(len(t))
    lo_i, hi_i = np.maximum(t - 1, 0), np.minimum(t + 1, c.shape[1] - 1)
    p, q, u = c[rows, lo_i], c[rows, t], c[rows, hi_i]
    den = p - 2 * q + u
    inner = (t > 0) & (t < c.shape[1] - 1) & (den != 0)
    lag = t + lag_lo + np.where(inner, 0.5 * (p - u) / np.where(den == 0, 1, den), 0.0)
    f0 = np.where(has, rate / lag, 0.0)
    return starts + span // 2, steady(fold_octaves(f0))


def fold_octaves(f0, reach=10):
    """A frame an octave off its neighbourhood (more than 9 semitones from the median of the
    voiced frames within 50 ms) is taken an octave towards it: YIN's octave errors."""
    out = f0.copy()
    if not (f0 > 0).any():
        return out
    padded = np.concatenate([np.full(reach, np.nan), np.where(f0 > 0, f0, np.nan), np.full(reach, np.nan)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * reach + 1)
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            med = np.nanmedian(windows, axis=1)
    for i in np.nonzero(f0 > 0)[0]:
        while out[i] > med[i] * 2 ** (9 / 12):
            out[i] /= 2
        while out[i] < med[i] / 2 ** (9 / 12):
            out[i] *= 2
    return out


STEADY_ST, STEADY_FRAMES = 2.0, 4


def steady(f0):
    """Only the frames of steady voicing: runs of at least STEADY_FRAMES voiced frames (20 ms)
    whose neighbours differ by less than STEADY_ST semitones; a transition's stray frames (an
    onset read an octave off, a creak) are dropped."""
    out = np.zeros_like(f0)
    i = 0
    while i < len(f0):
        if f0[i] <= 0:
            i += 1
            continue
        j = i + 1
        while j < len(f0) and f0[j] > 0 and abs(12 * np.log2(f0[j] / f0[j - 1])) < STEADY_ST:
            j += 1
        if j - i >= STEADY_FRAMES:
            out[i:j] = f0[i:j]
        i = j
    return out


EDGE_INSIDE_MS = 10.0


def edge_pitch(track, lo, hi, last, rate):
    """Median F0 of the first (or `last`) three steady voiced frames centred at least 10 ms
    inside [lo, hi); None if none."""
    centres, f0 = track
    inside = int(rate * EDGE_INSIDE_MS / 1000)
    sel = np.nonzero((centres >= lo + inside) & (centres < hi - inside) & (f0 > 0))[0]
    if len(sel) == 0:
        return None
    pick = sel[-3:] if last else sel[:3]
    return float(np.median(f0[pick]))


def semitones(a, b):
    return None if a is None or b is None else 12.0 * np.log2(b / a)


def boundary_facts(x, rate, bounds):
    """For each boundary (sample where a span ends and the next begins; spans from 0 to len(x)):
    pause (ms), longest zero run (ms), pitch jump (semitones or None) from the span before to the
    span after."""
    env = envelope_db(x, rate)
    track = pitch_track(x, rate)
    edges = [0] + list(bounds) + [len(x)]
    out = []
    for k, b in enumerate(bounds, start=1):
        before = edge_pitch(track, edges[k - 1], b, True, rate)
        after = edge_pitch(track, b, edges[k + 1], False, rate)
        out.append({"pause": pause_ms(x, rate, b, env), "zeros": zero_run_ms(x, rate, b),
                    "jump": semitones(before, after)})
    return out


def phrase_loudness(x, rate):
    import pyloudnorm
    gap = np.zeros(int(rate * 0.5))
    return float(pyloudnorm.Meter(rate).integrated_loudness(np.concatenate([x, gap])))


# --- the listening proxy: MFCC + DTW ------------------------------------------------------------

MFCC_HOP_MS, MFCC_WIN_MS, MFCC_BANDS, MFCC_COEFFS = 20.0, 30.0, 26, 12
MFCC_SCALE = 8.0  # int8 storage: a coefficient of 1.0 is stored as 8


def _mel(f):
    return 2595.0 * np.log10(1.0 + f / 700.0)


def _mel_bank(rate, nfft):
    lo, hi = _mel(100.0), _mel(min(8000.0, rate / 2))
    pts = 700.0 * (10 ** (np.linspace(lo, hi, MFCC_BANDS + 2) / 2595.0) - 1.0)
    bins = np.fft.rfftfreq(nfft, 1.0 / rate)
    bank = np.zeros((MFCC_BANDS, len(bins)))
    for i in range(MFCC_BANDS):
        a, b, c = pts[i], pts[i + 1], pts[i + 2]
        bank[i] = np.maximum(0, np.minimum((bins - a) / (b - a), (c - bins) / (c - b)))
    return bank


def speech_span(x, rate):
    """The samples from the first to the last frame within 40 dB of the loudest."""
    level, step = envelope_db(x, rate)
    on = np.nonzero(level > level.max() - 40.0)[0]
    if len(on) == 0:
        return x
    return x[on[0] * step:(on[-1] + 1) * step]


def mfcc(x, rate):
    """Cepstral-mean-normalised MFCCs (12, without c0) of the speech in x, 30 ms frames every 20 ms."""
    x = speech_span(x, rate)
    x = np.append(x[0], x[1:] - 0.97 * x[:-1])
    win = int(rate * MFCC_WIN_MS / 1000)
    hop = int(rate * MFCC_HOP_MS / 1000)
    nfft = 1 << int(np.ceil(np.log2(win)))
    if len(x) < win:
        x = np.pad(x, (0, win - len(x)))
    starts = np.arange(0, len(x) - win + 1, hop)
    fr = np.stack([x[s:s + win] for s in starts]) * np.hamming(win)
    power = np.abs(np.fft.rfft(fr, nfft)) ** 2
    mel = np.log(np.maximum(power @ _mel_bank(rate, nfft).T, 1e-10))
    n = MFCC_BANDS
    dct = np.cos(np.pi / n * (np.arange(n)[None, :] + 0.5) * np.arange(1, MFCC_COEFFS + 1)[:, None])
    c = mel @ dct.T * np.sqrt(2.0 / n)
    return c - c.mean(axis=0)


def quantise(c):
    return np.clip(np.round(c * MFCC_SCALE), -127, 127).astype(np.int8)


def dtw_distances(queries, refs):
    """DTW distance from each query to each reference: a (queries, refs) array.

    Symmetric steps (1,0) (0,1) (1,1), Euclidean frame distance, the path's sum divided by the
    two lengths. Every pair at once, one query frame (row) per step: within a row the recursion
    D[i,j] = c[i,j] + min(D[i-1,j], D[i-1,j-1], D[i,j-1]) is D[i,j] = S[j] + min over k <= j of
    (a[k] - S[k]), with S the row's running cost and a[k] = c[i,k] + min(D[i-1,k], D[i-1,k-1]):
    a running minimum."""
    nq, nr = len(queries), len(refs)
    d = refs[0].shape[1]
    mlen = np.array([len(r) for r in refs])
    nlen = np.array([len(q) for q in queries])
    m, n = int(mlen.max()), int(nlen.max())
    R = np.zeros((nr, m, d))
    for i, r in enumerate(refs):
        R[i, :len(r)] = r
    Qm = np.zeros((nq, n, d))
    for i, q in enumerate(queries):
        Qm[i, :len(q)] = q
    Rf = R.reshape(nr * m, d).astype(np.float32)
    Qm = Qm.astype(np.float32)
    rn = np.sum(Rf ** 2, axis=1)
    out = np.full((nq, nr), np.inf)
    prev = None
    a = np.empty((nq, nr, m), dtype=np.float32)
    for i in range(n):
        qi = Qm[:, i]
        c = np.sum(qi ** 2, axis=1)[:, None] + rn[None] - 2 * (qi @ Rf.T)
        np.maximum(c, 0.0, out=c)
        np.sqrt(c, out=c)
        c = c.reshape(nq, nr, m)
        S = np.cumsum(c, axis=2)
        if prev is None:
            row = S
        else:
            a[:, :, 0] = prev[:, :, 0]
            np.minimum(prev[:, :, 1:], prev[:, :, :-1], out=a[:, :, 1:])
            a += c
            a -= S
            np.minimum.accumulate(a, axis=2, out=a)
            row = a + S
        prev = row
        for k in np.nonzero(nlen == i + 1)[0]:
            out[k] = row[k, np.arange(nr), mlen - 1] / (nlen[k] + mlen)
    return out


def proxy_score(render_feats, whole_feats, texts):
    """How many renders' nearest whole phrase (DTW on MFCCs) says their words (12-hour phrasings
    say the same words twice a day), and the misses as (index, index of the nearest)."""
    hits, misses = 0, []
    dist = dtw_distances(render_feats, whole_feats)
    for i in range(len(render_feats)):
        j = int(np.argmin(dist[i]))
        if texts[j] == texts[i]:
            hits += 1
        else:
            misses.append((i, j))
    return hits, misses


# --- the whole phrases' facts, stored beside the pack --------------------------------------------

def write_mfcc_file(path, feats_by_key):
    """{key: int8 array (frames, 12)} as one zlib-compressed file: a JSON index line, then the
    bytes."""
    index, blobs, offset = [], [], 0
    for key, f in feats_by_key.items():
        b = quantise(f).tobytes()
        index.append([key, len(f), offset])
        blobs.append(b)
        offset += len(b)
    head = json.dumps({"coeffs": MFCC_COEFFS, "scale": MFCC_SCALE, "index": index},
                      separators=(",", ":")).encode()
    with open(path, "wb") as f:
        f.write(zlib.compress(head + b"\n" + b"".join(blobs), 9))


def read_mfcc_file(path):
    with open(path, "rb") as f:
        data = zlib.decompress(f.read())
    head, _, body = data.partition(b"\n")
    meta = json.loads(head)
    k = meta["coeffs"]
    out = {}
    for key, n, offset in meta["index"]:
        a = np.frombuffer(body[offset:offset + n * k], dtype=np.int8).reshape(n, k)
        out[key] = a.astype(np.float64) / meta["scale"]
    return out


# --- the engine speaking the whole phrase --------------------------------------------------------

def engine_of(pack, manifest):
    """(engine, voice) that made the pack: from whole.json or cuts.json if make-pack wrote one,
    else by language (the engines make-pack uses)."""
    for name in ("whole.json", "cuts.json"):
        p = os.path.join(pack, name)
        if os.path.isfile(p):
            with open(p, encoding="utf-8") as f:
                d = json.load(f)
            if d.get("engine") and d.get("voice"):
                return d["engine"], d["voice"]
    from . import espeak_engine, festival_engine, language_pack
    tag = manifest.get("language", "en-US")
    if tag == "en-US":
        return "festival", festival_engine.VOICE
    if language_pack.ENGINES.get(tag) == "espeak":
        return "espeak-ng", espeak_engine.VOICES[tag]
    return "festival", festival_engine.LANG_VOICES[tag][0]


def _token_starts(words):
    starts, pos = [], 0
    for w in words:
        starts.append(pos)
        pos += len(w) + 1
    return starts + [10 ** 9]


def whole_espeak(voice, texts, rate):
    """For each text (a list of words): (samples at `rate`, first sample of each word, None for a
    word espeak-ng joins to the one before it). A word starts at its first event (a pause
    espeak-ng puts before it, its word event or its first phoneme)."""
    from . import audio, espeak_engine
    eng = espeak_engine.ESpeak(voice)
    out = []
    for words in texts:
        x, events = eng.synth(" ".join(words))
        starts = _token_starts(words)
        first = []
        for k in range(len(words)):
            s = [smp for t, pos, smp, _ in events if t in (espeak_engine.EV_WORD, espeak_engine.EV_PHONEME)
                 and starts[k] <= pos - 1 < starts[k + 1]]
            first.append(min(s) if s else None)
        ratio = rate / eng.rate
        y = audio.resample_array(x, eng.rate, rate) if eng.rate != rate else x
        out.append((y, [None if f is None else int(round(f * ratio)) for f in first]))
    return out


def whole_festival(voice, texts, rate, work):
    """The same from festival: a word starts at its first segment."""
    from . import audio, festival_engine
    encoding = next((enc for v, enc, _ in festival_engine.LANG_VOICES.values() if v == voice), "utf-8")
    lines = [f"({voice})", festival_engine._SCHEME_HELPERS]
    for n, words in enumerate(texts):
        wav = os.path.join(work, f"whole-{n:04d}.wav")
        lines.append(f"(tc-phrase {n} {festival_engine._scheme_string(' '.join(words))} "
                     f"{festival_engine._scheme_string(wav)})")
    script = os.path.join(work, "whole.scm")
    with open(script, "w", encoding=encoding) as f:
        f.write("\n".join(lines) + "\n")
    info = festival_engine._parse(audio.run(["festival", "--batch", script]).decode(encoding, "replace"))
    out = []
    for n, words in enumerate(texts):
        x = read_resampled(os.path.join(work, f"whole-{n:04d}.wav"), rate)
        toks = info.get(n, {}).get("tokens", [])
        if len(toks) == len(words):
            first = [int(round(t["words"][0][0] * rate)) if t["words"] else None for t in toks]
        else:
            first = [None] * len(words)
        out.append((x, first))
    return out


def read_resampled(path, rate):
    """A 16-bit mono WAV at `rate` (polyphase resampling: for measuring, not for the pack)."""
    import math
    import wave
    from scipy.signal import resample_poly
    with wave.open(path, "rb") as w:
        r = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768.0
    if r == rate:
        return x
    g = math.gcd(r, rate)
    return resample_poly(x, rate // g, r // g)


def read_wav16(path):
    import wave
    with wave.open(path, "rb") as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768.0


def check_renders(binary, pack, language, phrasing, phrases, renders, env, scratch, count=2):
    """The binary's own `say --output` of the longest phrases equals the render composed here,
    sample for sample (so what is measured is what the player plays)."""
    order = sorted(range(len(phrases)), key=lambda i: -len(phrases[i][2]))[:count]
    for i in order:
        (h, m), _, ids = phrases[i]
        out = os.path.join(scratch, f"check-{os.getpid()}.wav")
        cmd = [binary, "say", "--local", "--chime", "none", "--language", language, "--phrasing",
               phrasing, "--at", f"{h:02}:{m:02}", "--pack", pack, "--output", out]
        rc, so, se = run(cmd, env)
        if rc != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({rc}): {se.strip()}")
        got = read_wav16(out)
        os.remove(out)
        want = renders[i][0]
        if len(got) != len(want) or np.max(np.abs(got - want)) > 0.5 / 32768.0:
            raise RuntimeError(
                f"{pack} {phrasing} {h:02}:{m:02} {ids}: the player's render ({len(got)} samples) is not "
                f"the clips laid out as pack.json's spacing says ({len(want)} samples)")


def read_whole(pack):
    """The whole phrases' facts make-pack stored beside the pack ({"engine", "voice", "phrases":
    {"casual 03:15": {"text", "boundaries"}}}, and {key: MFCCs}), or None."""
    j, m = os.path.join(pack, "whole.json"), os.path.join(pack, "whole.mfcc")
    if not (os.path.isfile(j) and os.path.isfile(m)):
        return None
    with open(j, encoding="utf-8") as f:
        d = json.load(f)
    return d, read_mfcc_file(m)


# Words the engine is given another spelling of, where it says them wrongly in context: espeak-ng
# drops the liaison /t/ of "vingt heures" (20 h) that French speakers make; "vingte heures" gives
# [vɛ̃tœʁ]. (word, the word after it) -> spelling.
RESPELL = {"fr": {("vingt", "heures"): "vingte"}}


def respell(tag, words):
    """The words as the engine is given them (RESPELL), the same length as `words`."""
    table = RESPELL.get(tag, {})
    return [table.get((w, words[i + 1] if i + 1 < len(words) else None), w) for i, w in enumerate(words)]


def key_of(phrasing, hm):
    return f"{phrasing} {hm[0]:02}:{hm[1]:02}"


def speak_whole(engine, voice, texts, rate, work):
    """The engine speaking each text (a list of words) whole: [(samples, first sample of each
    word or None)]."""
    if engine == "espeak-ng":
        return whole_espeak(voice, texts, rate)
    return whole_festival(voice, texts, rate, work)


def round_facts(facts):
    return [None if f is None else {k: (None if v is None else round(float(v), 2)) for k, v in f.items()}
            for f in facts]


def whole_facts(x, first, rate):
    """Facts at every word boundary of a whole phrase (None where espeak-ng joined two words)."""
    if len(first) < 2:
        return []
    if all(b is not None for b in first[1:]):
        return round_facts(boundary_facts(x, rate, first[1:]))
    out = [None] * (len(first) - 1)
    known = [k for k in range(1, len(first)) if first[k] is not None]
    facts = boundary_facts(x, rate, [first[k] for k in known])
    for k, f in zip(known, facts):
        out[k - 1] = f
    return round_facts(out)


def whole_record(engine, voice, sets, rate, work, log=lambda m: None, tag=None):
    """What make-pack stores beside a pack: for each set (phrasing, {hm: display words}) the
    engine's facts at every word boundary of every phrase of TIMES, and the MFCCs of the
    quarter hours. Returns (json-able dict, {key: MFCCs})."""
    phrases, feats = {}, {}
    for phrasing, texts in sets:
        times = [hm for hm in TIMES if hm in texts]
        log(f"{phrasing}: {engine} ({voice}) speaks {len(times)} whole phrases")
        spoken = speak_whole(engine, voice, [respell(tag, texts[hm]) for hm in times], rate, work)
        for hm, (x, first) in zip(times, spoken):
            key = key_of(phrasing, hm)
            phrases[key] = {"text": " ".join(texts[hm]), "boundaries": whole_facts(x, first, rate)}
            if hm in QUARTER_SET:
                feats[key] = mfcc(x, rate)
    return {"engine": engine, "voice": voice, "rate": rate, "phrases": phrases}, feats


QUARTER_SET = set(QUARTERS)


def word_index_of_clips(words, ids):
    """For each clip, the index of the word it starts, or None for the second part of an English
    compound composed from two clips ("thirty" + "seven")."""
    out, k, part = [], 0, 0
    for c in ids:
        n = len(c.split(" "))
        if part == 0 and " ".join(words[k:k + n]) == c:
            out.append(k)
            k += n
        else:
            parts = words[k].split("-")
            out.append(k if part == 0 else None)
            part += 1
            if part == len(parts):
                k, part = k + 1, 0
    return out


def measure_set(binary, pack, manifest, phrasing, env, scratch, whole=None, only=None,
                jobs=2, log=print):
    """Every measure of one pack and phrasing. `whole`: the stored record (read_whole), or None
    to have the engine speak the whole phrases now; only="proxy": the listening proxy alone."""
    lang = manifest.get("language", "en-US")
    rate = int(manifest.get("sample_rate", 22050))
    gap_ms, overlap_ms = spacing(manifest)
    available = set(manifest["clips"])
    composes = lang.startswith("en")
    words_by_time = phrase_words(binary, lang, phrasing, env)
    phrases = []
    for hm in TIMES:
        words = words_by_time[hm]
        phrases.append((hm, words, cover_english(words, available) if composes else cover(words, available)))
    clips = load_clips(pack, manifest, sorted({c for _, _, ids in phrases for c in ids}))
    renders = [compose(clips, ids, rate, gap_ms, overlap_ms) for _, _, ids in phrases]
    # The player covers and lays out the phrases as this script does: every phrase's cover
    # against `say --dry-run` when the engine speaks (its words are needed then), else the
    # longest few; two renders against `say --output`.
    check = range(len(phrases)) if whole is None else sorted(
        range(len(phrases)), key=lambda i: -len(phrases[i][2]))[:4]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        dry = dict(zip(check, ex.map(lambda i: dry_run(binary, pack, lang, phrasing, phrases[i][0], env), check)))
    for i, (display, got) in dry.items():
        if got != phrases[i][2]:
            raise RuntimeError(f"{pack} {phrasing} {phrases[i][0]}: the player covers it with {got}, "
                               f"this script with {phrases[i][2]}")
    check_renders(binary, pack, lang, phrasing, phrases, renders, env, scratch)

    if whole is None:
        engine, voice = engine_of(pack, manifest)
        record, wfeats = whole_record(engine, voice, [(phrasing, {p[0]: dry[i][0] for i, p in enumerate(phrases)})],
                                      rate, scratch, log, lang)
    else:
        record, wfeats = whole
    junctions = []
    for (hm, words, ids), (x, starts) in zip(phrases, renders):
        if only == "proxy":
            break
        key = key_of(phrasing, hm)
        stored = record["phrases"].get(key)
        if stored is None:
            raise RuntimeError(f"{pack}: the whole phrases' record has no {key!r}; rebuild the pack (make-pack)")
        if len(stored["text"].split()) != len(words):
            raise RuntimeError(f"{pack} {key}: the record's phrase {stored['text']!r} is not {' '.join(words)!r}; "
                               "rebuild the pack (make-pack)")
        facts = boundary_facts(x, rate, junctions_of(clips, ids, starts))
        where = word_index_of_clips(words, ids)
        for i, f in enumerate(facts):
            k = where[i + 1]
            w = stored["boundaries"][k - 1] if k is not None else None
            junctions.append({"time": key, "after": ids[i], "before": ids[i + 1], "render": f, "whole": w})
    loud = {} if only == "proxy" else {
        key_of(phrasing, hm): phrase_loudness(x, rate) for (hm, _, _), (x, _) in zip(phrases, renders)}
    quarters = [i for i, p in enumerate(phrases) if p[0] in QUARTER_SET]
    keys = [key_of(phrasing, phrases[i][0]) for i in quarters]
    rf = [quantise(mfcc(renders[i][0], rate)).astype(float) / MFCC_SCALE for i in quarters]
    wf = [quantise(wfeats[k]).astype(float) / MFCC_SCALE for k in keys]
    hits, misses = proxy_score(rf, wf, [record["phrases"][k]["text"] for k in keys])
    return {"pack": os.path.basename(os.path.normpath(pack)), "language": lang, "phrasing": phrasing,
            "junctions": junctions, "loudness": loud, "proxy": hits,
            "proxy_misses": [(keys[i], keys[j]) for i, j in misses]}


def cover_english(words, available):
    """English packs compose a compound the pack lacks from its parts ("thirty" + "seven")."""
    ids = []
    for w in words:
        if w in available:
            ids.append(w)
        elif "-" in w and all(p in available for p in w.split("-")):
            ids += w.split("-")
        else:
            raise RuntimeError(f"the pack cannot say {w!r}")
    return ids


def summarise(r, goals):
    js = [j for j in r["junctions"] if j["whole"] is not None]
    dp = [j["render"]["pause"] - j["whole"]["pause"] for j in js]
    holes = [j for j in js if j["render"]["zeros"] >= HOLE_MS and j["whole"]["zeros"] < HOLE_MS]
    pj = [(j["render"]["jump"], j["whole"]["jump"]) for j in js
          if j["render"]["jump"] is not None and j["whole"]["jump"] is not None]
    err = [abs(a - b) for a, b in pj]
    loud = list(r["loudness"].values()) or [0.0]
    med = float(np.median(loud))
    far = max(loud, key=lambda v: abs(v - med))
    return {
        "junctions": len(r["junctions"]), "measured": len(js),
        "pause_ok": sum(abs(d) <= goals["pause_ms"] for d in dp) / max(1, len(dp)),
        "pause_worst": max(dp, key=abs) if dp else 0.0,
        "holes": len(holes),
        "pitch_n": len(pj),
        "pitch_render": float(np.median([abs(a) for a, _ in pj])) if pj else 0.0,
        "pitch_whole": float(np.median([abs(b) for _, b in pj])) if pj else 0.0,
        "pitch_error": float(np.median(err)) if err else 0.0,
        "pitch_over3": sum(e > 3 for e in err) / max(1, len(err)),
        "loud_median": med, "loud_far": far - med,
        "proxy": r["proxy"],
    }
