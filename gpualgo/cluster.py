"""Work on several GPUs or machines through Dask: the one cluster mechanism every caller uses.

The sweeps (``python -m gpualgo.bench ... --cluster``), the notebook runner
(``python -m gpualgo.run_notebooks --cluster``) and the TSP brute force across workers
(:func:`gpualgo.tsp.solve_on_cluster`) all go through this module:

- :func:`client` connects to a cluster: ``"local"`` starts one on this machine (dask-cuda's
  ``LocalCUDACluster``, one worker per visible GPU, where GPUs and dask-cuda are there; else
  a ``LocalCluster`` of processes, one thread each, for the CPU work), ``"local-cpu"`` the
  CPU one even where GPUs are present, and ``"tcp://HOST:PORT"`` any running Dask scheduler.
  :func:`close` ends what :func:`client` started; :func:`session` does both around a block.
- :func:`run_tasks` submits one task per item, calls back as each one finishes (so a sweep
  writes its file after every case) and returns the results in the items' order.
- :func:`where` names the host and the GPU a task runs on; :func:`workers` describes them all.

A worker has one thread, so it runs one task at a time, and a worker of ``LocalCUDACluster``
sees one GPU (its ``CUDA_VISIBLE_DEVICES`` puts its own GPU first): a task is pinned to one
GPU. A worker lost mid-task (its process killed, its machine gone) costs only the tasks it
was running: the scheduler runs them again on another worker.

Dask is imported only here and only when a cluster is asked for, so ``import gpualgo`` needs
no Dask (it is the ``cluster`` extra: ``pip install -e '.[cluster]'``; ``dask-cuda`` adds the
GPU workers). ``LocalCUDACluster`` and ``LocalCluster`` start their workers with ``spawn``:
a script that starts one needs the ``if __name__ == "__main__":`` guard (notebooks do not).
"""
from __future__ import annotations

import contextlib
import os
import socket
import uuid

from . import gpu

__all__ = ["ClusterUnavailableError", "available", "unavailable_reason", "require", "client", "close", "session", "local_cluster",
           "run_tasks", "where", "worker_address", "workers", "describe", "lose_one_worker", "WORKER_COLUMNS"]

class ClusterUnavailableError(RuntimeError):
    """A cluster was asked for, but Dask (or, for GPU workers, dask-cuda or a GPU) is missing."""


#: the columns a task run on a cluster adds to each of its rows: where it ran
WORKER_COLUMNS = ("worker_host", "worker_gpu")


def unavailable_reason() -> str | None:
    """Why no cluster can be used here (None when ``dask.distributed`` imports)."""
    try:
        import distributed  # noqa: F401
    except Exception as exc:   # ImportError, or a broken install
        return (f"dask.distributed is not installed ({type(exc).__name__}: {exc}); "
                "install the cluster extra: pip install -e '.[cluster]'")
    return None


def available() -> bool:
    """True when ``dask.distributed`` imports."""
    return unavailable_reason() is None


def require():
    """The ``distributed`` module, or :class:`ClusterUnavailableError` saying how to install it."""
    reason = unavailable_reason()
    if reason:
        raise ClusterUnavailableError(f"a cluster needs Dask: {reason}")
    import distributed
    return distributed


def _gpu_count() -> int:
    if not gpu.available():
        return 0
    return int(gpu.require().cuda.runtime.getDeviceCount())


def local_cluster(n_workers: int | None = None, kind: str = "auto"):
    """A cluster on this machine.

    kind: ``"gpu"``: dask-cuda's ``LocalCUDACluster``, one worker per GPU (``n_workers``: the
        first that many GPUs); ``"cpu"``: a ``LocalCluster`` of ``n_workers`` processes (default:
        one per CPU core), one thread each; ``"auto"``: ``"gpu"`` where a GPU is visible, else
        ``"cpu"``. Raises :class:`ClusterUnavailableError` for GPUs without dask-cuda (CPU workers would all share
        the first GPU) and for ``"gpu"`` without a GPU.
    """
    distributed = require()
    if kind not in ("auto", "gpu", "cpu"):
        raise ValueError(f"kind must be 'auto', 'gpu' or 'cpu', got {kind!r}")
    gpus = _gpu_count() if kind != "cpu" else 0
    if kind == "gpu" and not gpus:
        raise ClusterUnavailableError(f"a GPU cluster needs a GPU: {gpu.unavailable_reason() or 'none visible'}")
    if gpus:
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError as exc:
            raise ClusterUnavailableError(f"{gpus} GPU(s) here but dask-cuda is not installed ({exc}): pip install dask-cuda "
                               "(one worker per GPU), or use the CPU cluster ('local-cpu')") from None
        if n_workers is not None and not 1 <= n_workers <= gpus:
            raise ValueError(f"n_workers must be in 1..{gpus} (one worker per GPU), got {n_workers}")
        devices = ",".join(str(i) for i in range(n_workers or gpus))
        return LocalCUDACluster(CUDA_VISIBLE_DEVICES=devices, threads_per_worker=1, dashboard_address=":0")
    n = (os.cpu_count() or 1) if n_workers is None else int(n_workers)
    if n < 1:
        raise ValueError(f"n_workers must be at least 1, got {n_workers}")
    return distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0")


def client(cluster="local", n_workers: int | None = None):
    """A Dask client: ``cluster`` is ``"local"`` (:func:`local_cluster`, GPU workers where
    there are GPUs), ``"local-cpu"`` (CPU workers), the address of a running scheduler
    (``"tcp://host:8786"``), or a client already made (returned as it is). End it with
    :func:`close`, which also stops a local cluster it started."""
    distributed = require()
    if isinstance(cluster, distributed.Client):
        return cluster
    if not isinstance(cluster, str) or not cluster:
        raise ValueError(f"cluster must be 'local', 'local-cpu' or a scheduler address, got {cluster!r}")
    if cluster in ("local", "local-cpu"):
        local = local_cluster(n_workers, kind="cpu" if cluster == "local-cpu" else "auto")
        c = distributed.Client(local, set_as_default=False)
        c._gpualgo_local = local       # stopped by close()
        return c
    if n_workers is not None:
        raise ValueError("n_workers applies to a local cluster only")
    return distributed.Client(cluster, set_as_default=False)


def close(c) -> None:
    """Close the client ``c`` and the local cluster :func:`client` started for it."""
    local = getattr(c, "_gpualgo_local", None)
    c.close()
    if local is not None:
        local.close()


@contextlib.contextmanager
def session(cluster="local", n_workers: int | None = None):
    """``with session("local") as c:``: a client for the block; what the block started
    is stopped after it (a client passed in is left open)."""
    distributed = require()
    if isinstance(cluster, distributed.Client):
        yield cluster
        return
    c = client(cluster, n_workers)
    try:
        yield c
    finally:
        close(c)


def where() -> dict:
    """Where the calling code runs: ``{"worker_host": host name, "worker_gpu": the GPU's
    index on its host (the first of ``CUDA_VISIBLE_DEVICES``, or the current device), or
    None on a worker without a GPU}``."""
    index = None
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    if gpu.available():
        if visible:
            index = int(visible) if visible.isdigit() else visible
        else:
            index = int(gpu.require().cuda.Device().id)
    return {"worker_host": socket.gethostname(), "worker_gpu": index}


def worker_address() -> str | None:
    """The address of the Dask worker running the calling task (None outside a task)."""
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return None


def _worker_info() -> dict:
    info = where()
    info["device"] = gpu.device_name() if gpu.available() else gpu.cpu_label()
    return info


def workers(c) -> dict:
    """``{worker address: {"worker_host", "worker_gpu", "device"}}`` for every worker of the
    client ``c`` (``device``: the GPU's name, or the CPU's)."""
    return c.run(_worker_info)


def describe(c) -> dict:
    """What a recorded result says about the cluster that measured it: the scheduler's
    address and each worker's host, GPU index and device name (sorted by address)."""
    info = workers(c)
    return {"scheduler": c.scheduler.address,
            "workers": [dict(address=a, **info[a]) for a in sorted(info)]}


def run_tasks(c, fn, items, on_done=None, name: str = "task") -> list:
    """Run ``fn(item)`` for every item as a task of the client ``c``; return the results in
    the order of ``items``.

    ``on_done(index, result)`` is called in this process as each task finishes (in the order
    they finish). A task whose worker is lost is run again by the scheduler on another worker;
    a task that raises stops the run: the tasks not yet finished are cancelled and the
    exception is raised here (``on_done`` has been called for every task finished before).
    """
    distributed = require()
    items = list(items)
    token = uuid.uuid4().hex[:8]
    futures = [c.submit(fn, item, key=f"{name}-{i}-{token}", pure=False) for i, item in enumerate(items)]
    index = {f.key: i for i, f in enumerate(futures)}
    out = [None] * len(items)
    try:
        for fut in distributed.as_completed(futures, loop=c.loop):
            i = index[fut.key]
            out[i] = fut.result()
            if on_done is not None:
                on_done(i, out[i])
    except BaseException:
        c.cancel(futures)
        raise
    return out


def lose_one_worker(c, flag) -> None:
    """Make the first task that starts on any worker of ``c`` kill its own worker process,
    once: how a demonstration or a test shows that a lost worker costs nothing but time.

    ``flag`` is a file path that every worker can reach (this machine's, for a local
    cluster); the worker that creates it first is the one that dies. The scheduler then runs
    that task again elsewhere (and the nanny starts a fresh worker in its place).
    """
    distributed = require()

    class _LoseOnce(distributed.WorkerPlugin):
        name = f"gpualgo-lose-one-worker-{uuid.uuid4().hex[:8]}"

        def __init__(self, path):
            self.path = str(path)

        def transition(self, key, start, finish, **kwargs):
            if finish != "executing":
                return
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, f"killed worker pid {os.getpid()} at task {key}\n".encode())
            os.close(fd)
            os._exit(1)

    c.register_plugin(_LoseOnce(flag))
