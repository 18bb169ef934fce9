"""infra_calc.display: numbers as the prose shows them, and no f-string in the package that
scales by hand."""
import ast
import pathlib

import pytest
from hand_scaling import _is_scale, _is_unit_constant, _number, hand_scalings

import infra_calc as ic


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


def test_every_form_checks_the_unit_the_same_way():
    """One check of a unit's name (display._scale) behind every form that takes a unit."""
    from infra_calc.display import round_sig, shown_prefixed, shown_up, sig

    for form in (lambda u: ic.shown(1.0, u), lambda u: shown_up(1.0, u), lambda u: sig(1.0, u),
                 lambda u: round_sig(1.0, u), lambda u: shown_prefixed(1.0, ("GB", u))):
        with pytest.raises(ValueError, match=r"unit must be one of \[.*\], got 'furlongs'"):
            form("furlongs")


def test_not_a_number():
    with pytest.raises(TypeError, match="value must be a number"):
        ic.shown("twenty", "ms")


def test_every_number_form_writes_infinity_the_same_way():
    """One rule for ∞: the prose, the tables, the labels and the checker's echo agree."""
    from infra_calc.display import plain_number, round_sig, shown, shown_e, shown_up, sig, tokens_k

    inf = float("inf")
    forms = [str(shown(inf)), str(shown_up(inf, "ms")), sig(inf), round_sig(inf), plain_number(inf),
             shown_e(inf, "B"), tokens_k(inf)]
    assert forms == ["∞", "∞ ms", "∞", "∞", "∞", "∞ B", "∞K"]
    assert [str(shown(-inf)), sig(-inf), round_sig(-inf), plain_number(-inf), shown_e(-inf),
            tokens_k(-inf, "")] == ["−∞"] * 6


def test_every_number_form_writes_one_minus_sign():
    """U+2212 (−), as shown writes it, in every form that turns a number into text for a
    reader, a negative exponent included; no ASCII hyphen."""
    from infra_calc.display import plain_number, round_sig, shown, shown_e, shown_up, sig, tokens_k

    forms = [shown(-0.0209, "ms", 1), shown_up(-0.0209, "ms", 1), sig(-0.020896, "ms"),
             sig(-1234.6), round_sig(-3.46737e9, "billion"), round_sig(-1.5e-7), plain_number(-34.3306),
             plain_number(-1.23e-5), plain_number(-4096), shown_e(-80e9, "B"),
             shown_e(4e-5, exponent=-6), tokens_k(-1448)]
    assert [str(f) for f in forms] == [
        "−20.9 ms", "−20.9 ms", "−20.90 ms", "−1,235", "−3.47 billion", "−1.5e−07", "−34.33",
        "−1.23e−05", "−4,096", "−80e9 B", "40e−6", "−1.4140625K"]


@pytest.mark.parametrize("form, name", [("shown_e", "value"), ("tokens_k", "tokens")])
def test_a_count_form_refuses_nan_naming_the_parameter(form, name):
    from infra_calc import display

    with pytest.raises(ValueError, match=f"{name} must be a number, got NaN"):
        getattr(display, form)(float("nan"))


def test_plain_number_refuses_nan_naming_it():
    """The checker's echo of a reader's answer: NaN is no answer (the graders refuse it
    first), and this says so rather than failing inside int()."""
    from infra_calc.display import plain_number

    with pytest.raises(ValueError, match="x must be a number, got NaN"):
        plain_number(float("nan"))


def test_a_negative_token_count_has_the_minus_sign_shown_writes():
    from infra_calc.display import tokens_k

    assert tokens_k(-8192) == "−8K" and tokens_k(-1448, "") == "−1.4140625"
    assert tokens_k(-8192).text[0] == str(ic.shown(-1.0))[0] == "−"


def test_tokens_k_is_exact():
    """As few digits as the number needs, and no fewer: 1448 tokens is 1.4140625K, not 1.41406K."""
    from infra_calc.display import tokens_k
    from infra_calc.units import K_TOKENS

    for tokens in (1448, 8192, 131072, 12288, 1000, 3 * 8192 / 2):
        text = tokens_k(tokens, "")
        assert float(text.text) * K_TOKENS == tokens, (tokens, text)
    assert tokens_k(1448) == "1.4140625K" and tokens_k(8192) == "8K"


@pytest.mark.parametrize("text, value, unit", [
    (ic.display.shown(0.020896, "ms", 2), 0.020896, "ms"),
    (ic.display.shown_up(7.2e5, "ms", 1), 7.2e5, "h"),
    (ic.display.shown_prefixed(3.2e12, ("GFLOP", "TFLOP")), 3.2e12, "TFLOP"),
    (ic.display.sig(0.020896, "ms"), 0.020896, "ms"),
    (ic.display.round_sig(3.46737e9, "billion"), 3.46737e9, "billion"),
    (ic.display.shown_e(80e9, "B"), 80e9, "B"),
    (ic.display.tokens_k(8192), 8192.0, None),
    (ic.display.plain_number(34.3306), 34.3306, None),
])
def test_every_form_returns_shown_with_its_value_and_unit(text, value, unit):
    """One return type for the family: a page computes with what it shows (``.value``)."""
    assert isinstance(text, ic.display.Shown)
    assert (text.value, text.unit) == (value, unit)


def test_long_times_move_up_a_unit_and_the_unit_is_written_once():
    from infra_calc.display import TIME_UNITS, shown_up, sig

    assert [str(shown_up(t, "ms", 1)) for t in (9.9999, 10.0, 3.599e7, 4e13)] == [
        "9,999.9 ms", "10.0 s", "9,997.2 h", "1,267,523.5 years"]
    assert TIME_UNITS == ("ms", "s", "h", "years")
    assert sig(0.0209, "ms") == "20.90 ms" and sig(0.5, "%") == "50.00%"


# ------------------------------------------------------------- no f-string scales by hand
# CONTRIBUTING.md and display.py's docstring say so: text takes the SI value and a unit
# (shown, sig, round_sig, shown_e, tokens_k, ...).  Scaling that is physics (a catalog's GB
# to bytes) is not text and is not looked at.  What is looked at, inside an f-string field
# (or a format() call's spec, or a str.format template):
#   * a product or quotient with a scale: a power of ten (100, 1e-3, 10**9), any other
#     number of 1,000 or more (2e9, 1024), a power of two from 1,024 (2**10), or a unit
#     constant (GB, units.TB, K_TOKENS);
#   * a floor division by a number or a unit constant (``n // 1024``);
#   * a format spec that scales to a percentage (``:.1%``): shown(x, "%", 1) does that.
PACKAGE = pathlib.Path(ic.__file__).parent
#: the book machinery formats numbers too (the checker's echo, the exercises' hints)
BOOKKIT = PACKAGE.parent / "bookkit"
#: "path:line" -> why an f-string there still scales by hand (an entry goes when its line
#: does: the last assert says which are gone).
HAND_SCALED: dict[str, str] = {}


def test_the_scan_sees_a_hand_scaling_and_nothing_else():
    flagged = hand_scalings(
        'a = f"{t * 1e3:.2f} ms"\nb = f"{x / GB:.1f}"\nc = f"{s * 100:.0f}%"\n'
        'd = f"{round(n / 10**9)}"\ne = f"{y / units.TB}"\n'
        'f = f"{t:.2f} {shown(t, \'ms\')}"\ng = 2 * GiB\nh = f"{a * b} {n / 2} {u // v}"\n'
        'i = f"{params / 2e9:.0f}B"\nj = f"{tokens / 1024:g}K"\nk = f"{context // 1024}K"\n'
        'l = f"{eff:.1%}"\nm = f"{x:{w}.1%}"\nn = f"{n // 8} bytes"\no = f"{b / 2**30:.1f}"\n'
        'p = f"{x / -1e-3}"\nq = format(x, ".0%")\nr = "{:.1%}".format(x)\ns = f"{x:,.1f}"\n'
        't = "{{literal}}: {:.1f}".format(x)\nu = f"{a * 2**4}"\nv = f"{c / K_TOKENS:g}K"\n')
    assert [line for line, _ in flagged] == [1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 14, 15, 16,
                                             17, 18, 22]


def test_no_f_string_in_the_package_scales_by_hand():
    found, used = [], set()
    for path in sorted([*PACKAGE.rglob("*.py"), *BOOKKIT.rglob("*.py")]):
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


# ------------------------------------------------- no plotted number scales by hand either
# display.in_unit is the one scaling of a figure's or an explorer's numbers (axis data,
# bar widths, limits, a slider's value).  In infra_calc/figures/ and infra_calc/widgets/
# every expression is looked at, not only f-string fields:
#   * a quotient or floor quotient by a scale (``x / GB``, ``t / MS``, ``n / 1e9``,
#     ``f / 100``): a number taken out of SI by hand;
#   * a product with a number that is a scale (``x * 100``, ``1e3 * t``, ``b * 2**30``);
#     ten is not one (no unit is ten of another: ``10 * k`` is the next decade of an axis).
# A product with a unit constant (``gib * GiB``, ``billions * BILLION``) brings a number a
# reader typed in that unit into SI, the other direction, and is not looked at.
PLOTTING = ("figures", "widgets")


def plotted_scalings(source: str) -> list[tuple[int, str]]:
    """(line, expression) of every product or quotient in ``source`` that scales out of SI
    by hand (see above)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.BinOp):
            continue
        if isinstance(node.op, (ast.Div, ast.FloorDiv)) and _is_scale(node.right):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node.op, ast.Mult) and any(
                _is_scale(side) and not _is_unit_constant(side) and _number(side) not in (10, 0.1)
                for side in (node.left, node.right)):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def test_the_plot_scan_sees_a_hand_scaling_and_nothing_else():
    flagged = plotted_scalings(
        "a = x / GB\nb = share * 100\nc = 1e3 * t\nd = n / units.TB\ne = c / BILLION\n"
        "f = w / 2**30\ng = gib * GiB\nh = x * 1.05\ni = left + w / 2\nj = ax.set_xlim(1, 1e4)\n"
        "k = in_unit(x, 'GB')\nl = n // 1024\nm = 0.55 * len(keys)\nn = t / MS\no = 10 * k\n"
        "p = -1e-3 * x\n")
    assert [line for line, _ in flagged] == [1, 2, 3, 4, 5, 6, 12, 14, 16]


def test_the_plot_scan_fails_on_a_planted_hand_scaling():
    path = PACKAGE / "figures" / "ch1.py"
    source = path.read_text(encoding="utf-8")
    assert plotted_scalings(source) == []
    assert plotted_scalings(source + "\nvals = x / GB\n") == [(source.count("\n") + 2, "x / GB")]


def test_no_plotted_number_in_the_package_scales_by_hand():
    found = [f"{path.relative_to(PACKAGE.parent).as_posix()}:{line}: {expr}"
             for part in PLOTTING for path in sorted((PACKAGE / part).rglob("*.py"))
             for line, expr in plotted_scalings(path.read_text(encoding="utf-8"))]
    assert not found, ("figure or explorer numbers scaled by hand (use "
                       "infra_calc.display.in_unit(value, unit)):\n  " + "\n  ".join(found))
