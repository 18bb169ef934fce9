"""Hints for a wrong answer: they coach, they never tell.

A hint says the direction and a coarse size of the miss, in words ("a little
too high", "clearly too low", "far too high", "about 100× too low"), then the
exercise's own hints, one more per attempt.  It never states a figure from
which the answer could be backed out (no percentages, no ratios), with one
exception: a unit slip, where the reader's digits are already right and the
hint names the slip ("your number is 1,000× the answer's").  A miss by a power
of ten that is not a unit slip is named without its factor.

For an answer that is the largest whole number that fits (``side="at_most"``), a
reply above it is told that it does not fit, however close it is.

Coarse sizes, with ``f = max(v/a, a/v)`` for the typed value ``v`` and the
answer ``a``: a little (f < 1.1), clearly (f < 1.5), far (f < √10), then
about 10ᵏ× with ``k = round(log10 f)``.
"""
from __future__ import annotations

import math

from infra_calc import units as u

from .answers import unit_kind
from .spec import Exercise

__all__ = ["hint_for", "UNIT_SLIPS", "SIZE_WORDS", "OVER_THE_TOP"]

#: added for a reply above a largest-that-fits answer (``side="at_most"``)
OVER_THE_TOP = " That many do not fit: the answer is the largest whole number that does."

_DECIMAL = ((1e3, "1,000×"), (1e6, "1,000,000×"), (1e9, "10⁹×"), (1e12, "10¹²×"))
#: only for bytes and bandwidths
_BINARY = ((u.GiB / u.GB, "GiB/GB = 1.074×"), (u.MiB / u.MB, "MiB/MB = 1.049×"),
           (u.KiB, "1,024×"), (u.MiB, "2²⁰×"), (u.GiB, "2³⁰×"))
#: factor -> how a hint names it, tried in turn; the binary ones only for bytes and bandwidths
UNIT_SLIPS = _DECIMAL + _BINARY
#: upper bound of f = max(v/a, a/v) -> the word for the size of the miss
SIZE_WORDS = ((1.1, "a little"), (1.5, "clearly"), (10 ** 0.5, "far"))


def _unit_slip(ex: Exercise, ratio: float) -> str | None:
    binary_ok = unit_kind(ex.unit) in ("bytes", "bandwidth")
    for factor, name in UNIT_SLIPS if binary_ok else _DECIMAL:
        for r, side in ((ratio, "your number is"), (1 / ratio, "the answer is")):
            if abs(r / factor - 1) <= max(2 * ex.rel_tol, 0.002):
                whose = "the answer's" if side == "your number is" else "yours"
                why = (" (GB = 10⁹ bytes, GiB = 2³⁰ bytes)" if "GiB" in name
                       else " (MB = 10⁶ bytes, MiB = 2²⁰ bytes)" if "MiB" in name else "")
                return (f"Check your units: {side} {name.split(' = ')[-1]} {whose}{why}. "
                        f"The answer is in {ex.unit}.")
    return None


def _size(ex: Exercise, value: float, exp: float) -> str:
    ratio = value / exp
    side = "high" if ratio > 1 else "low"
    f = max(ratio, 1 / ratio)
    for bound, word in SIZE_WORDS:
        if f < bound:
            return f"{word.capitalize()} too {side}."
    k = round(math.log10(f))
    # value / 10**k (or · 10**k) lands on the answer: name the slip, not its factor
    scaled = value / 10**k if ratio > 1 else value * 10**k
    if abs(scaled - exp) <= 3 * max(ex.rel_tol * abs(exp), ex.abs_tol):
        return (f"Off by a power of ten (too {side}): your digits may be right; recheck the "
                f"scale of each input (k, M, G, T) and that the answer is in {ex.unit}.")
    return (f"About {10 ** k:,}× too {side}: recheck the scale of each input (k, M, G, T) "
            f"and that the answer is in {ex.unit}.")


def hint_for(ex: Exercise, value: float, attempt: int = 1) -> str:
    """A hint for a wrong ``value`` (in ``ex.unit``): direction and a coarse size, or a unit slip.

    Then the first ``attempt`` of the exercise's own hints (attempt 1, 2, ...).
    Never a figure that, with ``value``, gives the answer (except a unit slip).
    """
    exp = ex.expected()
    if value == 0 or exp == 0 or (value > 0) != (exp > 0):
        first = ("Check the sign and the size: the answer is "
                 + ("positive." if exp > 0 else "zero." if exp == 0 else "negative."))
    else:
        slip = _unit_slip(ex, value / exp)
        if slip:  # the method is likely right: no hint about it
            return slip
        first = _size(ex, value, exp)
        if ex.side == "at_most" and value > exp:
            first += OVER_THE_TOP
    return " ".join([first, *ex.hints[: max(1, attempt)]])
