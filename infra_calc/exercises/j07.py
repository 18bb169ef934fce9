"""Exercises for chapter J07 (one decode step from a few numbers).

``j07-1`` … ``j07-4`` are the source's §10 self-test; ``j07-n*`` are new.
"""
from __future__ import annotations

from .. import source as S
from ..capacity import max_batch
from ..step import decode_step, read_time
from ..units import GB
from . import Exercise, register


def _a100_read():
    return read_time(S.J07_PARAMS * S.J07_BYTES_PER_PARAM, S.j07_a100()) * 1e3


register(Exercise(
    "j07-1",
    "Swap the H100 for an A100 80GB (2.039 TB/s, 312 TFLOP/s). What is the read lower bound "
    "for the same model, in ms? Is 10 ms per token reachable?",
    "ms", _a100_read,
    lambda: (f"T_read = b_W·N / β = {S.J07_PARAMS * S.J07_BYTES_PER_PARAM / GB:.0f} GB / "
             f"{S.j07_a100().mem_bandwidth / GB:.0f} GB/s = {_a100_read():.1f} ms > "
             f"{S.J07_TARGET_STEP * 1e3:.0f} ms: no, it is slower than on the H100."),
    source_answer=34.3,
))


def _four_bit():
    return read_time(S.J07_PARAMS * 0.5, S.j07_h100()) * 1e3


register(Exercise(
    "j07-2",
    "Store the weights in 4 bits (0.5 bytes per parameter). What does the read lower bound become, in ms?",
    "ms", _four_bit,
    lambda: (f"R = 0.5 × {S.J07_PARAMS / 1e9:.0f}e9 = {S.J07_PARAMS * 0.5 / GB:.0f} GB; "
             f"T_read = {S.J07_PARAMS * 0.5 / GB:.0f} GB / {S.j07_h100().mem_bandwidth / GB:.0f} GB/s "
             f"= {_four_bit():.2f} ms."),
    source_answer=10.45,
))


def _b32():
    return decode_step(S.J07_PARAMS, S.J07_BYTES_PER_PARAM, S.j07_h100(), batch=32)


register(Exercise(
    "j07-3",
    "At batch 32, what is the read time per output token, in ms? Did single-request latency change?",
    "ms", lambda: _b32().read_time_per_output * 1e3,
    lambda: (f"T_read / B = {_b32().t_read * 1e3:.2f} ms / 32 = {_b32().read_time_per_output * 1e3:.2f} ms "
             f"per output. Latency does not fall: every request still waits for the whole "
             f"{_b32().t_step * 1e3:.2f} ms step."),
    source_answer=0.65,
))


def _fit_8k():
    from ..models import model

    h = S.j07_h100()
    return max_batch(h.mem_capacity, S.J07_WEIGHTS_8BIT, 0, S.J07_CONTEXT,
                     model(S.J07_MODEL).kv_bytes_per_token(2))


register(Exercise(
    "j07-4",
    "Why is B* ≈ 148 usually out of reach in deployment? How many 8K-token requests fit in the "
    "memory left after the weights (source reading, 80 GB = 80e9 bytes, workspace not counted)?",
    "requests", _fit_8k,
    lambda: (f"Capacity: after {S.J07_WEIGHTS_8BIT / GB:.2f} GB of weights only "
             f"{(S.j07_h100().mem_capacity - S.J07_WEIGHTS_8BIT) / GB:.2f} GB remain, enough for "
             f"{_fit_8k()} requests of {S.J07_CONTEXT} tokens, far from 148."),
    abs_tol=0.0, rel_tol=0.0, source_answer=2,
))
