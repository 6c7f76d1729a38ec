"""Exercises on the push-relabel kernels (``kernels/maxflow.cu``)."""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..maxflow import checks as mf_checks
from ..maxflow import instances as mf_instances
from .core import Case, Exercise, Failure, blocks, first_mismatch, padded, padded_fill, register, seeded, unpad

# as gpualgo/maxflow/gpu.py compiles maxflow.cu: int capacities, tiles of 8 threads
DEFINES = {"CAP_T": "int", "TILE": 8}
OPTIONS = {"enable_cooperative_groups": True}


# ------------------------------------------------------------------ maxflow.gather (tier 1)

def _gather_cases(quick):
    out = []
    for n, block, what in [(5, 32, "5 vertices, one block of 32"), (100, 64, "100 vertices, 2 blocks of 64"),
                           (1, 32, "one vertex"), (333, 128, "333 vertices, 3 blocks of 128")]:
        rng = seeded("gather", n)
        deg = rng.integers(0, 5, size=n)
        offsets = np.concatenate([[0], np.cumsum(deg)]).astype(np.int32)
        heads = rng.integers(0, n, size=int(offsets[-1])).astype(np.int32)
        res = rng.integers(0, 100, size=(n, n)).astype(np.int32)
        out.append(Case(what, dict(n=n, offsets=offsets, heads=heads, res=res, block=block)))
    return out


def _gather_run(mod, case):
    cp = gpu.require()
    d = case.data
    n, block = d["n"], d["block"]
    grid = blocks(n, block)
    arcs = int(d["offsets"][-1])
    extra = grid * block - n + 1           # threads past the last vertex see empty ranges...
    offsets = np.concatenate([d["offsets"], arcs + np.arange(1, extra + 1)]).astype(np.int32)  # ...of one arc each
    heads = np.concatenate([d["heads"], np.zeros(extra, np.int32)])
    res = np.concatenate([d["res"].ravel(), np.zeros((extra + 1) * n, np.int32)])
    out = padded(cp, np.full(arcs, padded_fill(np.int32), np.int32))
    mod.get_function("matrix_gather_kernel")((grid,), (block,), (
        np.int32(n), cp.asarray(offsets), cp.asarray(heads), cp.asarray(res), out))
    return unpad("out", out, arcs)


def _gather_verify(case, got):
    d = case.data
    tails = np.repeat(np.arange(d["n"]), np.diff(d["offsets"]))
    first_mismatch("out", d["res"][tails, d["heads"]], got, ["arc"],
                   "arc a of vertex x (offsets[x] <= a < offsets[x + 1]) gets res[x * n + heads[a]]")


register(Exercise(
    id="maxflow.gather", title="Gather the residual capacities of the arcs", tier=1,
    teaches="one thread per vertex over a CSR layout, the bounds guard, the grid-stride loop",
    file="maxflow.cu", module="maxflow", defines=DEFINES, module_options=OPTIONS,
    signature=("extern \"C\" __global__ void matrix_gather_kernel(int n, const int* offsets, const int* heads,\n"
               "                                                const cap_t* res, cap_t* out)"),
    stub=("    // TODO: for every vertex x < n (the grid may be smaller or larger than n), and every\n"
          "    // arc a of x (offsets[x] <= a < offsets[x + 1]), out[a] = res[x * n + heads[a]]\n"
          "    // (res is the n x n residual matrix, row-major; use a size_t for x * n).\n"),
    hints=(
        "The same grid-stride loop as in the TSP's first exercise, over the vertices.",
        "Cast before multiplying: `(size_t)x * n`.",
    ),
    cases=_gather_cases, run=_gather_run, verify=_gather_verify,
    mistakes={
        "missing bounds guard": ((
            "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    for (int a = offsets[x]; a < offsets[x + 1]; ++a) out[a] = res[(size_t)x * n + heads[a]];\n"),
         "bounds guard"),
    }))


# ------------------------------------------------------------------ maxflow.queue_slot (tier 2)

QUEUE_DRIVER = r"""
// Every flagged vertex appends itself to the queue with queue_slot (the check's driver).
extern "C" __global__ void exercise_queue_kernel(const int* flags, int n, int* queue, int* counter) {
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x)
        if (flags[v]) queue[queue_slot(counter)] = v;
}
"""


def _queue_cases(quick):
    out = []
    for n, share, what in [(40, 1.0, "40 vertices, all queued"), (1000, 0.3, "1000 vertices, 30% queued"),
                           (1, 1.0, "one vertex"), (5000, 0.05, "5000 vertices, 5% queued"),
                           (64, 0.0, "none queued")]:
        flags = (seeded("queue", n, share).random(n) < share).astype(np.int32)
        out.append(Case(what, dict(flags=flags)))
    return out


def _queue_run(mod, case):
    cp = gpu.require()
    flags = case.data["flags"]
    n = len(flags)
    queue = padded(cp, np.full(n, padded_fill(np.int32), np.int32), pad=max(4096, n))
    counter = cp.zeros(1, np.int32)
    mod.get_function("exercise_queue_kernel")((blocks(n, 128),), (128,), (cp.asarray(flags), np.int32(n), queue,
                                                                         counter))
    count = int(counter.get()[0])
    return count, queue.get()


def _queue_verify(case, got):
    flags = case.data["flags"]
    count, queue = got
    want = np.flatnonzero(flags)
    if count != want.size:
        raise Failure(f"the counter says {count} entries, {want.size} vertices were queued: the counter must "
                      "grow by the number of threads that enqueue (g.size() for a group)")
    q = queue[:count]
    written = q[q != padded_fill(np.int32)]
    if written.size < count or np.unique(written).size < written.size:
        vals, cnt = np.unique(written, return_counts=True)
        twice = vals[cnt > 1]
        raise Failure(f"{count - written.size} slots of the queue were never written"
                      + (f" and vertex {int(twice[0])} took {int(cnt[cnt > 1][0])} slots" if twice.size else "")
                      + ": each thread needs its own slot (the leader's base, broadcast, plus its rank)")
    if sorted(written) != sorted(want):
        raise Failure(f"the queue holds {sorted(written)[:8]}..., expected the flagged vertices {list(want[:8])}...")
    if (queue[count:] != padded_fill(np.int32)).any():
        raise Failure("a slot past the counter was written: slots must be base .. base + g.size() - 1")


register(Exercise(
    id="maxflow.queue_slot", title="Queue slots with one atomic per group", tier=2,
    teaches="warp-aggregated atomics: cooperative groups, a leader's atomicAdd, a shuffle broadcast",
    file="maxflow.cu", module="maxflow", defines=DEFINES, module_options=OPTIONS, driver=QUEUE_DRIVER,
    signature="__device__ __forceinline__ int queue_slot(int* counter)",
    stub=("    // TODO: return a slot of its own to every calling thread: the queue's length is\n"
          "    // *counter. The threads that call together (cg::coalesced_threads()) take their\n"
          "    // slots with ONE atomicAdd made by one of them, then share its result.\n"
          "    return 0;\n"),
    hints=(
        "`cg::coalesced_group g = cg::coalesced_threads();` is the group of threads that called together; "
        "`g.thread_rank()`, `g.size()`.",
        "The leader (`g.thread_rank() == 0`) does `atomicAdd(counter, g.size())`; `g.shfl(base, 0)` gives "
        "its result to everyone.",
    ),
    cases=_queue_cases, run=_queue_run, verify=_queue_verify,
    mistakes={
        "the leader's base not broadcast": ((
            "    cg::coalesced_group g = cg::coalesced_threads();\n"
            "    int base = 0;\n"
            "    if (g.thread_rank() == 0) base = atomicAdd(counter, (int)g.size());\n"
            "    return base + (int)g.thread_rank();\n"), "slot"),
        "the counter advanced by one per group": ((
            "    cg::coalesced_group g = cg::coalesced_threads();\n"
            "    int base = 0;\n"
            "    if (g.thread_rank() == 0) base = atomicAdd(counter, 1);\n"
            "    return g.shfl(base, 0) + (int)g.thread_rank();\n"), "counter"),
    }))


# ------------------------------------------------------------------ maxflow.push_relabel (tier 3)

PUSH_DRIVER = r"""
// Vertex x = t (t < count) pushes to, or relabels above, ys[t] (the check's driver).
extern "C" __global__ void exercise_push_kernel(int count, int n, cap_t* excess, int* height, cap_t* res_xy,
                                                cap_t* res_yx, const int* ys, const int* hxs, const int* hmins,
                                                int* pushed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    pushed[t] = push_or_relabel(t, n, excess, height, res_xy + t, res_yx + t, ys[t], hxs[t], hmins[t]);
}
"""


def _push_cases(quick):
    out = []
    for count, what in [(4, "4 vertices: pushes and relabels"), (3000, "3000 vertices pushing into 3 neighbours"),
                        (50, "relabels next to the top height n")]:
        rng = seeded("push", count)
        n = count + 3
        hx = rng.integers(1, n, size=count).astype(np.int32)
        hmin = (hx - rng.integers(-2, 2, size=count)).clip(0, n).astype(np.int32)
        if "top" in what:
            hmin[:] = n - rng.integers(0, 2, size=count)
            hx[:] = n - 1
        if "pushing" in what:
            hmin = (hx - 1).clip(0).astype(np.int32)
            hx = np.maximum(hx, 1).astype(np.int32)
            hmin = (hx - 1).astype(np.int32)
        out.append(Case(what, dict(n=n, count=count, hx=hx, hmin=hmin,
                                   ys=rng.integers(count, n, size=count).astype(np.int32),
                                   excess=rng.integers(0, 50, size=n).astype(np.int32),
                                   res_xy=rng.integers(0, 50, size=count).astype(np.int32),
                                   res_yx=rng.integers(0, 50, size=count).astype(np.int32))))
    out.append(Case("the whole gpu_bcsr solve on a random graph of 60 vertices",
                    dict(net=mf_instances.random_gnp(60, 0.15, seed=4))))
    out.append(Case("the whole gpu_bcsr solve on a 6 x 8 grid",
                    dict(net=mf_instances.vision_grid(6, 8, seed=5))))
    return out


def _push_run(mod, case):
    cp = gpu.require()
    d = case.data
    if "net" in d:
        from ..maxflow import gpu as mf_gpu
        with gpu.source_override("maxflow", mod.text):
            return mf_gpu.gpu_bcsr(d["net"])
    count, n = d["count"], d["n"]
    excess, height = cp.asarray(d["excess"]), cp.asarray(np.concatenate([d["hx"], np.zeros(3, np.int32)]))
    res_xy, res_yx = cp.asarray(d["res_xy"]), cp.asarray(d["res_yx"])
    pushed = padded(cp, np.full(count, padded_fill(np.int32), np.int32))
    mod.get_function("exercise_push_kernel")((blocks(count, 128),), (128,), (
        np.int32(count), np.int32(n), excess, height, res_xy, res_yx, cp.asarray(d["ys"]), cp.asarray(d["hx"]),
        cp.asarray(d["hmin"]), pushed))
    return dict(excess=excess.get(), height=height.get()[:count], res_xy=res_xy.get(), res_yx=res_yx.get(),
                pushed=unpad("pushed", pushed, count))


def _push_verify(case, got):
    d = case.data
    if "net" in d:
        try:
            mf_checks.check_result(got, mf_checks.reference_value(d["net"]))
        except (AssertionError, ValueError) as exc:
            raise Failure(f"the flow of gpu_bcsr with your push_or_relabel: {exc}") from None
        return
    n, count = d["n"], d["count"]
    excess, height = d["excess"].astype(np.int64), d["hx"].copy()
    res_xy, res_yx = d["res_xy"].copy(), d["res_yx"].copy()
    pushed = np.zeros(count, np.int32)
    for x in range(count):
        if d["hmin"][x] < d["hx"][x]:
            delta = min(int(d["excess"][x]), int(res_xy[x]))
            res_xy[x] -= delta
            res_yx[x] += delta
            excess[x] -= delta
            excess[d["ys"][x]] += delta
            pushed[x] = 1
        else:
            height[x] = min(int(d["hmin"][x]) + 1, n)
    first_mismatch("pushed (1 push, 0 relabel)", pushed, got["pushed"], ["x"], "a push when hmin < hx, else a relabel")
    first_mismatch("height", height, got["height"], ["x"], f"a relabel sets height[x] = min(hmin + 1, n), n = {n}")
    first_mismatch("res_xy", res_xy, got["res_xy"], ["x"], "a push moves d = min(excess[x], *res_xy)")
    first_mismatch("res_yx", res_yx, got["res_yx"], ["x"])
    ys = sorted(set(d["ys"].tolist()))
    first_mismatch("excess", excess, got["excess"].astype(np.int64), ["vertex"],
                   f"vertices {ys[:3]}... receive pushes from many threads at once: are the additions atomic?")


register(Exercise(
    id="maxflow.push_relabel", title="Push or relabel one vertex", tier=3,
    teaches="the algorithm step of push-relabel, and atomics where several threads update one vertex",
    file="maxflow.cu", module="maxflow", defines=DEFINES, module_options=OPTIONS, driver=PUSH_DRIVER,
    signature=("__device__ __forceinline__ int push_or_relabel(int x, int n, cap_t* excess, int* height,\n"
               "                                               cap_t* res_xy, cap_t* res_yx, int y,\n"
               "                                               int hx, int hmin)"),
    stub=("    // TODO: x is active with height hx; its lowest residual neighbour y has height hmin\n"
          "    // (through the arc whose residual capacity is *res_xy; *res_yx is the reverse arc).\n"
          "    // If hmin < hx, push d = min(excess[x], *res_xy) from x to y (both residuals and\n"
          "    // both excesses change; other threads push into y at the same time: cap_add adds\n"
          "    // atomically, ld_cap reads) and return 1. Otherwise relabel: height[x] = hmin + 1,\n"
          "    // but never above n, and return 0.\n"
          "    return 0;\n"),
    hints=(
        "Read with `ld_cap`, change with `cap_add` (an atomic add; a negative value subtracts).",
        "The relabel: `height[x] = hmin + 1 < n ? hmin + 1 : n;`.",
    ),
    cases=_push_cases, run=_push_run, verify=_push_verify,
    mistakes={
        "race: a plain += on the neighbour's excess": ((
            "    if (hmin < hx) {\n"
            "        cap_t e = ld_cap(excess + x);\n"
            "        cap_t r = ld_cap(res_xy);\n"
            "        cap_t d = e < r ? e : r;\n"
            "        cap_add(res_xy, -d);\n"
            "        cap_add(res_yx, d);\n"
            "        cap_add(excess + x, -d);\n"
            "        excess[y] += d;\n"
            "        return 1;\n"
            "    }\n"
            "    height[x] = hmin + 1 < n ? hmin + 1 : n;\n"
            "    return 0;\n"), "atomic"),
        "relabel above n": ((
            "    if (hmin < hx) {\n"
            "        cap_t e = ld_cap(excess + x);\n"
            "        cap_t r = ld_cap(res_xy);\n"
            "        cap_t d = e < r ? e : r;\n"
            "        cap_add(res_xy, -d);\n"
            "        cap_add(res_yx, d);\n"
            "        cap_add(excess + x, -d);\n"
            "        cap_add(excess + y, d);\n"
            "        return 1;\n"
            "    }\n"
            "    height[x] = hmin + 1;\n"
            "    return 0;\n"), "height"),
    }))
