"""Host side of the GPU dynamic programmes (kernels in ``gpualgo/kernels/coalitions.cu``).

In the order they are taught, one function each (:data:`KERNELS` names the kernels each
launches):

- :func:`report` (``gpu_report``): the source report's kernel: for each coalition size, a
  group of threads per coalition, each thread a range of split counters turned into splits
  by scattering the counter into the coalition's bits and stepping with ``(S - C) & C``;
  the best split is reduced thread -> warp shuffle -> block -> atomic max in global memory.
- :func:`shared_splits` (``gpu_shared_splits``): the same, with each thread evaluating the
  same counters for ``share`` neighbouring coalitions and reusing a value it already holds
  in a register when two of them produce the same subset (the report's collision reuse).
- :func:`odp` (``gpu_odp``): beyond the report: the ODP-pruned DP on shared-memory tiles
  (see the kernel's comment), coalesced reads of whole table segments, each value then
  used many times.
- :func:`odp_multi` (``gpu_odp_multi``): :func:`odp` on every GPU of the machine, each size's
  tiles split between them, the tables merged over peer access before the next size.

:func:`phase_clocks` runs the report's two kernels built with ``-DPHASE_CLOCKS`` and returns
the clock cycles their threads spent in each phase (the report's Figs. 2-3).

All versions keep only the table f on the device and rebuild the partition with the
report's Algorithm 2 (one search kernel per coalition of the answer). Every grid and block
size is computed by :func:`launch_config`. Importing this module needs no GPU.
"""
from __future__ import annotations

import functools
import heapq
import math
import time

import numpy as np
from numba import njit

from .. import gpu, guards
from . import serial
from .result import make_result
from .values import popcounts

__all__ = ["KERNELS", "report", "shared_splits", "odp", "odp_multi", "phase_clocks", "phase_summary", "run", "run_multi",
           "device_ids", "EXCHANGE_BYTES", "launch_config", "masks_of_size", "defines", "DEFAULTS", "PER_THREAD", "TILES_ONLY", "fitting_visits",
           "SHARE_MAX", "LOW_BITS", "REBUILD_BLOCK", "PHASES", "PHASE_BATCH", "MAX_VISITS"]

#: the kernels each GPU version launches, in the order it launches them
KERNELS = {
    "gpu_report": ("report_kernel", "find_split_kernel"),
    "gpu_shared_splits": ("shared_splits_kernel", "find_split_kernel"),
    "gpu_odp": ("odp_tile_kernel", "size_max_kernel", "split_max_kernel", "keep_kernel", "report_kernel",
                "find_split_kernel"),
    "gpu_odp_multi": ("odp_tile_kernel", "find_split_kernel"),
}

#: default options of each variant (``per_thread``: None is the version's :data:`PER_THREAD`;
#: ``coalitions_per_thread``: None is 1 for gpu_report and ``share`` for gpu_shared_splits, one
#: pass over the counters per group)
DEFAULTS = {"block": 256, "per_thread": None, "share": 4, "tiles_per_block": 16, "coalitions_per_thread": None}
#: the split counters per thread of each of the report's kernels by default (and of report_kernel
#: where gpu_odp's bound lists coalitions): the fastest of 2, 4, 8 and 16 for gpu_report on an
#: H100 at n = 22, 24 and 26 (16 took 1.43 times as long at n = 24); 16 for shared splits, whose
#: registers reuse every read across the coalitions a thread shares. Where a level's grid would
#: pass the hardware's limit, a group takes several coalitions in turn (:func:`fitting_visits`)
PER_THREAD = {"gpu_report": 4, "gpu_shared_splits": 16}
#: the options that make each GPU version run every level in its own kernels, where a
#: measurement of those kernels needs it: gpu_odp without its bound (:func:`odp_bound`), whose
#: listed coalitions would go to report_kernel instead of the tiles
TILES_ONLY = {"gpu_odp": {"bound": False}}
#: agents per shared-memory tile (float32 / float64): 2 segments of 2**b values + the bests
LOW_BITS = {np.dtype(np.float32): 12, np.dtype(np.float64): 11}
#: the most coalitions a thread of shared_splits_kernel evaluates together (compiled in as
#: the define SHARE_MAX: the kernel keeps their masks and bests in registers)
SHARE_MAX = 8
#: the most coalitions a group of the report's kernels visits in turn (coalitions_per_thread)
MAX_VISITS = 4096
#: the phases of the report's kernels timed by :func:`phase_clocks`, in the order of the
#: kernel's slots (PHASE_SETUP...); the slot after them holds each thread's whole time
PHASES = ("setup", "fetch", "evaluate", "reduce")
#: splits report_kernel reads into registers before evaluating them, in the -DPHASE_CLOCKS build
PHASE_BATCH = 8
#: gpu_odp evaluates every level of the coalitions without the top LEAD agents (the table's
#: first eighth) while the rest of the table is still being uploaded, then the others, for a
#: table of LEAD_BYTES or more: the second part's launches cost a few ms, more than the upload
#: of a smaller table, which they would hide
LEAD = 3
LEAD_BYTES = 1 << 28
#: low coalitions a lane of odp_tile_kernel evaluates together (the define EXTRAS): they share
#: all their agents but one, so that the reads of the shared part serve them all
#: (:func:`low_tasks`)
EXTRAS = 4
#: threads per block of find_split_kernel, the rebuild's search, and of the bound's kernels
REBUILD_BLOCK = 256
#: what a split costs report_kernel, which evaluates gpu_odp's kept coalitions of a bounded
#: level from global memory, in splits of odp_tile_kernel (about 5.7e10 against 1.6e12 splits a
#: second on an H100 at n = 29, with 16 counters a thread and the loop over visits; with 4 and
#: no loop about 9.2e10, a ratio of 17, which bounded the same levels of the same instances at
#: n = 27 and 29 in one run, and as fast): a level is bounded only when its kept coalitions'
#: splits, so weighted, are fewer than the level's splits under ODP
LIST_SPLIT_COST = 28
#: the most coalitions of a level gpu_odp's bound lists, as a share of the level (beyond it
#: the level runs in tiles anyway)
LIST_SHARE = 1 / 16
MAX_GRID = 2**31 - 1


def defines() -> dict:
    """The compile-time constants this module passes to ``coalitions.cu`` (its ``#ifndef``
    fallbacks must agree: a test checks)."""
    return {"SHARE_MAX": SHARE_MAX, "PHASE_BATCH": PHASE_BATCH, "EXTRAS": EXTRAS}


def _module(dtype, clocks: bool = False):
    defs = defines()
    if np.dtype(dtype) == np.float64:
        defs["VALUE_T"] = "double"
    if clocks:
        defs["PHASE_CLOCKS"] = 1
    return gpu.load_module("coalitions", defines=defs)


@njit(cache=True)
def masks_of_size(n, s):
    """Every bitmask of n bits with s bits set, in increasing order (Gosper's hack)."""
    count = 1
    for i in range(s):
        count = count * (n - i) // (i + 1)
    out = np.empty(count, dtype=np.uint32)
    if s == 0:
        out[0] = 0
        return out
    c = (1 << s) - 1
    for i in range(count):
        out[i] = c
        low = c & -c
        r = c + low
        c = (((r ^ c) >> 2) // low) | r
    return out


def _low_bits(v, n: int, low_bits) -> int:
    """The ODP tiles' low bits for the table ``v`` of ``n`` agents: ``low_bits``, or by default
    :data:`LOW_BITS` of its dtype (at most ``n``); ValueError outside 1..min(n, 12), or above 11
    for float64 (the tiles live in shared memory)."""
    b = min(n, LOW_BITS[v.dtype]) if low_bits is None else low_bits
    if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or not 1 <= b <= min(n, 12):
        raise ValueError(f"low_bits must be an integer in 1..{min(n, 12)}, got {low_bits!r}")
    if v.dtype == np.float64 and b > 11:
        raise ValueError("low_bits is at most 11 for float64 tables (shared memory)")
    return int(b)


def check_options(block=None, per_thread=None, share=None, low_bits=None, tiles_per_block=None, devices=None,
                  coalitions_per_thread=None, bound=True, **_) -> dict:
    """The launch options of the GPU versions, their defaults filled in (``low_bits`` stays
    None: its default and its upper bound depend on the instance; ``per_thread`` and
    ``coalitions_per_thread`` None: their defaults depend on the version); checked before a GPU is asked for
    (:class:`gpualgo.variants.Variant`'s ``checks``) and again by :func:`run`."""
    out = {"block": guards.power_of_two(DEFAULTS["block"] if block is None else block, "block", 32, 1024),
           "per_thread": None if per_thread is None else guards.power_of_two(per_thread, "per_thread", 1, 1 << 20),
           "share": guards.integer(DEFAULTS["share"] if share is None else share, "share", 2, SHARE_MAX),
           "tiles_per_block": guards.integer(DEFAULTS["tiles_per_block"] if tiles_per_block is None
                                             else tiles_per_block, "tiles_per_block"),
           "low_bits": None if low_bits is None else guards.integer(low_bits, "low_bits", 1, 12),
           "coalitions_per_thread": None if coalitions_per_thread is None else
           guards.integer(coalitions_per_thread, "coalitions_per_thread", 1, MAX_VISITS),
           "bound": guards.one_of(bound, "bound", (True, False))}
    if isinstance(devices, (list, tuple)):        # ids: checked against the GPUs there by device_ids
        if not devices:
            raise ValueError("devices must be a count or a list of distinct GPU ids, got []")
        for d in devices:
            guards.integer(d, "a GPU id in devices", lo=0)
    elif devices is not None:
        guards.integer(devices, "devices")
    return out


def launch_config(kernel: str, **sizes) -> dict:
    """Every grid and block size of this module's launches, computed here and only here.

    - ``"report_kernel"``, ``"shared_splits_kernel"``: sizes ``block``, ``coalitions`` (of the
      level), ``size`` (their agents, s), ``per_thread`` (split counters per thread), for
      shared splits ``share`` (coalitions a thread evaluates together), and ``visits``
      (coalitions a group walks in turn; default 1, and ``share`` for shared splits). A group
      of ``2**group_log2`` threads takes each ``visits`` consecutive coalitions: enough threads
      for the ``2**(s-1)`` counters. Returns ``{"grid", "block", "group_log2"}``; ValueError
      when the grid would pass the hardware limit (raise per_thread or coalitions_per_thread).
    - ``"odp_tile_kernel"``: sizes ``block``, ``highs`` (high masks of size ``h``), ``h``,
      ``t`` (the low coalitions' size), ``low_bits`` (b), ``tiles`` (tiles a block walks at
      most), ``itemsize`` (of the table's values). A block per (high mask, chunk of ``per``
      consecutive high splits); ``group`` lanes share a task of low coalitions (:func:`low_tasks`). Returns
      ``{"grid", "block", "chunks", "per", "group", "shared_bytes", "low_coalitions"}``.
    - ``"find_split_kernel"``: sizes ``splits`` and ``sms`` (the GPU's multiprocessors): a
      grid-stride loop over the splits of one coalition, at most 8 blocks per SM of
      :data:`REBUILD_BLOCK` threads. Returns ``{"grid", "block"}``.
    - ``"size_max_kernel"``: sizes ``n`` and ``low_bits``: a block of :data:`REBUILD_BLOCK`
      threads per high mask. ``"split_max_kernel"``, ``"keep_kernel"``: size ``sms``: grid-stride
      loops over the table, 8 blocks per SM of :data:`REBUILD_BLOCK` threads (:func:`odp_bound`).
      Each returns ``{"grid", "block"}``.

    >>> launch_config("report_kernel", block=256, coalitions=10, size=5, per_thread=4)
    {'grid': 1, 'block': 256, 'group_log2': 2}
    >>> launch_config("find_split_kernel", splits=2**20, sms=132)["grid"]
    1056
    """
    if kernel in ("report_kernel", "shared_splits_kernel"):
        block, count, s, per_thread = sizes["block"], sizes["coalitions"], sizes["size"], sizes["per_thread"]
        share = sizes.get("share", 1) if kernel == "shared_splits_kernel" else 1
        visits = sizes.get("visits") or share
        group_log2 = max(0, (s - 1) - int(math.log2(per_thread)))
        groups = -(-count // visits)
        return {"grid": _blocks(groups << group_log2, block), "block": block, "group_log2": group_log2}
    if kernel == "odp_tile_kernel":
        block, h, t, b, tiles = sizes["block"], sizes["h"], sizes["t"], sizes["low_bits"], sizes["tiles"]
        count_h = sizes["highs"]
        m = math.comb(b, t)
        off = low_tasks(b)[1]
        tasks = int(off[t + 1] - off[t])
        # lanes of a task: each takes every group-th of the 2^(t-1) parts of its core. A larger
        # group (32 lanes of a task, so that a half-warp's reads differ in the core's lowest
        # agents alone) had fewer bank conflicts but was 2.9x slower at n = 27: the tasks' rounds
        # and reductions cost more than the conflicts saved
        group = min(32, 1 << max(t - 1, 0), _pow2_floor(block // tasks) if tasks < block else 1)
        nx = 1 << (h - 1) if h else 1
        per = min(int(tiles), nx)
        chunks = -(-nx // per)
        grid = count_h * chunks
        if grid > MAX_GRID:
            per = -(-nx * count_h // MAX_GRID)
            chunks = -(-nx // per)
            grid = count_h * chunks
        if grid > MAX_GRID:   # rounding up left too many chunks: the most a high mask may have
            per = -(-nx // (MAX_GRID // count_h))
            chunks = -(-nx // per)
            grid = count_h * chunks
        return {"grid": grid, "block": block, "chunks": chunks, "per": per, "group": group,
                "shared_bytes": (2 * (1 << b) + m) * sizes["itemsize"], "low_coalitions": m}
    if kernel == "find_split_kernel":
        return {"grid": min(_blocks(sizes["splits"], REBUILD_BLOCK), 8 * sizes["sms"]), "block": REBUILD_BLOCK}
    if kernel == "size_max_kernel":
        return {"grid": 1 << (sizes["n"] - sizes["low_bits"]), "block": REBUILD_BLOCK}
    if kernel in ("split_max_kernel", "keep_kernel"):
        return {"grid": 8 * sizes["sms"], "block": REBUILD_BLOCK}
    raise ValueError(f"unknown kernel {kernel!r}; known: {sorted({k for ks in KERNELS.values() for k in ks})}")


def _blocks(threads: int, block: int) -> int:
    """Blocks of ``block`` threads for ``threads`` threads (at least one)."""
    grid = max(1, -(-int(threads) // block))
    if grid > MAX_GRID:
        raise ValueError(f"{threads} threads need {grid} blocks, above the grid limit; "
                         "raise per_thread or coalitions_per_thread")
    return grid


def _pow2_floor(x: int) -> int:
    return 1 << (max(1, int(x)).bit_length() - 1)


def report(v, block=None, per_thread=None, coalitions_per_thread=None):
    """The version ``gpu_report`` on a validated value function ``v``: the report's kernel,
    every split evaluated. Options: ``block`` (threads per block, a power of two 32..1024),
    ``per_thread`` (split counters per thread, a power of two), ``coalitions_per_thread``
    (coalitions a thread visits in turn with the same counters, 1..:data:`MAX_VISITS`, default
    1; the report's 32 coalitions per block). Returns a CoalitionResult."""
    return run("gpu_report", v, _agents(v), block=block, per_thread=per_thread,
               coalitions_per_thread=coalitions_per_thread)


def shared_splits(v, block=None, per_thread=None, share=None, coalitions_per_thread=None):
    """The version ``gpu_shared_splits``: :func:`report` with each thread evaluating its
    counters for ``share`` (2..:data:`SHARE_MAX`) consecutive coalitions, a value it already
    holds reused instead of read again; ``coalitions_per_thread`` of them in turn, ``share``
    at a time (default ``share``; the report: 8 at a time, 32 in all). Returns a
    CoalitionResult."""
    return run("gpu_shared_splits", v, _agents(v), block=block, per_thread=per_thread, share=share,
               coalitions_per_thread=coalitions_per_thread)


def phase_clocks(v, variant="gpu_report", block=None, per_thread=None, share=None, coalitions_per_thread=None):
    """``variant`` (``gpu_report`` or ``gpu_shared_splits``, with its options) built with
    ``-DPHASE_CLOCKS``: every thread adds the ``clock64()`` cycles it spends in each phase
    (:data:`PHASES`: reading its coalition and first split, fetching the splits' values,
    evaluating them, reducing) to a counter of the module, summed over the whole DP (the
    kernel's comment says how the clocks are read and what the instrumented build changes).

    Returns the CoalitionResult of the instrumented run (its partition and value are checked
    like any other), with ``stats["phase_cycles"]`` (cycles per phase, and ``"total"``: every
    thread's whole time), ``stats["phase_shares"]`` (each phase over the sum of the phases)
    and ``stats["phase_coverage"]`` (that sum over the total)."""
    if variant not in ("gpu_report", "gpu_shared_splits"):
        raise ValueError(f"variant must be 'gpu_report' or 'gpu_shared_splits' (the report's kernels), "
                         f"got {variant!r}")
    return run(variant, v, _agents(v), block=block, per_thread=per_thread, share=share,
               coalitions_per_thread=coalitions_per_thread, clocks=True)


def phase_summary(cycles) -> dict:
    """``{"phase_cycles", "phase_shares", "phase_coverage"}`` from the module's counters
    ``cycles`` (one per phase of :data:`PHASES`, then the total): each phase's share of the
    phases' sum, and that sum's share of the threads' whole time (0 where nothing ran).

    >>> phase_summary([10, 60, 10, 20, 125])["phase_shares"]["fetch"]
    0.6
    """
    c = [int(x) for x in cycles]
    if len(c) != len(PHASES) + 1:
        raise ValueError(f"expected {len(PHASES) + 1} counters (the phases and the total), got {len(c)}")
    named = dict(zip(PHASES, c[:-1]))
    spent = sum(named.values())
    return {"phase_cycles": dict(named, total=c[-1]),
            "phase_shares": {k: (x / spent if spent else 0.0) for k, x in named.items()},
            "phase_coverage": spent / c[-1] if c[-1] else 0.0}


def odp(v, rule="odp", block=None, low_bits=None, tiles_per_block=None, bound=True):
    """The version ``gpu_odp``: the DP pruned by ``rule`` (ODP by default; ``"dp"`` and
    ``"idp"`` too) on shared-memory tiles of ``low_bits`` agents (default
    :data:`LOW_BITS` of the dtype), a block walking up to ``tiles_per_block`` tiles.

    ``bound`` (ODP only): the levels of more than n/2 agents, which only the grand coalition's
    split reads, skip the coalitions that no optimal partition needs (:func:`odp_bound`), when
    few are left. Exact either way; how much it saves depends on the values.
    Returns a CoalitionResult."""
    return run("gpu_odp", v, _agents(v), rule=rule, block=block, low_bits=low_bits,
               tiles_per_block=tiles_per_block, bound=bound)


def _agents(v) -> int:
    return len(v).bit_length() - 1


def run(variant, v, n, rule="dp", block=None, per_thread=None, share=None, low_bits=None,
        tiles_per_block=None, coalitions_per_thread=None, clocks=False, bound=False):
    """Solve the validated value function ``v`` (``2**n`` values) with the GPU version
    ``variant``; returns its CoalitionResult (:func:`report`, :func:`shared_splits`,
    :func:`odp` and :func:`phase_clocks` call it; ``clocks``: the report's kernels built with
    phase clocks). ``prepare_ms`` is the table's upload (for ``gpu_odp`` its first part, before the
    first kernel: :data:`LEAD`), ``kernel_ms`` the DP's kernels (CUDA events), ``exec_ms`` the DP
    and the rebuild (wall clock)."""
    t0 = time.perf_counter()
    cp = gpu.require()
    serial.check_rule(rule)
    opts = check_options(block, per_thread, share, low_bits, tiles_per_block,
                         coalitions_per_thread=coalitions_per_thread, bound=bound)
    block = opts["block"]
    mod = _module(v.dtype, clocks=clocks)
    stats = {"device": gpu.device_name(), "block": block}
    lead = variant == "gpu_odp" and in_two_parts(n, _low_bits(v, n, low_bits), v.dtype.itemsize)
    with gpu.CudaTimer() as up:
        # gpu_odp starts on the coalitions without the top LEAD agents, the table's first entries,
        # while the rest of it is on its way
        f, rest = gpu.to_device_in_two(v, len(v) >> LEAD if lead else len(v))
    stats["prepare_ms"] = up.ms
    t1 = time.perf_counter()
    events = []
    with gpu.CudaTimer() as kt:
        if variant == "gpu_odp":
            work = _odp(cp, mod, f, v, n, rule, block, low_bits, opts["tiles_per_block"], events, stats,
                        rest if lead else None, bound=opts["bound"] and rule == "odp")
        else:
            if rule != "dp":
                raise ValueError(f"{variant} evaluates every split (rule 'dp'), got rule={rule!r}")
            work = _report(cp, mod, f, n, variant, block, opts, events, clocks)
    stats["kernel_ms"] = kt.ms
    stats["ms_per_level"] = {}
    for s, a, b in events:   # gpu_odp's two parts: each level's two times added (they may overlap)
        stats["ms_per_level"][s] = stats["ms_per_level"].get(s, 0.0) + cp.cuda.get_elapsed_time(a, b)
    splits = serial.level_splits(n, rule)
    splits.update(work.pop("level_splits", {}))   # the levels a bound left to report_kernel
    stats.update(work)
    stats["splits"] = sum(splits.values())
    with gpu.CudaTimer() as rb:
        partition = _rebuild(cp, mod, f, v, n)
    stats["rebuild_ms"] = rb.ms
    table_value = f[-1].get()[()]
    stats["exec_ms"] = (time.perf_counter() - t1) * 1e3
    stats["splits_per_s"] = stats["splits"] / max(stats["kernel_ms"], 1e-9) * 1e3
    stats["bytes_per_s"] = stats["bytes_moved"] / max(stats["kernel_ms"], 1e-9) * 1e3
    return make_result(v, partition, table_value, variant, stats, rule=rule, t0=t0)


def _level_events(cp, events, s, stream=None):
    """Events around level s's launches on ``stream`` (default: the current one): ``a`` recorded
    now, ``b`` (returned) for the caller to record after them."""
    a, b = cp.cuda.Event(), cp.cuda.Event()
    a.record(stream)
    events.append((s, a, b))
    return b


# --------------------------------------------------------------------- the report's kernels

def _report(cp, mod, f, n, variant, block, opts, events, clocks=False):
    """The report's kernels, level by level (``opts``: checked by :func:`run`); ``clocks``:
    ``mod`` is the phase-clock build, whose counters are zeroed first and read at the end."""
    shared = variant == "gpu_shared_splits"
    share = opts["share"] if shared else 1
    name = "shared_splits_kernel" if shared else "report_kernel"
    per_thread = opts["per_thread"] or PER_THREAD[variant]
    visits = opts["coalitions_per_thread"] or fitting_visits(name, n, block, per_thread, share, share)
    saved = cp.zeros(1, dtype=cp.uint64)
    if clocks:
        cycles = cp.ndarray((len(PHASES) + 1,), dtype=cp.uint64, memptr=mod.get_global("phase_cycles"))
        cycles.fill(0)
    extra = (np.int32(share), np.int32(visits), saved) if shared else (np.int32(visits),)
    reads = 0
    for s in range(2, n + 1):
        coal = gpu.to_device(masks_of_size(n, s))
        count = int(coal.size)
        end = _level_events(cp, events, s)
        _launch_listed(mod, name, f, coal, count, s, block, per_thread, extra, share=share, visits=visits)
        end.record()
        reads += count * (2 * ((1 << (s - 1)) - 1) + 1)   # two values per split + the list
        del coal
    out = {"per_thread": per_thread, "coalitions_per_thread": int(visits)}
    if shared:
        out["share"] = int(share)
        out["reads_saved"] = int(saved.get()[0])
        reads -= out["reads_saved"]
    out["bytes_moved"] = reads * f.dtype.itemsize
    if clocks:
        out.update(phase_summary(cycles.get()))
    return out


def fitting_visits(name: str, n: int, block: int, per_thread: int, share: int = 1, visits: int = 1) -> int:
    """``visits`` (the coalitions a group takes in turn), doubled until the grid of every level
    of ``n`` agents fits the hardware's limit (:func:`launch_config`): a report kernel's default
    when the caller gives none (gpu_report, with its 4 counters a thread, takes 4 at n = 29).

    >>> fitting_visits("report_kernel", 28, 256, 4), fitting_visits("report_kernel", 29, 256, 4)
    (1, 4)
    """
    while True:
        try:
            for s in range(2, n + 1):
                launch_config(name, block=block, coalitions=math.comb(n, s), size=s, per_thread=per_thread,
                              share=share, visits=visits)
            return visits
        except ValueError:
            if visits * 2 > MAX_VISITS:
                raise
            visits *= 2


def _launch_listed(mod, name, f, coal, count, s, block, per_thread, extra, share=1, visits=1, stream=None):
    """One launch of the report's ``report_kernel`` or ``shared_splits_kernel`` over the
    ``count`` coalitions of size ``s`` listed in ``coal`` (``extra``: the kernel's arguments
    after its shared ones), sized by :func:`launch_config`."""
    cfg = launch_config(name, block=block, coalitions=count, size=s, per_thread=per_thread, share=share,
                        visits=visits)
    mod.get_function(name)((cfg["grid"],), (cfg["block"],), (
        f, coal, np.int64(count), np.int32(s), np.int32(per_thread), np.int32(cfg["group_log2"])) + extra,
        stream=stream)


# ------------------------------------------------------------------------------ ODP tiles

def low_sizes(n: int, s: int, h1: int, h2: int, t: int, r: int) -> tuple[int, int]:
    """``(jlo, jhi)``: the sizes ``j`` of a low part Xl that a tile may use, for a coalition of
    size ``s`` with high split sizes ``h1 = |Xh|``, ``h2 = |Ch \\ Xh|`` and ``t`` low agents, under
    rule index ``r``: every size, except under ODP below the grand coalition (a split into sizes
    x <= y only when y <= n - s, so |X| = h1 + j and |C \\ X| = h2 + t - j both at most n - s),
    and none under IDP for 2n/3 < s < n (such coalitions are not split). Empty when ``jlo > jhi``
    (as ``odp_tile_kernel`` computes it for ODP; IDP's empty levels are never launched).

    >>> low_sizes(27, 18, 4, 5, 9, 2), low_sizes(27, 18, 4, 5, 9, 0), low_sizes(27, 19, 4, 5, 10, 1)
    ((5, 5), (0, 9), (1, 0))
    """
    if r == 1 and s < n and 3 * s > 2 * n:
        return 1, 0
    if r == 2 and s < n:
        lim = n - s
        return max(0, h2 + t - lim), min(t, lim - h1)
    return 0, t


def odp_splits(n: int, b: int, s: int, r: int):
    """The high splits of size ``s`` that load a tile, as ``(h, t, h1, jlo, jhi, splits)``: for
    each size ``h`` of a coalition's high part (``t = s - h`` low agents, ``b`` low bits) and
    each size ``h1`` of its high split whose range of low sizes (:func:`low_sizes`) is not
    empty, ``splits`` the high splits of that size per high mask (the top agent is in none)."""
    for h in range(max(0, s - b), min(n - b, s) + 1):
        t = s - h
        for h1 in range(0, max(h, 1)):
            jlo, jhi = low_sizes(n, s, h1, h - h1, t, r)
            if jlo <= jhi:
                yield h, t, h1, jlo, jhi, math.comb(h - 1, h1) if h else 1


def odp_launches(n: int, b: int, s: int, r: int) -> list:
    """The ``odp_tile_kernel`` launches of size ``s`` (``b`` low bits, rule index ``r`` of
    ``serial.RULES``), as ``gpu_odp`` and ``gpu_odp_multi`` make them: ``(h, t, ok, iterations)``
    for each size ``h`` of a coalition's high part (``t = s - h`` low agents) that leaves some
    high split ``h1`` a non-empty range of low sizes; ``ok`` counts those high splits (a block
    loads a tile per high mask and split), ``iterations`` the (split, low coalition) pairs its
    threads walk (a statistic)."""
    out = {}
    for h, t, _, _, _, splits in odp_splits(n, b, s, r):
        ok, iterations = out.get(h, (0, 0))
        out[h] = (ok + splits, iterations + math.comb(n - b, h) * splits * math.comb(b, t) * (1 << t))
    return [(h, s - h, ok, its) for h, (ok, its) in out.items()]


def in_two_parts(n: int, b: int, itemsize: int) -> bool:
    """Whether ``gpu_odp`` uploads a table of ``n`` agents (``b`` low bits, values of ``itemsize``
    bytes) in two parts and starts on the first (:data:`LEAD`, :data:`LEAD_BYTES`)."""
    return (itemsize << n) >= LEAD_BYTES and n - b >= LEAD


def odp_plan(n: int, b: int, r: int, lead: bool):
    """The launches of ``gpu_odp``, yielded in the order :func:`_odp` issues them, one by one so
    that the first run while the others are worked out (``b`` low bits, rule index ``r``;
    ``lead``: the table in two parts, :data:`LEAD`), as ``(part, s, h, t, ok, lo, hi)``:
    the launch for level ``s`` and high-part size ``h`` (:func:`odp_launches`) over the high masks
    ``highs[h][lo:hi]`` of ``part`` (0: the coalitions without the top LEAD agents, every level;
    then 1: the others, every level). A launch with no high mask in its part is left out.

    >>> [p[:3] for p in odp_plan(6, 2, 0, True)][:6]   # part 0: no agent of the top three (3-5)
    [(0, 2, 0), (0, 2, 1), (0, 3, 1), (1, 2, 1), (1, 2, 2), (1, 3, 1)]
    """
    highs = [math.comb(n - b, h) for h in range(n - b + 1)]
    if lead:
        first = [math.comb(n - b - LEAD, h) if n - b >= LEAD else k for h, k in enumerate(highs)]
        parts = [[(0, k) for k in first], [(k, x) for k, x in zip(first, highs)]]
    else:
        parts = [[(0, x) for x in highs]]
    for part, slices in enumerate(parts):
        for s in range(2, n + 1):
            for h, t, ok, _ in odp_launches(n, b, s, r):
                lo, hi = slices[h]
                if hi > lo:
                    yield part, s, h, t, ok, lo, hi


def _odp(cp, mod, f, v, n, rule, block, low_bits, tiles, events, stats, rest=None, bound=False):
    """The ODP tiles, level by level (``tiles``: checked by :func:`run`), in the order of
    :func:`odp_plan`. With ``rest`` (the table's upload is in two parts, :data:`LEAD`): every
    level of the coalitions without the top LEAD agents, whose subsets all lie in the table's
    first part, is launched at once on the current stream; then, once ``rest()`` returns, every
    level of the others on a second stream, each level after the first part's levels below it.
    The two parts' levels run side by side from then on. With ``bound`` (the ODP rule), the
    levels of more than n/2 agents come after all the others, on the current stream, each
    bounded by :func:`odp_bound` when that leaves few of its coalitions."""
    b = _low_bits(v, n, low_bits)
    item = f.dtype.itemsize
    layout = _tile_layout(n, b)
    high_off, cnt_le_h = layout["high_off"], layout["cnt_le"]
    bypop, cnt_le, high_all, tasks, task_off = (gpu.to_device(layout[k]) for k in
                                                ("bypop", "cnt_le", "all_highs", "tasks", "task_off"))
    kern = mod.get_function("odp_tile_kernel")
    r = serial.RULES.index(rule)
    top = n // 2 + 1 if bound else n + 1     # levels from top on wait for all those below
    first = cp.cuda.get_current_stream()
    streams = [first]
    below = {}       # level -> the first part's event after its levels below it (done: after all)
    acc = {"tiles_loaded": 0, "blocks": 0, "bytes_moved": 0}

    def launch(s, h, t, ok, lo, hi, stream):
        count_h = hi - lo
        cfg = launch_config("odp_tile_kernel", block=block, highs=count_h, h=h, t=t, low_bits=b,
                            tiles=tiles, itemsize=item)
        grid, m = cfg["grid"], cfg["low_coalitions"]
        kern((grid,), (cfg["block"],), (f, high_all[int(high_off[h]) + lo:], np.int32(cfg["chunks"]),
                                 np.int32(cfg["per"]), np.int32(n), np.int32(b), np.int32(s),
                                 np.int32(h), np.int32(r == 2), bypop, cnt_le, tasks, task_off,
                                 np.int32(cfg["group"])),
             shared_mem=cfg["shared_bytes"], stream=stream)
        loaded = count_h * ok
        acc["tiles_loaded"] += loaded
        acc["blocks"] += grid
        acc["bytes_moved"] += loaded * 2 * int(cnt_le_h[t]) * item + grid * m * item

    level = end = None
    later = []
    for entry in odp_plan(n, b, r, rest is not None):
        part, s, h, t, ok, lo, hi = entry
        if s >= top:
            later.append(entry)
            continue
        if (part, s) != level:
            if end is not None:
                end.record(streams[-1])
            if part == len(streams):   # the second part: its table has arrived, its stream
                done = streams[0].record()
                rest()
                streams.append(cp.cuda.Stream(non_blocking=True))
            stream = streams[part]
            if part:
                stream.wait_event(below.get(s, done))
            elif rest is not None:
                below[s] = stream.record()
            end = _level_events(cp, events, s, stream)
            level = (part, s)
        launch(s, h, t, ok, lo, hi, stream)
    if end is not None:
        end.record(streams[-1])
    if len(streams) > 1:
        first.wait_event(streams[1].record())   # what follows comes after both parts
    elif rest is not None:
        rest()
    tiled = set(range(2, min(top, n + 1)))
    found = {"level_splits": {}, "bounded": {}}
    state = {}
    for s in sorted({e[1] for e in later}):
        end = _level_events(cp, events, s, first)
        kept = odp_bound(cp, mod, f, v, n, s, b, bypop, cnt_le, state, r) if s < n else None
        if kept is None:
            tiled.add(s)
            for _, _, h, t, ok, lo, hi in (e for e in later if e[1] == s):
                launch(s, h, t, ok, lo, hi, first)
        else:
            count = int(kept.size)
            _launch_listed(mod, "report_kernel", f, kept, count, s, block, PER_THREAD["gpu_report"], (np.int32(1),),
                           stream=first)
            splits = count * ((1 << (s - 1)) - 1)
            found["level_splits"][s] = splits
            found["bounded"][s] = count
            acc["bytes_moved"] += (2 * splits + count) * item
        end.record(first)
    # counted once the GPU has its work (a statistic: host time, not on the GPU's path)
    iterations = sum(its for s in tiled for *_, its in odp_launches(n, b, s, r))
    return dict(acc, low_bits=b, tiles_per_block=int(tiles), iterations=int(iterations), **found)


def odp_bound(cp, mod, f, v, n, s, b, bypop, cnt_le, state, r):
    """The coalitions of level ``s`` (more than n/2 agents, below n) that an optimal partition
    may still need, as a device array of masks; None when the level should run in tiles.

    Under ODP such a coalition C is read only by the grand coalition's split {C, N \\ C}, and
    N \\ C, of fewer than n/2 agents, has its final value. Every f is the value of some
    partition, so the best split of the grand coalition with the table as it is, ``lb``
    (``split_max_kernel``), is a lower bound of the optimum; and f(C) is at most ``ub``, the best
    sum of the largest f of each size over the ways of writing s as a sum of sizes (the sizes'
    maxima come from ``size_max_kernel`` once, before the first bounded level: a part P of an
    optimal partition of C has v(P) <= f(P) <= the largest f of its size). A coalition with
    ``ub + f(N \\ C) < lb - tol`` cannot be part of an optimal partition, so it keeps its value
    and the grand coalition's split ignores it: exact, up to ``tol``, which covers the rounding
    of the sums (8 n ulps of |lb| + n R, R the largest magnitude a coalition's value may have per
    agent: of the sizes' maxima and of the single agents' values ``v``). The others are listed
    (``keep_kernel``), and report_kernel evaluates them; the level runs in tiles instead when
    they are more than :data:`LIST_SHARE` of it, or when their splits, weighted by
    :data:`LIST_SPLIT_COST`, outnumber the level's under ODP. ``state`` keeps the upper bounds
    between levels."""
    dtype = f.dtype

    def kern(name, *args):
        cfg = launch_config(name, n=n, low_bits=b, sms=gpu.sm_count())
        mod.get_function(name)((cfg["grid"],), (cfg["block"],), args)

    if "ub" not in state:
        m = cp.full(n + 1, -np.inf, dtype=dtype)
        kern("size_max_kernel", f, np.int32(b), bypop, cnt_le, m)
        top = m.get().astype(np.float64)
        ub = np.full(n + 1, -np.inf)
        ub[0] = 0.0
        for k in range(1, n + 1):
            ub[k] = max(ub[k - j] + top[j] for j in range(1, k + 1))
        per_agent = max([abs(top[k]) / k for k in range(1, n + 1) if np.isfinite(top[k])] +
                        [float(np.abs(v[1 << np.arange(n)]).max())])
        state.update(ub=ub, scale=n * per_agent)
    lb = cp.full(1, -np.inf, dtype=dtype)
    kern("split_max_kernel", f, np.int32(n), lb)
    lb_host = float(lb.get()[0])
    if not np.isfinite(lb_host) or not np.isfinite(state["ub"][s]):
        return None
    tol = 8 * n * float(np.finfo(dtype).eps) * (abs(lb_host) + state["scale"])
    size = math.comb(n, s)
    cap = max(1, int(size * LIST_SHARE))
    keep = cp.empty(cap, dtype=cp.uint32)
    count = cp.zeros(1, dtype=cp.uint64)
    kern("keep_kernel", f, np.int32(n), np.int32(s), dtype.type(state["ub"][s]), lb, dtype.type(tol), keep,
         np.uint64(cap), count)
    kept = int(count.get()[0])
    if kept > cap or kept * ((1 << (s - 1)) - 1) * LIST_SPLIT_COST >= serial.level_splits(n, serial.RULES[r])[s]:
        return None
    return keep[:kept]


# ------------------------------------------------------------------- ODP tiles on several GPUs

#: bytes of each peer's table a device copies at once when the tables are merged after a level
EXCHANGE_BYTES = 1 << 30


def odp_multi(v, devices=None, rule="odp", block=None, low_bits=None, tiles_per_block=None):
    """The version ``gpu_odp_multi``: :func:`odp` on several GPUs of this machine.

    ``devices``: how many GPUs (the first ones), or a list of device ids; default every
    visible GPU (one GPU runs the same code, with nothing to exchange). Every GPU holds the
    whole table f. At each coalition size, the high masks of every launch of :func:`odp` are
    split into one contiguous share per GPU, and each GPU launches the same kernel, with the
    same arguments, on its share: it updates only the coalitions whose high part it owns.
    Then the tables are merged before the next size: each GPU copies the others' tables from
    their memory (peer to peer where the GPUs allow it) in pieces of :data:`EXCHANGE_BYTES`
    and keeps the larger value of each entry. That is exact: the entries a GPU did not own
    are equal on every GPU (final from the earlier sizes, or still v), and the DP only ever
    raises an entry. The partition is rebuilt on the first GPU as by :func:`odp`. Every level
    runs in tiles: :func:`odp`'s bound (:func:`odp_bound`) is not applied here.

    Stats add ``devices``, ``peer_access`` (whether every pair of GPUs reads the other's
    memory directly), ``compute_ms`` and ``exchange_ms`` (wall clock, summed over the sizes)
    and ``exchanged_bytes``; ``kernel_ms`` is the compute part, ``ms_per_level`` both.
    """
    return run_multi(v, _agents(v), devices=devices, rule=rule, block=block, low_bits=low_bits,
                     tiles_per_block=tiles_per_block)


def device_ids(devices=None) -> list:
    """The GPUs ``gpu_odp_multi`` runs on: ``devices`` (a count of the first GPUs, or ids),
    every visible GPU by default. ValueError for a count or an id that is not there."""
    cp = gpu.require()
    count = int(cp.cuda.runtime.getDeviceCount())
    if devices is None:
        return list(range(count))
    if isinstance(devices, (int, np.integer)) and not isinstance(devices, bool):
        if not 1 <= devices <= count:
            raise ValueError(f"devices must be in 1..{count} (the GPUs visible), got {devices}")
        return list(range(int(devices)))
    ids = [int(d) for d in devices] if isinstance(devices, (list, tuple)) else None
    if not ids or len(set(ids)) != len(ids) or any(not 0 <= d < count for d in ids):
        raise ValueError(f"devices must be a count or distinct ids in 0..{count - 1}, got {devices!r}")
    return ids


def _peer_access(cp, ids) -> bool:
    """Let every GPU of ``ids`` read the others' memory; True when every pair can."""
    rt = cp.cuda.runtime
    every = True
    for d in ids:
        with cp.cuda.Device(d):
            for o in ids:
                if o == d:
                    continue
                if not rt.deviceCanAccessPeer(d, o):
                    every = False      # copies between them then go through the host
                    continue
                try:
                    rt.deviceEnablePeerAccess(o)
                except rt.CUDARuntimeError:   # already enabled (by CuPy or an earlier call)
                    pass
    return every


def _share(count: int, parts: int, i: int) -> tuple[int, int]:
    """The ``i``-th of ``parts`` contiguous, nearly equal shares of ``count`` items."""
    q, r = divmod(count, parts)
    lo = i * q + min(i, r)
    return lo, lo + q + (i < r)


def _merge_tables(cp, devs, chunk_items: int) -> int:
    """Make every device's table the entrywise max of all of them; returns the bytes copied.
    Piece by piece: each device copies the piece of every other table into its buffers, all
    wait, then each keeps the max (no device reads a piece another is changing)."""
    size = devs[0]["f"].size
    item = devs[0]["f"].dtype.itemsize
    copied = 0
    for lo in range(0, size, chunk_items):
        hi = min(size, lo + chunk_items)
        for d in devs:
            with cp.cuda.Device(d["id"]):
                for j, o in enumerate(x for x in devs if x is not d):
                    d["bufs"][j][:hi - lo].data.copy_from_device_async(o["f"][lo:hi].data, (hi - lo) * item)
                    copied += (hi - lo) * item
        _sync(cp, devs)
        for d in devs:
            with cp.cuda.Device(d["id"]):
                piece = d["f"][lo:hi]
                for buf in d["bufs"]:
                    cp.maximum(piece, buf[:hi - lo], out=piece)
        _sync(cp, devs)
    return copied


def _sync(cp, devs) -> None:
    for d in devs:
        with cp.cuda.Device(d["id"]):
            cp.cuda.Device(d["id"]).synchronize()


def run_multi(v, n, devices=None, rule="odp", block=None, low_bits=None, tiles_per_block=None,
              exchange_bytes: int | None = None):
    """:func:`odp_multi` on the validated value function ``v`` (``2**n`` values): the same
    uploads on every GPU (:func:`_multi_devices`), the sizes in turn, each split between the
    GPUs and merged (:func:`_multi_levels`), then the rebuild on the first GPU."""
    t0 = time.perf_counter()
    cp = gpu.require()
    serial.check_rule(rule)
    opts = check_options(block=block, low_bits=low_bits, tiles_per_block=tiles_per_block, devices=devices)
    ids = device_ids(devices)
    b = _low_bits(v, n, low_bits)
    chunk_items = max(1, min(len(v), (exchange_bytes or EXCHANGE_BYTES) // v.dtype.itemsize))
    peer = _peer_access(cp, ids) if len(ids) > 1 else True
    layout = _tile_layout(n, b)
    devs = _multi_devices(cp, v, ids, layout, chunk_items)
    t1 = time.perf_counter()
    work = _multi_levels(cp, devs, n, b, rule, opts["block"], opts["tiles_per_block"], layout, chunk_items)
    first = devs[0]
    with cp.cuda.Device(first["id"]):
        with gpu.CudaTimer() as rb:
            partition = _rebuild(cp, first["mod"], first["f"], v, n)
        table_value = first["f"][-1].get()[()]
        names = sorted({_name_of(cp, d["id"]) for d in devs})
    t2 = time.perf_counter()
    splits = sum(serial.level_splits(n, rule).values())
    stats = {"device": f"{len(devs)} x {names[0]}" if len(names) == 1 else "; ".join(names),
             "block": opts["block"], "prepare_ms": (t1 - t0) * 1e3, "exec_ms": (t2 - t1) * 1e3,
             "kernel_ms": work["compute_ms"], "rebuild_ms": rb.ms, "devices": len(devs), "device_ids": list(ids),
             "peer_access": bool(peer), "low_bits": b, "tiles_per_block": int(opts["tiles_per_block"]),
             "splits": splits, **work}
    stats["splits_per_s"] = splits / max(work["compute_ms"], 1e-9) * 1e3
    stats["bytes_per_s"] = work["bytes_moved"] / max(work["compute_ms"], 1e-9) * 1e3
    for d in devs:     # free every device's table before the check below reads v again
        d.clear()
    return make_result(v, partition, table_value, "gpu_odp_multi", stats, rule=rule, t0=t0)


@functools.lru_cache(maxsize=None)
def low_tasks(b: int, extras: int = EXTRAS) -> tuple:
    """The low coalitions of every size t (masks of ``b`` agents) in tasks of ``odp_tile_kernel``:
    up to ``extras`` coalitions ``core | extra`` that share a core of t - 1 agents. Returns
    ``(rows, off)``: ``rows`` uint16, one row per task (the core, the count e, the e extras'
    masks, the coalitions' places among those of size t in increasing order, padded with 0),
    the tasks of size t at ``rows[off[t]:off[t + 1]]``, fullest first. Each coalition is in
    exactly one task. Built greedily: the core with the fewest free coalitions that still fills
    a task goes first, for tasks of ``extras`` coalitions, then fewer.

    >>> rows, off = low_tasks(3, 2)
    >>> rows[off[1]:off[2], :4].tolist()      # {0}, {1}, {2}: core {}, then 2 and 1 of them
    [[0, 2, 1, 2], [0, 1, 4, 0]]
    """
    rows, off = [], [0]
    for t in range(b + 1):
        if t == 0:
            tasks = [(0, [0])]                   # the empty coalition: its one split {}, {}
        else:
            cls = [int(c) for c in masks_of_size(b, t)]
            place = {c: i for i, c in enumerate(cls)}
            free = set(cls)
            cores = [int(c) for c in masks_of_size(b, t - 1)]
            count = {c: b - (t - 1) for c in cores}
            tasks = []
            for want in range(min(extras, b - t + 1), 0, -1):
                heap = [(count[c], c) for c in cores if count[c] >= want]   # stale entries skipped
                heapq.heapify(heap)
                while heap:
                    k, core = heapq.heappop(heap)
                    if k != count[core] or k < want:
                        continue
                    take = [1 << a for a in range(b) if not core >> a & 1 and core | 1 << a in free][:extras]
                    for e in take:
                        cl = core | e
                        free.discard(cl)
                        for a in range(b):
                            if cl >> a & 1:
                                other = cl ^ 1 << a
                                count[other] -= 1
                                if count[other] >= want:
                                    heapq.heappush(heap, (count[other], other))
                    tasks.append((core, take))
            tasks.sort(key=lambda task: -len(task[1]))
        for core, take in tasks:
            pad = [0] * (extras - len(take))
            rows.append([core, len(take)] + take + pad + [place[core | e] if t else 0 for e in take] + pad)
        off.append(len(rows))
    return np.asarray(rows, dtype=np.uint16), np.asarray(off, dtype=np.int32)


def _tile_layout(n: int, b: int) -> dict:
    """What the tiles of :func:`odp` and every GPU of :func:`run_multi` need besides the table,
    computed on the host: the low masks by size (``bypop``), their counts up to each size
    (``cnt_le``), the tasks of each size (:func:`low_tasks`: ``tasks``, ``task_off``), the high
    masks of every size (``highs``, concatenated in ``all_highs`` at ``high_off``)."""
    pc_low = popcounts(b)
    highs = [masks_of_size(n - b, h) for h in range(n - b + 1)]
    tasks, task_off = low_tasks(b)
    return {"bypop": np.argsort(pc_low, kind="stable").astype(np.uint16),
            "cnt_le": np.cumsum(np.bincount(pc_low, minlength=b + 1)).astype(np.int32),
            "tasks": tasks, "task_off": task_off,
            "highs": highs, "high_off": np.concatenate([[0], np.cumsum([len(x) for x in highs])]),
            "all_highs": np.concatenate(highs)}


def _multi_devices(cp, v, ids, layout, chunk_items: int) -> list:
    """On every GPU of ``ids``: the module, the table, the tile layout and the buffers its
    merge copies the other tables into (one per other GPU)."""
    devs = []
    for d in ids:
        with cp.cuda.Device(d):
            mod = _module(v.dtype)
            devs.append(dict(id=d, mod=mod, kern=mod.get_function("odp_tile_kernel"), f=gpu.to_device(v),
                             bypop=gpu.to_device(layout["bypop"]), cnt_le=gpu.to_device(layout["cnt_le"]),
                             tasks=gpu.to_device(layout["tasks"]), task_off=gpu.to_device(layout["task_off"]),
                             high_all=gpu.to_device(layout["all_highs"]),
                             bufs=[cp.empty(chunk_items, dtype=v.dtype) for _ in range(len(ids) - 1)]))
    _sync(cp, devs)
    return devs


def _multi_levels(cp, devs, n, b, rule, block, tiles, layout, chunk_items) -> dict:
    """The sizes in turn: each launch of :func:`odp_launches` on every GPU's share of the high
    masks (:func:`_launch_share`), then the tables merged. Returns the counters and times."""
    r = serial.RULES.index(rule)
    acc = dict(tiles_loaded=0, blocks=0, iterations=0, bytes_moved=0)
    exchanged, compute_ms, exchange_ms, per_level = 0, 0.0, 0.0, {}
    for s in range(2, n + 1):
        ts = time.perf_counter()
        launched = False
        for h, t, ok, its in odp_launches(n, b, s, r):
            acc["iterations"] += its
            for i, d in enumerate(devs):
                lo, hi = _share(len(layout["highs"][h]), len(devs), i)
                if hi > lo:
                    _launch_share(cp, d, acc, n, b, s, h, t, ok, r, lo, hi - lo, block, tiles, layout)
                    launched = True
        if not launched:
            continue
        _sync(cp, devs)
        tc = time.perf_counter()
        if len(devs) > 1:
            exchanged += _merge_tables(cp, devs, chunk_items)
        te = time.perf_counter()
        compute_ms += (tc - ts) * 1e3
        exchange_ms += (te - tc) * 1e3
        per_level[s] = (te - ts) * 1e3
    return dict(acc, compute_ms=compute_ms, exchange_ms=exchange_ms, exchanged_bytes=int(exchanged),
                ms_per_level=per_level)


def _launch_share(cp, d, acc, n, b, s, h, t, ok, r, lo, count_h, block, tiles, layout) -> None:
    """One ``odp_tile_kernel`` launch on device ``d`` for its ``count_h`` high masks of size
    ``h`` from the ``lo``-th; adds its tiles, blocks and bytes to ``acc``."""
    item = d["f"].dtype.itemsize
    cfg = launch_config("odp_tile_kernel", block=block, highs=count_h, h=h, t=t, low_bits=b, tiles=tiles,
                        itemsize=item)
    grid, m = cfg["grid"], cfg["low_coalitions"]
    with cp.cuda.Device(d["id"]):
        d["kern"]((grid,), (cfg["block"],),
                  (d["f"], d["high_all"][int(layout["high_off"][h]) + lo:], np.int32(cfg["chunks"]),
                   np.int32(cfg["per"]), np.int32(n), np.int32(b), np.int32(s), np.int32(h),
                   np.int32(r == 2), d["bypop"], d["cnt_le"], d["tasks"], d["task_off"], np.int32(cfg["group"])),
                  shared_mem=cfg["shared_bytes"])
    loaded = count_h * ok
    acc["tiles_loaded"] += loaded
    acc["blocks"] += grid
    acc["bytes_moved"] += loaded * 2 * int(layout["cnt_le"][t]) * item + grid * m * item


def _name_of(cp, device_id: int) -> str:
    with cp.cuda.Device(device_id):
        return gpu.device_name()


# ------------------------------------------------------------------------------- rebuild

def _scatter(k: int, mask: int) -> int:
    out = 0
    while mask and k:
        low = mask & -mask
        if k & 1:
            out |= low
        k >>= 1
        mask ^= low
    return out


def _rebuild(cp, mod, f, v, n):
    """Algorithm 2 with the search for a split on the device (f never leaves it)."""
    kern = mod.get_function("find_split_kernel")
    found = cp.empty(1, dtype=cp.uint64)
    none = np.uint64(2**64 - 1)
    stack, parts = [(1 << n) - 1], []
    while stack:
        c = stack.pop()
        fc = f[c].get()[()]
        if bin(c).count("1") == 1 or fc == v[c]:
            parts.append(c)
            continue
        top = 1 << (c.bit_length() - 1)
        cm = c ^ top
        nsplit = 1 << (bin(c).count("1") - 1)
        found.fill(none)
        cfg = launch_config("find_split_kernel", splits=nsplit, sms=gpu.sm_count())
        kern((cfg["grid"],), (cfg["block"],), (f, np.uint32(c), np.uint32(cm), np.uint64(nsplit), fc, found))
        k = int(found.get()[0])
        if k == int(none):
            raise RuntimeError(f"no split of coalition {c:#b} adds up to its DP value {fc}")
        x = _scatter(k, cm)
        stack += [x, c ^ x]
    return sorted(parts)
