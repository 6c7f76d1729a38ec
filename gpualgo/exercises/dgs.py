"""Exercises on Deep Greedy Switching's kernels (``kernels/dgs.cu``)."""
from __future__ import annotations

import numpy as np

from .. import gpu
from .core import Case, Exercise, Failure, blocks, first_mismatch, padded, padded_fill, register, seeded, unpad

# as gpualgo/assignment/dgs/gpu.py compiles dgs.cu for these kernels
DEFINES = {"TILE": 16, "DGS_NO_COOPERATIVE": 1}
TILE = 16


def _state(m, n, key, ties=False, optimal=False):
    """A benefit matrix and an assignment: tau (agent -> job), holder (job -> agent or -1), cur."""
    rng = seeded("dgs", m, n, key)
    A = (rng.integers(0, 4, size=(m, n)) if ties else rng.random((m, n)) * 100).astype(np.float64)
    tau = rng.permutation(n)[:m].astype(np.int64)
    if optimal:  # an exchange-optimal start: a large benefit on each agent's own job
        A[np.arange(m), tau] += 1000.0
    holder = np.full(n, -1, np.int64)
    holder[tau] = np.arange(m)
    cur = np.zeros(n, np.float64)
    cur[tau] = A[np.arange(m), tau]
    return A, tau, holder, cur


# ------------------------------------------------------------------ dgs.row_max (tier 1)

def _rowmax_cases(quick):
    out = []
    for nrows, ncols, block, what in [(5, 7, 32, "5 rows, one block of 32"), (100, 9, 64, "100 rows, ties, 2 blocks"),
                                      (1, 1, 32, "one row of one entry"), (300, 40, 128, "300 rows, some only -inf"),
                                      (70, 5, 32, "70 rows written through a rows[] map")]:
        rng = seeded("rowmax", nrows, ncols)
        D = rng.integers(-5, 5, size=(nrows, ncols)).astype(np.float64) if "ties" in what else rng.normal(size=(nrows, ncols))
        if "-inf" in what or ncols == 1:
            D[rng.random(nrows) < 0.3] = -np.inf
        rows = rng.permutation(nrows).astype(np.int32) if "map" in what else None
        out.append(Case(what, dict(D=D, rows=rows, block=block)))
    return out


def _rowmax_run(mod, case):
    cp = gpu.require()
    D, rows, block = case.data["D"], case.data["rows"], case.data["block"]
    nrows, ncols = D.shape
    grid = blocks(nrows, block)
    Dp = cp.asarray(np.concatenate([D.ravel(), np.zeros((grid * block - nrows + 1) * ncols)]))  # reads past the end
    out_d = padded(cp, np.full(nrows, padded_fill(np.float64)))
    out_i = padded(cp, np.full(nrows, padded_fill(np.int64), np.int64))
    rows_d = cp.asarray(np.concatenate([rows, np.arange(nrows, nrows + grid * block, dtype=np.int32)])) \
        if rows is not None else np.uint64(0)
    mod.get_function("row_max_kernel")((grid,), (block,), (Dp, np.int32(nrows), np.int32(ncols), rows_d, out_d, out_i))
    return unpad("out_d", out_d, nrows), unpad("out_idx", out_i, nrows)


def _rowmax_verify(case, got):
    D, rows = case.data["D"], case.data["rows"]
    best = D.max(axis=1)
    idx = np.where(np.isneginf(best), -1, D.argmax(axis=1))
    order = rows if rows is not None else np.arange(len(D))
    exp_d, exp_i = np.empty_like(best), np.empty_like(idx)
    exp_d[order], exp_i[order] = best, idx
    first_mismatch("out_d", exp_d, got[0], ["row"], "row r's maximum goes to out_d[rows[r]] (rows[r] = r when rows is null)")
    first_mismatch("out_idx", exp_i, got[1], ["row"], "ties to the lowest column; -1 for a row of only -inf")


register(Exercise(
    id="dgs.row_max", title="The maximum of each row", tier=1,
    teaches="one thread per row, the bounds guard, an argmax with its tie rule and its empty case",
    file="dgs.cu", module="dgs", defines=DEFINES,
    signature=("extern \"C\" __global__ void row_max_kernel(const double* D, int nrows, int ncols, const int* rows,\n"
               "                                          double* out_d, long long* out_idx)"),
    stub=("    // TODO: thread r (r < nrows) finds the maximum of row r of D (nrows x ncols,\n"
          "    // row-major) and its column, ties to the lowest column, -1 when the row holds only\n"
          "    // -inf (DGS_NEG_INF); it writes them to out_d[o], out_idx[o], o = rows ? rows[r] : r.\n"),
    hints=(
        "`if (r >= nrows) return;` first.",
        "Start from `DGS_NEG_INF` and index -1; a strict `>` keeps the lowest column and leaves -1 for a "
        "row of -inf.",
    ),
    cases=_rowmax_cases, run=_rowmax_run, verify=_rowmax_verify,
    mistakes={
        "missing bounds guard": ((
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    const double* row = D + (size_t)r * ncols;\n"
            "    double best = DGS_NEG_INF;\n"
            "    long long bi = -1;\n"
            "    for (int c = 0; c < ncols; ++c) {\n"
            "        double d = row[c];\n"
            "        if (d > best) { best = d; bi = c; }\n"
            "    }\n"
            "    int o = rows ? rows[r] : r;\n"
            "    out_d[o] = best;\n"
            "    out_idx[o] = bi;\n"), "bounds guard"),
    }))


# ------------------------------------------------------------------ dgs.ade_row (tier 3)

def _ade_cases(quick):
    return [Case(what, dict(state=_state(m, n, what, ties="ties" in what, optimal="optimal" in what)))
            for m, n, what in [(6, 6, "6 agents, 6 jobs"), (20, 30, "20 agents, 30 jobs (10 free)"),
                               (40, 40, "ties (benefits 0..3)"), (1, 1, "one agent, one job"),
                               (50, 50, "an exchange-optimal assignment (every gain negative)")]]


def _ade_expected(A, tau, holder, cur):
    m, n = A.shape
    out_d, out_j = np.full(m, -np.inf), np.full(m, -1, np.int64)
    for i in range(m):
        x = tau[i]
        for y in range(n):
            if y == x:
                continue
            k = holder[y]
            d = (A[i, y] - cur[x]) + (A[k, x] - cur[y] if k >= 0 else 0.0)
            if d > out_d[i]:
                out_d[i], out_j[i] = d, y
    return out_d, out_j


def _ade_run(mod, case):
    cp = gpu.require()
    A, tau, holder, cur = case.data["state"]
    m, n = A.shape
    out_d = padded(cp, np.full(m, padded_fill(np.float64)))
    out_j = padded(cp, np.full(m, padded_fill(np.int64), np.int64))
    mod.get_function("ade_global_kernel")((blocks(m, 32),), (32,), (
        cp.asarray(A), cp.asarray(A.T.copy()), np.int32(m), np.int32(n), cp.asarray(tau), cp.asarray(holder),
        cp.asarray(cur), np.uint64(0), np.int32(m), out_d, out_j))
    return unpad("out_d", out_d, m), unpad("out_j", out_j, m)


def _ade_verify(case, got):
    exp_d, exp_j = _ade_expected(*case.data["state"])
    first_mismatch("out_d", exp_d, got[0], ["agent"],
                   "the gain (A[i][y] - cur[x]) + (A[holder(y)][x] - cur[y]) of the best y != x; "
                   "a free job y adds 0 for its side")
    first_mismatch("out_j", exp_j, got[1], ["agent"], "ties to the lowest job y; -1 when there is no other job")


register(Exercise(
    id="dgs.ade_row", title="One row of the agents' difference evaluation", tier=3,
    teaches="DGS's evaluation step: one thread scans a row, reading a row of A and a row of A's transpose",
    file="dgs.cu", module="dgs", defines=DEFINES,
    signature=("extern \"C\" __global__ void ade_global_kernel(const double* A, const double* AT, int m, int n,\n"
               "    const long long* tau, const long long* holder, const double* cur, const int* rows, int nrows,\n"
               "    double* out_d, long long* out_j)\n"
               "    // above your code: i (the agent), x = tau[i], ci = cur[x], Ai = A + i * n, ATx = AT + x * m"),
    stub=("    // TODO: the best job y != x for agent i to take: the gain of the exchange is\n"
          "    // (Ai[y] - ci) + (ATx[k] - cur[y]) where k = holder[y] (only the first term when y is\n"
          "    // free, k < 0). Keep the largest gain, ties to the lowest y, and write it to out_d[i]\n"
          "    // and y to out_j[i] (-inf and -1 when there is no other job: DGS_NEG_INF).\n"),
    hints=(
        "`for (int y = 0; y < n; ++y) { if (y == x) continue; long long k = holder[y]; ... }`",
        "Add in this order, `(Ai[y] - ci) + (ATx[k] - cur[y])`, to get the serial code's bits.",
    ),
    cases=_ade_cases, run=_ade_run, verify=_ade_verify,
    mistakes={
        "the agent's own job not skipped": ((
            "    double best = DGS_NEG_INF;\n"
            "    long long bj = -1;\n"
            "    for (int y = 0; y < n; ++y) {\n"
            "        long long k = holder[y];\n"
            "        double d = (Ai[y] - ci) + (k >= 0 ? ATx[k] - cur[y] : 0.0);\n"
            "        if (d > best) { best = d; bj = y; }\n"
            "    }\n"
            "    out_d[i] = best;\n"
            "    out_j[i] = bj;\n"), "expected"),
    }))


# ------------------------------------------------------------------ dgs.ade_cells_shared (tier 4)

def _cells_cases(quick):
    return [Case(what, dict(state=_state(m, n, what), rows=rows))
            for m, n, rows, what in [(16, 16, None, "16 x 16, one tile"), (37, 50, None, "37 agents x 50 jobs, partial tiles"),
                                     (30, 30, "some", "30 x 30, a subset of the rows")]]


def _cells_launch(mod, cp, A, AT, tau, holder, cur, rows, nrows, D):
    m, n = A.shape
    mod.get_function("ade_cells_kernel")((blocks(n, TILE), blocks(nrows, TILE)), (TILE, TILE), (
        A, AT, np.int32(m), np.int32(n), tau, holder, cur, rows, np.int32(nrows), D))


def _cells_run(mod, case):
    cp = gpu.require()
    A, tau, holder, cur = case.data["state"]
    m, n = A.shape
    rows = np.arange(0, m, 3, dtype=np.int32) if case.data["rows"] else None
    nrows = len(rows) if rows is not None else m
    D = padded(cp, np.full(nrows * n, padded_fill(np.float64)))
    _cells_launch(mod, cp, cp.asarray(A), cp.asarray(A.T.copy()), cp.asarray(tau), cp.asarray(holder), cp.asarray(cur),
                  cp.asarray(rows) if rows is not None else np.uint64(0), nrows, D)
    return unpad("D", D, nrows * n).reshape(nrows, n), rows


def _cells_verify(case, got):
    A, tau, holder, cur = case.data["state"]
    D, rows = got
    agents = rows if rows is not None else np.arange(len(A))
    exp = np.empty((len(agents), A.shape[1]))
    for r, i in enumerate(agents):
        x = tau[i]
        for c in range(A.shape[1]):
            k = holder[c]
            exp[r, c] = -np.inf if c == x else (A[i, c] - cur[x]) + (A[k, x] - cur[c] if k >= 0 else 0.0)
    first_mismatch("D", exp, D, ["r", "c"], "cell (r, c): agent rows[r] (or r) taking job c; -inf on its own job")


def _cells_speed(student, suite, quick):
    cp = gpu.require()
    m = n = 1024 if quick else 4096
    A, tau, holder, cur = _state(m, n, "speed")
    Ad, ATd, taud, hd, cd = (cp.asarray(v) for v in (A, A.T.copy(), tau, holder, cur))
    D = cp.empty(m * n)
    out_d, out_j = cp.empty(m), cp.empty(m, np.int64)
    null = np.uint64(0)
    mine = gpu.median_ms(lambda: _cells_launch(student, cp, Ad, ATd, taud, hd, cd, null, m, D), 10, 2)
    theirs = gpu.median_ms(lambda: _cells_launch(suite, cp, Ad, ATd, taud, hd, cd, null, m, D), 10, 2)
    row = gpu.median_ms(lambda: suite.get_function("ade_global_kernel")((blocks(m, 128),), (128,), (
        Ad, ATd, np.int32(m), np.int32(n), taud, hd, cd, null, np.int32(m), out_d, out_j)), 10, 2)
    return (f"{m} x {n} cells: yours {mine:.3f} ms, the suite's {theirs:.3f} ms; a thread per row "
            f"(ade_global_kernel, no shared memory) {row:.3f} ms")


register(Exercise(
    id="dgs.ade_cells_shared", title="A tile's row and column data in shared memory", tier=4,
    teaches="2-D tiles, staging what a row and a column share in shared memory, coalesced cell writes",
    file="dgs.cu", module="dgs", defines=DEFINES, speed=_cells_speed,
    signature=("extern \"C\" __global__ void ade_cells_kernel(const double* A, const double* AT, int m, int n,\n"
               "    const long long* tau, const long long* holder, const double* cur, const int* rows, int nrows,\n"
               "    double* D)\n"
               "    // above your code: the __shared__ arrays s_row_agent, s_row_job, s_row_cur [TILE] and\n"
               "    // s_col_holder, s_col_cur [TILE]; tx, ty; r = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx"),
    stub=("    // TODO: fill the tile's shared arrays, each entry by ONE thread: for row ty (when r <\n"
          "    // nrows) the agent i = rows ? rows[r] : r, its job tau[i] and that job's benefit\n"
          "    // cur[tau[i]]; for column tx (when c < n) holder[c] and cur[c]. No thread may read\n"
          "    // them before they are all written. (The lines below only keep the kernel safe.)\n"
          "    s_row_agent[ty] = 0; s_row_job[ty] = 0; s_row_cur[ty] = 0.0;\n"
          "    s_col_holder[tx] = -1; s_col_cur[tx] = 0.0;\n"
          "    __syncthreads();\n"),
    hints=(
        "Thread (0, ty) loads the row's data, thread (tx, 0) the column's.",
        "Then one `__syncthreads()`: the threads that read are not those that wrote.",
    ),
    cases=_cells_cases, run=_cells_run, verify=_cells_verify,
    mistakes={
        "the row's benefit read at the agent instead of its job": ((
            "    if (tx == 0 && r < nrows) {\n"
            "        int i = rows ? rows[r] : r;\n"
            "        s_row_agent[ty] = i;\n"
            "        s_row_job[ty] = tau[i];\n"
            "        s_row_cur[ty] = cur[i];\n"
            "    }\n"
            "    if (ty == 0 && c < n) {\n"
            "        s_col_holder[tx] = holder[c];\n"
            "        s_col_cur[tx] = cur[c];\n"
            "    }\n"
            "    __syncthreads();\n"), "expected"),
    }))
