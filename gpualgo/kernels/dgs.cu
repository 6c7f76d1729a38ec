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
// 3. dgs_rounds_kernel: the whole loop on the GPU (a cooperative kernel), each round applying
// the mutually best pairs or the exchanges the paper's Check-Conflicts keeps.
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
#define C_LIST 0       // [2]: jobs touched in the round of that parity
#define C_PAIRS 2      // [2]: exchanges applied in the round of that parity
#define C_STOP 4       // 1: stop after this round (time or round limit)
#define C_ROUNDS 5     // rounds run
#define C_FULL 6       // full row scans (statistics)
#define C_STATE 7      // 0 running, 1 converged, 2 stopped by the limit
#define C_CONFLICTS 8  // candidates Check-Conflicts dropped as conflicting (statistics)
#endif

// The selections of a round (gpu.py's SELECTIONS, passed as defines; these fallbacks agree)
#ifndef SEL_MUTUAL
#define SEL_MUTUAL 0
#define SEL_CHECK_CONFLICTS 1
#endif

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// A. Evaluation, a warp per job row x: the best exchange (best_d[x], best_p[x]) with any
// other job.  Only rows touched by the last round, or whose best partner was touched, scan
// all n jobs; every other row's entries are unchanged except those of the touched jobs, so
// it scans only the list of touched jobs and merges them with its stored best (exact: the
// stored best is not among the changed entries).  A row is written by its warp's lane 0
// only; the full scans are counted in C_FULL.
__device__ void evaluate_rows(const double* __restrict__ A, const double* __restrict__ AT, int m, int n,
                              const int* holder, const double* cur, double* best_d, int* best_p, const int* stamp,
                              const int* touched, int ntouched, int* counters, int round, bool incremental) {
    const int lane = threadIdx.x & 31;
    const int warps = (gridDim.x * blockDim.x) >> 5;
    int full_scans = 0;
    for (int x = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; x < n; x += warps) {
        const int hx = holder[x];
        const double cx = cur[x];
        const int bp = best_p[x];
        const bool full = round == 0 || !incremental || stamp[x] == round - 1 || (bp >= 0 && stamp[bp] == round - 1);
        const int count = full ? n : ntouched;
        double bd = DGS_NEG_INF;
        int by = -1;
        for (int t = lane; t < count; t += 32) {
            const int y = full ? t : touched[t];
            const double d = pair_gain(A, AT, m, n, holder, cur, x, hx, cx, y);
            if (better(d, y, bd, by)) { bd = d; by = y; }
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
}

// Exchange jobs x and p (their holders swap; a free job's holder is -1) and stamp both
// with the round.  The selections guarantee that no other exchange of the round touches
// x or p, so no other thread writes these entries.
__device__ __forceinline__ void apply_exchange(const double* __restrict__ A, int n, int* tau, int* holder,
                                               double* cur, int* stamp, int x, int p, int round) {
    const int hx = holder[x], hp = holder[p];
    holder[x] = hp;
    holder[p] = hx;
    cur[x] = hp >= 0 ? A[(size_t)hp * n + x] : 0.0;
    cur[p] = hx >= 0 ? A[(size_t)hx * n + p] : 0.0;
    if (hx >= 0) tau[hx] = p;
    if (hp >= 0) tau[hp] = x;
    stamp[x] = round;
    stamp[p] = round;
}

// B, selection "mutual" (the default), a thread per job row: the exchange (x, p) is
// applied when it gains more than tol and is the best of both rows (p's best is x).  Such
// mutual pairs share no job, so they are applied at once without conflict and their gains
// add up exactly.  The largest gain of all is always mutual (ties to the lowest index), so
// a round that applies nothing proves that no exchange improves.  The pair's jobs go to the
// round's touched list.  Returns the thread's exchanges; adds their gains to gained.
__device__ int apply_mutual_pairs(const double* __restrict__ A, int n, int* tau, int* holder, double* cur,
                                  const double* best_d, const int* best_p, int* stamp, int* lists, int* counters,
                                  double tol, int round, int now, double& gained) {
    int applied = 0;
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < n; x += gridDim.x * blockDim.x) {
        const double d = best_d[x];
        const int p = best_p[x];
        if (!(d > tol) || p <= x || best_p[p] != x) continue;
        apply_exchange(A, n, tau, holder, cur, stamp, x, p, round);
        const int slot = atomicAdd(counters + C_LIST + now, 2);
        lists[now * n + slot] = x;
        lists[now * n + slot + 1] = p;
        gained += d;
        applied += 1;
    }
    return applied;
}

// One pass of Check-Conflicts in the paper's order, by one warp: candidate k (k < count)
// is agent k's row tau[k] (agents: the agent pass) or job k's row when job k is free (the
// job pass).  32 candidates at a time: lane k keeps its exchange (x, p) unless x or p is
// already reserved (stamped with this round by a kept exchange of an earlier chunk) or
// shared with a kept lane before it (the loop keeps the lowest open lane, which closes the
// later lanes it conflicts with): exactly the paper's one-by-one walk.  A kept exchange
// stamps its two jobs and is written to list[2 * slot]; __syncwarp orders these stamps
// before the next chunk reads them.  Returns the exchanges kept so far; adds the dropped
// candidates to dropped.
__device__ int check_conflicts_pass(const int* tau, const int* holder, const double* best_d, const int* best_p,
                                    int* stamp, int* list, double tol, int round, int count, bool agents, int kept,
                                    int& dropped) {
    const int lane = threadIdx.x & 31;
    for (int base = 0; base < count; base += 32) {
        const int k = base + lane;
        int x = -1, p = -1;
        if (k < count) {
            const int row = agents ? tau[k] : k;
            if ((agents || holder[row] < 0) && best_d[row] > tol) { x = row; p = best_p[row]; }
        }
        bool keep = x >= 0 && stamp[x] != round && stamp[p] != round;
        unsigned open = __ballot_sync(GPUALGO_FULL_MASK, keep);
        while (open) {
            const int j = __ffs(open) - 1;
            const int xj = __shfl_sync(GPUALGO_FULL_MASK, x, j), pj = __shfl_sync(GPUALGO_FULL_MASK, p, j);
            if (lane > j && keep && (x == xj || x == pj || p == xj || p == pj)) keep = false;
            open = __ballot_sync(GPUALGO_FULL_MASK, keep) & ~((2u << j) - 1u);  // the open lanes after j
        }
        const unsigned kept_lanes = __ballot_sync(GPUALGO_FULL_MASK, keep);
        if (keep) {
            const int slot = kept + __popc(kept_lanes & ((1u << lane) - 1u));
            stamp[x] = round;
            stamp[p] = round;
            list[2 * slot] = x;
            list[2 * slot + 1] = p;
        }
        kept += __popc(kept_lanes);
        dropped += __popc(__ballot_sync(GPUALGO_FULL_MASK, x >= 0) & ~kept_lanes);
        __syncwarp();
    }
    return kept;
}

// B, selection "check_conflicts": the paper's Check-Conflicts (Sec. 5, "Switching";
// Algorithm 4 CC, called by Algorithm 3 Parallel DGS), by warp 0 of block 0 while the
// grid waits at the next barrier.  CC walks the agents with an improving exchange in index
// order, then the jobs with one: an exchange is kept when neither of its agents is already
// reserved (its set CR) by a kept one, and then reserves both; otherwise it is conflicting
// (its set C) and waits for a later round.  Here the rows are jobs: the agent pass reads
// agent i's row tau[i] (its ADE), the job pass the free jobs' rows (their JDE: the best
// agent to move in).  Reserving the two jobs of an exchange reserves its agents, and a free
// job.  An assigned job's own JDE row is not kept apart: in the paper's square instances it
// evaluates the same exchanges as its holder's ADE, decided in the agent pass (kept, or
// dropped for a reservation that still holds), so the job pass skips it.  Two departures
// follow: where several exchanges tie for a row's best, one rule (the lowest job) picks for
// both passes, and where m < n an assigned job's swaps are not tried again when its holder's
// best, a move to a free job, was dropped.  One reading is needed: Algorithm 4 puts every
// conflict in one set C of agents and Algorithm 3 drops both passes' entries of C's agents;
// read literally, every exchange kept in the agent pass is dropped in the job pass (it is
// its job's best too, and its agent is in CR), and no round applies anything.  Here, as the
// text says ("the non-conflicted 2-exchanges are determined by CC"), a conflict drops only
// the candidate that met it.  The evaluation stays A, exact for every row at every round
// (Algorithm 3 re-evaluates the agents outside C, its text the conflicting ones: either
// leaves stale gains).  The first candidate is always kept, so a round that keeps nothing
// proves that no exchange improves.  Writes the kept pairs to the round's touched list and
// their count to C_LIST; adds the dropped candidates to C_CONFLICTS.
__device__ void check_conflicts(const int* tau, const int* holder, const double* best_d, const int* best_p,
                                int* stamp, int* lists, int* counters, double tol, int round, int now, int m, int n) {
    if (blockIdx.x != 0 || threadIdx.x >= 32) return;
    int dropped = 0;
    int kept = check_conflicts_pass(tau, holder, best_d, best_p, stamp, lists + now * n, tol, round, m, true, 0,
                                    dropped);
    if (m < n)
        kept = check_conflicts_pass(tau, holder, best_d, best_p, stamp, lists + now * n, tol, round, n, false, kept,
                                    dropped);
    if (threadIdx.x == 0) {
        counters[C_LIST + now] = 2 * kept;
        counters[C_CONFLICTS] += dropped;
    }
}

// Apply the exchanges Check-Conflicts kept, a thread per exchange (the paper: "we simply let
// the GPU spawn a number of threads which is equal to the number of non-conflicting
// 2-exchanges").  They share no job, so their gains add up exactly.  Returns the thread's
// exchanges; adds their gains to gained.
__device__ int apply_kept(const double* __restrict__ A, int n, int* tau, int* holder, double* cur,
                          const double* best_d, int* stamp, const int* lists, const int* counters, int round, int now,
                          double& gained) {
    const int kept = counters[C_LIST + now] / 2;
    const int* list = lists + now * n;
    int applied = 0;
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < kept; t += gridDim.x * blockDim.x) {
        const int x = list[2 * t], p = list[2 * t + 1];
        gained += best_d[x];
        apply_exchange(A, n, tau, holder, cur, stamp, x, p, round);
        applied += 1;
    }
    return applied;
}

// The round's gains and exchanges, summed per warp, added to objective[0] and C_PAIRS.
__device__ __forceinline__ void add_round(double* objective, int* counters, double gained, int applied, int now) {
    gained = warp_sum(gained);
    applied = warp_sum(applied);
    if ((threadIdx.x & 31) == 0 && applied) {
        atomicAdd(objective, gained);
        atomicAdd(counters + C_PAIRS + now, applied);
    }
}

// The round's end, by thread 0 after the barrier: the exchanges so far (objective[1]), the
// trace point, the rounds and the state; and the other parity's slots cleared for the next
// round (last read in this round's phase A, before a barrier).
__device__ void end_round(double* objective, int* counters, double* trace, int trace_cap, int round, int pairs,
                          bool stop, int prev, unsigned long long ns) {
    objective[1] += pairs;
    if (round < trace_cap) {
        trace[3 * round] = objective[1];
        trace[3 * round + 1] = objective[0];
        trace[3 * round + 2] = (double)ns;
    }
    counters[C_ROUNDS] = round + 1;
    counters[C_STATE] = pairs == 0 ? 1 : (stop ? 2 : 0);
    counters[C_LIST + prev] = 0;
    counters[C_PAIRS + prev] = 0;
}

// The whole DGS loop in one cooperative launch (grid-wide barriers between phases, no
// host round trip).  A round: A. evaluation (evaluate_rows); B. the selection of the
// exchanges to apply, all at once: mutually best pairs (apply_mutual_pairs) or the paper's
// Check-Conflicts (check_conflicts, then apply_kept after a barrier).  Stops when a round
// applies nothing, after max_rounds, or when the GPU clock passes deadline_ns (the
// assignment is always complete: DGS only ever improves it).
// trace[3 * r .. 3 * r + 2]: (exchanges so far, objective, ns) after round r < trace_cap.
extern "C" __global__ void __launch_bounds__(256, 4)
dgs_rounds_kernel(const double* __restrict__ A, const double* __restrict__ AT, int m, int n,
                  int* tau, int* holder, double* cur, double* best_d, int* best_p, int* stamp,
                  int* lists, int* counters, double* objective, double tol, unsigned long long deadline_ns,
                  int max_rounds, int incremental, int selection, double* trace, int trace_cap) {
    cg::grid_group grid = cg::this_grid();
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const unsigned long long t0 = leader ? global_ns() : 0;
    for (int round = 0;; ++round) {
        const int prev = (round + 1) & 1, now = round & 1;
        const int ntouched = round ? counters[C_LIST + prev] : 0;
        evaluate_rows(A, AT, m, n, holder, cur, best_d, best_p, stamp, lists + prev * n, ntouched, counters, round,
                      incremental != 0);
        grid.sync();
        double gained = 0.0;
        int applied;
        if (selection == SEL_CHECK_CONFLICTS) {
            check_conflicts(tau, holder, best_d, best_p, stamp, lists, counters, tol, round, now, m, n);
            grid.sync();
            applied = apply_kept(A, n, tau, holder, cur, best_d, stamp, lists, counters, round, now, gained);
        } else {
            applied = apply_mutual_pairs(A, n, tau, holder, cur, best_d, best_p, stamp, lists, counters, tol, round,
                                         now, gained);
        }
        add_round(objective, counters, gained, applied, now);
        if (leader && (round + 1 >= max_rounds || global_ns() >= deadline_ns)) counters[C_STOP] = 1;
        grid.sync();
        const int pairs = counters[C_PAIRS + now];
        const bool stop = counters[C_STOP] != 0;
        if (leader) end_round(objective, counters, trace, trace_cap, round, pairs, stop, prev, global_ns() - t0);
        if (pairs == 0 || stop) break;
    }
}
#endif  // DGS_NO_COOPERATIVE
