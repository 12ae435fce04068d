"""A pack for one language other than en-US: words cut from whole time sentences of that
language (asked of the talking-clock binary), the default pack's bells, a generated README."""

import json
import os
import shutil
import subprocess
import sys
import unicodedata

import numpy as np

from . import audio, espeak_engine, lang_carriers

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

# Words a regional variant of the language says that the language's own phrasings do not, each
# with the sentence it is cut from (display words, clip ids, index): de-AT casual "dreiviertel
# vier", es-419 casual "veinte para las cuatro".  The variants speak with their base language's
# pack, so that pack carries these words too.
EXTRA_WORDS = {
    "de": [(("dreiviertel", "vier"), 0)],
    "es": [(("veinte", "para", "las", "cuatro"), 1)],
}


def units_of(tag, got):
    """Multi-word units (clip ids said together) the language's pack gets, as tuples: French
    liaison and elision cross word boundaries, so every hour with its "heure(s)" ("une heure",
    "deux heures", "neuf heures" [nœvœʁ]) and the quarter forms ("et quart", "et demie",
    "moins le quart") are cut whole.  The renderer picks the fewest clips that cover a phrase
    and falls back to the single words, which the pack keeps too."""
    if tag != "fr":
        return []
    units = []
    fixed = [("et", "quart"), ("et", "demie"), ("et", "demi"), ("moins", "le", "quart")]
    for g in got:
        clips = g[4]
        for i in range(len(clips) - 1):
            if clips[i + 1] in ("heure", "heures"):
                # The whole hour number: "vingt et une heures" [vɛ̃teynœʁ] has two liaisons.
                j = i - 2 if i >= 2 and clips[i - 1] == "et" else i
                u = tuple(clips[j:i + 2])
                if u not in units:
                    units.append(u)
        for u in fixed:
            n = len(u)
            if u not in units and any(tuple(clips[i:i + n]) == u for i in range(len(clips) - n + 1)):
                units.append(u)
    return units


BUILD_PACKAGES = {
    "festival": "festival festvox-us-slt-hts festvox-ru festvox-italp16k",
    "espeak": "libespeak-ng1 espeak-ng-data",
}


def quarter_phrases(got, phrasing):
    """The clip ids of the 96 quarter-hour phrases (no lead-in) of a phrasing, from the phrases
    asked of the binary."""
    seen = {}
    for p, minute, led, text, ids in got:
        if p == phrasing and not led and minute >= 0 and minute % 15 == 0:
            seen.setdefault(minute, ids)
    if len(seen) != 96:
        raise RuntimeError(f"{phrasing}: {len(seen)} quarter-hour phrases, expected 96")
    return [seen[m] for m in sorted(seen)]


def default_loudness(binary, default_dir, work, rate):
    """Integrated loudness (LUFS) of the default pack's 96 quarter-hour phrases in en-US's
    default phrasing (12h), rendered the same way: the level every pack is brought to."""
    with open(os.path.join(default_dir, "pack.json"), encoding="utf-8") as f:
        m = json.load(f)
    phrases = []
    for minute in range(0, 1440, 15):
        _, _, _, _, ids = lang_carriers._dry_run(binary, default_dir, "en-US", "12h", minute, None)
        phrases.append(ids)
    clips = {c: audio.load_resampled(os.path.join(default_dir, m["clips"][c]), rate)
             for c in sorted({c for ids in phrases for c in ids})}
    return audio.integrated_loudness([audio.render(clips, ids) for ids in phrases], rate)


def intelligibility(tag, out, binary, repo, log):
    """A sentence on how well an independent recogniser understands the pack: for en-GB,
    `scripts/intelligibility` (pocketsphinx, US English model) on the 96 casual quarter hours,
    voice only and with the bells; for the other languages there is no offline recogniser here."""
    if tag != "en-GB":
        return ("Not measured automatically: the only offline recogniser here, pocketsphinx, has "
                "a US English model only (see `docs/sound-packs.md`).")
    if shutil.which("pocketsphinx_batch") is None:
        return "Not measured: pocketsphinx was not installed when this pack was built."
    got = []
    for extra in (["--voice-only"], []):
        r = subprocess.run([os.path.join(repo, "scripts", "intelligibility"), "--binary", binary,
                            "--pack", out, "--language", "en-GB", "--min", "0", "--jobs", "2"] + extra,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        last = (r.stdout.strip().splitlines() or ["?"])[-1].split(" recognised")[0]
        got.append(last)
    log(f"{tag}: pocketsphinx recognised {got[0]} casual quarter hours voice only, {got[1]} with bells")
    return (f"`scripts/intelligibility --language en-GB` (pocketsphinx, US English model, a grammar "
            f"in which every quarter form can stand before every hour): {got[0]} of the casual "
            f"quarter-hour phrases recognised voice only, {got[1]} with the bells.")


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


def build(tag, out, rate, repo, binary, engine, work, log, model=None):
    binary = find_binary(repo, binary)
    engine = engine or ENGINES[tag]
    phrasings = lang_carriers.phrasings_of(binary, tag)
    lead_in = lang_carriers.has_lead_in(binary, tag, work)
    words = lang_carriers.vocabulary(binary, tag, phrasings, work, lead_in)
    log(f"{tag}: {len(words)} words in {', '.join(phrasings)}"
        f"{' and the lead-in' if lead_in else ''} (from `talking-clock check`)")
    got = lang_carriers.phrases(binary, tag, phrasings, words, work, lead_in, log)
    cands = lang_carriers.carriers(got, words)
    for text, i in EXTRA_WORDS.get(tag, []):
        if text[i] not in cands:
            words.append(text[i])
            cands[text[i]] = [(("regional", -1, False, text, text), i)]
    units = units_of(tag, got) if engine == "espeak" else []
    if units:
        ucands = lang_carriers.unit_carriers(got, units)
        log(f"{tag}: {len(ucands)} multi-word units ({', '.join(ucands)})")
        cands.update(ucands)
        words += list(ucands)
    audit = None
    if engine == "festival":
        from . import festival_engine
        clips, used = festival_engine.make_lang_clips(tag, cands, work, rate, log)
    elif engine == "piper":
        from . import piper_engine
        clips, used = piper_engine.make_lang_clips(model, cands, rate, log)
    else:
        clips, used, audit = espeak_engine.make_voice_clips(tag, cands, rate, log)

    clips, level = audio.level_pack(clips, rate)
    log(f"{tag}: every word at {level:.1f} dBFS active-speech level")

    default_dir = os.path.join(repo, "Sounds", "default")
    with open(os.path.join(default_dir, "pack.json"), encoding="utf-8") as f:
        default = json.load(f)
    if default["sample_rate"] != rate:
        sys.exit(f"make-pack: the language packs reuse the default pack's bells, which are "
                 f"{default['sample_rate']} Hz; build with --rate {default['sample_rate']}")

    # One loudness: the 96 quarter-hour phrases of each phrasing, rendered as the player chains
    # the clips, measured (ITU-R BS.1770) against the default pack's en-US phrases; one gain for
    # the whole pack keeps the words' balance.
    target = default_loudness(binary, default_dir, work, rate)
    before = {p: audio.integrated_loudness(
        [audio.render(clips, ids) for ids in quarter_phrases(got, p)], rate) for p in phrasings}
    gain_db = target - sum(before.values()) / len(before)
    clips = {k: x * 10.0 ** (gain_db / 20.0) for k, x in clips.items()}
    limited = {}
    for k in list(clips):
        clips[k], reduction = audio.limit_peaks(clips[k], rate)
        if reduction > 0:
            limited[k] = reduction
    if limited:
        log(f"{tag}: peaks over {audio.PEAK_CAP_DBFS:g} dBFS limited in {len(limited)} clips "
            f"(at most {max(limited.values()):.1f} dB)")
    loud = {p: audio.integrated_loudness(
        [audio.render(clips, ids) for ids in quarter_phrases(got, p)], rate) for p in phrasings}
    log(f"{tag}: loudness gain {gain_db:+.2f} dB: " + ", ".join(
        f"{p} {v:.2f} LUFS" for p, v in loud.items()) + f" (default pack: {target:.2f} LUFS)")

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
    if engine == "piper":
        desc = f"Piper voice {os.path.basename(model)} (piper-tts, a voice model the user supplied)"
        pkgs, licpkg = [], None
        licence = "the voice model's own licence (see its model card)"
    elif engine != ENGINES[tag]:
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
    cuts = os.path.join(out, "cuts.json")
    if audit:
        # What scripts/cut-audit re-checks: the sentence each clip was cut from, the span of its
        # words, and the phonemes espeak-ng timed inside the cut and for the words alone.
        record = {"engine": "espeak-ng", "voice": espeak_engine.VOICES[tag], "clips": {
            w: {"sentence": list(used[w][0]),
                "span": list(used[w][1]) if not isinstance(used[w][1], int) else [used[w][1]] * 2,
                "phonemes": audit[w][0], "alone": audit[w][1]} for w in words}}
        with open(cuts, "w", encoding="utf-8", newline="\n") as f:
            f.write(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    elif os.path.exists(cuts):
        os.remove(cuts)

    vers = versions(pkgs + ["sox", "flac", "python3-numpy"])
    import numpy
    np_version = numpy.__version__
    table = "\n".join(f"| `{p}` | {v} |" for p, v in vers.items())
    if engine == "piper":
        try:
            from importlib.metadata import version as _pv
            engine_version = f"piper-tts {_pv('piper-tts')}"
        except Exception:
            engine_version = "piper-tts"
        how = ("Piper's phoneme alignments (piper-tts >= 1.3 with onnx: the samples each phoneme "
               "produced; a word ends at the start of the space phoneme before the next word)")
    elif engine == "festival":
        from . import festival_engine
        engine_version = festival_engine.festival_version().replace("\n", " ")
        how = ("festival's own word timings (the utterance's Token and Word relations and each "
               "word's first and last segment), as for the default pack: a cut next to a pause "
               "reaches into it and the trim finds the real edge")
    else:
        engine_version = "eSpeak NG " + espeak_engine.version()
        how = ("espeak-ng's own phoneme timing (the synth callback's `espeakEVENT_PHONEME` "
               "events: the sample where each phoneme starts, and the word in the text it belongs "
               "to): a clip runs from its word's start (`espeakEVENT_WORD`, unless that event lies "
               "on the previous word's last phoneme, as the /n/ of \"une heure\") to the first "
               "phoneme of the next word, and a liaison consonant the word has only before the "
               "next one (\"trois|z heures\") is left out; among the sentences that use the word, "
               "the first whose cut holds exactly the word's phonemes spoken alone is taken. A word "
               "espeak-ng joins to the one before it (\"es ist\") is split at its phoneme events "
               "after as many phonemes as the words before it have alone. Multi-word units "
               "(French: every hour with its \"heure(s)\", \"et quart\", \"et demie\", "
               "\"moins le quart\") are cut whole, liaison inside them kept. No silence detection")
    licence_file = (f"/usr/share/doc/{licpkg}/copyright" if licpkg
                    else f"the model card that came with `{os.path.basename(model or '')}`")
    def span(i):
        return (i, i) if isinstance(i, int) else i
    carriers_list = "\n".join(
        f"- `{w}`: \"{' '.join(x.upper() if span(i)[0] <= j <= span(i)[1] else x for j, x in enumerate(ws))}\""
        + (f" [{' '.join(audit[w][0])}]" if audit and audit[w][0] is not None else "")
        for w in words for (ws, i) in [used[w]])
    if audit:
        clean = [w for w in words if espeak_engine.same_phonemes(tag, *audit[w])]
        dirty = [w for w in words if w not in clean]
        allo = espeak_engine.ALLOPHONES.get(tag)
        audit_text = (
            f"\n## What each clip holds\n\nMeasured with espeak-ng's own phoneme timing "
            f"(`espeakEVENT_PHONEME` events, the sample where each phoneme starts): the heard "
            f"phonemes whose event falls inside a clip's cut window, compared with the phonemes of "
            f"the word (or unit) spoken alone. **{len(clean)} of {len(words)} clips hold exactly "
            f"the phonemes of their word alone**: no sound of a neighbour (a liaison consonant "
            f"that belongs to the next word, the /n/ of \"une\" that espeak-ng times in \"heure\") "
            f"and none of their own lost. "
            + ("Not clean: " + "; ".join(
                f"`{w}` holds [{' '.join(audit[w][0] or ['?'])}], alone [{' '.join(audit[w][1])}]"
                for w in dirty) + "." if dirty else "None is unclean.")
            + (" Allophones the language chooses by context count as the same phoneme: "
               + ", ".join(f"{k} = {v}" for k, v in allo.items())
               + " (espeak-ng's names; Spanish /b d g/ are approximants after a vowel or /s/)."
               if allo else "")
            + " The phonemes of each clip are in brackets after its sentence below.\n")
    else:
        audit_text = ""
    redistribution = (
        "A local pack: not for redistribution unless the voice model's licence allows it (many "
        "Piper voices derive from data that is not licensed for it)." if engine == "piper" else
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
    limited_text = (
        f"where that lifted a word's peaks over {audio.PEAK_CAP_DBFS:g} dBFS a smooth peak limiter "
        f"(2.5 ms gain steps held 10 ms) took them back ({len(limited)} clips, at most "
        f"{max(limited.values()):.1f} dB)." if limited else
        f"no peak went over {audio.PEAK_CAP_DBFS:g} dBFS.")
    loud_table = "\n".join(f"| `{p}` | {v:.2f} | {v - target:+.2f} |" for p, v in loud.items())
    licence_note = (f"`{licence_file}` (Debian package `{licpkg}`)" if licpkg else licence_file)
    try:
        from importlib.metadata import version as _module_version
        loudness_modules = (f"pyloudnorm {_module_version('pyloudnorm')}, "
                            f"scipy {_module_version('scipy')}")
    except Exception:
        loudness_modules = "pyloudnorm"
    heard = intelligibility(tag, out, binary, repo, log)
    readme = f"""# Sound pack `{tag}`

{desc}, with the default pack's synthesised bells. Every file here is generated by
`scripts/make-pack --language {tag}`; this README too (edit `scripts/pack/language_pack.py`).

## Regenerating

On Debian 12, with the talking-clock binary built (`swift build`; the binary knows the grammar):

    scripts/install-deps --packs     # festival + voices, espeak-ng, sox, flac, numpy, scipy, pyloudnorm
    scripts/make-pack --language {tag}      # writes Sounds/{tag}

The output is deterministic: the same package and module versions give byte-identical files
(checked by building twice). Another numpy or scipy may round the pack's loudness gain
differently in the last bit.

### Provenance of this copy

Engine: {engine_version}. Python {sys.version.split()[0]}, numpy {np_version}, {loudness_modules}. Debian packages:

| package | version |
| --- | --- |
{table}

## Licence

- Voice: {licence}. The full notice is in {licence_note}.
- Bells: synthesised by `scripts/pack/bells.py` (the default pack's files, copied), CC0.
- Modifications (marked, as the voice's notice asks): every clip is cut out of a sentence the
  voice synthesised, resampled, trimmed, loudness-normalised, peak-limited where needed and
  faded, as described below; the voice data itself is not modified and not included.

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

## Intelligibility

{heard}

## Loudness

Every pack speaks at one loudness: the 96 quarter-hour phrases of each phrasing, rendered as the
player chains the clips (no bells), measured as one programme with ITU-R BS.1770-4 (EBU R128
integrated loudness, `pyloudnorm`), against the default pack's 96 en-US `12h` phrases measured the
same way ({target:.2f} LUFS). One gain for the whole pack ({gain_db:+.2f} dB) keeps the words'
balance; {limited_text}

| phrasing | loudness (LUFS) | vs the default pack (LU) |
| --- | ---: | ---: |
{loud_table}

`scripts/loudness` measures the same from the binary's own renders (`say --output`) of every
committed pack.
{audit_text}
### The sentence each word was cut from (the word in capitals)

{carriers_list}
"""
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(readme)
    return len(words)
