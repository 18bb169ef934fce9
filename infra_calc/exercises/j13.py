"""Exercises for chapter J13 (why a card cannot run at full speed).

``j13-1`` … ``j13-4`` are the source's §10 self-test; ``j13-n*`` are new.
"""
from __future__ import annotations

from .. import source as S
from ..capacity import max_batch
from ..roofline import arithmetic_intensity
from ..shape import padded_rows, route_tokens
from . import Exercise, register


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
))


def _ridge():
    return S.j13_h100().ridge_point


def _i256():
    return arithmetic_intensity(256, S.J13_K, S.J13_N, S.J13_BYTES_PER_ELEMENT)


register(Exercise(
    "j13-2",
    "What is the H100's ridge point I* (FLOP/byte)? Why is M = 256 still on the bandwidth side?",
    "FLOP/byte", _ridge,
    lambda: (f"I* = 989.4e12 / 3.35e12 = {_ridge():.1f} FLOP/byte; I(256) = {_i256():.1f} is "
             f"{(1 - _i256() / _ridge()) * 100:.1f}% short of it."),
    source_answer=295.3,
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
    lambda: (f"B_max = floor((24e9 − weights − 2 GiB) / (8192 × 144 KiB)) = {_b4090()}."),
    rel_tol=0.0, source_answer=4,
))
