"""Pictures of small flow networks: arcs with flow / capacity, the minimum cut highlighted."""
from __future__ import annotations

import numpy as np

from .network import FlowNetwork

__all__ = ["layout", "frames_layout", "draw_network"]


def layout(net: FlowNetwork, seed: int = 1) -> dict:
    """Vertex positions from networkx's spring layout, source on the left, sink on the right."""
    import networkx as nx
    g = nx.Graph()
    g.add_nodes_from(range(net.n))
    u, v, _ = net.arcs()
    g.add_edges_from(zip(u.tolist(), v.tolist()))
    fixed = {net.source: (-1.0, 0.0), net.sink: (1.0, 0.0)}
    return nx.spring_layout(g, pos=fixed, fixed=list(fixed), seed=seed)


def frames_layout(net: FlowNetwork, a: int) -> dict:
    """Vertex positions for a genrmf network of a x a frames (:func:`gpualgo.maxflow.genrmf`):
    the frames side by side from the source's to the sink's, each a slanted grid, so that the
    arcs between frames do not run through vertices.

    >>> from gpualgo.maxflow import genrmf
    >>> pos = frames_layout(genrmf(2, 3, seed=0), 2)
    >>> pos[0], pos[11]
    ((0.0, 0.0), (7.7, -0.9))
    """
    f = a * a
    return {v: (round(3.0 * (v // f) + 1.2 * (v % a) + 0.5 * ((v % f) // a), 6),
                round(-1.5 * ((v % f) // a) + 0.6 * (v % a), 6)) for v in range(net.n)}


def draw_network(ax, net: FlowNetwork, source_side=None, flow=None, pos=None, title: str | None = None):
    """Draw ``net`` on ``ax``: arcs labelled ``flow/capacity`` (or the capacity), the vertices
    of the source side of ``source_side`` in blue and the others in orange, the cut arcs
    (source side -> sink side) thick and red."""
    import networkx as nx
    pos = layout(net) if pos is None else pos
    u, v, c = net.arcs()
    g = nx.DiGraph()
    g.add_nodes_from(range(net.n))
    idx = np.flatnonzero(net.capacity > 0)
    labels = {}
    for a, x, y, cap in zip(idx.tolist(), u.tolist(), v.tolist(), c.tolist()):
        g.add_edge(x, y)
        f = max(int(flow[a]), 0) if flow is not None else None
        labels[(x, y)] = f"{f}/{cap}" if f is not None else f"{cap}"
    side = np.zeros(net.n, dtype=bool) if source_side is None else np.asarray(source_side, dtype=bool)
    colors = ["tab:blue" if side[x] else "tab:orange" for x in range(net.n)]
    cut = [(x, y) for x, y in g.edges if source_side is not None and side[x] and not side[y]]
    other = [e for e in g.edges if e not in set(cut)]
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=380)
    names = {x: str(x) for x in range(net.n)}
    names[net.source], names[net.sink] = "s", "t"
    nx.draw_networkx_labels(g, pos, labels=names, ax=ax, font_color="white", font_size=9)
    kw = dict(ax=ax, arrows=True, arrowsize=14, connectionstyle="arc3,rad=0.08", node_size=380)
    nx.draw_networkx_edges(g, pos, edgelist=other, edge_color="0.45", width=1.2, **kw)
    if cut:
        nx.draw_networkx_edges(g, pos, edgelist=cut, edge_color="tab:red", width=3.0, **kw)
    nx.draw_networkx_edge_labels(g, pos, edge_labels=labels, ax=ax, font_size=7, label_pos=0.4,
                                 connectionstyle="arc3,rad=0.08")
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    return ax
