"""Drawings of coalition structures: every partition listed once, seats on the circle."""
import matplotlib
import numpy as np
import pytest

from gpualgo import coalitions as co
from gpualgo.coalitions import draw

matplotlib.use("Agg")


def test_all_partitions_are_the_bell_number_of_distinct_partitions():
    for n in range(1, 7):
        parts = draw.all_partitions(n)
        assert len(parts) == co.bell(n) == len({tuple(p) for p in parts})
        for p in parts:
            co.check_partition(p, n)


def _angle_order(xy):
    # seats clockwise from the top, as agent numbers
    a = np.mod(np.pi / 2 - np.arctan2(xy[:, 1], xy[:, 0]), 2 * np.pi)
    return list(np.argsort(a))


def test_grouped_seats_put_each_coalition_side_by_side():
    import matplotlib.pyplot as plt
    partition = [0b1000101, 0b0011010, 0b0100000]        # {0,2,6} {1,3,4} {5}
    fig, ax = plt.subplots()
    draw.draw_partition(ax, 7, partition, grouped=True)
    seats = draw._positions(7, [a for m in partition for a in draw.bits(m)])
    order = _angle_order(seats)
    assert order == [0, 2, 6, 1, 3, 4, 5]
    assert _angle_order(draw._positions(7)) == list(range(7))
    plt.close(fig)
    with pytest.raises(ValueError, match="every agent"):
        draw.draw_partition(ax, 7, [0b11, 0b100], grouped=True)
