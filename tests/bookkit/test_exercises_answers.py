"""bookkit/exercises/answers.py: a reader's text as a number in the exercise's unit."""
import pytest

from bookkit.exercises.answers import _spelling, answer_text, parse_answer, unit_kind
from infra_calc.units import UNITS


@pytest.mark.parametrize("text, unit, value", [
    ("34.3", "ms", 34.3), ("34.3 ms", "ms", 34.3), ("0.0343 s", "ms", 34.3),
    ("34,330 us", "ms", 34.33), ("34,330 µs", "ms", 34.33), ("3.433e-2 s", "ms", 34.33),
    ("0.01458 s", "ms", 14.58), ("0.5 seconds", "ms", 500), ("−2 ms", "ms", -2),
    ("5.6x", "×", 5.6), ("5.6 ×", "×", 5.6), ("4,096 rows", "rows", 4096),
    ("4 requests", "requests", 4), ("4 request", "requests", 4), ("4 req", "requests", 4),
    ("548 tok/s", "tokens/s", 548), ("62.1 FLOP/B", "FLOP/byte", 62.1),
    ("62.1 flops/byte", "FLOP/byte", 62.1), ("80 GiB", "GB", 80 * 2**30 / 1e9),
    ("92.2 GB", "GB", 92.2), ("0.0922 TB", "GB", 92.2), ("3.35 TB/s", "GB/s", 3350),
    ("1 PFLOP", "TFLOP", 1000), (12, "ms", 12.0), (1.5, "requests", 1.5),
    # units of the table whose kind the old prefix-and-base reading missed
    ("1 KB", "B", 1000), ("0.5 h", "s", 1800), ("0.5 h", "ms", 1.8e6), ("2 years", "h", 17532),
    ("250 μs", "ms", 0.25), ("1.2e−3 s", "ms", 1.2), ("4 TOKENS", "tokens", 4),
])
def test_parses_and_converts(text, unit, value):
    assert parse_answer(text, unit) == pytest.approx(value, rel=1e-12)


def test_every_unit_of_the_library_table_converts_by_its_scale_and_kind():
    """Kind and scale are the library's one unit table (infra_calc.units.UNITS): every unit
    converts into every unit of its kind, and is refused for every other kind."""
    for a, ua in UNITS.items():
        for b, ub in UNITS.items():
            if ua.kind == ub.kind:
                assert parse_answer(f"1 {a}", b) == pytest.approx(ua.scale / ub.scale), (a, b)
            else:
                with pytest.raises(ValueError, match=f"is a unit of {ua.kind}, not {ub.kind}"):
                    parse_answer(f"1 {a}", b)


def test_units_of_one_spelling_are_one_unit():
    """A reader's unit is looked up by its plain spelling: two units spelled alike must be
    the same unit, or a reader's "mb" would pick one at random."""
    for a in UNITS:
        for b in UNITS:
            if _spelling(a) == _spelling(b):
                assert UNITS[a] == UNITS[b], (a, b)


@pytest.mark.parametrize("unit, kind", [("ms", "time"), ("s", "time"), ("ns", "time"),
                                        ("h", "time"), ("years", "time"), ("μs", "time"),
                                        ("µs", "time"), ("KB", "bytes"),
                                        ("GiB", "bytes"), ("bytes", "bytes"), ("kFLOP", "work"),
                                        ("TFLOP/s", "compute rate"), ("GiB/s", "bandwidth"),
                                        ("tokens/s", "rate"), ("requests", "requests"),
                                        ("×", "ratio"), ("FLOP/byte", "intensity"),
                                        ("nonsense", None)])
def test_unit_kind_is_the_table_s(unit, kind):
    assert unit_kind(unit) == kind


@pytest.mark.parametrize("text, unit, message", [
    ("", "ms", "type a number, in ms"), ("abc", "ms", "is not a number"),
    ("34.3 GB", "ms", "GB is a unit of bytes, not time: give the answer in ms"),
    ("34.3 furlongs", "ms", "unknown unit 'furlongs'"),
    ("4 rows", "requests", "rows is a unit of rows, not requests: give the answer in requests"),
    ("4 ms", "requests", "ms is a unit of time, not requests: give the answer in requests"),
    ("0.5 h", "GB", "h is a unit of time, not bytes"), ("50%", "×", "% is a unit of percentage"),
    ("inf", "ms", "is not a number"), (float("nan"), "ms", "finite"), (True, "ms", "not True"),
])
def test_bad_text_gets_a_message_for_the_reader(text, unit, message):
    with pytest.raises(ValueError, match=message):
        parse_answer(text, unit)


def test_answer_text_and_numbers():
    assert answer_text(34.330554, "ms") == "34.33 ms" and answer_text(4.0, "requests") == "4 requests"
    assert answer_text(2.5, "×") == "2.5×" and answer_text(4096.0, "rows") == "4,096 rows"
    assert answer_text(1.23e-7, "ms") == "1.23e−07 ms" and answer_text(450.5, "ms") == "450.5 ms"
    assert answer_text(12_276.0, "tokens") == "12,276 tokens"
    assert answer_text(1_234_567.0, "tokens") == "1,234,567 tokens"   # a whole answer, whole


def test_answer_text_has_the_minus_sign_of_display():
    """The checker's numbers are display's: U+2212, as the prose writes a negative number."""
    assert answer_text(-2.0, "ms") == "−2 ms" and answer_text(-0.25, "×") == "−0.25×"
    assert parse_answer(answer_text(-1.23e-7, "ms").removesuffix(" ms"), "ms") == -1.23e-7
