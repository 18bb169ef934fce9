"""One model on one accelerator: decode-step bounds, capacity and max batch.

This is what ``python -m infra_calc estimate`` prints.  Weights are resident
once (``params × b_W`` bytes); each decode step reads the weights used per
token (``active_params × b_W``; all of them for a dense model) plus every
request's KV cache, and does ``2 · B · active_params`` FLOPs.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ._validate import check_int, check_number
from .capacity import capacity_check, kv_cache_bytes, max_batch
from .hardware import Accelerator, resolve_hw
from .step import batch_turning_point, decode_step
from .units import GB, GiB

__all__ = ["Estimate", "estimate"]


@dataclass(frozen=True)
class Estimate:
    """Everything :func:`estimate` computed (SI units: seconds, bytes, FLOPs)."""

    #: Model name.
    model: str
    #: The accelerator, exactly as given (a changed copy keeps its figures).
    hw: Accelerator
    #: Stored bytes per weight, ``b_W`` (2 = BF16).
    bytes_per_param: float
    #: Concurrent requests ``B``, each decoding one token this step.
    batch: int
    #: Tokens of KV cache per request, ``S``.
    context: int
    #: Parameters stored.
    params: int
    #: Parameters used per token (all of them for a dense model).
    active_params: int
    #: Resident weights ``params × b_W``, bytes.
    weight_bytes: float
    #: KV cache per token ``m_KV``, bytes.
    kv_bytes_per_token: float
    #: KV cache of the whole batch ``B S m_KV``, bytes.
    kv_bytes: float
    #: Activations, buffers and allocator slack, bytes.
    workspace: float
    #: The accelerator's memory capacity ``C``, bytes.
    capacity: float
    #: Bytes read per step: the weights used per token plus every request's KV cache.
    bytes_read: float
    #: FLOPs per step, ``2 B active_params``.
    flops: float
    #: Read lower bound ``R / β``, seconds.
    t_read: float
    #: Compute lower bound ``F / Π``, seconds.
    t_compute: float
    #: Step time when reads and math overlap (the larger bound), seconds.
    t_step: float
    #: Step time when they run one after the other (the sum), seconds.
    t_step_serial: float
    #: ``"memory"`` or ``"compute"``: which bound decides.
    bound: str
    #: Throughput ``B / t_step``, tokens per second.
    tokens_per_s: float
    #: ``t_read / B``, seconds (a throughput figure, not a latency).
    read_time_per_output: float
    #: Batch where compute catches up with the weight read, ``b_W Π / (2β)``.
    batch_turning_point: float
    #: Weights + KV cache + workspace, bytes.
    total_memory: float
    #: ``capacity - total_memory``, bytes; negative when it does not fit.
    headroom: float
    #: ``total_memory <= capacity``.
    fits: bool
    #: Largest batch of ``context``-token requests that fits.
    max_batch: int

    def to_dict(self) -> dict:
        """Plain-``dict`` form (JSON-ready; ``hw`` becomes a dict of the accelerator's fields)."""
        return asdict(self)

    def table(self) -> str:
        """A readable multi-line table."""
        rows = [
            ("model", self.model),
            ("accelerator", self.hw.name),
            ("bytes per parameter", f"{self.bytes_per_param:g}"),
            ("batch x context", f"{self.batch} x {self.context} tokens"),
            ("", ""),
            ("decode step", ""),
            ("  bytes read", f"{self.bytes_read / GB:,.2f} GB (weights + KV)"),
            ("  FLOPs", f"{self.flops / 1e9:,.1f} GFLOP"),
            ("  T_read    (R / beta)", f"{self.t_read * 1e3:,.3f} ms"),
            ("  T_compute (F / Pi)", f"{self.t_compute * 1e3:,.4f} ms"),
            ("  T_step, overlapped (max)", f"{self.t_step * 1e3:,.3f} ms  [{self.bound}-bound]"),
            ("  T_step, serial (sum)", f"{self.t_step_serial * 1e3:,.3f} ms"),
            ("  throughput", f"{self.tokens_per_s:,.1f} tokens/s"),
            ("  read time per output", f"{self.read_time_per_output * 1e3:,.3f} ms"),
            ("  B* (compute = weight read)", f"{self.batch_turning_point:,.1f}"),
            ("", ""),
            ("capacity", ""),
            ("  weights", f"{self.weight_bytes / GB:,.2f} GB"),
            ("  KV cache", f"{self.kv_bytes / GB:,.2f} GB ({self.kv_bytes_per_token / 1024:g} KiB/token)"),
            ("  workspace", f"{self.workspace / GB:,.2f} GB"),
            ("  total / capacity", f"{self.total_memory / GB:,.2f} / {self.capacity / GB:,.2f} GB "
                                   f"({self.capacity / GiB:g} GiB)"),
            ("  fits", "yes" if self.fits else f"NO (short by {-self.headroom / GB:,.2f} GB)"),
            ("  max batch at this context", str(self.max_batch)),
        ]
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v}".rstrip() for k, v in rows)


def estimate(model, hw, bytes_per_param=2.0, batch=1, context=8192, workspace=2 * GiB,
             kv_bytes_per_element=2.0) -> Estimate:
    """Estimate a decode step and the memory budget of ``model`` on ``hw``.

    Parameters
    ----------
    model : ModelSpec, str or path
        A catalog model name, a ``config.json`` path, or a ``ModelSpec``.
    hw : Accelerator or str
    bytes_per_param : float
        Stored bytes per weight (2 = BF16, 1 = 8-bit, 0.5 = 4-bit).
    batch : int
        Concurrent requests, each decoding one token this step.
    context : int
        Tokens of KV cache per request.
    workspace : float
        Bytes reserved for activations and buffers (default 2 GiB).
    kv_bytes_per_element : float
        Bytes per cached K/V element (2 = BF16).
    """
    from .models import resolve_model

    spec = resolve_model(model)
    acc = resolve_hw(hw)
    bpp = check_number(bytes_per_param, "bytes_per_param", "bytes/parameter")
    b = check_int(batch, "batch", "requests", minimum=1)
    s = check_int(context, "context", "tokens", minimum=1)
    ws = check_number(workspace, "workspace", "bytes", allow_zero=True)
    m_kv = spec.kv_bytes_per_token(kv_bytes_per_element)
    kv = kv_cache_bytes(s, m_kv, b)
    step = decode_step(spec.active_params, bpp, acc, batch=b, kv_bytes=kv)
    serial = decode_step(spec.active_params, bpp, acc, batch=b, kv_bytes=kv, overlap=False)
    weights = spec.params * bpp
    chk = capacity_check(acc.mem_capacity, weights, kv, ws)
    return Estimate(
        model=spec.name, hw=acc, bytes_per_param=bpp, batch=b, context=s,
        params=int(spec.params), active_params=int(spec.active_params), weight_bytes=weights,
        kv_bytes_per_token=float(m_kv), kv_bytes=kv, workspace=ws, capacity=acc.mem_capacity,
        bytes_read=step.bytes_read, flops=step.flops, t_read=step.t_read, t_compute=step.t_compute,
        t_step=step.t_step, t_step_serial=serial.t_step, bound=step.bound,
        tokens_per_s=step.tokens_per_s, read_time_per_output=step.read_time_per_output,
        batch_turning_point=batch_turning_point(acc, bpp), total_memory=chk.total,
        headroom=chk.headroom, fits=chk.fits,
        max_batch=max_batch(acc.mem_capacity, weights, ws, s, m_kv),
    )
