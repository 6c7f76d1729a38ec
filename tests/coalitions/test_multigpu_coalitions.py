"""The coalition DP on several GPUs (gpu_odp_multi): the same table as gpu_odp on one GPU.
The one-device tests need a GPU; the two-device tests skip unless two GPUs are visible."""
import numpy as np
import pytest

from gpualgo import coalitions as co


def _pairs(rng, ns=(1, 2, 5, 9, 12, 14, 17, 20)):
    for i, n in enumerate(ns):
        dtype = np.float32 if i % 2 else np.float64
        yield co.random_values(n, sorted(co.DISTRIBUTIONS)[i % len(co.DISTRIBUTIONS)],
                               seed=int(rng.integers(1 << 31)), dtype=dtype)


def _same(a, b):
    assert a.partition == b.partition and a.stats["table_value"] == b.stats["table_value"]


@pytest.mark.gpu
def test_one_device_is_gpu_odp(rng):
    for v in _pairs(rng):
        _same(co.solve(v, variant="gpu_odp_multi", devices=1), co.solve(v, variant="gpu_odp"))
    r = co.solve(v, variant="gpu_odp_multi", devices=1, rule="dp")
    _same(r, co.solve(v, variant="gpu_odp", rule="dp"))
    assert r.stats["devices"] == 1 and r.stats["exchanged_bytes"] == 0 and r.stats["device"].startswith("1 x ")


@pytest.mark.gpu
def test_devices_are_checked():
    from gpualgo import gpu
    count = gpu.require().cuda.runtime.getDeviceCount()
    v = co.random_values(6, seed=1)
    for bad in (0, count + 1, [0, 0], [count], "two"):
        with pytest.raises(ValueError, match="devices must be"):
            co.solve(v, variant="gpu_odp_multi", devices=bad)


@pytest.mark.multigpu
@pytest.mark.parametrize("rule", ["odp", "dp", "idp"])
def test_two_devices_give_the_one_device_table(rule, rng):
    for v in _pairs(rng):
        r = co.solve(v, variant="gpu_odp_multi", devices=2, rule=rule)
        _same(r, co.solve(v, variant="gpu_odp", rule=rule))
        assert r.stats["devices"] == 2 and r.stats["device"].startswith("2 x ")


@pytest.mark.multigpu
def test_the_merge_in_small_pieces_and_with_low_bits(rng):
    from gpualgo.coalitions import gpu as co_gpu
    for v in _pairs(rng, ns=(10, 16, 19)):
        n = len(v).bit_length() - 1
        v = np.asarray(v)
        r = co_gpu.run_multi(v, n, devices=2, exchange_bytes=4096 + 4)
        _same(r, co.solve(v, variant="gpu_odp"))
        assert r.stats["exchanged_bytes"] > 0
        for low_bits in (1, 3):
            _same(co.solve(v, variant="gpu_odp_multi", devices=[1, 0], low_bits=low_bits),
                  co.solve(v, variant="gpu_odp", low_bits=low_bits))


@pytest.mark.multigpu
def test_two_devices_against_the_serial_dp(rng):
    v = co.random_values(18, "ndcs", seed=int(rng.integers(1 << 31)))
    r = co.solve(v, variant="gpu_odp_multi", devices=2)
    co.check_against_serial(r, co.solve(v, variant="serial_odp"))
