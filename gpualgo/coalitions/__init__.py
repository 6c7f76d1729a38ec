"""Coalition structure generation: split n agents into coalitions of largest total value.

Dynamic programming over all ``2**n`` coalitions (serial, with the IDP and ODP pruning
rules, and three GPU versions), value functions of the standard distributions, files,
combinatorial-auction bids, and independent checks (brute force over set partitions).

>>> from gpualgo import coalitions
>>> v = coalitions.random_values(6, "normal", seed=1)
>>> r = coalitions.solve(v, variant="serial")
>>> coalitions.check_partition(r.partition, 6) == r.partition
True
>>> abs(r.value - coalitions.brute_force(v)[0]) < 1e-9
True
"""

from .checks import (BRUTE_FORCE_MAX, bell, brute_force, check_against_serial, check_partition, partition_value,
                     tolerance)
from .result import CoalitionResult, make_result
from .serial import RULES
from .solve import MAX_SECONDS, RATES, VARIANTS, estimate_seconds, solve, total_splits
from .values import (DISTRIBUTIONS, MAX_AGENTS, from_bids, generation_bytes, popcounts, random_values,
                     read_values, table_bytes, validate_values, write_values)

__all__ = [
    "solve", "VARIANTS", "CoalitionResult", "make_result", "estimate_seconds", "total_splits", "RATES",
    "MAX_SECONDS", "RULES",
    "DISTRIBUTIONS", "MAX_AGENTS", "random_values", "validate_values", "read_values",
    "write_values", "from_bids", "table_bytes", "generation_bytes", "popcounts",
    "check_partition", "partition_value", "brute_force", "BRUTE_FORCE_MAX", "bell", "tolerance",
    "check_against_serial",
]
