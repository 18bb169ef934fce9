"""Results of a lab measurement and their JSON form.

:class:`MachineRoofline` (Π, β and the machine), :class:`GemmSweep` (timed
GEMMs against the roofline's prediction) and :class:`LabRun` (both).  Each
round-trips through JSON (``to_json`` / ``from_json``) in the format
:data:`FORMAT`.
"""
from __future__ import annotations

import dataclasses
import json
import math
import pathlib
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from .._validate import check_number
from ..display import shown
from ..hardware import Accelerator
from ..roofline import BYTES_PER_ELEMENT, arithmetic_intensity
from .arithmetic import (
    achieved_flops,
    check_m_values,
    measured_critical_rows,
    model_rows_at_fraction,
    no_overlap_flops,
    roofline_prediction,
)
from .machine import short_description

__all__ = ["FORMAT", "MachineRoofline", "GemmSweep", "LabRun", "sweep_from_seconds"]

#: The ``format`` tag of every JSON file this module writes.
FORMAT = "infra_calc.measure/1"


def _measured_accelerator(peak_flops, mem_bandwidth, machine=None) -> Accelerator:
    """The one constructor of a measured roofline: an :class:`~infra_calc.Accelerator` named
    "this machine", capacity the RAM of ``machine`` (1 byte, unused, when it is not known)."""
    machine = machine or {}
    return Accelerator("this machine", peak_flops, mem_bandwidth, float(machine.get("memory_bytes", 1.0)),
                       source="measured with infra_calc.measure",
                       note=short_description(machine) if machine else "")


class _JsonFile:
    """``to_json`` / ``from_json`` for a result kept under ``_json_key`` of a :data:`FORMAT` file.

    ``_json_key = None`` means the result is the whole file (:class:`LabRun`);
    :class:`LabRun` files also load as either of their parts.
    """

    _json_key: ClassVar[str | None] = None

    def to_json(self, path):
        """Write ``path`` (UTF-8 JSON, tagged with :data:`FORMAT`)."""
        d = self.to_dict()
        data = d if self._json_key is None else {"format": FORMAT, self._json_key: d}
        path = pathlib.Path(path)
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, path):
        """Read a file written by ``to_json`` (or a whole :class:`LabRun` file)."""
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError(f"{path}: format must be {FORMAT!r}, got {data.get('format')!r}")
        return cls.from_dict(data if cls._json_key is None else data[cls._json_key])


@dataclass(frozen=True)
class MachineRoofline(_JsonFile):
    """This machine's measured roofline (SI units)."""

    #: Matmul peak Π, FLOP/s.
    peak_flops: float
    #: Triad bandwidth β, bytes/s.
    mem_bandwidth: float
    #: The machine, as :func:`~infra_calc.measure.machine_description` gives it.
    machine: dict = field(default_factory=dict, compare=False)
    #: ``"cpu"`` or ``"cuda"``.
    device: str = "cpu"
    #: Element type measured (``"float32"`` on the CPU, ``"bfloat16"`` on a GPU).
    dtype: str = "float32"
    #: Sizes and repeats used (triad elements, matmul sizes, threads, ...).
    settings: dict = field(default_factory=dict, compare=False)
    #: ISO timestamp of the measurement (kept in the JSON, left out of ``repr``).
    date: str = field(default="", repr=False, compare=False)
    #: Ridge point ``I* = Π/β``, FLOP/byte: :meth:`Accelerator.ridge` of :attr:`accelerator`,
    #: kept as a field because the JSON file records it (and :meth:`from_dict` checks it).
    ridge_point: float = field(init=False)

    _json_key: ClassVar[str | None] = "roofline"

    def __post_init__(self):
        object.__setattr__(self, "peak_flops", check_number(self.peak_flops, "peak_flops", "FLOP/s"))
        object.__setattr__(self, "mem_bandwidth",
                           check_number(self.mem_bandwidth, "mem_bandwidth", "bytes/s"))
        object.__setattr__(self, "ridge_point", self.accelerator.ridge())

    @property
    def description(self) -> str:
        """One line naming the machine (no date)."""
        return short_description(self.machine)

    @property
    def accelerator(self) -> Accelerator:
        """The measured roofline as an :class:`~infra_calc.Accelerator` named "this machine"
        (capacity = RAM; :attr:`GemmSweep.accelerator` is the same roofline, capacity unused)."""
        return _measured_accelerator(self.peak_flops, self.mem_bandwidth, self.machine)

    def to_dict(self) -> dict:
        """Plain-``dict`` form (JSON-ready)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d) -> MachineRoofline:
        d = dict(d)
        ridge = d.pop("ridge_point", None)
        out = cls(**d)
        if ridge is not None and not math.isclose(ridge, out.ridge_point, rel_tol=1e-9):
            raise ValueError(f"ridge_point (FLOP/byte) {ridge} disagrees with peak_flops / mem_bandwidth")
        return out



@dataclass(frozen=True)
class GemmSweep(_JsonFile):
    """Timed ``[M, k] @ [k, n]`` GEMMs with the roofline's prediction for each ``M``."""

    #: Rows ``M`` of each GEMM, strictly increasing.
    m: tuple[int, ...]
    #: Median seconds per GEMM.
    seconds: tuple[float, ...]
    #: Achieved throughput ``2·M·k·n / seconds``, FLOP/s.
    flops_per_second: tuple[float, ...]
    #: The roofline's ``min(Π, I(M)·β)``, FLOP/s.
    predicted: tuple[float, ...]
    #: :func:`infra_calc.critical_rows` on the measured roofline, rows.
    predicted_critical_rows: float
    #: Π of the roofline the prediction used, FLOP/s.
    peak_flops: float
    #: β of the roofline the prediction used, bytes/s.
    mem_bandwidth: float
    #: Shared (reduction) dimension of the GEMM.
    k: int = 4096
    #: Output columns of the GEMM.
    n: int = 4096
    #: Bytes per element: the itemsize of the measured dtype (4 for float32, 2 for bfloat16).
    bytes_per_element: float = BYTES_PER_ELEMENT
    #: Share of the plateau that defines the measured ``M*``.
    fraction: float = 0.9

    _json_key: ClassVar[str | None] = "sweep"

    def __post_init__(self):
        m = check_m_values(self.m)
        for name, unit in (("seconds", "s"), ("flops_per_second", "FLOP/s"), ("predicted", "FLOP/s")):
            v = np.atleast_1d(check_number(getattr(self, name), name, unit))
            if v.size != len(m):
                raise ValueError(f"{name} ({unit}) must have one value per M: {v.size} values "
                                 f"for {len(m)} rows")
            object.__setattr__(self, name, tuple(float(x) for x in v))
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "predicted_critical_rows",
                           check_number(self.predicted_critical_rows, "predicted_critical_rows",
                                        "rows", allow_inf=True))
        object.__setattr__(self, "fraction", check_number(self.fraction, "fraction", "of the plateau",
                                                          maximum=1.0))
        for name, unit in (("peak_flops", "FLOP/s"), ("mem_bandwidth", "bytes/s")):
            object.__setattr__(self, name, check_number(getattr(self, name), name, unit))

    @property
    def accelerator(self) -> Accelerator:
        """The measured roofline as an :class:`~infra_calc.Accelerator` (capacity unused)."""
        return _measured_accelerator(self.peak_flops, self.mem_bandwidth)

    @property
    def no_overlap(self) -> tuple:
        """Throughput of each point if moving and computing did not overlap, FLOP/s."""
        v = no_overlap_flops(np.array(self.m, float), self.k, self.n, self.accelerator,
                             bytes_per_element=self.bytes_per_element)
        return tuple(float(x) for x in np.atleast_1d(v))

    def model_rows(self, overlap=True) -> float:
        """Rows at which the model (with or without overlap) reaches ``fraction`` of the peak."""
        return model_rows_at_fraction(self.k, self.n, self.accelerator,
                                      bytes_per_element=self.bytes_per_element,
                                      fraction=self.fraction, overlap=overlap)

    @property
    def intensity(self) -> tuple:
        """Arithmetic intensity I(M) of each point, FLOP/byte."""
        i = arithmetic_intensity(np.array(self.m, float), self.k, self.n,
                                 bytes_per_element=self.bytes_per_element)
        return tuple(float(x) for x in np.atleast_1d(i))

    @property
    def plateau(self) -> float:
        """Highest measured throughput, FLOP/s."""
        return max(self.flops_per_second)

    @property
    def measured_critical_rows(self) -> float:
        """First ``M`` reaching ``fraction`` of the plateau (log-log interpolated), rows."""
        return measured_critical_rows(self.m, self.flops_per_second, fraction=self.fraction)

    @property
    def prediction_error(self) -> float:
        """Relative error of the prediction: measured M* / predicted M* − 1."""
        return self.measured_critical_rows / self.predicted_critical_rows - 1.0

    def throughput_at(self, m) -> float:
        """Measured FLOP/s at ``M = m`` (one of the grid's rows)."""
        try:
            return self.flops_per_second[self.m.index(int(m))]
        except ValueError:
            raise ValueError(f"m (rows) = {m} was not measured; measured rows: {self.m}") from None

    def to_dict(self) -> dict:
        """Plain-``dict`` form (JSON-ready: tuples become lists)."""
        d = dataclasses.asdict(self)
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}

    @classmethod
    def from_dict(cls, d) -> GemmSweep:
        return cls(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items()})



@dataclass(frozen=True)
class LabRun(_JsonFile):
    """One lab measurement: the machine's roofline and the GEMM sweep."""

    #: The measured roofline (Π, β).
    roofline: MachineRoofline
    #: The Q-projection GEMM sweep against that roofline's prediction.
    sweep: GemmSweep

    def to_dict(self) -> dict:
        """Plain-``dict`` form (JSON-ready), tagged with :data:`FORMAT`."""
        return {"format": FORMAT, "roofline": self.roofline.to_dict(), "sweep": self.sweep.to_dict()}

    @classmethod
    def from_dict(cls, d) -> LabRun:
        if d.get("format") != FORMAT:
            raise ValueError(f"format must be {FORMAT!r}, got {d.get('format')!r}")
        return cls(MachineRoofline.from_dict(d["roofline"]), GemmSweep.from_dict(d["sweep"]))


    def report(self) -> list:
        """The printout of ``python -m infra_calc measure`` (no date), as lines."""
        r, s = self.roofline, self.sweep
        st = r.settings
        lines = [
            f"Machine: {r.description}",
            f"Memory bandwidth, STREAM-style triad ({r.dtype}, 3 arrays x {st.get('triad_n', '?')} "
            f"elements, {st.get('triad_threads', '?')} threads): {shown(r.mem_bandwidth, 'GB/s', 1)}",
            f"Matmul peak ({r.dtype}, n = {', '.join(str(x) for x in st.get('matmul_sizes', []))}): "
            f"{shown(r.peak_flops, 'GFLOP/s', 1)}",
            f"Ridge point I* = peak / bandwidth: {shown(r.ridge_point, 'FLOP/byte', 2)}",
            "",
            f"Q-projection GEMM [M, {s.k}] @ [{s.k}, {s.n}], {r.dtype} "
            f"({s.bytes_per_element:g} bytes per element)",
            f"{'M':>6} {'I (FLOP/B)':>11} {'time (ms)':>10} {'measured GFLOP/s':>17} "
            f"{'predicted GFLOP/s':>18} {'meas./pred.':>12}",
        ]
        for m, i, t, f, p in zip(s.m, s.intensity, s.seconds, s.flops_per_second, s.predicted, strict=True):
            lines.append(f"{m:>6} {i:>11.2f} {shown(t, 'ms', 3, bare=True, sep=False):>10} "
                         f"{shown(f, 'GFLOP/s', 1, bare=True, sep=False):>17} "
                         f"{shown(p, 'GFLOP/s', 1, bare=True, sep=False):>18} {f / p:>12.2f}")
        lines += [
            "",
            f"Predicted M* = critical_rows({s.k}, {s.n}, this machine, {s.bytes_per_element:g}) "
            f"= {shown(s.predicted_critical_rows, 'rows', 1)}",
            f"Measured M* (first M reaching {shown(s.fraction, '%', 0)} of the plateau "
            f"{shown(s.plateau, 'GFLOP/s', 1)}, log-log interpolated) = "
            f"{shown(s.measured_critical_rows, 'rows', 1)}",
            f"Prediction error: measured / predicted - 1 = "
            f"{'+' if s.prediction_error >= 0 else '-'}{shown(abs(s.prediction_error), '%', 0)}",
            f"Rows where a model reaches {shown(s.fraction, '%', 0)} of the peak: roofline (overlap) "
            f"{s.model_rows(True):,.1f}, no overlap (t = F/peak + V/bandwidth) {s.model_rows(False):,.1f}",
        ]
        return lines


def sweep_from_seconds(roofline: MachineRoofline, m_values, seconds, *, k=4096, n=4096,
                       bytes_per_element=BYTES_PER_ELEMENT, fraction=0.9) -> GemmSweep:
    """Build a :class:`GemmSweep` from timed seconds and the roofline's prediction: the one
    constructor of a sweep (``bytes_per_element``: the itemsize of the measured dtype)."""
    m_values = check_m_values(m_values)
    seconds = np.atleast_1d(check_number(seconds, "seconds", "s"))
    predicted, m_star = roofline_prediction(m_values, k, n, roofline.accelerator,
                                            bytes_per_element=bytes_per_element)
    return GemmSweep(m_values, tuple(seconds), tuple(achieved_flops(m_values, seconds, k, n)),
                     tuple(predicted), m_star, roofline.peak_flops, roofline.mem_bandwidth, int(k),
                     int(n), float(bytes_per_element), fraction)
