"""A pack for one language other than en-US: words cut from whole time sentences of that
language (asked of the talking-clock binary), the default pack's bells, a generated README."""

import json
import os
import shutil
import subprocess
import sys
import unicodedata

import numpy as np

from . import audio, espeak_engine, joins, lang_carriers, levels, quality

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


# The regional variants that speak with a language's pack (as EXTRA_WORDS): their dates' and
# values' words go into it too (de-AT "Jänner", es-419 "primero de enero").
DATE_VARIANTS = {"de": ("de-AT",), "es": ("es-419",)}


# Russian "без" is voiced before a voiced sound or a vowel and voiceless before a voiceless one
# (festival's own segments: [bb ae z] before "минуты", [bb i s] before "четверти"): before a word
# that does not start with a voiceless consonant it is cut together with that word.
RU_VOICELESS = set("пфктшсхцчщ")


def units_of(tag, got):
    """Multi-word units (clip ids said together) the language's pack gets, as tuples: French
    liaison and elision cross word boundaries, so every hour with its "heure(s)" ("une heure",
    "deux heures", "neuf heures" [nœvœʁ]) and the quarter forms ("et quart", "et demie",
    "moins le quart") are cut whole.  The renderer picks the fewest clips that cover a phrase
    and falls back to the single words, which the pack keeps too."""
    if tag == "ru":
        units = []
        for g in got:
            clips = g[4]
            for i in range(len(clips) - 1):
                u = (clips[i], clips[i + 1])
                if clips[i] == "без" and clips[i + 1][:1] not in RU_VOICELESS and u not in units:
                    units.append(u)
        return units
    if tag != "fr":
        return []
    units = []
    # "vingt et une" keeps its liaison /t/ [vɛ̃teyn] only said whole.
    fixed = [("et", "quart"), ("et", "demie"), ("et", "demi"), ("moins", "le", "quart"), ("vingt", "et", "une")]
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


# Units the words of dates and values get: French "vingt et un" (the 21st, 21 degrees) keeps its
# liaison /t/ [vɛ̃teœ̃] only said whole, as the time's "vingt et une" does (units_of).
DATE_VALUE_UNITS = {"fr": ["vingt et un"]}


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


def cover_phrase(ids, available):
    """The clips that say a phrase (its words' ids), as the player covers it."""
    return quality.cover(list(ids), available)


def engine_candidates(tag, engine, requests, rate, work, log, respelled=False):
    """[(samples at rate, at the sentence's start, at its end, phonemes in the cut or None,
    phonemes alone or None) or None] for each request (display words, (first, last))."""
    if engine == "festival":
        from . import festival_engine
        # For festival the "phonemes" are its segments inside the cut; there is no "alone" to
        # compare with (a festival word alone is said as a sentence).
        return [None if r is None else r[:3] + (r[3], None)
                for r in festival_engine.candidates(tag, requests, rate, work, log)]
    eng = espeak_engine.ESpeak(espeak_engine.VOICES[tag])
    out = []
    for words, (first, last) in requests:
        words = list(words) if respelled else quality.respell(tag, list(words))
        got = espeak_engine.cut_at_boundaries(eng, list(words), first, last)
        if got is None and first == last:
            # A word espeak-ng joins to its neighbour ("es ist"): split at its phoneme events.
            joined = espeak_engine.cut_joined(eng, list(words), first)
            if joined is not None:
                got = joined + (espeak_engine.alone(eng, words[first]), first == 0, last + 1 == len(words))
        if got is None or len(got[0]) <= eng.rate // 50:
            out.append(None)
            continue
        x, inside, want, at_start, at_end = got
        out.append((audio.resample_array(x, eng.rate, rate), at_start, at_end, inside, want))
    return out


def finished_cuts(tag, engine, requests, rate, work, log):
    """{request: (samples, phonemes in the cut, phonemes alone, clean) or None} for each request
    (display words, (first, last)): the engine's cut, finished (joins.finish); clean when the cut
    holds the word's own phonemes in its place (espeak_engine.same_phonemes, told the word and
    the one after it)."""
    out = {}
    for r, got in zip(requests, engine_candidates(tag, engine, requests, rate, work, log)):
        out[r] = None
        if got is None:
            continue
        x, at_start, at_end, inside, want = got
        try:
            y = joins.finish(x, rate, at_start, at_end)
        except ValueError:
            continue
        text, (first, last) = r
        after = text[last + 1] if last + 1 < len(text) else None
        clean = inside is None or want is None or espeak_engine.same_phonemes(tag, inside, want, text[last], after)
        out[r] = (y, inside, want, clean)
    return out


# The joins are chosen on every minute of the day: a clip meets every word it can meet.
JOIN_STEP_MIN = 1


def chosen_clips(tag, engine, phrasings, words, minutes, units, lead_in_phrases, extra, rate, work, log):
    """({clip id: samples}, {clip id: (display words, span)}, {clip id: (phonemes in the cut,
    phonemes alone)} (espeak-ng) or None, [units added]): clips cut at the engine's word
    boundaries, chosen by the joins they make, and units added where two words joined badly in
    every cut (joins.py)."""
    base = set(words) | {" ".join(u) for u in units}
    # The targets: the engine speaking every minute of every phrasing whole.
    opt = [(p, m) for p in phrasings for m in range(0, 1440, JOIN_STEP_MIN)]
    texts = [list(minutes[p][m][0]) for p, m in opt]
    log(f"{tag}: the engine speaks {len(texts)} phrases whole for the joins")
    voice = espeak_engine.VOICES[tag] if engine == "espeak" else festival_voice(tag)
    facts = whole_facts_cached(tag, engine, voice, [quality.respell(tag, t) for t in texts], rate, work)
    cache = {}
    added = []
    for round_no in range(1 + joins.UNIT_ROUNDS):
        available = base | set(added)
        # Every phrase the clock can say (every minute of every phrasing, the lead-in quarters,
        # the regional words), covered with the pack's clips: where each clip stands.
        said = [(text, cover_phrase(ids, available)) for p in phrasings for text, ids in minutes[p].values()]
        said += [(text, cover_phrase(ids, available)) for text, ids in lead_in_phrases]
        said += [(text, cover_phrase(ids, available)) for text, ids in extra]
        if round_no == 0:
            words_only = set(words)
            said_alone = [(text, cover_phrase(ids, words_only)) for p in phrasings for text, ids in minutes[p].values()]
            said_alone += [(text, cover_phrase(ids, words_only)) for text, ids in lead_in_phrases + extra]
        requests, owners = [], []
        for clip in sorted(available):
            # A word the units now always cover keeps a clip of its own (a renderer without
            # units says the words one by one): cut where it stands without the units.
            ctx = joins.contexts(said, clip) or joins.contexts(said_alone, clip)
            if not ctx and clip in added:
                # A unit the others added with it now cover everywhere: not needed.
                added.remove(clip)
                continue
            if not ctx:
                raise RuntimeError(f"{tag}: no phrase says {clip!r}")
            for _, (text, span) in ctx:
                requests.append((text, span))
                owners.append(clip)
        todo = sorted({r for r in requests if r not in cache})
        log(f"{tag}: {len(requests)} candidate cuts for {len(available)} clips ({len(todo)} new)")
        cache.update(finished_cuts(tag, engine, todo, rate, work, log))
        available = base | set(added)
        cands = {c: [] for c in available}
        for clip, (text, span) in zip(owners, requests):
            if cache[(text, span)] is not None:
                y, inside, want, clean = cache[(text, span)]
                cands[clip].append(joins.Candidate(clip, text, span, y, rate, inside, want, clean))
        for clip in sorted(available):
            if not cands[clip]:
                raise RuntimeError(f"{tag}: no sentence gives a cut for {clip!r}")
            clean = [c for c in cands[clip] if c.clean]
            if clean:
                cands[clip] = clean
            elif round_no == 0 or clip in added:
                c = cands[clip][0]
                log(f"{tag}: {clip!r}: no clean cut; from {' '.join(c.text)!r} it holds {c.inside} (alone: {c.alone})")
        junctions = []
        for (p, m), f in zip(opt, facts):
            ids = minutes[p][m][1]
            clips = cover_phrase(ids, available)
            where = quality.word_index_of_clips(list(ids), clips)
            for i in range(1, len(clips)):
                k = where[i]
                junctions.append((clips[i - 1], clips[i], f[k - 1] if k is not None else None,
                                  joins.QUARTER_WEIGHT if m % 15 == 0 else 1))
        pick = joins.choose(cands, junctions, joins.OVERLAP_MS, log)
        if round_no == joins.UNIT_ROUNDS:
            break
        new = joins.propose_units(cands, pick, junctions, joins.OVERLAP_MS, len(added), log)
        new = [u for u in new if u not in available]
        if not new:
            break
        added += new
    with open(os.path.join(work, "joins.json"), "w", encoding="utf-8") as f:
        # For looking into a choice: every candidate's edges, and the targets.
        json.dump({"candidates": {c: [{"text": " ".join(k.text), "span": k.span, "lead_ms": k.lead_ms,
                                        "tail_ms": k.tail_ms, "f0_start": k.f0_start, "f0_end": k.f0_end,
                                        "chosen": i == pick[c]} for i, k in enumerate(v)] for c, v in cands.items()},
                   "junctions": junctions, "added": added}, f, ensure_ascii=False, indent=0)
    chosen = {c: cands[c][pick[c]] for c in cands}
    clips = {c: k.x for c, k in chosen.items()}
    used = {c: (k.text, k.span) for c, k in chosen.items()}
    audit = {c: (k.inside, k.alone) for c, k in chosen.items()}
    return clips, used, audit, added


def date_value_clips(tag, engine, new_words, said, fixed, fixed_used, rate, work, log):
    """({clip id: samples}, {clip id: (display words, span)}, {clip id: (phonemes in the cut,
    phonemes alone)}) for the words only dates and values say: cut from the engine's own date and
    value sentences (`said`: [(display words, clip ids)]) at its word boundaries, and chosen, as
    the time's words are (chosen_clips), by the joins they make in those phrases spoken whole, with
    the pack's other clips (`fixed`, cut from `fixed_used`) held as they are."""
    available = set(fixed) | set(new_words)
    covered = [(text, cover_phrase(ids, available)) for text, ids in said]
    requests, owners = [], []
    for clip in new_words:
        ctx = joins.contexts(covered, clip)
        if not ctx:
            raise RuntimeError(f"{tag}: no date or value says {clip!r}")
        for _, (text, span) in ctx:
            requests.append((text, span))
            owners.append(clip)
    todo = sorted(set(requests))
    log(f"{tag}: {len(todo)} candidate cuts for {len(new_words)} words of dates and values")
    cut = finished_cuts(tag, engine, todo, rate, work, log)
    cands = {c: [] for c in new_words}
    for clip, r in zip(owners, requests):
        if cut[r] is not None:
            y, inside, want, clean = cut[r]
            cands[clip].append(joins.Candidate(clip, r[0], r[1], y, rate, inside, want, clean))
    for clip in new_words:
        if not cands[clip]:
            raise RuntimeError(f"{tag}: no sentence gives a cut for {clip!r}")
        clean = [c for c in cands[clip] if c.clean]
        if clean:
            cands[clip] = clean
        else:
            c = cands[clip][0]
            log(f"{tag}: {clip!r}: no clean cut; from {' '.join(c.text)!r} it holds {c.inside} (alone: {c.alone})")
    # The targets: every date (the first 366 phrases), and every third value, spoken whole.
    targets = said[:366] + said[366::3]
    voice = espeak_engine.VOICES[tag] if engine == "espeak" else festival_voice(tag)
    facts = whole_facts_cached(tag, engine, voice, [quality.respell(tag, list(t)) for t, _ in targets], rate, work)
    junctions = []
    for (text, ids), f in zip(targets, facts):
        clips = cover_phrase(ids, available)
        where = quality.word_index_of_clips(list(ids), clips)
        if not any(c in cands for c in clips):
            continue
        for i in range(1, len(clips)):
            if clips[i - 1] not in cands and clips[i] not in cands:
                continue
            for c in (clips[i - 1], clips[i]):
                if c not in cands:
                    cands[c] = [joins.Candidate(c, fixed_used[c][0], fixed_used[c][1], fixed[c], rate)]
            k = where[i]
            junctions.append((clips[i - 1], clips[i], f[k - 1] if k is not None else None, 1))
    pick = joins.choose(cands, junctions, joins.OVERLAP_MS, log)
    chosen = {c: cands[c][pick[c]] for c in new_words}
    return ({c: k.x for c, k in chosen.items()}, {c: (k.text, k.span) for c, k in chosen.items()},
            {c: (k.inside, k.alone) for c, k in chosen.items()})


def whole_facts_cached(tag, engine, voice, texts, rate, work):
    """The facts at every word boundary of each text spoken whole, kept in the work directory
    (--keep-work) so that building again does not speak them again."""
    import hashlib
    import pickle
    key = hashlib.sha256(json.dumps([engine, voice, rate, texts], ensure_ascii=False).encode()).hexdigest()[:16]
    path = os.path.join(work, f"whole-facts-{tag}-{key}.pickle")
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return pickle.load(f)
    spoken = quality.speak_whole("espeak-ng" if engine == "espeak" else "festival", voice, texts, rate, work)
    facts = [quality.whole_facts(x, first, rate) for x, first in spoken]
    with open(path, "wb") as f:
        pickle.dump(facts, f)
    return facts


def festival_voice(tag):
    from . import festival_engine
    return festival_engine.voice_of(tag)[0]


def recorded_clips(tag, engine, pack, rate, work, log):
    """The clips of a pack cut again from the sentences its cuts.json names (no choosing): the
    committed pack's decisions, reproduced. Returns what chosen_clips returns."""
    with open(os.path.join(pack, "cuts.json"), encoding="utf-8") as f:
        record = json.load(f)["clips"]
    requests = [(tuple(c["sentence"]), tuple(c["span"])) for c in record.values()]
    log(f"{tag}: {len(requests)} clips cut again from the sentences {pack}/cuts.json names")
    clips, used, audit = {}, {}, {}
    for clip, (text, span), cut in zip(record, requests, engine_candidates(tag, engine, requests, rate, work, log,
                                                                            respelled=True)):
        if cut is None:
            raise RuntimeError(f"{tag}: {clip!r}: no cut in {' '.join(text)!r} any more")
        x, at_start, at_end, inside, want = cut
        clips[clip] = joins.finish(x, rate, at_start, at_end)
        used[clip] = (text, span)
        audit[clip] = (inside, want)
    return clips, used, audit, [c for c in record if " " in c]


def build(tag, out, rate, repo, binary, engine, work, log, model=None, from_cuts=None):
    binary = find_binary(repo, binary)
    engine = engine or ENGINES[tag]
    phrasings = lang_carriers.phrasings_of(binary, tag)
    lead_in = lang_carriers.has_lead_in(binary, tag, work)
    words = lang_carriers.vocabulary(binary, tag, phrasings, work, lead_in)
    log(f"{tag}: {len(words)} words in {', '.join(phrasings)}"
        f"{' and the lead-in' if lead_in else ''} (from `talking-clock check`)")
    if engine == "piper":
        got = lang_carriers.phrases(binary, tag, phrasings, words, work, lead_in, log)
        cands = lang_carriers.carriers(got, words)
        for text, i in EXTRA_WORDS.get(tag, []):
            if text[i] not in cands:
                words.append(text[i])
                cands[text[i]] = [(("regional", -1, False, text, text), i)]
        minutes = None
    else:
        minutes, lead_in_phrases = lang_carriers.sayings(binary, tag, phrasings, work, lead_in, log)
        got = [(p, m, False, text, ids) for p in phrasings for m, (text, ids) in sorted(minutes[p].items())]
        extra = []
        for text, i in EXTRA_WORDS.get(tag, []):
            if text[i] not in words:
                words.append(text[i])
                extra.append((text, text))
        units = units_of(tag, got)
        if units:
            log(f"{tag}: {len(units)} multi-word units ({', '.join(' '.join(u) for u in units)})")
        # The words only dates and values say (say --date, say --value); their phrases are asked
        # for below, when some of them are to be chosen.
        time_words = list(words)
        dv_words, dv_units = lang_carriers.date_value_words(binary, tag, phrasings, time_words, work,
                                                            DATE_VARIANTS.get(tag, ()))
        dv_words += DATE_VALUE_UNITS.get(tag, [])
    audit = None
    overlap_ms = 0
    if engine == "piper":
        from . import piper_engine
        clips, used = piper_engine.make_lang_clips(model, cands, rate, log)
    else:
        if from_cuts:
            clips, used, audit, added = recorded_clips(tag, engine, from_cuts, rate, work, log)
            units = []
        else:
            clips, used, audit, added = chosen_clips(tag, engine, phrasings, words, minutes, units,
                                                     lead_in_phrases, extra, rate, work, log)
        words += [" ".join(u) for u in units if " ".join(u) not in words]
        words += [u for u in added if u not in words]
        overlap_ms = joins.OVERLAP_MS
        # The words of dates and values: those cuts.json names are cut from its sentences above;
        # the others are chosen now, with the time's clips held as they are. They are levelled
        # apart (below), so the time's clips are what they would be without them.
        new_clips = {w: clips.pop(w) for w in dv_words if w in clips}
        new_used = {w: used.pop(w) for w in new_clips}
        new_audit = {w: audit.pop(w) for w in new_clips}
        todo = [w for w in dv_words if w not in new_clips]
        if todo:
            plain = [w for w in dv_words if " " not in w]
            dv_said = lang_carriers.date_value_phrases(binary, tag, phrasings, time_words, plain, dv_units, work, log,
                                                       DATE_VARIANTS.get(tag, ()))
            x, u, a = date_value_clips(tag, engine, todo, dv_said, clips, used, rate, work, log)
            new_clips.update(x)
            new_used.update(u)
            new_audit.update(a)

    clips, level = audio.level_pack(clips, rate)
    log(f"{tag}: every word at {level:.1f} dBFS active-speech level")

    default_dir = os.path.join(repo, "Sounds", "default")
    with open(os.path.join(default_dir, "pack.json"), encoding="utf-8") as f:
        default = json.load(f)
    if default["sample_rate"] != rate:
        sys.exit(f"make-pack: the language packs reuse the default pack's bells, which are "
                 f"{default['sample_rate']} Hz; build with --rate {default['sample_rate']}")

    # One loudness, per phrase: every fifth minute of every phrasing, rendered as the player lays
    # the clips out (levels.py).
    if minutes is None:
        got = lang_carriers.phrases(binary, tag, phrasings, words, work, lead_in, log)
        display = lang_carriers.display_map(got)
        minutes = {p: lang_carriers.every_minute(binary, tag, p, display) for p in phrasings}
    available = set(clips)
    measured = [cover_phrase(minutes[p][m][1], available) for p in phrasings for m in range(0, 1440, 5)]
    clips, gain_db, own_gain, _ = levels.even_out(clips, measured, rate, overlap_ms,
                                                  lambda msg: log(f"{tag}: {msg}"))
    target = levels.TARGET_LUFS
    limited = {}
    for k in list(clips):
        clips[k], reduction = audio.limit_peaks(clips[k], rate)
        if reduction > 0:
            limited[k] = reduction
    clips = levels.keep_words_together(clips, rate)
    if engine != "piper" and new_clips:
        clips.update(levels.bring_with(clips, new_clips, level, gain_db, rate))
        used.update(new_used)
        audit.update(new_audit)
        words += [w for w in dv_words if w not in words]
        log(f"{tag}: {len(new_clips)} words of dates and values at the pack's level")
    if limited:
        log(f"{tag}: peaks over {audio.PEAK_CAP_DBFS:g} dBFS limited in {len(limited)} clips "
            f"(at most {max(limited.values()):.1f} dB)")
    loud = {}
    for p in phrasings:
        each = levels.loudness_of(clips, [cover_phrase(minutes[p][m][1], available) for m in range(0, 1440, 15)],
                                  rate, overlap_ms)
        loud[p] = (float(np.median(each)), float(each.min()), float(each.max()))
    log(f"{tag}: quarter-hour phrases: " + ", ".join(
        f"{p} median {v[0]:.2f} LUFS ({v[1]:.1f} … {v[2]:.1f})" for p, v in loud.items()))

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
        "spacing": dict(default["spacing"], **({"word_overlap_ms": overlap_ms} if overlap_ms else {})),
        "clips": manifest_clips,
        "bells": default["bells"],
        "chimes": default["chimes"],
    }
    with open(os.path.join(out, "pack.json"), "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(m, indent=2, ensure_ascii=False) + "\n")
    cuts = os.path.join(out, "cuts.json")
    if engine in ("espeak", "festival"):
        # The sentence each clip was cut from and the span of its words; for espeak-ng also the
        # phonemes it timed inside the cut and for the words alone (what scripts/cut-audit
        # re-checks).
        record = {"engine": "espeak-ng" if engine == "espeak" else "festival", "cut": "word-boundaries",
                  "voice": espeak_engine.VOICES[tag] if engine == "espeak" else festival_voice(tag), "clips": {
            w: dict({"sentence": quality.respell(tag, list(used[w][0])),
                     "span": list(used[w][1]) if not isinstance(used[w][1], int) else [used[w][1]] * 2,
                     "phonemes": audit[w][0]},
                    **({"alone": audit[w][1]} if engine == "espeak" else {})) for w in words}}
        with open(cuts, "w", encoding="utf-8", newline="\n") as f:
            f.write(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    elif os.path.exists(cuts):
        os.remove(cuts)
    if engine in ("espeak", "festival") and not from_cuts:
        # The engine's whole phrases, for scripts/pack-quality --reference and the test suite's
        # listening proxy (no engine needed there): facts at every word boundary of the 132
        # measured phrases of each phrasing, MFCCs of the quarter hours.
        sets = [(p, {(m // 60, m % 60): list(minutes[p][m][0]) for m in
                     [h * 60 + mm for h, mm in quality.TIMES]}) for p in phrasings]
        record, feats = quality.whole_record("espeak-ng" if engine == "espeak" else "festival",
                                             espeak_engine.VOICES[tag] if engine == "espeak" else festival_voice(tag),
                                             sets, rate, work, lambda msg: log(f"{tag}: {msg}"), tag)
        with open(os.path.join(out, "whole.json"), "w", encoding="utf-8", newline="\n") as f:
            f.write(json.dumps(record, ensure_ascii=False, indent=0, sort_keys=True) + "\n")
        quality.write_mfcc_file(os.path.join(out, "whole.mfcc"), feats)

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
               "word's first segment): a clip runs from its word's start (or the pause festival "
               "puts before it) to the next word's start; after a sentence's last word it reaches "
               "into the pause and the trim finds the real edge")
    else:
        engine_version = "eSpeak NG " + espeak_engine.version()
        how = ("espeak-ng's own phoneme timing (the synth callback's `espeakEVENT_WORD` and "
               "`espeakEVENT_PHONEME` events: the sample where each starts, and the word in the "
               "text it belongs to): a clip runs from its word's first event (a pause espeak-ng "
               "makes before the word, such as the glottal stop before a German vowel, belongs to "
               "that word; a word event that lies on the previous word's last phoneme, as the /n/ "
               "of \"une heure\", does not count) to the next word's first event, and a liaison "
               "consonant the word has only before the next one (\"trois|z heures\") is left out; "
               "only cuts that hold exactly the word's phonemes spoken alone are candidates. A word "
               "espeak-ng joins to the one before it (\"es ist\") is split at its phoneme events "
               "after as many phonemes as the words before it have alone. No silence detection")
    licence_file = (f"/usr/share/doc/{licpkg}/copyright" if licpkg
                    else f"the model card that came with `{os.path.basename(model or '')}`")
    def span(i):
        return (i, i) if isinstance(i, int) else i
    carriers_list = "\n".join(
        f"- `{w}`: \"{' '.join(x.upper() if span(i)[0] <= j <= span(i)[1] else x for j, x in enumerate(ws))}\""
        + (f" [{' '.join(audit[w][0])}]" if audit and audit[w][0] is not None else "")
        for w in words for (ws, i) in [used[w]])
    if audit and engine == "espeak":
        def context(w):
            ws, i = used[w]
            last = span(i)[1]
            return ws[last], (ws[last + 1] if last + 1 < len(ws) else None)
        clean = [w for w in words if espeak_engine.same_phonemes(tag, *audit[w], *context(w))]
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
               + " (espeak-ng's names; Spanish /b d g/ are approximants after a vowel or /s/, /n/ velar"
               " before a velar)."
               if allo else "")
            + (" French \"six\", \"huit\" and \"dix\" (and the numbers ending in them) cut before a word"
               " that starts with a consonant hold their form there, without the final consonant (\"six"
               " degrés\" [si degʁe]): that counts as their own."
               if tag == "fr" else "")
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
    units_here = [w for w in words if " " in w]
    unit_text = (": " + ", ".join(f'"{u}"' for u in units_here)) if units_here else " (none)"
    loud_table = "\n".join(f"| `{p}` | {v[0]:.2f} | {v[1]:.1f} … {v[2]:.1f} |" for p, v in loud.items())
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
{'and the lead-in ' if lead_in else ''}(listed by `talking-clock check`), and units: several words
cut together (clip ids joined by spaces, which the player uses where they cover a phrase with fewer
clips){unit_text}. Each is cut out of a whole time sentence of the language, at {how}.

Of the sentences a word is said in (up to {joins.MAX_CANDIDATES}, with different neighbours), the one
whose edges fit best is chosen by measurement (`scripts/pack/joins.py`): the engine speaks every
minute of every phrasing whole, and at every junction of those phrases the cut clips' pitch jump and
pause should be what the engine makes at that word boundary (the quarter hours count
{joins.QUARTER_WEIGHT} times); where two words join badly whatever their cuts, they become a unit.
Each clip is trimmed only where it was the edge of its sentence ({audio.TRIM_BELOW_PEAK_DB:g} dB below
its peak, keeping {audio.KEEP_BEFORE_MS:g} ms before and {audio.KEEP_AFTER_MS:g} ms after), its inner
edges moved to a zero crossing, brought to {audio.TARGET_RMS_DBFS:g} dBFS active-speech RMS with peaks
at most {audio.PEAK_CAP_DBFS:g} dBFS, then every clip to one common level ({level:.1f} dBFS), and faded
over {joins.OVERLAP_MS} ms at both ends: `pack.json` sets `spacing.word_overlap_ms` to
{joins.OVERLAP_MS}, so the player overlaps two words by that much and the faded edges cross-fade.

Format: FLAC, {rate} Hz, mono, 16-bit. `pack.json` declares `"language": "{tag}"` and the
phrasings; `talking-clock check --pack Sounds/{tag} --language {tag}` proves every minute in
each. `cuts.json` names the sentence and words of every clip; `whole.json` and `whole.mfcc` hold
the engine's whole phrases as `scripts/pack-quality --reference` and the test suite compare them.

## Intelligibility

{heard}

## Loudness

Every phrase at one loudness: each phrase of every fifth minute of every phrasing, rendered as
the player lays the clips out (no bells), measured alone with ITU-R BS.1770-4 (integrated loudness,
`pyloudnorm`). One gain for the whole pack ({gain_db:+.2f} dB) puts the median phrase at
{target:.2f} LUFS, as in every pack; then {len(own_gain)} clips get a small gain of their own (at most
{max((abs(v) for v in own_gain.values()), default=0):.1f} dB) so that no phrase stands more than about
1 LU from the median (`scripts/pack/levels.py`); {limited_text}

| phrasing | quarter hours: median (LUFS) | quietest … loudest phrase |
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
