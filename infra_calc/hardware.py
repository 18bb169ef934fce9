"""Accelerators: peak dense math, memory bandwidth and memory capacity.

Every catalog entry records the document its numbers come from.  ``peak_flops``
is always the *dense* BF16 (or FP16 where the vendor gives no BF16 figure)
tensor throughput, never the 2:4-sparse headline number that spec sheets print
next to it; :attr:`Accelerator.peaks` adds the dense peak of each lower math precision
the card runs (FP8, FP4), each with its source, and :meth:`Accelerator.peak` gives the peak
of one precision.  ``mem_capacity`` is the physical size in bytes: memory is built
in binary sizes, so a card sold as "80 GB" holds 80 GiB = 85.9e9 bytes.
"""
from __future__ import annotations

import dataclasses
from dataclasses import KW_ONLY, dataclass
from types import MappingProxyType

import numpy as np

from ._names import NameIndex
from ._validate import check_int, check_number, is_scalar
from .display import round_sig, shown
from .units import GB, GiB

__all__ = ["Accelerator", "CATALOG", "accelerator", "accelerator_names",
           "READINGS", "DECIMAL_CAPACITY_NOTE", "capacity_reading", "decimal_reading",
           "ASSUMED_LINK_LATENCY", "MATH_PRECISIONS"]

#: Math precisions a peak can be asked for, widest first.  ``"fp16"`` reads the BF16 peak:
#: every catalog card prints the same dense FP16 and BF16 tensor rate.
MATH_PRECISIONS = ("bf16", "fp16", "fp8", "fp4")

#: The two ways to read a card's capacity: what is physically built (binary
#: GiB, the catalog value) and the number on the box read as 10^9 bytes.
READINGS = ("physical GiB", "decimal GB")

#: What an accelerator read the decimal way says about its capacity.
DECIMAL_CAPACITY_NOTE = (
    "the source reads a card sold as 'N GB' as N x 10^9 bytes; the physical "
    "memory is N GiB = N x 2^30 bytes"
)

#: The fixed cost of one step of a collective, seconds: an *assumption* (no
#: datasheet prints it), the same for every card of the catalog.
ASSUMED_LINK_LATENCY = 1e-6
_ALPHA = "; link latency 1 us per ring step is an assumption (no datasheet prints it)"
_DGX_HOPPER = ("NVIDIA DGX BasePOD reference architecture, core components: a DGX H100/H200 holds "
               "eight Hopper GPUs on four NVSwitch chips (an NVLink domain of 8) and eight "
               "single-port ConnectX-7 adapters, up to 400 Gb/s InfiniBand, one per GPU: "
               "50 GB/s per direction between nodes")
_NVLS = ("; the third-generation NVSwitch reduces in the switch (NVLink SHARP): NVIDIA, "
         "'Upgrading Multi-GPU Interconnectivity with the Third-Generation NVIDIA NVSwitch'")
_PCIE_HOST = ("assumed: eight PCIe cards in one host (a common server layout; no datasheet fixes "
              "it); the network between hosts is unknown")


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
    aliases : tuple of str
        Extra names accepted by :func:`accelerator`.
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
        :func:`decimal_reading`).
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
    aliases: tuple[str, ...] = ()
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


_ENTRIES = (
    Accelerator(
        "H100 SXM", 989.4e12, 3.35e12, 80 * GiB, vendor="NVIDIA", memory="HBM3",
        source="NVIDIA H100 Tensor Core GPU datasheet (SXM5): BF16 1,979 TFLOPS with sparsity",
        note="dense BF16 = half the sparse 1,979 TFLOPS headline; sold as 80 GB, built as 80 GiB",
        aliases=("H100", "H100 SXM5"),
        link_bandwidth=450e9, link_latency=ASSUMED_LINK_LATENCY,
        link_source=("NVIDIA H100 datasheet (SXM): NVLink 900 GB/s, the bidirectional sum"
                     "; 450 GB/s per direction" + _ALPHA),
        link_domain=8, internode_bandwidth=50e9, in_switch_reduction=True,
        domain_source=_DGX_HOPPER + _NVLS,
        peaks=(("fp8", 1978.9e12, "NVIDIA H100 Tensor Core GPU datasheet (SXM), "
               "https://www.nvidia.com/en-us/data-center/h100/: FP8 Tensor Core 3,958 TFLOPS with "
                      "sparsity; dense = half"),),
    ),
    Accelerator(
        "A100 80GB", 312e12, 2.039e12, 80 * GiB, vendor="NVIDIA", memory="HBM2e",
        source="NVIDIA A100 Tensor Core GPU datasheet (80GB SXM): BF16 312 TFLOPS (624 with sparsity)",
        note="dense BF16; sold as 80 GB, built as 80 GiB",
        aliases=("A100", "A100 SXM", "A100 80G"),
        link_bandwidth=300e9, link_latency=ASSUMED_LINK_LATENCY,
        link_source=("NVIDIA A100 datasheet (SXM): NVLink 600 GB/s, the bidirectional sum"
                     "; 300 GB/s per direction"
                     + _ALPHA),
        link_domain=8, internode_bandwidth=25e9,
        domain_source=("NVIDIA DGX A100 system: eight A100 on six second-generation NVSwitch chips "
                       "(an NVLink domain of 8) and eight Mellanox 200 Gb/s HDR InfiniBand "
                       "adapters, one per GPU: 25 GB/s per direction between nodes; the "
                       "second-generation NVSwitch has no in-switch reduction"),
    ),
    Accelerator(
        "RTX 4090", 165.2e12, 1.008e12, 24 * GiB, vendor="NVIDIA", memory="GDDR6X",
        source=("NVIDIA Ada GPU Architecture whitepaper, Table 2: peak BF16 tensor TFLOPS with FP32 "
                "accumulate 165.2 (330.4 sparse); peak FP16 tensor TFLOPS with FP32 accumulate "
                "165.2 (330.4 sparse), with FP16 accumulate 330.3 (660.6 sparse)"),
        note=("dense BF16 with FP32 accumulate, and the FP16 peak is the FP16 figure with FP32 "
              "accumulate too (the accumulation LLM kernels use): GeForce Ada runs FP16 with FP16 "
              "accumulate at twice that, 330.3 TFLOP/s dense, so a compute floor for a kernel that "
              "accumulates in FP16 is half the one this peak gives; "
              "sold as 24 GB, built as 24 GiB = 25.77e9 bytes"),
        aliases=("4090", "GeForce RTX 4090"),
        link_bandwidth=32e9, link_latency=ASSUMED_LINK_LATENCY,
        link_source=("No NVLink: PCIe Gen4 x16, 64 GB/s bidirectional (PCI-SIG)"
                     "; 32 GB/s per direction"
                     "; the model assumes peer-to-peer transfers over PCIe, which the GeForce "
                     "RTX 4090 does not support (NCCL stages through host memory), so real "
                     "all-reduces are slower still"
                     + _ALPHA),
        link_domain=8, domain_source=_PCIE_HOST,
    ),
    Accelerator(
        "H200 SXM", 989.4e12, 4.8e12, 141 * GiB, vendor="NVIDIA", memory="HBM3e",
        source=("NVIDIA H200 Tensor Core GPU datasheet (SXM): BF16 1,979 TFLOPS with sparsity, 4.8 "
                "TB/s, 141 GB"),
        note="same compute die as the H100 SXM; dense BF16 = half the sparse headline; 141 GB read as GiB",
        aliases=("H200",),
        link_bandwidth=450e9, link_latency=ASSUMED_LINK_LATENCY,
        link_source=("NVIDIA H200 datasheet (SXM): NVLink 900 GB/s, the bidirectional sum"
                     "; 450 GB/s per direction" + _ALPHA),
        link_domain=8, internode_bandwidth=50e9, in_switch_reduction=True,
        domain_source=_DGX_HOPPER + _NVLS,
        peaks=(("fp8", 1978.9e12, "NVIDIA H200 Tensor Core GPU datasheet (SXM), "
               "https://www.nvidia.com/en-us/data-center/h200/: FP8 Tensor Core 3,958 TFLOPS with "
                      "sparsity; dense = half"),),
    ),
    Accelerator(
        "B200", 2.25e15, 8.0e12, 180 * GiB, vendor="NVIDIA", memory="HBM3e",
        source=("NVIDIA DGX B200 / HGX B200 datasheet, per GPU: FP16/BF16 4.5 PFLOPS with sparsity, "
                "8 TB/s, 180 GB"),
        note="dense BF16 = half the sparse headline; 180 GB read as GiB",
        aliases=("B200 SXM", "HGX B200"),
        link_bandwidth=900e9, link_latency=ASSUMED_LINK_LATENCY,
        link_source=("NVIDIA HGX B200 datasheet: NVLink 1.8 TB/s per GPU, the bidirectional sum"
                     "; 900 GB/s per direction"
                     + _ALPHA),
        link_domain=8, internode_bandwidth=50e9, in_switch_reduction=True,
        domain_source=("NVIDIA DGX BasePOD reference architecture, core components: a DGX B200 "
                       "holds eight B200 (an NVLink domain of 8) and eight single-port "
                       "ConnectX-7 adapters, up to 400 Gb/s InfiniBand: 50 GB/s per direction "
                       "between nodes; NVLink SHARP (NVLS) all-reduce on NVLink 4 and 5 "
                       "platforms: NVIDIA NVSHMEM 3.2.5 release notes"),
        peaks=(("fp8", 4.5e15, "NVIDIA HGX B200 datasheet, "
               "https://www.nvidia.com/en-us/data-center/hgx/, per GPU: FP8/FP6 Tensor Core 9 "
                      "PFLOPS with sparsity; dense = half"),
               ("fp4", 9.0e15, "NVIDIA HGX B200 datasheet, "
                      "https://www.nvidia.com/en-us/data-center/hgx/, per GPU: FP4 Tensor Core 18 "
                             "PFLOPS with sparsity; dense = half")),
    ),
    Accelerator(
        "L40S", 362.05e12, 0.864e12, 48 * GiB, vendor="NVIDIA", memory="GDDR6",
        source="NVIDIA L40S datasheet: BF16 tensor 362.05 TFLOPS (733 with sparsity), 864 GB/s, 48 GB",
        note="dense BF16; sold as 48 GB, built as 48 GiB",
        aliases=("L40 S",),
        link_bandwidth=32e9, link_latency=ASSUMED_LINK_LATENCY,
        link_source=("NVIDIA L40S datasheet: PCIe Gen4 x16, 64 GB/s bidirectional, no NVLink"
                     "; 32 GB/s per direction"
                     + _ALPHA),
        link_domain=8, domain_source=_PCIE_HOST,
        peaks=(("fp8", 733e12, "NVIDIA L40S datasheet, "
               "https://www.nvidia.com/en-us/data-center/l40s/: FP8 Tensor 1,466 TFLOPS with "
                      "sparsity; dense = half"),),
    ),
    Accelerator(
        "MI300X", 1307.4e12, 5.3e12, 192 * GiB, vendor="AMD", memory="HBM3",
        source=("AMD Instinct MI300X data sheet: peak BF16 1,307.4 TFLOPS dense (2,614.9 with "
                "sparsity), 5.3 TB/s, 192 GB"),
        note="dense BF16; 192 GB read as GiB",
        aliases=("Instinct MI300X", "MI300"),
        link_bandwidth=448e9, link_latency=ASSUMED_LINK_LATENCY,
        link_source=("AMD MI300X data sheet: peak aggregate Infinity Fabric 896 GB/s (bidirectional sum)"
                     "; 448 GB/s per direction, summed over the seven links to the other cards"
                     " (one link each, 64 GB/s per direction): one ring uses one link, so the"
                     " ring model with this figure is seven rings at once, one per link"
                     + _ALPHA),
        link_domain=8,
        domain_source=("AMD Instinct MI300X platform: eight GPUs fully connected by Infinity "
                       "Fabric (a domain of 8); the network between platforms is unknown"),
        peaks=(("fp8", 2614.9e12, "AMD Instinct MI300X data sheet, "
               "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html: peak FP8 "
                      "2,614.9 TFLOPS dense (5,229.8 with sparsity)"),),
    ),
    Accelerator(
        "TPU v5e", 197e12, 0.819e12, 16 * GiB, vendor="Google", memory="HBM2",
        source="Google Cloud TPU v5e documentation: 197 TFLOP/s BF16, 819 GB/s, 16 GB HBM per chip",
        note="per chip; TPUs publish dense figures",
        aliases=("v5e", "TPUv5e", "TPU v5 lite", "v5litepod"),
        link_bandwidth=100e9, link_latency=ASSUMED_LINK_LATENCY,
        link_source=("Google Cloud TPU v5e documentation: interchip interconnect 1,600 Gbps"
                     " = 200 GB/s per chip, read as the bidirectional sum"
                     "; 100 GB/s per direction, summed over the chip's torus links: the ring"
                     " model with this figure runs rings over all of them at once"
                     + _ALPHA),
        link_domain=256, internode_bandwidth=3.125e9,
        domain_source=("Google Cloud TPU v5e documentation: a pod of 256 chips on a 2D-torus "
                       "interchip interconnect (the domain); between pods the data-center "
                       "network, 2 x 100 Gbps NICs per host of 8 chips: 25 Gb/s = 3.125 GB/s "
                       "per chip and direction"),
    ),
    Accelerator(
        "Ascend 910B", 320e12, 1.6e12, 64 * GiB, vendor="Huawei", memory="HBM2e",
        source=("Public Atlas 800T A2 / Ascend 910B listings: about 320 TFLOPS FP16 dense, 1.6 "
                "TB/s, 64 GB HBM2e"),
        note=("Huawei publishes no per-card whitepaper: FP16 dense figure from public listings, "
              "treat as approximate"),
        aliases=("910B", "Ascend910B"),
    ),
)

CATALOG = MappingProxyType({acc.name: acc for acc in _ENTRIES})
"""Read-only mapping of canonical name to :class:`Accelerator`."""


_INDEX = NameIndex(_ENTRIES)


def accelerator_names() -> list[str]:
    """Canonical names of every catalog accelerator, in catalog order."""
    return _INDEX.names()


def accelerator(name: str | Accelerator) -> Accelerator:
    """Look up a catalog accelerator, ignoring case, spaces, dashes, underscores and dots
    (:func:`~infra_calc._names.name_key`).

    An :class:`Accelerator` is returned as it is (a changed copy keeps its figures).

    >>> accelerator("h100-sxm").name, accelerator("h100_sxm").name
    ('H100 SXM', 'H100 SXM')
    """
    if isinstance(name, Accelerator):
        return name
    if not isinstance(name, str):
        raise TypeError(f"hw must be an Accelerator or a catalog name (str), got {type(name).__name__}")
    found = _INDEX.find(name)
    if found is None:
        raise ValueError(f"unknown accelerator {name!r}; known names: {', '.join(CATALOG)}")
    return found


# ------------------------------------------------------------------ two readings of "N GB"
_READING_UNIT = {"physical GiB": GiB, "decimal GB": GB}


def capacity_reading(hw, *, reading: str = "physical GiB") -> float:
    """Capacity ``C`` in bytes of accelerator ``hw`` under one reading.

    A card's label says "N GB".  ``"physical GiB"`` reads it as ``N × 2^30``
    bytes (memory is built in binary sizes: a card sold as 24 GB holds 24
    GiB); ``"decimal GB"`` reads the same label as ``N × 10^9`` bytes, as the
    source does.  The label ``N`` is recovered from the accelerator's own
    reading (:attr:`Accelerator.capacity_reading`), so the answer is the
    same whether ``hw`` is the catalog entry or a :func:`decimal_reading` of it.

    >>> capacity_reading("RTX 4090", reading="decimal GB")
    24000000000.0
    >>> capacity_reading(decimal_reading("RTX 4090"), reading="physical GiB") / GiB
    24.0
    """
    acc = accelerator(hw)
    if reading not in _READING_UNIT:
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    label = round(acc.mem_capacity / _READING_UNIT[acc.capacity_reading])
    return float(label * _READING_UNIT[reading])


def decimal_reading(hw) -> Accelerator:
    """A copy of ``hw`` whose capacity is its label read as 10^9 bytes (80 GiB -> 80e9 B)."""
    acc = accelerator(hw)
    return acc.with_(mem_capacity=capacity_reading(acc, reading="decimal GB"), note=DECIMAL_CAPACITY_NOTE,
                     capacity_reading="decimal GB")
