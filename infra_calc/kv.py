"""The KV cache joins the read: decode-step bounds with the cache counted.

Chapter J07 reads only the weights.  Each request in a batch also reads its
own KV cache, ``S`` tokens of ``m_kv`` bytes each, so one decode step of ``B``
requests reads :math:`R = N b_W + B S m_{kv}` bytes and does :math:`2BN` FLOPs.
The (batch, context) plane splits into three regions:

- **weight-read bound**: memory-bound and :math:`N b_W \\ge B S m_{kv}`;
- **KV-read bound**: memory-bound and :math:`B S m_{kv} > N b_W`;
- **compute bound**: :math:`2BN/\\Pi > R/\\beta`.

The batch at which compute catches up is
:func:`infra_calc.step.batch_turning_point` with ``context``; the context at
and above which no batch gets there is :func:`critical_context`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_int, check_number
from .hardware import resolve_hw

__all__ = ["critical_context", "kv_weight_batch", "decode_region", "ModelDecodeStep",
           "model_decode_step", "REGIONS"]

#: names of the three regions of the (batch, context) plane, in plotting order
REGIONS = ("weight-read", "kv-read", "compute")


def _out(x):
    return float(x) if np.ndim(x) == 0 else x


def critical_context(params, hw, kv_bytes_per_token):
    """Context at and above which no batch makes a decode step compute-bound, tokens.

    With the KV cache, :math:`B^*(S) = N b_W / (2N\\beta/\\Pi - S m_{kv})`;
    its denominator reaches zero at

    .. math:: S_{max} = \\frac{2 N \\beta}{\\Pi\\, m_{kv}}.

    Each extra request brings :math:`2N/\\Pi` seconds of math but
    :math:`S m_{kv}/\\beta` seconds of KV read; once the read is the larger,
    adding requests never lets compute catch up.  Not rounded; independent
    of ``b_W``.

    Parameters
    ----------
    params : float or array_like
        Parameters per token, ``N``.
    hw : Accelerator or str
    kv_bytes_per_token : float or array_like
        KV-cache bytes per token, ``m_kv`` (> 0), e.g.
        :meth:`ModelSpec.kv_bytes_per_token`.

    Examples
    --------
    >>> import infra_calc as ic
    >>> round(ic.critical_context(70e9, "H100 SXM", 327680))
    1447
    """
    acc = resolve_hw(hw)
    n = check_number(params, "params", "parameters")
    m = check_number(kv_bytes_per_token, "kv_bytes_per_token", "bytes")
    return _out(2.0 * n * acc.mem_bandwidth / (acc.peak_flops * m))


def kv_weight_batch(params, bytes_per_param, context, kv_bytes_per_token):
    """Batch at which the KV read equals the weight read, requests (not rounded).

    :math:`B S m_{kv} = N b_W \\Rightarrow B_{kv} = N b_W / (S m_{kv})`: the
    border between the weight-read and KV-read regions.

    Parameters
    ----------
    params : float or array_like
        ``N``, parameters.
    bytes_per_param : float or array_like
        ``b_W``, bytes/parameter.
    context : float or array_like
        ``S`` (> 0), tokens per request.
    kv_bytes_per_token : float or array_like
        ``m_kv`` (> 0), bytes.
    """
    n = check_number(params, "params", "parameters")
    bw = check_number(bytes_per_param, "bytes_per_param", "bytes/parameter")
    s = check_number(context, "context", "tokens")
    m = check_number(kv_bytes_per_token, "kv_bytes_per_token", "bytes")
    return _out(n * bw / (s * m))


def decode_region(params, bytes_per_param, hw, batch, context, kv_bytes_per_token):
    """Which of the three regions a (batch, context) point lies in.

    ``"compute"`` when :math:`2BN/\\Pi > (N b_W + B S m_{kv})/\\beta`;
    otherwise ``"weight-read"`` when :math:`N b_W \\ge B S m_{kv}` and
    ``"kv-read"`` when the cache is the larger read.  Arrays broadcast.

    Returns
    -------
    str or numpy.ndarray of str
    """
    acc = resolve_hw(hw)
    n = check_number(params, "params", "parameters")
    bw = check_number(bytes_per_param, "bytes_per_param", "bytes/parameter")
    b = check_number(batch, "batch", "requests")
    s = check_number(context, "context", "tokens", allow_zero=True)
    m = check_number(kv_bytes_per_token, "kv_bytes_per_token", "bytes", allow_zero=True)
    w = n * bw
    kv = b * s * m
    compute = 2.0 * b * n / acc.peak_flops > (w + kv) / acc.mem_bandwidth
    out = np.where(compute, "compute", np.where(w >= kv, "weight-read", "kv-read"))
    return str(out) if np.ndim(out) == 0 else out


@dataclass(frozen=True)
class ModelDecodeStep:
    """Result of :func:`model_decode_step` (SI units: seconds, bytes, FLOPs)."""

    model: str
    hw: str
    batch: object
    context: object
    weight_bytes: object
    kv_bytes: object
    bytes_read: object
    flops: object
    t_weights: object
    t_kv: object
    t_read: object
    t_compute: object
    t_step: object
    bound: object
    region: object
    tokens_per_s: object


def _weights(spec, bytes_per_param, batch, weights):
    if weights == "active":
        return spec.active_params * bytes_per_param
    if weights == "touched":
        return spec.decode_weight_bytes(bytes_per_param, batch)
    raise ValueError(f"weights must be 'active' or 'touched', got {weights!r}")


def model_decode_step(model, hw, batch=1, context=0, bytes_per_param=2, kv_bytes_per_element=2,
                      weights="active") -> ModelDecodeStep:
    """One decode step of a catalog model with its KV cache.

    - weight bytes :math:`R_W = N_{active} b_W` (``weights="active"``, the
      J07 convention) or :meth:`ModelSpec.decode_weight_bytes`
      (``weights="touched"``: gathered embedding rows, experts hit);
    - KV bytes :math:`R_{KV} = B S m_{kv}`;
    - FLOPs :math:`F = 2 B N_{active}` (the attention math of decode runs at
      the speed of the KV read and is left out, as in J07);
    - :math:`T_{step} = \\max(R/\\beta, F/\\Pi)`.

    Parameters
    ----------
    model : ModelSpec or str
    hw : Accelerator or str
    batch : int or array_like
        Requests, ``B`` (>= 1).
    context : int or array_like
        KV-cache tokens per request, ``S`` (>= 0, at most the model's
        ``max_position_embeddings``; longer is refused with ``ValueError``).
    bytes_per_param : float
        ``b_W``, bytes/parameter.
    kv_bytes_per_element : float
        Bytes per cached element (2 = BF16, 1 = FP8).
    weights : {"active", "touched"}

    Returns
    -------
    ModelDecodeStep
    """
    from .models import resolve_model

    spec = resolve_model(model)
    acc = resolve_hw(hw)
    bw = check_number(bytes_per_param, "bytes_per_param", "bytes/parameter")
    b = check_int(batch, "batch", "requests", minimum=1)
    s = check_int(context, "context", "tokens", minimum=0)
    spec.check_context(s, "context")
    m = spec.kv_bytes_per_token(kv_bytes_per_element)
    w = np.asarray(_weights(spec, bw, b, weights), dtype=float)
    kv = np.asarray(b, dtype=float) * s * m
    r = w + kv
    f = 2.0 * np.asarray(b, dtype=float) * spec.active_params
    tr = r / acc.mem_bandwidth
    tc = f / acc.peak_flops
    ts = np.maximum(tr, tc)
    bound = np.where(tr >= tc, "memory", "compute")
    region = np.where(tc > tr, "compute", np.where(w >= kv, "weight-read", "kv-read"))
    w = w + 0.0 * kv
    return ModelDecodeStep(
        model=spec.name, hw=acc.name, batch=b, context=s, weight_bytes=_out(w), kv_bytes=_out(kv),
        bytes_read=_out(r), flops=_out(f + 0.0 * r), t_weights=_out(w / acc.mem_bandwidth),
        t_kv=_out(kv / acc.mem_bandwidth), t_read=_out(tr), t_compute=_out(tc + 0.0 * tr),
        t_step=_out(ts), bound=str(bound) if np.ndim(bound) == 0 else bound,
        region=str(region) if np.ndim(region) == 0 else region,
        tokens_per_s=_out(b / ts),
    )
