"""Exercises for chapter 3, "the whole request" (not in the source: ids ``ch3-n*``).

Each needs an idea none of the others uses, and no answer is printed on the
chapter's pages (their cases are other models, lengths or card counts):

=======  ===========================================================
id       idea
=======  ===========================================================
ch3-n1   the critical context ``S_max``: batching stops helping
ch3-n2   which read dominates: the border ``B_kv(S)``
ch3-n3   capacity first, split over cards: memory per card
ch3-n4   prefill: causal attention, the LM head once, ``max(F/Π, R/β)``
ch3-n5   tensor parallelism: a speed-up under a named all-reduce model
ch3-n6   MoE at decode: the experts a batch hits
ch3-n7   the whole request: prefill plus a growing-cache decode sum
ch3-n8   speculation: k + 1 tokens per verify pass at most
ch3-n9   a cached prefix: only the new tokens prefilled
=======  ===========================================================

Every answer is computed with the model-based library forms
(:func:`~infra_calc.kv.critical_context`, :func:`~infra_calc.kv.kv_weight_batch`,
:class:`~infra_calc.workload.Workload`, :func:`~infra_calc.prefill.prefill_step`,
:func:`~infra_calc.decode.model_decode_step`,
:meth:`~infra_calc.modelspec.ModelSpec.decode_weight_bytes`,
:func:`~infra_calc.generation.generation_time`, :func:`~infra_calc.levers.speculative_step`,
:func:`~infra_calc.prefix.cached_prefill_step`), in SI units.  The self-test page poses
the questions and works the solutions with the numbers :func:`selftest_values` computes.
"""
from __future__ import annotations

from infra_calc.accelerators import accelerator
from infra_calc.capacity import kv_cache_bytes
from infra_calc.comm import layer_comm
from infra_calc.decode import model_decode_step
from infra_calc.display import shown
from infra_calc.generation import generation_time
from infra_calc.kv import critical_context, kv_weight_batch
from infra_calc.levers import speculative_step
from infra_calc.models import model
from infra_calc.prefill import prefill_step
from infra_calc.prefix import cached_prefill_step
from infra_calc.workload import Workload

from ..pagevalues import PageValues
from .spec import Choice, Exercise, yes_no

#: the cases the exercises use (the self-test page reads them from here)
CARD = "H100 SXM"
N1_MODEL = "Qwen3-8B"
N2_MODEL, N2_CONTEXT = "Llama-3.1-8B", 8192
N3_MODEL, N3_CARDS, N3_BATCH, N3_CONTEXT = "DeepSeek-R1-Distill-Llama-70B", 2, 16, 4096
N4_MODEL, N4_PROMPT = "Llama-3.1-8B", 4096
N5_MODEL, N5_CARDS = "Llama-3.1-8B", 4
N6_MODEL, N6_BYTES, N6_BATCH = "Mixtral-8x7B", 1, 3
N7_MODEL, N7_PROMPT, N7_OUTPUT = "Llama-3.1-8B", 500, 1000
N8_MODEL, N8_BATCH, N8_CONTEXT, N8_DRAFTS = "Llama-3.1-8B", 16, 1024, 3
N9_MODEL, N9_PROMPT, N9_CACHED = "Qwen3-8B", 8192, 6144


def _acc():
    return accelerator(CARD)


def _values_card(v):
    """The card every exercise runs on."""
    acc = _acc()
    v.pi = shown(acc.peak_flops, "TFLOP/s", 1)
    v.beta = shown(acc.mem_bandwidth, "TB/s", 2)
    v.cap = shown(acc.mem_capacity, "GB", 2)


# --- ch3-n1 -----------------------------------------------------------------------
def n1():
    """S_max of N1_MODEL on CARD, BF16 weights and cache, tokens."""
    return critical_context(N1_MODEL, CARD)


EX_N1 = Exercise(
    "ch3-n1", "tokens", n1,
    hints=("Write the time one more request adds to the math and to the read, both as "
           "functions of S, and find the S where they are equal.",
           "ic.critical_context(model, card) counts it as ic.model_decode_step does."),
)


def _values_n1(v):
    q = model(N1_MODEL)
    v.n1_mkv = shown(q.kv_bytes_per_token(), "KiB", 0)
    v.n1_att = shown(q.attention_flops(tokens=1, context=1), "FLOP", 0)
    v.n1 = shown(n1(), "tokens", 0)


# --- ch3-n2 -----------------------------------------------------------------------
def n2():
    """B_kv(S): the batch from which the KV read exceeds the weight read, requests."""
    return kv_weight_batch(model(N2_MODEL), CARD, context=N2_CONTEXT, bytes_per_param=2)


EX_N2 = Exercise(
    "ch3-n2", "requests", n2,
    hints=("The weights are read once per step whatever the batch; each request's cache is "
           "read once per request.",),
)


def _values_n2(v):
    m2 = model(N2_MODEL)
    v.n2_ctx = shown(N2_CONTEXT, "tokens", 0)
    v.n2_w = shown(m2.decode_weight_bytes(2, 1), "GB", 2)
    v.n2_req = shown(kv_cache_bytes(N2_CONTEXT, m2.kv_bytes_per_token()), "GB", 2)
    v.n2 = shown(n2(), "requests", 1)


# --- ch3-n3 -----------------------------------------------------------------------
def _n3_workload():
    return Workload(N3_MODEL, CARD, cards=N3_CARDS, batch=N3_BATCH, context=N3_CONTEXT)


def n3():
    """The memory record of each card: N3_MODEL in BF16 over N3_CARDS cards."""
    return _n3_workload().memory


EX_N3 = Exercise(
    "ch3-n3", "GB", lambda: n3().total,
    hints=("Each card holds its share of the weights (the norm weights whole), its share of "
           "the KV heads for every request, and its own workspace.",),
    parts=(yes_no(f"Does it fit one {CARD}?", lambda: bool(n3().fits),
                  "Compare with the card's physical capacity."),),
)


def _values_n3(v):
    w3 = _n3_workload()
    v.n3_cards = shown(N3_CARDS, digits=0)
    v.n3_batch = shown(N3_BATCH, "requests", 0)
    v.n3_ctx = shown(N3_CONTEXT, "tokens", 0)
    v.n3_w = shown(w3.resident_weight_bytes(), "GB", 2)
    v.n3_kv = shown(w3.kv_bytes_per_card(), "GB", 2)
    v.n3_ws = shown(w3.workspace, "GB", 2)
    v.n3 = shown(n3().total, "GB", 2)
    v.n3_left = shown(n3().headroom, "GB", 2)
    v.n3_more = shown(w3.max_batch() - N3_BATCH, "requests", 0)


# --- ch3-n4 -----------------------------------------------------------------------
def n4():
    """The prefill pass of an N4_PROMPT-token prompt, N4_MODEL in BF16 on one CARD."""
    return prefill_step(N4_MODEL, CARD, prompt_tokens=N4_PROMPT)


EX_N4 = Exercise(
    "ch3-n4", "ms", lambda: n4().t_step,
    hints=("Count only the products the pass must do: the layers' matrices for every prompt "
           "token, the LM head for the last one only, and causal attention, P(P+1)/2 "
           "query-key pairs per head. The embedding table is a gather, not a product.",),
    parts=(Choice("Compute- or memory-bound?", lambda: f"{n4().bound}-bound",
                  ("compute-bound", "memory-bound"),
                  "A long prompt gives every weight thousands of rows to multiply."),),
)


def _values_n4(v):
    pre = n4()
    v.n4_p = shown(N4_PROMPT, "tokens", 0)
    v.n4_f = shown(pre.flops, "TFLOP", 2)
    v.n4_att = shown(pre.flops_attention / pre.flops, "%", 1)
    v.n4_r = shown(pre.bytes_read, "GB", 2)
    v.n4_tc = shown(pre.t_compute, "ms", 2)
    v.n4_tr = shown(pre.t_read, "ms", 2)
    v.n4 = shown(pre.t_step, "ms", 2)


# --- ch3-n5 -----------------------------------------------------------------------
def _n5(cards):
    return model_decode_step(N5_MODEL, CARD, cards=cards)


def n5():
    """Speed-up of one N5_MODEL decode step (BF16, batch 1) from 1 to N5_CARDS cards, ×."""
    return _n5(1).t_step / _n5(N5_CARDS).t_step


EX_N5 = Exercise(
    "ch3-n5", "×", n5,
    hints=("Each card reads its share of the weights; then each layer adds two ring "
           "all-reduces of the batch's activations, 2(n−1) steps each.",),
)


def _values_n5(v):
    acc, t1, tn = _acc(), _n5(1), _n5(N5_CARDS)
    m5 = model(N5_MODEL)
    v.n5_cards = shown(N5_CARDS, digits=0)
    v.n5_link = shown(acc.link_bandwidth, "GB/s", 0)
    v.n5_alpha = shown(acc.link_latency, "µs", 0)
    v.n5_t1 = shown(t1.t_step, "ms", 3)
    v.n5_read = shown(tn.t_read, "ms", 3)
    v.n5_comm = shown(tn.t_comm, "ms", 3)
    v.n5_ar = shown(2 * m5.layers, digits=0)
    # the latency share of the all-reduces: their time with empty messages
    latency = layer_comm(m5, acc, tokens=0, cards=N5_CARDS)[1]
    v.n5_lat = shown(latency / tn.t_comm, "%", 1)
    v.n5_tn = shown(tn.t_step, "ms", 3)
    v.n5 = shown(n5(), "×", 2)


# --- ch3-n6 -----------------------------------------------------------------------
def n6():
    """Weight bytes one N6_MODEL decode step of N6_BATCH requests reads under uniform routing
    (the model's expectation, not the floor)."""
    return model(N6_MODEL).decode_weight_bytes(N6_BYTES, N6_BATCH, routing="uniform")


EX_N6 = Exercise(
    "ch3-n6", "GB", n6,
    hints=("An expert is read if at least one of the batch's tokens picks it: E times the "
           "chance that not every token misses it.",),
)


def _values_n6(v):
    mx = model(N6_MODEL)
    v.n6_k = shown(mx.experts_per_token, digits=0)
    v.n6_e = shown(mx.num_experts, digits=0)
    v.n6_batch = shown(N6_BATCH, "requests", 0)
    v.n6_hit = shown(mx.experts_hit(N6_BATCH, routing="uniform"), digits=2)
    v.n6_one = shown(mx.decode_weight_bytes(N6_BYTES, 1), "GB", 2)
    v.n6_all = shown(mx.weight_bytes(N6_BYTES), "GB", 2)
    v.n6 = shown(n6(), "GB", 2)


# --- ch3-n7 -----------------------------------------------------------------------
def n7():
    """The whole request, N7_PROMPT prompt + N7_OUTPUT output tokens, N7_MODEL alone on CARD."""
    return generation_time(N7_MODEL, CARD, prompt_tokens=N7_PROMPT, output_tokens=N7_OUTPUT)


EX_N7 = Exercise(
    "ch3-n7", "s", lambda: n7().total,
    hints=("The prefill pass yields the first token; each further token is one decode step, "
           "whose cache holds the prompt and the tokens generated so far.",),
)


def _values_n7(v):
    g = n7()
    v.n7_p = shown(N7_PROMPT, "tokens", 0)
    v.n7_o = shown(N7_OUTPUT, "tokens", 0)
    v.n7_ttft = shown(g.ttft, "ms", 2)
    v.n7_steps = shown(g.step_times.size, digits=0)
    v.n7_tpot = shown(g.tpot, "ms", 3)
    v.n7_share = shown(g.decode_time / g.total, "%", 1)
    v.n7 = shown(g.total, "s", 3)


# --- ch3-n8 -----------------------------------------------------------------------
def n8():
    """A verify pass of N8_DRAFTS free drafts per request."""
    return speculative_step(N8_MODEL, CARD, batch=N8_BATCH, context=N8_CONTEXT, draft_tokens=N8_DRAFTS)


EX_N8 = Exercise(
    "ch3-n8", "ms", lambda: n8().t_per_token_floor,
    hints=("A verify pass cannot emit more than k + 1 tokens per request, whatever the "
           "acceptance; divide the pass by that.",
           "ic.speculative_step(model, card, batch=B, context=S, draft_tokens=k) counts the pass."),
)


def _values_n8(v):
    s8 = n8()
    v.n8_b = shown(N8_BATCH, "requests", 0)
    v.n8_s = shown(N8_CONTEXT, "tokens", 0)
    v.n8_k = shown(N8_DRAFTS, digits=0)
    v.n8_tokens = shown(s8.tokens, "tokens", 0)
    v.n8_verify = shown(s8.t_step, "ms", 3)
    v.n8_kp1 = shown(N8_DRAFTS + 1, "tokens", 0)
    v.n8_plain = shown(speculative_step(N8_MODEL, CARD, batch=N8_BATCH, context=N8_CONTEXT,
                                        draft_tokens=0).t_step, "ms", 3)
    v.n8 = shown(s8.t_per_token_floor, "ms", 3)


# --- ch3-n9 -----------------------------------------------------------------------
def n9():
    """The prefill of an N9_PROMPT-token prompt with N9_CACHED tokens already cached."""
    return cached_prefill_step(N9_MODEL, CARD, prompt_tokens=N9_PROMPT, cached_tokens=N9_CACHED)


EX_N9 = Exercise(
    "ch3-n9", "ms", lambda: n9().t_step,
    hints=("The cached tokens need no products of their own, but every new token still "
           "attends to them.",),
)


def _values_n9(v):
    c9 = n9()
    v.n9_p = shown(N9_PROMPT, "tokens", 0)
    v.n9_c = shown(N9_CACHED, "tokens", 0)
    v.n9_new = shown(N9_PROMPT - N9_CACHED, "tokens", 0)
    v.n9_f = shown(c9.flops, "TFLOP", 2)
    v.n9_r = shown(c9.bytes_read, "GB", 2)
    v.n9_tc = shown(c9.t_compute, "ms", 2)
    v.n9_tr = shown(c9.t_read, "ms", 2)
    v.n9_full = shown(cached_prefill_step(N9_MODEL, CARD, prompt_tokens=N9_PROMPT,
                                          cached_tokens=0).t_step, "ms", 2)
    v.n9 = shown(c9.t_step, "ms", 2)


# --- the numbers the self-test page shows ------------------------------------------
def selftest_values():
    """The numbers ``book/3_whole_request/07_self_test.ipynb`` shows, as a :class:`~bookkit.PageValues`.

    One call at the top of the page, so that the cells between an exercise and
    its solution hold only the answer checker.  Each exercise's numbers are set by the
    ``_values_<id>`` function beside it, in the page's order.
    """
    return PageValues.from_parts(_values_card, _values_n1, _values_n2, _values_n3, _values_n4,
                                 _values_n5, _values_n6, _values_n7, _values_n8, _values_n9)


#: the chapter's exercises, in the order its self-test page poses them: the registry
#: numbers them from this order (:func:`~bookkit.exercises.registry.with_titles`)
EXERCISES = (EX_N1, EX_N2, EX_N3, EX_N4, EX_N5, EX_N6, EX_N7, EX_N8, EX_N9)
