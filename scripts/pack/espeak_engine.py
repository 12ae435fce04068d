"""Voice clips from espeak-ng (libespeak-ng.so.1 through ctypes), cut at the
library's own word timings out of whole time sentences.

espeak-ng reports, through the synth callback, an espeakEVENT_WORD for each
word it speaks with the word's character position in the text and its first
sample in the audio (`sample`), so a word's clip runs from its own event to the
next word's.  espeak-ng joins some unstressed words to a neighbour ("es ist"
has one word event); such a word is split at its phoneme events
(espeakEVENT_PHONEME), after as many phonemes as the first word has when spoken
alone.  No silence detection is used to find words.
"""

import ctypes
import os
import pickle

import numpy as np

from . import audio

AUDIO_OUTPUT_SYNCHRONOUS = 2
INITIALIZE_PHONEME_EVENTS = 0x0001
CHARS_UTF8 = 1
EV_WORD, EV_END, EV_PHONEME = 1, 5, 7

# espeak-ng voice per language tag.
VOICES = {"de": "de", "fr": "fr", "es": "es", "nl": "nl", "pl": "pl",
          "it": "it", "ru": "ru", "en-GB": "en-GB-x-rp", "en-US": "en-us"}
# (espeak-ng 1.51 has no voice named "en-gb": British English is "en", and "en-GB-x-rp" its
# Received Pronunciation variant.)


class _Event(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("unique_identifier", ctypes.c_uint),
                ("text_position", ctypes.c_int), ("length", ctypes.c_int),
                ("audio_position", ctypes.c_int), ("sample", ctypes.c_int),
                ("user_data", ctypes.c_void_p), ("id", ctypes.c_char * 8)]


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int,
                             ctypes.POINTER(_Event))


class ESpeak:
    def __init__(self, voice):
        try:
            self.lib = ctypes.CDLL("libespeak-ng.so.1")
        except OSError as e:
            raise SystemExit("make-pack: libespeak-ng.so.1 not found; install it with: "
                             f"apt-get install libespeak-ng1 espeak-ng-data ({e})")
        self.rate = self.lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, None,
                                               INITIALIZE_PHONEME_EVENTS)
        if self.rate <= 0:
            raise SystemExit("make-pack: espeak_Initialize failed (is espeak-ng-data installed?)")
        self._samples = []
        self._events = []
        self._cb = _CALLBACK(self._callback)
        self.lib.espeak_SetSynthCallback(self._cb)
        if self.lib.espeak_SetVoiceByName(voice.encode()) != 0:
            raise SystemExit(f"make-pack: espeak-ng has no voice '{voice}'")
        self._cache = {}

    def _callback(self, wav, n, events):
        if wav and n > 0:
            self._samples.append(np.ctypeslib.as_array(wav, shape=(n,)).copy())
        i = 0
        while events[i].type != 0:
            e = events[i]
            name = bytes(e.id).split(b"\0")[0].decode("ascii", "replace") if e.type == EV_PHONEME else ""
            self._events.append((e.type, e.text_position, e.sample, name))
            i += 1
        return 0

    def synth(self, text):
        """(samples as float64 in -1..1, [(type, text_position (1-based chars), sample, phoneme)]).

        espeak-ng keeps state from one synthesis to the next (the same sentence comes out a few
        samples to 50 ms different after another one), and it cannot be reset short of
        espeak_Terminate, which hangs here. So every sentence is spoken in a forked child of
        this process, which never speaks itself: each sentence starts from the same state, and
        its audio and timing do not depend on what was spoken before (scripts/cut-audit can
        repeat any cut exactly)."""
        if text in self._cache:
            return self._cache[text]
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                self._samples, self._events = [], []
                data = text.encode("utf-8")
                rc = self.lib.espeak_Synth(data, len(data) + 1, 0, 0, 0, CHARS_UTF8, None, None)
                self.lib.espeak_Synchronize()
                x = (np.concatenate(self._samples).astype(np.float64) / 32768.0
                     if self._samples else np.zeros(0))
                with os.fdopen(w, "wb") as f:
                    pickle.dump((rc, x, list(self._events)), f)
            finally:
                os._exit(0)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            payload = f.read()
        os.waitpid(pid, 0)
        if not payload:
            raise RuntimeError(f"espeak-ng: the synthesis of {text!r} died")
        rc, x, events = pickle.loads(payload)
        if rc != 0:
            raise RuntimeError(f"espeak_Synth failed ({rc}) for {text!r}")
        self._cache[text] = (x, events)
        return self._cache[text]

    def phoneme_count(self, word):
        _, events = self.synth(word)
        return len([e for e in events if e[0] == EV_PHONEME and not e[3].startswith("_")])


def _token_starts(words):
    """Character offset (0-based) of each word in " ".join(words)."""
    starts, pos = [], 0
    for w in words:
        starts.append(pos)
        pos += len(w) + 1
    return starts


def _boundary(eng, words, events, k):
    """First sample of word k of the phrase, or None when espeak gives no way to find it."""
    starts = _token_starts(words)
    lo = starts[k]
    hi = starts[k + 1] if k + 1 < len(words) else 10 ** 9
    for t, pos, sample, _ in events:
        if t == EV_WORD and lo <= pos - 1 < hi:
            return sample
    # Joined to the word before: split that word event's phonemes.
    j = k - 1
    while j >= 0:
        owner = [e for e in events if e[0] == EV_WORD and starts[j] <= e[1] - 1 < starts[j + 1]]
        if owner:
            break
        j -= 1
    if j < 0:
        return None
    pos = owner[0][1]
    phones = [e for e in events if e[0] == EV_PHONEME and e[1] == pos and not e[3].startswith("_")]
    n = sum(eng.phoneme_count(words[i]) for i in range(j, k))
    if n <= 0 or n >= len(phones):
        return None
    return phones[n][2]


def _end(events, n_samples):
    ends = [e[2] for e in events if e[0] == EV_END]
    return ends[-1] if ends else n_samples


def _real(name):
    """A phoneme that is heard: espeak-ng's pauses and stress marks start with '_'."""
    return name and not name.startswith("_")


def _phonemes_of_words(words, events):
    """For each word of the phrase, its phoneme events [(sample, name)] (by the text position
    espeak-ng reports for each phoneme); a word joined to the one before it gets none."""
    starts = _token_starts(words) + [10 ** 9]
    out = [[] for _ in words]
    for t, pos, sample, name in events:
        if t != EV_PHONEME or not _real(name):
            continue
        for k in range(len(words)):
            if starts[k] <= pos - 1 < starts[k + 1]:
                out[k].append((sample, name))
                break
    return out


def _word_start(events, words, phones, k):
    """First sample of word k: its word event, unless that event lies on a phoneme of the word
    before (espeak-ng puts the word event of "heure" in "une heure" on the /n/ of "une",
    enchaînement), then its first phoneme."""
    starts = _token_starts(words) + [10 ** 9]
    ev = [e[2] for e in events if e[0] == EV_WORD and starts[k] <= e[1] - 1 < starts[k + 1]]
    first = phones[k][0][0] if phones[k] else None
    if not ev:
        return first
    if k > 0 and phones[k - 1] and ev[0] <= phones[k - 1][-1][0] and first is not None:
        return first
    return ev[0] if first is None else min(ev[0], first)


def alone(eng, text):
    """The phonemes of `text` spoken on its own (no neighbour)."""
    _, events = eng.synth(text)
    return [e[3] for e in events if e[0] == EV_PHONEME and _real(e[3])]


def cut_span(eng, words, first, last):
    """(samples, phonemes in the cut, phonemes of the span spoken alone) of words[first..last]
    cut from the spoken phrase at phoneme events, or None when espeak-ng reports no phonemes
    for a word of the span (joined to its neighbour).

    The cut starts at the first word's start and ends where the next word's first heard
    phoneme starts (so a consonant espeak-ng times at the very end of a word, like the /l/ of
    "nul" before "uur", stays in its word).  A liaison consonant the span has only before the
    next word ("trois|z heures", "est|t une") is left out: the cut ends where it starts."""
    text = " ".join(words)
    x, events = eng.synth(text)
    phones = _phonemes_of_words(words, events)
    if any(not phones[k] for k in range(first, last + 1)):
        return None
    a = _word_start(events, words, phones, first)
    if last + 1 < len(words):
        nxt = phones[last + 1]
        if not nxt:
            # The next word is joined to this one ("es ist"): its phonemes are counted in
            # this word's, so the phoneme events cannot say where this word ends.
            return None
        b = nxt[0][0]
    else:
        b = _end(events, len(x))
    inside = [n for k in range(first, last + 1) for _, n in phones[k]]
    want = alone(eng, " ".join(words[first:last + 1]))
    if len(inside) > len(want) and inside[:len(want)] == want:
        # A liaison consonant at the end: stop where it starts.
        extra_at = [smp for k in range(first, last + 1) for smp, _ in phones[k]][len(want)]
        b = min(b, extra_at)
    if b is None or a is None or b <= a:
        return None
    # What the clip holds, by espeak-ng's own timing: every heard phoneme whose event falls
    # inside the cut window.
    inside = [n for t, _, smp, n in events if t == EV_PHONEME and _real(n) and a <= smp < b]
    return x[a:b], inside, want


def cut_joined(eng, words, index):
    """(samples, phonemes in the cut) of words[index] when espeak-ng joined it to a neighbour
    ("es ist" has one word event): split at the phoneme events after as many phonemes as the
    words before it have alone.  None when that gives no cut."""
    text = " ".join(words)
    x, events = eng.synth(text)
    a = _boundary(eng, words, events, index)
    if a is None:
        return None
    b = _boundary(eng, words, events, index + 1) if index + 1 < len(words) else _end(events, len(x))
    if b is None or b <= a:
        return None
    inside = [n for t, _, smp, n in events if t == EV_PHONEME and _real(n) and a <= smp < b]
    return x[a:b], inside


# Allophones a language's own phonology chooses by context, compared as one phoneme: Spanish
# /b d g/ are the approximants [β ð ɣ] (espeak-ng: B D Q) after a vowel or /s/ ("las Dos"),
# the word's own sound in that place, not a neighbour's.
# Spanish /n/ is velar [ŋ] (N) before a velar ("veintiún grados"), also its own sound there.
ALLOPHONES = {"es": {"B": "b", "D": "d", "Q": "g", "N": "n"}}

# French "six", "huit" and "dix" (and the numbers ending in them) drop their final consonant
# before a word that starts with a consonant: "six degrés" [si degʁe], "quatre-vingt-dix pour
# cent" [...di puʁ sɑ̃]. Cut there, the word holds its own form in that place, one phoneme short
# of the word alone; `same_phonemes` accepts that when told the word and the one after it.
FR_FINAL_DROPPED = ("six", "huit", "dix")
FR_VOWEL_START = set("aeiouyhéèêëàâîïôûù")


def same_phonemes(tag, got, want, word=None, before=None):
    """Whether a cut's phonemes (got) are the word's own (want, the word spoken alone), as the
    language's phonology allows in that place: `word` and `before` (the display word cut and
    the one after it in its sentence, if any) let a French final consonant drop before a
    consonant."""
    m = ALLOPHONES.get(tag, {})
    if got is None:
        return False
    if [m.get(p, p) for p in got] == [m.get(p, p) for p in want]:
        return True
    return (tag == "fr" and word is not None and before is not None and word.lower().endswith(FR_FINAL_DROPPED)
            and before[:1].lower() not in FR_VOWEL_START and len(want) == len(got) + 1
            and want[-1] in ("s", "t") and list(got) == list(want[:-1]))


def make_voice_clips(tag, candidates, rate, log):
    """{clip id: float array at `rate`}, {clip id: (display words, index or (first, last))},
    {clip id: (phonemes in the cut, phonemes alone)}.

    A clip id may be a unit of several words ("deux heures"): its candidates then name the
    span (first, last).  Each clip comes from the first candidate phrase whose cut holds
    exactly the phonemes the word (or unit) has when spoken alone: no sound of a neighbour
    and none of its own lost.  When no candidate is clean, the first that cuts at all is
    used and reported (`audit` lists it)."""
    eng = ESpeak(VOICES[tag])
    clips, used, audit = {}, {}, {}
    for word, cands in candidates.items():
        fallback = None
        for (phrasing, minute, led, text, ids), i in cands:
            first, last = (i, i) if isinstance(i, int) else i
            got = cut_span(eng, list(text), first, last)
            if got is None and first == last:
                joined = cut_joined(eng, list(text), first)
                if joined is not None:
                    got = joined + (alone(eng, text[first]),)
            if got is None:
                continue
            y, inside, want = got
            if len(y) <= eng.rate // 50:
                continue
            if same_phonemes(tag, inside, want):
                fallback = (y, (text, i), (inside, want))
                break
            if fallback is None:
                fallback = (y, (text, i), (inside, want))
        if fallback is None:
            raise RuntimeError(f"espeak-ng: no phrase gives word timings for {word!r}")
        y, used[word], audit[word] = fallback
        if not same_phonemes(tag, *audit[word]):
            log(f"{tag}: {word!r}: no clean cut; from {' '.join(used[word][0])!r} it holds "
                f"{audit[word][0]} (alone: {audit[word][1]})")
        clips[word] = audio.finish_voice_clip(audio.resample_array(y, eng.rate, rate), rate)
    return clips, used, audit


def version():
    try:
        lib = ctypes.CDLL("libespeak-ng.so.1")
        lib.espeak_Info.restype = ctypes.c_char_p
        return lib.espeak_Info(None).decode()
    except (OSError, AttributeError):
        return "unknown"


# --- cuts at the engine's word boundaries, pauses with the word after them ----------------------

def word_starts(words, events):
    """First sample of each word of the phrase (None for a word espeak-ng joins to the one before
    it): its first event, so that a pause espeak-ng makes before a word (the glottal stop "_!"
    before a German vowel, the short silence before a fricative) belongs to that word. A word
    event that lies on a phoneme of the word before (espeak-ng puts the word event of "heure" in
    "une heure" on the /n/ of "une") is not its start."""
    starts = _token_starts(words) + [10 ** 9]
    out = []
    last_real_before = None
    for k in range(len(words)):
        own = [(t, smp, n) for t, pos, smp, n in events
               if t in (EV_WORD, EV_PHONEME) and starts[k] <= pos - 1 < starts[k + 1]]
        real = [smp for t, smp, n in own if t == EV_PHONEME and _real(n)]
        if not real:
            out.append(None)
            continue
        # A pause or word event that lies on a phoneme of the word before (espeak-ng times the
        # /l/ of Dutch "nul uur" and the /n/ of "une heure" after them) is not this word's start.
        cands = [smp for t, smp, n in own if (t == EV_WORD or (t == EV_PHONEME and not _real(n) and n))
                 and (last_real_before is None or smp > last_real_before)]
        out.append(min(cands + [real[0]]))
        last_real_before = real[-1]
    return out


def _speech_end(events, n_samples):
    """Where the phrase's speech ends: its last heard phoneme's end, i.e. the first pause
    phoneme after it, or the end event."""
    last_real = max((smp for t, _, smp, n in events if t == EV_PHONEME and _real(n)), default=0)
    after = [smp for t, _, smp, n in events if t == EV_PHONEME and not _real(n) and n and smp > last_real]
    return min(after) if after else _end(events, n_samples)


def cut_at_boundaries(eng, words, first, last):
    """(samples, phonemes in the cut, phonemes of the words alone, starts at the phrase's start,
    ends at its end) of words[first..last], cut from the spoken phrase from its first word's start
    to the next word's start (word_starts), or to the end of speech after the phrase's last word;
    a liaison consonant the span has only before the next word is left out ("trois|z heures").
    None when espeak-ng gives no boundary there."""
    x, events = eng.synth(" ".join(words))
    ws = word_starts(words, events)
    a = ws[first]
    b = ws[last + 1] if last + 1 < len(words) else _speech_end(events, len(x))
    if a is None or b is None:
        return None
    phones = _phonemes_of_words(words, events)
    inside = [n for k in range(first, last + 1) for _, n in phones[k]]
    want = alone(eng, " ".join(words[first:last + 1]))
    if len(inside) > len(want) and inside[:len(want)] == want:
        extra_at = [smp for k in range(first, last + 1) for smp, _ in phones[k]][len(want)]
        b = min(b, extra_at)
    if b <= a:
        return None
    inside = [n for t, _, smp, n in events if t == EV_PHONEME and _real(n) and a <= smp < b]
    return x[a:b], inside, want, first == 0, last + 1 == len(words)
