"""Interactive explorers for Jupyter (ipywidgets + matplotlib).

The model logic lives in the rest of :mod:`infra_calc`; these functions only
wire controls to it and update existing plot artists in place.  Importing this
module imports ipywidgets and matplotlib; ``import infra_calc`` does not.
"""
from .capacity import capacity_planner
from .decode import decode_step_explorer
from .forecast import forecast_explorer
from .kv import kv_explorer
from .moe import moe_padding_explorer
from .roofline import roofline_explorer

#: every explorer, in the book's reading order (the tests run each one)
EXPLORERS = (decode_step_explorer, roofline_explorer, moe_padding_explorer, capacity_planner,
             kv_explorer, forecast_explorer)

__all__ = ["decode_step_explorer", "roofline_explorer", "capacity_planner", "moe_padding_explorer",
           "kv_explorer", "forecast_explorer", "EXPLORERS"]
