"""Deep Greedy Switching: the algorithm and the serial version (``serial``), the GPU versions
(``gpu``), the clock of the time limit (``clock``), the anytime trace and the result
(``trace``), the independent checks (``checks``), the benchmark presets (``bench``) and what
their rows say (``analysis``); :data:`VARIANTS` in the order they are taught. DGS is a
heuristic (exchange-optimal, not optimal): ``eps`` is ignored (``solve`` still refuses a bad one)."""
from ... import variants
from ...variants import Variant

_SERIAL_ORDER = {"init", "seed", "time_limit", "trace_capacity", "force"}
_LAUNCH = "gpualgo.assignment.dgs.gpu:check_options"

#: every version, in the order they are taught
VARIANTS = variants.table(
    Variant("serial", "gpualgo.assignment.dgs.serial:solve_serial", _SERIAL_ORDER | {"phases"}),
    *(Variant(v, f"gpualgo.assignment.dgs.gpu:{v}", _SERIAL_ORDER, gpu=True, checks=_LAUNCH)
      for v in ("gpu_de_global", "gpu_de_shared", "gpu_mixed")),
    Variant("gpu", "gpualgo.assignment.dgs.gpu:gpu_full",
            {"init", "seed", "time_limit", "max_rounds", "incremental", "selection", "blocks_per_sm", "trace_capacity",
             "force"},
            gpu=True, checks=_LAUNCH),
)
