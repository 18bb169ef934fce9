"""The whole request: prefill, then one decode step per further output token."""
from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np

from ._validate import check_int, check_single_sizes
from .bound import Bounds, bounds
from .capacity import CapacityCheck, HoldsMemory
from .decode import step_parts
from .prefill import PrefillStep, prefill_step_of
from .workload import ModelOnCard, Workload

__all__ = ["GenerationTime", "generation_time", "generation_time_of", "check_request",
           "longest_context", "output_room"]


def longest_context(*, prompt_tokens, output_tokens):
    """The longest context a request's cache holds, ``P + O - 1`` tokens: the last decode
    step's (the last output token is never read back).  The one place it is written.

    >>> longest_context(prompt_tokens=500, output_tokens=1)         # one output token: no decode step
    500
    """
    return prompt_tokens + output_tokens - 1


def output_room(*, prompt_tokens, limit):
    """The most output tokens ``O`` a prompt of ``P`` tokens can have while its
    :func:`longest_context` stays within ``limit`` tokens (< 1 when the prompt alone is over).

    >>> o = output_room(prompt_tokens=500, limit=1000)
    >>> o, longest_context(prompt_tokens=500, output_tokens=o)
    (501, 1000)
    """
    return limit - longest_context(prompt_tokens=prompt_tokens, output_tokens=1) + 1


@dataclass(frozen=True)
class GenerationTime(HoldsMemory, ModelOnCard):
    """Result of :func:`generation_time` (seconds, tokens/s, bytes)."""

    #: Prompt tokens per request, ``P``.
    prompt_tokens: int
    #: Output tokens per request, ``O`` (the first comes from prefill).
    output_tokens: int
    #: Requests served together, ``B``.
    batch: int
    #: Tensor-parallel cards ``n``.
    cards: int
    #: What the weight reads count, in prefill and decode alike (``"touched"`` by default).
    weight_read: str
    #: The prefill pass that yields the first output token.
    prefill: PrefillStep
    #: Time to first token, the prefill's ``t_step``, seconds.
    ttft: float
    #: Sum of the decode steps, seconds.
    decode_time: float
    #: ``ttft + decode_time``, seconds.
    total: float
    #: Mean time per output token over the decode steps, seconds (0 when ``O = 1``).
    tpot: float
    #: Time of the last decode step, seconds (0 when ``O = 1``).
    tpot_last: float
    #: Output tokens per second of one request, ``O / total``.
    tokens_per_s_request: float
    #: Output tokens per second of the whole batch, ``B O / total``.
    tokens_per_s_total: float
    #: The longest context the request's cache holds, ``P + O - 1`` tokens.
    max_context: int
    #: Weights + KV cache + workspace each card holds, against its capacity
    #: (``memory_per_card`` and ``fits`` read it); nothing is refused when it does not fit.
    memory: CapacityCheck
    #: The request's floor: prefill's ``t_floor`` plus every step's floor, seconds
    #: (``total`` without the all-reduce model, which ``t_comm`` holds apart: on several
    #: cards only this is a floor; equal to ``total`` on one card).  The floor of a **static
    #: batch** (every prompt prefilled, then every decode step): ``B O / floor_total`` is a
    #: ceiling on that schedule's rate only.
    floor_total: float
    #: Floor of the whole batch under any schedule, :func:`~infra_calc.bound.bounds` of
    #: the FLOPs and bytes of the prefill and every decode step together (``max(ΣF/Π, ΣR/β)``
    #: per card), seconds: a schedule that overlaps compute-bound prefills with memory-bound
    #: decode reads (other requests' or chunked) needs no less.  ``floor_total`` is the
    #: floor of the static batch only; ``B O / floor_any_schedule`` is the rate ceiling of
    #: any schedule.  The same concept as
    #: :attr:`SpeculativeStep.t_round_floor <infra_calc.levers.SpeculativeStep.t_round_floor>`
    #: (there over one round's verify pass and draft steps).
    floor_any_schedule: float
    #: The all-reduce model's time in ``total`` (prefill's and every step's), seconds;
    #: 0 on one card and with ``overlap_comm`` only what the overlap does not hide.
    t_comm: float
    #: The decode steps' terms (``t_read``, ``t_compute``, ``t_comm`` ... arrays over
    #: ``j = 1 … O-1``, context ``P + j``; empty when ``O = 1``), what a model built on the
    #: floor reads.
    steps: Bounds
    _: KW_ONLY                         # the optional fields by name only
    #: Math precision whose dense peak bounds the math.
    math: str = "bf16"

    @property
    def step_times(self) -> np.ndarray:
        """Time of each decode step ``j = 1 … O-1`` (context ``P + j``), seconds
        (``steps.t_step``)."""
        return np.asarray(self.steps.t_step, dtype=float)

    @property
    def floor_step_times(self) -> np.ndarray:
        """The floor of each decode step, ``max(T_read, T_compute)`` without the all-reduces,
        seconds (``steps.t_floor``)."""
        return np.asarray(self.steps.t_floor, dtype=float)

    @property
    def floor_tpot(self) -> float:
        """Mean floor of the decode steps, seconds (0 when ``O = 1``: there is no decode step)."""
        return float(self.floor_step_times.mean()) if self.floor_step_times.size else 0.0

    @property
    def floor_tokens_per_s_total(self) -> float:
        """Output tokens per second of the whole batch at its floor, ``B O / floor_total``:
        an upper bound on the static batch's rate."""
        return self.batch * self.output_tokens / self.floor_total


def check_request(spec, *, prompt_tokens, output_tokens) -> tuple[int, int]:
    """``(P, O)`` checked: whole numbers >= 1 whose longest context fits the model.

    The longest context is ``P + O - 1``, the last decode step's: the last
    output token is never read back, so a prompt of the model's whole
    ``max_position_embeddings`` with one output token (no decode step) fits.
    """
    p = check_int(prompt_tokens, "prompt_tokens", "tokens", minimum=1, scalar=True)
    o = check_int(output_tokens, "output_tokens", "tokens", minimum=1, scalar=True)
    spec.check_context(p, name="prompt_tokens")
    spec.check_context(longest_context(prompt_tokens=p, output_tokens=o),
                       name="prompt_tokens + output_tokens - 1")
    return p, o


def generation_time(model, hw=None, *, batch=None, prompt_tokens, output_tokens,
                    cards=None, bytes_per_param=None, kv_bytes_per_element=None, math=None,
                    routing=None, workspace=None, weight_read="touched", comm="ring",
                    overlap_comm=False) -> GenerationTime:
    """Lower bound on one whole request: prefill plus the decode steps.

    The prefill pass (:func:`infra_calc.prefill.prefill_step`) yields the
    first output token, so the time to first token (TTFT) is its ``t_step``.
    Each further token ``j = 1 … O-1`` takes one decode step
    (:func:`infra_calc.decode.step_parts`, all steps at once) with a KV cache
    of ``S_j = P + j`` tokens per request, growing by one each step (so no
    ``context``: the request's lengths give every step's):

    .. math:: T_{total} = T_{prefill} + \\sum_{j=1}^{O-1} T_{step}(S = P + j)

    Reported: the total, the TTFT, the mean and the last time per output
    token (TPOT, over the decode steps; 0 when ``O = 1``), output tokens/s per
    request (:math:`O/T_{total}`) and in total (:math:`BO/T_{total}`), the
    memory each card needs at the longest context, ``P + O - 1`` tokens, and
    the floors without the all-reduce model: ``floor_total`` of this static
    batch, ``floor_any_schedule`` of any schedule (:class:`GenerationTime`).
    Prefill and decode read the weights under the same convention
    (``weight_read``).  Vectorised over the steps.

    Parameters
    ----------
    model : ModelSpec, str or Workload
    hw : Accelerator, str or None
        Required with a model; with a Workload, None (its card) or the same card
        (:meth:`Workload.of <infra_calc.workload.Workload.of>`).
    batch : int, keyword-only
        Requests served together, all with the same lengths.
    prompt_tokens, output_tokens : int, keyword-only
        ``P`` and ``O`` (>= 1 each), required.  ``P + O - 1`` must not exceed the
        model's ``max_position_embeddings`` (:func:`check_request`).
    cards : int, keyword-only
        Tensor-parallel cards.
    bytes_per_param, kv_bytes_per_element : float, keyword-only
    math : str, keyword-only
        Math precision of the matrix multiplies: its dense peak
        (:meth:`Accelerator.peak`) bounds the math of every pass.
    routing : {"floor", "uniform"}, keyword-only
        Experts read per MoE layer in every pass (``"floor"``, ``k``: the total
        stays a lower bound; ``"uniform"``: the uniform-routing model).
    workspace : float, keyword-only
        Bytes of workspace per card.
    weight_read : {"touched", "active", "total"}, keyword-only
        What every step reads (:func:`infra_calc.decode.model_decode_step`).
    comm : {"ring", "in-switch"}, keyword-only
    overlap_comm : bool, keyword-only
        Optimistic overlap of the all-reduces, the prefill's and every step's (see
        ``model_decode_step``).

    A size or precision left at None takes the :class:`~infra_calc.workload.Workload`'s default (one place:
    :meth:`Workload.default <infra_calc.workload.Workload.default>`).
    """
    w = Workload.of(model, hw, batch=batch, cards=cards, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math, routing=routing,
                    workspace=workspace)
    check_single_sizes(w, "batch", "cards")
    p, o = check_request(w.model, prompt_tokens=prompt_tokens, output_tokens=output_tokens)
    return generation_time_of(w, prompt_tokens=p, output_tokens=o, weight_read=weight_read, comm=comm,
                              overlap_comm=overlap_comm)


def generation_time_of(w: Workload, *, prompt_tokens, output_tokens, weight_read="touched",
                       comm="ring", overlap_comm=False) -> GenerationTime:
    """:func:`generation_time` of a checked workload ``w`` (one batch, one card count) and a
    request checked by :func:`check_request`: what :func:`infra_calc.estimate` reads."""
    p, o = prompt_tokens, output_tokens
    pre = prefill_step_of(w, p, weight_read=weight_read, comm=comm, overlap_comm=overlap_comm)  # checks both
    # contexts P+1 ... P+O-1 (none when O = 1), valid: check_request checked the last
    steps = step_parts(w, weight_read=weight_read, comm=comm, context=np.arange(p + 1, p + o, dtype=float),
                       overlap_comm=overlap_comm)
    floors, times = np.asarray(steps.t_floor), np.asarray(steps.t_step)
    decode = float(times.sum())
    total = pre.t_step + decode
    longest = longest_context(prompt_tokens=p, output_tokens=o)
    return GenerationTime(
        model=w.model, hw=w.hw, prompt_tokens=p, output_tokens=o, batch=w.batch,
        cards=w.cards, weight_read=weight_read, prefill=pre, ttft=pre.t_step,
        decode_time=decode, total=total, tpot=float(times.mean()) if times.size else 0.0,
        tpot_last=float(times[-1]) if times.size else 0.0,
        tokens_per_s_request=o / total, tokens_per_s_total=w.batch * o / total,
        max_context=longest, memory=w.memory_at(longest),
        floor_total=float(pre.t_floor + floors.sum()),
        floor_any_schedule=float(bounds(pre.flops + np.sum(steps.counts.flops),
                                        pre.bytes_read + np.sum(steps.counts.bytes_read),
                                        w.hw, math=w.math).t_floor),
        t_comm=float(total - pre.t_floor - floors.sum()),
        steps=steps, math=w.math,
    )
