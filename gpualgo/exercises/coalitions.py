"""Exercises on the coalition-structure DP's kernels (``kernels/coalitions.cu``)."""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..coalitions import checks as co_checks
from ..coalitions import values as co_values
from .core import Case, Exercise, Failure, blocks, first_mismatch, padded_fill, register, seeded

DEFINES = {"VALUE_T": "float"}


def _solve_case(what, n, distribution, seed, **options):
    return Case(what, dict(values=co_values.random_values(n, distribution, seed=seed, dtype=np.float32),
                           options=options))


def _solve_run(mod, case):
    from ..coalitions import gpu as co_gpu
    with gpu.source_override("coalitions", mod.text):
        return co_gpu.report(case.data["values"], **case.data["options"])


def _solve_verify(case, got):
    from ..coalitions import serial as co_serial
    ref = co_serial.solve_dp(case.data["values"])
    try:
        co_checks.check_against_serial(got, ref)
    except (AssertionError, ValueError) as exc:
        raise Failure(f"the DP (gpu_report) with your code: {exc}") from None


# ------------------------------------------------------------------ coalitions.splits (tier 1)

register(Exercise(
    id="coalitions.splits", title="The splits of one coalition", tier=1,
    teaches="threads to data with a counter: each thread a range of splits of its coalition, its guards",
    file="coalitions.cu", module="coalitions", defines=DEFINES,
    signature=("extern \"C\" __global__ void report_kernel(value_t* f, const unsigned* coal, long long count,\n"
               "                                         int s, int per_thread, int group_log2, int visits)\n"
               "    // your code runs once for each of the `visits` coalitions this thread visits in turn\n"
               "    // above your code: valid (this thread has a coalition), c (its mask), cm (c without its\n"
               "    // top agent), nsplit = 2^(s-1), k = rank * per_thread (this thread's first counter),\n"
               "    // best = NEG_INF; below: the group's reduction of best into f[c]"),
    stub=("    // TODO: when this thread has a coalition and k < nsplit, evaluate the splits of\n"
          "    // counters k, k + 1, ... (per_thread of them, none at or past nsplit): counter k is\n"
          "    // the split X = scatter_bits(k, cm), Y = c ^ X, and the next counter's X is\n"
          "    // next_split(X, cm). Keep in best the largest f[X] + f[Y] over non-empty X (vmax).\n"),
    hints=(
        "`unsigned x = scatter_bits(k, cm);` then loop `per_thread` times while `k < nsplit`, advancing "
        "`x = next_split(x, cm)` and `++k`.",
        "Skip x == 0 (the empty split).",
    ),
    cases=lambda quick: [
        _solve_case("n=4, normal values, 1 split per thread", 4, "normal", 1, per_thread=1, block=32),
        _solve_case("n=7, uniform values, 4 splits per thread", 7, "uniform", 2, per_thread=4, block=64),
        _solve_case("n=9, NDCS values (negative ones), 2 splits per thread", 9, "ndcs", 3, per_thread=2, block=128),
    ],
    run=_solve_run, verify=_solve_verify,
    mistakes={
        "the split never advanced": ((
            "    if (valid && k < nsplit) {\n"
            "        unsigned x = scatter_bits(k, cm);\n"
            "        for (int r = 0; r < per_thread && k < nsplit; ++r, ++k) {\n"
            "            if (x) best = vmax(best, f[x] + f[c ^ x]);\n"
            "        }\n"
            "    }\n"), "value"),
    }))


# ------------------------------------------------------------------ coalitions.atomic_max (tier 2)

ATOMIC_DRIVER = r"""
// Thread t raises slots[t % nslots] to vals[t] (the check's driver: many threads per slot).
extern "C" __global__ void exercise_atomic_max_kernel(float* slots, int nslots, const float* vals, int count) {
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < count; t += gridDim.x * blockDim.x)
        atomic_max_value(slots + t % nslots, vals[t]);
}
"""


def _atomic_cases(quick):
    out = []
    for count, nslots, lo, hi, what in [(8, 2, 0, 10, "8 positive values, 2 slots"),
                                        (200000, 4, -100, 100, "200000 values of both signs on 4 slots"),
                                        (50000, 3, -50, -1, "50000 negative values on 3 slots"),
                                        (1, 1, 0, 1, "one value")]:
        rng = seeded("atomic", count, what)
        vals = rng.uniform(lo, hi, size=count).astype(np.float32)
        start = np.full(nslots, -np.inf if "negative" in what or "signs" in what else -1.0, np.float32)
        out.append(Case(what, dict(vals=vals, start=start)))
    out.append(_solve_case("the whole DP (gpu_report), n=8", 8, "normal", 4, per_thread=2, block=64))
    return out


def _atomic_run(mod, case):
    cp = gpu.require()
    d = case.data
    if "values" in d:
        return _solve_run(mod, case)
    slots = cp.asarray(d["start"])
    count = len(d["vals"])
    mod.get_function("exercise_atomic_max_kernel")((min(blocks(count, 256), 256),), (256,), (
        slots, np.int32(len(d["start"])), cp.asarray(d["vals"]), np.int32(count)))
    return slots.get()


def _atomic_verify(case, got):
    d = case.data
    if "values" in d:
        return _solve_verify(case, got)
    k = len(d["start"])
    exp = np.array([max(d["start"][s], d["vals"][s::k].max()) for s in range(k)], np.float32)
    hint = "every slot must end at the largest value any thread offered"
    if (got < exp).any():
        if (d["vals"] < 0).all():
            hint += ("; every value here is negative: negative floats do not order like their bits read as "
                     "signed integers (they order in reverse, as unsigned ones)")
        else:
            hint += ("; a smaller value won: updates were lost (a race? the read, the compare and the write "
                     "must be one atomic operation)")
    first_mismatch("slot", exp, got, ["s"], hint)


register(Exercise(
    id="coalitions.atomic_max", title="An atomic maximum on floats", tier=2,
    teaches="atomics on a shared maximum: why a read-compare-write races, and floats through integer atomics",
    file="coalitions.cu", module="coalitions", defines=DEFINES, driver=ATOMIC_DRIVER,
    signature="__device__ __forceinline__ void atomic_max_value(float* a, float v)",
    stub=("    // TODO: *a = max(*a, v), atomically: many threads call this on the same address at\n"
          "    // once. CUDA has no atomicMax for float; it has atomicMax / atomicMin for int and\n"
          "    // unsigned, and __float_as_int, __float_as_uint give a float's bits (v is never NaN).\n"
          "    (void)a; (void)v;\n"),
    hints=(
        "A non-negative float orders like its bits as a signed int: `atomicMax((int*)a, __float_as_int(v))`.",
        "A negative one orders in reverse as unsigned: `atomicMin((unsigned*)a, __float_as_uint(v))`; any "
        "negative pattern is above every non-negative one as unsigned.",
    ),
    cases=_atomic_cases, run=_atomic_run, verify=_atomic_verify,
    mistakes={
        "race on the shared maximum (a read, a compare, a plain store)": (
            "    if (v > *a) *a = v;\n", "race"),
        "an integer atomicMax for every sign": (
            "    atomicMax(reinterpret_cast<int*>(a), __float_as_int(v));\n", "negative"),
    }))


# ------------------------------------------------------------------ coalitions.warp_max (tier 2)

WARP_DRIVER = r"""
// Lanes in groups of `group`: group g reduces vals and publishes into f[g] (the check's driver).
extern "C" __global__ void exercise_group_max_kernel(const float* vals, int count, int group, float* f) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const bool valid = t < count;
    const float v = valid ? vals[t] : NEG_INF;
    reduce_and_publish(v, group, t & (group - 1), f, (unsigned)(t / group), valid);
}
"""


def _warp_cases(quick):
    out = []
    for count, group, what in [(32, 4, "groups of 4"), (1024, 16, "groups of 16"), (96, 2, "groups of 2"),
                               (500, 8, "groups of 8, some f[c] already larger than their group")]:
        rng = seeded("warpmax", count, group)
        vals = rng.normal(size=count).astype(np.float32)
        f = np.full(blocks(count, 32) * 32 // group, -np.inf, np.float32)
        if "larger" in what:
            f[::3] = 5.0
        out.append(Case(what, dict(vals=vals, group=group, f=f)))
    out.append(_solve_case("the whole DP (gpu_report), n=6, groups of 2 to 16 lanes", 6, "uniform", 5,
                           per_thread=1, block=64))
    return out


def _warp_run(mod, case):
    cp = gpu.require()
    d = case.data
    if "values" in d:
        return _solve_run(mod, case)
    f = cp.asarray(d["f"])
    count = len(d["vals"])
    mod.get_function("exercise_group_max_kernel")((blocks(count, 32),), (32,), (
        cp.asarray(d["vals"]), np.int32(count), np.int32(d["group"]), f))
    return f.get()


def _warp_verify(case, got):
    d = case.data
    if "values" in d:
        return _solve_verify(case, got)
    g = d["group"]
    vals = np.concatenate([d["vals"], np.full(len(d["f"]) * g - len(d["vals"]), -np.inf, np.float32)])
    exp = np.maximum(d["f"], vals.reshape(-1, g).max(axis=1))
    bad = np.flatnonzero(exp != got)
    hint = ""
    if bad.size:
        c = int(bad[0])
        lanes = vals[c * g:(c + 1) * g]
        if got[c] < exp[c] and got[c] == lanes.max():
            hint = (f"your group's maximum {got[c]} replaced the larger f[c] = {d['f'][c]} that was already "
                    "there: publish with the atomic maximum")
        elif got[c] < exp[c] and got[c] in lanes:
            hint = (f"the group's lanes held {np.round(lanes, 3).tolist()}: the reduction did not cover all "
                    f"{g} lanes (the shuffle offsets must run 1, 2, ... up to group / 2)")
        elif got[c] < exp[c]:
            hint = "f[c] was larger than every lane of the group and must stay: publish with the atomic maximum"
    first_mismatch("f", exp, got, ["c"], hint)


register(Exercise(
    id="coalitions.warp_max", title="The warp-shuffle maximum of a coalition's splits", tier=2,
    teaches="a reduction over a group of lanes with __shfl_xor_sync, its width, and one publisher per group",
    file="coalitions.cu", module="coalitions", defines=DEFINES, driver=WARP_DRIVER,
    signature=("__device__ __forceinline__ void reduce_and_publish(value_t best, long long group, int rank,\n"
               "                                                   value_t* f, unsigned c, bool valid)\n"
               "    // your code is the case group < 32 (a power of two): lanes 32k + group * q .. + group - 1\n"
               "    // hold the candidates of one coalition c; rank is a lane's place in its group"),
    stub=("    // TODO: reduce best over the `group` lanes of this coalition with __shfl_xor_sync\n"
          "    // (GPUALGO_FULL_MASK: every lane of the warp calls it), then ONE lane of the group\n"
          "    // raises f[c] to the maximum (atomic_max_value: other groups may write f[c] too),\n"
          "    // only when valid and the maximum is above NEG_INF.\n"),
    hints=(
        "`for (int o = 1; o < group; o <<= 1) best = vmax(best, __shfl_xor_sync(GPUALGO_FULL_MASK, best, o));`: "
        "log2(group) steps.",
        "Only `rank == 0` publishes, with `atomic_max_value(&f[c], best)`.",
    ),
    cases=_warp_cases, run=_warp_run, verify=_warp_verify,
    mistakes={
        "wrong reduction width (offsets up to group / 4)": ((
            "    for (int o = 1; o < group / 2; o <<= 1) best = vmax(best, __shfl_xor_sync(GPUALGO_FULL_MASK, best, o));\n"
            "    if (rank == 0 && valid && best > NEG_INF) atomic_max_value(&f[c], best);\n"), "did not cover"),
        "a plain store instead of the atomic maximum": ((
            "    for (int o = 1; o < group; o <<= 1) best = vmax(best, __shfl_xor_sync(GPUALGO_FULL_MASK, best, o));\n"
            "    if (rank == 0 && valid && best > NEG_INF) f[c] = best;\n"), "atomic maximum"),
    }))
