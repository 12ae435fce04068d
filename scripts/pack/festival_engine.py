"""Voice clips from festival + CMU ARCTIC slt (HTS), cut at festival's own
word timings out of whole carrier phrases."""

import os
import subprocess

from . import audio
from .carriers import carrier_phrases, parse_carrier

VOICE = "voice_cmu_us_slt_arctic_hts"

# How far a cut may reach into an adjacent pause ("pau" segment), so that a
# word's onset/release next to silence is kept whole; the trim step then
# removes what is really silent.
PAUSE_REACH_BEFORE = 0.15
PAUSE_REACH_AFTER = 0.25
# A clip that ends where the next word starts with a vowel ("two | o'clock")
# ends this much before festival's boundary, so it does not carry the start
# of that vowel (heard as "two-oh", "three-eight").
END_BEFORE_VOWEL = 0.015

# Phone classes of festival's US "radio" phone set.
VOWELS = {"aa", "ae", "ah", "ao", "aw", "ax", "axr", "ay", "eh", "el", "em", "en",
          "er", "ey", "ih", "iy", "ow", "oy", "uh", "uw"}
VOICELESS = {"p", "t", "k", "ch", "f", "th", "s", "sh", "hh"}

_SCHEME_HELPERS = """
(define (tc-dump-tokens tok)
  (if tok
    (begin
      (format t "T %s\\n" (item.name tok))
      (mapcar
        (lambda (w)
          ;; punctuation can leave a daughter with no syllables: skip it
          (if (item.relation.daughter1 w 'SylStructure)
            (format t "W %s %s\\n"
              (item.feat w "R:SylStructure.daughter1.daughter1.segment_start")
              (item.feat w "R:SylStructure.daughtern.daughtern.end"))))
        (item.daughters tok))
      (tc-dump-tokens (item.next tok)))))
(define (tc-dump-segments seg)
  (if seg
    (begin
      (format t "S %s %s %s\\n" (item.name seg)
        (item.feat seg "segment_start") (item.feat seg "end"))
      (tc-dump-segments (item.next seg)))))
(define (tc-phrase n text path)
  (let ((u (utt.synth (eval (list 'Utterance 'Text text)))))
    (format t "U %d\\n" n)
    (tc-dump-tokens (utt.relation.first u 'Token))
    (tc-dump-segments (utt.relation.first u 'Segment))
    (utt.save.wave u path 'riff)))
"""


def _scheme_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def festival_version():
    try:
        out = subprocess.run(["festival", "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True).stdout
        return out.strip()
    except OSError:
        return "unknown"


def _parse(output):
    phrases = {}
    cur = None
    for line in output.splitlines():
        parts = line.split(" ")
        if parts[0] == "U":
            cur = {"tokens": [], "segments": []}
            phrases[int(parts[1])] = cur
        elif cur is None:
            continue
        elif parts[0] == "T":
            cur["tokens"].append({"name": " ".join(parts[1:]), "words": []})
        elif parts[0] == "W":
            cur["tokens"][-1]["words"].append((float(parts[1]), float(parts[2])))
        elif parts[0] == "S":
            cur["segments"].append((parts[1], float(parts[2]), float(parts[3])))
    return phrases


def _strip_punct(tok):
    return tok.strip(".,;:!?")


def _segment_at(info, t, side):
    """Index of the segment that starts (side="start") or ends at time t."""
    for i, (_, s, e) in enumerate(info["segments"]):
        if abs((s if side == "start" else e) - t) < 1e-3:
            return i
    raise RuntimeError(f"no segment boundary at {t}")


def _window(info, first_tok, last_tok):
    """Cut window for tokens first..last: (start, end, onset) in seconds.

    An edge next to a pause reaches into it (the trim later finds the real
    edge).  onset says how the clip starts inside running speech: "vowel"
    (a vowel), "voiceless" (a voiceless consonant after a voiced sound), or
    None.
    """
    w0 = info["tokens"][first_tok]["words"]
    w1 = info["tokens"][last_tok]["words"]
    if not w0 or not w1:
        raise RuntimeError("token without words")
    start, end = w0[0][0], w1[-1][1]
    segs = info["segments"]
    i0 = _segment_at(info, start, "start")
    i1 = _segment_at(info, end, "end")
    prev = segs[i0 - 1] if i0 > 0 else ("pau", start, start)
    nxt = segs[i1 + 1] if i1 + 1 < len(segs) else ("pau", end, end)
    if prev[0] == "pau":
        start -= min(PAUSE_REACH_BEFORE, prev[2] - prev[1])
    if nxt[0] == "pau":
        end += min(PAUSE_REACH_AFTER, nxt[2] - nxt[1])
    elif nxt[0] in VOWELS:
        end -= END_BEFORE_VOWEL
    onset = None
    if prev[0] != "pau":
        if segs[i0][0] in VOWELS:
            onset = "vowel"
        elif segs[i0][0] in VOICELESS and prev[0] not in VOICELESS:
            onset = "voiceless"
    return start, end, onset


def make_voice_clips(workdir, rate, log):
    """Return {clip_id: float array at `rate`} for every voice clip."""
    carriers = [parse_carrier(c) for c in carrier_phrases()]
    lines = [f"({VOICE})", _SCHEME_HELPERS]
    for n, (text, _, _) in enumerate(carriers):
        wav = os.path.join(workdir, f"phrase-{n:03d}.wav")
        lines.append(f"(tc-phrase {n} {_scheme_string(text)} {_scheme_string(wav)})")
    script = os.path.join(workdir, "carriers.scm")
    with open(script, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    log(f"festival: synthesising {len(carriers)} carrier phrases")
    out = audio.run(["festival", "--batch", script]).decode("utf-8", "replace")
    phrases = _parse(out)

    clips = {}
    for n, (text, tokens, spans) in enumerate(carriers):
        info = phrases.get(n)
        if info is None:
            raise RuntimeError(f"festival gave no timings for {text!r}")
        got = [t["name"] for t in info["tokens"]]
        want = [_strip_punct(t) for t in tokens]
        if [_strip_punct(g) for g in got] != want:
            raise RuntimeError(f"festival tokenised {text!r} as {got}, expected {want}")
        x = audio.load_resampled(os.path.join(workdir, f"phrase-{n:03d}.wav"), rate)
        for cid, (a, b) in spans.items():
            t0, t1, onset = _window(info, a, b)
            i0 = max(0, int(round(t0 * rate)))
            i1 = min(len(x), int(round(t1 * rate)))
            if onset == "vowel":
                i0 = audio.skip_to_vowel_onset(x[:i1], rate, i0)
            elif onset == "voiceless":
                i0 = audio.skip_voiced_murmur(x[:i1], rate, i0)
            clips[cid] = audio.finish_voice_clip(x[i0:i1], rate,
                                                 vowel_onset=(onset == "vowel"))
    return clips
