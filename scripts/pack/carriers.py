"""Clip ids and the carrier phrases each voice clip is cut from.

A carrier is a whole sentence in which the wanted word sits in the position
the player will use it.  Markup: ``{clip-id=words}`` marks the token(s) that
become clip ``clip-id``; everything else is context.  Tokens are separated by
single spaces, and every engine must report timings per such token.
"""

import re

ONES = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
         "sixteen", "seventeen", "eighteen", "nineteen"]
TENS = ["twenty", "thirty", "forty", "fifty"]

HOUR_WORDS = ONES + ["ten", "eleven", "twelve"]               # 1-12
MINUTE_ONLY = TEENS[3:] + TENS + [
    f"{t}-{o}" for t in TENS for o in ONES]                   # 13-19, 20-59

# The words of dates ("Saturday, November twenty-eighth") and values ("sixty-five percent",
# "minus one degree") that the time does not say: en-US's grammar (Sources/PhraseGrammar/
# Languages/en-US.json) asks for exactly these (`talking-clock check` lists what a pack lacks).
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
_ORDINAL_ONES = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                 "ninth"]
ORDINALS = (_ORDINAL_ONES + ["tenth", "eleventh", "twelfth", "thirteenth", "fourteenth",
                             "fifteenth", "sixteenth", "seventeenth", "eighteenth",
                             "nineteenth", "twentieth"]
            + [f"twenty-{o}" for o in _ORDINAL_ONES] + ["thirtieth", "thirty-first"])
VALUE_TENS = ["sixty", "seventy", "eighty", "ninety"]
VALUE_ONLY = [w for t in VALUE_TENS for w in [t] + [f"{t}-{o}" for o in ONES]]  # 60-99
UNIT_WORDS = ["minus", "degree", "degrees", "percent"]


def voice_clip_ids():
    """All voice clip ids the manifest must contain, in manifest order."""
    ids = ["zero", "oh"] + ONES + TEENS
    for t in TENS:
        ids.append(t)
        ids.extend(f"{t}-{o}" for o in ONES)
    ids += ["am", "pm", "noon", "midnight", "oclock", "hundred",
            "its", "the-time-is"]
    # The words of the casual phrasing ("quarter after three", "half past three",
    # "twenty-five to four", "one minute to four"; "to" from "twenty-five to four":
    # cut after "ten" it was peak-capped 1.9 dB below the other words).
    ids += ["quarter", "after", "half", "past", "to", "minute", "minutes"]
    # Dates and values (say --date, say --value, a reminder's {date} and {value}).
    ids += WEEKDAYS + MONTHS + ORDINALS + VALUE_ONLY + UNIT_WORDS
    return ids


def _minute_context_hour(minute_word):
    """Hour word spoken before a minute in its carrier.

    "ten" (ends in /n/) before minutes that start with a consonant other
    than /n/; "six" (ends in /s/) before vowel- or n-initial minutes
    (eighteen, nineteen), so the boundary is never a vowel glide or a
    doubled nasal that the cut would smear.
    """
    return "six" if minute_word[0] in "aeiou" or minute_word.startswith("n") else "ten"


def carrier_phrases():
    """List of carrier sentences with markup; each voice clip id once."""
    c = []
    # Hours 1-12 from the hour position, in "It's N o'clock.": the hour then
    # runs into a vowel, and cut there it chains cleanly before both vowels
    # ("two oh five", "two eighteen") and consonants.  Cut before a
    # consonant ("It's two fifteen") "two" came out clipped and a speech
    # recogniser heard "two oh five" as "ten oh five".  "It's" and
    # "o'clock" come from two of these phrases.
    for h in HOUR_WORDS:
        its = "{its=It's}" if h == "three" else "It's"
        oclock = "{oclock=o'clock}." if h == "six" else "o'clock."
        c.append(f"{its} {{{h}={h}}} {oclock}")
    # The prefix "the time is", from the start of a phrase.
    c.append("{the-time-is=The time is} four fifteen P.M.")
    # Minutes 13-59 (also used for 24-hour hours 13-23) from the minute
    # position, between an hour and "P.M.".
    # "p.m." comes from the end of one of them, after an /s/-final minute.
    for m in MINUTE_ONLY:
        h = _minute_context_hour(m)
        pm = "{pm=P.M.}" if m == "thirty-six" else "P.M."
        c.append(f"It's {h} {{{m}={m}}} {pm}")
    # "oh" between an hour and a single-digit minute.
    c.append("It's six {oh=oh} five P.M.")
    # "a.m." at the end of the same phrase as "p.m.".
    c.append("It's ten thirty-six {am=A.M.}")
    c.append("It's {noon=noon}.")
    c.append("It's {midnight=midnight}.")
    # 24-hour words: "fifteen hundred", "zero hundred".
    c.append("It's fifteen {hundred=hundred}.")
    c.append("It's {zero=zero} hundred.")
    # Casual phrasing, each word where that phrasing puts it: "quarter" and "half" after
    # "it's" (the lead-in) and before their preposition, the prepositions before an hour,
    # "minute(s)" after a number.
    c.append("It's {quarter=quarter} {after=after} three.")
    c.append("It's {half=half} {past=past} three.")
    c.append("It's twenty-five {to=to} four.")
    c.append("It's one {minute=minute} to four.")
    c.append("It's two {minutes=minutes} after three.")
    # Dates, each word where the date puts it: the weekday first, the month after a weekday,
    # the day's ordinal last. The clock plays a date's words with no pause (the comma is only
    # written), so the carriers have none either: cut after a comma the weekday fell in pitch
    # like the end of a sentence. An ordinal follows "June" (ends in /n/) or, when it starts with
    # a vowel or /n/, "March", as the minutes follow "ten" or "six".
    for d in WEEKDAYS:
        c.append(f"{{{d}={d.capitalize()}}} June tenth.")
    for m in MONTHS:
        c.append(f"Saturday {{{m}={m.capitalize()}}} tenth.")
    for o in ORDINALS:
        month = "March" if o[0] in "aeiou" or o.startswith("n") else "June"
        c.append(f"Saturday {month} {{{o}={o}}}.")
    return c + _value_carriers()


def _value_carriers():
    """Values 60-99 from the minutes' own position (20-59 are the minutes' clips: "twenty-one
    degrees" and "twenty-one P.M." share "twenty-one"), the units after a number ending in a stop
    (after "one" the clip began with its /n/: "sixty [n]degrees" was heard "sixteen degrees"),
    "minus" first."""
    c = [f"It's {_minute_context_hour(v)} {{{v}={v}}} P.M." for v in VALUE_ONLY]
    c.append("It's eight {degrees=degrees}.")
    c.append("It's eight {degree=degree}.")
    c.append("It's sixty-five {percent=percent}.")
    c.append("{minus=Minus} five degrees.")
    return c


_MARK = re.compile(r"\{([a-z-]+)=([^}]*)\}")


def parse_carrier(markup):
    """Return (plain_text, tokens, {clip_id: (first_token, last_token)})."""
    spans = {}
    out = []
    pos = 0
    ntok = 0
    for m in _MARK.finditer(markup):
        before = markup[pos:m.start()]
        out.append(before)
        ntok += len(before.split())
        words = m.group(2).split()
        spans[m.group(1)] = (ntok, ntok + len(words) - 1)
        ntok += len(words)
        out.append(m.group(2))
        pos = m.end()
    out.append(markup[pos:])
    text = "".join(out)
    tokens = text.split()
    # A marked span must be made of whole tokens.
    for cid, (a, b) in spans.items():
        if b >= len(tokens):
            raise ValueError(f"bad span for {cid} in {markup!r}")
    return text, tokens, spans


def check_coverage():
    got = {}
    for c in carrier_phrases():
        _, _, spans = parse_carrier(c)
        for cid in spans:
            if cid in got:
                raise ValueError(f"clip {cid} in two carriers")
            got[cid] = c
    want = set(voice_clip_ids())
    if set(got) != want:
        raise ValueError(f"carrier coverage mismatch: missing {sorted(want - set(got))}, "
                         f"extra {sorted(set(got) - want)}")
    return got


def en_gb_date_value_ids():
    """The words en-GB's dates and values say that its time does not, in manifest order: "Friday,
    the first of March", "one hundred and one percent"."""
    return WEEKDAYS + ["the"] + ORDINALS + ["of"] + MONTHS + VALUE_ONLY + UNIT_WORDS + ["and"]


def en_gb_date_value_carriers():
    """Carrier sentences for en_gb_date_value_ids, each word where en-GB says it: the weekday
    first, "the" and the ordinal after it, "of" before the month, the month last (no comma: the
    clock plays none); values as for en-US, "and" between "hundred" and a number."""
    c = []
    for d in WEEKDAYS:
        c.append(f"{{{d}={d.capitalize()}}} the tenth of June.")
    c.append("Saturday {the=the} tenth of June.")
    for o in ORDINALS:
        c.append(f"Saturday the {{{o}={o}}} of June.")
    c.append("Saturday the tenth {of=of} June.")
    for m in MONTHS:
        c.append(f"Saturday the tenth of {{{m}={m.capitalize()}}}.")
    return c + _value_carriers() + ["One hundred {and=and} five degrees."]
