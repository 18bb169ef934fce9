"""The scan for numbers scaled by hand inside f-strings (CONTRIBUTING.md, "Numbers as
text"): used by tests/lib/test_display.py on the package and bookkit, and by
tests/book/test_page_rules.py on the pages' hidden cells."""
import ast
import math
import re

UNIT_CONSTANTS = {"KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB",
                  "MS", "US", "K_TOKENS", "BILLION"}

def _number(node):
    """The value of a numeric literal (``-1e3`` included), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _number(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    return None


def _is_unit_constant(node) -> bool:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return name in UNIT_CONSTANTS


def _is_scale(node) -> bool:
    """A power-of-ten literal (100, 1e3, 1e-6, 10**9), any literal of 1,000 or more (2e9,
    1024), a power of two from 2**10, or a unit constant (GB, units.TB)."""
    x = _number(node)
    if x is not None:
        x = abs(x)
        if x in (0, 1):
            return False
        exponent = math.log10(x)
        return x >= 1000 or abs(exponent - round(exponent)) < 1e-9
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, power = _number(node.left), _number(node.right)
        return base == 10 or (base == 2 and (power is None or power >= 10))
    return _is_unit_constant(node)


def _scales(expr) -> bool:
    """Whether ``expr`` multiplies or divides by a scale, or floor-divides by a number or a
    unit constant, anywhere inside it."""
    for sub in ast.walk(expr):
        if not isinstance(sub, ast.BinOp):
            continue
        if isinstance(sub.op, (ast.Mult, ast.Div)) and (_is_scale(sub.right) or _is_scale(sub.left)):
            return True
        if isinstance(sub.op, ast.FloorDiv) and (_number(sub.right) is not None
                                                 or _is_scale(sub.right)):
            return True
    return False


def _spec_text(spec) -> str:
    """The literal part of a format spec (a JoinedStr, a str constant, or None)."""
    if spec is None:
        return ""
    if isinstance(spec, ast.Constant):
        return spec.value if isinstance(spec.value, str) else ""
    return "".join(v.value for v in getattr(spec, "values", ()) if isinstance(v, ast.Constant))


#: a str.format template field whose spec ends in "%"
_TEMPLATE_PERCENT = re.compile(r"(?<!\{)\{[^{}]*:[^{}]*%\}")


def hand_scalings(source: str) -> list[tuple[int, str]]:
    """(line, expression) of every f-string field that scales by hand (:func:`_scales`) or
    whose format spec ends in ``%``, and of every ``format(x, "..%")`` and
    ``"{:..%}".format(...)``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FormattedValue):
            spec = _spec_text(node.format_spec)
            if _scales(node.value) or spec.endswith("%"):
                found.append((node.value.lineno, ast.unparse(node.value) + (f":{spec}" if spec else "")))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "format" and len(node.args) >= 2 \
                    and (_spec_text(node.args[1]).endswith("%") or _scales(node.args[0])):
                found.append((node.lineno, ast.unparse(node)))
            elif isinstance(func, ast.Attribute) and func.attr == "format" \
                    and isinstance(func.value, ast.Constant) and isinstance(func.value.value, str) \
                    and _TEMPLATE_PERCENT.search(func.value.value):
                found.append((node.lineno, ast.unparse(node)))
    return sorted(found)
