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

import numpy as np

from . import audio

AUDIO_OUTPUT_SYNCHRONOUS = 2
INITIALIZE_PHONEME_EVENTS = 0x0001
CHARS_UTF8 = 1
EV_WORD, EV_END, EV_PHONEME = 1, 5, 7

# espeak-ng voice per language tag.
VOICES = {"de": "de", "fr": "fr", "es": "es", "nl": "nl", "pl": "pl",
          "it": "it", "ru": "ru", "en-GB": "en-gb", "en-US": "en-us"}


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
        """(samples as float64 in -1..1, [(type, text_position (1-based chars), sample, phoneme)])."""
        if text in self._cache:
            return self._cache[text]
        self._samples, self._events = [], []
        data = text.encode("utf-8")
        rc = self.lib.espeak_Synth(data, len(data) + 1, 0, 0, 0, CHARS_UTF8, None, None)
        if rc != 0:
            raise RuntimeError(f"espeak_Synth failed ({rc}) for {text!r}")
        self.lib.espeak_Synchronize()
        x = (np.concatenate(self._samples).astype(np.float64) / 32768.0
             if self._samples else np.zeros(0))
        self._cache[text] = (x, list(self._events))
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


def cut(eng, words, index):
    """Samples of words[index] cut from the spoken phrase, or None."""
    text = " ".join(words)
    x, events = eng.synth(text)
    a = _boundary(eng, words, events, index)
    if a is None:
        return None
    b = _boundary(eng, words, events, index + 1) if index + 1 < len(words) else _end(events, len(x))
    if b is None or b <= a:
        return None
    return x[a:b]


def make_voice_clips(tag, candidates, rate, log):
    """{clip id: float array at `rate`}, {clip id: the phrase (display words) it was cut from}."""
    eng = ESpeak(VOICES[tag])
    clips, used = {}, {}
    for word, cands in candidates.items():
        for (phrasing, minute, led, text, ids), i in cands:
            y = cut(eng, list(text), i)
            if y is not None and len(y) > eng.rate // 50:
                clips[word] = audio.finish_voice_clip(audio.resample_array(y, eng.rate, rate), rate)
                used[word] = (text, i)
                break
        else:
            raise RuntimeError(f"espeak-ng: no phrase gives word timings for {word!r}")
    return clips, used


def version():
    try:
        lib = ctypes.CDLL("libespeak-ng.so.1")
        lib.espeak_Info.restype = ctypes.c_char_p
        return lib.espeak_Info(None).decode()
    except (OSError, AttributeError):
        return "unknown"
