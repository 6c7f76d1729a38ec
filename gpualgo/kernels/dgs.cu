// Deep Greedy Switching (DGS) for the assignment problem: the kernels of every GPU version.
//
// Data (all row-major, float64):  A (m x n) benefits, AT (n x m) its transpose, so that a
// column of A is a contiguous row of AT.  tau[i]: the job of agent i; holder[j]: the agent
// of job j (-1 when free); cur[j]: the benefit of job j's holder for it (0 when free).
//
// The gain of exchanging jobs x and y (holder(x) takes y, holder(y) takes x) is
//     g(x->y) + g(y->x),   g(x->y) = A[holder(x)][y] - cur[x]   (0 for a free job),
// always added in this order with no multiplication, so every kernel and the serial
// code get bit-for-bit the same value for the same exchange.
//
// Versions:  1. ade/jde_global_kernel: a thread per agent (per job) scans its row in
// global memory;  2. ade/jde_cells_kernel: a thread per (row, column) cell in 16 x 16
// tiles, the row's data staged in shared memory, then row_max_kernel (a thread per row);
// 3. dgs_rounds_kernel: the whole loop on the GPU (a cooperative kernel).
#include "common.cuh"

#define DGS_NEG_INF (-(double)__int_as_float(0x7f800000))

#ifndef TILE
#define TILE 16
#endif

// ------------------------------------------------------------------------------------
// Version gpu_de_global: ADE and JDE in global memory, a thread per agent (job) row
// ------------------------------------------------------------------------------------

// ADE: thread t evaluates agent rows[t] (or agent t when rows is null): the best job y
// != tau[i] to take, swapping with y's holder or moving when y is free.  Ties: lowest y.
extern "C" __global__ void ade_global_kernel(const double* __restrict__ A, const double* __restrict__ AT,
                                             int m, int n, const long long* __restrict__ tau,
                                             const long long* __restrict__ holder, const double* __restrict__ cur,
                                             const int* __restrict__ rows, int nrows,
                                             double* __restrict__ out_d, long long* __restrict__ out_j) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nrows) return;
    int i = rows ? rows[t] : t;
    long long x = tau[i];
    double ci = cur[x];
    const double* Ai = A + (size_t)i * n;
    const double* ATx = AT + (size_t)x * m;
    // exercise dgs.ade_row: begin
    double best = DGS_NEG_INF;
    long long bj = -1;
    for (int y = 0; y < n; ++y) {
        if (y == x) continue;
        long long k = holder[y];
        double d = (Ai[y] - ci) + (k >= 0 ? ATx[k] - cur[y] : 0.0);
        if (d > best) { best = d; bj = y; }
    }
    out_d[i] = best;
    out_j[i] = bj;
    // exercise dgs.ade_row: end
}

// JDE: thread t evaluates job rows[t] (or job t): the best agent k != holder[x] to take
// job x (x's holder, if any, takes tau[k]).  Ties: lowest k.
extern "C" __global__ void jde_global_kernel(const double* __restrict__ A, const double* __restrict__ AT,
                                             int m, int n, const long long* __restrict__ tau,
                                             const long long* __restrict__ holder, const double* __restrict__ cur,
                                             const int* __restrict__ rows, int nrows,
                                             double* __restrict__ out_d, long long* __restrict__ out_i) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nrows) return;
    int x = rows ? rows[t] : t;
    long long hx = holder[x];
    double cx = cur[x];
    const double* ATx = AT + (size_t)x * m;
    const double* Ah = hx >= 0 ? A + (size_t)hx * n : A;
    double best = DGS_NEG_INF;
    long long bi = -1;
    for (int k = 0; k < m; ++k) {
        if (k == hx) continue;
        long long y = tau[k];
        double d = (hx >= 0 ? Ah[y] - cx : 0.0) + (ATx[k] - cur[y]);
        if (d > best) { best = d; bi = k; }
    }
    out_d[x] = best;
    out_i[x] = bi;
}

// ------------------------------------------------------------------------------------
// Versions gpu_de_shared, gpu_mixed: a thread per cell, shared-memory tiles, row max
// ------------------------------------------------------------------------------------

// ADE cells: block (TILE, TILE); thread (tx, ty) computes the gain of agent rows[r]
// taking job c, r = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx, into D[r][c]
// (-inf on the agent's own job).  What a row needs (its job and benefit) and what a
// column needs (its holder and benefit) is loaded once per tile into shared memory.
extern "C" __global__ void ade_cells_kernel(const double* __restrict__ A, const double* __restrict__ AT,
                                            int m, int n, const long long* __restrict__ tau,
                                            const long long* __restrict__ holder, const double* __restrict__ cur,
                                            const int* __restrict__ rows, int nrows, double* __restrict__ D) {
    __shared__ long long s_row_job[TILE];
    __shared__ int s_row_agent[TILE];
    __shared__ double s_row_cur[TILE];
    __shared__ long long s_col_holder[TILE];
    __shared__ double s_col_cur[TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx;
    // exercise dgs.ade_cells_shared: begin
    if (tx == 0 && r < nrows) {
        int i = rows ? rows[r] : r;
        s_row_agent[ty] = i;
        s_row_job[ty] = tau[i];
        s_row_cur[ty] = cur[tau[i]];
    }
    if (ty == 0 && c < n) {
        s_col_holder[tx] = holder[c];
        s_col_cur[tx] = cur[c];
    }
    __syncthreads();
    // exercise dgs.ade_cells_shared: end
    if (r >= nrows || c >= n) return;
    long long x = s_row_job[ty], k = s_col_holder[tx];
    double d = DGS_NEG_INF;
    if (c != x)
        d = (A[(size_t)s_row_agent[ty] * n + c] - s_row_cur[ty]) +
            (k >= 0 ? AT[(size_t)x * m + k] - s_col_cur[tx] : 0.0);
    D[(size_t)r * n + c] = d;
}

// JDE cells: thread (tx, ty) computes the gain of agent c taking job rows[r] into D[r][c]
// (-inf for the job's own holder).
extern "C" __global__ void jde_cells_kernel(const double* __restrict__ A, const double* __restrict__ AT,
                                            int m, int n, const long long* __restrict__ tau,
                                            const long long* __restrict__ holder, const double* __restrict__ cur,
                                            const int* __restrict__ rows, int nrows, double* __restrict__ D) {
    __shared__ int s_row_job[TILE];
    __shared__ long long s_row_holder[TILE];
    __shared__ double s_row_cur[TILE];
    __shared__ long long s_col_job[TILE];
    __shared__ double s_col_cur[TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx;
    if (tx == 0 && r < nrows) {
        int x = rows ? rows[r] : r;
        s_row_job[ty] = x;
        s_row_holder[ty] = holder[x];
        s_row_cur[ty] = cur[x];
    }
    if (ty == 0 && c < m) {
        s_col_job[tx] = tau[c];
        s_col_cur[tx] = cur[tau[c]];
    }
    __syncthreads();
    if (r >= nrows || c >= m) return;
    long long hx = s_row_holder[ty], y = s_col_job[tx];
    int x = s_row_job[ty];
    double d = DGS_NEG_INF;
    if (c != hx)
        d = (hx >= 0 ? A[(size_t)hx * n + y] - s_row_cur[ty] : 0.0) + (AT[(size_t)x * m + c] - s_col_cur[tx]);
    D[(size_t)r * m + c] = d;
}

// Row maximum: a thread per row r of D (nrows x ncols) writes (max, argmax) to out at
// rows[r] (or r); ties to the lowest column, -1 when the row holds only -inf.
extern "C" __global__ void row_max_kernel(const double* __restrict__ D, int nrows, int ncols,
                                          const int* __restrict__ rows, double* __restrict__ out_d,
                                          long long* __restrict__ out_idx) {
    // exercise dgs.row_max: begin
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    const double* row = D + (size_t)r * ncols;
    double best = DGS_NEG_INF;
    long long bi = -1;
    for (int c = 0; c < ncols; ++c) {
        double d = row[c];
        if (d > best) { best = d; bi = c; }
    }
    int o = rows ? rows[r] : r;
    out_d[o] = best;
    out_idx[o] = bi;
    // exercise dgs.row_max: end
}

// ------------------------------------------------------------------------------------
// Version gpu: the whole DGS loop in one cooperative launch, many exchanges per round
// ------------------------------------------------------------------------------------

// The host compiles the file twice: with DGS_NO_COOPERATIVE for the kernels above (a
// module built for cooperative launches launches every kernel that way, and the cell
// kernels' grids are far larger than what can be resident at once), and without it for
// dgs_rounds_kernel.
#ifndef DGS_NO_COOPERATIVE
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// The GPU's nanosecond clock, read by the host to set the deadline of a time limit.
extern "C" __global__ void clock_kernel(unsigned long long* out) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(*out));
}

// Gain of exchanging jobs x and y (the row is x); -inf for y == x or two free jobs.
__device__ __forceinline__ double pair_gain(const double* __restrict__ A, const double* __restrict__ AT, int m,
                                            int n, const int* holder, const double* cur, int x, int hx,
                                            double cx, int y) {
    int hy = holder[y];
    if (y == x || (hx < 0 && hy < 0)) return DGS_NEG_INF;
    double gx = hx >= 0 ? __ldg(A + (size_t)hx * n + y) - cx : 0.0;
    double gy = hy >= 0 ? __ldg(AT + (size_t)x * m + hy) - cur[y] : 0.0;
    return gx + gy;
}

// (d, y) beats the best so far (bd, by): a larger gain, or an equal one at a lower job
// (by = -1: nothing yet, and an excluded entry (-inf) never wins, as in the serial scan).
__device__ __forceinline__ bool better(double d, int y, double bd, int by) {
    return d > bd || (d == bd && by >= 0 && y < by);
}

// Counter slots of dgs_rounds_kernel, passed as defines by gpualgo/assignment/dgs/gpu.py
// (COUNTERS); these fallbacks agree
#ifndef C_LIST
#define C_LIST 0    // [2]: jobs touched in the round of that parity
#define C_PAIRS 2   // [2]: exchanges applied in the round of that parity
#define C_STOP 4    // 1: stop after this round (time or round limit)
#define C_ROUNDS 5  // rounds run
#define C_FULL 6    // full row scans (statistics)
#define C_STATE 7   // 0 running, 1 converged, 2 stopped by the limit
#endif

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// The whole DGS loop in one cooperative launch (grid-wide barriers between phases, no
// host round trip).  A round:
//  A. evaluation, a warp per job row x: the best exchange (best_d[x], best_p[x]) with
//     any other job.  Only rows touched by the last round, or whose best partner was
//     touched, scan all n jobs; every other row's entries are unchanged except those
//     of the touched jobs, so it scans only the list of touched jobs and merges them
//     with its stored best (exact: the stored best is not among the changed entries).
//  B. Check-Conflicts and switching, a thread per job row: the exchange (x, p) is applied
//     when it gains more than tol and is the best of both rows (p's best is x).  Such
//     mutual pairs share no job, so they are applied at once without conflict and their
//     gains add up exactly.  The largest gain of all is always mutual (ties to the lowest
//     index), so a round that applies nothing proves that no exchange improves.
// Stops when a round applies nothing, after max_rounds, or when the GPU clock passes
// deadline_ns (the assignment is always complete: DGS only ever improves it).
// trace[3 * r .. 3 * r + 2]: (exchanges so far, objective, ns) after round r < trace_cap.
extern "C" __global__ void __launch_bounds__(256, 4)
dgs_rounds_kernel(const double* __restrict__ A, const double* __restrict__ AT, int m, int n,
                  int* tau, int* holder, double* cur, double* best_d, int* best_p, int* stamp,
                  int* lists, int* counters, double* objective, double tol, unsigned long long deadline_ns,
                  int max_rounds, int incremental, double* trace, int trace_cap) {
    cg::grid_group grid = cg::this_grid();
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int warps = (gridDim.x * blockDim.x) >> 5;
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int threads = gridDim.x * blockDim.x;
    const bool leader = tid == 0;
    unsigned long long t0 = 0;
    if (leader) t0 = global_ns();
    for (int round = 0;; ++round) {
        const int prev = (round + 1) & 1, now = round & 1;
        const int* touched = lists + prev * n;
        const int ntouched = round ? counters[C_LIST + prev] : 0;
        // ---- A. evaluation
        int full_scans = 0;
        for (int x = warp; x < n; x += warps) {
            const int hx = holder[x];
            const double cx = cur[x];
            const int bp = best_p[x];
            const bool full = round == 0 || !incremental || stamp[x] == round - 1 ||
                              (bp >= 0 && stamp[bp] == round - 1);
            double bd = DGS_NEG_INF;
            int by = -1;
            if (full) {
                for (int y = lane; y < n; y += 32) {
                    double d = pair_gain(A, AT, m, n, holder, cur, x, hx, cx, y);
                    if (better(d, y, bd, by)) { bd = d; by = y; }
                }
            } else {
                for (int t = lane; t < ntouched; t += 32) {
                    int y = touched[t];
                    double d = pair_gain(A, AT, m, n, holder, cur, x, hx, cx, y);
                    if (better(d, y, bd, by)) { bd = d; by = y; }
                }
            }
            if (by < 0) by = 0x7fffffff;  // no candidate: loses every tie in the reduction
            warp_argmax(bd, by);
            if (by == 0x7fffffff) by = -1;
            if (lane == 0) {
                if (!full && !better(bd, by, best_d[x], bp)) { bd = best_d[x]; by = bp; }
                best_d[x] = bd;
                best_p[x] = by;
                full_scans += full;
            }
        }
        if (lane == 0 && full_scans) atomicAdd(counters + C_FULL, full_scans);
        grid.sync();
        // ---- B. Check-Conflicts and switching
        double gained = 0.0;
        int applied = 0;
        for (int x = tid; x < n; x += threads) {
            const double d = best_d[x];
            const int p = best_p[x];
            if (!(d > tol) || p <= x || best_p[p] != x) continue;
            const int hx = holder[x], hp = holder[p];
            holder[x] = hp;
            holder[p] = hx;
            cur[x] = hp >= 0 ? A[(size_t)hp * n + x] : 0.0;
            cur[p] = hx >= 0 ? A[(size_t)hx * n + p] : 0.0;
            if (hx >= 0) tau[hx] = p;
            if (hp >= 0) tau[hp] = x;
            stamp[x] = round;
            stamp[p] = round;
            int slot = atomicAdd(counters + C_LIST + now, 2);
            lists[now * n + slot] = x;
            lists[now * n + slot + 1] = p;
            gained += d;
            applied += 1;
        }
        gained = warp_sum(gained);
        applied = warp_sum(applied);
        if (lane == 0 && applied) {
            atomicAdd(objective, gained);
            atomicAdd(counters + C_PAIRS + now, applied);
        }
        if (leader && (round + 1 >= max_rounds || global_ns() >= deadline_ns)) counters[C_STOP] = 1;
        grid.sync();
        const int pairs = counters[C_PAIRS + now];
        const bool stop = counters[C_STOP] != 0;
        if (leader) {
            objective[1] += pairs;
            if (round < trace_cap) {
                trace[3 * round] = objective[1];
                trace[3 * round + 1] = objective[0];
                trace[3 * round + 2] = (double)(global_ns() - t0);
            }
            counters[C_ROUNDS] = round + 1;
            counters[C_STATE] = pairs == 0 ? 1 : (stop ? 2 : 0);
            // the next round's slots (last read in this round's phase A, before a barrier)
            counters[C_LIST + prev] = 0;
            counters[C_PAIRS + prev] = 0;
        }
        if (pairs == 0 || stop) break;
    }
}
#endif  // DGS_NO_COOPERATIVE
