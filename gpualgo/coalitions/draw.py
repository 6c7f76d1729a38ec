"""Pictures of coalition structures (matplotlib), for the notebook."""
from __future__ import annotations

import numpy as np

__all__ = ["all_partitions", "draw_partition", "draw_all_partitions", "bits", "label"]


def bits(mask: int) -> list[int]:
    """The agents of a coalition bitmask, in increasing order."""
    return [i for i in range(int(mask).bit_length()) if mask >> i & 1]


def label(mask: int) -> str:
    """A coalition as a set of agents, e.g. ``{0,2,3}``."""
    return "{" + ",".join(map(str, bits(mask))) + "}"


def all_partitions(n: int) -> list[list[int]]:
    """Every partition of agents 0..n-1 as a list of bitmasks (small n only: Bell(n) of them)."""
    if n > 8:
        raise ValueError(f"drawing every partition of n={n} agents is refused (at most 8)")
    out = [[]]
    for agent in range(n):
        nxt = []
        for p in out:
            for k in range(len(p)):           # join an existing coalition
                nxt.append(p[:k] + [p[k] | 1 << agent] + p[k + 1:])
            nxt.append(p + [1 << agent])      # or start a new one
        out = nxt
    return [sorted(p) for p in out]


def _positions(n: int, order=None) -> np.ndarray:
    """Agent i's point on the unit circle; ``order`` lists the agents clockwise from the top
    (default 0, 1, ..., n-1)."""
    order = list(range(n)) if order is None else [int(a) for a in order]
    if sorted(order) != list(range(n)):
        raise ValueError(f"the coalitions must hold every agent 0..{n - 1} exactly once, got {order}")
    slot = np.empty(n)
    slot[order] = np.arange(n)
    a = np.pi / 2 - 2 * np.pi * slot / max(n, 1)
    return np.c_[np.cos(a), np.sin(a)]


def draw_partition(ax, n: int, partition, values=None, title: str | None = None, highlight=False,
                   grouped: bool = False):
    """Agents on a circle; each coalition a coloured blob around its members, labelled with
    its value when ``values`` is given.

    ``grouped`` seats each coalition's agents side by side, so that no two outlines cross
    (best for one large partition); by default agent i keeps the same seat in every
    drawing, to compare partitions.
    """
    from matplotlib.patches import Polygon
    xy = _positions(n, [a for mask in partition for a in bits(mask)] if grouped else None)
    colors = [f"C{k % 10}" for k in range(len(partition))]
    for col, mask in zip(colors, partition):
        members = bits(mask)
        pts = xy[members]
        if len(members) >= 3:   # order the corners around their centre: a convex outline
            c = pts.mean(axis=0)
            pts = pts[np.argsort(np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0]))]
        if len(members) == 1:
            ax.scatter(*pts.T, s=420, color=col, alpha=0.35, zorder=2)
        else:
            ax.add_patch(Polygon(pts, closed=True, facecolor=col, edgecolor=col, alpha=0.35,
                                 lw=18 if n <= 6 else 10, joinstyle="round", capstyle="round"))
        if values is not None:
            cx, cy = xy[members].mean(axis=0) * (0.55 if len(members) > 1 else 1.45)
            ax.annotate(f"{float(values[mask]):.2f}", (cx, cy), ha="center", va="center", fontsize=7)
    ax.scatter(*xy.T, s=60, color="black", zorder=3)
    for i, (x, y) in enumerate(xy):
        ax.annotate(str(i), (x, y), color="white", ha="center", va="center", fontsize=7, zorder=4)
    ax.set_xlim(-1.9, 1.9)
    ax.set_ylim(-1.9, 1.9)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    if highlight:
        for sp in ax.spines.values():
            sp.set_edgecolor("tab:red")
            sp.set_linewidth(3)
    if title:
        ax.set_title(title, fontsize=8)
    return ax


def draw_all_partitions(v, ncols: int = 5):
    """Every partition of a small value function, each titled with its total value; the
    best one framed in red. Returns the figure."""
    import matplotlib.pyplot as plt
    v = np.asarray(v)
    n = len(v).bit_length() - 1
    parts = all_partitions(n)
    totals = [float(sum(float(v[m]) for m in p)) for p in parts]
    best = int(np.argmax(totals))
    nrows = -(-len(parts) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.2 * ncols, 2.3 * nrows), squeeze=False)
    for ax in axes.flat[len(parts):]:
        ax.axis("off")
    for k, (p, tot, ax) in enumerate(zip(parts, totals, axes.flat)):
        draw_partition(ax, n, p, values=v, highlight=k == best,
                       title=" ".join(label(m) for m in p) + f"\ntotal {tot:.2f}")
    fig.suptitle(f"All {len(parts)} coalition structures of {n} agents (best framed in red)")
    fig.tight_layout()
    return fig
