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


def _window(info, first_tok, last_tok, phones=None, reach_after=PAUSE_REACH_AFTER):
    """Cut window for tokens first..last: (start, end, onset) in seconds.

    An edge next to a pause reaches into it (the trim later finds the real
    edge).  onset says how the clip starts inside running speech: "vowel"
    (a vowel), "voiceless" (a voiceless consonant after a voiced sound), or
    None.
    """
    pauses, vowels, voiceless = phones or ({"pau"}, VOWELS, VOICELESS)
    w0 = info["tokens"][first_tok]["words"]
    w1 = info["tokens"][last_tok]["words"]
    if not w0 or not w1:
        raise RuntimeError("token without words")
    start, end = w0[0][0], w1[-1][1]
    segs = info["segments"]
    i0 = _segment_at(info, start, "start")
    i1 = _segment_at(info, end, "end")
    pause = next(iter(pauses))
    prev = segs[i0 - 1] if i0 > 0 else (pause, start, start)
    nxt = segs[i1 + 1] if i1 + 1 < len(segs) else (pause, end, end)
    if prev[0] in pauses:
        start -= min(PAUSE_REACH_BEFORE, prev[2] - prev[1])
    if nxt[0] in pauses:
        end += min(reach_after, nxt[2] - nxt[1])
    elif nxt[0] in vowels:
        end -= END_BEFORE_VOWEL
    onset = None
    if prev[0] not in pauses:
        if segs[i0][0] in vowels:
            onset = "vowel"
        elif segs[i0][0] in voiceless and prev[0] not in voiceless:
            onset = "voiceless"
    return start, end, onset


def make_voice_clips(workdir, rate, log, phrases=None):
    """Return {clip_id: float array at `rate`} for every voice clip (of `phrases`, carrier
    sentences with markup; default: the default pack's)."""
    carriers = [parse_carrier(c) for c in (phrases or carrier_phrases())]
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
            i0, i1 = _cut(x, rate, t0, t1, onset)
            clips[cid] = audio.finish_voice_clip(x[i0:i1], rate,
                                                 vowel_onset=(onset == "vowel"))
    return clips


def _cut(x, rate, t0, t1, onset):
    """The sample range of a word festival timed at t0..t1 s, its start moved past a murmur or
    to the vowel's onset as `_window` says."""
    i0 = max(0, int(round(t0 * rate)))
    i1 = min(len(x), int(round(t1 * rate)))
    if onset == "vowel":
        i0 = audio.skip_to_vowel_onset(x[:i1], rate, i0)
    elif onset == "voiceless":
        i0 = audio.skip_voiced_murmur(x[:i1], rate, i0)
    return i0, i1


# Festival voices for the other languages: (voice function, text encoding, pause phones,
# vowels, voiceless consonants).  The Russian voice reads UTF-8; the Italian one Latin-1.
_RU_VOWELS = {"a", "e", "i", "o", "u", "y", "aa", "ae", "ee", "ii", "oo", "uu", "yy", "ay", "ey"}
_IT_VOWELS = {"a", "e", "i", "o", "u", "a1", "e1", "i1", "o1", "u1", "E", "O", "E1", "O1"}
# How far a cut may reach into a following pause, per language: the Italian diphone voice's
# pauses carry faint noise (about -65 dBFS) that the trim keeps, and its words end at their last
# segment (no release beyond it), so its cuts stop 40 ms into the pause; reaching 250 ms in, as
# for the HTS voice, left ~250 ms of near-silence at the end of "sette", "ventidue",
# "ventisette" and "trentadue": a pause inside a phrase.
PAUSE_REACH_AFTER_BY_LANG = {"it": 0.04}
LANG_VOICES = {
    "en-GB": ("voice_cmu_us_slt_arctic_hts", "utf-8", ({"pau"}, VOWELS, VOICELESS)),
    "ru": ("voice_msu_ru_nsh_clunits", "utf-8",
           ({"pau"}, _RU_VOWELS, {"p", "t", "k", "f", "s", "sh", "ch", "h", "pp", "tt", "kk",
                                  "ff", "ss", "sch", "c", "hh"})),
    "it": ("voice_lp_diphone", "latin-1",
           ({"#", "_"}, _IT_VOWELS, {"p", "t", "k", "f", "s", "S", "ts", "tS"})),
}


def make_lang_clips(tag, candidates, workdir, rate, log):
    """{clip id: float array at `rate`}, {clip id: (words, index)} for a language.

    Each word is cut, at festival's word timings, from the best of its candidate phrases
    (lang_carriers.carriers) that festival tokenises into the same words; the phrases are
    spoken in batches, one festival run per round.
    """
    voice, encoding, phones = LANG_VOICES[tag]
    pending = {w: list(c) for w, c in candidates.items()}
    clips, used = {}, {}
    round_no = 0
    while pending:
        round_no += 1
        texts = []
        want = {}
        for w, cands in pending.items():
            if not cands:
                raise RuntimeError(f"festival: no phrase of {tag} could be aligned for {w!r}")
            (_, _, _, words, _), i = cands[0]
            text = " ".join(words)
            if text not in texts:
                texts.append(text)
            want[w] = (texts.index(text), list(words), i)
        lines = [f"({voice})", _SCHEME_HELPERS]
        for n, text in enumerate(texts):
            wav = os.path.join(workdir, f"{tag}-{round_no}-{n:03d}.wav")
            lines.append(f"(tc-phrase {n} {_scheme_string(text)} {_scheme_string(wav)})")
        script = os.path.join(workdir, f"{tag}-{round_no}.scm")
        with open(script, "w", encoding=encoding) as f:
            f.write("\n".join(lines) + "\n")
        log(f"festival ({voice}): round {round_no}, {len(texts)} phrases")
        out = audio.run(["festival", "--batch", script]).decode(encoding, "replace")
        phrases = _parse(out)
        loaded = {}
        for w, (n, words, i) in sorted(want.items()):
            info = phrases.get(n)
            ok = info is not None and [_strip_punct(t["name"]) for t in info["tokens"]] == \
                [_strip_punct(t) for t in words] and all(t["words"] for t in info["tokens"])
            if ok:
                if n not in loaded:
                    loaded[n] = audio.load_resampled(
                        os.path.join(workdir, f"{tag}-{round_no}-{n:03d}.wav"), rate)
                x = loaded[n]
                t0, t1, onset = _window(info, i, i, phones,
                                        PAUSE_REACH_AFTER_BY_LANG.get(tag, PAUSE_REACH_AFTER))
                i0, i1 = _cut(x, rate, t0, t1, onset)
                if i1 - i0 > rate // 50:
                    clips[w] = audio.finish_voice_clip(x[i0:i1], rate, vowel_onset=(onset == "vowel"))
                    used[w] = (tuple(words), i)
                    del pending[w]
                    continue
            got = [t["name"] for t in info["tokens"]] if info else None
            log(f"festival: {' '.join(words)!r} tokenised as {got}; trying another phrase for {w!r}")
            pending[w].pop(0)
    return clips, used


# --- cuts at festival's word boundaries, pauses with the word after them ------------------------

def voice_of(tag):
    """(voice function, text encoding, (pause phones, vowels, voiceless)) for a language tag."""
    if tag == "en-US":
        return VOICE, "utf-8", ({"pau"}, VOWELS, VOICELESS)
    return LANG_VOICES[tag]


def speak_batch(voice, encoding, texts, work, label):
    """festival speaks every text (one batch run): [(info or None, wav path)] with info the
    tokens' word times and the segments (`_parse`)."""
    lines = [f"({voice})", _SCHEME_HELPERS]
    paths = []
    for n, text in enumerate(texts):
        wav = os.path.join(work, f"{label}-{n:04d}.wav")
        paths.append(wav)
        lines.append(f"(tc-phrase {n} {_scheme_string(text)} {_scheme_string(wav)})")
    script = os.path.join(work, f"{label}.scm")
    with open(script, "w", encoding=encoding) as f:
        f.write("\n".join(lines) + "\n")
    out = audio.run(["festival", "--batch", script]).decode(encoding, "replace")
    info = _parse(out)
    return [(info.get(n), paths[n]) for n in range(len(texts))]


def token_starts(info, phones):
    """Start (s) of each token: its first segment, or the pause festival puts before it (the
    pause belongs to the word after it); the first token starts at its first segment."""
    pauses = phones[0]
    segs = info["segments"]
    out = []
    for k, tok in enumerate(info["tokens"]):
        t = tok["words"][0][0]
        if k > 0:
            i = _segment_at(info, t, "start")
            if i > 0 and segs[i - 1][0] in pauses:
                t = segs[i - 1][1]
        out.append(t)
    return out


def cut_at_boundaries(info, x, rate, phones, first, last, reach_after=PAUSE_REACH_AFTER):
    """(samples, starts at the phrase's start, ends at its end) of tokens first..last of a
    phrase festival spoke: from the first token's start to the next token's start (token_starts),
    or after the phrase's last token, into the pause after it by up to reach_after (the HTS voice's
    release goes beyond its last segment; the trim finds the real edge)."""
    starts = token_starts(info, phones)
    t0 = starts[first]
    if last + 1 < len(starts):
        t1 = starts[last + 1]
    else:
        t1 = info["tokens"][last]["words"][-1][1]
        i1 = _segment_at(info, t1, "end")
        segs = info["segments"]
        if i1 + 1 < len(segs) and segs[i1 + 1][0] in phones[0]:
            t1 += min(reach_after, segs[i1 + 1][2] - segs[i1 + 1][1])
    i0, i1 = max(0, int(round(t0 * rate))), min(len(x), int(round(t1 * rate)))
    if i1 - i0 <= rate // 50:
        return None
    # The segments festival says inside the cut (its own phone names; pauses left out).
    segs = [n for n, a, b in info["segments"] if t0 - 1e-4 <= a < t1 - 1e-4 and n not in phones[0]]
    return x[i0:i1], first == 0, last + 1 == len(starts), segs


def candidates(tag, requests, rate, work, log):
    """For each request (display words, (first, last)): (samples at `rate`, at the phrase's start,
    at its end), or None where festival tokenised the phrase otherwise than its words."""
    voice, encoding, phones = voice_of(tag)
    texts = sorted({" ".join(w) for w, _ in requests})
    log(f"festival ({voice}): {len(texts)} candidate sentences")
    spoken = dict(zip(texts, speak_batch(voice, encoding, texts, work, f"{tag}-cand")))
    loaded = {}
    out = []
    reach = PAUSE_REACH_AFTER_BY_LANG.get(tag, PAUSE_REACH_AFTER)
    for words, (first, last) in requests:
        text = " ".join(words)
        info, path = spoken[text]
        ok = info is not None and [_strip_punct(t["name"]) for t in info["tokens"]] == \
            [_strip_punct(t) for t in words] and all(t["words"] for t in info["tokens"])
        if not ok:
            out.append(None)
            continue
        if text not in loaded:
            loaded[text] = audio.load_resampled(path, rate)
        out.append(cut_at_boundaries(info, loaded[text], rate, phones, first, last, reach))
    return out
