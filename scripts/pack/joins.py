"""Joins you cannot hear: each clip is cut at the engine's own word boundaries, and of the places a
word is said, the one whose edges best fit the words it meets is chosen, by measurement.

1. **Where a clip starts and ends.** A clip runs from its word's start to the next word's start,
   where a word starts at its first sound or at the pause the engine makes before it (espeak-ng's
   glottal stop before a German vowel, festival's phrase break): the pause before a word belongs
   to that word, so a junction carries the pause the engine makes before the word that follows.
   Only a clip cut at the very start or end of its sentence is trimmed there. Inner edges are moved
   inwards to the nearest zero crossing (at most 1.5 ms) and faded over OVERLAP_MS, which the pack
   declares as `spacing.word_overlap_ms`: the player overlaps the two faded edges, a crossfade of
   the clips' own sound, so two voiced sounds meet with no dip, no click and no digital silence.

2. **Which sentence a clip comes from.** A word is said in many sentences (after different words,
   at the end or inside), each giving it other edges: another pitch where it starts and ends,
   another pause before it. Every such cut is a candidate. The engine speaks a set of phrases whole
   (every fifth minute of the day of every phrasing: what the clock says most); at every junction
   of those phrases the pause and the pitch jump the engine makes at that word boundary are the
   target. The candidates are chosen together, word by word until nothing changes (coordinate
   descent), so that the junctions' pitch jumps and pauses come closest to the whole phrases'.
   This is "cut from the same prosodic position", decided by measuring the joins instead of by a
   rule, and keeps every clip a stretch of the engine's own speech: no pitch is modified.
"""

import math

import numpy as np

from . import audio, quality

OVERLAP_MS = 6
SNAP_MS = 1.5
# Candidates per clip: the contexts (word before, word after, at the start or end) it is said in
# most often.
MAX_CANDIDATES = 16
# Cost of a junction: semitones of pitch error (beyond 3 counting double, capped), plus the pause
# error in units of 10 ms.
PITCH_CAP = 8.0
PAUSE_UNIT_MS = 10.0
# Units added where two clips join badly whatever their cuts: rounds, units per round, in all.
UNIT_ROUNDS = 4
UNITS_PER_ROUND = 12
MAX_UNITS = 48
# The quarter hours are what the clock says unless told otherwise: their junctions count this much
# more than another minute's.
QUARTER_WEIGHT = 8
# A junction is bad past this cost (about 1.5 semitones or 15 ms of pause); a pair of clips is
# made a unit when its junctions' cost past that adds up to at least UNIT_MIN_EXCESS.
BAD_COST = 1.5
UNIT_MIN_EXCESS = 4.0


def trim_edges(x, rate, start, end):
    """Trim silence at the start and/or end only (relative to the clip's own peak, as
    audio.trim: frames 50 dB under the peak, 20 ms kept before and 40 ms after)."""
    env, n = audio.frame_rms_db(x, rate)
    active = np.nonzero(env > env.max() - audio.TRIM_BELOW_PEAK_DB)[0]
    if len(active) == 0:
        raise ValueError("silent clip")
    a = max(0, active[0] * n - int(round(rate * audio.KEEP_BEFORE_MS / 1000.0))) if start else 0
    b = min(len(x), (active[-1] + 1) * n + int(round(rate * audio.KEEP_AFTER_MS / 1000.0))) if end else len(x)
    return x[a:b]


def snap_inwards(x, rate, start, end):
    """Move an inner edge inwards to the nearest zero crossing within SNAP_MS, so the fade starts
    from (nearly) nothing and two clips meet in phase at their first and last sample."""
    w = max(1, int(rate * SNAP_MS / 1000))
    a, b = 0, len(x)
    if not start and len(x) > 2 * w:
        seg = x[:w]
        z = np.nonzero((seg[:-1] <= 0) & (seg[1:] > 0) | (seg[:-1] == 0))[0]
        a = int(z[0]) if len(z) else 0
    if not end and len(x) > 2 * w:
        seg = x[len(x) - w:]
        z = np.nonzero((seg[:-1] <= 0) & (seg[1:] > 0) | (seg[1:] == 0))[0]
        b = len(x) - w + int(z[-1]) + 1 if len(z) else len(x)
    return x[a:b]


def finish(x, rate, at_start, at_end, fade_ms=OVERLAP_MS):
    """A cut made into a clip: trimmed only where it is the edge of its sentence, inner edges at
    zero crossings, brought to the common active-speech level, and faded over fade_ms at both
    ends (raised cosine: two such edges overlapped add up to a constant gain)."""
    x = trim_edges(x, rate, at_start, at_end)
    x = snap_inwards(x, rate, at_start, at_end)
    x = audio.normalise(x, rate)
    return audio.fades(x, rate, fade_in_ms=fade_ms, fade_out_ms=fade_ms)


class Candidate:
    """One cut of a clip id from one sentence, with what its edges sound like."""

    def __init__(self, clip, text, span, x, rate, inside=None, alone=None, clean=True):
        self.clip, self.text, self.span, self.x = clip, tuple(text), span, x
        self.inside, self.alone, self.clean = inside, alone, clean
        level, step = quality.envelope_db(x, rate)
        silent = level < level.max() - quality.SILENCE_DB
        lead = np.argmax(~silent) if (~silent).any() else len(silent)
        tail = np.argmax(~silent[::-1]) if (~silent).any() else len(silent)
        self.lead_ms, self.tail_ms = lead * quality.STEP_MS, tail * quality.STEP_MS
        track = quality.pitch_track(x, rate)
        self.f0_start = quality.edge_pitch(track, 0, len(x), False, rate)
        self.f0_end = quality.edge_pitch(track, 0, len(x), True, rate)


def contexts(phrases, clip, limit=MAX_CANDIDATES):
    """Up to `limit` places a clip id is said, as (display words, span): the most frequent
    context (the two words before and after, None past the phrase's edge) first, then each next
    one with the most neighbours not seen yet (another word right before, another right after,
    then other words two away), so the candidates cover the situations the clip meets. `phrases`: [(display words, clip ids)] with units already
    covering their words."""
    seen = {}
    for words, ids in phrases:
        pos = 0
        for i, c in enumerate(ids):
            n = len(c.split(" "))
            if c == clip:
                key = (ids[i - 1] if i else None, ids[i + 1] if i + 1 < len(ids) else None,
                       ids[i - 2] if i > 1 else None, ids[i + 2] if i + 2 < len(ids) else None)
                if key not in seen:
                    seen[key] = [0, len(seen), (tuple(words), (pos, pos + n - 1))]
                seen[key][0] += 1
            pos += n
    left = sorted(seen, key=lambda k: (-seen[k][0], seen[k][1]))
    chosen, before, after, far = [], set(), set(), set()
    while left and len(chosen) < limit:
        k = max(left, key=lambda k: (2 * ((k[0] not in before) + (k[1] not in after)) + (k[2:] not in far),
                                      seen[k][0], -seen[k][1]))
        left.remove(k)
        chosen.append(k)
        before.add(k[0])
        after.add(k[1])
        far.add(k[2:])
    return [(k, seen[k][2]) for k in chosen]


def junction_cost(a, b, target, overlap_ms):
    """How far the junction of candidates a|b is from the engine's whole phrase there."""
    cost = 0.0
    if target is None:
        return cost
    if target.get("jump") is not None and a.f0_end and b.f0_start:
        e = abs(12.0 * math.log2(b.f0_start / a.f0_end) - target["jump"])
        cost += min(e, PITCH_CAP) + max(0.0, min(e, PITCH_CAP) - 3.0)
    pause = max(0.0, a.tail_ms + b.lead_ms - overlap_ms)
    cost += abs(pause - target["pause"]) / PAUSE_UNIT_MS
    return cost


def choose(cands, junctions, overlap_ms, log, rounds=6):
    """{clip: index of the chosen candidate}. `cands`: {clip: [Candidate]} (the first is the
    rule's choice); `junctions`: [(clip before, clip after, target facts, weight)] of the whole
    phrases."""
    pick = {c: 0 for c in cands}
    by_clip = {c: [] for c in cands}
    for j, (a, b, t, _) in enumerate(junctions):
        by_clip[a].append(j)
        if b != a:
            by_clip[b].append(j)

    def cost_of(c, k):
        total = 0.0
        for j in by_clip[c]:
            a, b, t, w = junctions[j]
            ca = cands[a][k if a == c else pick[a]]
            cb = cands[b][k if b == c else pick[b]]
            total += w * junction_cost(ca, cb, t, overlap_ms)
        return total

    def total():
        return sum(w * junction_cost(cands[a][pick[a]], cands[b][pick[b]], t, overlap_ms) for a, b, t, w in junctions)

    before = total()
    for r in range(rounds):
        changed = 0
        for c in cands:
            if len(cands[c]) < 2 or not by_clip[c]:
                continue
            costs = [cost_of(c, k) for k in range(len(cands[c]))]
            k = int(np.argmin(costs))
            if costs[k] < costs[pick[c]] - 1e-9:
                pick[c] = k
                changed += 1
        if not changed:
            break
    log(f"joins: {len(junctions)} junctions of the whole phrases, cost {before:.0f} -> {total():.0f} "
        f"({sum(1 for c in pick if pick[c])} of {len(pick)} clips from another sentence than the rule's)")
    return pick


def propose_units(cands, pick, junctions, overlap_ms, have, log):
    """Clip pairs to say as one unit ("A B") because their junction stays bad with the best cuts:
    the pairs whose junctions cost most past BAD_COST, worst first, at most UNITS_PER_ROUND now
    and MAX_UNITS in all. A unit takes the junction away (its two words are cut together, joined
    as the engine joined them) and can be cut from the context it is said in; its own edges meet
    other clips, which the next round chooses again."""
    excess = {}
    for a, b, t, w in junctions:
        c = junction_cost(cands[a][pick[a]], cands[b][pick[b]], t, overlap_ms)
        if c > BAD_COST:
            excess[(a, b)] = excess.get((a, b), 0.0) + w * (c - BAD_COST)
    worst = sorted((v, k) for k, v in excess.items() if v >= UNIT_MIN_EXCESS)[::-1]
    room = max(0, min(UNITS_PER_ROUND, MAX_UNITS - have))
    out = [f"{a} {b}" for _, (a, b) in worst[:room]]
    if out:
        log(f"joins: {len(out)} pairs made units: " + ", ".join(f"{u!r} ({v:.0f})" for u, (v, _) in zip(out, worst)))
    return out

