"""Exercises for chapter 2, the source's J13 (why a card cannot run at full speed).

``ch2-1`` … ``ch2-4`` are the source's §10 self-test; ``ch2-n1`` … ``ch2-n6`` are
new, and each needs an idea none of the others uses:

=========  =========================================================
id         idea
=========  =========================================================
ch2-1      intensity of one GEMM, ``I = F/V``
ch2-2      ridge point of a card, ``I* = Π/β``
ch2-3      rows executed after padding to tiles
ch2-4      capacity inequality, rounded down for ``B``
ch2-n1     the inverse: rows ``M*`` that reach the ridge (MI300X)
ch2-n2     the ceiling ``M → ∞``: widths that can never reach it
ch2-n3     capacity inequality solved for the context ``S``
ch2-n4     padding in time: ``max(F_pad/Π, V/β)``
ch2-n5     Amdahl turned around: the ``f`` a target needs
ch2-n6     utilisation: a measured step against its read floor
=========  =========================================================

The id of each is the ``:label:`` of its ``{exercise}`` on the self-test page
(:data:`EXERCISES` lists them in the page's order, from which the registry numbers
them).  The page poses the questions and works the solutions with the numbers
:func:`selftest_values` computes; the answers are SI values (a fraction for ``"%"``).
"""
from __future__ import annotations

from infra_calc import source as S
from infra_calc.accelerators import accelerator
from infra_calc.capacity import kv_cache_bytes, max_context
from infra_calc.decode import model_decode_step
from infra_calc.display import shown, tokens_k
from infra_calc.models import model
from infra_calc.roofline import (
    arithmetic_intensity,
    critical_rows,
    gemm_bytes,
    gemm_flops,
    gemm_roofline,
    intensity_limit,
)
from infra_calc.scenarios import (
    j13_capacity,
    j13_capacity_args,
    j13_kv_bytes_per_token,
    j13_left_after_weights,
    j13_max_batch,
    j13_padding,
)
from infra_calc.shape import pad_to_tile, padded_gemm
from infra_calc.step import mbu

from ..pagevalues import PageValues
from .spec import Choice, Exercise

#: inputs of the new exercises (the book's, not the source's)
N3_BATCH = 4                      # requests that must fit at once
N4_ROWS, N4_TILE_ROWS = 300, 128  # rows sent to one expert; a large kernel's row tile
N5_UNIT_SPEEDUP, N5_TARGET = 4.0, 2.0
N6_MEASURED = 8e-3                # s per token: a made-up measurement
N6_CONTEXT = 4096                 # tokens already in the request's KV cache
#: the words ch2-1 answers with, for the labels of :func:`~infra_calc.bound.bounds`
BOUND_WORDS = {"compute": "compute-bound", "memory": "bandwidth-bound"}


def _qwen():
    return model(S.J13_MODEL)


def _values_givens(v):
    """The numbers the questions give."""
    v.K = shown(S.J13_K, digits=0)
    v.Ks = shown(S.J13_K, digits=0, sep=False)      # in a matrix shape: 4096×4096
    v.m_mid = shown(S.J13_ROWS[1], digits=0)
    v.m_hi = shown(S.J13_ROWS[2], digits=0)
    v.tokens = shown(S.MOE_TOKENS, digits=0)
    v.top_k = shown(S.MOE_TOP_K, digits=0)
    v.experts = shown(S.MOE_EXPERTS, digits=0)
    v.tile = shown(S.MOE_TILE_ROWS, digits=0)
    v.ws = shown(S.J13_WORKSPACE, "GiB", 0)
    v.s8k = tokens_k(S.J13_CONTEXTS[0], "")        # the prose writes the K
    v.cap_src = shown(S.j13_rtx4090().mem_capacity, "GB", 0)


# --- the source's questions ---------------------------------------------------
def _i64():
    return arithmetic_intensity(64, S.J13_K, S.J13_N, bytes_per_element=S.J13_BYTES_PER_ELEMENT)


EX_1 = Exercise(
    "ch2-1", "FLOP/byte", _i64, source_answer=62.1,
    hints=("I = F / V with F = 2MKN and V = b(MK + KN + MN), b = 2 bytes.",),
    parts=(Choice("Compute- or bandwidth-bound on an H100?",
                  lambda: BOUND_WORDS[gemm_roofline(64, S.J13_K, S.J13_N, S.j13_h100(),
                                                    bytes_per_element=S.J13_BYTES_PER_ELEMENT).bound],
                  tuple(BOUND_WORDS.values()),
                  "I is far below the ridge point I*."),),
)


def _values_1(v):
    K, N, b = S.J13_K, S.J13_N, S.J13_BYTES_PER_ELEMENT
    i64, ridge = _i64(), S.j13_h100().ridge_point
    v.f64 = shown(gemm_flops(64, K, N), "MFLOP", 2)
    v.v64 = shown(gemm_bytes(64, K, N, bytes_per_element=b), "MiB", 2)
    v.i64 = shown(i64, "FLOP/byte", 1)
    v.ridge = shown(ridge, "FLOP/byte", 1)
    v.gap64 = shown(ridge / i64, "×", 1)


def _i256():
    return arithmetic_intensity(256, S.J13_K, S.J13_N, bytes_per_element=S.J13_BYTES_PER_ELEMENT)


EX_2 = Exercise(
    "ch2-2", "FLOP/byte", lambda: S.j13_h100().ridge_point, source_answer=295.3,
    hints=("I* = Π / β: peak FLOP/s over bytes/s.",),
)


def _values_2(v):
    K, N, b = S.J13_K, S.J13_N, S.J13_BYTES_PER_ELEMENT
    h100 = S.j13_h100()
    v.pi = shown(h100.peak_flops, "TFLOP/s", 1)
    v.beta = shown(h100.mem_bandwidth, "TB/s", 2)
    v.i256 = shown(_i256(), "FLOP/byte", 1)
    # the source's figure: I and I* rounded to one decimal, as it prints them (why: page 01)
    v.short = shown(1 - round(_i256(), 1) / round(h100.ridge_point, 1), "%", 1)
    v.mstar = shown(_m_star("H100 SXM"), "rows", 1)
    v.w_share = shown(K * N * b / gemm_bytes(256, K, N, bytes_per_element=b), "%", 0)


EX_3 = Exercise(
    "ch2-3", "rows", lambda: j13_padding(0.0).executed, rel_tol=0.0,
    source_answer=4096,
    hints=("Each active expert's rows are rounded up to a whole tile.",),
)


def _values_3(v):
    pr = j13_padding(0.0)
    v.dispatch = shown(pr.useful, digits=0)
    v.per_expert = shown(pr.rows_per_expert, digits=0)
    v.executed = shown(pr.executed, digits=0)
    v.waste = shown(pr.waste_ratio, "×", 0)
    v.zero_share = shown(1 - pr.useful / pr.executed, "%", 1)


def _b4090():
    return j13_max_batch(S.J13_CONTEXTS[0])


EX_4 = Exercise(
    "ch2-4", "requests", _b4090, rel_tol=0.0, source_answer=4, side="at_most",
    hints=("Capacity − weights − workspace, divided by one conversation's KV cache "
           "(its tokens × the KV bytes per token), rounded down.",),
)


def _values_4(v):
    left, m_kv, s8 = j13_left_after_weights(), j13_kv_bytes_per_token(), S.J13_CONTEXTS[0]
    v.w = shown(j13_capacity().weights, "GB", 2)
    v.left = shown(left, "GB", 2)
    v.one8 = shown(kv_cache_bytes(s8, m_kv), "GB", 2)
    v.room = shown(left / kv_cache_bytes(s8, m_kv), digits=2)
    v.m_kv_kib = shown(m_kv, "KiB", 0)
    v.b4 = shown(_b4090(), digits=0)


# --- new exercises (not in the source) ------------------------------------------
def _m_star(name):
    return critical_rows(S.J13_K, S.J13_N, accelerator(name), bytes_per_element=S.J13_BYTES_PER_ELEMENT)


EX_N1 = Exercise(
    "ch2-n1", "rows", lambda: _m_star("MI300X"),
    hints=("First the card's ridge point I* = Π/β; then set I(M) = I* and solve for M.",
           "M* = I*·b·K·N / (2·K·N − I*·b·(K + N)), with b = 2 bytes."),
    parts=(Choice("More or fewer rows than on the H100?",
                  lambda: "fewer" if _m_star("MI300X") < _m_star("H100 SXM") else "more",
                  ("more", "fewer"), "The MI300X's ridge point is lower than the H100's."),),
)


def _values_n1(v):
    mi = accelerator("MI300X")
    v.mi_pi = shown(mi.peak_flops, "TFLOP/s", 1)
    v.mi_bw = shown(mi.mem_bandwidth, "TB/s", 1)
    v.mi_ridge = shown(mi.ridge_point, "FLOP/byte", 1)
    v.mi_mstar = shown(_m_star("MI300X"), "rows", 1)
    v.h100_mstar = shown(_m_star("H100 SXM"), digits=1)
    v.i_limit = shown(intensity_limit(S.J13_K, S.J13_N, bytes_per_element=S.J13_BYTES_PER_ELEMENT),
                      "FLOP/byte", 0)


def _width_floor():
    """Square BF16 weights K×K: the limit 2K²/(b·2K) = K/b passes I* only for K > b·I*."""
    return S.J13_BYTES_PER_ELEMENT * S.j13_h100().ridge_point


EX_N2 = Exercise(
    "ch2-n2", "elements", _width_floor,
    hints=("Let M grow without bound in I(M) = 2MKN / (b(MK + KN + MN)), with N = K.",
           "The limit is 2KN / (b(K + N)); set it equal to I*."),
)


def _values_n2(v):
    K, b = S.J13_K, S.J13_BYTES_PER_ELEMENT
    v.b = shown(b, digits=0)
    v.k_floor = shown(_width_floor(), digits=1)
    v.i_lim_4096 = shown(intensity_limit(K, K, bytes_per_element=b), "FLOP/byte", 0)


def _capacity_phys():
    return accelerator("RTX 4090").mem_capacity


def _left_phys():
    """The RTX 4090's physical bytes beside the BF16 weights and the workspace."""
    return j13_capacity(capacity=_capacity_phys()).headroom


def _s_max():
    """The longest context at which N3_BATCH requests fit the card's physical bytes."""
    return max_context(**j13_capacity_args(capacity=_capacity_phys()), batch=N3_BATCH,
                       kv_bytes_per_token=j13_kv_bytes_per_token())


EX_N3 = Exercise(
    "ch2-n3", "tokens", _s_max, rel_tol=0.002, side="at_most",
    hints=("Solve W + B·S·m_KV + M_work ≤ C for S, with B fixed, and round down.",
           "A GiB is 2³⁰ bytes; m_KV is the KV-cache bytes of one token."),
)


def _values_n3(v):
    cap_phys, m_kv = _capacity_phys(), j13_kv_bytes_per_token()
    v.n3_batch = shown(N3_BATCH, digits=0)
    v.cap_phys = shown(cap_phys, "GB", 2)
    v.cap_gib = shown(cap_phys, "GiB", 0)
    v.left_phys = shown(_left_phys(), "GB", 2)
    v.m_kv_bytes = shown(m_kv, digits=0)
    v.n3_per_token = shown(N3_BATCH * m_kv, digits=0)
    v.s_max = shown(_s_max(), "tokens", 0)


def _n4_gemm(tile_rows=N4_TILE_ROWS):
    return padded_gemm(N4_ROWS, S.J13_K, S.J13_N, S.j13_h100(), bytes_per_element=S.J13_BYTES_PER_ELEMENT,
                       tile=(tile_rows, 16, 16))


def _n4_cost():
    """How much longer the padded GEMM's bound is than the unpadded one's, a fraction."""
    return _n4_gemm().padding_slowdown - 1.0


EX_N4 = Exercise(
    "ch2-n4", "%", _n4_cost, rel_tol=0.03,
    hints=("Time is max(FLOPs/Π, bytes/β); the padding adds FLOPs, not bytes.",
           "Compare max(F_pad/Π, V/β) with max(F/Π, V/β); V is the same in both."),
    parts=(Choice("Which limit sets the padded GEMM's time?",
                  lambda: _n4_gemm().bound,
                  ("compute", "memory"),
                  "The padded arithmetic takes longer than reading the weight."),),
)


def _values_n4(v):
    g, g16 = _n4_gemm(), _n4_gemm(S.MOE_TILE_ROWS)
    v.n4_rows = shown(N4_ROWS, digits=0)
    v.n4_tile = shown(N4_TILE_ROWS, digits=0)
    v.n4_padded = shown(pad_to_tile(N4_ROWS, N4_TILE_ROWS), digits=0)
    v.n4_tc = shown(g.t_compute_useful, "µs", 2)
    v.n4_tcp = shown(g.t_compute, "µs", 2)
    v.n4_tr = shown(g.t_read, "µs", 2)
    v.n4_t0 = shown(g.t_floor_unpadded, "µs", 2)
    v.n4_t1 = shown(g.t_floor, "µs", 2)
    v.n4_cost = shown(_n4_cost(), "%", 1)
    v.n4_flops_extra = shown(1 / g.efficiency - 1, "%", 0)
    v.n4_cost16 = shown(g16.padding_slowdown - 1, "%", 1)


def _f_needed():
    """Amdahl solved for f: S = 1/((1 − f) + f/s)  ⇔  f = (1 − 1/S) / (1 − 1/s)."""
    return (1.0 - 1.0 / N5_TARGET) / (1.0 - 1.0 / N5_UNIT_SPEEDUP)


EX_N5 = Exercise(
    "ch2-n5", "%", _f_needed,
    hints=("Amdahl: S = 1 / ((1 − f) + f/s); here S and s are given, f is unknown.",),
)


def _values_n5(v):
    v.n5_s = shown(N5_UNIT_SPEEDUP, "×", 0)
    v.n5_target = shown(N5_TARGET, "×", 0)
    v.n5_f = shown(_f_needed(), "%", 1)


def _n6_step():
    """The 2.10 step: one request of N6_CONTEXT tokens of J13's model (BF16 weights and
    cache) on J13's H100, the weights it multiplies and its KV cache read."""
    return model_decode_step(S.J13_MODEL, S.j13_h100(), batch=1, context=N6_CONTEXT,
                             bytes_per_param=S.J13_BYTES_PER_PARAM,
                             kv_bytes_per_element=S.KV_BYTES_PER_ELEMENT)


def _mbu():
    """MBU of the 2.10 step: its read floor over its measured time, a fraction."""
    return mbu(_n6_step().bytes_read, S.j13_h100(), seconds=N6_MEASURED)


EX_N6 = Exercise(
    "ch2-n6", "%", _mbu, rel_tol=0.03,
    hints=("MBU = bytes a step must read / (measured step time × bandwidth).",
           "Count the weights a decode step multiplies (not the embedding table, which is "
           "gathered) and the KV cache of every token of context."),
)


def _values_n6(v):
    v.t_meas = shown(N6_MEASURED, "ms", 0)
    v.n6_ctx = shown(N6_CONTEXT, digits=0)
    st = _n6_step()
    v.n6_w = shown(st.weight_bytes, "GB", 2)
    v.n6_kv = shown(st.kv_bytes, "GB", 2)
    v.n6_bytes = shown(st.bytes_read, "GB", 2)
    v.n6_floor = shown(st.t_read, "ms", 2)
    v.n6_mbu = shown(_mbu(), "%", 0)


# --- ch2-c1 and ch2-c2: argued, not computed, after the registered ones ------
def _values_argued(v):
    K, N, b = S.J13_K, S.J13_N, S.J13_BYTES_PER_ELEMENT
    v.i1 = shown(arithmetic_intensity(1, K, N, bytes_per_element=b), "FLOP/byte", 1)
    v.i_prefill = shown(arithmetic_intensity(K, K, N, bytes_per_element=b), "FLOP/byte", 0)
    m70 = model(S.J07_MODEL)                 # the J07 model, exact, 2 bytes per parameter
    v.w70 = shown(m70.weight_bytes(2), "GB", 2)
    v.w70_round = shown(2 * S.J07_PARAMS, "GB", 0)   # the source's rounded 70e9 parameters


# --- the numbers the self-test page shows ------------------------------------------
def selftest_values():
    """The numbers ``book/2_full_speed/08_self_test.ipynb`` shows, as a :class:`~bookkit.PageValues`.

    One call at the top of the page, so that the cells between an exercise and its
    solution hold only the answer checker; the page checks these against the source
    at its end.  Each exercise's numbers are set by the ``_values_<id>`` function beside
    it, in the page's order.
    """
    return PageValues.from_parts(_values_givens, _values_1, _values_2, _values_3, _values_4,
                                 _values_n1, _values_n2, _values_n3, _values_n4, _values_n5,
                                 _values_n6, _values_argued)


#: the chapter's exercises, in the order its self-test page poses them: the registry
#: numbers them from this order (:func:`~bookkit.exercises.registry.with_titles`)
EXERCISES = (EX_1, EX_2, EX_3, EX_4, EX_N1, EX_N2, EX_N3, EX_N4, EX_N5, EX_N6)
