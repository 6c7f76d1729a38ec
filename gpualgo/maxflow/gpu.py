"""Host side of the GPU push-relabel versions (kernels in ``gpualgo/kernels/maxflow.cu``).

- :func:`gpu_matrix`: residual capacities in an n x n matrix; a cooperative kernel runs up
  to ``cycle`` sweeps (a thread per vertex, grid sync between sweeps), then the host copies
  the state back and runs the global relabel (a backward BFS from the sink), as in the report.
- :func:`gpu_bcsr`: the same on the BCSR arcs of :class:`FlowNetwork`.
- :func:`gpu_vertex_centric`: one cooperative kernel for the whole algorithm: the global
  relabel is a BFS on the GPU (by default ``local_levels`` levels a block between two grid
  barriers), and sweeps gather the active vertices into a queue and give each a tile of
  threads; the host only uploads the network and reads the answer.

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
           "gpu_bytes", "memory_guard", "default_tile", "UPLOADS", "REV_SEARCH", "RELABELS", "check_sorted_arcs"]

#: the kernels each GPU version launches
KERNELS = {
    "gpu_matrix": ("matrix_push_relabel_kernel", "matrix_gather_kernel"),
    "gpu_bcsr": ("bcsr_push_relabel_kernel", "bcsr_global_relabel_kernel"),
    "gpu_vertex_centric": ("vertex_centric_kernel",),
}
#: grid syncs after which the vertex-centric kernel gives up (a guard: a hang would be worse)
MAX_STEPS = 4_000_000
#: the widest frontier the first block can expand alone (``block_bfs``; SOLO_CAP in maxflow.cu)
SOLO_CAP = 1024
#: BFS levels each block runs on its own between two grid barriers in version (c)'s global
#: relabel (``local_levels``; 1: a grid barrier every level, the BFS by levels); the
#: ``local_levels`` preset's record is the evidence (within 5% of the fastest setting on each
#: of its instances: :func:`gpualgo.maxflow.analysis.local_levels_lines`)
LOCAL_LEVELS = 6
#: the most ``local_levels`` takes (a grid step's levels are counted in 30 bits of a counter)
MAX_LOCAL_LEVELS = 1024
#: the levels whose frontier and time ``time_levels=True`` keeps (LEVEL_CAP in maxflow.cu)
LEVEL_CAP = 1 << 20
#: threads per block of the matrix version's gather (not cooperative)
GATHER_BLOCK = 256


def _cap_dtype(net: FlowNetwork):
    return np.int32 if net.fits_int32() else np.int64


def matrix_bytes(net: FlowNetwork) -> int:
    """GPU memory the matrix version needs: the n x n residual matrix plus the vertex arrays."""
    item = np.dtype(_cap_dtype(net)).itemsize
    return net.n * net.n * item + net.m * (8 + item) + net.n * 16


def gpu_bytes(net: FlowNetwork, variant: str, async_bfs: bool = False, relabel: str = "host",
              local_levels: int = LOCAL_LEVELS) -> int:
    """GPU memory a version allocates for ``net`` (its arrays; CuPy adds a little); version
    (b)'s GPU relabel (``relabel="gpu"``) adds the BFS's two queues, version (c) with
    ``local_levels`` > 1 the copy of the reverse residuals."""
    if variant == "gpu_matrix":
        return matrix_bytes(net)
    item = np.dtype(_cap_dtype(net)).itemsize
    n, m = net.n, net.m
    need = n * (4 + item + 4) + m * (4 + 4 + item)    # offsets, excess, height; heads, rev, res
    if variant == "gpu_bcsr" and relabel == "gpu":
        need += 2 * 4 * _queue_ints(net)
    if variant == "gpu_vertex_centric":
        # the two queues, the stamps, the asynchronous BFS's work list
        need += 2 * 4 * _queue_ints(net) + 4 * n + 4 * (_async_capacity(n) if async_bfs else 1)
        need += m * item if local_levels > 1 else 0
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


#: version (c)'s threads per block by default: 512 is as fast as 256 on small networks and faster
#: on large ones (more threads for the sweeps; notebook 02 section 10 has the same-run figures)
BLOCK = 512

#: the slots of the kernels' statistics array (uint64), passed to maxflow.cu as defines (the
#: fallbacks there agree: tests/test_kernels_compile.py)
STATS = {"ST_PUSH": 0, "ST_RELABEL": 1, "ST_SWEEP": 2, "ST_GR": 3, "ST_LEVEL": 4, "ST_GR_NS": 5, "ST_PR_NS": 6,
         "ST_STATUS": 7, "ST_ITEMS": 8, "ST_SOLO": 9}


def defines(cap_dtype=np.int32, tile: int = 8, rev_search: int = 0, block: int = 1024,
            level_clock: bool = False) -> dict:
    """The compile-time constants of maxflow.cu: the capacity type, the tile, the reverse-arc
    lookup of version (b) (:data:`REV_SEARCH`'s number), the vertex-centric kernel's threads per
    block (``VC_BLOCK``, its launch bound: a block of 256 threads leaves it 255 registers a
    thread, one of 1024 only 64), :data:`SOLO_CAP`, :data:`STATS`, and ``LEVEL_CLOCK`` (1: the
    BFS times its levels, :data:`LEVEL_CAP` of them at most)."""
    cap = "int" if np.dtype(cap_dtype) == np.int32 else "long long"
    return {"CAP_T": cap, "TILE": tile, "REV_SEARCH": rev_search, "VC_BLOCK": block, "SOLO_CAP": SOLO_CAP, **STATS,
            "LEVEL_CLOCK": int(bool(level_clock)), "LEVEL_CAP": LEVEL_CAP}


def _module(cap_dtype, tile: int = 8, rev_search: int = 0, block: int = 1024, level_clock: bool = False):
    return gpu.load_module("maxflow", defines=defines(cap_dtype, tile, rev_search, block, level_clock),
                           enable_cooperative_groups=True)


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
    per_sm = gpu.resident_blocks(kernel, block) // gpu.sm_count()
    if max_per_sm is not None:
        per_sm = min(per_sm, guards.integer(max_per_sm, "blocks_per_sm"))
    blocks = max(1, min(-(-want_threads // block), per_sm * gpu.sm_count()))
    return blocks, block, per_sm


def memory_guard(net: FlowNetwork, variant: str, force: bool = False, async_bfs: bool = False,
                 relabel: str = "host", local_levels: int = LOCAL_LEVELS) -> None:
    """Refuse ``variant`` on ``net`` (a ValueError with the estimate) when its arrays,
    :func:`gpu_bytes`, need more than :data:`gpualgo.guards.MEMORY_FRACTION` of the GPU
    memory that can be had now, unless ``force``. Every GPU version calls it first."""
    hint = "the n x n matrix grows as n squared: use gpu_bcsr or gpu_vertex_centric" if variant == "gpu_matrix" else ""
    guards.memory(gpu_bytes(net, variant, async_bfs, relabel, local_levels),
                  f"{variant} on n={net.n:,} vertices and m={net.m:,} arcs", force, where="GPU", hint=hint)


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


def _device_preflow(net: FlowNetwork, dtype):
    """:func:`_preflow` on the GPU, for the vertex-centric version: the capacities go up as
    they are (the upload's threads convert them to ``dtype``) and the source's arcs are
    saturated there, so the host makes no pass over the arcs. Returns (residuals, excesses),
    device arrays."""
    cupy = gpu.require()
    res = gpu.to_device(net.capacity, dtype)
    s = net.source
    arcs = np.arange(net.offsets[s], net.offsets[s + 1])
    c = net.capacity[arcs]
    res[cupy.asarray(net.rev[arcs])] += cupy.asarray(c.astype(dtype))     # pairs are merged: each once
    res[cupy.asarray(arcs)] = 0
    heads, at = np.unique(net.heads[arcs], return_inverse=True)
    total = np.zeros(heads.size, dtype=np.int64)
    np.add.at(total, at, c)
    excess = cupy.zeros(net.n, dtype=dtype)
    excess[cupy.asarray(heads)] = cupy.asarray(total.astype(dtype))
    excess[s] = 0
    return res, excess


def _host_heights(net: FlowNetwork, res, heads64, queue):
    h = np.full(net.n, net.n, dtype=np.int64)
    h[net.sink] = 0
    serial.reverse_bfs(net.n, net.sink, net.offsets, heads64, net.rev, res, h, queue, net.n)
    h[net.source] = net.n
    return h


def _sync(cupy):
    cupy.cuda.get_current_stream().synchronize()


# ----------------------------------------------------------------- (a) and (b): host relabel

#: where the host keeps the network's residual capacities for versions (a) and (b) (the
#: ``upload`` option): "auto" is :func:`gpualgo.gpu.to_device` (through page-locked staging
#: buffers for arrays of 16 MiB or more, the default); the others are :data:`gpualgo.gpu.HOST_MEMORY`
UPLOADS = ("auto",) + gpu.HOST_MEMORY
#: how version (b) finds the reverse arc of the arc it pushes along (``rev_search``, the
#: REV_SEARCH define): the stored index, or the report's linear scan or binary search
REV_SEARCH = {"index": 0, "linear": 1, "binary": 2}
#: where version (b) runs the global relabel between its launches (``relabel``)
RELABELS = ("host", "gpu")


def check_host_relabel(cycle=None, block=256, upload="auto", rev_search="index", relabel="host", tile=None,
                       **_):
    """The options of versions (a) and (b), checked before a GPU is asked for
    (:class:`gpualgo.variants.Variant`'s ``checks``): ``cycle`` sweeps per launch, ``block``,
    ``upload`` (one of :data:`UPLOADS`), and (b)'s ``rev_search`` (one of :data:`REV_SEARCH`),
    ``relabel`` (one of :data:`RELABELS`) and ``tile`` (the GPU BFS's threads per frontier
    vertex: only with ``relabel="gpu"``)."""
    if cycle is not None:
        guards.integer(cycle, "cycle")
    guards.threads(block)
    guards.one_of(upload, "upload", UPLOADS)
    guards.one_of(rev_search, "rev_search", tuple(REV_SEARCH))
    guards.one_of(relabel, "relabel", RELABELS)
    if tile is not None:
        if relabel != "gpu":
            raise ValueError("tile (threads per frontier vertex of the GPU BFS) needs relabel='gpu'")
        guards.threads(tile, "tile", allowed=(1, 2, 4, 8, 16, 32))


def check_vertex_centric(tile=None, block=BLOCK, gr_alpha=0.1, gr_max_iters=150, ops=32, blocks_per_sm=1,
                         gr_balance=0.0, block_bfs=0, time_levels=False, local_levels=LOCAL_LEVELS,
                         incremental=True, early_stop=True, async_bfs=False, **_):
    """The options of version (c), checked before a GPU is asked for and again by the version."""
    for value, name in ((incremental, "incremental"), (early_stop, "early_stop"), (async_bfs, "async_bfs")):
        guards.flag(value, name)
    if tile is not None:
        guards.threads(tile, "tile", allowed=(1, 2, 4, 8, 16, 32))
    guards.threads(block, allowed=(256, 512, 1024))
    if not gr_balance >= 0:
        raise ValueError(f"gr_balance must be >= 0 (0: off), got {gr_balance}")
    guards.integer(ops, "ops")
    guards.integer(blocks_per_sm, "blocks_per_sm")
    guards.integer(gr_max_iters, "gr_max_iters")
    guards.integer(block_bfs, "block_bfs", lo=0, hi=SOLO_CAP)
    guards.integer(local_levels, "local_levels", lo=1, hi=MAX_LOCAL_LEVELS)
    if block_bfs and local_levels > 1:
        raise ValueError("block_bfs (narrow levels by the first block) is a form of the BFS by levels: "
                         "it needs local_levels=1")
    guards.one_of(time_levels, "time_levels", (False, True))
    if not gr_alpha > 0:
        raise ValueError(f"gr_alpha must be > 0, got {gr_alpha}")


def check_sorted_arcs(net: FlowNetwork) -> None:
    """The report's reverse-arc searches find the arc ``y -> x`` among ``y``'s arcs by its head:
    that needs every vertex's heads strictly increasing (as :func:`~gpualgo.maxflow.network.from_edges`
    builds them), so that the one arc found is ``rev[a]``. ValueError otherwise."""
    d = np.diff(net.heads.astype(np.int64))
    first = np.zeros(net.m, dtype=bool)
    first[net.offsets[:-1][net.offsets[:-1] < net.m]] = True
    if np.any((d <= 0) & ~first[1:]):
        raise ValueError("rev_search='linear' or 'binary' needs each vertex's arcs sorted by head without repeats "
                         "(as from_edges builds them); use rev_search='index'")


def gpu_matrix(net: FlowNetwork, cycle: int | None = None, block: int = 256, upload: str = "auto",
               force: bool = False) -> MaxFlowResult:
    """Version (a): the n x n residual matrix, a thread per vertex; ``cycle`` sweeps per
    launch (default n, as in the report), the global relabel on the host in between.

    ``upload``: "auto" (default) builds the matrix on the GPU from the uploaded arcs; the
    others build it on the host, in pageable, page-locked ("pinned") or mapped memory, as
    the report did (:class:`gpualgo.gpu.HostBuffers`): pageable and pinned copy it to the
    GPU; with "mapped" nothing is copied, and the kernels read and update the matrix in host
    memory across the PCIe bus, so their time grows with every sweep (each residual read is
    a bus round trip instead of a load from the GPU's memory) while the transfer is gone."""
    return _host_relabel(net, "gpu_matrix", cycle, block, force, upload=upload)


def gpu_bcsr(net: FlowNetwork, cycle: int | None = None, block: int = 256, upload: str = "auto",
             rev_search: str = "index", relabel: str = "host", tile: int | None = None,
             force: bool = False) -> MaxFlowResult:
    """Version (b): the same on the BCSR arcs (the arcs of a vertex, in and out, together,
    with the index of each reverse arc).

    ``upload``: where the host keeps the network's arrays (offsets, heads, reverse indices,
    residual capacities) for the transfer, and the residuals it reads back after every launch:
    "auto" (default, :func:`gpualgo.gpu.to_device`), "pageable", "pinned" (page-locked), or
    "mapped" (:class:`gpualgo.gpu.HostBuffers`): nothing is copied either way, the kernels
    read the arcs and read and update the residuals in host memory through its device address,
    so every one of those accesses crosses the PCIe bus and the kernel time (``launch_ms``)
    grows, the more the more sweeps run. ``rev_search``: the reverse arc of a push by the
    stored index (default) or by the report's linear scan or binary search among the head's
    arcs. ``relabel``: the global relabel on the host (default, as in the report: the
    residuals go back to the host after every launch) or on the GPU
    (``bcsr_global_relabel_kernel``, the BFS by levels of version (c), ``tile`` threads per
    frontier vertex, default from the mean degree): the same sweeps either way."""
    return _host_relabel(net, "gpu_bcsr", cycle, block, force, upload=upload, rev_search=rev_search,
                         relabel=relabel, tile=tile)


class _Loop:
    """The state of one run of (a) or (b): its device arrays, the host's residual copy, its
    kernels and launch sizes, and the times and counters it adds up."""

    def __init__(self, net, variant, dtype, cycle):
        self.net, self.variant, self.dtype, self.cycle = net, variant, dtype, cycle
        self.gr_ms = self.launch_ms = self.download_ms = 0.0
        self.phases = 0


def _host_relabel(net, variant, cycle, block, force, upload="auto", rev_search="index", relabel="host",
                  tile=None):
    """Versions (a) and (b): the setup (the preflow, the host arrays in the memory ``upload``
    names), the transfer (:func:`_device_side`), then the loop of global relabels and launches;
    ``setup_ms``, ``transfer_ms`` (together ``prepare_ms``, the report's initialisation) and ``exec_ms``
    time the three."""
    _check_sizes(net)
    check_host_relabel(cycle, block, upload, rev_search, relabel, tile)
    if rev_search != "index":
        check_sorted_arcs(net)
    memory_guard(net, variant, force, relabel=relabel)
    cupy = gpu.require()
    dtype = _cap_dtype(net)
    tile = (default_tile(net) if tile is None else int(tile)) if relabel == "gpu" else 8
    # each version times its own upload, solve and download (total_ms): compiling the
    # kernels, once per process, is not part of a solve
    mod = _module(dtype, tile, REV_SEARCH[rev_search])
    run = _Loop(net, variant, dtype, net.n if cycle is None else int(cycle))
    with gpu.HostBuffers() as buffers:
        t0 = time.perf_counter()
        hosts, exc_h = _host_side(run, buffers, upload)
        t1 = time.perf_counter()
        _device_side(run, cupy, buffers, upload, hosts, exc_h)
        _launches(run, mod, block, relabel)
        _sync(cupy)
        t2 = time.perf_counter()
        side, value = _loop_gpu_bfs(run, cupy) if relabel == "gpu" else _loop_host_bfs(run, exc_h)
        t3 = time.perf_counter()
        res_out = np.array(run.res_h)         # a copy: the page-locked buffers are freed below
        st = _stats(run.stats_d.get())
    stats = dict(prepare_ms=(t2 - t0) * 1e3, setup_ms=(t1 - t0) * 1e3, transfer_ms=(t2 - t1) * 1e3,
                 exec_ms=(t3 - t2) * 1e3, total_ms=(time.perf_counter() - t0) * 1e3, device=gpu.device_name(),
                 pushes=st["ST_PUSH"], relabels=st["ST_RELABEL"], sweeps=st["ST_SWEEP"],
                 global_relabels=run.phases, phases=run.phases, gr_ms=run.gr_ms, pr_ms=(t3 - t2) * 1e3 - run.gr_ms,
                 launch_ms=run.launch_ms, download_ms=run.download_ms, upload=upload,
                 cap_dtype=np.dtype(dtype).name, cycle=run.cycle, launch=run.launch)
    if variant == "gpu_bcsr":
        stats.update(rev_search=rev_search, relabel=relabel, bfs_levels=st["ST_LEVEL"] if relabel == "gpu" else None)
    return make_result(net, variant, value, side, res_out, is_preflow=True, stats=stats)


def _host_side(run, buffers, upload):
    """The setup: the preflow's residuals and excesses, and the network's arrays as the host
    keeps them for the transfer ("auto": plain arrays; else copies in the memory ``upload``
    names; the matrix version, unless "auto", builds its n x n matrix there). Returns
    ({name: host array}, excesses)."""
    net, n = run.net, run.net.n
    res_h, exc_h = _preflow(net, run.dtype)
    arrays = dict(offsets=net.offsets.astype(np.int32), heads=net.heads, res=res_h)
    if run.variant == "gpu_bcsr":
        arrays["rev"] = net.rev.astype(np.int32)
    cells = net.tails.astype(np.int64) * n + net.heads
    if upload == "auto":
        if run.variant == "gpu_matrix":
            arrays["cells"] = cells
        return arrays, exc_h
    hosts = {k: buffers.host(a, upload) for k, a in arrays.items()}
    if run.variant == "gpu_matrix":
        mat = buffers.empty(n * n, run.dtype, upload)
        mat[:] = 0
        mat[cells] = res_h
        hosts["mat"] = mat
    return hosts, exc_h


def _device_side(run, cupy, buffers, upload, hosts, exc_h):
    """The transfer: the network's arrays to the GPU ("mapped": nothing copied, the kernels
    get the host memory's device address), the vertex state allocated there. The host keeps
    its residual copy in ``run.res_h``, where the copies back land."""
    n, m = run.net.n, run.net.m
    on_gpu = gpu.to_device if upload == "auto" else (lambda a: buffers.device(a, upload))
    run.offsets, run.heads = on_gpu(hosts["offsets"]), on_gpu(hosts["heads"])
    run.excess = gpu.to_device(exc_h)
    run.height = cupy.zeros(n, dtype=np.int32)
    run.ring = cupy.zeros(3, dtype=np.int32)
    run.stats_d = cupy.zeros(len(STATS), dtype=np.uint64)
    run.res_h = hosts["res"]
    run.mapped = upload == "mapped"
    if run.variant == "gpu_bcsr":
        run.rev, run.res = on_gpu(hosts["rev"]), on_gpu(hosts["res"])
        return
    if upload == "auto":    # the matrix built on the GPU from the arcs
        run.mat = cupy.zeros(n * n, dtype=run.dtype)
        run.mat[gpu.to_device(hosts["cells"])] = gpu.to_device(hosts["res"])
    else:                   # built on the host, as the report did
        run.mat = on_gpu(hosts["mat"])
    # the gather's output: the residuals of the arcs, mapped straight into the host's copy
    run.res = buffers.device(run.res_h, "mapped") if run.mapped else cupy.empty(m, dtype=run.dtype)


def _launches(run, mod, block, relabel):
    """The kernels of the run and their launch sizes (:func:`launch_config`)."""
    n = run.net.n
    if run.variant == "gpu_matrix":
        run.kern = mod.get_function("matrix_push_relabel_kernel")
        run.gather = mod.get_function("matrix_gather_kernel")
        gb, gt, _ = launch_config(run.gather, GATHER_BLOCK, n, cooperative=False)
        run.gather_size = ((gb,), (gt,))
    else:
        run.kern = mod.get_function("bcsr_push_relabel_kernel")
    blocks, threads, per_sm = launch_config(run.kern, block, n)
    run.size = ((blocks,), (threads,))
    run.launch = dict(blocks=blocks, threads=threads, blocks_per_sm=per_sm)
    if relabel == "gpu":
        run.relabel = mod.get_function("bcsr_global_relabel_kernel")
        rb, rt, _ = launch_config(run.relabel, block, n)
        run.relabel_size = ((rb,), (rt,))


def _sweep_launch(run):
    """One launch of up to ``cycle`` sweeps, timed on the GPU clock (``launch_ms``)."""
    n, net = run.net.n, run.net
    run.ring.fill(0)
    head = (np.int32(n), np.int32(net.source), np.int32(net.sink))
    with gpu.CudaTimer() as timer:
        if run.variant == "gpu_matrix":
            run.kern(*run.size, head + (run.mat, run.excess, run.height, np.int32(run.cycle), run.ring, run.stats_d))
        else:
            run.kern(*run.size, head + (run.offsets, run.heads, run.rev, run.res, run.excess, run.height,
                                        np.int32(run.cycle), run.ring, run.stats_d))
    run.launch_ms += timer.ms


def _download(run):
    """The residuals back to the host copy after a launch (for the matrix, gathered into the
    arcs first); mapped memory needs no copy: the kernels wrote it."""
    g0 = time.perf_counter()
    if run.variant == "gpu_matrix":
        run.gather(*run.gather_size, (np.int32(run.net.n), run.offsets, run.heads, run.mat, run.res))
    if not run.mapped:
        run.res.get(out=run.res_h)
    else:
        _sync(gpu.require())
    exc = run.excess.get()
    run.download_ms += (time.perf_counter() - g0) * 1e3
    return exc


def _loop_host_bfs(run, exc_h):
    """The report's loop: the host's BFS sets the heights, a launch sweeps, the residuals and
    excesses come back, until the BFS leaves no active vertex. Returns (cut side, flow value)."""
    net, n = run.net, run.net.n
    heads64 = net.heads.astype(np.int64)
    queue = np.empty(n, dtype=np.int64)
    while True:
        g0 = time.perf_counter()
        h = _host_heights(net, run.res_h, heads64, queue)
        run.phases += 1
        active = (exc_h > 0) & (h < n)
        active[[net.source, net.sink]] = False
        if not active.any():
            run.gr_ms += (time.perf_counter() - g0) * 1e3
            return h >= n, exc_h[net.sink]
        run.height.set(h.astype(np.int32))
        run.gr_ms += (time.perf_counter() - g0) * 1e3
        _sweep_launch(run)
        exc_h = _download(run)


def _loop_gpu_bfs(run, cupy):
    """The same sweeps with the global relabel on the GPU (``bcsr_global_relabel_kernel``):
    only the count of active vertices comes back between launches; the residuals come back
    once, at the end. Returns (cut side, flow value)."""
    net, n = run.net, run.net.n
    q = _queue_ints(net)
    qa, qb = cupy.empty(q, dtype=np.int32), cupy.empty(q, dtype=np.int32)
    ring9 = cupy.zeros(9, dtype=np.int32)
    active = cupy.zeros(1, dtype=np.int32)
    while True:
        ring9.fill(0)
        with gpu.CudaTimer() as timer:
            run.relabel(*run.relabel_size, (np.int32(n), np.int32(net.source), np.int32(net.sink), run.offsets,
                                            run.heads, run.rev, run.res, run.excess, run.height, qa, qb, ring9,
                                            run.stats_d, active))
        g0 = time.perf_counter()
        left = int(active.get()[0])
        run.gr_ms += timer.ms + (time.perf_counter() - g0) * 1e3
        run.phases += 1
        if left == 0:
            break
        _sweep_launch(run)
    exc = _download(run)
    return run.height.get() >= n, exc[net.sink]


# -------------------------------------------------------------------------- (c): one kernel

def _local_capacity(queue_ints: int) -> int:
    """Entries of the global queue the BFS with ``local_levels`` > 1 may fill before it gives way
    to the BFS by levels: the whole queue (a function so that tests can shrink it)."""
    return queue_ints


def _async_capacity(n: int) -> int:
    """Entries of the asynchronous BFS's work list (a function so that tests can shrink it)."""
    return 2 * n + 1024


def gpu_vertex_centric(net: FlowNetwork, tile: int | None = None, block: int = BLOCK, gr_alpha: float = 0.1,
                       gr_max_iters: int = 150, ops: int = 32, incremental: bool = True, blocks_per_sm: int = 1,
                       early_stop: bool = True, gr_balance: float = 0.0, async_bfs: bool = False,
                       block_bfs: int = 0, time_levels: bool = False, local_levels: int = LOCAL_LEVELS,
                       force: bool = False) -> MaxFlowResult:
    """Version (c): one cooperative kernel runs the whole algorithm (``vertex_centric_kernel``:
    global relabels on the GPU, sweeps over a queue of active vertices, a tile per vertex).
    The options are those of :func:`gpualgo.maxflow.solve`; ``time_levels=True`` compiles the
    kernel with its level clock and adds to the stats, for every BFS step the whole grid ran
    (a level with ``local_levels=1``, those of ``block_bfs`` excepted; with ``local_levels`` > 1
    a step of up to that many levels, the sink's level excepted), in order, the frontier it
    started from (``level_frontier``) and its time from barrier to barrier in microseconds
    (``level_us``), :data:`LEVEL_CAP` steps at most (``levels_timed`` of ``levels_clocked``).
    ``bfs_expanded`` counts the frontier entries the asynchronous BFS or the BFS with
    ``local_levels`` > 1 expanded (a vertex whose label was lowered again is expanded again)."""
    _check_sizes(net)
    n = net.n
    dtype = _cap_dtype(net)
    check_vertex_centric(tile, block, gr_alpha, gr_max_iters, ops, blocks_per_sm, gr_balance, block_bfs, time_levels,
                         local_levels, incremental, early_stop, async_bfs)
    tile = default_tile(net) if tile is None else int(tile)
    memory_guard(net, "gpu_vertex_centric", force, bool(async_bfs), local_levels=local_levels)
    cupy = gpu.require()
    mod = _module(dtype, tile, block=int(block), level_clock=time_levels)
    kern = mod.get_function("vertex_centric_kernel")
    if time_levels:
        clocked = cupy.ndarray((1,), np.uint64, mod.get_global("level_count"))
        clocked.fill(0)
    blocks, threads, per_sm = launch_config(kern, block, n, blocks_per_sm)
    t0 = time.perf_counter()
    res, excess = _device_preflow(net, dtype)
    offsets = gpu.to_device(net.offsets, np.int32)
    heads = gpu.to_device(net.heads)
    rev = gpu.to_device(net.rev, np.int32)
    # the BFS with local_levels > 1 reads the residual of each arc's reverse beside the arc: a copy
    # the sweeps update with every push (rres[a] = res[rev[a]])
    rres = res[rev] if local_levels > 1 else cupy.zeros(1, dtype=res.dtype)
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
                                     res, excess, height, qa, qb, stamp, ring, stats_d, wq, np.int32(wq_cap), wl, rres,
                                     np.int32(limit), np.int32(gr_max_iters), np.int32(ops),
                                     np.int32(bool(incremental)), np.int32(bool(early_stop)),
                                     np.int32(bool(async_bfs)), np.float32(gr_balance),
                                     np.int64(MAX_STEPS), np.int32(block_bfs), np.int32(local_levels),
                                     np.int32(min(qa.size, _local_capacity(qa.size)))))
    t2 = time.perf_counter()
    st = _stats(stats_d.get())
    if st["ST_STATUS"]:
        raise RuntimeError("gpu_vertex_centric stopped at its step limit without finishing")
    value = int(excess[net.sink].get())
    side = (height >= n).get()
    res_out = res.get()
    t3 = time.perf_counter()
    gr_ns, pr_ns = float(st["ST_GR_NS"]), float(st["ST_PR_NS"])
    kernel_ms = timer.ms
    stats = dict(prepare_ms=(t1 - t0) * 1e3, exec_ms=(t2 - t1) * 1e3, kernel_ms=kernel_ms,
                 total_ms=(t3 - t0) * 1e3, device=gpu.device_name(), download_ms=(t3 - t2) * 1e3,
                 pushes=st["ST_PUSH"], relabels=st["ST_RELABEL"], sweeps=st["ST_SWEEP"],
                 global_relabels=st["ST_GR"], phases=st["ST_GR"], bfs_levels=st["ST_LEVEL"],
                 bfs_expanded=st["ST_ITEMS"], bfs_solo_levels=st["ST_SOLO"],
                 gr_ms=kernel_ms * gr_ns / max(gr_ns + pr_ns, 1.0),
                 pr_ms=kernel_ms * pr_ns / max(gr_ns + pr_ns, 1.0),
                 cap_dtype=np.dtype(dtype).name, tile=tile, gr_alpha=gr_alpha, gr_max_iters=gr_max_iters, ops=int(ops),
                 incremental=bool(incremental), early_stop=bool(early_stop), gr_balance=float(gr_balance),
                 async_bfs=bool(async_bfs), block_bfs=int(block_bfs), local_levels=int(local_levels),
                 block=int(block),
                 launch=dict(blocks=blocks, threads=threads, blocks_per_sm=per_sm))
    if time_levels:
        count = int(clocked.get()[0])
        kept = min(count, LEVEL_CAP)
        pairs = cupy.ndarray((2 * LEVEL_CAP,), np.uint64, mod.get_global("level_clock"))[:2 * kept].get()
        stats.update(level_frontier=pairs[0::2].astype(np.int64), level_us=pairs[1::2] / 1e3,
                     levels_clocked=count, levels_timed=kept)
    return make_result(net, "gpu_vertex_centric", value, side, res_out, is_preflow=True, stats=stats)
