"""Self-test exercises and an answer checker.

Each exercise computes its expected answer with the library (never a typed
literal) and a worked solution.  ``check(exercise_id, value)`` says whether a
reader's number is right within the exercise's stated tolerance.

>>> from infra_calc import exercises
>>> exercises.check("j07-1", 34.3).correct
True

A reader's text may carry a unit; it is converted to the exercise's unit
(:data:`infra_calc.display.UNIT_SCALES`), and a wrong answer gets a hint, not
the answer:

>>> exercises.check_text("j07-1", "0.0343 s").correct
True
>>> print(exercises.check_text("j07-1", "34300").hint)
Check your units: your number is 1,000× the answer's. The answer is in ms.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Exercise", "Choice", "CheckResult", "EXERCISES", "register", "get", "expected",
           "check", "check_text", "check_choice", "parse_answer", "hint_for", "exercise_ids"]

EXERCISES: dict = {}


@dataclass(frozen=True)
class Choice:
    """A part of an exercise answered by picking one option (yes/no, compute/bandwidth ...).

    Parameters
    ----------
    prompt : str
        The part's question, e.g. ``"Is 10 ms per token reachable?"``.
    answer : callable
        ``answer() -> str``: the right option, computed.
    options : tuple of str
        What the reader picks from; ``("yes", "no")`` by default.
    why : str
        One sentence shown with a right or a revealed answer.
    """

    prompt: str
    answer: Callable[[], str]
    options: tuple = ("yes", "no")
    why: str = ""


def yes_no(prompt: str, answer: Callable[[], bool], why: str = "") -> Choice:
    """A yes/no part whose answer is computed as a bool."""
    return Choice(prompt, lambda: "yes" if answer() else "no", ("yes", "no"), why)


@dataclass(frozen=True)
class Exercise:
    """One exercise.

    Parameters
    ----------
    id : str
        ``"<chapter>-<n>"``, e.g. ``"j07-1"``; new (non-source) ones ``"j07-n1"``.
    question : str
        The question as the book states it.
    unit : str
        Unit the answer is given in (``"ms"``, ``"FLOP/byte"``, ``"requests"`` ...).
    answer : callable
        ``answer() -> float``: the expected value, in ``unit``, computed.
    solution : callable
        ``solution() -> str``: the worked steps, with computed numbers.
    rel_tol, abs_tol : float
        A reply is right when ``|value - expected| <= max(rel_tol·|expected|, abs_tol)``.
    source_answer : float, optional
        The answer the source chapter states (rounded), for source questions.
    hints : tuple of str
        Hints about the method, shown one per wrong attempt after the generic
        one (direction, order of magnitude, units); never the answer itself.
    parts : tuple of Choice
        Yes/no (or pick-one) parts of the question, each with its own control.
    digits : int
        Decimals the answer is shown with once the reader asks for it.
    title : str, optional
        What a reader sees as the exercise's name (``"Exercise 2.1"``); ``id`` by default.
    """

    id: str
    question: str
    unit: str
    answer: Callable[[], float]
    solution: Callable[[], str]
    rel_tol: float = 0.01
    abs_tol: float = 0.0
    source_answer: float | None = None
    hints: tuple = field(default=())
    parts: tuple = field(default=())
    digits: int | None = None
    title: str | None = None

    @property
    def chapter(self) -> str:
        return self.id.split("-")[0]

    @property
    def tolerance_text(self) -> str:
        parts = []
        if self.rel_tol:
            parts.append(f"±{self.rel_tol * 100:g}%")
        if self.abs_tol:
            parts.append(f"±{self.abs_tol:g} {self.unit}")
        return " or ".join(parts) if parts else "exact"


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :func:`check`.

    ``message`` never contains the expected value when the answer is wrong:
    ``hint`` coaches instead, and ``answer_text`` / ``solution`` are there for a
    reader who asks for them.
    """

    exercise_id: str
    value: float
    expected: float
    unit: str
    correct: bool
    tolerance: str
    solution: str
    hint: str = ""
    answer_text: str = ""

    @property
    def message(self) -> str:
        if self.correct:
            if self.tolerance == "exact":
                return f"Right: {self.answer_text}."
            return (f"Right: you gave {_fmt(self.value)} {self.unit}, within {self.tolerance} "
                    f"of the answer ({self.answer_text}).")
        return f"Not yet: you gave {_fmt(self.value)} {self.unit}. {self.hint}".rstrip()

    def __str__(self) -> str:
        return self.message


def tflops(hw) -> str:
    """Dense peak of a catalog accelerator as question text, e.g. ``'989.4'`` (TFLOP/s)."""
    from ..hardware import resolve_hw

    return f"{resolve_hw(hw).peak_flops / 1e12:,g}"


def tbs(hw) -> str:
    """Memory bandwidth of a catalog accelerator as question text, e.g. ``'3.35'`` (TB/s)."""
    from ..hardware import resolve_hw

    return f"{resolve_hw(hw).mem_bandwidth / 1e12:g}"


def register(ex: Exercise) -> Exercise:
    """Add an exercise to the registry (ids must be unique)."""
    if ex.id in EXERCISES:
        raise ValueError(f"exercise id {ex.id!r} is already registered")
    EXERCISES[ex.id] = ex
    return ex


def _load():
    from . import ch3, j07, j13  # noqa: F401  (modules register on import)


def exercise_ids(chapter: str | None = None) -> list[str]:
    """Registered ids, optionally only one chapter's (``"j07"``, ``"j13"``)."""
    _load()
    return [k for k, ex in EXERCISES.items() if chapter is None or ex.chapter == chapter]


def get(exercise_id: str) -> Exercise:
    """Look up an exercise; the error lists the known ids."""
    _load()
    if not isinstance(exercise_id, str):
        raise TypeError(f"exercise_id must be a string such as 'j07-1', got {exercise_id!r}")
    try:
        return EXERCISES[exercise_id.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown exercise {exercise_id!r}; known: {', '.join(EXERCISES)}") from None


def expected(exercise_id: str) -> float:
    """The computed answer of an exercise, in its unit."""
    return float(get(exercise_id).answer())


# ---------------------------------------------------------------- units and hints
_DIMENSIONS = (
    ("time", ("s", "ms", "µs", "us", "ns")),
    ("bytes", ("B", "bytes", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB")),
    ("work", ("FLOP", "FLOPs", "kFLOP", "MFLOP", "MFLOPs", "GFLOP", "GFLOPs", "TFLOP",
              "TFLOPs", "PFLOP")),
    ("compute rate", ("FLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s")),
    ("bandwidth", ("B/s", "GB/s", "TB/s", "GiB/s")),
)
# unit words a reader may type for a count answer, per answer unit
_COUNT_WORDS = {
    "requests": ("requests", "request", "req"), "rows": ("rows", "row"),
    "tokens/s": ("tokens/s", "token/s", "tok/s"), "×": ("×", "x"),
    "FLOP/byte": ("FLOP/byte", "FLOP/B", "flop/byte", "FLOPs/byte"),
}


def _dimension(unit: str) -> str | None:
    for name, units in _DIMENSIONS:
        if unit in units:
            return name
    return None


def _fmt(x: float) -> str:
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e6 or ax < 1:
        return f"{x:.4g}"
    digits = max(0, 4 - len(str(int(ax))))
    text = f"{x:,.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _answer_text(ex: Exercise, value: float) -> str:
    if ex.digits is not None:
        num = f"{value:,.{ex.digits}f}"
    elif float(value).is_integer():
        num = f"{value:,.0f}"
    else:
        num = _fmt(value)
    return f"{num}{ex.unit}" if ex.unit in ("×", "%") else f"{num} {ex.unit}"


_NUMBER = re.compile(r"^\s*([-+−]?(?:\d[\d,_ ]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")


def parse_answer(text, unit: str) -> float:
    """A reader's answer as a number in ``unit``.

    ``text`` may be a number or a string with an optional unit:
    ``"34.3"``, ``"34.3 ms"``, ``"0.0343 s"``, ``"4,096 rows"``, ``"3.5e-2 s"``.
    A unit of the same kind (time, bytes, FLOPs, rates) is converted with
    :data:`infra_calc.display.UNIT_SCALES`.

    Raises
    ------
    ValueError
        Empty text, no number, an unknown unit, or a unit of another kind; the
        message says what was expected.
    """
    from ..display import UNIT_SCALES

    if isinstance(text, bool):
        raise ValueError(f"give a number in {unit}, not {text!r}")
    if isinstance(text, (int, float)):
        value, given = float(text), ""
    else:
        text = str(text).strip()
        if not text:
            raise ValueError(f"type a number, in {unit}")
        m = _NUMBER.match(text.replace("\u00a0", " "))
        if not m:
            raise ValueError(f"{text!r} is not a number; type e.g. 12.5 or 12.5 {unit}")
        num = m.group(1).replace(",", "").replace("_", "").replace(" ", "").replace("−", "-")
        try:
            value = float(num)
        except ValueError:
            raise ValueError(f"{text!r} is not a number; type e.g. 12.5 or 12.5 {unit}") from None
        given = m.group(2)
    if not math.isfinite(value):
        raise ValueError(f"give a finite number, in {unit}")
    if not given or given == unit or given in _COUNT_WORDS.get(unit, ()):
        return value
    want_dim = _dimension(unit)
    got = {k.lower(): k for k in UNIT_SCALES}.get(given.lower()) if given not in UNIT_SCALES \
        else given
    if got is None and given.lower() in ("sec", "secs", "second", "seconds"):
        got = "s"
    if got is None or _dimension(got) is None or want_dim is None:
        raise ValueError(f"unknown unit {given!r}: give the answer in {unit}")
    if _dimension(got) != want_dim:
        raise ValueError(f"{given} is a unit of {_dimension(got)}; the answer is a "
                         f"{want_dim}, in {unit}")
    return value * UNIT_SCALES[got] / UNIT_SCALES[unit]


# factor -> what it usually means
_UNIT_SLIPS = ((1e3, "1,000×"), (1e6, "1,000,000×"), (1e9, "10⁹×"), (1e12, "10¹²×"),
               (2.0**30 / 1e9, "GiB/GB = 1.074×"), (2.0**20 / 1e6, "MiB/MB = 1.049×"),
               (1024.0, "1,024×"), (2.0**20, "2²⁰×"), (2.0**30, "2³⁰×"))


def hint_for(ex: Exercise, value: float, attempt: int = 1) -> str:
    """A hint for a wrong ``value`` (in ``ex.unit``): units, direction, magnitude.

    Never states the expected value.  ``attempt`` (1, 2, ...) adds the
    exercise's own hints one by one.
    """
    exp = float(ex.answer())
    tips = []
    if value == 0 or exp == 0 or (value > 0) != (exp > 0):
        tips.append("Check the sign and the size: the answer is "
                    + ("positive." if exp > 0 else "zero." if exp == 0 else "negative."))
    else:
        ratio = value / exp
        slip = None
        binary_ok = _dimension(ex.unit) in ("bytes", "bandwidth")
        for factor, name in _UNIT_SLIPS:
            if not binary_ok and ("i" in name or "2" in name or "1,024" in name):
                continue
            for r, side in ((ratio, "your number is"), (1 / ratio, "the answer is")):
                if abs(r / factor - 1) <= max(2 * ex.rel_tol, 0.002) and factor > 1.01:
                    slip = (f"Check your units: {side} {name.split(' = ')[-1]} "
                            + ("the answer's" if side == "your number is" else "yours")
                            + (" (GB = 10⁹ bytes, GiB = 2³⁰ bytes)." if "GiB" in name
                               else " (MB = 10⁶ bytes, MiB = 2²⁰ bytes)." if "MiB" in name
                               else "."))
                    break
            if slip:
                break
        if slip:  # the method is likely right: no hint about it
            return slip + f" The answer is in {ex.unit}."
        else:
            mag = math.log10(abs(ratio))
            if abs(mag) >= 1:
                tips.append(f"Off by about {10 ** round(abs(mag)):,.0f}× (too "
                            f"{'high' if ratio > 1 else 'low'}): recheck the scale of each "
                            f"input (k, M, G, T) and that the answer is in {ex.unit}.")
            else:
                pct = abs(ratio - 1) * 100
                size = "a little" if pct < 10 else "clearly" if pct < 50 else "far"
                tips.append(f"{size.capitalize()} too {'high' if ratio > 1 else 'low'}"
                            + (f" (by about {pct:.0f}%)." if pct >= 2 else "."))
    tips.extend(ex.hints[: max(0, attempt - 1)] if attempt > 1 else ex.hints[:1])
    return " ".join(tips)


def check_text(exercise_id: str, text, attempt: int = 1) -> CheckResult:
    """Like :func:`check`, for what a reader typed: ``"34.3"``, ``"34.3 ms"``, ``"0.0343 s"``.

    Raises ``ValueError`` (with a message meant for the reader) when the text is
    not a number or carries a unit of another kind.
    """
    ex = get(exercise_id)
    return check(ex.id, parse_answer(text, ex.unit), attempt=attempt)


def check_choice(exercise_id: str, part: int, picked: str) -> tuple[bool, str]:
    """Grade a yes/no (pick-one) part: ``(correct, message)``; a wrong pick gets no reason."""
    ex = get(exercise_id)
    ch = ex.parts[part]
    if picked not in ch.options:
        raise ValueError(f"pick one of {', '.join(ch.options)}, got {picked!r}")
    right = ch.answer()
    if picked == right:
        return True, f"Right: {picked}." + (f" {ch.why}" if ch.why else "")
    return False, f"Not {picked}: compare the numbers again (work out the number part first)."


def check(exercise_id: str, value, attempt: int = 1) -> CheckResult:
    """Check a reader's answer.

    Parameters
    ----------
    exercise_id : str
    value : float
        The reader's answer, in the exercise's unit.

    Returns
    -------
    CheckResult
        ``correct``, the expected value, the tolerance and the worked solution.
    """
    ex = get(exercise_id)
    if isinstance(value, bool) or not isinstance(value, (int, float)) and \
            type(value).__module__ != "numpy":
        raise TypeError(f"value ({ex.unit}) must be a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"value ({ex.unit}) must be a finite number, got {value}")
    exp = float(ex.answer())
    ok = abs(value - exp) <= max(ex.rel_tol * abs(exp), ex.abs_tol)
    return CheckResult(ex.id, value, exp, ex.unit, ok, ex.tolerance_text, ex.solution(),
                       "" if ok else hint_for(ex, value, attempt), _answer_text(ex, exp))
