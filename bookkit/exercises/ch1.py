"""Exercises for chapter 1, the source's J07 (one decode step from a few numbers).

Each id is the ``:label:`` of the exercise on ``book/1_decode_step/06_self_test.ipynb``
(:data:`EXERCISES` lists them in the page's order, from which the registry numbers
them); the page poses the questions and works the solutions with the numbers of
:func:`selftest_values`, which the answers below share.  Every exercise needs its own idea:

* ``ch1-e1``: a worked example (the capacity check), solved on the page; the page
  shows how to check an answer with it.
* ``ch1-1`` … ``ch1-4``: the ground of the source's four self-test questions (§10), each posed
  as the book's own question.
  1 and 3 keep the source's numbers and answers; 2 and 4 keep the source's idea with a
  twist, because the chapter pages already print the source's answers to them
  (2: the bytes per weight include the quantisation scales; 4: how short requests would
  have to be for B* of them to fit).
* ``ch1-n1`` … ``ch1-n5`` (new): max against sum, utilisation from a measurement, which fix
  helps once the KV cache is read too, the bandwidth a target needs, B* with 4-bit weights.

Every function returns SI values (seconds, bytes, bytes/s, a fraction).
"""
from __future__ import annotations

import math

from infra_calc import source as S
from infra_calc.accelerators import CATALOG, accelerator
from infra_calc.capacity import kv_cache_bytes, max_context
from infra_calc.display import Shown, shown
from infra_calc.models import model
from infra_calc.scenarios import (
    fix_scenarios,
    j07_capacity,
    j07_decode_step,
    j07_kv_bytes_per_token,
    j07_left_after_weights,
)
from infra_calc.step import batch_turning_point, compute_time, decode_step, mbu, read_time

from ..pagevalues import PageValues
from .spec import Choice, Exercise, yes_no

#: group quantisation in ch1-2: 4-bit weights, one 16-bit scale per group of 32
Q4_BITS, Q4_SCALE_BITS, Q4_GROUP = 4, 16, 32
#: ch1-n1: requests and tokens of context each, on the H200
N1_BATCH, N1_CONTEXT = 100, 512
#: ch1-n2: a measured time per token at batch 1 on the H100 (an assumed measurement)
N2_MEASURED = 28e-3
#: ch1-n3: requests and tokens of context each, on the H100
N3_BATCH, N3_CONTEXT = 2, 4096
#: ch1-n3 to ch1-n5: 4-bit weights, half a byte per parameter (scales left out)
HALF_BYTE = 0.5
#: the question of judgement: the contexts of a long and a short request sharing a step
C1_LONG, C1_SHORT = S.J07_CONTEXT, 128


def _h100():
    return S.j07_h100()


def _values_givens(v):
    """The numbers the questions share: the chapter's model, card and step."""
    h100, m_kv, base = _h100(), j07_kv_bytes_per_token(), j07_decode_step()
    v.target = shown(S.J07_TARGET_STEP, "ms", 0)
    v.bw = shown(S.J07_BYTES_PER_PARAM, digits=0)
    v.half = shown(HALF_BYTE, digits=1)
    v.r = shown(base.bytes_read, "GB", 0)
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


# --- the worked example: the capacity check (the source's, :func:`~infra_calc.scenarios.j07_capacity`)
EX_E1 = Exercise(
    "ch1-e1", "GB", lambda: j07_capacity().total,
    hints=("Add the weights, one request's KV cache (tokens × bytes per token) and the "
           "workspace (a GiB is 2³⁰ bytes).",),
    parts=(yes_no("Does it fit?", lambda: j07_capacity().fits, "The total is below the capacity."),),
    numbered=False,
)


def _values_e1(v):
    e1 = j07_capacity()
    v.kv8 = shown(e1.kv, "GB", 2)
    v.e1 = shown(e1.total, "GB", 2)
    v.e1_spare = shown(e1.headroom, "GB", 2)


# --- ch1-1: the A100 (source question 1) --------------------------------------------
def a100_read():
    """The read bound of the chapter's step on the source's A100, s."""
    return j07_decode_step(hw=S.j07_a100()).t_read


EX_1 = Exercise(
    "ch1-1", "ms", a100_read, source_answer=34.3,
    hints=("The read bound is the bytes of all weights divided by the memory bandwidth: "
           "T_read = b_W·N / β.",
           "Use the A100's bandwidth in bytes/s; the weights stay the same bytes."),
    parts=(yes_no("Is the target reachable on an A100?",
                  lambda: a100_read() <= S.J07_TARGET_STEP,
                  "The read bound alone is above the target."),),
)


def _values_1(v):
    a100 = S.j07_a100()
    v.a100_tbs = shown(a100.mem_bandwidth, "TB/s", 3)
    v.a100_pi = shown(a100.peak_flops, "TFLOP/s", 0)
    v.a100_beta = shown(a100.mem_bandwidth, "GB/s", 0)
    v.s1 = shown(a100_read(), "ms", 1)


# --- ch1-2: 4-bit weights with their scales (source question 2, with the scales) -----
def q4_bytes_per_weight() -> float:
    """Bytes a step reads per weight in ch1-2: ``(bits + scale bits / group) / 8``."""
    return (Q4_BITS + Q4_SCALE_BITS / Q4_GROUP) / 8


def _h100_step(bytes_per_param):
    """The chapter's step, batch 1, on the H100 at ``bytes_per_param`` bytes per weight."""
    return decode_step(S.J07_PARAMS, _h100(), bytes_per_param=bytes_per_param)


def q4_read():
    """The H100's read bound with the ch1-2 weights and their scales, s."""
    return _h100_step(q4_bytes_per_weight()).t_read


EX_2 = Exercise(
    "ch1-2", "ms", q4_read,
    hints=("Count the bits a step reads per weight: the weight's own bits plus its share of "
           "the group's scale.",
           "Bytes per weight = bits per weight / 8; then T_read = b_W·N / β."),
    parts=(yes_no("Does the step reach the target?", lambda: q4_read() <= S.J07_TARGET_STEP,
                  "The scales keep the read bound above the target."),),
)


def _values_2(v):
    v.q4_bits, v.q4_group, v.q4_scale = (shown(x, digits=0) for x in (Q4_BITS, Q4_GROUP,
                                                                       Q4_SCALE_BITS))
    v.q4_bw = shown(q4_bytes_per_weight(), digits=4)
    v.q4_r = shown(_h100_step(q4_bytes_per_weight()).bytes_read, "GB", 2)
    v.s2 = shown(q4_read(), "ms", 2)
    v.q4_plain = shown(_h100_step(HALF_BYTE).t_read, "ms", 2)
    v.q4_extra_pct = shown(q4_bytes_per_weight() / HALF_BYTE - 1, "%", 1)


# --- ch1-3: batch 32 (source question 3) ----------------------------------------------
def b32():
    """The chapter's step with 32 requests."""
    return j07_decode_step(batch=32)


EX_3 = Exercise(
    "ch1-3", "ms", lambda: b32().read_time_per_output, source_answer=0.65,
    hints=("The step still reads every weight once; divide that read time by the batch.",),
    parts=(yes_no("Is the dashboard's figure a user's wait per token?", lambda: False,
                  "Each token comes only when the whole step ends."),),
)


def _values_3(v):
    st32 = b32()
    v.b32 = shown(st32.batch, digits=0)
    v.s3_step = shown(st32.t_step, "ms", 2)
    v.s3_step_bare = shown(st32.t_step, "ms", 2, bare=True)
    v.s3 = shown(st32.read_time_per_output, "ms", 2)
    v.s3_comp = shown(st32.t_compute, "ms", 2)


# --- ch1-4: how short would B* requests have to be? (source question 4) ---------------
def _bstar() -> float:
    """B* of the source's case, ``b_W·Π / 2β``, requests (not rounded)."""
    return batch_turning_point(_h100(), bytes_per_param=S.J07_BYTES_PER_PARAM)


def bstar_requests() -> int:
    """B* of the source's case as a whole number of requests: ``ceil(b_W·Π / 2β)``."""
    return math.ceil(_bstar())


def bstar_context() -> int:
    """Tokens of context each of B* requests could keep beside the weights, no workspace
    (:func:`~infra_calc.capacity.max_context` on J07's capacity check)."""
    alone = j07_capacity(kv=False, workspace=False)
    return max_context(alone.capacity, weights=alone.weights, batch=bstar_requests(),
                       kv_bytes_per_token=j07_kv_bytes_per_token(), workspace=0)


EX_4 = Exercise(
    "ch1-4", "tokens", bstar_context, rel_tol=0.0, abs_tol=1.0, side="at_most",
    hints=("Subtract the weights from the capacity, share the rest among the B* requests, "
           "and divide by the KV bytes of one token; round down.",),
)


def _values_4(v):
    left = j07_left_after_weights()
    v.bstar = shown(_bstar(), digits=1)
    v.bstar_int = shown(bstar_requests(), digits=0)
    v.left = shown(left, "GB", 2)
    v.left_per = shown(left / bstar_requests(), "MB", 2)
    v.left_per_bare = shown(left / bstar_requests(), digits=0)
    v.s4 = shown(bstar_context(), "tokens", 0)


# --- ch1-n1: max against sum ----------------------------------------------------------
def n1_capacity():
    """J07's capacity check (:func:`~infra_calc.scenarios.j07_capacity`) of the ch1-n1 batch,
    N1_BATCH requests of N1_CONTEXT tokens, on the H200: its ``kv`` the batch's KV cache."""
    return j07_capacity(batch=N1_BATCH, context=N1_CONTEXT,
                        capacity=accelerator("H200 SXM").mem_capacity)


def n1_step(overlap=True):
    """The ch1-n1 step on the H200, KV read counted; reads and math serial when not ``overlap``."""
    return j07_decode_step(hw="H200 SXM", batch=N1_BATCH, kv_bytes=n1_capacity().kv, overlap=overlap)


def n1_saving():
    """What overlapping reads and math saves on the ch1-n1 step: serial minus overlapped, s.

    The math is the weights' multiply-adds, ``2BN``, as chapter 1 counts it; the
    attention over the caches (:func:`n1_attention_flops`) is left out, and the
    question says so.
    """
    return n1_step(overlap=False).t_step - n1_step().t_step


def n1_attention_flops():
    """FLOPs of the attention over the ch1-n1 caches, which ``2BN`` leaves out: ``4·B·S·L·H·d_h``."""
    return float(model(S.J07_MODEL).attention_flops(tokens=N1_BATCH, context=N1_CONTEXT))


EX_N1 = Exercise(
    "ch1-n1", "ms", n1_saving,
    hints=("Work out both bounds; count the KV caches in the bytes read and the weights' "
           "multiply-adds, 2BN, in the arithmetic.",
           "Serial minus overlapped is sum minus maximum: the smaller of the two times."),
)


def _values_n1(v):
    h200, base = accelerator("H200 SXM"), j07_decode_step()
    st1, serial1 = n1_step(), n1_step(overlap=False)
    v.h200_tbs = shown(h200.mem_bandwidth, "TB/s", 1)
    v.h200_beta = shown(h200.mem_bandwidth, "GB/s", 0)
    v.h200_pi = shown(h200.peak_flops, "TFLOP/s", 1)
    v.h200_cap = shown(h200.mem_capacity, "GB", 1)
    v.h200_ridge = shown(h200.ridge_point, "FLOP/byte", 1)
    v.n1_b = shown(N1_BATCH, digits=0)
    v.n1_ctx = shown(N1_CONTEXT, digits=0)
    mem1 = n1_capacity()
    v.n1_kv = shown(mem1.kv, "GB", 2)
    v.n1_total = shown(mem1.total, "GB", 2)
    v.n1_r = shown(st1.bytes_read, "GB", 2)
    v.n1_tr = shown(st1.t_read, "ms", 2)
    v.n1_f = shown(st1.flops, "TFLOP", 0)
    v.n1_tc = shown(st1.t_compute, "ms", 2)
    v.n1_sum = shown(serial1.t_step, "ms", 2)
    v.n1 = shown(n1_saving(), "ms", 2)
    v.n1_pct = shown(n1_saving() / serial1.t_step, "%", 0)
    v.n1_att = shown(n1_attention_flops(), "GFLOP", 0)
    v.n1_att_t = shown(compute_time(n1_attention_flops(), h200), "ms", 3)
    v.serial1_pct = shown(base.t_compute / base.t_step, "%", 1)


# --- ch1-n2: bandwidth utilisation from a measurement ---------------------------------
def n2_bytes():
    """The bytes the chapter's step must read with short contexts: the weights it multiplies.

    MBU counts the bytes a step had to read (page 1.2): the exact model's weights
    without its input-embedding table, from which a step gathers one row per request
    (:meth:`~infra_calc.modelspec.ModelSpec.decode_weight_bytes`), not the source's
    round 70 GB; the KV cache of a short context is left out.
    """
    return model(S.J07_MODEL).decode_weight_bytes(S.J07_BYTES_PER_PARAM, 1)


def n2_bandwidth():
    """The bandwidth the chapter's step achieves if it takes N2_MEASURED, bytes/s."""
    return n2_bytes() / N2_MEASURED


def n2_mbu():
    """Memory-bandwidth utilisation of the ch1-n2 measurement, a fraction."""
    return mbu(n2_bytes(), _h100(), seconds=N2_MEASURED)


EX_N2 = Exercise(
    "ch1-n2", "%", n2_mbu, rel_tol=0.005,
    hints=("MBU = the bandwidth the step achieves (bytes read / measured time) divided by the "
           "card's peak bandwidth.",
           "Count the bytes the step must read: the weights it multiplies, not the "
           "embedding table it gathers one row from."),
)


def _values_n2(v):
    h100 = _h100()
    v.n2_meas = shown(N2_MEASURED, "ms", 0)
    v.n2_meas_bare = shown(N2_MEASURED, "ms", 0, bare=True)
    v.n2_r = shown(n2_bytes(), "GB", 2)
    v.n2_read = shown(read_time(n2_bytes(), h100), "ms", 2, bare=True)
    v.n2_bw = shown(n2_bandwidth(), "TB/s", 2)
    v.n2 = shown(n2_mbu(), "%", 1)
    v.n2_src = shown(mbu(j07_decode_step().bytes_read, h100, seconds=N2_MEASURED), "%", 1)


# --- ch1-n3: which fix helps once the KV cache is read too ----------------------------
def n3_kv():
    """KV-cache bytes of the ch1-n3 batch: N3_BATCH requests of N3_CONTEXT tokens."""
    return kv_cache_bytes(N3_CONTEXT, j07_kv_bytes_per_token(), batch=N3_BATCH)


def n3_steps() -> dict:
    """The ch1-n3 step, its two upgrades and the baseline: ``{name: DecodeStep}``, the §5
    cases (:func:`~infra_calc.scenarios.fix_scenarios`) with the ch1-n3 batch and its caches."""
    cases = fix_scenarios(requests=N3_BATCH, kv_bytes=n3_kv())
    return {"baseline": cases["baseline"], "4-bit weights": cases["4-bit weights (70B)"],
            "twice the bandwidth": cases["bandwidth doubled"]}


def n3_better() -> str:
    """The upgrade of ch1-n3 that gives the shorter step."""
    s = n3_steps()
    return min(("4-bit weights", "twice the bandwidth"), key=lambda k: s[k].t_step)


EX_N3 = Exercise(
    "ch1-n3", "ms", lambda: n3_steps()["4-bit weights"].t_step,
    hints=("Add the KV caches to the bytes a step reads; 4-bit storage halves only the "
           "weights' part.",),
    parts=(Choice("Which upgrade shortens the step more?", n3_better,
                  ("4-bit weights", "twice the bandwidth"),
                  "More bandwidth speeds up the KV bytes too; 4-bit weights do not shrink them."),),
)


def _values_n3(v):
    s3 = n3_steps()
    v.n3_b = shown(N3_BATCH, digits=0)
    v.n3_ctx = shown(N3_CONTEXT, digits=0)
    v.n3_kv = shown(n3_kv(), "GB", 2)
    v.n3_base_r = shown(s3["baseline"].bytes_read, "GB", 2)
    v.n3_base = shown(s3["baseline"].t_step, "ms", 2)
    v.n3_q_r = shown(s3["4-bit weights"].bytes_read, "GB", 2)
    v.n3 = shown(s3["4-bit weights"].t_step, "ms", 2)
    v.n3_tc = shown(s3["baseline"].t_compute, "ms", 2)
    v.beta2 = shown(2 * _h100().mem_bandwidth, "TB/s", 2)
    v.n3_bw = shown(s3["twice the bandwidth"].t_step, "ms", 2)
    v.n3_choice = Shown(None, n3_better())


# --- ch1-n4: the bandwidth a target needs ----------------------------------------------
def n4_bandwidth():
    """The bandwidth at which the 4-bit weights' read bound meets the target, bytes/s."""
    return _h100_step(HALF_BYTE).bytes_read / S.J07_TARGET_STEP


EX_N4 = Exercise(
    "ch1-n4", "TB/s", n4_bandwidth,
    hints=("Solve the read bound for the bandwidth: β ≥ b_W·N / T_target.",),
    parts=(yes_no("Is the H100's bandwidth enough?",
                  lambda: _h100().mem_bandwidth >= n4_bandwidth(),
                  "It is a little below the bandwidth the target needs."),),
)


def _values_n4(v):
    need = n4_bandwidth()
    cards = [a.name for a in CATALOG.values()
             if j07_capacity(capacity=a.mem_capacity, kv=False, workspace=False).fits
             and a.mem_bandwidth >= need]
    v.n4_r = shown(_h100_step(HALF_BYTE).bytes_read, "GB", 0)
    v.n4 = shown(need, "TB/s", 2)
    v.n4_short_pct = shown(1 - _h100().mem_bandwidth / need, "%", 1)
    v.n4_cards = Shown(len(cards), ", ".join(cards))


# --- ch1-n5: B* with 4-bit weights on the H200 ------------------------------------------
def n5_batch():
    """Smallest whole batch at which the H200's compute bound exceeds its read bound."""
    return math.floor(batch_turning_point("H200 SXM", bytes_per_param=HALF_BYTE)) + 1


EX_N5 = Exercise(
    "ch1-n5", "requests", n5_batch, rel_tol=0.0,
    hints=("B* = b_W·Π / (2β): halving the bytes per weight halves it. Then take the first "
           "whole batch above it.",),
)


def _values_n5(v):
    v.n5_bstar = shown(batch_turning_point("H200 SXM", bytes_per_param=HALF_BYTE), digits=2)
    v.n5 = shown(n5_batch(), "requests", 0)


# --- the question of judgement: a long and a short request share a step ------------
def _values_judgement(v):
    kv_long, kv_short = (kv_cache_bytes(c, j07_kv_bytes_per_token()) for c in (C1_LONG, C1_SHORT))
    alone = j07_decode_step(kv_bytes=kv_short)
    both = j07_decode_step(batch=2, kv_bytes=kv_long + kv_short)
    v.c1_long, v.c1_short = shown(C1_LONG, digits=0), shown(C1_SHORT, digits=0)
    v.c1_long_kv = shown(kv_long, "GB", 2)
    v.c1_short_kv = shown(kv_short, "GB", 3)
    v.c1_alone = shown(alone.t_step, "ms", 2)
    v.c1_both = shown(both.t_step, "ms", 2)
    v.c1_delta = shown(both.t_step - alone.t_step, "ms", 2)


# --- the numbers the self-test page shows ------------------------------------------
def selftest_values():
    """The numbers ``book/1_decode_step/06_self_test.ipynb`` shows in its questions and solutions.

    One call at the top of the page (``v = selftest_values()``), so the page's hidden
    bookkeeping can sit at its end, away from the exercises; the page's last cells
    check these values against the registry and the library.  Each exercise's numbers
    are set by the ``_values_<id>`` function beside it, in the page's order.

    Returns
    -------
    PageValues
        ``v.<name>``: a :class:`~infra_calc.display.Shown` per number, in its unit.
    """
    return PageValues.from_parts(_values_givens, _values_e1, _values_1, _values_2, _values_3,
                                 _values_4, _values_n1, _values_n2, _values_n3, _values_n4,
                                 _values_n5, _values_judgement)


#: the chapter's exercises, in the order its self-test page poses them: the registry
#: numbers them from this order (:func:`~bookkit.exercises.registry.with_titles`)
EXERCISES = (EX_E1, EX_1, EX_2, EX_3, EX_4, EX_N1, EX_N2, EX_N3, EX_N4, EX_N5)
