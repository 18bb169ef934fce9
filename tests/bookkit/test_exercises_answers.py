"""bookkit/exercises/answers.py: a reader's text as a number in the exercise's unit."""
import pytest

from bookkit.exercises.answers import answer_text, parse_answer, unit_kind
from infra_calc.units import UNIT_SCALES


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
])
def test_parses_and_converts(text, unit, value):
    assert parse_answer(text, unit) == pytest.approx(value, rel=1e-12)


def test_every_unit_of_the_library_table_converts_by_its_scale():
    """The scales are the library's one unit table (infra_calc.units.UNIT_SCALES)."""
    by_kind: dict[str, list[str]] = {}
    for u in UNIT_SCALES:
        if unit_kind(u):
            by_kind.setdefault(unit_kind(u), []).append(u)
    assert set(by_kind) == {"time", "bytes", "work", "compute rate", "bandwidth"}
    for units in by_kind.values():
        for a in units:
            for b in units:
                assert parse_answer(f"1 {a}", b) == pytest.approx(UNIT_SCALES[a] / UNIT_SCALES[b])


@pytest.mark.parametrize("unit, kind", [("ms", "time"), ("s", "time"), ("ns", "time"),
                                        ("GiB", "bytes"), ("bytes", "bytes"), ("kFLOP", "work"),
                                        ("TFLOP/s", "compute rate"), ("GiB/s", "bandwidth"),
                                        ("tokens/s", None), ("requests", None), ("×", None),
                                        ("FLOP/byte", None), ("nonsense", None)])
def test_unit_kind_from_prefix_and_base(unit, kind):
    assert unit_kind(unit) == kind


@pytest.mark.parametrize("text, unit, message", [
    ("", "ms", "type a number, in ms"), ("abc", "ms", "is not a number"),
    ("34.3 GB", "ms", "GB is a unit of bytes; the answer is a time, in ms"),
    ("34.3 furlongs", "ms", "unknown unit 'furlongs'"),
    ("4 rows", "requests", "unknown unit 'rows'"),
    ("4 ms", "requests", "ms is a unit of time; give the answer in requests"),
    ("inf", "ms", "is not a number"), (float("nan"), "ms", "finite"), (True, "ms", "not True"),
])
def test_bad_text_gets_a_message_for_the_reader(text, unit, message):
    with pytest.raises(ValueError, match=message):
        parse_answer(text, unit)


def test_answer_text_and_numbers():
    assert answer_text(34.330554, "ms") == "34.33 ms" and answer_text(4.0, "requests") == "4 requests"
    assert answer_text(2.5, "×") == "2.5×" and answer_text(4096.0, "rows") == "4,096 rows"
    assert answer_text(1.23e-7, "ms") == "1.23e-07 ms" and answer_text(450.5, "ms") == "450.5 ms"
