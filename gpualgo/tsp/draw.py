"""Drawing TSP instances and tours with matplotlib (for the notebook)."""

from __future__ import annotations

import numpy as np

from .instances import TSPInstance


def positions(inst: TSPInstance) -> np.ndarray:
    """City positions: the instance's coordinates, or a circle when it has none."""
    if inst.coords is not None:
        return inst.coords[:, :2]
    a = 2 * np.pi * np.arange(inst.n) / inst.n
    return np.c_[np.cos(a), np.sin(a)]


def draw_tour(ax, inst: TSPInstance, tour=None, title: str | None = None, edges: bool = True):
    """Draw the cities (city 0 highlighted), the existing edges of a graph with missing
    edges (thin grey), and ``tour`` as a closed path with arrows for asymmetric instances."""
    xy = positions(inst)
    n = inst.n
    if edges and inst.has_missing:
        for i in range(n):
            for j in range(i + 1, n):
                if not inst.missing[i, j] or not inst.missing[j, i]:
                    ax.plot(*xy[[i, j]].T, color="0.85", lw=0.7, zorder=1)
    if tour is not None:
        t = np.r_[tour, tour[0]]
        if inst.symmetric:
            ax.plot(*xy[t].T, color="tab:blue", lw=1.8, zorder=2, label="tour")
        else:
            for a, b in zip(t[:-1], t[1:]):
                ax.annotate("", xy=xy[b], xytext=xy[a], zorder=2,
                            arrowprops=dict(arrowstyle="->", color="tab:blue", lw=1.5))
    ax.scatter(*xy.T, s=40, color="tab:orange", zorder=3, label="city")
    ax.scatter(*xy[0], s=90, color="tab:red", marker="s", zorder=4, label="city 0 (start)")
    if n <= 20:
        for i, (x, y) in enumerate(xy):
            ax.annotate(str(i), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_aspect("equal", adjustable="datalim")
    if inst.coords is not None:
        ax.set_xlabel("x (distance units)")
        ax.set_ylabel("y (distance units)")
    else:
        ax.set_xticks([])
        ax.set_yticks([])
    if title:
        ax.set_title(title)
    ax.legend(fontsize="small", loc="best")
    return ax
