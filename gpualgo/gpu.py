"""The GPU plumbing every algorithm shares.

CuPy is imported lazily, here and only here, so that ``import gpualgo`` and every
CPU path work on a machine with no CuPy or no GPU.  GPU code calls :func:`require`
to get the ``cupy`` module, and :func:`load_module` / :func:`get_kernel` to compile
the CUDA sources of ``gpualgo/kernels/`` (once per process, then cached).
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.resources
import os
import pathlib
import platform
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import guards

__all__ = [
    "GPUUnavailableError", "available", "unavailable_reason", "require", "describe",
    "kernel_path", "kernel_source", "source_override", "load_module", "get_kernel", "sm_count", "resident_blocks",
    "device_name", "cpu_model", "cpu_label",
    "usable_bytes", "to_device", "to_device_in_two", "warm_uploads", "HOST_MEMORY", "HostBuffers", "CudaTimer", "median_ms", "copy_bandwidth", "int_throughput",
    "grid_barrier_us",
]


class GPUUnavailableError(RuntimeError):
    """A GPU variant was asked for, but CuPy or a CUDA device is missing."""


@functools.lru_cache(maxsize=None)
def _probe():
    """(cupy module or None, reason string or None); computed once per process."""
    try:
        import cupy  # noqa: F401
    except Exception as exc:  # ImportError, or a broken CUDA install
        return None, (f"CuPy is not installed ({type(exc).__name__}: {exc}); "
                      "install the extra matching your driver: pip install -e '.[cuda12]' or '.[cuda13]'")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return None, f"CuPy found no usable CUDA device ({type(exc).__name__}: {exc})"
    if count < 1:
        return None, "CuPy found no CUDA device"
    return cupy, None


def available() -> bool:
    """True when CuPy imports and at least one CUDA device is present."""
    return _probe()[0] is not None


def unavailable_reason() -> str | None:
    """Why :func:`available` is False (None when a GPU is available)."""
    return _probe()[1]


def require():
    """Return the ``cupy`` module, or raise :class:`GPUUnavailableError` saying why not."""
    cupy, reason = _probe()
    if cupy is None:
        raise GPUUnavailableError(f"this variant needs a CUDA GPU: {reason}")
    return cupy


def describe() -> dict:
    """Describe the GPU (name, compute capability, SMs, memory, driver, CUDA, CuPy).

    Without a GPU: ``{"gpu": None, "reason": ...}`` plus the host's CPU description,
    so that every recorded result says where it ran.
    """
    cupy = _probe()[0]
    return dict(_describe(cupy.cuda.Device().id if cupy is not None else -1))


@functools.lru_cache(maxsize=None)
def _describe(device_id: int) -> dict:
    # asking the driver for the properties costs about a millisecond: once per device
    info = {"host_cpu": cpu_model(), "python": platform.python_version()}
    cupy, reason = _probe()
    if cupy is None:
        info.update(gpu=None, reason=reason)
        return info
    rt = cupy.cuda.runtime
    dev = cupy.cuda.Device(device_id)
    props = rt.getDeviceProperties(dev.id)
    name = props["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)
    drv = rt.driverGetVersion()
    cuda_rt = rt.runtimeGetVersion()
    info.update(
        gpu=name,
        compute_capability=f"{props['major']}.{props['minor']}",
        sms=int(props["multiProcessorCount"]),
        memory_gib=round(props["totalGlobalMem"] / 2**30, 1),
        driver_cuda=f"{drv // 1000}.{drv % 1000 // 10}",
        cuda_runtime=f"{cuda_rt // 1000}.{cuda_rt % 1000 // 10}",
        cupy=cupy.__version__,
    )
    driver = _driver_version()
    if driver:
        info["driver"] = driver
    return info


def _driver_version() -> str | None:
    """The NVIDIA kernel driver's version (e.g. '580.159.04'), where Linux shows it."""
    try:
        text = pathlib.Path("/proc/driver/nvidia/version").read_text()
    except OSError:
        return None
    for word in text.split():
        parts = word.split(".")
        if len(parts) >= 2 and all(p.isdigit() for p in parts):
            return word
    return None


def sm_count() -> int:
    """Number of streaming multiprocessors of the current device."""
    require()
    return describe()["sms"]


def resident_blocks(kernel, block: int) -> int:
    """How many blocks of ``block`` threads of ``kernel`` (a CuPy ``RawKernel``) the whole GPU
    holds at once: the most a cooperative launch may have, since a grid barrier needs every
    block resident.  From the occupancy calculator; where CuPy cannot ask it, bounded by the
    kernel's registers and the threads of an SM."""
    cupy = require()
    try:
        per_sm = int(cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, block, 0))
    except Exception:
        try:
            per_sm = min(2048 // block, 65536 // (max(int(kernel.num_regs), 1) * block))
        except Exception:
            per_sm = 1
    return max(per_sm, 1) * sm_count()


def device_name() -> str:
    """Name of the current device, e.g. 'NVIDIA H100 80GB HBM3'."""
    require()
    return describe()["gpu"]


@functools.lru_cache(maxsize=None)
def cpu_model() -> str:
    """The host CPU's model name (``/proc/cpuinfo`` on Linux), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_label(threads: int = 1, engine: str = "numba") -> str:
    """How a CPU run names its device in results: ``"CPU <model> (1 core, numba)"``."""
    cores = "1 core" if threads == 1 else f"{threads} cores"
    return f"CPU {cpu_model()} ({cores}, {engine})"


def usable_bytes() -> int:
    """Bytes of GPU memory a run may allocate now: what the driver reports free plus the
    blocks CuPy's memory pool holds unused (a new allocation reuses them first).

    Raises :class:`GPUUnavailableError` without a GPU.
    """
    cupy = require()
    free, _total = cupy.cuda.runtime.memGetInfo()
    return int(free) + int(cupy.get_default_memory_pool().free_bytes())


#: host arrays of at least this many bytes go to the GPU through page-locked staging buffers; below,
#: a plain copy from pageable memory is faster (on the H100's host, medians of 9: 8 MB 1.32 ms
#: pageable against 2.20 ms staged; 16 MB 2.73 against 1.95; 512 MB 64.89 against 19.91)
PIN_BYTES = 16 << 20
#: the staging: host threads that copy an array into page-locked buffers, two buffers each of
#: STAGE_BYTES, allocated at the first large upload and kept for the process (128 MB with 16
#: threads). At n = 27 a coalition table (512 MB) took 18.6-24.3 ms staged by 8 threads of 8 MB on
#: the H100's host, against 41.7 ms to page-lock the array in place (19.5 ms), copy it (10.4 ms) and
#: release it (11.8 ms; the release waits for every running kernel, so it cannot be put off). The
#: host's copying is the limit there: 1 GiB took 22.8-25.9 ms copied by 16 threads from pageable to
#: pageable memory and 29.0-32.4 ms by 8, against 19.5-20.3 ms from page-locked memory to the GPU.
#: Staged by 16 threads of 4 MB it took 23.3-29.2 ms (a 2 GiB int64 matrix 44.7-46.2), by 8 threads
#: of 8 MB 30.8-33.0 ms (60.8-63.3) in the same run.
STAGE_THREADS = max(1, min(16, os.cpu_count() or 1))
STAGE_BYTES = 4 << 20


class _Staging:
    """The page-locked buffers and threads of :func:`to_device` (one per process, made lazily)."""

    def __init__(self, threads: int):
        rt = require().cuda.runtime
        self.threads, self.chunk = threads, STAGE_BYTES
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="gpualgo-upload")
        # flag 1 is cudaHostAllocPortable: page-locked for every device's context
        self.ptrs = [rt.hostAlloc(STAGE_BYTES, 1) for _ in range(2 * threads)]
        self.bufs = [np.frombuffer((ctypes.c_byte * STAGE_BYTES).from_address(p), dtype=np.uint8)
                     for p in self.ptrs]
        self.pending: list = []      # the last copy's futures: the next one waits for its buffers
        self.lock = threading.Lock()

    def start(self, src: np.ndarray, dst, lo: int = 0, hi: int | None = None, track: bool = False) -> list:
        """Start copying elements ``lo:hi`` (along the flattened arrays) of the C-contiguous
        host array ``src`` into the same elements of the device array ``dst``, converted to
        ``dst``'s dtype on the way (by the threads, chunk by chunk, as ``numpy.copyto`` with
        unsafe casting does); returns the threads' futures (each returns once its chunks have
        arrived, with ``track`` the smallest and largest value of ``src`` it copied, as given,
        or None when it copied none). Thread w takes chunks w, w + threads, ..., alternating
        its two buffers: it fills one while the other's copy to the device runs."""
        cupy = require()
        with self.lock:
            _wait(self.pending)
            self.pending = self._submit(cupy, src, dst, lo, hi, track)
            return self.pending

    def _submit(self, cupy, src, dst, lo, hi, track) -> list:
        flat = src.reshape(-1)
        size = dst.itemsize
        hi = flat.size if hi is None else hi
        # a copy of a few chunks is spread over every thread, in chunks of 1 MiB or more
        chunk = min(self.chunk, max(1 << 20, -(-(hi - lo) * size // self.threads))) // size
        starts = range(lo, hi, chunk)
        if track:
            from .hostcopy import checked_copy
        device = cupy.cuda.Device().id
        rt = cupy.cuda.runtime
        # dst may reuse memory that work queued on the current stream still uses: wait for it
        ready = cupy.cuda.get_current_stream().record()

        def work(w: int):
            seen = None
            with cupy.cuda.Device(device):
                stream = cupy.cuda.Stream(non_blocking=True)
                stream.wait_event(ready)
                done = [None, None]
                for i, first in enumerate(starts[w::self.threads]):
                    k = i & 1
                    if done[k] is not None:
                        done[k].synchronize()
                    count = min(chunk, hi - first)
                    buf = self.bufs[2 * w + k][:count * size].view(dst.dtype)
                    part = flat[first:first + count]
                    if track:        # one pass, the lock released: hostcopy.copy_with_range
                        low, high = checked_copy(part, buf)
                        seen = (low, high) if seen is None else (min(seen[0], low), max(seen[1], high))
                    else:
                        np.copyto(buf, part, casting="unsafe")
                    rt.memcpyAsync(dst.data.ptr + first * size, buf.ctypes.data, count * size,
                                   rt.memcpyHostToDevice, stream.ptr)
                    done[k] = stream.record()
                stream.synchronize()
            return seen

        return [self.pool.submit(work, w) for w in range(self.threads)]


def _wait(futures) -> list:
    """Wait for the threads' futures; returns their results, in order."""
    return [future.result() for future in futures]


@functools.lru_cache(maxsize=None)
def _staging() -> _Staging:
    return _Staging(STAGE_THREADS)


def warm_uploads() -> float:
    """Allocate the page-locked staging buffers of :func:`to_device` now, unless this process
    already has them, and return the milliseconds that took (0.0 when it had them).

    The first upload of :data:`PIN_BYTES` or more would otherwise pay for them: a cost a process
    pays once, as it pays the compilation of a kernel, which :func:`gpualgo.bench.warm_up` takes
    out of the timed runs the same way. Raises :class:`GPUUnavailableError` without a GPU.
    """
    require()
    if _staging.cache_info().currsize:
        return 0.0
    t0 = time.perf_counter()
    _staging()
    return (time.perf_counter() - t0) * 1e3


def to_device(a, dtype=None, value_range: bool = False):
    """Copy a host array to the GPU (C-contiguous, converted to ``dtype`` if given, as
    ``numpy.ascontiguousarray(a, dtype)`` would).

    An array of :data:`PIN_BYTES` or more (on the GPU) goes through page-locked staging
    buffers, filled by :data:`STAGE_THREADS` host threads while earlier chunks are on their
    way: a copy from page-locked memory runs at the bus's speed, one from pageable memory at
    about half of it. The threads also convert it, each its chunks, so a conversion costs no
    pass of its own over the array.

    ``value_range=True`` (integer arrays) returns ``(d, (lo, hi))``: the smallest and largest
    value of ``a`` as given, before any conversion (None for an empty array), taken by the same
    threads in the same pass as they copy (:mod:`gpualgo.hostcopy`), so that a caller can convert
    to a narrower type and still refuse the values it did not keep (a narrowing conversion keeps
    their low bits).
    """
    if value_range and np.asarray(a).dtype.kind not in "iu":
        raise ValueError(f"value_range=True takes an integer array, got {np.asarray(a).dtype}")
    d, rest = _upload(a, 0, dtype, value_range)
    seen = [r for r in rest() if r is not None]
    if not value_range:
        return d
    found = (int(min(r[0] for r in seen)), int(max(r[1] for r in seen))) if seen else None
    return d, found


def to_device_in_two(a, first: int, dtype=None):
    """:func:`to_device` in two parts, for a caller with work on the first part: returns
    ``(d, rest)`` once the first ``first`` elements (along the flattened array) are on the GPU;
    the others are copied meanwhile, and ``rest()`` returns once they have arrived. Kernels
    launched before ``rest()`` may use the first part only."""
    d, rest = _upload(a, first, dtype, False)

    def wait() -> None:
        rest()
    return d, wait


def _upload(a, first: int, dtype, track: bool):
    """:func:`to_device_in_two`, whose ``rest()`` returns the threads' ranges with ``track``
    (a list of ``(lo, hi)`` or None; one entry for an array copied in one piece)."""
    cupy = require()
    a = np.ascontiguousarray(a)
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    if a.size * dtype.itemsize < PIN_BYTES:
        if not track:
            return cupy.asarray(np.ascontiguousarray(a, dtype=dtype)), lambda: [None]
        # the staging threads' copy, so that a small array (a benchmark's warm-up) compiles
        # the same numba specialization as the large ones use
        from .hostcopy import checked_copy
        host = np.empty(a.shape, dtype)
        seen = [checked_copy(a.reshape(-1), host.reshape(-1))]
        return cupy.asarray(host), lambda: seen
    d = cupy.empty(a.shape, dtype)
    staging = _staging()
    cut = min(max(int(first), 0), a.size)
    head = _wait(staging.start(a, d, 0, cut, track)) if cut else []
    futures = staging.start(a, d, cut, None, track) if cut < a.size else []
    return d, lambda: head + _wait(futures)


#: the kinds of host memory :class:`HostBuffers` allocates
HOST_MEMORY = ("pageable", "pinned", "mapped")
#: cudaHostAlloc's flags (CUDA's cudaHostAllocDefault and cudaHostAllocMapped)
_HOST_ALLOC = {"pinned": 0, "mapped": 2}


class HostBuffers:
    """Host arrays in pageable, page-locked ("pinned") or mapped (zero-copy) memory, and their
    device side; the page-locked memory is freed when the ``with`` block ends (after the device
    has finished with it).

    - "pageable": a NumPy array; a copy to the GPU goes through the driver's own page-locked
      staging buffers.
    - "pinned": ``cudaHostAlloc`` memory; a copy is one DMA transfer.
    - "mapped": ``cudaHostAlloc`` with the mapped flag; nothing is copied: the device array
      is the same memory at its device address (``cudaPointerGetAttributes`` gives it, as
      ``cudaHostGetDevicePointer`` would), wrapped as a CuPy array over ``UnownedMemory``, so a
      kernel's every read, write or atomic on it crosses the PCIe bus (atomics are atomic
      between the GPU's threads, not against the host, which must not touch it meanwhile).
    """

    def __init__(self):
        self._ptrs: list[int] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._ptrs:
            rt = require().cuda.runtime
            rt.deviceSynchronize()
            for ptr in self._ptrs:
                rt.freeHost(ptr)
            self._ptrs.clear()
        return False

    def empty(self, shape, dtype, kind: str) -> np.ndarray:
        """An uninitialised host array in memory of ``kind`` (one of :data:`HOST_MEMORY`)."""
        guards.one_of(kind, "host memory", HOST_MEMORY)
        dtype = np.dtype(dtype)
        if kind == "pageable":
            return np.empty(shape, dtype)
        count = int(np.prod(shape))
        nbytes = max(count * dtype.itemsize, 1)
        ptr = require().cuda.runtime.hostAlloc(nbytes, _HOST_ALLOC[kind])
        self._ptrs.append(ptr)
        raw = (ctypes.c_byte * nbytes).from_address(ptr)
        return np.frombuffer(raw, dtype=dtype, count=count).reshape(shape)

    def host(self, a, kind: str) -> np.ndarray:
        """``a`` in host memory of ``kind`` (a C-contiguous copy; "pageable" keeps ``a`` itself
        when it already is one)."""
        a = np.asarray(a)
        if kind == "pageable":
            return np.ascontiguousarray(a)
        out = self.empty(a.shape, a.dtype, kind)
        out[...] = a
        return out

    def device(self, host: np.ndarray, kind: str):
        """The device side of ``host`` (from :meth:`host` or :meth:`empty` with the same ``kind``):
        a copy on the GPU, or for "mapped" the host memory itself at its device address."""
        cupy = require()
        if kind != "mapped":
            d = cupy.empty(host.shape, host.dtype)
            d.set(host)
            return d
        rt = cupy.cuda.runtime
        dptr = rt.pointerGetAttributes(host.ctypes.data).devicePointer
        mem = cupy.cuda.UnownedMemory(dptr, max(host.nbytes, 1), self, cupy.cuda.Device().id)
        return cupy.ndarray(host.shape, host.dtype, cupy.cuda.MemoryPointer(mem, 0))


def kernel_path(name: str) -> pathlib.Path:
    """Path of ``gpualgo/kernels/<name>.cu`` (``name`` may also end in ``.cuh``)."""
    fname = name if name.endswith((".cu", ".cuh")) else f"{name}.cu"
    path = pathlib.Path(str(importlib.resources.files("gpualgo.kernels") / fname))
    if not path.is_file():
        known = sorted(p.stem for p in path.parent.glob("*.cu"))
        raise ValueError(f"no kernel source {fname!r}; known: {known}")
    return path


def kernel_source(name: str) -> str:
    """Text of a kernel source file (see :func:`kernel_path`)."""
    return kernel_path(name).read_text()


#: kernel sources compiled instead of the files, by name (see :func:`source_override`)
_OVERRIDES: dict[str, str] = {}


@contextlib.contextmanager
def source_override(name: str, text: str):
    """Inside the block, :func:`load_module` compiles ``text`` instead of
    ``gpualgo/kernels/<name>.cu`` (the exercises' checks run a problem's own host code on a
    student's version of its kernels).  Each text is compiled once and cached like a file."""
    kernel_path(name)  # an unknown name is an error here, not at the first load
    old = _OVERRIDES.get(name)
    _OVERRIDES[name] = text
    try:
        yield
    finally:
        if old is None:
            _OVERRIDES.pop(name, None)
        else:
            _OVERRIDES[name] = old


@functools.lru_cache(maxsize=None)
def _load(name: str, code: str | None, defines: tuple, options: tuple, kwargs: tuple):
    cupy = require()
    path = kernel_path(name)
    opts = ("-std=c++17", f"-I{path.parent}") + tuple(f"-D{k}={v}" for k, v in defines) + options
    return cupy.RawModule(code=path.read_text() if code is None else code, options=opts, **dict(kwargs))


def load_module(name: str, defines: dict | None = None, options: tuple = (), **rawmodule_kwargs):
    """Compile ``gpualgo/kernels/<name>.cu`` with ``cupy.RawModule``, once per argument set.

    Parameters
    ----------
    name: kernel file name without ``.cu`` (e.g. ``"auction"``).
    defines: compile-time constants, ``{"BLOCK": 256}`` becomes ``-DBLOCK=256``.
    options: extra NVRTC options.
    rawmodule_kwargs: passed to ``cupy.RawModule`` (e.g. ``enable_cooperative_groups=True``).

    Raises :class:`GPUUnavailableError` without a GPU.
    """
    defs = tuple(sorted((defines or {}).items()))
    return _load(name, _OVERRIDES.get(name), defs, tuple(options), tuple(sorted(rawmodule_kwargs.items())))


def get_kernel(name: str, kernel: str, defines: dict | None = None, options: tuple = (), **rawmodule_kwargs):
    """The ``RawKernel`` called ``kernel`` from ``gpualgo/kernels/<name>.cu``."""
    return load_module(name, defines, options, **rawmodule_kwargs).get_function(kernel)


class CudaTimer:
    """Time a region of GPU work with CUDA events on the current stream.

    >>> with CudaTimer() as t:          # doctest: +SKIP
    ...     kernel(grid, block, args)
    >>> t.ms                            # doctest: +SKIP

    Leaving the block waits for the stop event, so ``t.ms`` is final.
    """

    def __init__(self, stream=None):
        self._cupy = require()
        self.stream = stream
        self.ms = float("nan")

    def __enter__(self):
        cuda = self._cupy.cuda
        self._start, self._stop = cuda.Event(), cuda.Event()
        self._start.record(self.stream)
        return self

    def __exit__(self, *exc):
        self._stop.record(self.stream)
        self._stop.synchronize()
        self.ms = self._cupy.cuda.get_elapsed_time(self._start, self._stop)
        return False


def median_ms(fn, repeat: int = 5, warmup: int = 1) -> float:
    """Median milliseconds of ``fn()`` (GPU work on the current stream) between two CUDA events
    (:class:`CudaTimer`), over ``repeat`` runs after ``warmup`` untimed ones (the first run also
    compiles and loads a module). The one timing loop of the peaks below and of the exercises."""
    cp = require()
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeat):
        with CudaTimer() as t:
            fn()
        times.append(t.ms)
    return float(np.median(times))


# ------------------------------------------------------------------ the device's measured peaks


def copy_bandwidth(nbytes: int = 1 << 30, reps: int = 5) -> float:
    """The device-to-device copy bandwidth, bytes per second (bytes read + bytes written):
    the median of ``reps`` copies of ``nbytes``, after one untimed. The ceiling a
    memory-bound kernel is measured against."""
    cp = require()
    a = cp.ones(nbytes // 4, dtype=cp.float32)
    b = cp.empty_like(a)
    ms = median_ms(lambda: cp.copyto(b, a), repeat=reps)
    return 2 * nbytes / (ms / 1e3)


_INT_KERNEL = r"""
extern "C" __global__ void int_ops(int* out, int iters) {
    int a = threadIdx.x, b = blockIdx.x | 1, c = 7, d = 3;
    for (int i = 0; i < iters; ++i) {   // 4 independent chains of one multiply-add each
        a = a * b + c; b = b * c + d; c = c * d + a; d = d * a + b;
    }
    if (a + b + c + d == 0x12345) out[0] = 1;   // keep the result alive
}
"""


def int_throughput(iters: int = 4096, reps: int = 5) -> float:
    """Integer multiply-adds per second the device sustains (one IMAD instruction each; count
    2 operations per multiply-add for operations per second): 16 blocks of 256 threads per
    SM, each running 4 independent chains, the median of ``reps`` launches after one untimed.
    The ceiling an instruction-bound integer kernel is measured against."""
    cp = require()
    kern = cp.RawKernel(_INT_KERNEL, "int_ops")
    out = cp.zeros(1, np.int32)
    blocks, threads = sm_count() * 16, 256
    ms = median_ms(lambda: kern((blocks,), (threads,), (out, np.int32(iters))), repeat=reps)
    return blocks * threads * iters * 4 / (ms / 1e3)


_BARRIER_KERNEL = r"""
#include <cooperative_groups.h>
extern "C" __global__ void grid_barriers(int iters, int* out) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    for (int i = 0; i < iters; ++i) grid.sync();
    if (grid.thread_rank() == 0) out[0] = iters;
}
"""


def grid_barrier_us(threads: int = 256, blocks_per_sm: int = 1, iters: int = 20000, reps: int = 5) -> float:
    """Microseconds one grid barrier (``cooperative_groups::this_grid().sync()``) takes with
    nothing else to do: a cooperative kernel of ``blocks_per_sm`` blocks of ``threads`` per SM
    (the max-flow ``levels`` preset passes its solve's launch) runs ``iters`` of them, the
    median of ``reps`` launches after one untimed. The floor under any step that ends in a
    grid barrier."""
    cp = require()
    kern = cp.RawModule(code=_BARRIER_KERNEL, options=("-std=c++17",),
                        enable_cooperative_groups=True).get_function("grid_barriers")
    out = cp.zeros(1, np.int32)
    ms = median_ms(lambda: kern((sm_count() * blocks_per_sm,), (threads,), (np.int32(iters), out)), repeat=reps)
    return ms * 1e3 / iters
