"""Exercises for chapter J07 (one decode step from a few numbers).

Each registry id is the ``:label:`` of the exercise on ``book/1_decode_step/06_self_test.ipynb``
and each ``title`` the name the reader sees there ("Exercise 1.3").  Every exercise
needs its own idea:

* ``j07-e1``: a worked example (the capacity check), solved on the page; the page
  shows how to check an answer with it.
* ``j07-1`` … ``j07-4``: the ground of the source's four self-test questions (§10), each posed
  as the book's own question.
  1 and 3 keep the source's numbers and answers; 2 and 4 keep the source's idea with a
  twist, because the chapter pages already print the source's answers to them
  (2: the bytes per weight include the quantisation scales; 4: how short requests would
  have to be for B* of them to fit).
* ``j07-n1`` … ``j07-n5`` (new): max against sum, utilisation from a measurement, which fix
  helps once the KV cache is read too, the bandwidth a target needs, B* with 4-bit weights.
"""
from __future__ import annotations

import math

from .. import source as S
from ..capacity import capacity_check, kv_cache_bytes
from ..display import shown
from ..hardware import accelerator
from ..models import model
from ..step import batch_turning_point, decode_step, read_time
from ..units import GB
from .spec import Choice, Exercise, register, tbs, tflops, yes_no

#: group quantisation in exercise 1.2: 4-bit weights, one 16-bit scale per group of 32
Q4_BITS, Q4_SCALE_BITS, Q4_GROUP = 4, 16, 32
#: exercise 1.5: requests and tokens of context each, on the H200
N1_BATCH, N1_CONTEXT = 100, 512
#: exercise 1.6: a measured time per token at batch 1 on the H100 (an assumed measurement)
N2_MEASURED = 28e-3
#: exercise 1.7: requests and tokens of context each, on the H100
N3_BATCH, N3_CONTEXT = 2, 4096
#: exercises 1.7 to 1.9: 4-bit weights, half a byte per parameter (scales left out)
HALF_BYTE = 0.5


def _register(title: str, **fields) -> Exercise:
    """Register an exercise with ``title``, the name the reader sees ("Exercise 1.3")."""
    return register(Exercise(title=title, **fields))


def _h100():
    return S.j07_h100()


def _m_kv():
    """KV-cache bytes per token of the J07 model (BF16 keys and values)."""
    return model(S.J07_MODEL).kv_bytes_per_token(2)


def _ms(t: float) -> str:
    return f"{shown(t, 'ms', 2)}"


# --- 1.1: the A100 (source question 1) ----------------------------------------------
def _a100_read():
    return read_time(S.J07_PARAMS * S.J07_BYTES_PER_PARAM, S.j07_a100()) * 1e3


_register(
    "Exercise 1.1",
    id="j07-1",
    question=(f"A team owns A100 80GB cards ({tbs('A100 80GB')} TB/s, "
              f"{tflops('A100 80GB')} TFLOP/s) and has a 10 ms target. What is the shortest "
              "step an A100 could run for the same model: its read lower bound, in ms? "
              "What does it tell the team?"),
    unit="ms", answer=_a100_read,
    solution=lambda: (
        f"T_read = b_W·N / β = {shown(S.J07_PARAMS * S.J07_BYTES_PER_PARAM, 'GB', 0)} / "
        f"{shown(S.j07_a100().mem_bandwidth, 'GB/s', 0)} = {_a100_read():.1f} ms > "
        f"{shown(S.J07_TARGET_STEP, 'ms', 0)}: the A100s cannot meet the target, whatever the "
        "software; the H100's floor misses it too, so a step must read fewer bytes, or read "
        "them faster."),
    source_answer=34.3,
    hints=("The read bound is the bytes of all weights divided by the memory bandwidth: "
           "T_read = b_W·N / β.",
           "Use the A100's bandwidth in bytes/s; the weights stay 70 GB."),
    parts=(yes_no("Is 10 ms per token reachable on an A100?",
                  lambda: _a100_read() <= S.J07_TARGET_STEP * 1e3,
                  "The read bound alone is above 10 ms."),),
)


# --- 1.2: 4-bit weights with their scales (source question 2, with the scales) -------
def q4_bytes_per_weight() -> float:
    """Bytes a step reads per weight in exercise 1.2: ``(bits + scale bits / group) / 8``."""
    return (Q4_BITS + Q4_SCALE_BITS / Q4_GROUP) / 8


def _q4_read():
    return read_time(S.J07_PARAMS * q4_bytes_per_weight(), _h100()) * 1e3


_register(
    "Exercise 1.2",
    id="j07-2",
    question=(f"Store the weights in {Q4_BITS} bits with group quantisation: every group of "
              f"{Q4_GROUP} weights shares one {Q4_SCALE_BITS}-bit scale, stored beside them. "
              "What does the read lower bound on the H100 become, in ms?"),
    unit="ms", answer=_q4_read,
    solution=lambda: (
        f"b_W = ({Q4_BITS} + {Q4_SCALE_BITS}/{Q4_GROUP}) bits / 8 = "
        f"{q4_bytes_per_weight():.4g} bytes; R_W = {shown(S.J07_PARAMS * q4_bytes_per_weight(), 'GB', 3)}; "
        f"T_read = R_W / {shown(_h100().mem_bandwidth, 'GB/s', 0)} = {_q4_read():.2f} ms, "
        f"still above {shown(S.J07_TARGET_STEP, 'ms', 0)}."),
    hints=("Count the bits a step reads per weight: the weight's own bits plus its share of "
           "the group's scale.",
           "Bytes per weight = bits per weight / 8; then T_read = b_W·N / β."),
    parts=(yes_no("Does the step reach 10 ms?",
                  lambda: _q4_read() <= S.J07_TARGET_STEP * 1e3,
                  "The scales keep the read bound above 10 ms."),),
)


# --- 1.3: batch 32 (source question 3) ------------------------------------------------
def _b32():
    return decode_step(S.J07_PARAMS, _h100(), bytes_per_param=S.J07_BYTES_PER_PARAM, batch=32)


_register(
    "Exercise 1.3",
    id="j07-3",
    question=("A dashboard divides each step's weight-read time by the tokens the step "
              "produced. What does it show with 32 requests in the batch, in ms? Is it "
              "how long a user in that batch waits for each token?"),
    unit="ms", answer=lambda: _b32().read_time_per_output * 1e3,
    solution=lambda: (
        f"T_read / B = {shown(_b32().t_read, 'ms', 2)} / 32 = "
        f"{shown(_b32().read_time_per_output, 'ms', 2)} per output. That is what a token costs the card, "
        f"not the user's wait: each token comes only when the whole "
        f"{shown(_b32().t_step, 'ms', 2)} step ends."),
    source_answer=0.65,
    hints=("The step still reads every weight once; divide that read time by the batch.",),
    parts=(yes_no("Is the dashboard's figure a user's wait per token?", lambda: False,
                  "Each token comes only when the whole step ends."),),
)


# --- 1.4: how short would B* requests have to be? (source question 4) -----------------
def bstar_requests() -> int:
    """B* of the source's case as a whole number of requests: ``ceil(b_W·Π / 2β)``."""
    return math.ceil(batch_turning_point(_h100(), bytes_per_param=S.J07_BYTES_PER_PARAM))


def _bstar_context():
    left = _h100().mem_capacity - S.J07_WEIGHTS_8BIT
    return math.floor(left / (bstar_requests() * _m_kv()))


_register(
    "Exercise 1.4",
    id="j07-4",
    question=("A planner wants to run the H100 at its turning point, 148 requests per step. "
              "Share the memory left after the weights (the source's 80e9-byte reading, "
              "workspace not counted) equally among them: how many tokens of context could "
              "each keep? What does that say about the plan?"),
    unit="tokens", answer=_bstar_context,
    solution=lambda: (
        f"Left: {shown((_h100().mem_capacity - S.J07_WEIGHTS_8BIT), 'GB', 2)}; one token of context "
        f"costs {_m_kv():,} bytes of KV cache; ⌊left / ({bstar_requests()} × {_m_kv():,})⌋ = "
        f"{_bstar_context()} tokens per request: far too short for real requests, so the "
        f"batch a card can hold, not B*, sets the pace."),
    rel_tol=0.0, abs_tol=1.0,
    hints=("Subtract the weights from the capacity, share the rest among 148 requests, and "
           "divide by the KV bytes of one token.",),
)


# --- 1.5: max against sum -------------------------------------------------------------
def n1_step():
    """The 1.5 step: N1_BATCH requests of N1_CONTEXT tokens on the H200, KV read counted."""
    kv = kv_cache_bytes(N1_CONTEXT, _m_kv(), batch=N1_BATCH)
    return decode_step(S.J07_PARAMS, "H200 SXM", bytes_per_param=S.J07_BYTES_PER_PARAM, batch=N1_BATCH,
                       kv_bytes=kv)


def _n1_saving():
    st = n1_step()
    return (st.t_read + st.t_compute - st.t_step) * 1e3


_register(
    "Exercise 1.5",
    id="j07-n1",
    question=(f"On an H200 SXM ({tbs('H200 SXM')} TB/s, {tflops('H200 SXM')} TFLOP/s), "
              f"{N1_BATCH} requests with {N1_CONTEXT} tokens of context each are decoded "
              "together, 70B model at 1 byte per parameter. A step reads the weights and "
              "every request's KV cache. How much shorter, in ms, is the step's lower bound "
              "when reads and arithmetic overlap than when they run one after the other?"),
    unit="ms", answer=_n1_saving,
    solution=lambda: (
        f"Read: {shown(n1_step().bytes_read, 'GB', 2)} → {_ms(n1_step().t_read)}; arithmetic: "
        f"{shown(n1_step().flops, 'TFLOP', 0)} → {_ms(n1_step().t_compute)}. Overlapped: the "
        f"larger, {_ms(n1_step().t_step)}; serial: the sum, "
        f"{_ms(n1_step().t_read + n1_step().t_compute)}. The overlap saves the smaller one, "
        f"{_n1_saving():.2f} ms."),
    hints=("Work out both bounds; count the KV caches in the bytes read.",
           "Serial minus overlapped is sum minus maximum: the smaller of the two times."),
)


# --- 1.6: bandwidth utilisation from a measurement ------------------------------------
def _n2_mbu():
    st = decode_step(S.J07_PARAMS, _h100(), bytes_per_param=S.J07_BYTES_PER_PARAM)
    return st.bytes_read / N2_MEASURED / _h100().mem_bandwidth * 100


_register(
    "Exercise 1.6",
    id="j07-n2",
    question=(f"A team serves the 70B model at 1 byte per parameter on one H100, one request "
              f"at a time with short contexts, and measures {N2_MEASURED * 1e3:g} ms per token. "
              "What memory-bandwidth utilisation (MBU) does that imply, in %?"),
    unit="%", answer=_n2_mbu,
    solution=lambda: (
        f"Achieved bandwidth: {shown(S.J07_PARAMS, 'GB', 0)} / {N2_MEASURED * 1e3:g} ms = "
        f"{shown(S.J07_PARAMS / N2_MEASURED, 'TB/s', 2)}, against "
        f"{shown(_h100().mem_bandwidth, 'TB/s', 2)}: MBU = {_n2_mbu():.1f}%, the read bound "
        f"divided by the measured time."),
    hints=("MBU = the bandwidth the step achieves (bytes read / measured time) divided by the "
           "card's peak bandwidth.",),
)


# --- 1.7: which fix helps once the KV cache is read too -------------------------------
def n3_steps() -> dict:
    """The 1.7 step, its two upgrades and the baseline: ``{name: DecodeStep}``."""
    h = _h100()
    kv = kv_cache_bytes(N3_CONTEXT, _m_kv(), batch=N3_BATCH)
    args = dict(batch=N3_BATCH, kv_bytes=kv)
    return {"baseline": decode_step(S.J07_PARAMS, h, bytes_per_param=S.J07_BYTES_PER_PARAM, **args),
            "4-bit weights": decode_step(S.J07_PARAMS, h, bytes_per_param=HALF_BYTE, **args),
            "twice the bandwidth": decode_step(
                S.J07_PARAMS, h.with_(mem_bandwidth=2 * h.mem_bandwidth),
                bytes_per_param=S.J07_BYTES_PER_PARAM, **args)}


def _n3_better() -> str:
    s = n3_steps()
    return min(("4-bit weights", "twice the bandwidth"), key=lambda k: s[k].t_step)


_register(
    "Exercise 1.7",
    id="j07-n3",
    question=(f"The H100 serves {N3_BATCH} requests with {N3_CONTEXT:,} tokens of context "
              "each; a step reads the weights (1 byte per parameter) and both KV caches. Two "
              "upgrades are on offer: 4-bit weights (half a byte per parameter), or a card "
              "with twice the bandwidth. What is the step's lower bound with the 4-bit "
              "weights, in ms? Which upgrade gives the shorter step?"),
    unit="ms", answer=lambda: n3_steps()["4-bit weights"].t_step * 1e3,
    solution=lambda: (
        f"KV caches: {(n3_steps()['baseline'].bytes_read - S.J07_PARAMS) / GB:.2f} GB, kept "
        f"in BF16. 4-bit weights: {n3_steps()['4-bit weights'].bytes_read / GB:.2f} GB → "
        f"{_ms(n3_steps()['4-bit weights'].t_step)}. Twice the bandwidth: "
        f"{n3_steps()['baseline'].bytes_read / GB:.2f} GB at "
        f"{shown(2 * _h100().mem_bandwidth, 'TB/s', 1)} → "
        f"{_ms(n3_steps()['twice the bandwidth'].t_step)}. Quantising the weights leaves the "
        f"KV bytes alone; more bandwidth speeds up every byte."),
    hints=("Add the KV caches to the bytes a step reads; 4-bit storage halves only the "
           "weights' part.",),
    parts=(Choice("Which upgrade gives the shorter step?", _n3_better,
                  ("4-bit weights", "twice the bandwidth"),
                  "More bandwidth speeds up the KV bytes too; 4-bit weights do not shrink them."),),
)


# --- 1.8: the bandwidth a target needs -------------------------------------------------
def _n4_bandwidth():
    return S.J07_PARAMS * HALF_BYTE / S.J07_TARGET_STEP / 1e12


_register(
    "Exercise 1.8",
    id="j07-n4",
    question=("With 4-bit weights (half a byte per parameter) and one request, what memory "
              "bandwidth, in TB/s, does a card need at least for the read bound to meet "
              "10 ms per token? Is the H100's enough?"),
    unit="TB/s", answer=_n4_bandwidth,
    solution=lambda: (
        f"T_read = b_W·N / β ≤ {shown(S.J07_TARGET_STEP, 'ms', 0)} ⇔ β ≥ b_W·N / 10 ms = "
        f"{shown(S.J07_PARAMS * HALF_BYTE, 'GB', 0)} / {shown(S.J07_TARGET_STEP, 'ms', 0)} = "
        f"{_n4_bandwidth():.2f} TB/s. The H100's {shown(_h100().mem_bandwidth, 'TB/s', 2)} falls "
        f"just short."),
    hints=("Solve the read bound for the bandwidth: β ≥ b_W·N / T_target.",),
    parts=(yes_no("Is the H100's bandwidth enough?",
                  lambda: _h100().mem_bandwidth >= _n4_bandwidth() * 1e12,
                  "It is a little below the bandwidth the target needs."),),
)


# --- 1.9: B* with 4-bit weights on the H200 ---------------------------------------------
def _n5_batch():
    """Smallest whole batch at which the H200's compute bound exceeds its read bound."""
    b = math.floor(batch_turning_point("H200 SXM", bytes_per_param=HALF_BYTE)) + 1
    assert decode_step(S.J07_PARAMS, "H200 SXM", bytes_per_param=HALF_BYTE, batch=b).bound == "compute"
    assert decode_step(S.J07_PARAMS, "H200 SXM", bytes_per_param=HALF_BYTE, batch=b - 1).bound == "memory"
    return b


_register(
    "Exercise 1.9",
    id="j07-n5",
    question=("With 4-bit weights (half a byte per parameter) on an H200 SXM, from which whole "
              "batch size on is a decode step compute-bound? Count the weights only, as B* "
              "does."),
    unit="requests", answer=_n5_batch,
    solution=lambda: (
        f"B* = b_W·Π / (2β) = {HALF_BYTE} × {accelerator('H200 SXM').peak_flops / 1e12:.1f}e12 "
        f"/ (2 × {accelerator('H200 SXM').mem_bandwidth / 1e12:.1f}e12) = "
        f"{batch_turning_point('H200 SXM', bytes_per_param=HALF_BYTE):.2f}; "
        f"the first whole batch above it is "
        f"{_n5_batch()}."),
    rel_tol=0.0,
    hints=("B* = b_W·Π / (2β): halving the bytes per weight halves it. Then take the first "
           "whole batch above it.",),
)


# --- the worked example --------------------------------------------------------------
def _e1():
    kv = kv_cache_bytes(S.J07_CONTEXT, _m_kv())
    return capacity_check(_h100().mem_capacity, S.J07_WEIGHTS_8BIT, kv, workspace=S.J07_WORKSPACE)


def _e1_total():
    return _e1().total / GB


_register(
    "Exercise",
    id="j07-e1",
    question=(f"Does the 70B model at 8 bits ({shown(S.J07_WEIGHTS_8BIT, 'GB', 2)} resident) fit "
              f"on the H100 (80e9 bytes, the source's reading) beside one request of "
              f"{S.J07_CONTEXT:,} tokens ({_m_kv():,} bytes of KV cache per token) and a "
              "2 GiB workspace? What is the total, in GB?"),
    unit="GB", answer=_e1_total,
    solution=lambda: (
        f"{shown(S.J07_WEIGHTS_8BIT, 'GB', 2, bare=True)}"
        f" + {shown(kv_cache_bytes(S.J07_CONTEXT, _m_kv()), 'GB', 2, bare=True)} + "
        f"{shown(S.J07_WORKSPACE, 'GB', 2, bare=True)} = {_e1_total():.2f} GB ≤ "
        f"{shown(_h100().mem_capacity, 'GB', 0)}: it fits, with "
        f"{_h100().mem_capacity / GB - _e1_total():.2f} GB to spare."),
    hints=("Add the weights, one request's KV cache (tokens × bytes per token) and the "
           "workspace (2 GiB = 2 × 2³⁰ bytes).",),
    parts=(yes_no("Does it fit?", lambda: _e1().fits,
                  "The total is below the capacity."),),
)
