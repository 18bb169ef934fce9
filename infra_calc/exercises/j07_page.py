"""What ``book/1_decode_step/06_self_test.ipynb`` shows: every number of its questions and
solutions (the exercises themselves are :mod:`infra_calc.exercises.j07`)."""
from __future__ import annotations

from .. import source as S
from ..capacity import capacity_check, kv_cache_bytes
from ..display import PageValues, Shown, shown
from ..hardware import accelerator, accelerator_names
from ..step import batch_turning_point, decode_step, read_time
from ..units import GB
from .j07 import (
    HALF_BYTE,
    N1_BATCH,
    N1_CONTEXT,
    N2_MEASURED,
    N3_BATCH,
    N3_CONTEXT,
    Q4_BITS,
    Q4_GROUP,
    Q4_SCALE_BITS,
    _a100_read,
    _b32,
    _bstar_context,
    _e1_total,
    _h100,
    _m_kv,
    _n1_saving,
    _n2_mbu,
    _n3_better,
    _n4_bandwidth,
    _n5_batch,
    _q4_read,
    bstar_requests,
    n1_step,
    n3_steps,
    q4_bytes_per_weight,
)

__all__ = ["page_values"]

C1_LONG, C1_SHORT = S.J07_CONTEXT, 128   # the judgement question: two requests' contexts


def page_values():
    """The numbers ``book/1_decode_step/06_self_test.ipynb`` shows in its questions and solutions.

    One call at the top of the page (``v = page_values()``), so the page's hidden
    bookkeeping can sit at its end, away from the exercises; the page's last cells
    check these values against the registry and the library.

    Returns
    -------
    PageValues
        ``v.<name>``: a :class:`~infra_calc.display.Shown` per number, in its unit.
    """
    v = PageValues()
    h100, a100, h200 = _h100(), S.j07_a100(), accelerator("H200 SXM")
    n, bw, m_kv = S.J07_PARAMS, S.J07_BYTES_PER_PARAM, _m_kv()
    base = decode_step(n, h100, bytes_per_param=bw)
    v.target = shown(S.J07_TARGET_STEP, "ms", 0)
    v.bw = shown(bw, digits=0)
    v.half = shown(HALF_BYTE, digits=1)
    v.r = shown(n * bw, "GB", 0)
    v.cap = shown(h100.mem_capacity, "GB", 0)
    v.w8 = shown(S.J07_WEIGHTS_8BIT, "GB", 2)
    v.ctx = shown(S.J07_CONTEXT, digits=0)
    v.mkv = shown(m_kv, "bytes", 0)
    v.mkv_bare = shown(m_kv, digits=0)
    v.ws_gib = shown(S.J07_WORKSPACE, "GiB", 0)
    v.ws = shown(S.J07_WORKSPACE, "GB", 2)
    v.h100_beta = shown(h100.mem_bandwidth, "GB/s", 0)
    v.h100_tbs = shown(h100.mem_bandwidth, "TB/s", 2)
    v.h100_read = shown(base.t_read, "ms", 2)
    v.h100_read_bare = shown(base.t_read, "ms", 2, bare=True)

    # worked example: the capacity check
    kv8 = kv_cache_bytes(S.J07_CONTEXT, m_kv)
    v.kv8 = shown(kv8, "GB", 2)
    v.e1 = shown(_e1_total() * GB, "GB", 2)
    v.e1_spare = shown(h100.mem_capacity - _e1_total() * GB, "GB", 2)

    # 1.1
    v.a100_tbs = shown(a100.mem_bandwidth, "TB/s", 3)
    v.a100_pi = shown(a100.peak_flops, "TFLOP/s", 0)
    v.a100_beta = shown(a100.mem_bandwidth, "GB/s", 0)
    v.s1 = shown(_a100_read() * 1e-3, "ms", 1)

    # 1.2
    v.q4_bits, v.q4_group, v.q4_scale = (shown(x, digits=0) for x in (Q4_BITS, Q4_GROUP,
                                                                       Q4_SCALE_BITS))
    v.q4_bw = shown(q4_bytes_per_weight(), digits=4)
    v.q4_r = shown(n * q4_bytes_per_weight(), "GB", 2)
    v.s2 = shown(_q4_read() * 1e-3, "ms", 2)
    v.q4_plain = shown(read_time(n * HALF_BYTE, h100), "ms", 2)
    v.q4_extra_pct = shown(q4_bytes_per_weight() / HALF_BYTE - 1, "%", 1)

    # 1.3
    b32 = _b32()
    v.b32 = shown(b32.batch, digits=0)
    v.s3_step = shown(b32.t_step, "ms", 2)
    v.s3_step_bare = shown(b32.t_step, "ms", 2, bare=True)
    v.s3 = shown(b32.read_time_per_output, "ms", 2)
    v.s3_comp = shown(b32.t_compute, "ms", 2)

    # 1.4
    left = h100.mem_capacity - S.J07_WEIGHTS_8BIT
    v.bstar = shown(batch_turning_point(h100, bytes_per_param=bw), digits=1)
    v.bstar_int = shown(bstar_requests(), digits=0)
    v.left = shown(left, "GB", 2)
    v.left_per = shown(left / bstar_requests(), "MB", 2)
    v.left_per_bare = shown(left / bstar_requests(), digits=0)
    v.s4 = shown(_bstar_context(), "tokens", 0)

    # 1.5
    st1 = n1_step()
    kv1 = st1.bytes_read - n * bw
    v.h200_tbs = shown(h200.mem_bandwidth, "TB/s", 1)
    v.h200_beta = shown(h200.mem_bandwidth, "GB/s", 0)
    v.h200_pi = shown(h200.peak_flops, "TFLOP/s", 1)
    v.h200_cap = shown(h200.mem_capacity, "GB", 1)
    v.h200_ridge = shown(h200.ridge_point, "FLOP/byte", 1)
    v.n1_b = shown(N1_BATCH, digits=0)
    v.n1_ctx = shown(N1_CONTEXT, digits=0)
    v.n1_kv = shown(kv1, "GB", 2)
    v.n1_total = shown(capacity_check(h200.mem_capacity, S.J07_WEIGHTS_8BIT, kv1,
                                      workspace=S.J07_WORKSPACE).total, "GB", 2)
    v.n1_r = shown(st1.bytes_read, "GB", 2)
    v.n1_tr = shown(st1.t_read, "ms", 2)
    v.n1_f = shown(st1.flops, "TFLOP", 0)
    v.n1_tc = shown(st1.t_compute, "ms", 2)
    v.n1_sum = shown(st1.t_read + st1.t_compute, "ms", 2)
    v.n1 = shown(_n1_saving() * 1e-3, "ms", 2)
    v.n1_pct = shown(_n1_saving() * 1e-3 / (st1.t_read + st1.t_compute), "%", 0)
    v.serial1_pct = shown(base.t_compute / base.t_step, "%", 1)

    # 1.6
    v.n2_meas = shown(N2_MEASURED, "ms", 0)
    v.n2_meas_bare = shown(N2_MEASURED, "ms", 0, bare=True)
    v.n2_bw = shown(n * bw / N2_MEASURED, "TB/s", 2)
    v.n2 = shown(_n2_mbu() / 100, "%", 1)

    # 1.7
    s3 = n3_steps()
    v.n3_b = shown(N3_BATCH, digits=0)
    v.n3_ctx = shown(N3_CONTEXT, digits=0)
    v.n3_kv = shown(s3["baseline"].bytes_read - n * bw, "GB", 2)
    v.n3_base_r = shown(s3["baseline"].bytes_read, "GB", 2)
    v.n3_base = shown(s3["baseline"].t_step, "ms", 2)
    v.n3_q_r = shown(s3["4-bit weights"].bytes_read, "GB", 2)
    v.n3 = shown(s3["4-bit weights"].t_step, "ms", 2)
    v.n3_tc = shown(s3["baseline"].t_compute, "ms", 2)
    v.beta2 = shown(2 * h100.mem_bandwidth, "TB/s", 2)
    v.n3_bw = shown(s3["twice the bandwidth"].t_step, "ms", 2)
    v.n3_choice = Shown(None, _n3_better())

    # 1.8
    need = _n4_bandwidth() * 1e12
    cards = [c for c in accelerator_names()
             if accelerator(c).mem_capacity >= S.J07_WEIGHTS_8BIT
             and accelerator(c).mem_bandwidth >= need]
    v.n4_r = shown(n * HALF_BYTE, "GB", 0)
    v.n4 = shown(need, "TB/s", 2)
    v.n4_short_pct = shown(1 - h100.mem_bandwidth / need, "%", 1)
    v.n4_cards = Shown(len(cards), ", ".join(cards))

    # 1.9
    v.n5_bstar = shown(batch_turning_point(h200, bytes_per_param=HALF_BYTE), digits=2)
    v.n5 = shown(_n5_batch(), "requests", 0)

    # the question of judgement: a long and a short request share a step
    kv_long, kv_short = (kv_cache_bytes(c, m_kv) for c in (C1_LONG, C1_SHORT))
    alone = decode_step(n, h100, bytes_per_param=bw, kv_bytes=kv_short)
    both = decode_step(n, h100, bytes_per_param=bw, batch=2, kv_bytes=kv_long + kv_short)
    v.c1_long, v.c1_short = shown(C1_LONG, digits=0), shown(C1_SHORT, digits=0)
    v.c1_long_kv = shown(kv_long, "GB", 2)
    v.c1_short_kv = shown(kv_short, "GB", 3)
    v.c1_alone = shown(alone.t_step, "ms", 2)
    v.c1_both = shown(both.t_step, "ms", 2)
    v.c1_delta = shown(both.t_step - alone.t_step, "ms", 2)
    return v
