"""Prefill: the whole prompt in one pass, and the time to first token.

Prefill runs the prompt's ``P`` tokens through the model at once.  Every
weight is read once for all of them, so the step does :math:`2BPN` FLOPs of
linear layers for one read of the weights: it turns compute-bound once
:math:`BP` passes :math:`b_W\\Pi/(2\\beta)`, the same number as J07's
:math:`B^*`.  Causal attention adds :math:`2BLP^2Hd_{head}` FLOPs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_number, unwrap
from .hardware import resolve_hw
from .kv import ModelOnCard
from .parallel import _bound, _layer_comm

__all__ = ["PrefillStep", "prefill_step"]


@dataclass(frozen=True)
class PrefillStep(ModelOnCard):
    """Result of :func:`prefill_step` (SI units: seconds, bytes, FLOPs; per card when ``cards > 1``).

    Each number is a float for a scalar ``prompt_tokens`` and an array for an array.
    """

    #: Prompt tokens per request, ``P``.
    prompt_tokens: int | np.ndarray
    #: Prompts prefilled together, ``B``.
    batch: int
    #: Tensor-parallel cards ``n``.
    cards: int
    #: FLOPs of the linear layers, ``2 B P N_active`` (all cards together).
    flops_linear: float | np.ndarray
    #: FLOPs of causal attention, ``2 B L P^2 H d_head`` (all cards together).
    flops_attention: float | np.ndarray
    #: FLOPs each card does, ``(flops_linear + flops_attention) / n``.
    flops: float | np.ndarray
    #: Weight bytes read once for the ``B P`` tokens (all cards together).
    weight_bytes: float | np.ndarray
    #: KV-cache bytes written, ``B P m_kv`` (all cards together).
    kv_bytes_written: float | np.ndarray
    #: Bytes each card moves, ``(weight_bytes + kv_bytes_written) / n``.
    bytes_read: float | np.ndarray
    #: Read lower bound ``bytes_read / β``, seconds.
    t_read: float | np.ndarray
    #: Compute lower bound ``flops / Π``, seconds.
    t_compute: float | np.ndarray
    #: Two ring all-reduces per layer of ``2 B P h`` bytes, seconds (0 on one card).
    t_comm: float | np.ndarray
    #: ``max(t_read, t_compute) + t_comm``, seconds: the time to first token.
    t_step: float | np.ndarray
    #: ``"memory"``, ``"compute"`` or ``"communication"``: the largest part.
    bound: str | np.ndarray

    @property
    def intensity(self):
        """FLOPs per byte of the pass, FLOP/byte."""
        return unwrap(np.asarray(self.flops) / np.asarray(self.bytes_read))


def prefill_step(model, hw, prompt_tokens, bytes_per_param=2, batch=1, kv_bytes_per_element=2,
                 *, cards=1) -> PrefillStep:
    """Lower bound of the prefill pass: the time to first token on an idle card.

    - FLOPs: linear layers :math:`2BPN_{active}` plus causal attention
      :math:`2BLP^2Hd_{head}` (``H`` query heads; half of full attention's
      :math:`4BLP^2Hd_{head}`, since each token attends only to those before it);
    - bytes: the weights read once
      (:meth:`ModelSpec.decode_weight_bytes` for the ``BP`` tokens) plus
      the KV cache written, :math:`BPm_{kv}`;
    - :math:`T = \\max(F/\\Pi, R/\\beta)`.

    With ``cards > 1`` (keyword-only) FLOPs and bytes are split evenly and
    two ring all-reduces per layer of :math:`2BPh` bytes are added
    (not overlapped), as in :func:`infra_calc.parallel.tensor_parallel_step`.

    Parameters
    ----------
    model : ModelSpec or str
    hw : Accelerator or str
    prompt_tokens : int or array_like
        ``P`` (>= 1), refused above the model's ``max_position_embeddings``.
    bytes_per_param : float
        ``b_W``.
    batch : int
        ``B`` prompts prefilled together (>= 1).
    kv_bytes_per_element : float
        Bytes per cached element.

    Returns
    -------
    PrefillStep
        ``flops``, ``bytes_read``, ``t_read``, ``t_compute``, ``t_step`` and
        ``bound`` (``"memory"`` or ``"compute"``; ``"communication"`` when
        the all-reduces are the largest part), among others.
    """
    from .models import resolve_model

    spec = resolve_model(model)
    acc = resolve_hw(hw)
    p = check_int(prompt_tokens, "prompt_tokens", "tokens", minimum=1)
    spec.check_context(p, "prompt_tokens")
    bw = check_number(bytes_per_param, "bytes_per_param", "bytes/parameter")
    b = check_int(batch, "batch", "requests", minimum=1, scalar=True)
    n = check_int(cards, "cards", "cards", minimum=1, scalar=True)
    m = spec.kv_bytes_per_token(kv_bytes_per_element)
    pf = np.asarray(p, dtype=float)
    f_lin = 2.0 * b * pf * spec.active_params
    f_att = 2.0 * b * spec.layers * pf ** 2 * spec.heads * spec.head_dim
    f = (f_lin + f_att) / n
    w = np.asarray(spec.decode_weight_bytes(bw, b * np.asarray(p)), dtype=float)
    kvw = b * pf * m
    r = (w + kvw) / n
    tr = r / acc.mem_bandwidth
    tc = f / acc.peak_flops
    _, tcomm = _layer_comm(spec, b * pf, n, acc)
    ts = np.maximum(tr, tc) + tcomm
    return PrefillStep(
        model=spec, hw=acc, prompt_tokens=p, batch=b, cards=n,
        flops_linear=unwrap(f_lin), flops_attention=unwrap(f_att), flops=unwrap(f),
        weight_bytes=unwrap(w), kv_bytes_written=unwrap(kvw), bytes_read=unwrap(r),
        t_read=unwrap(tr), t_compute=unwrap(tc), t_comm=unwrap(tcomm + 0.0 * tr),
        t_step=unwrap(ts), bound=_bound(tr, tc, tcomm),
    )
