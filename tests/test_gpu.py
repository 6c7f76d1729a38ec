import subprocess
import sys

import numpy as np
import pytest

from gpualgo import gpu


def test_import_needs_no_cupy():
    # a fresh interpreter in which cupy cannot be imported at all
    code = ("import sys; sys.modules['cupy'] = None\n"
            "import gpualgo, gpualgo.gpu as g, gpualgo.results, gpualgo.bench, gpualgo.nbtools, gpualgo.plots\n"
            "assert not g.available(), 'cupy blocked but reported available'\n"
            "assert 'CuPy is not installed' in g.unavailable_reason()\n"
            "try:\n    g.require()\nexcept g.GPUUnavailableError as e:\n    print('raised', e)\n"
            "else:\n    raise SystemExit('require() did not raise')\n"
            "assert g.describe()['gpu'] is None\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "raised this variant needs a CUDA GPU" in out.stdout


def test_kernel_path_known_and_unknown():
    assert gpu.kernel_path("common.cuh").name == "common.cuh"
    with pytest.raises(ValueError, match="no kernel source"):
        gpu.kernel_path("no_such_kernel")


@pytest.mark.skipif(gpu.available(), reason="checks the no-GPU path")
def test_gpu_variant_without_gpu_raises():
    with pytest.raises(gpu.GPUUnavailableError, match="needs a CUDA GPU"):
        gpu.load_module("common.cuh")


# --- on a GPU -----------------------------------------------------------------------

REDUCTIONS_KERNEL = r'''
#include "common.cuh"
extern "C" __global__ void reductions(const double* x, int n, double* out_v, long long* out_i) {
    // one block; each thread folds a strided slice, then the block reduces
    double mn = 1e300, mx = -1e300, b = -1e300, s = -1e300, sum = 0.0;
    long long imn = 1LL << 62, imx = 1LL << 62, ib = 1LL << 62;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        double v = x[i];
        sum += v;
        if (v < mn) { mn = v; imn = i; }
        if (v > mx) { mx = v; imx = i; }
        top2_merge(b, s, ib, v, -1e300, (long long)i);
    }
    block_argmin(mn, imn, 1e300, 1LL << 62);
    block_argmax(mx, imx, -1e300, 1LL << 62);
    block_top2(b, s, ib, -1e300, 1LL << 62);
    double total = block_sum(sum);
    double m2 = block_max(mx, -1e300);
    if (threadIdx.x == 0) {
        out_v[0] = mn; out_i[0] = imn; out_v[1] = mx; out_i[1] = imx;
        out_v[2] = b; out_v[3] = s; out_i[2] = ib; out_v[4] = total; out_v[5] = m2;
    }
}

// One warp, integer keys (the overloads that take redux.sync where the GPU has it): lane l
// folds elements l, l + 32, ... of x; out[0..12]: max and min of x as long long, of its low
// words as int, unsigned and unsigned long long, the sums of the low words as int and
// unsigned, the warp_top2 of (x, element index).
extern "C" __global__ void int_reductions(const long long* x, int n, long long* out) {
    long long mx = -(1LL << 62), mn = 1LL << 62, b = -(1LL << 62), s = -(1LL << 62);
    int imx = -2147483647 - 1, imn = 2147483647, ib = 0x7fffffff;
    unsigned umx = 0, umn = 0xffffffffu, usum = 0;
    unsigned long long ullmx = 0, ullmn = ~0ull;
    for (int i = threadIdx.x; i < n; i += 32) {
        const long long v = x[i];
        const int w = (int)v;
        const unsigned long long u = (unsigned long long)v;
        mx = v > mx ? v : mx; mn = v < mn ? v : mn;
        imx = w > imx ? w : imx; imn = w < imn ? w : imn;
        umx = (unsigned)w > umx ? (unsigned)w : umx; umn = (unsigned)w < umn ? (unsigned)w : umn; usum += (unsigned)w;
        ullmx = u > ullmx ? u : ullmx; ullmn = u < ullmn ? u : ullmn;
        top2_merge(b, s, ib, v, -(1LL << 62), i);
    }
    const int isum = warp_sum((int)usum);   // the lane's sum, wrapped like the warp's
    mx = warp_max(mx); mn = warp_min(mn); imx = warp_max(imx); imn = warp_min(imn);
    umx = warp_max(umx); umn = warp_min(umn); usum = warp_sum(usum);
    ullmx = warp_max(ullmx); ullmn = warp_min(ullmn);
    warp_top2(b, s, ib);
    if (threadIdx.x == 0) {
        out[0] = mx; out[1] = mn; out[2] = imx; out[3] = imn; out[4] = isum; out[5] = umx; out[6] = umn;
        out[7] = usum; out[8] = (long long)ullmx; out[9] = (long long)ullmn; out[10] = b; out[11] = s; out[12] = ib;
    }
}
'''


@pytest.mark.gpu
def test_describe_and_timer():
    info = gpu.describe()
    assert info["gpu"] and info["sms"] > 0 and info["memory_gib"] > 0
    cp = gpu.require()
    x = cp.arange(1 << 22, dtype=cp.float64)
    with gpu.CudaTimer() as t:
        y = (x * 2).sum()
    assert float(y) == float((np.arange(1 << 22, dtype=np.float64) * 2).sum())
    assert 0 < t.ms < 10_000


@pytest.mark.gpu
def test_median_ms_and_the_measured_peaks():
    cp = gpu.require()
    calls = []
    small, large = cp.ones(1 << 20, cp.float32), cp.ones(1 << 26, cp.float32)
    ms_small = gpu.median_ms(lambda: calls.append(cp.copyto(cp.empty_like(small), small)), repeat=7, warmup=3)
    assert len(calls) == 10 and 0 < ms_small
    assert gpu.median_ms(lambda: cp.copyto(cp.empty_like(large), large), repeat=5) > ms_small   # 64x the bytes
    assert 1e10 < gpu.copy_bandwidth(1 << 28, reps=3) < 1e14           # bytes/s, read + written
    assert 1e11 < gpu.int_throughput(256, reps=3) < 1e15              # multiply-adds/s


@pytest.mark.gpu
@pytest.mark.parametrize("threads", [32, 64, 256, 1024])
def test_block_reductions_match_numpy(rng, threads):
    cp = gpu.require()
    mod = cp.RawModule(code=REDUCTIONS_KERNEL, options=("-std=c++17", f"-I{gpu.kernel_path('common.cuh').parent}"))
    kern = mod.get_function("reductions")
    for n in (1, 5, threads - 1, threads * 3 + 7, 5000):
        # small integer values: many ties, so the lowest-index rule is exercised
        x = rng.integers(-20, 20, size=n).astype(np.float64)
        out_v, out_i = cp.zeros(6), cp.zeros(3, dtype=cp.int64)
        kern((1,), (threads,), (cp.asarray(x), np.int32(n), out_v, out_i))
        v, i = out_v.get(), out_i.get()
        order = np.sort(x)[::-1]
        assert (v[0], i[0]) == (x.min(), np.argmin(x))
        assert (v[1], i[1]) == (x.max(), np.argmax(x))
        assert v[2] == order[0] and i[2] == np.argmax(x)
        assert v[3] == (order[1] if n > 1 else -1e300)
        assert v[4] == x.sum() and v[5] == x.max()


@pytest.mark.gpu
@pytest.mark.parametrize("build", [(), ("-DGPUALGO_NO_REDUX",)], ids=["redux where the GPU has it", "shuffles"])
def test_integer_warp_reductions_match_numpy(rng, build):
    """common.cuh's integer overloads, with redux.sync (compute capability 8.0 and newer) and
    with the shuffles older GPUs take: the same answers, ties to the lowest index."""
    cp = gpu.require()
    mod = cp.RawModule(code=REDUCTIONS_KERNEL, options=("-std=c++17", f"-I{gpu.kernel_path('common.cuh').parent}")
                       + build)
    kern = mod.get_function("int_reductions")
    for n, lo, hi in ((1, -5, 5), (31, -3, 3), (32, -(1 << 40), 1 << 40), (100, -20, 20), (1000, -(1 << 62), 1 << 62),
                      (77, 0, 1 << 33), (64, -(1 << 33), 0)):
        x = rng.integers(lo, hi, size=n, dtype=np.int64)
        out = cp.zeros(13, dtype=cp.int64)
        kern((1,), (32,), (cp.asarray(x), np.int32(n), out))
        got = out.get()
        w = x.astype(np.int32)           # the low words, as the kernel's casts take them
        wu, u = w.view(np.uint32), x.view(np.uint64)
        usum = int(wu.sum(dtype=np.uint64)) & 0xFFFFFFFF
        order = np.sort(x)[::-1]
        want = [x.max(), x.min(), w.max(), w.min(), usum - (1 << 32) if usum >= 1 << 31 else usum,
                wu.max(), wu.min(), usum, _signed64(int(u.max())), _signed64(int(u.min())),
                order[0], order[1] if n > 1 else -(1 << 62), np.argmax(x)]
        assert [int(g) for g in got] == [int(v) for v in want], (n, lo, hi, build)


def _signed64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


@pytest.mark.gpu
def test_every_kernel_file_loads_with_nvrtc():
    for path in sorted(gpu.kernel_path("common.cuh").parent.glob("*.cu")):
        mod = gpu.load_module(path.stem)
        assert mod is gpu.load_module(path.stem)  # cached


@pytest.mark.gpu
@pytest.mark.parametrize("shape, dtype, convert", [
    ((gpu.PIN_BYTES // 4 + 12345,), np.float32, None),           # staged, a partial last chunk
    ((3 * gpu.STAGE_BYTES // 8 + 7, 3), np.int64, np.int32),       # staged, converted by the threads
    ((gpu.PIN_BYTES // 4 + 5,), np.float64, np.float32),           # staged only once converted
    ((gpu.PIN_BYTES // 8,), np.int32, np.int64),                   # widened
    ((1000, 17), np.float64, None),                                # below PIN_BYTES: one plain copy
])
def test_to_device_copies_every_byte(rng, shape, dtype, convert):
    a = (rng.random(shape) * 1e6).astype(dtype)
    a.flat[::977] *= -1
    want = a if convert is None else a.astype(convert)   # numpy's own conversion
    d = gpu.to_device(a, dtype=convert)
    assert d.dtype == want.dtype and d.shape == want.shape
    np.testing.assert_array_equal(d.get(), want)
    # in two parts, converted alike, the first part there before the rest
    first = want.size // 3 + 1
    d, rest = gpu.to_device_in_two(a, first, dtype=convert)
    np.testing.assert_array_equal(d.ravel()[:first].get(), want.ravel()[:first])
    rest()
    np.testing.assert_array_equal(d.get(), want)


@pytest.mark.gpu
@pytest.mark.parametrize("size, dtype, convert", [
    (gpu.STAGE_BYTES * 20 // 4 + 3, np.int64, np.int32),        # staged: the threads take the range
    (gpu.PIN_BYTES // 2 + 1, np.uint64, np.int32),              # staged, unsigned
    (gpu.PIN_BYTES // 4 + 9, np.int64, None),                   # staged, as it is
    (gpu.PIN_BYTES // 2 + 5, np.int16, np.int32),               # staged, widened
    (1000, np.int64, np.int32),                                 # below PIN_BYTES: one plain copy
])
def test_to_device_takes_the_range_of_the_values_as_given(rng, size, dtype, convert):
    a = rng.integers(-1000, 1000, size=size).astype(dtype)
    for at, value in ((size - 1, 2**40 + 7), (size // 2 + 1, 3), (0, 2**33)):
        b = a.copy()
        b[at] = value if dtype != np.int16 else -(value % 30000)   # beyond int32: wrapped by the conversion
        d, (lo, hi) = gpu.to_device(b, convert, value_range=True)
        assert (lo, hi) == (int(b.min()), int(b.max())) and type(lo) is int and type(hi) is int
        np.testing.assert_array_equal(d.get(), b.astype(convert or dtype))
    d, found = gpu.to_device(np.zeros(0, dtype), convert, value_range=True)
    assert found is None and d.size == 0
    with pytest.raises(ValueError, match="integer"):
        gpu.to_device(a.astype(np.float64), value_range=True)


@pytest.mark.parametrize("src, dst", [(np.int64, np.int32), (np.uint64, np.int32), (np.int32, np.int64),
                                      (np.int16, np.uint8), (np.uint32, np.int32)])
def test_hostcopy_converts_as_numpy_and_takes_the_range(rng, src, dst):
    from gpualgo import hostcopy
    a = rng.integers(-2**62, 2**62, size=1001).astype(src)     # wide values: every conversion wraps some
    out = np.empty(a.size, dst)
    lo, hi = hostcopy.checked_copy(a, out)
    np.testing.assert_array_equal(out, a.astype(dst))
    assert (int(lo), int(hi)) == (int(a.min()), int(a.max()))
    assert hostcopy.checked_copy(a[:0], out[:0]) is None
    with pytest.raises(ValueError, match="integer"):
        hostcopy.checked_copy(a.astype(np.float32), out)
    with pytest.raises(ValueError, match="one length"):
        hostcopy.checked_copy(a, out[:-1])


@pytest.mark.gpu
def test_warm_uploads_allocates_the_staging_buffers_once(rng):
    first = gpu.warm_uploads()                    # 0.0 when an earlier test already staged an upload
    staging = gpu._staging()
    assert first >= 0.0 and gpu.warm_uploads() == 0.0
    a = rng.random(gpu.PIN_BYTES // 8 + 3)
    np.testing.assert_array_equal(gpu.to_device(a).get(), a)
    assert gpu._staging() is staging and gpu._staging.cache_info().currsize == 1


@pytest.mark.gpu
def test_to_device_waits_for_work_queued_on_the_current_stream(rng):
    cp = gpu.require()
    spin = cp.RawKernel(r'''extern "C" __global__ void spin(long long cycles) {
        const long long t = clock64(); while (clock64() - t < cycles) {} }''', "spin")
    n = gpu.PIN_BYTES // 4 * 2                   # float32 integers below 2^24 are exact
    a = rng.random(n, dtype=np.float32)
    for _ in range(3):
        old = cp.arange(n, dtype=cp.float32)
        spin((1,), (1,), (np.int64(200_000_000),))   # about 0.1 s of work queued first
        total = old.sum(dtype=cp.float64)
        del old                                   # its memory goes back to the pool...
        d = gpu.to_device(a)                      # ...and the upload may get it while sum reads it
        assert float(total.get()) == n * (n - 1) / 2
        np.testing.assert_array_equal(d.get(), a)
