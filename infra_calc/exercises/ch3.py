"""Exercises for chapter 3, "the whole request" (not in the source: ids ``ch3-n*``).

Every answer is computed with the library; the questions take catalog figures
from it too.
"""
from __future__ import annotations

from ..generation import generation_time
from ..hardware import accelerator
from ..kv import critical_context
from ..models import model
from ..parallel import tensor_parallel_step
from ..prefill import prefill_step
from ..step import batch_turning_point
from ..units import GB
from .registry import register
from .spec import Choice, Exercise, tbs, tflops

#: the cases the exercises use (the page reads them from here)
SMALL, BIG, MOE, CARD = "Llama-3.1-8B", "DeepSeek-R1-Distill-Llama-70B", "Mixtral-8x7B", "H100 SXM"
PROMPT, OUTPUT = 2000, 200
CONTEXT_N2 = 1000
BATCH_N6 = 16
CARDS_N5 = 8


def _m(name):
    return model(name)


def _kv(name, b=2):
    return _m(name).kv_bytes_per_token(b)


def n1():
    """S_max of the 8B model on an H100, BF16 cache, tokens."""
    return critical_context(_m(SMALL).params, CARD, _kv(SMALL))


register(Exercise(
    "ch3-n1",
    f"{SMALL} ({_m(SMALL).params / 1e9:.2f}e9 parameters, {_kv(SMALL) // 1024} KiB of BF16 KV "
    f"cache per token) on an {CARD} ({tflops(CARD)} TFLOP/s, {tbs(CARD)} TB/s). Above what "
    "context length does no batch size make a decode step compute-bound?",
    "tokens", n1,
    lambda: (f"S_max = 2Nβ/(Π m_kv) = 2 × {_m(SMALL).params:.4g} × {accelerator(CARD).mem_bandwidth:.4g}"
             f" / ({accelerator(CARD).peak_flops:.4g} × {_kv(SMALL)}) = {n1():,.0f} tokens."),
))


def n2():
    """B*(S) of the 70B model at 1 byte per weight and S = CONTEXT_N2, requests."""
    return batch_turning_point(CARD, 1, params=_m(BIG).params, context=CONTEXT_N2,
                               kv_bytes_per_token=_kv(BIG))


register(Exercise(
    "ch3-n2",
    f"The 70B model ({BIG}) at 1 byte per weight on the {CARD}: J07's B* is "
    f"{batch_turning_point(CARD, 1):.1f}. What is B*(S) when each request holds {CONTEXT_N2:,} "
    "tokens of BF16 KV cache?",
    "requests", n2,
    lambda: (f"B*(S) = N b_W / (2Nβ/Π − S m_kv) with m_kv = {_kv(BIG):,} bytes: "
             f"{n2():.1f} requests, against {batch_turning_point(CARD, 1):.1f} without the cache."),
))


def n3():
    """S_max of the 70B model if it had one KV head per query head (no GQA), tokens."""
    m = _m(BIG)
    return critical_context(m.params, CARD, _kv(BIG) * m.heads // m.kv_heads)


register(Exercise(
    "ch3-n3",
    f"{BIG} shares each KV head among {_m(BIG).heads // _m(BIG).kv_heads} query heads (GQA). "
    f"With plain multi-head attention ({_m(BIG).heads} KV heads), what would S_max be on the {CARD}?",
    "tokens", n3,
    lambda: (f"m_kv grows {_m(BIG).heads // _m(BIG).kv_heads}×, so S_max shrinks as much: "
             f"{critical_context(_m(BIG).params, CARD, _kv(BIG)):,.0f} → {n3():,.0f} tokens."),
    rel_tol=0.02,
))


def n4():
    """TTFT lower bound of a PROMPT-token prompt, 8B, one H100, ms."""
    return prefill_step(SMALL, CARD, PROMPT).t_step * 1e3


register(Exercise(
    "ch3-n4",
    f"What is the lower bound on the time to first token of a {PROMPT:,}-token prompt for {SMALL} "
    f"in BF16 on one idle {CARD}, in ms? Which bound decides?",
    "ms", n4,
    lambda: (f"F = 2PN + 2LP²Hd = {prefill_step(SMALL, CARD, PROMPT).flops / 1e12:.2f} TFLOP, "
             f"R = {prefill_step(SMALL, CARD, PROMPT).bytes_read / GB:.2f} GB; "
             f"max(F/Π, R/β) = {n4():.2f} ms, {prefill_step(SMALL, CARD, PROMPT).bound}-bound."),
    hints=("Prefill does the whole prompt at once: F = 2PN + 2LP²Hd FLOPs against reading the "
           "weights once; the step takes the larger of F/Π and R/β.",),
    parts=(Choice("Which bound decides?",
                  lambda: f"{prefill_step(SMALL, CARD, PROMPT).bound}-bound",
                  ("compute-bound", "memory-bound"),
                  "A long prompt gives every weight thousands of rows to multiply."),),
))


def n5():
    """Speed-up of one 70B decode step (BF16, batch 1) from 1 to CARDS_N5 H100s."""
    one = tensor_parallel_step(BIG, CARD, 1).t_step
    return one / tensor_parallel_step(BIG, CARD, CARDS_N5).t_step


register(Exercise(
    "ch3-n5",
    f"One request of {BIG} in BF16: by how much does tensor parallelism over {CARDS_N5} "
    f"{CARD} cards shorten the decode step (speed-up, 1 card / {CARDS_N5} cards), with "
    f"NVLink at {accelerator(CARD).link_bandwidth / GB:.0f} GB/s per direction and "
    f"{accelerator(CARD).link_latency * 1e6:g} µs per ring step, not overlapped?",
    "×", n5,
    lambda: (f"T_step(1) = {tensor_parallel_step(BIG, CARD, 1).t_step * 1e3:.2f} ms; "
             f"T_step({CARDS_N5}) = {tensor_parallel_step(BIG, CARD, CARDS_N5).t_read * 1e3:.2f} ms "
             f"read + {tensor_parallel_step(BIG, CARD, CARDS_N5).t_comm * 1e3:.2f} ms all-reduces = "
             f"{tensor_parallel_step(BIG, CARD, CARDS_N5).t_step * 1e3:.2f} ms: {n5():.2f}×, "
             f"not {CARDS_N5}×."),
))


def n6():
    """Weight bytes of one Mixtral decode step at batch BATCH_N6, BF16, GB."""
    return _m(MOE).decode_weight_bytes(2, BATCH_N6) / GB


register(Exercise(
    "ch3-n6",
    f"{MOE} routes each token to {_m(MOE).experts_per_token} of {_m(MOE).num_experts} experts. "
    f"With uniform routing, how many GB of BF16 weights does a decode step of {BATCH_N6} "
    "requests read?",
    "GB", n6,
    lambda: (f"Experts hit per layer E(1 − (1 − k/E)^B) = {_m(MOE).experts_hit(BATCH_N6):.2f}; "
             f"weights read = {n6():.2f} GB, against {_m(MOE).decode_weight_bytes(2, 1) / GB:.2f} GB "
             f"at batch 1 and {_m(MOE).weight_bytes(2) / GB:.2f} GB for all of it."),
))


def n7():
    """Whole request: PROMPT prompt + OUTPUT output tokens, 8B, one H100, batch 1, s."""
    return generation_time(SMALL, CARD, PROMPT, OUTPUT).total


register(Exercise(
    "ch3-n7",
    f"The whole request: {PROMPT:,} prompt tokens and {OUTPUT} output tokens of {SMALL} in BF16 "
    f"on one {CARD}, alone. What is the lower bound on its total time, in s?",
    "s", n7,
    lambda: (f"TTFT {generation_time(SMALL, CARD, PROMPT, OUTPUT).ttft * 1e3:.2f} ms + "
             f"{OUTPUT - 1} decode steps of about "
             f"{generation_time(SMALL, CARD, PROMPT, OUTPUT).tpot_mean * 1e3:.2f} ms = {n7():.3f} s."),
))
