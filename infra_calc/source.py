"""The source chapters' inputs, exactly as they state them.

The book reproduces the S23-J07 and S23-J13 chapters (blog series "S23" by
clxstart, CC BY-NC-SA 4.0).  Their *inputs* live here, each named once, so a
reader can see which numbers are given and which are computed.  Where the
source rounds or reads a unit differently from the physical catalog, the
constant says so.  Everything the chapters print is computed from these.
"""
from __future__ import annotations

from types import MappingProxyType

from .hardware import accelerator, decimal_reading
from .units import GB, US, GiB

__all__ = [
    "KV_BYTES_PER_ELEMENT",
    "J07_PARAMS", "J07_BYTES_PER_PARAM", "J07_WEIGHTS_8BIT", "J07_CONTEXT", "J07_WORKSPACE",
    "J07_TARGET_STEP", "J07_BATCHES", "J07_MODEL", "j07_h100", "j07_a100",
    "J13_K", "J13_N", "J13_BYTES_PER_ELEMENT", "J13_ROWS", "J13_MODEL", "J13_WORKSPACE", "J13_READING",
    "J13_CONTEXTS", "J13_BYTES_PER_PARAM", "J13_HW", "J13_BATCH", "j13_h100", "j13_rtx4090",
    "MOE_TOKENS", "MOE_TOP_K", "MOE_EXPERTS",
    "MOE_TILE_ROWS", "TPU_V1_AREA_SOURCE", "TPU_V1_AREA_PAPER",
    "TPU_V1_PAPER_UB_ALONE", "TPU_V1_PAPER_MMU_ALONE", "AMDAHL_F", "AMDAHL_S",
    "AMDAHL_T_TOTAL",
]


# --- both chapters ----------------------------------------------------------
KV_BYTES_PER_ELEMENT = 2     # the KV cache's keys and values in BF16, in J07 and J13


# --- S23-J07: one decode step of a 70B dense model on an H100 -------------
J07_MODEL = "DeepSeek-R1-Distill-Llama-70B"
J07_PARAMS = 70e9            # N, rounded by the source (exact: 70,553,706,496)
J07_BYTES_PER_PARAM = 1.0    # b_W: 8-bit weights, read once per step
J07_WEIGHTS_8BIT = 73.73 * GB  # resident size quoted by the source (8-bit groups + metadata)
J07_CONTEXT = 8192           # tokens of KV cache for the one request
J07_WORKSPACE = 2 * GiB      # the source's 2.15 GB workspace
J07_TARGET_STEP = 10e-3      # the 10 ms-per-token target, seconds
J07_BATCHES = (8, 32, 148)   # batch sizes the printout evaluates


def j07_h100():
    """The H100 SXM as J07 reads it: 80 GB = 80e9 bytes (physical: 80 GiB)."""
    return decimal_reading("H100 SXM")


def j07_a100():
    """The A100 80GB as J07's self-test reads it: 80e9 bytes."""
    return decimal_reading("A100 80GB")


# --- S23-J13: why a card cannot run at full speed --------------------------
J13_K = 4096                 # hidden size of Qwen3-8B: W_Q is [4096, 4096]
J13_N = 4096
J13_BYTES_PER_ELEMENT = 2    # BF16
J13_BYTES_PER_PARAM = 2      # the model's weights in BF16
J13_ROWS = (1, 64, 256)      # M values in the printout
J13_MODEL = "Qwen3-8B"
J13_WORKSPACE = 2 * GiB
J13_READING = "decimal GB"   # the source reads the RTX 4090's "24 GB" as 24e9 bytes
J13_CONTEXTS = (8192, 16384)
J13_HW = "RTX 4090"          # the card of the capacity example
J13_BATCH = 4                # requests of the capacity example

MOE_TOKENS = 64
MOE_TOP_K = 8
MOE_EXPERTS = 256
MOE_TILE_ROWS = 16


def j13_h100():
    """The H100 SXM as used in J13 (only Π and β matter there)."""
    return accelerator("H100 SXM")


def j13_rtx4090():
    """The RTX 4090 as J13 reads it: 24 GB = 24e9 bytes (physical: 24 GiB = 25.77e9)."""
    return decimal_reading("RTX 4090")


# TPU v1 die area (share of die), as the source's table gives it ...
TPU_V1_AREA_SOURCE = MappingProxyType({
    "Unified Buffer (24 MiB)": 0.37,
    "Compute (256x256 8-bit MACs)": 0.30,
    "Control": 0.02,
})
# ... and as Jouppi et al., ISCA 2017, Figure 2 gives it: 37% is *all* data
# buffers (Unified Buffer, accumulators, weight FIFO); the UB alone is
# "almost a third".  The remainder is not labelled in the figure's caption.
TPU_V1_AREA_PAPER = MappingProxyType({
    "Data buffers (UB + accumulators + weight FIFO)": 0.37,
    "Compute": 0.30,
    "I/O": 0.10,
    "Control": 0.02,
})

# Jouppi et al., ISCA 2017, section 2 (the text beside Figure 2): the 24 MiB
# Unified Buffer alone is "almost a third" of the die (so 1/3 is an upper
# bound) and the Matrix Multiply Unit alone "a quarter".
TPU_V1_PAPER_UB_ALONE = 1 / 3
TPU_V1_PAPER_MMU_ALONE = 1 / 4

# Amdahl example: 60% of a 100 us step is matrix work, sped up 2x then 4x.
AMDAHL_F = 0.6
AMDAHL_S = (2.0, 4.0)
AMDAHL_T_TOTAL = 100 * US
