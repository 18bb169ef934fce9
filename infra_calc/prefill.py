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

from ._validate import check_int, check_number
from .hardware import resolve_hw

__all__ = ["PrefillStep", "prefill_step"]


def _out(x):
    return float(x) if np.ndim(x) == 0 else x


@dataclass(frozen=True)
class PrefillStep:
    """Result of :func:`prefill_step` (SI units; per card when ``cards > 1``)."""

    model: str
    hw: str
    prompt_tokens: object
    batch: int
    cards: int
    flops_linear: object
    flops_attention: object
    flops: object
    weight_bytes: object
    kv_bytes_written: object
    bytes_read: object
    t_read: object
    t_compute: object
    t_comm: object
    t_step: object
    bound: object

    @property
    def intensity(self):
        """FLOPs per byte of the pass, FLOP/byte."""
        return _out(np.asarray(self.flops) / np.asarray(self.bytes_read))


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
    from .parallel import ACTIVATION_BYTES, ring_allreduce_time

    spec = resolve_model(model)
    acc = resolve_hw(hw)
    p = check_int(prompt_tokens, "prompt_tokens", "tokens", minimum=1)
    spec.check_context(p, "prompt_tokens")
    bw = check_number(bytes_per_param, "bytes_per_param", "bytes/parameter")
    b = check_int(batch, "batch", "requests", minimum=1)
    if np.ndim(b) != 0:
        raise TypeError("batch (requests) must be a single whole number")
    n = check_int(cards, "cards", "cards", minimum=1)
    if np.ndim(n) != 0:
        raise TypeError("cards (cards) must be a single whole number")
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
    tcomm = 2.0 * spec.layers * np.asarray(
        ring_allreduce_time(ACTIVATION_BYTES * b * pf * spec.hidden, n, acc))
    work = np.maximum(tr, tc)
    ts = work + tcomm
    bound = np.where(tcomm > work, "communication", np.where(tr >= tc, "memory", "compute"))
    return PrefillStep(
        model=spec.name, hw=acc.name, prompt_tokens=p, batch=b, cards=n,
        flops_linear=_out(f_lin), flops_attention=_out(f_att), flops=_out(f),
        weight_bytes=_out(w), kv_bytes_written=_out(kvw), bytes_read=_out(r),
        t_read=_out(tr), t_compute=_out(tc), t_comm=_out(tcomm + 0.0 * tr), t_step=_out(ts),
        bound=str(bound) if np.ndim(bound) == 0 else bound,
    )
