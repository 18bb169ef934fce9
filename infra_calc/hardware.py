"""Accelerators: peak dense math, memory bandwidth and memory capacity.

:class:`Accelerator` is one card's numbers; the catalog of cards, each with the
documents its numbers come from, is :data:`infra_calc.accelerators.CATALOG`
(``infra_calc/data/accelerators.json``).  ``peak_flops`` is always the *dense* BF16
(or FP16 where the vendor gives no BF16 figure) tensor throughput, never the
2:4-sparse headline number that spec sheets print next to it;
:attr:`Accelerator.peaks` adds the dense peak of each lower math precision the card
runs (FP8, FP4), each with its source, and :meth:`Accelerator.peak` gives the peak of
one precision.  ``mem_capacity`` is the physical size in bytes: memory is built in
binary sizes, so a card sold as "80 GB" holds 80 GiB = 85.9e9 bytes.
"""
from __future__ import annotations

import dataclasses
from dataclasses import KW_ONLY, dataclass

import numpy as np

from ._validate import check_int, check_number, is_scalar
from .display import round_sig, shown

__all__ = ["Accelerator", "READINGS", "MATH_PRECISIONS"]

#: Math precisions a peak can be asked for, widest first.  ``"fp16"`` reads the BF16 peak:
#: every catalog card prints the same dense FP16 and BF16 tensor rate.
MATH_PRECISIONS = ("bf16", "fp16", "fp8", "fp4")

#: The two ways to read a card's capacity: what is physically built (binary
#: GiB, the catalog value) and the number on the box read as 10^9 bytes.
READINGS = ("physical GiB", "decimal GB")


@dataclass(frozen=True)
class Accelerator:
    """One accelerator's three headline numbers.

    Parameters
    ----------
    name : str
        Display name, e.g. ``"H100 SXM"``.
    peak_flops : float
        Dense BF16 tensor throughput Π, in FLOP/s.
    mem_bandwidth : float
        Peak memory bandwidth β, in bytes/s.
    mem_capacity : float
        Memory capacity C, in bytes (physical, binary-sized).
    vendor, memory : str
        Maker and memory technology, for display.
    source : str
        The datasheet or whitepaper the figures come from.
    note : str
        Anything a reader should know about the figures.
    link_bandwidth : float, optional
        Chip-to-chip bandwidth *per direction*, in bytes/s (0 = unknown).
        Datasheets print the bidirectional sum (e.g. NVLink "900 GB/s" on
        the H100 SXM); the catalog stores half of it, what one card can
        send while it receives as much, summed over all its links.  Through
        a switch (NVLink) one ring gets all of it; on a card wired to each
        peer by a link of its own (MI300X) one ring gets one link, and the
        ring model with the sum stands for several rings run at once.
    link_latency : float, optional
        Time one ring step of a collective costs regardless of size, in
        seconds (0 = unknown).  No datasheet prints it: the catalog uses an
        assumed 1 µs, stated in ``link_source``.
    link_source : str, optional
        Where the link figures come from.
    link_domain : int, optional
        Cards that share the fast link (an NVLink domain: 8 on an HGX/DGX
        board); 0 = unknown.  A collective over more cards crosses the
        slower ``internode_bandwidth``.
    internode_bandwidth : float, optional
        Network bandwidth *per card and per direction* between domains, in
        bytes/s (e.g. one 400 Gb/s InfiniBand NDR port per H100 in a DGX
        H100: 50e9); 0 = unknown.
    in_switch_reduction : bool, optional
        Whether the switch of the domain can reduce in the network (NVLink
        SHARP, "NVLS"), so an all-reduce needs no ring.
    domain_source : str, optional
        Where the domain size, the network and the in-switch reduction come from.
    capacity_reading : str, optional
        How ``mem_capacity`` reads the card's label: ``"physical GiB"`` (the
        catalog: a card sold as 80 GB holds 80 GiB) or ``"decimal GB"`` (the
        label read as 10^9 bytes, as the source chapters do; see
        :func:`~infra_calc.accelerators.decimal_reading`).
    peaks : tuple of (str, float, str), optional
        Dense tensor peaks of the lower math precisions the card runs, as
        ``(precision, FLOP/s, source)`` triples, e.g. ``("fp8", 1978.9e12,
        "NVIDIA H100 datasheet ...")``; BF16 (and FP16) is ``peak_flops``.
        A card without an entry for a precision does not run it.

    Notes
    -----
    The ridge point (machine balance) is :math:`I^* = \\Pi / \\beta` in FLOP/byte.
    """

    name: str
    peak_flops: float
    mem_bandwidth: float
    mem_capacity: float
    _: KW_ONLY                         # the optional fields by name only
    vendor: str = ""
    memory: str = ""
    source: str = ""
    note: str = ""
    link_bandwidth: float = 0.0
    link_latency: float = 0.0
    link_source: str = ""
    link_domain: int = 0
    internode_bandwidth: float = 0.0
    in_switch_reduction: bool = False
    domain_source: str = ""
    capacity_reading: str = "physical GiB"
    peaks: tuple[tuple[str, float, str], ...] = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise TypeError("name must be a non-empty string")
        for field, unit in (("peak_flops", "FLOP/s"), ("mem_bandwidth", "bytes/s"),
                            ("mem_capacity", "bytes")):
            value = check_number(getattr(self, field), field, unit)
            if not is_scalar(value):
                raise TypeError(f"{field} ({unit}) must be a single number, not an array")
            object.__setattr__(self, field, value)
        for field, unit in (("link_bandwidth", "bytes/s"), ("link_latency", "s"),
                            ("internode_bandwidth", "bytes/s")):
            value = check_number(getattr(self, field), field, unit, allow_zero=True)
            if not is_scalar(value):
                raise TypeError(f"{field} ({unit}) must be a single number, not an array")
            object.__setattr__(self, field, value)
        object.__setattr__(self, "link_domain",
                           check_int(self.link_domain, "link_domain", "cards", minimum=0,
                                     scalar=True))
        if not isinstance(self.in_switch_reduction, (bool, np.bool_)):
            raise TypeError(f"in_switch_reduction must be True or False, "
                            f"got {self.in_switch_reduction!r}")
        object.__setattr__(self, "in_switch_reduction", bool(self.in_switch_reduction))
        if self.capacity_reading not in READINGS:
            raise ValueError(f"capacity_reading must be one of {READINGS}, "
                             f"got {self.capacity_reading!r}")
        peaks = []
        for entry in self.peaks:
            if not (isinstance(entry, tuple) and len(entry) == 3):
                raise TypeError(f"peaks must hold (precision, FLOP/s, source) triples, got {entry!r}")
            prec, flops, src = entry
            if prec not in MATH_PRECISIONS[2:]:
                raise ValueError(f"peaks: precision must be one of {MATH_PRECISIONS[2:]} "
                                 f"(BF16/FP16 is peak_flops), got {prec!r}")
            peaks.append((prec, float(check_number(flops, f"peaks[{prec!r}]", "FLOP/s")), str(src)))
        object.__setattr__(self, "peaks", tuple(peaks))

    @property
    def math_precisions(self) -> tuple[str, ...]:
        """The math precisions this card has a dense peak for (``"bf16"``, ``"fp16"``, then ``peaks``)."""
        return ("bf16", "fp16") + tuple(p for p, _, _ in self.peaks)

    def peak(self, math: str = "bf16") -> float:
        """Dense tensor peak :math:`\\Pi_m` of math precision ``math``, in FLOP/s.

        ``"bf16"`` and ``"fp16"`` give :attr:`peak_flops`; ``"fp8"`` and ``"fp4"`` the
        card's entry in :attr:`peaks`.

        Raises
        ------
        ValueError
            When the card has no peak for ``math``; the message names the card's precisions.

        >>> from infra_calc import accelerator
        >>> accelerator("H100 SXM").peak("fp8") / 1e12
        1978.9
        """
        if not isinstance(math, str):
            raise TypeError(f"math must be a precision name (str), got {type(math).__name__}")
        key = math.strip().lower()
        if key in ("bf16", "fp16"):
            return self.peak_flops
        for prec, flops, _ in self.peaks:
            if prec == key:
                return flops
        raise ValueError(f"math={math!r}: the {self.name} has no dense peak for that precision; "
                         f"its math precisions: {', '.join(self.math_precisions)}")

    def peak_source(self, math: str = "bf16") -> str:
        """The document the dense peak of ``math`` comes from."""
        self.peak(math)
        key = math.strip().lower()
        return next((src for prec, _, src in self.peaks if prec == key), self.source)

    def ridge(self, math: str = "bf16") -> float:
        """Ridge point at math of precision ``math``, :math:`I^*_m = \\Pi_m/\\beta`, FLOP/byte.

        >>> from infra_calc import accelerator
        >>> h = accelerator("H100 SXM")
        >>> h.ridge("fp8") > h.ridge() == h.ridge_point
        True
        """
        return self.peak(math) / self.mem_bandwidth

    @property
    def ridge_point(self) -> float:
        """Ridge point :math:`I^* = \\Pi/\\beta` at the BF16 peak, in FLOP/byte (:meth:`ridge`)."""
        return self.ridge()

    def with_(self, **changes) -> Accelerator:
        """Return a copy with some fields changed (e.g. ``mem_capacity=80e9``)."""
        return dataclasses.replace(self, **changes)

    def __str__(self) -> str:
        return (f"{self.name}: {shown(self.peak_flops, 'TFLOP/s', 1)} dense, "
                f"{round_sig(self.mem_bandwidth, 'TB/s')}, {shown(self.mem_capacity, 'GiB', 0)}")

