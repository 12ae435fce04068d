"""Carrier sentences for a language pack, asked of the talking-clock binary.

The binary owns the grammar: this module never re-implements it.  It asks

    talking-clock check --pack STUB --language TAG          (the words: the missing-word lists)
    talking-clock say --dry-run --language TAG --phrasing P --at HH:MM --pack STUB2 --chime none

where STUB is a pack with no usable word and STUB2 a pack that maps every word to one
placeholder clip, so that the dry run prints the phrase (first line) and its clip ids
("clips: …").  Each word is then cut from a whole spoken time sentence of that language in
which it stands where it usually stands (at the end of the phrase or inside it).
"""

import concurrent.futures
import json
import os
import re
import subprocess
import wave

LEAD_IN = "its"


def _run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def _silent_flac(path, rate=22050):
    wav = path[:-5] + ".wav"
    with wave.open(wav, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\x00\x00" * (rate // 100))
    subprocess.run(["flac", "-s", "-f", "-o", path, wav], check=True)
    os.remove(wav)


def _stub(dirpath, tag, phrasings, words):
    os.makedirs(os.path.join(dirpath, "voice"), exist_ok=True)
    flac = os.path.join(dirpath, "voice", "x.flac")
    if not os.path.exists(flac):
        _silent_flac(flac)
    clips = {w: "voice/x.flac" for w in words} or {"zzz-placeholder": "voice/x.flac"}
    m = {"format": 1, "name": "stub", "language": tag, "phrasings": phrasings,
         "sample_rate": 22050, "channels": 1, "clips": clips}
    with open(os.path.join(dirpath, "pack.json"), "w", encoding="utf-8") as f:
        json.dump(m, f, ensure_ascii=False)


_MISSING = re.compile(r"in (\S+) style \([^)]*\); missing words: (.*)\. Add a clip")


def phrasings_of(binary, tag):
    """The phrasings the language has (each one `say --phrasing` accepts)."""
    out = []
    for p in ("casual", "24h", "12h"):
        rc, so, se = _run([binary, "say", "--dry-run", "--pack", "/nonexistent/x",
                           "--language", tag, "--phrasing", p, "--at", "12:00"])
        if "has no phrasing" not in se:
            out.append(p)
    return out


def has_lead_in(binary, tag, work):
    cfg = os.path.join(work, "lead-in.toml")
    with open(cfg, "w") as f:
        f.write(f'lead-in = "{LEAD_IN}"\n')
    rc, so, se = _run([binary, "say", "--dry-run", "--config", cfg, "--pack", "/nonexistent/x",
                       "--language", tag, "--at", "12:00"])
    return "has no lead-in" not in se


def vocabulary(binary, tag, phrasings, work, lead_in):
    """Every clip id the language uses in `phrasings` (and the lead-in), from `check`."""
    stub = os.path.join(work, "stub-empty")
    _stub(stub, tag, phrasings, [])
    cmd = [binary, "check", "--pack", stub, "--language", tag, "--device", "null", "--chime", "none"]
    words = []
    for cfg_lead in ([False, True] if lead_in else [False]):
        for p in phrasings:
            c = cmd + ["--phrasing", p]
            if cfg_lead:
                c += ["--config", os.path.join(work, "lead-in.toml")]
            rc, so, se = _run(c)
            for m in _MISSING.finditer(so + se):
                for w in m.group(2).split(", "):
                    if w not in words:
                        words.append(w)
    if not words:
        raise RuntimeError(f"`talking-clock check` listed no words for {tag}")
    return words


def _minutes_first():
    """Minutes asked first: every quarter hour, then whole hours 0, 3, 12, 15 (every minute)."""
    order = [m for m in range(1440) if m % 15 == 0]
    for h in (15, 3, 0, 12):
        order += [h * 60 + m for m in range(60) if m % 15]
    return order


def _dry_run(binary, stub, tag, phrasing, minute, cfg):
    cmd = [binary, "say", "--dry-run", "--pack", stub, "--language", tag, "--phrasing", phrasing,
           "--chime", "none", "--at", f"{minute // 60:02d}:{minute % 60:02d}"]
    if cfg:
        cmd += ["--config", cfg]
    rc, so, se = _run(cmd)
    lines = so.splitlines()
    if rc != 0 or len(lines) < 2 or not lines[1].startswith("clips: "):
        raise RuntimeError(f"{' '.join(cmd)} failed: {se.strip() or so.strip()}")
    text = lines[0].split()
    clips = lines[1][len("clips: "):].split()
    if len(text) != len(clips):
        raise RuntimeError(f"{tag} {phrasing} {minute}: phrase {text} and clips {clips} differ in length")
    return (phrasing, minute, bool(cfg), tuple(text), tuple(clips))


def phrases(binary, tag, phrasings, words, work, lead_in, log):
    """Phrases (phrasing, minute, lead_in, display words, clip ids) covering every word."""
    stub = os.path.join(work, "stub-all")
    _stub(stub, tag, phrasings, words)
    cfg = os.path.join(work, "lead-in.toml")
    jobs = [(p, m, None) for p in phrasings for m in _minutes_first()]
    if lead_in:
        # Every quarter hour with the lead-in too: there an hour word at the start ("three
        # o'clock") stands inside a sentence ("it's three o'clock"), not after silence.
        jobs += [(phrasings[0], m, cfg) for m in range(0, 1440, 15)]
    rest = [(p, m, None) for p in phrasings for m in range(1440)
            if m not in set(_minutes_first())]
    got = []

    def ask(batch):
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
            return list(ex.map(lambda j: _dry_run(binary, stub, tag, j[0], j[1], j[2]), batch))

    log(f"{tag}: asking the binary for {len(jobs)} phrases")
    got += ask(jobs)
    missing = set(words) - {c for g in got for c in g[4]}
    if missing:
        log(f"{tag}: {len(missing)} words not yet seen ({sorted(missing)}); asking every minute")
        got += ask(rest)
        missing = set(words) - {c for g in got for c in g[4]}
        if missing:
            raise RuntimeError(f"{tag}: no phrase uses {sorted(missing)}")
    return got


def carriers(got, words):
    """For each word, candidate (phrase, index) pairs, best first.

    Only phrases of the language's default phrasing (the first asked) are used for a word that
    phrasing says; the other phrasings' words come from their own phrases.
    A word is taken from a phrase where it stands where it mostly stands: at the end (falling
    pitch) or inside (counted over the phrases without a lead-in); a lead-in word comes from a
    phrase with the lead-in, any other word from either.  Among those, a word inside a phrase is
    preferred to the first word (which starts from silence), then the shorter phrase, then the
    earlier one (quarter hours first).
    """
    uses = {w: [] for w in words}
    for order, (phrasing, minute, led, text, clips) in enumerate(got):
        for i, c in enumerate(clips):
            if c in uses:
                uses[c].append((order, led, i, len(clips)))
    out = {}
    first = got[0][0] if got else None
    for w in words:
        u = uses[w]
        led_only = all(x[1] for x in u)
        pool = [x for x in u if x[1] or not led_only]
        # The language's default phrasing (asked first) decides, where it uses the word.
        if any(got[x[0]][0] == first for x in pool):
            pool = [x for x in pool if got[x[0]][0] == first]
        plain = [x for x in pool if not x[1]] or pool
        finals = sum(1 for x in plain if x[2] == x[3] - 1)
        want_final = finals * 2 > len(plain)
        def key(x):
            is_final = x[2] == x[3] - 1
            return (is_final != want_final, x[2] == 0 and x[3] > 1, x[3], x[0])
        out[w] = [(got[x[0]], x[2]) for x in sorted(pool, key=key)]
    return out


def unit_carriers(got, units, first_phrasing=None):
    """For each unit (a tuple of clip ids said together, e.g. ("deux", "heures")), candidate
    (phrase, (first, last)) pairs, best first, chosen as `carriers` chooses for a word."""
    out = {}
    first = first_phrasing or (got[0][0] if got else None)
    for unit in units:
        n = len(unit)
        u = []
        for order, (phrasing, minute, led, text, clips) in enumerate(got):
            for i in range(len(clips) - n + 1):
                if tuple(clips[i:i + n]) == unit:
                    u.append((order, led, i, len(clips)))
        if not u:
            continue
        if any(got[x[0]][0] == first for x in u):
            u = [x for x in u if got[x[0]][0] == first]
        plain = [x for x in u if not x[1]] or u
        finals = sum(1 for x in plain if x[2] + n == x[3])
        want_final = finals * 2 > len(plain)

        def key(x):
            return ((x[2] + n == x[3]) != want_final, x[2] == 0 and x[3] > n, x[1], x[3], x[0])
        out[" ".join(unit)] = [(got[x[0]], (x[2], x[2] + n - 1)) for x in sorted(u, key=key)]
    return out


def display_map(got):
    """{clip id of one word: the word as the phrase spells it} from the phrases asked of the
    binary (the grammar's ids are lower case and without apostrophes: "uhr" is "Uhr", "oclock"
    "o'clock", "am" "AM")."""
    out = {}
    for _, _, _, text, ids in got:
        for w, c in zip(text, ids):
            out.setdefault(c, w)
    return out


def every_minute(binary, tag, phrasing, display):
    """{minute: (display words, clip ids of each word)} of every minute of a phrasing, from one
    `talking-clock words --phrases` run."""
    rc, so, se = _run([binary, "words", "--language", tag, "--phrasing", phrasing, "--phrases"])
    if rc != 0:
        raise RuntimeError(f"talking-clock words --language {tag} --phrasing {phrasing} --phrases: {se.strip()}")
    out = {}
    for line in so.splitlines():
        hm, _, words = line.partition("\t")
        h, m = hm.split(":")
        ids = words.split()
        out[int(h) * 60 + int(m)] = (tuple(display.get(c, c) for c in ids), tuple(ids))
    if len(out) != 1440:
        raise RuntimeError(f"talking-clock words --phrases gave {len(out)} minutes for {tag} {phrasing}")
    return out


def sayings(binary, tag, phrasings, work, lead_in, log):
    """Every phrase the clock says in the language, spelled as spoken: ({phrasing: {minute:
    (display words, clip ids)}}, [(display words, clip ids)] of the quarter hours with the
    lead-in). The clip ids come from `talking-clock words --phrases` (one run per phrasing); the
    spelling of each word ("Uhr" for "uhr", "o'clock", "AM") from `say --dry-run` of as few
    minutes as show every word."""
    ids = {}
    for p in phrasings:
        rc, so, se = _run([binary, "words", "--language", tag, "--phrasing", p, "--phrases"])
        if rc != 0:
            raise RuntimeError(f"talking-clock words --language {tag} --phrasing {p} --phrases: {se.strip()}")
        ids[p] = {}
        for line in so.splitlines():
            hm, _, words = line.partition("\t")
            h, m = hm.split(":")
            ids[p][int(h) * 60 + int(m)] = tuple(words.split())
    led = {}
    if lead_in:
        rc, so, se = _run([binary, "words", "--language", tag, "--phrasing", phrasings[0], "--lead-in",
                           LEAD_IN, "--phrases"])
        for line in so.splitlines():
            hm, _, words = line.partition("\t")
            h, m = hm.split(":")
            if int(m) % 15 == 0:
                led[int(h) * 60 + int(m)] = tuple(words.split())
    # As few dry runs as show every word: quarter hours first, then any minute with a new word.
    need = {c for p in phrasings for v in ids[p].values() for c in v} | {c for v in led.values() for c in v}
    asks = []
    for p in phrasings:
        for m in sorted(ids[p], key=lambda m: (m % 15 != 0, m)):
            new = set(ids[p][m]) & need
            if new:
                asks.append((p, m, None))
                need -= new
    for m in sorted(led):
        new = set(led[m]) & need
        if new or not any(a[2] for a in asks):
            asks.append((phrasings[0], m, os.path.join(work, "lead-in.toml")))
            need -= new
    stub = os.path.join(work, "stub-all")
    _stub(stub, tag, phrasings, sorted({c for p in phrasings for v in ids[p].values() for c in v}
                                       | {c for v in led.values() for c in v}))
    log(f"{tag}: {len(asks)} dry runs for the spelling of {len({c for p in phrasings for v in ids[p].values() for c in v})} words")
    display = {}
    for p, m, cfg in asks:
        _, _, _, text, clips = _dry_run(binary, stub, tag, p, m, cfg)
        for w, c in zip(text, clips):
            display.setdefault(c, w)
    minutes = {p: {m: (tuple(display.get(c, c) for c in v), v) for m, v in ids[p].items()} for p in phrasings}
    lead = [(tuple(display.get(c, c) for c in v), v) for m, v in sorted(led.items())]
    return minutes, lead


_DV_NOTE = re.compile(r"cannot say \d+ of \d+ (?:dates of a leap year|values in (\S+)) \([^)]*\); "
                      r"missing words: (.*?)\. Add a clip")


def date_value_words(binary, tag, phrasings, words, work, variants=()):
    """The words only dates and values say in `tag` and its regional `variants` (those a pack of the
    time's `words` lacks, in the order `check`'s notes list them), and the units values are said in."""
    stub = os.path.join(work, "stub-time")
    _stub(stub, tag, phrasings, words)
    new, units = [], []
    for language in (tag,) + tuple(variants):
        rc, so, se = _run([binary, "check", "--pack", stub, "--language", language, "--device", "null",
                           "--chime", "none"])
        for m in _DV_NOTE.finditer(so + se):
            if m.group(1) and m.group(1) not in units:
                units.append(m.group(1))
            for w in m.group(2).split(", "):
                if w not in new and w not in words:
                    new.append(w)
    return new, units


def date_value_phrases(binary, tag, phrasings, words, new, units, work, log, variants=()):
    """[(display words, clip ids)] of every date of the leap year 2024 and every value -99 ... 150
    in each of `units`, in `tag` (its own dates first, then its values), then in each regional
    variant (de-AT "Jänner", es-419 "primero de enero"), from `say --dry-run` with a stub pack that
    holds the time's `words` and the `new` ones. A date's comma is left out of its display words:
    the clock plays a date's words with no pause, so its words are cut from sentences said
    without one."""
    import datetime
    full = os.path.join(work, "stub-dates-values")
    _stub(full, tag, phrasings, list(words) + list(new))
    first = datetime.date(2024, 1, 1)
    dates = [["--date", (first + datetime.timedelta(days=n)).isoformat()] for n in range(366)]
    values = [["--value", str(v), "--unit", u] for u in units for v in range(-99, 151)]
    asks = [(tag, a) for a in dates + values] + [(v, a) for v in variants for a in dates + values]

    def ask(job):
        language, extra = job
        cmd = [binary, "say", "--dry-run", "--pack", full, "--language", language] + extra
        rc, so, se = _run(cmd)
        lines = so.splitlines()
        if rc != 0 or len(lines) < 2 or not lines[1].startswith("clips: "):
            raise RuntimeError(f"{' '.join(cmd)} failed: {se.strip() or so.strip()}")
        text = tuple(w.rstrip(",") for w in lines[0].split())
        clips = tuple(lines[1][len("clips: "):].split())
        if len(text) != len(clips):
            raise RuntimeError(f"{' '.join(extra)}: phrase {text} and clips {clips} differ in length")
        return text, clips

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        said = list(pool.map(ask, asks))
    log(f"{tag}: {len(new)} words only dates and values say, in {len(said)} phrases "
        f"(366 dates, values in {', '.join(units)}; {', '.join((tag,) + tuple(variants))})")
    return said
