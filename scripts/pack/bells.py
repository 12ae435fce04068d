"""Synthesised church bells (no recordings): Westminster quarter bells and
the hour bell.

A bell is a sum of exponentially decaying partials at the classic inharmonic
ratios to the strike note; every partial is a pair of sines a little apart in
frequency so it beats (slow "wah"), lower partials ring longest, and a short
bright noisy clang marks the strike.  Everything is deterministic: phases and
noise come from numpy's legacy RandomState with fixed seeds, whose stream is
frozen across numpy versions.
"""

import numpy as np

# (ratio to strike note, amplitude, decay time relative to the hum's, beat Hz,
#  relative amplitude of the beating twin)
PARTIALS = [
    (0.500, 0.55, 1.00, 0.7, 0.45),   # hum
    (1.000, 0.50, 0.72, 1.1, 0.50),   # prime / fundamental
    (1.183, 0.38, 0.52, 1.6, 0.55),   # tierce (minor third: the "bell" colour)
    (1.506, 0.16, 0.40, 2.2, 0.50),   # quint
    (2.000, 0.52, 0.34, 2.6, 0.45),   # nominal (strike pitch is heard here)
    (2.510, 0.20, 0.20, 3.1, 0.50),
    (2.660, 0.17, 0.17, 3.5, 0.50),
    (3.010, 0.15, 0.13, 3.9, 0.50),
    (4.030, 0.11, 0.09, 4.6, 0.50),
]

# Strike clang: high inharmonic partials that die within ~0.1 s.
CLANG = [  # (ratio, amplitude, decay seconds)
    (5.12, 0.10, 0.060),
    (6.37, 0.08, 0.045),
    (7.78, 0.06, 0.035),
    (9.24, 0.05, 0.025),
]

PEAK_DBFS = -3.0
ATTACK_MS = 1.5

# name, strike frequency, length s, hum decay time constant s, fade-out s,
# noise burst level, seed
BELLS = [
    ("bell-gs4", 415.30, 4.5, 1.55, 1.2, 0.30, 4151),
    ("bell-fs4", 369.99, 4.5, 1.65, 1.2, 0.30, 3700),
    ("bell-e4",  329.63, 4.5, 1.75, 1.2, 0.30, 3296),
    ("bell-b3",  246.94, 4.8, 2.00, 1.3, 0.30, 2469),
    # The hour bell: deep, long, struck harder.
    ("bell-e3",  164.81, 9.5, 3.40, 2.5, 0.40, 1648),
]

QUARTER_ORDER = ["bell-gs4", "bell-fs4", "bell-e4", "bell-b3"]
HOUR_BELL = "bell-e3"


def synth_bell(freq, length_s, hum_tau, fade_s, noise_level, seed, rate):
    n = int(round(length_s * rate))
    t = np.arange(n) / rate
    rs = np.random.RandomState(seed)
    x = np.zeros(n)
    for ratio, amp, tau_rel, beat, twin in PARTIALS:
        f = freq * ratio
        if f * 1.05 >= rate / 2:
            continue
        tau = hum_tau * tau_rel
        env = np.exp(-t / tau)
        ph1, ph2 = rs.uniform(0, 2 * np.pi, 2)
        x += amp * env * (np.sin(2 * np.pi * f * t + ph1)
                          + twin * np.sin(2 * np.pi * (f + beat) * t + ph2)) / (1 + twin)
    for ratio, amp, tau in CLANG:
        f = freq * ratio
        if f * 1.05 >= rate / 2:
            continue
        ph = rs.uniform(0, 2 * np.pi)
        x += amp * np.exp(-t / tau) * np.sin(2 * np.pi * f * t + ph)
    # Noisy strike: white noise, brightened by a first difference, ~6 ms decay,
    # only in the first 60 ms.
    m = int(0.06 * rate)
    noise = rs.standard_normal(m + 1)
    noise = np.diff(noise) / 2.0
    x[:m] += noise_level * noise * np.exp(-t[:m] / 0.006)
    # Attack: the strike starts at sample 0 (sample 0 is already non-zero).
    na = max(1, int(round(rate * ATTACK_MS / 1000.0)))
    x[:na] *= np.sin(0.5 * np.pi * (np.arange(na) + 1) / na)
    # Fade to exact silence at the end.
    nf = int(round(fade_s * rate))
    x[n - nf:] *= 0.5 + 0.5 * np.cos(np.pi * np.arange(1, nf + 1) / nf)
    x[-1] = 0.0
    return x * (10 ** (PEAK_DBFS / 20.0) / np.max(np.abs(x)))


def make_bells(rate):
    """Return {bell_id: float array at `rate`}."""
    return {name: synth_bell(f, length, tau, fade, noise, seed, rate)
            for name, f, length, tau, fade, noise, seed in BELLS}
