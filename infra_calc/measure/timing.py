"""Timing: the median of repeated runs, read from an injectable clock.

Every measurement times a callable with :func:`median_seconds`.  The clock is
a parameter (default :func:`time.perf_counter`), so tests can pass a fake
clock that advances a fixed amount per reading and check the arithmetic
without depending on how fast the machine is.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from .._validate import check_int

__all__ = ["Clock", "median_seconds", "check_repeats"]

#: A clock: returns seconds (any origin) each time it is called.
Clock = Callable[[], float]


def check_repeats(repeats, warmup) -> tuple[int, int]:
    """Validate the timed (>= 1) and untimed (>= 0) run counts."""
    return (check_int(repeats, "repeats", "timed runs", minimum=1),
            check_int(warmup, "warmup", "untimed runs", minimum=0))


def median_seconds(fn: Callable[[], object], *, sync: Callable[[], object] = lambda: None,
                   repeats: int = 3, warmup: int = 1, min_time: float = 0.0,
                   tick: Callable[[], object] | None = None, clock: Clock | None = None) -> float:
    """Median seconds of ``fn()`` over ``repeats`` timed runs.

    ``warmup`` untimed runs come first.  While the timed runs add up to less
    than ``min_time`` seconds, more runs are timed (at most ``50 · repeats``).
    ``sync()`` runs after each call (a GPU waits for its queue there);
    ``tick()`` is called after each of the first ``repeats`` timed runs (a
    progress bar).  ``clock`` defaults to :func:`time.perf_counter`.
    """
    clock = time.perf_counter if clock is None else clock
    for _ in range(warmup):
        fn()
    sync()
    times = []
    while len(times) < repeats or (sum(times) < min_time and len(times) < 50 * repeats):
        t0 = clock()
        fn()
        sync()
        times.append(clock() - t0)
        if tick is not None and len(times) <= repeats:
            tick()
    return statistics.median(times)
