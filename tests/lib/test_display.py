"""infra_calc.display: numbers as the prose shows them, and no f-string in the package that
scales by hand."""
import ast
import math
import pathlib

import pytest

import infra_calc as ic
from infra_calc.display import PageValues


@pytest.mark.parametrize("value, unit, digits, text", [
    (0.020896, "ms", 2, "20.90 ms"),
    (0.0001415, "ms", 4, "0.1415 ms"),
    (73.73e9, "GB", 2, "73.73 GB"),
    (24 * 2**30, "GiB", 0, "24 GiB"),
    (989.4e12, "TFLOP/s", 1, "989.4 TFLOP/s"),
    (4096, None, 0, "4,096"),
    (0.993, "%", 1, "99.3%"),
    (147.66, "×", 1, "147.7×"),
    (-2.5, None, 1, "−2.5"),
    (float("inf"), None, 1, "∞"),
])
def test_shown_scales_and_formats(value, unit, digits, text):
    s = ic.shown(value, unit, digits)
    assert repr(s) == str(s) == text and s.value == pytest.approx(float(value))


def test_bare_drops_the_unit():
    assert repr(ic.shown(70e9, "GB", 0, bare=True)) == "70"


@pytest.mark.parametrize("kwargs, match", [
    ({"value": 1.0, "unit": "furlongs"}, "unit must be one of"),
    ({"value": 1.0, "digits": -1}, "digits"),
    ({"value": float("nan")}, "NaN"),
])
def test_bad_input_names_the_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ic.shown(**kwargs)


def test_not_a_number():
    with pytest.raises(TypeError, match="value must be a number"):
        ic.shown("twenty", "ms")


def test_page_values_refuse_rebinding():
    v = PageValues()
    v.a = ic.shown(1.0)
    with pytest.raises(AttributeError, match="already set"):
        v.a = ic.shown(2.0)


def test_page_values_show_plain_text_without_quotes():
    v = PageValues()
    v.date = "2026-11-29"
    assert repr(v.date) == "2026-11-29" and v.date == "2026-11-29"


def test_every_number_form_writes_infinity_the_same_way():
    """One rule for ∞: the prose, the tables, the labels and the checker's echo agree."""
    from infra_calc.display import plain_number, round_sig, shown, shown_up, sig

    inf = float("inf")
    forms = [str(shown(inf)), str(shown_up(inf, "ms")), sig(inf), round_sig(inf), plain_number(inf)]
    assert forms == ["∞", "∞ ms", "∞", "∞", "∞"]
    assert [str(shown(-inf)), sig(-inf), round_sig(-inf), plain_number(-inf)] == ["−∞"] * 4


def test_long_times_move_up_a_unit_and_the_unit_is_written_once():
    from infra_calc.display import TIME_UNITS, shown_up, sig

    assert [str(shown_up(t, "ms", 1)) for t in (9.9999, 10.0, 3.599e7, 4e13)] == [
        "9,999.9 ms", "10.0 s", "9,997.2 h", "1,267,523.5 years"]
    assert TIME_UNITS == ("ms", "s", "h", "years")
    assert sig(0.0209, "ms") == "20.90 ms" and sig(0.5, "%") == "50.00%"


# ------------------------------------------------------------- no f-string scales by hand
# CONTRIBUTING.md and this module's docstring say so: text takes the SI value and a unit
# (shown, sig, round_sig, shown_e, ...).  Scaling that is physics (a catalog's GB to bytes)
# is not text and is not looked at.
PACKAGE = pathlib.Path(ic.__file__).parent
UNIT_CONSTANTS = {"KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "MEGA", "GIGA", "TERA",
                  "MS", "US"}

#: "path:line" -> why an f-string there still scales by hand (none left; an entry goes when
#: its line does: the last assert says which are gone).
HAND_SCALED: dict[str, str] = {}


def _is_scale(node) -> bool:
    """A power-of-ten literal (100, 1e3, 1e-6, 10**9) or a unit constant (GB, units.TERA)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool) and abs(node.value) not in (0, 1):
        exponent = math.log10(abs(node.value))
        return abs(exponent - round(exponent)) < 1e-9
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return isinstance(node.left, ast.Constant) and node.left.value == 10
    if isinstance(node, ast.UnaryOp):
        return _is_scale(node.operand)
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return name in UNIT_CONSTANTS


def hand_scalings(source: str) -> list[tuple[int, str]]:
    """(line, expression) of every f-string field whose expression multiplies or divides
    by a scale (:func:`_is_scale`), anywhere inside it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FormattedValue):
            for sub in ast.walk(node.value):
                if isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.Mult, ast.Div)) \
                        and (_is_scale(sub.right) or _is_scale(sub.left)):
                    found.append((node.value.lineno, ast.unparse(node.value)))
                    break
    return found


def test_the_scan_sees_a_hand_scaling_and_nothing_else():
    flagged = hand_scalings('a = f"{t * 1e3:.2f} ms"\nb = f"{x / GB:.1f}"\nc = f"{s * 100:.0f}%"\n'
                            'd = f"{round(n / 10**9)}"\ne = f"{y / units.TERA}"\n'
                            'f = f"{t:.2f} {shown(t, \'ms\')}"\ng = 2 * GiB\nh = f"{a * b} {n // 1024}"\n')
    assert [line for line, _ in flagged] == [1, 2, 3, 4, 5]


def test_no_f_string_in_the_package_scales_by_hand():
    found, used = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        for line, expr in hand_scalings(path.read_text(encoding="utf-8")):
            key = f"{rel}:{line}"
            if key in HAND_SCALED:
                used.add(key)
            else:
                found.append(f"{key}: {{{expr}}}")
    assert not found, ("f-strings that scale by hand (give the SI value and its unit to "
                       "infra_calc.display instead):\n  " + "\n  ".join(found))
    assert used == set(HAND_SCALED), f"allowed but no longer there: {sorted(set(HAND_SCALED) - used)}"
