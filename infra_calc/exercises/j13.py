"""Exercises for chapter J13 (why a card cannot run at full speed).

``j13-1`` … ``j13-4`` are the source's §10 self-test; ``j13-n*`` are new.
"""
from __future__ import annotations

from .. import source as S
from ..capacity import max_batch
from ..roofline import arithmetic_intensity
from ..shape import padded_rows, route_tokens
from ..units import GiB
from . import Choice, Exercise, register, tbs, tflops


def _i64():
    return arithmetic_intensity(64, S.J13_K, S.J13_N, S.J13_BYTES_PER_ELEMENT)


register(Exercise(
    "j13-1",
    "At M = 64, what is the arithmetic intensity of the 4096×4096 Q projection (FLOP/byte)? "
    "Is it compute- or bandwidth-bound on an H100?",
    "FLOP/byte", _i64,
    lambda: (f"I = 2·64·4096² / (2·(64·4096 + 4096² + 64·4096)) = {_i64():.1f} FLOP/byte, far below "
             f"I* = {S.j13_h100().ridge_point:.1f}: bandwidth-bound."),
    source_answer=62.1,
    hints=("I = F / V with F = 2MKN and V = b(MK + KN + MN), b = 2 bytes.",),
    parts=(Choice("Compute- or bandwidth-bound on an H100?",
                  lambda: "compute-bound" if _i64() >= S.j13_h100().ridge_point
                  else "bandwidth-bound", ("compute-bound", "bandwidth-bound"),
                  "I is far below the ridge point I*."),),
))


def _ridge():
    return S.j13_h100().ridge_point


def _i256():
    return arithmetic_intensity(256, S.J13_K, S.J13_N, S.J13_BYTES_PER_ELEMENT)


register(Exercise(
    "j13-2",
    "What is the H100's ridge point I* (FLOP/byte)? Why is M = 256 still on the bandwidth side?",
    "FLOP/byte", _ridge,
    lambda: (f"I* = {tflops(S.j13_h100())}e12 / {tbs(S.j13_h100())}e12 = {_ridge():.1f} FLOP/byte; "
             f"I(256) = {_i256():.1f} is "
             f"{(1 - _i256() / _ridge()) * 100:.2f}% short of it ("
             f"{(1 - round(_i256(), 1) / round(_ridge(), 1)) * 100:.1f}% from the rounded "
             f"{_i256():.1f} and {_ridge():.1f}). The weight read still dominates the bytes."),
    source_answer=295.3,
    hints=("I* = Π / β: peak FLOP/s over bytes/s.",),
))


def _uniform():
    return padded_rows(route_tokens(S.MOE_TOKENS, S.MOE_EXPERTS, S.MOE_TOP_K, 0.0), S.MOE_TILE_ROWS)


register(Exercise(
    "j13-3",
    "64 tokens × 8 experts each, rows padded to 16, routing spread uniformly over 256 experts: "
    "how many rows are executed? (How many are useful?)",
    "rows", lambda: _uniform().executed,
    lambda: (f"{S.MOE_TOKENS}×{S.MOE_TOP_K} = {_uniform().useful} dispatches over "
             f"{_uniform().active_experts} experts = {_uniform().useful // _uniform().active_experts} rows "
             f"each, padded to {S.MOE_TILE_ROWS}: {_uniform().active_experts}×{S.MOE_TILE_ROWS} = "
             f"{_uniform().executed} rows executed, {_uniform().useful} useful "
             f"({_uniform().waste_ratio:.0f}× waste)."),
    rel_tol=0.0, source_answer=4096,
    hints=("Each active expert's rows are rounded up to a whole 16-row tile.",),
))


def _b4090():
    from ..models import model

    q = model(S.J13_MODEL)
    gpu = S.j13_rtx4090()
    return max_batch(gpu.mem_capacity, q.weight_bytes(2), S.J13_WORKSPACE, S.J13_CONTEXTS[0],
                     q.kv_bytes_per_token(2))


register(Exercise(
    "j13-4",
    "Qwen3-8B in BF16 on an RTX 4090 (source reading: 24 GB = 24e9 bytes), 2 GiB workspace, "
    "8K context: how many concurrent requests at most?",
    "requests", _b4090,
    lambda: (f"B_max = floor(({S.j13_rtx4090().mem_capacity / 1e9:g}e9 − weights − 2 GiB) / "
             f"({S.J13_CONTEXTS[0]} × 144 KiB)) = {_b4090()}."),
    rel_tol=0.0, source_answer=4,
    hints=("Capacity − weights − workspace, divided by one 8K request's KV cache "
           "(8192 × 144 KiB), rounded down.",),
))


# --- new exercises (not in the source) ------------------------------------
def _m_star(name):
    from ..hardware import accelerator
    from ..roofline import critical_rows

    return critical_rows(S.J13_K, S.J13_N, accelerator(name), S.J13_BYTES_PER_ELEMENT)


def _ridge_of(name):
    from ..hardware import accelerator

    return accelerator(name).ridge_point


register(Exercise(
    "j13-n1",
    f"Same 4096×4096 BF16 Q projection on an A100 80GB ({tflops('A100 80GB')} TFLOP/s dense BF16, "
    f"{tbs('A100 80GB')} TB/s): how many "
    "rows M* does it need to reach the A100's ridge point? More or fewer than on the H100?",
    "rows", lambda: _m_star("A100 80GB"),
    lambda: (f"I* = {tflops('A100 80GB')}e12 / {tbs('A100 80GB')}e12 = {_ridge_of('A100 80GB'):.1f} "
             f"FLOP/byte. Solving "
             f"M·K·N / (M·K + K·N + M·N) = I* for M gives M* = {_m_star('A100 80GB'):.1f} rows, "
             f"about half the H100's {_m_star('H100 SXM'):.1f}: the A100 has less compute per byte "
             f"of bandwidth, so it is fed with a smaller batch."),
    rel_tol=0.01,
    hints=("Set I(M) = I* and solve for M: M* = I*·K·N / (K·N − I*·(K + N)).",),
    parts=(Choice("More or fewer rows than on the H100?",
                  lambda: "fewer" if _m_star("A100 80GB") < _m_star("H100 SXM") else "more",
                  ("more", "fewer"), "The A100's ridge point is lower."),),
))

register(Exercise(
    "j13-n2",
    f"What is the ridge point I* of an AMD MI300X ({tflops('MI300X')} TFLOP/s dense BF16, "
    f"{tbs('MI300X')} TB/s), in FLOP/byte? "
    "Is a decode step (M = 1, I ≈ 1) on it compute- or bandwidth-bound?",
    "FLOP/byte", lambda: _ridge_of("MI300X"),
    lambda: (f"I* = {tflops('MI300X').replace(',', '')}e12 / {tbs('MI300X')}e12 = "
             f"{_ridge_of('MI300X'):.1f} FLOP/byte, below the H100's "
             f"{_ridge_of('H100 SXM'):.1f}; at I ≈ 1 decode is still bandwidth-bound by a factor of "
             f"about {_ridge_of('MI300X'):.0f}."),
    rel_tol=0.01,
    hints=("I* = Π / β.",),
    parts=(Choice("Is decode (M = 1) compute- or bandwidth-bound on it?",
                  lambda: "compute-bound" if 1 >= _ridge_of("MI300X") else "bandwidth-bound",
                  ("compute-bound", "bandwidth-bound"), "I ≈ 1 is far below the ridge point."),),
))


def _b_l40s_32k():
    from ..hardware import accelerator
    from ..models import model

    q = model(S.J13_MODEL)
    return max_batch(accelerator("L40S").mem_capacity, q.weight_bytes(2), S.J13_WORKSPACE, 32768,
                     q.kv_bytes_per_token(2))


def _l40s_parts():
    from ..hardware import accelerator
    from ..models import model
    from ..units import GB

    q = model(S.J13_MODEL)
    c = accelerator("L40S").mem_capacity
    left = c - q.weight_bytes(2) - S.J13_WORKSPACE
    per = 32768 * q.kv_bytes_per_token(2)
    return c / GB, q.weight_bytes(2) / GB, left / GB, per / GB


register(Exercise(
    "j13-n3",
    "Qwen3-8B in BF16 on an L40S (48 GiB physical), 2 GiB workspace, 32K-token context: how many "
    "concurrent requests fit at most?",
    "requests", _b_l40s_32k,
    lambda: ("C = {0:.2f} GB, weights {1:.2f} GB, left for KV after the workspace {2:.2f} GB; one "
             "32K request holds 32768 × 144 KiB = {3:.2f} GB, so B_max = floor({2:.2f} / {3:.2f}) = "
             .format(*_l40s_parts()) + f"{_b_l40s_32k()}."),
    rel_tol=0.0,
    hints=("48 GiB is 48 × 2³⁰ bytes; one 32K request holds 32768 × 144 KiB.",),
))


def _b4090_physical():
    from ..hardware import accelerator
    from ..models import model

    q = model(S.J13_MODEL)
    return max_batch(accelerator("RTX 4090").mem_capacity, q.weight_bytes(2), S.J13_WORKSPACE,
                     S.J13_CONTEXTS[0], q.kv_bytes_per_token(2))


def _physical_left():
    from ..hardware import accelerator
    from ..models import model

    q = model(S.J13_MODEL)
    return accelerator("RTX 4090").mem_capacity - q.weight_bytes(2) - S.J13_WORKSPACE


def _one_8k():
    from ..models import model

    return S.J13_CONTEXTS[0] * model(S.J13_MODEL).kv_bytes_per_token(2)


register(Exercise(
    "j13-n4",
    "Redo the source's RTX 4090 question (Qwen3-8B, BF16, 2 GiB workspace, 8K context) with the "
    f"memory the card physically has, 24 GiB = {24 * GiB / 1e9:.2f}e9 bytes. How many requests fit now?",
    "requests", _b4090_physical,
    lambda: (f"24 GiB − weights − 2 GiB leaves {_physical_left() / 1e9:.2f} GB for KV; each 8K request "
             f"needs {_one_8k() / 1e9:.2f} GB, so B_max = {_b4090_physical()}, one more than the source's "
             f"{_b4090()} with 24e9 bytes."),
    rel_tol=0.0,
    hints=("24 GiB is 24 × 2³⁰ bytes, not 24 × 10⁹: more room for the KV cache.",),
))


def _skew_half():
    return padded_rows(route_tokens(S.MOE_TOKENS, S.MOE_EXPERTS, S.MOE_TOP_K, 0.5), S.MOE_TILE_ROWS)


register(Exercise(
    "j13-n5",
    f"The {S.MOE_TOKENS} tokens × {S.MOE_TOP_K} experts = {S.MOE_TOKENS * S.MOE_TOP_K} dispatches are "
    f"spread as evenly as possible over {_skew_half().active_experts} of the {S.MOE_EXPERTS} "
    f"experts (half-way skew, route_tokens(..., skew=0.5)), rows padded to {S.MOE_TILE_ROWS}. How "
    f"many rows are "
    f"executed, and how many times the useful {_skew_half().useful} is that?",
    "rows", lambda: _skew_half().executed,
    lambda: (f"{_skew_half().useful} / {_skew_half().active_experts} = "
             f"{_skew_half().useful / _skew_half().active_experts:.1f}, so every active expert gets "
             f"11 or 12 rows, "
             f"each padded to one 16-row tile: {_skew_half().active_experts} × 16 = "
             f"{_skew_half().executed} rows executed for {_skew_half().useful} useful "
             f"({_skew_half().waste_ratio:.2f}×), between the uniform 8× and the concentrated 1×."),
    rel_tol=0.0,
    hints=("Spread the dispatches over the active experts, then round each expert's "
           "rows up to whole 16-row tiles.",),
))


def _amdahl08():
    from ..amdahl import amdahl_speedup

    return amdahl_speedup(0.8, 4.0)


def _amdahl08_limit():
    from ..amdahl import amdahl_limit

    return amdahl_limit(0.8)


register(Exercise(
    "j13-n6",
    "Now 80% of the step is matrix work (f = 0.8) and the matrix unit gets 4× faster. What is the "
    "overall speed-up, and what is the ceiling however fast the matrix unit gets?",
    "×", _amdahl08,
    lambda: (f"S = 1 / (0.2 + 0.8/4) = 1 / 0.4 = {_amdahl08():.2f}×; ceiling 1 / (1 − 0.8) = "
             f"{_amdahl08_limit():.0f}×. A larger f raises both, but the 20% that is not sped up "
             f"still caps the gain."),
    rel_tol=0.01,
    hints=("Amdahl: S = 1 / ((1 − f) + f / s); the ceiling is s → ∞.",),
))
