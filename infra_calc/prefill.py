"""Prefill: the whole prompt in one pass, and the time to first token.

Prefill runs the prompt's ``P`` tokens of each of ``B`` requests through the
model at once.  What the pass must do, and no less:

- **matrix products**: every prompt token through every layer,
  :math:`2BP\\,N_{body}` FLOPs (:attr:`ModelSpec.body_matmul_params`: no
  input table, which is a gather, and no LM head), plus the LM head **once
  per request**, :math:`2B\\,Vd`: only the last prompt token's logits give the
  first output token;
- **causal attention**: a token attends to itself and the tokens before it,
  :math:`P(P+1)/2` query-key pairs per head and layer, each costing
  :math:`2d_h` FLOPs for ``Q K^T`` and :math:`2d_h` for ``P V``:
  :math:`F_{att} = 2BLHd_h\\,P(P+1)`;
- **bytes**: the weights read once for the ``BP`` tokens
  (:meth:`ModelSpec.decode_weight_bytes` of ``BP`` tokens: one gathered row
  per token, the experts they hit: ``k`` per layer for the floor) and the cache written, :math:`BPm_{kv}`.

The pass turns compute-bound once :math:`BP` passes about
:math:`b_W\\Pi/(2\\beta)`, the same number as J07's :math:`B^*`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_single_sizes, unwrap
from .bound import Bounds, bounds
from .capacity import CapacityCheck, HoldsMemory, kv_cache_bytes
from .comm import layer_comm
from .decode import card_matmul_flops, card_weight_bytes
from .workload import ModelOnCard, Workload

__all__ = ["PrefillStep", "prefill_step"]


@dataclass(frozen=True, kw_only=True)
class PrefillCounts:
    """Bytes and FLOPs of a prefill, per card (arrays broadcast over the prompt lengths)."""

    #: Matrix-product FLOPs: :math:`2BPN_{body} + 2BVd`, the card's share.
    flops_linear: np.ndarray
    #: The LM head's share of ``flops_linear``: :math:`2BVd/n` (one token per request).
    flops_lm_head: np.ndarray
    #: Causal attention FLOPs, :math:`2BLHd_hP(P+1)/n`.
    flops_attention: np.ndarray
    #: Weight bytes read once for the ``BP`` tokens, the card's share.
    weight_bytes: np.ndarray
    #: KV-cache bytes written, :math:`BP\,m_{KV}h_{kv}/n_{kv}`.
    kv_bytes_written: np.ndarray

    @property
    def flops(self):
        """FLOPs of the pass, ``flops_linear + flops_attention``."""
        return self.flops_linear + self.flops_attention

    @property
    def bytes_read(self):
        """Bytes the pass moves, ``weight_bytes + kv_bytes_written``."""
        return self.weight_bytes + self.kv_bytes_written


def prefill_counts(w: Workload, prompt_tokens, *, weight_read="touched") -> PrefillCounts:
    """The per-card :class:`PrefillCounts` of the prefill of ``prompt_tokens`` per request,
    split as a decode step is (:func:`~infra_calc.decode.card_weight_bytes`,
    :func:`~infra_calc.decode.card_matmul_flops`; the LM head and attention split evenly)."""
    spec = w.model
    b, n = float(w.batch), np.asarray(w.cards, dtype=float)
    p = np.asarray(prompt_tokens, dtype=float)
    head = (2.0 * b * spec.lm_head_params + 0.0 * p) / n
    return PrefillCounts(
        flops_linear=card_matmul_flops(w, b * p, spec.body_matmul_params) + head,
        flops_lm_head=head,
        flops_attention=b * spec.causal_attention_flops(p, diagonal=True) / n,
        weight_bytes=card_weight_bytes(w, w.batch * np.asarray(prompt_tokens), weight_read=weight_read)
        + 0.0 * p,
        kv_bytes_written=np.asarray(kv_cache_bytes(prompt_tokens, w.kv_bytes_per_token_per_card,
                                                   batch=w.batch)) + 0.0 * p)


@dataclass(frozen=True)
class PrefillStep(Bounds, HoldsMemory, ModelOnCard):
    """Result of :func:`prefill_step`, per card (SI units: seconds, bytes, FLOPs).

    Its times and labels are its :class:`~infra_calc.bound.Bounds`; ``t_step``,
    ``t_floor + t_comm`` (their max with ``overlap_comm``), is the time to first token.
    Every count is what one card reads or does (on one card, the whole pass; the whole
    pass over ``n`` cards is ``cards *`` a count, the K/V projections a replicated head
    repeats apart).  Each number is a float for a scalar ``prompt_tokens`` and an array for an array.
    """

    #: Prompt tokens per request, ``P``.
    prompt_tokens: int | np.ndarray
    #: Prompts prefilled together, ``B``.
    batch: int
    #: Tensor-parallel cards ``n``.
    cards: int
    #: FLOPs of the matrix products, ``2 B P N_body + 2 B V d``.
    flops_linear: float | np.ndarray
    #: FLOPs of the LM head, once per request: ``2 B V d`` (part of ``flops_linear``).
    flops_lm_head: float | np.ndarray
    #: FLOPs of causal attention, ``2 B L H d_head P (P + 1)``.
    flops_attention: float | np.ndarray
    #: FLOPs, ``flops_linear + flops_attention``.
    flops: float | np.ndarray
    #: Weight bytes read once for the ``B P`` tokens.
    weight_bytes: float | np.ndarray
    #: KV-cache bytes written, ``B P m_kv`` (the card's KV heads).
    kv_bytes_written: float | np.ndarray
    #: Bytes moved, ``weight_bytes + kv_bytes_written``.
    bytes_read: float | np.ndarray
    #: Weights + KV cache + workspace each card holds, against its capacity
    #: (``memory_per_card`` and ``fits`` read it); nothing is refused when it does not fit.
    memory: CapacityCheck

    @property
    def intensity(self):
        """FLOPs per byte of the pass, FLOP/byte."""
        return unwrap(np.asarray(self.flops) / np.asarray(self.bytes_read))


def prefill_step(model, hw=None, *, batch=None, prompt_tokens, cards=None,
                 bytes_per_param=None, kv_bytes_per_element=None, math=None, routing=None,
                 workspace=None, weight_read="touched", comm="ring", overlap_comm=False) -> PrefillStep:
    """Lower bound of the prefill pass: the time to first token on idle cards.

    - FLOPs: matrix products :math:`2BP\\,N_{body}` (no gathered input table,
      no LM head), the LM head once per request :math:`2BVd`, and causal
      attention :math:`2BLHd_{head}P(P+1)` (the :math:`P(P+1)/2` pairs a
      causal mask computes, diagonal included, at :math:`4d_{head}` FLOPs each);
    - bytes: the weights read once for the ``BP`` tokens
      (:meth:`ModelSpec.decode_weight_bytes`) plus the KV cache written,
      :math:`BPm_{kv}`;
    - :math:`T = \\max(F/\\Pi, R/\\beta)`, a tie compute-bound.

    With ``cards > 1`` each card does its share (:mod:`infra_calc.sharding`)
    and two all-reduces per layer of :math:`2BPd` bytes are added (a model,
    ``comm``; overlapped with ``overlap_comm``), as in :func:`infra_calc.decode.model_decode_step`.
    No ``context``: a prefill starts from an empty cache, its prompt is what it caches
    (:func:`~infra_calc.prefix.cached_prefill_step` starts from a cached prefix).

    Parameters
    ----------
    model : ModelSpec, str or Workload
    hw : Accelerator, str or None
        Required with a model; with a Workload, None (its card) or the same card
        (:meth:`Workload.of <infra_calc.workload.Workload.of>`).
    batch : int, keyword-only
        ``B`` prompts prefilled together (>= 1).
    prompt_tokens : int or array_like, keyword-only
        ``P`` (>= 1), required; refused above the model's ``max_position_embeddings``.
    cards : int, keyword-only
        Tensor-parallel cards.
    bytes_per_param : float, keyword-only
        ``b_W``.
    kv_bytes_per_element : float, keyword-only
        Bytes per cached element.
    math : str, keyword-only
        Math precision whose dense peak bounds the math.
    routing : {"floor", "uniform"}, keyword-only
        Experts read per MoE layer (``"floor"``: ``k``; ``"uniform"``: the
        uniform-routing model's count for the ``BP`` tokens).
    workspace : float, keyword-only
        Bytes of workspace per card.
    weight_read : {"touched", "active", "total"}, keyword-only
        What the weight read counts (default: the bytes the pass touches).
    comm : {"ring", "in-switch"}, keyword-only
        The all-reduce model (:mod:`infra_calc.comm`).
    overlap_comm : bool, keyword-only
        Take the larger of floor and communication instead of their sum (optimistic).

    A size or precision left at None takes the :class:`~infra_calc.workload.Workload`'s default.

    Returns
    -------
    PrefillStep
    """
    p = check_int(prompt_tokens, "prompt_tokens", "tokens", minimum=1)
    w = Workload.of(model, hw, batch=batch, cards=cards, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math, routing=routing,
                    workspace=workspace)
    check_single_sizes(w, "batch", "cards")
    w.model.check_context(p, name="prompt_tokens")
    return prefill_step_of(w, p, weight_read=weight_read, comm=comm, overlap_comm=overlap_comm)


def prefill_step_of(w: Workload, prompt_tokens, *, weight_read="touched", comm="ring",
                    overlap_comm=False) -> PrefillStep:
    """:func:`prefill_step` of a checked workload ``w`` (one batch, one card count) and
    checked ``prompt_tokens``: what :func:`~infra_calc.generation.generation_time` reads."""
    p = prompt_tokens
    acc = w.hw
    c = prefill_counts(w, p, weight_read=weight_read)
    _, tcomm = layer_comm(w.model, acc, tokens=w.batch * np.asarray(p, dtype=float), cards=w.cards, comm=comm)
    t = bounds(c.flops, c.bytes_read, acc, t_comm=tcomm, overlap_comm=overlap_comm, math=w.math)
    return PrefillStep(
        **vars(t), model=w.model, hw=acc, prompt_tokens=p, batch=w.batch, cards=w.cards,
        flops_linear=unwrap(c.flops_linear), flops_lm_head=unwrap(c.flops_lm_head),
        flops_attention=unwrap(c.flops_attention), flops=unwrap(c.flops),
        weight_bytes=unwrap(c.weight_bytes), kv_bytes_written=unwrap(c.kv_bytes_written),
        bytes_read=unwrap(c.bytes_read), memory=w.memory_at(p, like=t.t_read),
    )
