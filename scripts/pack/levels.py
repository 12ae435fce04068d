"""One loudness for every phrase of every pack.

Measured per phrase (ITU-R BS.1770-4 integrated loudness of the phrase alone, pyloudnorm), on
every fifth minute of the day of every phrasing, rendered as the player lays the clips out:

1. one gain for the whole pack brings the median phrase to TARGET_LUFS, the same for every pack,
   so switching language does not change the loudness (before, packs matched as whole programmes
   of 96 phrases, and the median phrase still differed by up to 1 LU, French louder);
2. then a small gain per clip (within MAX_CLIP_DB of the median clip's, inside what `check` accepts) brings the phrases that stand out
   (a short "midnight", "полдень" 2.5 LU under the rest) to within SPREAD_GOAL_LU of the median:
   least squares over the phrases, each clip's share of a phrase's energy as its weight, the
   others held where they are, a small penalty on every clip's gain so the words keep their
   balance.
"""

import numpy as np

from . import audio, quality

TARGET_LUFS = -20.2   # the default pack's median phrase before this work (en-US 12h: -20.16)
SPREAD_GOAL_LU = 1.0  # aim inside the ±1.5 LU goal, with a margin for rounding and the limiter
# `talking-clock check` warns about a clip whose active-speech level is more than 1.5 dB from the
# median clip's: every clip's own gain stays within MAX_CLIP_DB of the median clip's gain (the clips
# start at one level).
MAX_CLIP_DB = 1.0
RIDGE = 0.05


def render_all(clips, phrases, rate, overlap_ms):
    return [quality.compose(clips, ids, rate, 0, overlap_ms)[0] for ids in phrases]


def loudness_of(clips, phrases, rate, overlap_ms):
    return np.array([quality.phrase_loudness(x, rate) for x in render_all(clips, phrases, rate, overlap_ms)])


def even_out(clips, phrases, rate, overlap_ms, log, rounds=4):
    """(clips with one pack gain and per-clip gains, pack gain dB, {clip: its own gain dB},
    loudness of each phrase after). `phrases`: clip ids of each phrase measured."""
    loud = loudness_of(clips, phrases, rate, overlap_ms)
    gain = TARGET_LUFS - float(np.median(loud))
    clips = {k: x * 10 ** (gain / 20) for k, x in clips.items()}
    loud = loud + gain
    ids = sorted(clips)
    col = {c: i for i, c in enumerate(ids)}
    own = np.zeros(len(ids))
    energy = {c: float(np.sum(clips[c] ** 2)) for c in ids}
    share = np.zeros((len(phrases), len(ids)))
    for p, seq in enumerate(phrases):
        tot = sum(energy[c] for c in seq)
        for c in seq:
            share[p, col[c]] += energy[c] / tot
    for r in range(rounds):
        med = float(np.median(loud))
        off = med - loud
        far = np.abs(off) > SPREAD_GOAL_LU
        if not far.any():
            break
        # Phrases that stand out are pulled to the median; the others are held (weight 0.3).
        w = np.where(far, 1.0, 0.3)
        b = np.where(far, off - np.sign(off) * SPREAD_GOAL_LU * 0.5, 0.0)
        A = share * w[:, None]
        lhs = A.T @ A + RIDGE * np.eye(len(ids))
        step = np.linalg.solve(lhs, A.T @ (b * w))
        new = own + step
        for _ in range(5):
            mid = float(np.median(new))
            new = np.clip(new, mid - MAX_CLIP_DB, mid + MAX_CLIP_DB)
        delta = new - own
        own = new
        clips = {c: clips[c] * 10 ** (delta[col[c]] / 20) for c in ids}
        loud = loudness_of(clips, phrases, rate, overlap_ms)
    # The per-clip gains may have moved the median: one last pack gain back to the target.
    fix = TARGET_LUFS - float(np.median(loud))
    clips = {k: x * 10 ** (fix / 20) for k, x in clips.items()}
    loud = loud + fix
    moved = {c: float(own[col[c]]) for c in ids if abs(own[col[c]]) >= 0.05}
    log(f"loudness: pack gain {gain + fix:+.2f} dB, {len(moved)} clips with their own gain "
        f"(at most {max((abs(v) for v in moved.values()), default=0):.1f} dB); phrases "
        f"{loud.min() - np.median(loud):+.2f} … {loud.max() - np.median(loud):+.2f} LU around "
        f"{np.median(loud):.2f} LUFS")
    return clips, gain + fix, moved, loud


CHECK_MARGIN_DB = 1.3


def check_level(x, rate):
    """A clip's active-speech level as `talking-clock check` measures it (Loudness.activeLevel):
    20 ms frames, those within 30 dB of the loudest, their mean power, on the 16-bit samples."""
    q = np.round(np.clip(x, -1, 1) * 32767.0) / 32768.0
    n = int(round(rate * 0.020))
    nf = (len(q) + n - 1) // n
    padded = np.zeros(nf * n)
    padded[:len(q)] = q
    frames = padded.reshape(nf, n)
    counts = np.full(nf, n, dtype=float)
    counts[-1] = len(q) - (nf - 1) * n
    ms = np.sum(frames ** 2, axis=1) / counts
    lv = 10 * np.log10(np.maximum(ms, 1e-20))
    act = lv[lv > lv.max() - 30.0]
    return float(10 * np.log10(np.mean(10 ** (act / 10))))


def keep_words_together(clips, rate, rounds=3):
    """After the peak limiter: a clip the limiter took down on top of a negative gain of its own
    can end up more than `check`'s 1.5 dB from the median word; bring every clip to within
    CHECK_MARGIN_DB of the median active-speech level (limiting again where that lifts a peak)."""
    return _within_margin(clips, rate, rounds, lambda level: float(np.median(list(level.values()))))


def _within_margin(clips, rate, rounds, median_of):
    """Brings each of `clips` to within CHECK_MARGIN_DB of the median level `median_of` gives for
    their levels this round (`check`'s active-speech level), limiting peaks again; in place."""
    for _ in range(rounds):
        level = {k: check_level(x, rate) for k, x in clips.items()}
        mid = median_of(level)
        off = {k: v - mid for k, v in level.items() if abs(v - mid) > CHECK_MARGIN_DB}
        if not off:
            break
        for k, d in off.items():
            want = -d + (CHECK_MARGIN_DB if d > 0 else -CHECK_MARGIN_DB) * 0.9
            clips[k], _ = audio.limit_peaks(clips[k] * 10 ** (want / 20), rate)
    return clips



def bring_with(clips, new, level_db, gain_db, rate, rounds=3):
    """Words added to a levelled pack (the words of dates and values) at its level, the pack's own
    clips untouched: each at the common active-speech level `level_db` (audio.level_pack) and the
    pack gain `gain_db` (even_out), peaks limited, then within CHECK_MARGIN_DB of the pack's
    median word as `check` measures it (keep_words_together)."""
    target = 10.0 ** (level_db / 20.0)
    out = {}
    for k, x in new.items():
        y = x * (target / audio.active_rms(x, rate)) * 10.0 ** (gain_db / 20.0)
        out[k], _ = audio.limit_peaks(y, rate)
    mid = float(np.median([check_level(x, rate) for x in clips.values()]))
    return _within_margin(out, rate, rounds, lambda _: mid)
