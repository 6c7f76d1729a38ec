"""Host side of the GPU push-relabel versions (kernels in ``gpualgo/kernels/maxflow.cu``).

- :func:`gpu_matrix`: residual capacities in an n x n matrix; a cooperative kernel runs up
  to ``cycle`` sweeps (a thread per vertex, grid sync between sweeps), then the host copies
  the state back and runs the global relabel (a backward BFS from the sink), as in the report.
- :func:`gpu_bcsr`: the same on the BCSR arcs of :class:`FlowNetwork`.
- :func:`gpu_vertex_centric`: one cooperative kernel for the whole algorithm: the global
  relabel is a BFS on the GPU, and sweeps gather the active vertices into a queue and give
  each a tile of threads; the host only uploads the network and reads the answer.

Each returns a :class:`~gpualgo.maxflow.result.MaxFlowResult` and is refused first, with its
estimate, when its arrays (:func:`gpu_bytes`) would not fit in the GPU memory that can be had
now (:func:`gpualgo.guards.memory`; ``force=True`` insists). Capacities and excesses are int32
when :meth:`FlowNetwork.fits_int32` says no value can overflow it, else int64 (the ``CAP_T``
define). Launch configurations are computed in :func:`launch_config` only. Importing this
module needs no GPU.
"""
from __future__ import annotations

import time

import numpy as np

from .. import gpu, guards
from . import serial
from .network import INT32_MAX, FlowNetwork
from .result import MaxFlowResult, make_result

__all__ = ["KERNELS", "gpu_matrix", "gpu_bcsr", "gpu_vertex_centric", "launch_config", "matrix_bytes",
           "gpu_bytes", "memory_guard", "default_tile"]

#: the kernels each GPU version launches
KERNELS = {
    "gpu_matrix": ("matrix_push_relabel_kernel", "matrix_gather_kernel"),
    "gpu_bcsr": ("bcsr_push_relabel_kernel",),
    "gpu_vertex_centric": ("vertex_centric_kernel",),
}
#: grid syncs after which the vertex-centric kernel gives up (a guard: a hang would be worse)
MAX_STEPS = 4_000_000
#: threads per block of the matrix version's gather (not cooperative)
GATHER_BLOCK = 256


def _cap_dtype(net: FlowNetwork):
    return np.int32 if net.fits_int32() else np.int64


def matrix_bytes(net: FlowNetwork) -> int:
    """GPU memory the matrix version needs: the n x n residual matrix plus the vertex arrays."""
    item = np.dtype(_cap_dtype(net)).itemsize
    return net.n * net.n * item + net.m * (8 + item) + net.n * 16


def gpu_bytes(net: FlowNetwork, variant: str, async_bfs: bool = False) -> int:
    """GPU memory a version allocates for ``net`` (its arrays; CuPy adds a little)."""
    if variant == "gpu_matrix":
        return matrix_bytes(net)
    item = np.dtype(_cap_dtype(net)).itemsize
    n, m = net.n, net.m
    need = n * (4 + item + 4) + m * (4 + 4 + item)    # offsets, excess, height; heads, rev, res
    if variant == "gpu_vertex_centric":
        # the two queues, the stamps, the asynchronous BFS's work list
        need += 2 * 4 * _queue_ints(net) + 4 * n + 4 * (_async_capacity(n) if async_bfs else 1)
    return need


def _queue_ints(net: FlowNetwork) -> int:
    """int32 entries of each vertex-centric queue: it holds active vertices, or in the BFS
    (first arc, end) pairs, one per arc scanned at most (a vertex two tiles try to label in
    the same level is queued by both)."""
    return 2 * max(net.n, net.m, 1)


def default_tile(net: FlowNetwork) -> int:
    """Threads per active vertex: the mean number of stored arcs rounded up to a power of
    two, between 4 and 32 (a tile much wider than the degree only idles)."""
    deg = net.m / max(net.n, 1)
    tile = 4
    while tile < deg and tile < 32:
        tile *= 2
    return tile


#: the slots of the kernels' statistics array (uint64), passed to maxflow.cu as defines (the
#: fallbacks there agree: tests/test_kernels_compile.py)
STATS = {"ST_PUSH": 0, "ST_RELABEL": 1, "ST_SWEEP": 2, "ST_GR": 3, "ST_LEVEL": 4, "ST_GR_NS": 5, "ST_PR_NS": 6,
         "ST_STATUS": 7, "ST_ITEMS": 8}


def defines(cap_dtype=np.int32, tile: int = 8) -> dict:
    """The compile-time constants of maxflow.cu: the capacity type, the tile and :data:`STATS`."""
    cap = "int" if np.dtype(cap_dtype) == np.int32 else "long long"
    return {"CAP_T": cap, "TILE": tile, **STATS}


def _module(cap_dtype, tile: int = 8):
    return gpu.load_module("maxflow", defines=defines(cap_dtype, tile), enable_cooperative_groups=True)


def _stats(st) -> dict:
    """The statistics array read back, by slot name (``"ST_PUSH"`` -> pushes...)."""
    return {name: int(st[slot]) for name, slot in STATS.items()}


def launch_config(kernel, block: int, want_threads: int, max_per_sm: int | None = None,
                  cooperative: bool = True) -> tuple[int, int, int | None]:
    """(blocks, threads per block, blocks per SM) of a launch of ``kernel`` for ``want_threads``.

    A cooperative launch (every push-relabel kernel): a grid sync needs every block resident
    at once, so the grid is the smaller of what the work wants and what the occupancy
    calculator allows (bounded by registers and threads when it cannot be asked).
    ``max_per_sm`` caps the blocks per SM below that: a grid barrier costs more the more
    blocks take part, and when the active vertices are few (deep BFS levels, genrmf) a
    smaller grid finishes sooner. ``cooperative=False`` (the matrix gather): a thread per
    item, as many blocks as that takes; blocks per SM is then None.
    """
    block = guards.threads(block)
    if not cooperative:
        return max(1, -(-want_threads // block)), block, None
    cupy = gpu.require()
    try:
        per_sm = int(cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, block, 0))
    except Exception:   # no occupancy call in this CuPy: bound by registers and threads per SM
        try:
            regs = max(int(kernel.num_regs), 1)
            per_sm = min(2048 // block, 65536 // (regs * block))
        except Exception:
            per_sm = 1
    per_sm = max(per_sm, 1)
    if max_per_sm is not None:
        per_sm = min(per_sm, guards.integer(max_per_sm, "blocks_per_sm"))
    blocks = max(1, min(-(-want_threads // block), per_sm * gpu.sm_count()))
    return blocks, block, per_sm


def memory_guard(net: FlowNetwork, variant: str, force: bool = False, async_bfs: bool = False) -> None:
    """Refuse ``variant`` on ``net`` (a ValueError with the estimate) when its arrays,
    :func:`gpu_bytes`, need more than :data:`gpualgo.guards.MEMORY_FRACTION` of the GPU
    memory that can be had now, unless ``force``. Every GPU version calls it first."""
    hint = "the n x n matrix grows as n squared: use gpu_bcsr or gpu_vertex_centric" if variant == "gpu_matrix" else ""
    guards.memory(gpu_bytes(net, variant, async_bfs), f"{variant} on n={net.n:,} vertices and m={net.m:,} arcs",
                  force, where="GPU", hint=hint)


def _check_sizes(net: FlowNetwork):
    if net.m >= INT32_MAX or net.n >= INT32_MAX:
        raise ValueError(f"the GPU versions index arcs with int32: {net.m} arcs is too many")


def _preflow(net: FlowNetwork, dtype):
    """Residual capacities and excesses after saturating the source's arcs (on the host)."""
    res = net.capacity.astype(dtype)
    s = net.source
    arcs = np.arange(net.offsets[s], net.offsets[s + 1])
    c = net.capacity[arcs]
    res[net.rev[arcs]] += c.astype(dtype)     # each reverse arc once: pairs are merged
    res[arcs] = 0
    excess = np.zeros(net.n, dtype=np.int64)
    np.add.at(excess, net.heads[arcs], c)
    excess[s] = 0
    return res, excess.astype(dtype)


def _host_heights(net: FlowNetwork, res, heads64, queue):
    h = np.full(net.n, net.n, dtype=np.int64)
    h[net.sink] = 0
    serial.reverse_bfs(net.n, net.sink, net.offsets, heads64, net.rev, res, h, queue, net.n)
    h[net.source] = net.n
    return h


def _sync(cupy):
    cupy.cuda.get_current_stream().synchronize()


# ----------------------------------------------------------------- (a) and (b): host relabel

def check_host_relabel(cycle=None, block=256, **_):
    """The options of versions (a) and (b) (``cycle`` sweeps per launch, ``block``), checked
    before a GPU is asked for (:class:`gpualgo.variants.Variant`'s ``checks``)."""
    if cycle is not None:
        guards.integer(cycle, "cycle")
    guards.threads(block)


def check_vertex_centric(tile=None, block=256, gr_alpha=0.1, gr_max_iters=150, ops=32, blocks_per_sm=1,
                         gr_balance=0.0, **_):
    """The options of version (c), checked before a GPU is asked for and again by the version."""
    if tile is not None:
        guards.threads(tile, "tile", allowed=(1, 2, 4, 8, 16, 32))
    guards.threads(block, allowed=(256, 512, 1024))
    if not gr_balance >= 0:
        raise ValueError(f"gr_balance must be >= 0 (0: off), got {gr_balance}")
    guards.integer(ops, "ops")
    guards.integer(blocks_per_sm, "blocks_per_sm")
    guards.integer(gr_max_iters, "gr_max_iters")
    if not gr_alpha > 0:
        raise ValueError(f"gr_alpha must be > 0, got {gr_alpha}")


def gpu_matrix(net: FlowNetwork, cycle: int | None = None, block: int = 256, force: bool = False) -> MaxFlowResult:
    """Version (a): the n x n residual matrix, a thread per vertex; ``cycle`` sweeps per
    launch (default n, as in the report), the global relabel on the host in between."""
    return _host_relabel(net, "gpu_matrix", cycle, block, force)


def gpu_bcsr(net: FlowNetwork, cycle: int | None = None, block: int = 256, force: bool = False) -> MaxFlowResult:
    """Version (b): the same on the BCSR arcs (the arcs of a vertex, in and out, together,
    with the index of each reverse arc)."""
    return _host_relabel(net, "gpu_bcsr", cycle, block, force)


def _host_relabel(net, variant, cycle, block, force):
    _check_sizes(net)
    memory_guard(net, variant, force)
    cupy = gpu.require()
    n = net.n
    dtype = _cap_dtype(net)
    check_host_relabel(cycle, block)
    cycle = n if cycle is None else int(cycle)
    # each version times its own upload, solve and download (total_ms): compiling the
    # kernels, once per process, is not part of a solve
    mod = _module(dtype)
    t0 = time.perf_counter()
    res_h, exc_h = _preflow(net, dtype)
    heads64 = net.heads.astype(np.int64)
    queue = np.empty(n, dtype=np.int64)
    offsets = gpu.to_device(net.offsets, np.int32)
    heads = gpu.to_device(net.heads)
    excess = gpu.to_device(exc_h)
    height = cupy.zeros(n, dtype=np.int32)
    ring = cupy.zeros(3, dtype=np.int32)
    stats_d = cupy.zeros(len(STATS), dtype=np.uint64)
    if variant == "gpu_matrix":
        kern = mod.get_function("matrix_push_relabel_kernel")
        gather = mod.get_function("matrix_gather_kernel")
        gather_blocks, gather_threads, _ = launch_config(gather, GATHER_BLOCK, n, cooperative=False)
        mat = cupy.zeros(n * n, dtype=dtype)
        mat[gpu.to_device(net.tails.astype(np.int64) * n + heads64)] = gpu.to_device(res_h)
        arcs_res = cupy.empty(net.m, dtype=dtype)
    else:
        kern = mod.get_function("bcsr_push_relabel_kernel")
        rev = gpu.to_device(net.rev, np.int32)
        res = gpu.to_device(res_h)
    blocks, threads, per_sm = launch_config(kern, block, n)
    _sync(cupy)
    t1 = time.perf_counter()
    gr_ms = 0.0
    phases = 0
    while True:
        g0 = time.perf_counter()
        h = _host_heights(net, res_h, heads64, queue)
        phases += 1
        active = (exc_h > 0) & (h < n)
        active[[net.source, net.sink]] = False
        if not active.any():
            gr_ms += (time.perf_counter() - g0) * 1e3
            break
        height.set(h.astype(np.int32))
        ring.fill(0)
        gr_ms += (time.perf_counter() - g0) * 1e3
        if variant == "gpu_matrix":
            kern((blocks,), (threads,), (np.int32(n), np.int32(net.source), np.int32(net.sink), mat, excess,
                                         height, np.int32(cycle), ring, stats_d))
            gather((gather_blocks,), (gather_threads,), (np.int32(n), offsets, heads, mat, arcs_res))
            res_h = arcs_res.get()
        else:
            kern((blocks,), (threads,), (np.int32(n), np.int32(net.source), np.int32(net.sink), offsets, heads,
                                         rev, res, excess, height, np.int32(cycle), ring, stats_d))
            res_h = res.get()
        exc_h = excess.get()
    t2 = time.perf_counter()
    st = _stats(stats_d.get())
    side = h >= n
    stats = dict(prepare_ms=(t1 - t0) * 1e3, exec_ms=(t2 - t1) * 1e3, total_ms=(time.perf_counter() - t0) * 1e3,
                 device=gpu.device_name(), pushes=st["ST_PUSH"], relabels=st["ST_RELABEL"], sweeps=st["ST_SWEEP"],
                 global_relabels=phases, phases=phases, gr_ms=gr_ms, pr_ms=(t2 - t1) * 1e3 - gr_ms,
                 cap_dtype=np.dtype(dtype).name, cycle=cycle,
                 launch=dict(blocks=blocks, threads=threads, blocks_per_sm=per_sm))
    return make_result(net, variant, exc_h[net.sink], side, res_h, is_preflow=True, stats=stats)


# -------------------------------------------------------------------------- (c): one kernel

def _async_capacity(n: int) -> int:
    """Entries of the asynchronous BFS's work list (a function so that tests can shrink it)."""
    return 2 * n + 1024


def gpu_vertex_centric(net: FlowNetwork, tile: int | None = None, block: int = 256, gr_alpha: float = 0.1,
                       gr_max_iters: int = 150, ops: int = 32, incremental: bool = True, blocks_per_sm: int = 1,
                       early_stop: bool = True, gr_balance: float = 0.0, async_bfs: bool = False,
                       force: bool = False) -> MaxFlowResult:
    """Version (c): one cooperative kernel runs the whole algorithm (``vertex_centric_kernel``:
    global relabels on the GPU, sweeps over a queue of active vertices, a tile per vertex).
    The options are those of :func:`gpualgo.maxflow.solve`."""
    _check_sizes(net)
    n = net.n
    dtype = _cap_dtype(net)
    check_vertex_centric(tile, block, gr_alpha, gr_max_iters, ops, blocks_per_sm, gr_balance)
    tile = default_tile(net) if tile is None else int(tile)
    memory_guard(net, "gpu_vertex_centric", force, bool(async_bfs))
    cupy = gpu.require()
    kern = _module(dtype, tile).get_function("vertex_centric_kernel")
    blocks, threads, per_sm = launch_config(kern, block, n, blocks_per_sm)
    t0 = time.perf_counter()
    res_h, exc_h = _preflow(net, dtype)
    offsets = gpu.to_device(net.offsets, np.int32)
    heads = gpu.to_device(net.heads)
    rev = gpu.to_device(net.rev, np.int32)
    res = gpu.to_device(res_h)
    excess = gpu.to_device(exc_h)
    height = cupy.zeros(n, dtype=np.int32)      # below n: the first BFS marks all excess
    qa = cupy.empty(_queue_ints(net), dtype=np.int32)
    qb = cupy.empty(_queue_ints(net), dtype=np.int32)
    stamp = cupy.full(n, -1, dtype=np.int32)
    ring = cupy.zeros(9, dtype=np.int32)
    stats_d = cupy.zeros(len(STATS), dtype=np.uint64)
    # the asynchronous BFS's work list: room for every vertex queued twice (a vertex is
    # queued again when its height is lowered again; beyond that, the BFS by levels runs)
    wq_cap = _async_capacity(n) if async_bfs else 1
    wq = cupy.empty(wq_cap, dtype=np.int32)
    wl = cupy.zeros(3, dtype=np.int32)
    _sync(cupy)
    t1 = time.perf_counter()
    limit = int(min(INT32_MAX, max(1, gr_alpha * n)))
    with gpu.CudaTimer() as timer:
        kern((blocks,), (threads,), (np.int32(n), np.int32(net.source), np.int32(net.sink), offsets, heads, rev,
                                     res, excess, height, qa, qb, stamp, ring, stats_d, wq, np.int32(wq_cap), wl,
                                     np.int32(limit), np.int32(gr_max_iters), np.int32(ops),
                                     np.int32(bool(incremental)), np.int32(bool(early_stop)),
                                     np.int32(bool(async_bfs)), np.float32(gr_balance),
                                     np.int64(MAX_STEPS)))
    t2 = time.perf_counter()
    st = _stats(stats_d.get())
    if st["ST_STATUS"]:
        raise RuntimeError("gpu_vertex_centric stopped at its step limit without finishing")
    value = int(excess[net.sink].get())
    side = height.get() >= n
    res_out = res.get()
    t3 = time.perf_counter()
    gr_ns, pr_ns = float(st["ST_GR_NS"]), float(st["ST_PR_NS"])
    kernel_ms = timer.ms
    stats = dict(prepare_ms=(t1 - t0) * 1e3, exec_ms=(t2 - t1) * 1e3, kernel_ms=kernel_ms,
                 total_ms=(t3 - t0) * 1e3, device=gpu.device_name(), download_ms=(t3 - t2) * 1e3,
                 pushes=st["ST_PUSH"], relabels=st["ST_RELABEL"], sweeps=st["ST_SWEEP"],
                 global_relabels=st["ST_GR"], phases=st["ST_GR"], bfs_levels=st["ST_LEVEL"],
                 bfs_expanded=st["ST_ITEMS"],
                 gr_ms=kernel_ms * gr_ns / max(gr_ns + pr_ns, 1.0),
                 pr_ms=kernel_ms * pr_ns / max(gr_ns + pr_ns, 1.0),
                 cap_dtype=np.dtype(dtype).name, tile=tile, gr_alpha=gr_alpha, gr_max_iters=gr_max_iters, ops=int(ops),
                 incremental=bool(incremental), early_stop=bool(early_stop), gr_balance=float(gr_balance),
                 async_bfs=bool(async_bfs),
                 block=int(block),
                 launch=dict(blocks=blocks, threads=threads, blocks_per_sm=per_sm))
    return make_result(net, "gpu_vertex_centric", value, side, res_out, is_preflow=True, stats=stats)
