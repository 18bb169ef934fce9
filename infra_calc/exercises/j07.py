"""Exercises for chapter J07 (one decode step from a few numbers).

``j07-1`` … ``j07-4`` are the source's §10 self-test; ``j07-n*`` are new.
"""
from __future__ import annotations

from .. import source as S
from ..capacity import max_batch
from ..models import model
from ..step import decode_step, read_time
from ..units import GB, GiB
from . import Exercise, register, tbs, tflops, yes_no


def _a100_read():
    return read_time(S.J07_PARAMS * S.J07_BYTES_PER_PARAM, S.j07_a100()) * 1e3


register(Exercise(
    "j07-1",
    f"Swap the H100 for an A100 80GB ({tbs('A100 80GB')} TB/s, {tflops('A100 80GB')} TFLOP/s). What "
    f"is the read lower bound "
    "for the same model, in ms? Is 10 ms per token reachable?",
    "ms", _a100_read,
    lambda: (f"T_read = b_W·N / β = {S.J07_PARAMS * S.J07_BYTES_PER_PARAM / GB:.0f} GB / "
             f"{S.j07_a100().mem_bandwidth / GB:.0f} GB/s = {_a100_read():.1f} ms > "
             f"{S.J07_TARGET_STEP * 1e3:.0f} ms: no, it is slower than on the H100."),
    source_answer=34.3,
    hints=("The read bound is the bytes of all weights divided by the memory bandwidth: T_read = b_W·N / β.",
           "Use the A100's bandwidth in bytes/s; the weights stay 70 GB."),
    parts=(yes_no("Is 10 ms per token reachable?", lambda: _a100_read() <= S.J07_TARGET_STEP * 1e3,
                  "The read bound alone is above 10 ms."),),
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
    hints=("The read bound is the bytes of all weights divided by the memory bandwidth: T_read = b_W·N / β.",
           "Half a byte per parameter halves the bytes read."),
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
    hints=("The step still reads every weight once; divide that read time by the batch.",),
    parts=(yes_no("Did single-request latency fall?", lambda: False,
                  "Each request still waits for the whole step."),),
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
    hints=("Subtract the weights from the capacity, then divide by the KV cache of one "
           "8K-token request, and round down.",),
))


# --- new exercises (not in the source) --------------------------------------
def _read_ms(hw, bytes_per_param=S.J07_BYTES_PER_PARAM):
    return read_time(S.J07_PARAMS * bytes_per_param, hw) * 1e3


def _hw(name):
    from ..hardware import accelerator

    return accelerator(name)


register(Exercise(
    "j07-n1",
    f"Same 70B model at 1 byte per parameter, one request, on an H200 SXM ({tbs('H200 SXM')} TB/s, same "
    f"{tflops('H200 SXM')} TFLOP/s as the H100). What is the read lower bound, in ms? Is 10 ms reachable?",
    "ms", lambda: _read_ms("H200 SXM"),
    lambda: (f"T_read = {S.J07_PARAMS / GB:.0f} GB / {_hw('H200 SXM').mem_bandwidth / GB:.0f} GB/s = "
             f"{_read_ms('H200 SXM'):.2f} ms > {S.J07_TARGET_STEP * 1e3:.0f} ms: still no, although "
             f"the H200 has the H100's compute; only its bandwidth is higher."),
    hints=("The read bound is the bytes of all weights divided by the memory bandwidth: T_read = "
           "b_W·N / β.",),
    parts=(yes_no("Is 10 ms per token reachable?",
                  lambda: _read_ms("H200 SXM") <= S.J07_TARGET_STEP * 1e3,
                  "Its read bound is still above 10 ms."),),
))

register(Exercise(
    "j07-n2",
    f"And on one B200 ({tbs('B200')} TB/s)? Give the read lower bound in ms and say whether 10 ms per token "
    "is within reach for one request.",
    "ms", lambda: _read_ms("B200"),
    lambda: (f"T_read = {S.J07_PARAMS / GB:.0f} GB / {_hw('B200').mem_bandwidth / GB:.0f} GB/s = "
             f"{_read_ms('B200'):.2f} ms < {S.J07_TARGET_STEP * 1e3:.0f} ms: yes, as a lower bound; "
             f"the compute bound is only "
             f"{decode_step(S.J07_PARAMS, 1, 'B200').t_compute * 1e3:.4f} ms."),
    hints=("The read bound is the bytes of all weights divided by the memory bandwidth: T_read = "
           "b_W·N / β.",),
    parts=(yes_no("Is 10 ms per token within reach for one request?",
                  lambda: _read_ms("B200") <= S.J07_TARGET_STEP * 1e3,
                  "Its read bound is below 10 ms."),),
))


def _mi300x_bstar():
    from ..step import batch_turning_point

    return batch_turning_point("MI300X", S.J07_BYTES_PER_PARAM)


register(Exercise(
    "j07-n3",
    f"On an AMD MI300X ({tflops('MI300X')} TFLOP/s dense BF16, {tbs('MI300X')} TB/s), where is the "
    f"batch turning "
    "point B* for 1-byte weights?",
    "requests", _mi300x_bstar,
    lambda: (f"B* = b_W·Π / (2β) = 1 × {_hw('MI300X').peak_flops / 1e12:.1f}e12 / "
             f"(2 × {_hw('MI300X').mem_bandwidth / 1e12:.1f}e12) = {_mi300x_bstar():.1f} requests."),
    hints=("B* = b_W·Π / (2β): where 2BN FLOPs take as long as reading b_W·N bytes.",),
))


def _a100_4bit():
    return _read_ms(S.j07_a100(), 0.5)


register(Exercise(
    "j07-n4",
    "Combine two fixes: 4-bit weights (0.5 byte per parameter) on the A100 80GB. What is the "
    "read lower bound, in ms, and does it meet 10 ms?",
    "ms", _a100_4bit,
    lambda: (f"T_read = {S.J07_PARAMS * 0.5 / GB:.0f} GB / {S.j07_a100().mem_bandwidth / GB:.0f} GB/s "
             f"= {_a100_4bit():.2f} ms > {S.J07_TARGET_STEP * 1e3:.0f} ms: no. The compute bound "
             f"stays {decode_step(S.J07_PARAMS, 0.5, S.j07_a100()).t_compute * 1e3:.3f} ms because "
             f"the parameter count did not change."),
    hints=("The read bound is the bytes of all weights divided by the memory bandwidth: T_read = "
           "b_W·N / β.",),
    parts=(yes_no("Does it meet 10 ms?", lambda: _a100_4bit() <= S.J07_TARGET_STEP * 1e3,
                  "Even halved, the A100's read bound stays above 10 ms."),),
))


def _bstar(hw):
    from ..step import batch_turning_point

    return batch_turning_point(hw, S.J07_BYTES_PER_PARAM)


def _h200_compute_bound_batch():
    """Smallest whole batch at which the H200's compute bound exceeds its read bound."""
    import math

    from ..step import batch_turning_point

    b = math.floor(batch_turning_point("H200 SXM", S.J07_BYTES_PER_PARAM)) + 1
    assert decode_step(S.J07_PARAMS, S.J07_BYTES_PER_PARAM, "H200 SXM", batch=b).bound == "compute"
    assert decode_step(S.J07_PARAMS, S.J07_BYTES_PER_PARAM, "H200 SXM", batch=b - 1).bound == "memory"
    return b


register(Exercise(
    "j07-n5",
    "At 1 byte per parameter, from which whole batch size on is one decode step on the H200 "
    "compute-bound?",
    "requests", _h200_compute_bound_batch,
    lambda: (f"B* = {_hw('H200 SXM').peak_flops / 1e12:.1f}e12 / "
             f"(2 × {_hw('H200 SXM').mem_bandwidth / 1e12:.1f}e12) = "
             f"{_bstar('H200 SXM'):.2f}; the first whole batch above it is "
             f"{_h200_compute_bound_batch()}. More bandwidth moves B* down: the H100's is "
             f"{_bstar(S.j07_h100()):.1f}."),
    rel_tol=0.0,
    hints=("Find B* = b_W·Π / (2β) for the H200, then take the first whole batch above it.",),
))


def _h200_b8():
    return decode_step(S.J07_PARAMS, S.J07_BYTES_PER_PARAM, "H200 SXM", batch=8)


register(Exercise(
    "j07-n6",
    "Batch 8 on the H200 SXM, 1 byte per parameter: how many output tokens per second does "
    "the lower bound allow?",
    "tokens/s", lambda: _h200_b8().tokens_per_s,
    lambda: (f"Still memory-bound (compute {_h200_b8().t_compute * 1e3:.2f} ms < read "
             f"{_h200_b8().t_read * 1e3:.2f} ms), so 8 / {_h200_b8().t_step:.5f} s = "
             f"{_h200_b8().tokens_per_s:.1f} tokens/s."),
    hints=("Check which bound decides at batch 8, then tokens/s = batch / step time.",),
))


def _fit_8k_physical():
    from ..hardware import accelerator
    from ..models import model

    return max_batch(accelerator("H100 SXM").mem_capacity, S.J07_WEIGHTS_8BIT, 0, S.J07_CONTEXT,
                     model(S.J07_MODEL).kv_bytes_per_token(2))


register(Exercise(
    "j07-n7",
    f"Read the H100's memory physically, 80 GiB = {80 * GiB / 1e9:.1f}e9 bytes. How many 8K-token "
    f"requests fit "
    f"beside the {S.J07_WEIGHTS_8BIT / GB:.2f} GB of weights (workspace not counted, as in the source)?",
    "requests", _fit_8k_physical,
    lambda: (f"({_hw('H100 SXM').mem_capacity / GB:.2f} − {S.J07_WEIGHTS_8BIT / GB:.2f}) GB / "
             f"{S.J07_CONTEXT * model(S.J07_MODEL).kv_bytes_per_token(2) / GB:.2f} GB "
             f"per request → {_fit_8k_physical()} requests, against {_fit_8k()} in the source's reading; "
             f"still far from B* = {_bstar(S.j07_h100()):.1f}."),
    rel_tol=0.0,
    hints=("80 GiB is 80 × 2³⁰ bytes; subtract the weights, divide by one request's KV "
           "cache, round down.",),
))
