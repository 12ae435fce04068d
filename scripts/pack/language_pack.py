"""A pack for one language other than en-US: words cut from whole time sentences of that
language (asked of the talking-clock binary), the default pack's bells, a generated README."""

import json
import os
import shutil
import subprocess
import sys
import unicodedata

from . import audio, lang_carriers

# Engine per language: festival where Debian main has a voice of the language (or, for
# en-GB, the same US voice as the default pack: no British festival voice is in Debian main),
# espeak-ng for the others.
ENGINES = {"en-GB": "festival", "ru": "festival", "it": "festival",
           "de": "espeak", "fr": "espeak", "es": "espeak", "nl": "espeak", "pl": "espeak"}

VOICE_INFO = {
    "en-GB": ("festival with the CMU ARCTIC \"slt\" HTS voice (US English: Debian main has no "
              "British English festival voice)", ["festival", "festvox-us-slt-hts", "festlex-cmu"],
              "festvox-us-slt-hts",
              "permissive (CMU ARCTIC / festvox / HTS notices: any use, keep the notices)", True),
    "ru": ("festival with the Russian voice msu_ru_nsh_clunits", ["festival", "festvox-ru"],
           "festvox-ru", "BSD-like (Nickolay V. Shmyrev 2005: use and distribute without "
           "restriction, keep the notice, mark modifications, keep the authors' names)", True),
    "it": ("festival with the Italian voice lp_diphone (Italian FESTIVAL Modules)",
           ["festival", "festvox-italp16k"], "festvox-italp16k",
           "GPL-2+ (IFM Development Team, ISTC-SPFD CNR and ITC-irst)", False),
}
for _t in ("de", "fr", "es", "nl", "pl"):
    VOICE_INFO[_t] = (f"espeak-ng (libespeak-ng.so.1 via Python ctypes) with the '{_t}' voice",
                      ["espeak-ng-data", "libespeak-ng1"], "espeak-ng-data",
                      "GPL-3+ (eSpeak NG: Jonathan Duddington, Reece H. Dunn and others)", False)

BUILD_PACKAGES = {
    "festival": "festival festvox-us-slt-hts festvox-ru festvox-italp16k",
    "espeak": "libespeak-ng1 espeak-ng-data",
}


def find_binary(repo, explicit):
    if explicit:
        return explicit
    built = [os.path.join(repo, ".build", cfg, "talking-clock") for cfg in ("release", "debug")]
    built = [p for p in built if os.access(p, os.X_OK)]
    if built:
        # The newer build: it carries the grammar as it is now.
        return max(built, key=os.path.getmtime)
    p = shutil.which("talking-clock")
    if p:
        return p
    sys.exit("make-pack: --language needs the talking-clock binary (it knows the grammar): run "
             "`swift build` in the repository or pass --binary PATH")


def slug(word):
    """A file name for a clip id: letters and digits kept (in any script), the rest '_'."""
    w = unicodedata.normalize("NFC", word)
    return "".join(c if c.isalnum() or c == "-" else "_" for c in w)


def versions(pkgs):
    out = {}
    for p in pkgs:
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", p], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        out[p] = r.stdout.strip() if r.returncode == 0 else "not installed"
    return out


def build(tag, out, rate, repo, binary, engine, work, log):
    binary = find_binary(repo, binary)
    engine = engine or ENGINES[tag]
    phrasings = lang_carriers.phrasings_of(binary, tag)
    lead_in = lang_carriers.has_lead_in(binary, tag, work)
    words = lang_carriers.vocabulary(binary, tag, phrasings, work, lead_in)
    log(f"{tag}: {len(words)} words in {', '.join(phrasings)}"
        f"{' and the lead-in' if lead_in else ''} (from `talking-clock check`)")
    got = lang_carriers.phrases(binary, tag, phrasings, words, work, lead_in, log)
    cands = lang_carriers.carriers(got, words)
    if engine == "festival":
        from . import festival_engine
        clips, used = festival_engine.make_lang_clips(tag, cands, work, rate, log)
    else:
        from . import espeak_engine
        clips, used = espeak_engine.make_voice_clips(tag, cands, rate, log)

    clips, level = audio.level_pack(clips, rate)
    log(f"{tag}: every word at {level:.1f} dBFS active-speech level")

    default_dir = os.path.join(repo, "Sounds", "default")
    with open(os.path.join(default_dir, "pack.json"), encoding="utf-8") as f:
        default = json.load(f)
    if default["sample_rate"] != rate:
        sys.exit(f"make-pack: the language packs reuse the default pack's bells, which are "
                 f"{default['sample_rate']} Hz; build with --rate {default['sample_rate']}")

    for sub in ("voice", "bells"):
        d = os.path.join(out, sub)
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".flac"):
                    os.remove(os.path.join(d, f))
        os.makedirs(d, exist_ok=True)
    manifest_clips = {}
    for w in words:
        rel = f"voice/{slug(w)}.flac"
        audio.write_flac(os.path.join(out, rel), clips[w], rate)
        manifest_clips[w] = rel
    bell_ids = list(default["bells"]["quarter"]) + [default["bells"]["hour"], "chime"]
    for b in bell_ids:
        rel = default["clips"][b]
        dst = os.path.join(out, rel)
        shutil.copyfile(os.path.join(default_dir, rel), dst)
        manifest_clips[b] = rel

    desc, pkgs, licpkg, licence, commit_ok = VOICE_INFO[tag]
    if engine != ENGINES[tag]:
        desc = f"espeak-ng with the '{tag}' voice"
        pkgs, licpkg, licence = VOICE_INFO["de"][1], "espeak-ng-data", VOICE_INFO["de"][3]
    m = {
        "format": 1,
        "name": tag,
        "description": f"{tag} voice: {desc}; synthesised bells",
        "license": f"voice: {licence} (see README.md); bells: synthesised, CC0",
        "language": tag,
        "phrasings": phrasings,
        "sample_rate": rate,
        "channels": 1,
        "spacing": default["spacing"],
        "clips": manifest_clips,
        "bells": default["bells"],
        "chimes": default["chimes"],
    }
    with open(os.path.join(out, "pack.json"), "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(m, indent=2, ensure_ascii=False) + "\n")

    vers = versions(pkgs + ["sox", "flac", "python3-numpy"])
    import numpy
    np_version = numpy.__version__
    table = "\n".join(f"| `{p}` | {v} |" for p, v in vers.items())
    if engine == "festival":
        from . import festival_engine
        engine_version = festival_engine.festival_version().replace("\n", " ")
        how = ("festival's own word timings (the utterance's Token and Word relations and each "
               "word's first and last segment), as for the default pack: a cut next to a pause "
               "reaches into it and the trim finds the real edge")
    else:
        from . import espeak_engine
        engine_version = "eSpeak NG " + espeak_engine.version()
        how = ("the word events of espeak-ng's synth callback (`espeak_SetSynthCallback`, "
               "`espeakEVENT_WORD`: the sample where each word starts); a word espeak-ng joins to "
               "the one before it (\"es ist\") is split at its phoneme events "
               "(`espeakEVENT_PHONEME`) after as many phonemes as the first word has alone. No "
               "silence detection")
    licence_file = f"/usr/share/doc/{licpkg}/copyright"
    carriers_list = "\n".join(
        f"- `{w}`: \"{' '.join(x.upper() if j == i else x for j, x in enumerate(ws))}\""
        for w in words for (ws, i) in [used[w]])
    redistribution = (
        "The voice's licence allows redistribution; this pack is committed to the repository "
        "and installed by `scripts/install` and the Debian package."
        if commit_ok else
        f"The voice data is under the {licence.split(' (')[0]}. Audio cut from it is treated as "
        "a work based on that data, so this pack is distributed under the same licence: the "
        f"\"source\" is `scripts/make-pack` with the Debian package `{licpkg}` named above, from "
        "which anyone can regenerate it byte for byte. It is a separate work shipped beside "
        "talking-clock's own code (Apache License 2.0, `LICENSE`): committed to the repository "
        "and installed by `scripts/install` and the Debian package, whose `copyright` file lists "
        "it.")
    readme = f"""# Sound pack `{tag}`

{desc}, with the default pack's synthesised bells. Every file here is generated by
`scripts/make-pack --language {tag}`; this README too (edit `scripts/pack/language_pack.py`).

## Regenerating

On Debian 12, with the talking-clock binary built (`swift build`; the binary knows the grammar):

    scripts/install-deps --packs     # festival + voices, espeak-ng, sox, flac, python3-numpy
    scripts/make-pack --language {tag}      # writes Sounds/{tag}

The output is deterministic: the same package versions give byte-identical files (checked by
building twice, and with Debian's python3 + numpy 1.24 against Python 3.11.7 + numpy 2.4: the
same clips).

### Provenance of this copy

Engine: {engine_version}. Python {sys.version.split()[0]}, numpy {np_version}. Debian packages:

| package | version |
| --- | --- |
{table}

## Licence

- Voice: {licence}. The full notice is in `{licence_file}` (Debian package `{licpkg}`).
- Bells: synthesised by `scripts/pack/bells.py` (the default pack's files, copied), CC0.
- Modifications (marked, as the voice's notice asks): every clip is cut out of a sentence the
  voice synthesised, resampled, trimmed, loudness-normalised and faded, as described below; the
  voice data itself is not modified and not included.

{redistribution}

## How the words were cut

The words are the clip ids the language's grammar uses in {', '.join(f'`{p}`' for p in phrasings)}
{'and the lead-in ' if lead_in else ''}(listed by `talking-clock check`). Each word is cut out
of a whole time sentence of the language, asked of the binary (`talking-clock say --dry-run
--language {tag} --phrasing P --at HH:MM`), in which it stands where the clock mostly uses it (at
the end of a phrase or inside one), at {how}. Then each clip is trimmed {audio.TRIM_BELOW_PEAK_DB:g} dB
below its own peak (keeping {audio.KEEP_BEFORE_MS:g} ms before and {audio.KEEP_AFTER_MS:g} ms after), brought to
{audio.TARGET_RMS_DBFS:g} dBFS active-speech RMS with peaks at most {audio.PEAK_CAP_DBFS:g} dBFS, then every clip
to one common level ({level:.1f} dBFS: the loudest the most peaky word can be under the cap), and faded
({audio.FADE_IN_MS:g} ms in, {audio.FADE_OUT_MS:g} ms out). The clips are chained with no gap.

Format: FLAC, {rate} Hz, mono, 16-bit. `pack.json` declares `"language": "{tag}"` and the
phrasings; `talking-clock check --pack Sounds/{tag} --language {tag}` proves every minute in
each.

### The sentence each word was cut from (the word in capitals)

{carriers_list}
"""
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(readme)
    return len(words)
