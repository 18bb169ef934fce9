"""Input checks shared by every public function.

:func:`check_number` returns the value as a ``float`` (for a scalar) or a float
``numpy.ndarray`` (for anything array-like); :func:`check_int` as an ``int`` or an
``int64`` array; :func:`check_single_sizes` returns None.  Each raises ``TypeError`` /
``ValueError`` with a message that names the parameter and its unit.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["check_number", "check_int", "check_single_sizes", "check_one_card", "is_scalar",
           "unwrap"]

_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min
# the largest float that still converts to int64 without overflow
_INT64_MAX_FLOAT = float(np.nextafter(np.float64(2.0**63), 0))


def _describe(unit: str, name: str = "") -> str:
    # "cards (cards)" says nothing twice: name the unit only when it adds something
    return f" ({unit})" if unit and unit != name else ""


def is_scalar(x) -> bool:
    """True for a Python or numpy scalar, False for arrays and sequences."""
    return np.ndim(x) == 0


def unwrap(x, cast=float):
    """``cast(x)`` (a plain Python scalar) when ``x`` is 0-dimensional, else ``x`` unchanged.

    Every public function returns plain floats for scalar inputs and arrays
    for array inputs; this is the one place that decides which.

    >>> unwrap(np.float64(2.5)), unwrap(np.array("memory"), str)
    (2.5, 'memory')
    >>> unwrap(np.array([1.0, 2.0]))
    array([1., 2.])
    """
    return cast(x) if np.ndim(x) == 0 else x


def check_number(
    value,
    name: str,
    unit: str = "",
    *,
    positive: bool = True,
    allow_zero: bool = False,
    allow_inf: bool = False,
    maximum: float | None = None,
    inclusive_max: bool = True,
):
    """Validate a number or array of numbers.

    Parameters
    ----------
    value : float or array_like
        The value to check.
    name : str
        Parameter name used in error messages.
    unit : str
        Unit used in error messages, e.g. ``"bytes/s"``.
    positive : bool
        Reject negative values.
    allow_zero : bool
        Accept exactly zero.
    allow_inf : bool
        Accept ``+inf``.
    maximum : float, optional
        Upper bound, inclusive unless ``inclusive_max`` is False.

    Returns
    -------
    float or numpy.ndarray
    """
    label = f"{name}{_describe(unit, name)}"
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{label} must be a number, got a bool ({value!r})")
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{label} must be a number, got {type(value).__name__} {value!r}")
    if isinstance(value, numbers.Number):
        if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
            raise TypeError(f"{label} must be a real number, got complex {value!r}")
        arr = np.asarray(float(value))
    else:
        try:
            arr = np.asarray(value)
        except Exception as exc:  # pragma: no cover - exotic inputs
            raise TypeError(f"{label} must be a number or array of numbers") from exc
        if arr.dtype == bool or arr.dtype.kind not in "iuf":
            raise TypeError(
                f"{label} must be a number or array of real numbers, got {type(value).__name__}"
                + (f" of dtype {arr.dtype}" if hasattr(arr, "dtype") else "")
            )
        arr = arr.astype(float)
    if arr.size == 0:
        raise ValueError(f"{label} must not be empty")
    if np.isnan(arr).any():
        raise ValueError(f"{label} must not be NaN")
    if np.isneginf(arr).any():
        raise ValueError(f"{label} must not be -inf")
    if not allow_inf and np.isposinf(arr).any():
        raise ValueError(f"{label} must be finite, got inf")
    if positive:
        if allow_zero:
            if (arr < 0).any():
                raise ValueError(f"{label} must be >= 0, got {_show(arr[arr < 0])}")
        elif (arr <= 0).any():
            raise ValueError(f"{label} must be > 0, got {_show(arr[arr <= 0])}")
    if maximum is not None:
        bad = arr > maximum if inclusive_max else arr >= maximum
        if bad.any():
            op = "<=" if inclusive_max else "<"
            raise ValueError(f"{label} must be {op} {maximum:g}, got {_show(arr[bad])}")
    if arr.ndim == 0:
        return float(arr)
    return arr


def check_int(value, name: str, unit: str = "", *, minimum: int = 1, scalar: bool = False):
    """Validate a whole number (or array of whole numbers) >= ``minimum``.

    With ``scalar=True`` an array is refused (``TypeError``): the parameter
    takes one whole number.
    """
    label = f"{name}{_describe(unit, name)}"
    if scalar and np.ndim(value) != 0:
        raise TypeError(f"{label} must be a single whole number, got an array")
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{label} must be a whole number, got a bool ({value!r})")
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{label} must be a whole number, got {type(value).__name__} {value!r}")
    if isinstance(value, numbers.Integral) and not isinstance(value, np.integer) \
            and not _INT64_MIN <= value <= _INT64_MAX:
        # a Python int beyond 64 bits (e.g. 10**30) would become an object array
        if value < minimum:
            raise ValueError(f"{label} must be >= {minimum}, got {value:.3g}")
        raise ValueError(f"{label} must be at most {_INT64_MAX:,} (a 64-bit whole number), "
                         f"got {value:.3g}")
    try:
        arr = np.asarray(value)
    except (OverflowError, ValueError) as exc:
        raise ValueError(f"{label} must be a whole number (or array of whole numbers) of at most "
                         f"{_INT64_MAX:,}") from exc
    if arr.dtype == object:
        raise TypeError(f"{label} must be a whole number (or array of whole numbers), got "
                        f"{type(value).__name__} holding {type(np.ravel(arr)[0]).__name__}"
                        if arr.size else f"{label} must not be empty")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{label} must be a finite whole number")
        if (arr != np.round(arr)).any():
            raise ValueError(f"{label} must be a whole number, got {_show(arr[arr != np.round(arr)])}")
        if (arr < minimum).any():
            raise ValueError(f"{label} must be >= {minimum}, got {_show(arr[arr < minimum])}")
        too_big = arr > _INT64_MAX_FLOAT
        if too_big.any():
            raise ValueError(f"{label} must be at most {_INT64_MAX:,} (a 64-bit whole number), "
                             f"got {float(np.ravel(arr[too_big])[0]):.3g}")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"{label} must be a whole number, got {type(value).__name__}")
    elif arr.dtype.kind == "u" and (arr > _INT64_MAX).any():
        raise ValueError(f"{label} must be at most {_INT64_MAX:,} (a 64-bit whole number)")
    if arr.size == 0:
        raise ValueError(f"{label} must not be empty")
    if (arr < minimum).any():
        raise ValueError(f"{label} must be >= {minimum}, got {_show(arr[arr < minimum])}")
    if arr.ndim == 0:
        return int(arr)
    return arr.astype(np.int64)


def check_single_sizes(w, *names: str) -> None:
    """Refuse (``TypeError``) an array for each size ``names`` (``"batch"``, ``"cards"``) of ``w``."""
    for name in names:
        check_int(getattr(w, name), name, {"batch": "requests"}.get(name, name), scalar=True)


def check_one_card(w, fn: str, hint: str = "") -> None:
    """Refuse (``ValueError``) a workload ``w`` on more than one card for ``fn``, a one-card
    function: the message names ``cards``, ``fn`` and, if given, the ``hint`` of what to use."""
    if np.any(np.asarray(w.cards) != 1):
        raise ValueError(f"cards must be 1 for {fn}, got {w.cards}" + (f"; {hint}" if hint else ""))


def _show(bad: np.ndarray) -> str:
    flat = np.ravel(bad)
    first = flat[0]
    if np.ndim(first) == 0 and float(first).is_integer() and abs(float(first)) < 1e15:
        text = f"{int(first)}"
    else:
        text = f"{float(first):g}"
    return text if flat.size == 1 else f"{text} (and {flat.size - 1} more)"
