"""Reproduce the calculator printouts that close each source chapter (§7).

``python -m infra_calc reproduce j07|j13|all`` prints one line per line of
the source's printout, with the same numbers in the same order and at the
same precision.  Every number is computed here from :mod:`infra_calc.source`
and the library's functions.
"""
from __future__ import annotations

from . import source as S
from .capacity import capacity_check, kv_cache_bytes, max_batch
from .display import shown, tokens_k  # sep=False: the source printed no thousands separators
from .models import model
from .roofline import arithmetic_intensity, critical_rows, gemm_bytes, gemm_flops
from .shape import padded_rows, route_tokens
from .step import batch_turning_point, decode_step

__all__ = ["j07_lines", "j13_lines", "reproduce", "CHAPTERS", "j07_kv_bytes_per_token",
           "j07_capacity", "j07_max_batch", "j07_left_after_weights", "j13_padding",
           "j13_kv_bytes_per_token", "j13_left_after_weights", "j13_max_batch"]


# --- the source's cases, computed once: the printouts and the self-test pages share them
def j07_kv_bytes_per_token() -> float:
    """KV-cache bytes per token of the J07 model (BF16 keys and values)."""
    return model(S.J07_MODEL).kv_bytes_per_token(2)


def j07_capacity(*, kv: bool = True, workspace: bool = True, capacity: float | None = None,
                 context: int = S.J07_CONTEXT):
    """J07's capacity check: the 8-bit weights, one request of ``context`` tokens (the
    source's ``J07_CONTEXT``) and the workspace on ``capacity`` bytes (its H100's 80e9);
    ``kv=False`` / ``workspace=False`` leave those out."""
    kv_bytes = kv_cache_bytes(context, j07_kv_bytes_per_token()) if kv else 0.0
    cap = S.j07_h100().mem_capacity if capacity is None else capacity
    return capacity_check(cap, weights=S.J07_WEIGHTS_8BIT, kv=kv_bytes,
                          workspace=S.J07_WORKSPACE if workspace else 0)


def j07_max_batch(capacity: float | None = None, *, context: int = S.J07_CONTEXT) -> int:
    """The most requests of ``context`` tokens beside J07's 8-bit weights on ``capacity``
    bytes (its H100's 80e9), the workspace not counted (the source's reading)."""
    cap = S.j07_h100().mem_capacity if capacity is None else capacity
    return max_batch(cap, weights=S.J07_WEIGHTS_8BIT, context=context,
                     kv_bytes_per_token=j07_kv_bytes_per_token(), workspace=0)


def j07_left_after_weights() -> float:
    """The H100's bytes beside J07's 8-bit weights (the source's reading, no workspace)."""
    return j07_capacity(kv=False, workspace=False).headroom


def j13_padding(skew: float):
    """J13's MoE dispatch padded to its row tiles: ``skew=0`` uniform, ``1`` concentrated."""
    return padded_rows(route_tokens(S.MOE_TOKENS, S.MOE_EXPERTS, S.MOE_TOP_K, skew=skew),
                       tile_rows=S.MOE_TILE_ROWS)


def _j13_capacity_args() -> dict:
    """J13's RTX 4090 (24e9 bytes) with the model's BF16 weights and the workspace."""
    return dict(capacity=S.j13_rtx4090().mem_capacity,
                weights=model(S.J13_MODEL).weight_bytes(S.J13_BYTES_PER_PARAM),
                workspace=S.J13_WORKSPACE)


def j13_left_after_weights() -> float:
    """The RTX 4090's bytes beside J13's BF16 weights and the workspace."""
    return capacity_check(**_j13_capacity_args(), kv=0.0).headroom


def j13_kv_bytes_per_token() -> float:
    """KV-cache bytes per token of the J13 model (BF16 keys and values)."""
    return model(S.J13_MODEL).kv_bytes_per_token(2)


def j13_max_batch(context: int) -> int:
    """The most requests of ``context`` tokens (BF16 KV cache) that fit J13's RTX 4090."""
    return max_batch(**_j13_capacity_args(), context=context,
                     kv_bytes_per_token=j13_kv_bytes_per_token())


def j07_lines() -> list[str]:
    """The eleven lines of J07 §7, computed."""
    h100, a100 = S.j07_h100(), S.j07_a100()
    n, bw = S.J07_PARAMS, S.J07_BYTES_PER_PARAM
    one = decode_step(n, h100, bytes_per_param=bw)   # one request: R = b_W N, F = 2N
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
    b8, b32, b148 = (decode_step(n, h100, bytes_per_param=bw, batch=b) for b in S.J07_BATCHES)
    lines.append(
        f"batch {b8.batch:<4.0f}: compute {shown(b8.t_compute, 'ms', 3, sep=False)}, per-output read "
        f"{shown(b8.read_time_per_output, 'ms', 3, sep=False)}, tput {b8.tokens_per_s:.1f} tok/s")
    lines.append(f"batch {b32.batch:<4.0f}: compute {shown(b32.t_compute, 'ms', 2, sep=False)}")
    verdict = "-> compute now exceeds the read" if b148.bound == "compute" else "-> still below the read"
    lines.append(f"batch {b148.batch:<4.0f}: compute {shown(b148.t_compute, 'ms', 2, sep=False)} {verdict}")

    chk = j07_capacity()
    kv_one = chk.kv
    rel = "<=" if chk.fits else ">"
    lines.append(
        f"capacity (8-bit, {tokens_k(S.J07_CONTEXT, 'k')} context): "
        f"{shown(chk.weights, 'GB', 2, bare=True, sep=False)} + "
        f"{shown(chk.kv, 'GB', 2, bare=True, sep=False)} + "
        f"{shown(chk.workspace, 'GB', 2, bare=True, sep=False)}"
        f" = {shown(chk.total, 'GB', 2, sep=False)} {rel} {shown(chk.capacity, 'GB', 1, sep=False)}")
    left = j07_left_after_weights()
    b_max = j07_max_batch()
    lines.append(
        f"left after weights {shown(left, 'GB', 2, sep=False)}; one {S.J07_CONTEXT}"
        f"-token KV {shown(kv_one, 'GB', 2, sep=False)} "
        f"-> at most {b_max} {tokens_k(S.J07_CONTEXT, 'k')} requests (workspace not counted)")
    on_a100 = decode_step(n, a100, bytes_per_param=bw)
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

    uniform, packed = j13_padding(0.0), j13_padding(1.0)
    per_expert_packed = packed.useful // packed.active_experts
    lines.append(
        f"η_shape ({S.MOE_TILE_ROWS}-row padding): uniform {uniform.active_experts}×{S.MOE_TILE_ROWS} = "
        f"{uniform.executed} rows / concentrated {packed.active_experts}×{per_expert_packed} = "
        f"{packed.executed} rows → {uniform.executed / packed.executed:.1f}×")

    gpu = S.j13_rtx4090()
    q = model(S.J13_MODEL)
    weights = q.weight_bytes(S.J13_BYTES_PER_PARAM)
    m_kv = j13_kv_bytes_per_token()
    left = j13_left_after_weights()
    s8, s16 = S.J13_CONTEXTS
    one8 = kv_cache_bytes(s8, m_kv)
    lines.append(
        f"RTX 4090 {shown(gpu.mem_capacity, 'GB', 0, sep=False)}"
        f": weights {shown(weights, 'GB', 2, sep=False)}, remaining "
        f"{shown(left, 'GB', 2, sep=False)}; {tokens_k(s8)} single request {shown(one8, 'GB', 2, sep=False)}")
    b_max8 = j13_max_batch(s8)
    for batch in (b_max8, b_max8 + 1):
        kv = kv_cache_bytes(s8, m_kv, batch=batch)
        ok = capacity_check(**_j13_capacity_args(), kv=kv).fits
        lines.append(f"{batch} × {tokens_k(s8)} = {shown(kv, 'GB', 2, sep=False)}"
                     f" {'fits' if ok else 'exceeds'}")
    one16 = kv_cache_bytes(s16, m_kv)
    b_max16 = j13_max_batch(s16)
    lines.append(f"{tokens_k(s16)}: each {shown(one16, 'GB', 2, sep=False)} → fits {b_max16}")
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
