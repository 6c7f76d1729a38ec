"""Shared test set-up: GPU tests skip, with the reason, where there is no GPU."""
import pytest

from gpualgo import gpu


def pytest_collection_modifyitems(config, items):
    if gpu.available():
        return
    skip = pytest.mark.skip(reason=f"needs a GPU: {gpu.unavailable_reason()}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


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
