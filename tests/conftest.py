"""Shared test set-up: GPU tests skip, with the reason, where there is no GPU (multigpu tests
where fewer than two are visible)."""
import pytest

from gpualgo import gpu


def _gpu_count() -> int:
    return int(gpu.require().cuda.runtime.getDeviceCount()) if gpu.available() else 0


def pytest_collection_modifyitems(config, items):
    count = _gpu_count()
    skip = pytest.mark.skip(reason=f"needs a GPU: {gpu.unavailable_reason()}")
    skip_two = pytest.mark.skip(reason=f"needs two GPUs, {count} visible"
                                + (f" ({gpu.unavailable_reason()})" if not count else ""))
    for item in items:
        if "gpu" in item.keywords and not count:
            item.add_marker(skip)
        if "multigpu" in item.keywords and count < 2:
            item.add_marker(skip_two)


@pytest.fixture
def rng(request):
    """A fresh random generator per test; the seed is printed when the test fails."""
    import numpy as np
    seed = np.random.SeedSequence().entropy % 2**32
    request.node.user_properties.append(("seed", seed))
    print(f"random seed: {seed}")
    return np.random.default_rng(seed)


@pytest.fixture
def host16(monkeypatch):
    """A host with 16 GiB available, so that the size refusals do not depend on this machine."""
    from gpualgo import guards
    monkeypatch.setattr(guards, "host_bytes", lambda: 16 * 2**30)


@pytest.fixture
def small_host(monkeypatch):
    """A host with 256 MiB available: whatever a property test gets built stays quick."""
    from gpualgo import guards
    monkeypatch.setattr(guards, "host_bytes", lambda: 256 * 2**20)
