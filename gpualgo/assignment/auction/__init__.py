"""The auction algorithm (Bertsekas): the serial versions (``serial``), the GPU versions
(``gpu``), the benchmark presets (``bench``) and what their rows say (``analysis``);
:data:`VARIANTS` in the order they are taught."""
from ... import variants
from ...variants import Variant

_REPORT = {"bid_threads", "assign_threads", "grid_factor", "rounds_per_graph", "max_rounds", "force"}
_TIMED = {"timeline_rounds"}      # the versions with two streams time them (the report's Figure 2)
_FAST = {"scaling", "eps_start", "eps_factor", "warps_per_block", "blocks_per_sm", "rounds_per_check", "tail_max",
         "tail_shared", "time_tail", "max_rounds", "force", "persistent"}

#: every version, in the order they are taught
VARIANTS = variants.table(
    Variant("serial", "gpualgo.assignment.auction.serial:solve_serial",
            {"max_rounds", "record_rounds", "scaling", "eps_start", "eps_factor", "force"}),
    *(Variant(v, f"gpualgo.assignment.auction.gpu:{v}", _REPORT | (_TIMED if v in ("gpu_queues", "gpu_deterministic")
                                                                   else set()), gpu=True,
              checks="gpualgo.assignment.auction.gpu:check_report_options")
      for v in ("gpu_v1", "gpu_queues", "gpu_deterministic", "gpu_graph")),
    *(Variant(v, f"gpualgo.assignment.auction.gpu:{v}", _FAST, gpu=True,
              checks="gpualgo.assignment.auction.gpu:check_fast_options")
      for v in ("gpu_eps_scaling", "gpu_sparse")),
)
