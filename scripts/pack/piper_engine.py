"""Voice clips from Piper (piper-tts) with a user-supplied voice model.

Piper has no word timings of its own.  piper-tts >= 1.3 can report how many
audio samples each phoneme produced ("alignments"; needs the `onnx` package
to patch the model in memory).  With those we cut words out of the same
carrier phrases as the festival engine: espeak-ng separates words with a
space phoneme, each whitespace token of a carrier becomes one such group, and
the cut is placed at the start of the space phoneme between two groups (its
audio, the transition into the next word, goes to the next word).  Clips are
then finished like the festival ones, including the vowel-onset treatment.

If alignments are not available (no `onnx`, or a carrier whose phoneme
groups do not match its tokens), the clip is synthesised on its own as a
one-word sentence and trimmed: it then ends with a sentence-final fall, and
the caller should use a word gap of ~150 ms (see `isolated` in the result).
"""

import importlib.util
import sys

import numpy as np

from . import audio
from .carriers import carrier_phrases, parse_carrier


def _load(model_path, want_alignments):
    try:
        from piper import PiperVoice
        from piper.config import SynthesisConfig
    except ImportError:
        sys.exit("make-pack: --engine piper needs the piper-tts Python package in the "
                 "interpreter running this script, e.g.\n"
                 "  python3 -m venv ~/piper && ~/piper/bin/pip install piper-tts onnx numpy\n"
                 "  ~/piper/bin/python3 scripts/make-pack --engine piper --model M.onnx --out DIR")
    voice = PiperVoice.load(model_path, include_alignments=want_alignments)
    return voice, SynthesisConfig


def _synth(voice, text, syn_config, alignments):
    chunks = list(voice.synthesize(text, syn_config, include_alignments=alignments))
    if len(chunks) != 1:
        raise RuntimeError(f"piper split {text!r} into {len(chunks)} sentences")
    ch = chunks[0]
    return ch.audio_float_array.astype(np.float64), ch.sample_rate, ch.phoneme_alignments


# Where, within the space phoneme between two words, the cut falls: 0 = at
# its start, so the space's audio (the transition into the next word) goes to
# the following word.  Measured with the speech-recogniser check on
# en_US-joe-medium: 0 and 0.25 were best, 0.5 clearly worse (the next word
# lost its onset and "a.m." was heard as "p.m.").
SPACE_CUT = 0.0

IPA_VOWELS = set("aeiouyɑɐɒæɛɜəɪʊʌɔɚɝʏøœɘɵɤɯɨʉ")
STRESS = set("ˈˌ")


def _groups(alignments):
    """Split phoneme alignments into word groups.

    Returns [(start, end, first_phoneme)] with start/end in samples; words are
    separated by the space phoneme, the cut placed SPACE_CUT into it.
    """
    pos = 0
    marks = []
    for a in alignments:
        marks.append((a.phoneme, pos, pos + int(a.num_samples)))
        pos += int(a.num_samples)
    groups = []
    cur_start = None
    first = None
    have_phone = False
    for ph, s, e in marks:
        if ph in ("^", "$", "_"):
            if ph == "^":
                cur_start = e
            continue
        if ph == " ":
            if cur_start is not None and have_phone:
                cut = s + int((e - s) * SPACE_CUT)
                groups.append((cur_start, cut, first))
                cur_start = cut
            have_phone = False
            first = None
            continue
        if cur_start is None:
            cur_start = s
        if first is None and ph not in STRESS:
            first = ph
        have_phone = True
    if cur_start is not None and have_phone:
        groups.append((cur_start, pos, first))
    return groups


def make_voice_clips(model_path, rate, log):
    """Return ({clip_id: float array at `rate`}, set of isolated clip ids)."""
    have_onnx = importlib.util.find_spec("onnx") is not None
    if not have_onnx:
        log("piper: `onnx` not installed, no alignments: clips are synthesised as "
            "isolated words (pip install onnx for carrier-phrase cutting)")
    voice, SynthesisConfig = _load(model_path, have_onnx)
    syn = SynthesisConfig()
    clips = {}
    isolated = set()
    for markup in carrier_phrases():
        text, tokens, spans = parse_carrier(markup)
        ok = False
        if have_onnx:
            x, sr, al = _synth(voice, text, syn, True)
            if al:
                groups = _groups(al)
                if len(groups) == len(tokens):
                    ok = True
                    for cid, (a, b) in spans.items():
                        s, e = groups[a][0], groups[b][1]
                        # Let the edge of a phrase reach into leading/trailing silence.
                        if a == 0:
                            s = 0
                        if b == len(tokens) - 1:
                            e = len(x)
                        seg = audio.resample_array(x[s:e], sr, rate)
                        vowel = a > 0 and groups[a][2] in IPA_VOWELS
                        if vowel:
                            # Same treatment as the festival engine.
                            seg = seg[audio.skip_to_vowel_onset(seg, rate, 0):]
                        clips[cid] = audio.finish_voice_clip(seg, rate, vowel_onset=vowel)
            if not ok:
                log(f"piper: could not align {text!r}; using isolated words")
        if not ok:
            for cid, (a, b) in spans.items():
                words = " ".join(tokens[a:b + 1]).rstrip(".")
                x, sr, _ = _synth(voice, words + ".", syn, False)
                seg = audio.resample_array(x, sr, rate)
                clips[cid] = audio.finish_voice_clip(seg, rate)
                isolated.add(cid)
    return clips, isolated


def make_lang_clips(model_path, candidates, rate, log):
    """{clip id: float array at `rate`}, {clip id: (display words, index)} for a language pack
    from a Piper voice: each word is cut, at Piper's phoneme alignments (the space phoneme between
    words, as above), from the first of its candidate sentences (lang_carriers.carriers) whose
    phoneme groups match its words one to one.  Needs piper-tts >= 1.3 and onnx."""
    if importlib.util.find_spec("onnx") is None:
        sys.exit("make-pack: --engine piper with --language needs phoneme alignments: install "
                 "the onnx package beside piper-tts (pip install onnx)")
    voice, SynthesisConfig = _load(model_path, True)
    syn = SynthesisConfig()
    cache = {}
    clips, used = {}, {}
    for word, cands in candidates.items():
        for (phrasing, minute, led, text, ids), i in cands:
            if not isinstance(i, int):
                continue
            sentence = " ".join(text)
            if sentence not in cache:
                x, sr, al = _synth(voice, sentence, syn, True)
                cache[sentence] = (x, sr, _groups(al) if al else [])
            x, sr, groups = cache[sentence]
            if len(groups) != len(text):
                continue
            s, e = groups[i][0], groups[i][1]
            if i == 0:
                s = 0
            if i == len(text) - 1:
                e = len(x)
            seg = audio.resample_array(x[s:e], sr, rate)
            vowel = i > 0 and groups[i][2] in IPA_VOWELS
            if vowel:
                seg = seg[audio.skip_to_vowel_onset(seg, rate, 0):]
            if len(seg) <= rate // 50:
                continue
            clips[word] = audio.finish_voice_clip(seg, rate, vowel_onset=vowel)
            used[word] = (tuple(text), i)
            break
        else:
            raise RuntimeError(f"piper: no sentence of the language could be aligned word by word "
                               f"for {word!r}")
    return clips, used
