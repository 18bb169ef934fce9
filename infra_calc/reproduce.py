"""Reproduce the calculator printouts that close each source chapter (§7).

``python -m infra_calc reproduce j07|j13|all`` prints one line per line of
the source's printout, with the same numbers in the same order and at the
same precision.  This module computes nothing itself: every number comes from
the library's functions applied to :mod:`infra_calc.source`'s inputs, the
chapters' cases (J07's decode step and capacity check, J13's capacity check and
padding) from :mod:`infra_calc.scenarios`, which the exercises and figures share.
"""
from __future__ import annotations

from . import scenarios as C
from . import source as S
from .display import shown, tokens_k  # sep=False: the source printed no thousands separators
from .roofline import arithmetic_intensity, critical_rows, gemm_bytes, gemm_flops
from .step import batch_turning_point

__all__ = ["j07_lines", "j13_lines", "reproduce", "CHAPTERS"]


def j07_lines() -> list[str]:
    """The eleven lines of J07 §7, computed."""
    h100, a100 = S.j07_h100(), S.j07_a100()
    bw = S.J07_BYTES_PER_PARAM
    one = C.j07_decode_step()   # one request: R = b_W N, F = 2N
    r, f, t_read, t_comp = one.bytes_read, one.flops, one.t_read, one.t_compute
    b_star = batch_turning_point(h100, bytes_per_param=bw)
    lines = [
        f"H100 SXM: {shown(h100.mem_capacity, 'GB', 0, sep=False)}"
        f" / {shown(h100.mem_bandwidth, 'TB/s', 2, sep=False)} / "
        f"{shown(h100.peak_flops, 'TFLOP/s', 1, sep=False)} (BF16 dense)",
        f"T_read    = {shown(r, 'GB', 2, sep=False)}"
        f" / {shown(h100.mem_bandwidth, 'GB/s', 2, sep=False)} = {shown(t_read, 'ms', 3, sep=False)}",
        f"T_compute = {shown(f, 'GFLOPs', 2, sep=False)}"
        f" / {shown(h100.peak_flops, 'GFLOP/s', 0, sep=False)} = {shown(t_comp, 'ms', 4, sep=False)}",
        f"ratio     = {one.ratio:.1f} x",
        f"B*        = {b_star:.1f} (b_W={bw:g})",
    ]
    b8, b32, b148 = (C.j07_decode_step(batch=b) for b in S.J07_BATCHES)
    lines.append(
        f"batch {b8.batch:<4.0f}: compute {shown(b8.t_compute, 'ms', 3, sep=False)}, per-output read "
        f"{shown(b8.read_time_per_output, 'ms', 3, sep=False)}, tput {b8.tokens_per_s:.1f} tok/s")
    lines.append(f"batch {b32.batch:<4.0f}: compute {shown(b32.t_compute, 'ms', 2, sep=False)}")
    verdict = "-> compute now exceeds the read" if b148.bound == "compute" else "-> still below the read"
    lines.append(f"batch {b148.batch:<4.0f}: compute {shown(b148.t_compute, 'ms', 2, sep=False)} {verdict}")

    chk = C.j07_capacity()
    kv_one = chk.kv
    rel = "<=" if chk.fits else ">"
    lines.append(
        f"capacity (8-bit, {tokens_k(S.J07_CONTEXT, 'k')} context): "
        f"{shown(chk.weights, 'GB', 2, bare=True, sep=False)} + "
        f"{shown(chk.kv, 'GB', 2, bare=True, sep=False)} + "
        f"{shown(chk.workspace, 'GB', 2, bare=True, sep=False)}"
        f" = {shown(chk.total, 'GB', 2, sep=False)} {rel} {shown(chk.capacity, 'GB', 1, sep=False)}")
    left = C.j07_left_after_weights()
    b_max = C.j07_max_batch()
    lines.append(
        f"left after weights {shown(left, 'GB', 2, sep=False)}; one {S.J07_CONTEXT}"
        f"-token KV {shown(kv_one, 'GB', 2, sep=False)} "
        f"-> at most {b_max} {tokens_k(S.J07_CONTEXT, 'k')} requests (workspace not counted)")
    on_a100 = C.j07_decode_step(hw=a100)
    lines.append(
        f"A100 same conditions T_read = {shown(on_a100.t_read, 'ms', 1, sep=False)}; "
        f"T_compute = {shown(on_a100.t_compute, 'ms', 3, sep=False)}")
    return lines


def j13_lines() -> list[str]:
    """The eleven lines of J13 §7, computed."""
    k, n, b = S.J13_K, S.J13_N, S.J13_BYTES_PER_ELEMENT
    h100 = S.j13_h100()
    lines = [f"Q projection {k}×{n} (BF16)"]
    for m in S.J13_ROWS:
        lines.append(
            f"M={m} : F {shown(gemm_flops(m, k, n), 'MFLOPs', 2, sep=False)}, "
            f"V {shown(gemm_bytes(m, k, n, bytes_per_element=b), 'MiB', 2, sep=False)}, "
            f"I = {arithmetic_intensity(m, k, n, bytes_per_element=b):.1f} FLOP/byte")
    m_star = critical_rows(k, n, h100, bytes_per_element=b)
    lines.append(
        f"H100 I* = {shown(h100.peak_flops, 'TFLOP/s', 1, bare=True, sep=False)}"
        f"/{shown(h100.mem_bandwidth, 'TB/s', 2, bare=True, sep=False)} = "
        f"{h100.ridge_point:.1f} FLOP/byte → M* ≈ {m_star:.0f} token")

    uniform, packed = C.j13_padding(0.0), C.j13_padding(1.0)
    lines.append(
        f"η_shape ({S.MOE_TILE_ROWS}-row padding): uniform {uniform.active_experts}×{S.MOE_TILE_ROWS} = "
        f"{uniform.executed} rows / concentrated {packed.active_experts}×{packed.rows_per_expert} = "
        f"{packed.executed} rows → {uniform.padding_ratio:.1f}×")

    s8, s16 = S.J13_CONTEXTS
    alone, one8 = C.j13_capacity(), C.j13_capacity(batch=1, context=s8)
    lines.append(
        f"RTX 4090 {shown(alone.capacity, 'GB', 0, sep=False)}"
        f": weights {shown(alone.weights, 'GB', 2, sep=False)}, remaining "
        f"{shown(C.j13_left_after_weights(), 'GB', 2, sep=False)}; {tokens_k(s8)} single request "
        f"{shown(one8.kv, 'GB', 2, sep=False)}")
    b_max8 = C.j13_max_batch(s8)
    for batch in (b_max8, b_max8 + 1):
        chk = C.j13_capacity(batch=batch, context=s8)
        lines.append(f"{batch} × {tokens_k(s8)} = {shown(chk.kv, 'GB', 2, sep=False)}"
                     f" {'fits' if chk.fits else 'exceeds'}")
    one16 = C.j13_capacity(batch=1, context=s16)
    lines.append(f"{tokens_k(s16)}: each {shown(one16.kv, 'GB', 2, sep=False)} → fits {C.j13_max_batch(s16)}")
    return lines


CHAPTERS = {"j07": j07_lines, "j13": j13_lines}


def reproduce(which: str = "all") -> list[str]:
    """Lines of one chapter's printout (``"j07"``, ``"j13"``) or both (``"all"``)."""
    key = str(which).lower()
    if key == "all":
        return [*j07_lines(), "", *j13_lines()]
    if key not in CHAPTERS:
        raise ValueError(f"chapter must be one of j07, j13, all; got {which!r}")
    return CHAPTERS[key]()
