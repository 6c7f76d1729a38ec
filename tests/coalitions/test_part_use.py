"""analysis.part_use against a literal walk of odp_tile_kernel's parts on small n."""
import pytest

from gpualgo import results
from gpualgo.coalitions import analysis


def _walk(n, b, rule):
    """Every (level, high mask Ch, high split Xh, low coalition Cl, part x of its core) the kernel's
    lanes step through, and whether one of the part's two splits passes the rule, by the sizes."""
    H = n - b
    out = {}
    for ch in range(1 << H):
        h = bin(ch).count("1")
        top = (1 << (ch.bit_length() - 1)) if ch else 0
        chm = ch & ~top
        xhs = [xh for xh in range(1 << H) if xh & ~chm == 0]          # subsets without the top agent
        for cl in range(1, 1 << b) if h == 0 else range(1 << b):
            t = bin(cl).count("1")
            s = h + t
            if s < 2:
                continue
            lim = n - s
            core = cl & ~(1 << (cl.bit_length() - 1)) if cl else 0     # the task's core: t - 1 agents
            for xh in xhs:
                if h == 0 and xh:
                    continue
                h1 = bin(xh).count("1")
                allowed = (lambda x, y: max(x, y) <= lim) if (rule == "odp" and s < n) else (lambda x, y: True)
                # a tile is loaded when some low size is allowed
                if not any(allowed(h1 + j, s - h1 - j) for j in range(t + 1)):
                    continue
                parts = [x for x in range(1 << b) if x & ~core == 0] if t else [0]
                p, u = out.get(s, (0, 0))
                p += len(parts)
                for x in parts:
                    jx = bin(x).count("1")
                    u += allowed(h1 + jx, s - h1 - jx) or allowed(h1 + t - jx, s - h1 - t + jx)
                out[s] = (p, u)
    return out


@pytest.mark.parametrize("n,b,rule", [(8, 4, "odp"), (9, 5, "odp"), (7, 3, "dp")])
def test_part_use_counts_the_walk(n, b, rule):
    assert analysis.part_use(n, b, rule) == _walk(n, b, rule)


def test_part_use_lines_of_the_recorded_targets():
    lines = analysis.part_use_lines(results.read("coalitions", "targets").rows)
    # the top ODP level walks most of its parts for nothing: n = 27's level 18, n = 29's level 19
    assert any(line.startswith("n = 27, level 18:") and "66% of them" in line for line in lines)
    assert any(line.startswith("n = 29, level 19:") and "42% of them" in line for line in lines)
