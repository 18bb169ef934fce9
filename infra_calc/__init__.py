"""infra_calc: the calculator behind the book *Estimating LLM Inference*.

Small pure functions, SI units throughout (seconds, bytes, FLOPs, FLOP/s,
bytes/s), numpy arrays accepted wherever a scalar is.  Importing the package
has no side effects and does not import sympy, matplotlib or ipywidgets; the
plotting (:mod:`infra_calc.figures`), widget (:mod:`infra_calc.widgets`) and
measurement (:mod:`infra_calc.measure`) modules are imported on demand.

>>> import infra_calc as ic
>>> round(ic.read_time(70e9, "H100 SXM") * 1e3, 3)
20.896
"""
from .amdahl import amdahl_limit, amdahl_speedup, amdahl_time
from .capacity import CapacityCheck, capacity_check, kv_cache_bytes, max_batch
from .display import PageValues, Shown, check_page_values, shown
from .estimate import Estimate, estimate
from .hardware import CATALOG, Accelerator, accelerator, accelerator_names, resolve_hw
from .models import MODELS, ModelSpec, model, model_names, resolve_model
from .roofline import (RooflinePoint, arithmetic_intensity, attainable_flops, critical_rows,
                       gemm_bytes, gemm_flops, gemm_roofline, intensity_limit, ridge_point)
from .shape import PaddedRows, pad_to_tile, padded_rows, route_tokens, shape_efficiency
from .step import (DecodeStep, batch_turning_point, compute_time, decode_step, read_time,
                   step_time)
from .kv import (ModelDecodeStep, critical_context, decode_region, kv_weight_batch,
                 model_decode_step)
from .prefill import PrefillStep, prefill_step
from .generation import GenerationTime, generation_time
from .parallel import TensorParallelStep, ring_allreduce_time, tensor_parallel_step
from . import source, units

__version__ = "1.0.0"

__all__ = [
    "Accelerator", "CATALOG", "accelerator", "accelerator_names", "resolve_hw",
    "ModelSpec", "MODELS", "model", "model_names", "resolve_model",
    "gemm_flops", "gemm_bytes", "arithmetic_intensity", "intensity_limit", "ridge_point",
    "critical_rows", "attainable_flops", "RooflinePoint", "gemm_roofline",
    "read_time", "compute_time", "step_time", "DecodeStep", "decode_step", "batch_turning_point",
    "CapacityCheck", "capacity_check", "max_batch", "kv_cache_bytes",
    "shape_efficiency", "pad_to_tile", "PaddedRows", "padded_rows", "route_tokens",
    "amdahl_speedup", "amdahl_time", "amdahl_limit",
    "critical_context", "kv_weight_batch", "decode_region", "ModelDecodeStep", "model_decode_step",
    "PrefillStep", "prefill_step", "GenerationTime", "generation_time",
    "TensorParallelStep", "tensor_parallel_step", "ring_allreduce_time",
    "Estimate", "estimate", "source", "units", "__version__",
    "shown", "Shown", "PageValues", "check_page_values",
]


def __getattr__(name):  # lazy submodules: figures, widgets, measure, exercises, reproduce
    import importlib

    if name in ("figures", "widgets", "measure", "exercises", "reproduce", "cli"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'infra_calc' has no attribute {name!r}")
