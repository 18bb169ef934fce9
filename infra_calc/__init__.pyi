# The package's public names, one line each: the one list of them.  A type checker reads
# these lines as the package's namespace (``x as x`` is the typing spec's re-export form); at
# run time ``lazy_loader.attach_stub`` (in __init__.py) reads the same lines and imports a
# module on the first use of one of its names.  A name here is one of its module's
# ``__all__``, which may hold more than the package shows (tests/lib/test_import.py holds
# that, and that ``import infra_calc`` stays light).
from . import source as source
from . import units as units
from .accelerators import CATALOG as CATALOG
from .accelerators import accelerator as accelerator
from .accelerators import capacity_reading as capacity_reading
from .accelerators import decimal_reading as decimal_reading
from .amdahl import amdahl_limit as amdahl_limit
from .amdahl import amdahl_speedup as amdahl_speedup
from .amdahl import amdahl_time as amdahl_time
from .bound import Bounds as Bounds
from .capacity import CapacityCheck as CapacityCheck
from .capacity import capacity_check as capacity_check
from .capacity import kv_cache_bytes as kv_cache_bytes
from .capacity import max_batch as max_batch
from .capacity import max_context as max_context
from .comm import allreduce_time as allreduce_time
from .comm import in_switch_allreduce_time as in_switch_allreduce_time
from .comm import ring_allreduce_time as ring_allreduce_time
from .decode import ModelDecodeStep as ModelDecodeStep
from .decode import model_decode_step as model_decode_step
from .display import shown as shown
from .estimate import Estimate as Estimate
from .estimate import estimate as estimate
from .forecasting import Band as Band
from .forecasting import Forecast as Forecast
from .forecasting import forecast as forecast
from .forecasting import forecast_engines as forecast_engines
from .generation import GenerationTime as GenerationTime
from .generation import generation_time as generation_time
from .hardware import READINGS as READINGS
from .hardware import Accelerator as Accelerator
from .kv import critical_context as critical_context
from .kv import decode_region as decode_region
from .kv import kv_weight_batch as kv_weight_batch
from .kv import turning_batch as turning_batch
from .levers import SpeculativeStep as SpeculativeStep
from .levers import expected_tokens_per_step as expected_tokens_per_step
from .levers import speculative_critical_context as speculative_critical_context
from .levers import speculative_step as speculative_step
from .levers import speculative_turning_batch as speculative_turning_batch
from .models import MODELS as MODELS
from .models import model as model
from .modelspec import ModelSpec as ModelSpec
from .planner import PlannerState as PlannerState
from .precision import PrecisionPoint as PrecisionPoint
from .precision import precision_point as precision_point
from .prefill import PrefillStep as PrefillStep
from .prefill import prefill_step as prefill_step
from .prefix import CachedPrefill as CachedPrefill
from .prefix import SharedPrefixStep as SharedPrefixStep
from .prefix import cached_prefill_step as cached_prefill_step
from .prefix import mean_ttft as mean_ttft
from .prefix import shared_prefix_step as shared_prefix_step
from .roofline import RooflinePoint as RooflinePoint
from .roofline import arithmetic_intensity as arithmetic_intensity
from .roofline import attainable_flops as attainable_flops
from .roofline import critical_rows as critical_rows
from .roofline import fewest_compute_rows as fewest_compute_rows
from .roofline import gemm_bytes as gemm_bytes
from .roofline import gemm_flops as gemm_flops
from .roofline import gemm_roofline as gemm_roofline
from .roofline import intensity_limit as intensity_limit
from .shape import PaddedGemm as PaddedGemm
from .shape import PaddedRows as PaddedRows
from .shape import pad_to_tile as pad_to_tile
from .shape import padded_gemm as padded_gemm
from .shape import padded_rows as padded_rows
from .shape import route_tokens as route_tokens
from .shape import shape_efficiency as shape_efficiency
from .sharding import CardShare as CardShare
from .sharding import card_share as card_share
from .step import DecodeStep as DecodeStep
from .step import batch_turning_point as batch_turning_point
from .step import compute_time as compute_time
from .step import decode_step as decode_step
from .step import mbu as mbu
from .step import read_time as read_time
from .step import step_time as step_time
from .workload import Workload as Workload

__version__: str
