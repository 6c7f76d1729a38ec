"""The measuring exercise: time a kernel properly, count its bytes, place it on a roofline.

``tour_cost_kernel`` (the first TSP exercise) is the kernel measured: one thread per order
reads its n - 1 city bytes, looks up n edge weights in W (n x n int32, small enough to stay in
the caches) and writes one int32 cost.
"""
from __future__ import annotations

import numpy as np

from .. import gpu, plots

__all__ = ["bytes_model", "check_bytes", "tour_cost_setup", "time_events", "time_cupyx", "copy_bandwidth",
           "int_throughput", "roofline", "ncu_command", "NCU_SECTIONS"]


def bytes_model(count: int, n: int) -> int:
    """DRAM bytes of one launch over ``count`` orders of n cities: each order's n - 1 bytes read
    once, each cost (4 bytes) written once; W is read from the caches."""
    return count * (n - 1) + 4 * count


def check_bytes(fn, verbose: bool = True) -> bool:
    """Compare a student's ``fn(count, n)`` with :func:`bytes_model` on a few sizes; prints
    PASS or the first size where they differ, and returns whether they agree."""
    for count, n in [(1, 2), (1000, 9), (10**6, 12), (3628800, 11)]:
        want, got = bytes_model(count, n), fn(count, n)
        if got != want:
            if verbose:
                print(f"FAIL measure.bytes: count={count}, n={n}: expected {want:,} bytes, got {got:,} "
                      "(each order: its n - 1 city bytes read, its 4-byte cost written; W stays in the cache)")
            return False
    if verbose:
        print("PASS measure.bytes: your byte count matches the model on 4 sizes")
    return True


def tour_cost_setup(count: int = 1 << 22, n: int = 12, seed: int = 0):
    """Device arrays and a launcher for ``tour_cost_kernel``: returns ``launch()``."""
    cp = gpu.require()
    from ..tsp import gpu as tsp_gpu
    rng = np.random.default_rng(seed)
    orders = cp.asarray(np.argsort(rng.random((count, n - 1)), axis=1).astype(np.uint8) + 1)
    W = cp.asarray(rng.integers(1, 100, size=(n, n)).astype(np.int32))
    costs = cp.empty(count, np.int32)
    kern = tsp_gpu._module(np.int32).get_function("tour_cost_kernel")
    block = 256
    grid = -(-count // block)

    def launch():
        kern((grid,), (block,), (orders, np.int64(count), np.int32(n), W, costs))
    return launch


def time_events(launch, repeat: int = 20, warmup: int = 3) -> float:
    """Median ms of ``launch()`` between two CUDA events, after ``warmup`` untimed runs
    (the first launch also compiles and loads the module)."""
    return gpu.median_ms(launch, repeat=repeat, warmup=warmup)


def time_cupyx(launch, repeat: int = 20) -> float:
    """The same with ``cupyx.profiler.benchmark`` (its own warm-up, GPU time by events)."""
    from cupyx.profiler import benchmark
    return float(np.median(benchmark(launch, n_repeat=repeat, n_warmup=3).gpu_times[0]) * 1e3)


def copy_bandwidth(nbytes: int = 1 << 30) -> float:
    """Measured device-to-device copy bandwidth, GB/s (bytes read + bytes written):
    :func:`gpualgo.gpu.copy_bandwidth` in the roofline's units."""
    return gpu.copy_bandwidth(nbytes) / 1e9


def int_throughput(iters: int = 4096) -> float:
    """Measured integer throughput, Gops/s (a multiply-add counted as 2 operations):
    :func:`gpualgo.gpu.int_throughput` in the roofline's units."""
    return 2 * gpu.int_throughput(iters) / 1e9


def roofline(points: dict, bandwidth_gbs: float, peak_gops: float, ax=None):
    """The roofline of :func:`gpualgo.plots.roofline` in integer operations: ``points =
    {label: (ops per DRAM byte, Gops/s)}``. Returns the axes."""
    return plots.roofline(points, bandwidth_gbs, peak_gops, ax, work="integer ops")


#: the Nsight Compute sections the notebook reads, and what to look for in each
NCU_SECTIONS = {
    "GPU Speed Of Light Throughput": "DRAM and compute throughput as a percentage of the peak: which one is the limit",
    "Memory Workload Analysis": "bytes read and written in DRAM, L2 and L1 hit rates: compare with your byte count",
    "Launch Statistics": "grid and block sizes, registers per thread",
    "Occupancy": "achieved against theoretical occupancy, and what limits it",
}


def ncu_command(out: str = "build/tour_cost") -> str:
    """The command line that profiles ``tour_cost_kernel`` with Nsight Compute."""
    script = ("from gpualgo.exercises import measure; launch = measure.tour_cost_setup(); "
              "[launch() for _ in range(3)]")
    return (f"ncu --kernel-name tour_cost_kernel --launch-skip 2 --launch-count 1 --set full "
            f"-o {out} python -c \"{script}\"")
