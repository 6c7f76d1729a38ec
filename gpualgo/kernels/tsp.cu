// Travelling salesman, exact: brute force over the orders of the cities (three versions, in
// the order the source report builds them) and Held-Karp dynamic programming by layers.
//
// Conventions shared with gpualgo/tsp/ (see enumeration.py):
//  * City 0 is fixed as the start.  The orders of the other cities are split into chunks;
//    a chunk fixes `f` leading cities (prefix[chunk * F + 0 .. f-1]) and possibly the last
//    one (last[chunk] >= 0, used to enumerate each symmetric tour once); its k free cities
//    run through their k! permutations in lexicographic order.  A launch covers the chunks
//    chunk0, chunk0 + 1, ... and names an order by its launch rank g = c * k! + local.
//  * W is the n x n weight matrix (row-major) with missing edges replaced by a weight
//    larger than any feasible tour, so no kernel needs a branch for them.
//  * COST_T is int, or long long when the host defines COST_INT64 (int whenever every
//    partial sum fits: half the memory traffic).
//  * Best = smallest cost, ties to the smallest rank, as in the serial version.
//  * MAXN, MAXK and HK_MAXN are passed by the host (gpualgo/tsp/gpu.py); the defaults below
//    are only for compiling this file on its own.
//  * The report's tuning steps are options of the versions, compiled in by flags the host
//    defines to 1 only when a run asks for them (gpu.py, TUNING_DEFINES); at 0 each kernel is
//    the version as it is recorded: A_INT32_ORDERS, A_CITY_MAJOR, A_SHARED_MATRIX (version (a),
//    tour_cost_tuned_kernel and tour_best_kernel), B_SHARED_MATRIX (b), C_GLOBAL_MATRIX,
//    C_FULL_COST and C_STEP_SUFFIX (c).
#include "common.cuh"

#ifdef COST_INT64
#define COST_T long long
#else
#define COST_T int
#endif
#ifndef MAXN
#define MAXN 32          // brute force: a city set is a 32-bit mask
#endif
#ifndef MAXK
#define MAXK 20          // free cities per chunk: 20! < 2^63
#endif
#ifndef HK_MAXN
#define HK_MAXN 33       // Held-Karp: bit j of a 32-bit mask is city j + 1
#endif
#ifndef A_INT32_ORDERS
#define A_INT32_ORDERS 0 // (a): 4-byte city indices instead of 1 (the report's int before char)
#endif
#ifndef A_CITY_MAJOR
#define A_CITY_MAJOR 0   // (a): city t of order i at orders[t * count + i]
#endif
#ifndef A_SHARED_MATRIX
#define A_SHARED_MATRIX 0 // (a): the matrix read from a copy in shared memory
#endif
#ifndef B_SHARED_MATRIX
#define B_SHARED_MATRIX 0 // (b): the matrix read from a copy in shared memory
#endif
#ifndef C_GLOBAL_MATRIX
#define C_GLOBAL_MATRIX 0 // (c): the matrix read from global memory
#endif
#ifndef C_FULL_COST
#define C_FULL_COST 0    // (c): every order's cost added up from its start, not incrementally
#endif
#ifndef C_STEP_SUFFIX
#define C_STEP_SUFFIX 0  // (c): the last 4 cities stepped like the others, not in registers
#endif

template <class T> struct CostLimit;
template <> struct CostLimit<int> {
    static __device__ __forceinline__ int max() { return 0x7fffffff; }
};
template <> struct CostLimit<long long> {
    static __device__ __forceinline__ long long max() { return 0x7fffffffffffffffLL; }
};
#define COST_MAX (CostLimit<COST_T>::max())
#define NO_RANK 0x7fffffffffffffffLL

__constant__ unsigned long long FACT[21] = {
    1ull, 1ull, 2ull, 6ull, 24ull, 120ull, 720ull, 5040ull, 40320ull, 362880ull,
    3628800ull, 39916800ull, 479001600ull, 6227020800ull, 87178291200ull,
    1307674368000ull, 20922789888000ull, 355687428096000ull, 6402373705728000ull,
    121645100408832000ull, 2432902008176640000ull};

// ------------------------------------------------------------------------------------
// Shared by (b) and (c): a chunk's fixed part, the d-th free city, a factorial digit
// ------------------------------------------------------------------------------------

// Where a chunk's free part starts and ends: the path 0 -> prefix costs `base` and ends at
// `anchor`; the tour closes with W[p_last][target] + tail (target = the fixed last city,
// then back to 0, or straight back to 0).  Returns the set of free cities as a bit mask.
__device__ __forceinline__ unsigned chunk_setup(const COST_T* M, int n,
                                                const unsigned char* __restrict__ prefix, int F,
                                                const int* __restrict__ last, int f, long long c,
                                                int& anchor, COST_T& base, int& target,
                                                COST_T& tail) {
    unsigned used = 1u;
    anchor = 0;
    base = 0;
    for (int t = 0; t < f; ++t) {
        int city = prefix[c * F + t];
        base += M[anchor * n + city];
        anchor = city;
        used |= 1u << city;
    }
    int lst = last[c];
    if (lst >= 0) {
        used |= 1u << lst;
        target = lst;
        tail = M[lst * n];
    } else {
        target = 0;
        tail = 0;
    }
    unsigned all = n >= 32 ? 0xffffffffu : ((1u << n) - 1u);
    return all & ~used;
}

// Position of the d-th (0-based) set bit of x.
__device__ __forceinline__ int nth_bit(unsigned x, unsigned d) {
    for (unsigned t = 0; t < d; ++t) x &= x - 1u;
    return __ffs(x) - 1;
}

// One digit of the factorial number system: d = r / fct, r = r % fct.  Most digits of a
// rank are small, and 32-bit division is several times cheaper than 64-bit division.
__device__ __forceinline__ unsigned fact_digit(unsigned long long& r, unsigned long long fct) {
    if (fct > r) return 0u;
    if (r <= 0xffffffffull) {
        unsigned r32 = (unsigned)r, f32 = (unsigned)fct;
        unsigned d = r32 / f32;
        r = r32 - d * f32;
        return d;
    }
    unsigned long long d = r / fct;
    r -= d * fct;
    return (unsigned)d;
}

// Where a kernel reads the matrix: W itself (global memory), or with SHARED a copy in shared
// memory that the block loads first.  Every thread of the block must call it (the barrier).
template <bool SHARED>
__device__ __forceinline__ const COST_T* matrix_for(const COST_T* __restrict__ W, int n) {
    if constexpr (SHARED) {
        __shared__ COST_T sW[MAXN * MAXN];
        for (int i = threadIdx.x; i < n * n; i += blockDim.x) sW[i] = W[i];
        __syncthreads();
        return sW;
    } else {
        return W;
    }
}

// ------------------------------------------------------------------------------------
// Version (a), host chunks: the host writes the orders, one thread scores each
// ------------------------------------------------------------------------------------

// The host writes the orders (1 byte per city, m = n - 1 bytes per order: the cities after
// 0), one thread per order writes its cost, the host takes the minimum.  This is the
// report's first version.
extern "C" __global__ void tour_cost_kernel(const unsigned char* __restrict__ orders,
                                            long long count, int n,
                                            const COST_T* __restrict__ W,
                                            COST_T* __restrict__ costs) {
    // exercise tsp.tour_cost: begin
    const int m = n - 1;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += stride) {
        const unsigned char* o = orders + i * m;
        int prev = 0;
        COST_T cost = 0;
        for (int t = 0; t < m; ++t) {
            int city = o[t];
            cost += W[prev * n + city];
            prev = city;
        }
        costs[i] = cost + W[prev * n];
    }
    // exercise tsp.tour_cost: end
}

// ------------------------------------------------------------------------------------
// Version (a), the report's tuning steps: the same scoring with one choice changed
// ------------------------------------------------------------------------------------

// The options of host_chunks that change the kernel (gpu.py) run these two kernels, the
// flags above choosing the index type, the layout and where the matrix is read; with every
// flag at 0 they compute what tour_cost_kernel does.
#if A_INT32_ORDERS
typedef int order_t;
#else
typedef unsigned char order_t;
#endif

// The cost of order i of a batch of `count` orders: the closed tour 0 -> order -> 0.
// Order-major, thread i reads its order's m bytes one after the other; city-major, city t
// of every order sits in one row, so the threads of a warp read neighbouring entries.
__device__ __forceinline__ COST_T order_cost(const order_t* __restrict__ orders, long long i,
                                             long long count, int n,
                                             const COST_T* __restrict__ M) {
    const int m = n - 1;
#if A_CITY_MAJOR
    const order_t* o = orders + i;
    const long long step = count;
#else
    const order_t* o = orders + i * m;
    const long long step = 1;
#endif
    int prev = 0;
    COST_T cost = 0;
    for (int t = 0; t < m; ++t) {
        int city = o[t * step];
        cost += M[prev * n + city];
        prev = city;
    }
    return cost + M[prev * n];
}

// One thread per order (grid-stride) writes its cost; the host takes the minimum.
extern "C" __global__ void tour_cost_tuned_kernel(const order_t* __restrict__ orders,
                                                  long long count, int n,
                                                  const COST_T* __restrict__ W,
                                                  COST_T* __restrict__ costs) {
    const COST_T* M = matrix_for<A_SHARED_MATRIX != 0>(W, n);
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += stride)
        costs[i] = order_cost(orders, i, count, n, M);
}

// The minimum on the device: each thread keeps its best (cost, index in the batch), the
// block reduces them (ties to the lowest index, as the host's argmin), and
// reduce_best_kernel reduces the blocks' bests, so two numbers come back instead of a cost
// per order.
extern "C" __global__ void tour_best_kernel(const order_t* __restrict__ orders,
                                            long long count, int n,
                                            const COST_T* __restrict__ W,
                                            COST_T* __restrict__ block_cost,
                                            long long* __restrict__ block_rank) {
    const COST_T* M = matrix_for<A_SHARED_MATRIX != 0>(W, n);
    COST_T best = COST_MAX;
    long long best_i = NO_RANK;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += stride) {
        COST_T cost = order_cost(orders, i, count, n, M);
        if (cost < best) { best = cost; best_i = i; }
    }
    block_argmin(best, best_i, COST_MAX, NO_RANK);
    if (threadIdx.x == 0) {
        block_cost[blockIdx.x] = best;
        block_rank[blockIdx.x] = best_i;
    }
}

// ------------------------------------------------------------------------------------
// Version (b), unrank: each thread builds its orders from their ranks, device minimum
// ------------------------------------------------------------------------------------

// Every thread builds each of its orders from its rank alone (factorial number system: digit
// t picks the d-th smallest city still free), so nothing but the matrix is copied in; each
// thread keeps its best (cost, rank) and the block reduces them on the device.  Grid-stride
// loop over the ranks of the launch.
extern "C" __global__ void unrank_kernel(const COST_T* __restrict__ W, int n,
                                         const unsigned char* __restrict__ prefix, int F,
                                         const int* __restrict__ last, int f, int k,
                                         long long kfact, long long chunk0, long long total,
                                         COST_T* __restrict__ block_cost,
                                         long long* __restrict__ block_rank) {
    const COST_T* M = matrix_for<B_SHARED_MATRIX != 0>(W, n);   // a tuning step: shared
    COST_T best = COST_MAX;
    long long best_g = NO_RANK;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < total; g += stride) {
        long long c = g / kfact;
        unsigned long long r = (unsigned long long)(g - c * kfact);
        int cur, target;
        COST_T cost, tail;
        unsigned free = chunk_setup(M, n, prefix, F, last, f, chunk0 + c, cur, cost, target, tail);
        for (int t = 0; t < k; ++t) {
            unsigned d = fact_digit(r, FACT[k - 1 - t]);
            int city = nth_bit(free, d);
            free &= ~(1u << city);
            cost += M[cur * n + city];
            cur = city;
        }
        cost += M[cur * n + target] + tail;
        if (cost < best) { best = cost; best_g = g; }
    }
    block_argmin(best, best_g, COST_MAX, NO_RANK);
    if (threadIdx.x == 0) {
        block_cost[blockIdx.x] = best;
        block_rank[blockIdx.x] = best_g;
    }
}

// ------------------------------------------------------------------------------------
// Version (c), shared incremental: shared matrix, contiguous ranges, incremental costs
// ------------------------------------------------------------------------------------

// The 24 orders of the last four cities s0 < s1 < s2 < s3 (after city x, before the target),
// in lexicographic order: q, then the positions of the four.  Each order's cost is four
// sums of edge costs held in registers; ties keep the first, as the serial version does.
#define SUFFIX_ORDERS(ORD)                                                                    \
    ORD(0, 0, 1, 2, 3) ORD(1, 0, 1, 3, 2) ORD(2, 0, 2, 1, 3) ORD(3, 0, 2, 3, 1)              \
    ORD(4, 0, 3, 1, 2) ORD(5, 0, 3, 2, 1) ORD(6, 1, 0, 2, 3) ORD(7, 1, 0, 3, 2)              \
    ORD(8, 1, 2, 0, 3) ORD(9, 1, 2, 3, 0) ORD(10, 1, 3, 0, 2) ORD(11, 1, 3, 2, 0)            \
    ORD(12, 2, 0, 1, 3) ORD(13, 2, 0, 3, 1) ORD(14, 2, 1, 0, 3) ORD(15, 2, 1, 3, 0)          \
    ORD(16, 2, 3, 0, 1) ORD(17, 2, 3, 1, 0) ORD(18, 3, 0, 1, 2) ORD(19, 3, 0, 2, 1)          \
    ORD(20, 3, 1, 0, 2) ORD(21, 3, 1, 2, 0) ORD(22, 3, 2, 0, 1) ORD(23, 3, 2, 1, 0)
#define SUFFIX_SPAN 24

// next_permutation on p[0..k-1], in two steps.  The pivot: the last position up to `from`
// followed by a larger city (every position after `from` is already descending), or -1 when
// p is the last order of its chunk.
__device__ __forceinline__ int order_pivot(const unsigned char* p, int from) {
    int i = from;
    while (i >= 0 && p[i] > p[i + 1]) --i;
    return i;
}

// The step at pivot i: p[i] takes the smallest larger city after it, and the positions after
// i, descending, are reversed to ascending.
__device__ __forceinline__ void order_step(unsigned char* p, int k, int i) {
    int j = k - 1;
    while (p[j] < p[i]) --j;
    unsigned char tmp = p[i]; p[i] = p[j]; p[j] = tmp;
    for (int lo = i + 1, hi = k - 1; lo < hi; ++lo, --hi) {
        tmp = p[lo]; p[lo] = p[hi]; p[hi] = tmp;
    }
}

// A chunk's first order: its free cities (the bits of `free`) in increasing order.
__device__ __forceinline__ void first_order(unsigned char* p, int k, unsigned free) {
    for (int t = 0; t < k; ++t) {
        int city = __ffs(free) - 1;
        free &= free - 1u;
        p[t] = (unsigned char)city;
    }
}

// The matrix sits in shared memory (loaded once per block); each thread unranks only the
// first order of its contiguous range and then steps with next_permutation.  A step changes
// only a suffix of the order (on average fewer than 3 positions), so the thread keeps the
// cost of every prefix and re-adds only the changed suffix.  Ranges may run across chunk
// boundaries.  Where a thread's range is made of whole blocks of 4! orders (the host's
// ranges in phase, and k > 4), the last four cities are not stepped at all: the thread
// loads the 20 edge costs among them, the city before them and the target into registers
// once, scores their 24 orders from those, then steps the cities before them.
extern "C" __global__ void shared_incremental_kernel(const COST_T* __restrict__ W, int n,
                                                     const unsigned char* __restrict__ prefix,
                                                     int F, const int* __restrict__ last,
                                                     int f, int k, long long kfact,
                                                     long long chunk0, long long total,
                                                     long long per_thread,
                                                     COST_T* __restrict__ block_cost,
                                                     long long* __restrict__ block_rank) {
    __shared__ COST_T sW[MAXN * MAXN];
    // exercise tsp.shared_matrix: begin
    for (int i = threadIdx.x; i < n * n; i += blockDim.x) sW[i] = W[i];
    __syncthreads();
    // exercise tsp.shared_matrix: end
    const COST_T* M = C_GLOBAL_MATRIX ? W : sW;   // a tuning step: the matrix in global memory

    COST_T best = COST_MAX;
    long long best_g = NO_RANK;
    long long g = (blockIdx.x * (long long)blockDim.x + threadIdx.x) * per_thread;
    long long end = g + per_thread < total ? g + per_thread : total;
    if (g < end) {
        unsigned char p[MAXK];
        COST_T pc[MAXK];       // pc[t]: cost of 0 -> prefix -> p[0] -> ... -> p[t]
        long long c = g / kfact;
        unsigned long long r = (unsigned long long)(g - c * kfact);
        int anchor, target;
        COST_T base, tail;
        unsigned free = chunk_setup(M, n, prefix, F, last, f, chunk0 + c, anchor, base,
                                    target, tail);
        for (int t = 0; t < k; ++t) {
            int city = nth_bit(free, fact_digit(r, FACT[k - 1 - t]));
            free &= ~(1u << city);
            p[t] = (unsigned char)city;
        }
        int i = 0;  // first position whose prefix cost is stale
#if C_STEP_SUFFIX || C_FULL_COST
        const bool in_registers = false;
#else
        const bool in_registers = k > 4 && per_thread % SUFFIX_SPAN == 0;
#endif
        while (in_registers) {   // blocks of 24 orders: p[h..k-1] ascending at each block's start
            const int h = k - 4;
            COST_T acc = i == 0 ? base + M[anchor * n + p[0]] : pc[i - 1] + M[p[i - 1] * n + p[i]];
            pc[i] = acc;
            for (int t = i + 1; t < h; ++t) {
                acc += M[p[t - 1] * n + p[t]];
                pc[t] = acc;
            }
            const int x = p[h - 1], c0 = p[h], c1 = p[h + 1], c2 = p[h + 2], c3 = p[h + 3];
            const COST_T a0 = M[x * n + c0], a1 = M[x * n + c1], a2 = M[x * n + c2], a3 = M[x * n + c3];
            const COST_T e01 = M[c0 * n + c1], e02 = M[c0 * n + c2], e03 = M[c0 * n + c3];
            const COST_T e10 = M[c1 * n + c0], e12 = M[c1 * n + c2], e13 = M[c1 * n + c3];
            const COST_T e20 = M[c2 * n + c0], e21 = M[c2 * n + c1], e23 = M[c2 * n + c3];
            const COST_T e30 = M[c3 * n + c0], e31 = M[c3 * n + c1], e32 = M[c3 * n + c2];
            const COST_T z0 = M[c0 * n + target] + tail, z1 = M[c1 * n + target] + tail;
            const COST_T z2 = M[c2 * n + target] + tail, z3 = M[c3 * n + target] + tail;
#define SUFFIX_ORDER(q, A, B, C, D)                                                            \
            {                                                                                  \
                const COST_T cost = acc + a##A + e##A##B + e##B##C + e##C##D + z##D;           \
                if (cost < best) { best = cost; best_g = g + q; }                              \
            }
            SUFFIX_ORDERS(SUFFIX_ORDER)
#undef SUFFIX_ORDER
            g += SUFFIX_SPAN;
            if (g >= end) break;
            // the block's last order has p[h..k-1] descending: step from there
            p[h] = (unsigned char)c3; p[h + 1] = (unsigned char)c2;
            p[h + 2] = (unsigned char)c1; p[h + 3] = (unsigned char)c0;
            i = order_pivot(p, h - 1);
            if (i < 0) {   // the chunk is done: the next one starts at its sorted order
                ++c;
                first_order(p, k, chunk_setup(M, n, prefix, F, last, f, chunk0 + c, anchor, base, target, tail));
                i = 0;
                continue;
            }
            order_step(p, k, i);
        }
        for (; !in_registers;) {
            COST_T acc = i == 0 ? base + M[anchor * n + p[0]]
                                : pc[i - 1] + M[p[i - 1] * n + p[i]];
            pc[i] = acc;
            for (int t = i + 1; t < k; ++t) {
                acc += M[p[t - 1] * n + p[t]];
                pc[t] = acc;
            }
            COST_T cost = acc + M[p[k - 1] * n + target] + tail;
            if (cost < best) { best = cost; best_g = g; }
            if (++g >= end) break;
            i = order_pivot(p, k - 2);
            if (i < 0) {   // the chunk is done: the next one starts at its sorted order
                ++c;
                first_order(p, k, chunk_setup(M, n, prefix, F, last, f, chunk0 + c, anchor, base, target, tail));
                i = 0;
                continue;
            }
            order_step(p, k, i);
#if C_FULL_COST
            i = 0;   // a tuning step: add up the whole order again, as (b) does
#endif
        }
    }
    block_argmin(best, best_g, COST_MAX, NO_RANK);
    if (threadIdx.x == 0) {
        block_cost[blockIdx.x] = best;
        block_rank[blockIdx.x] = best_g;
    }
}

// ------------------------------------------------------------------------------------
// Versions (b) and (c), second pass: one block reduces the blocks' bests
// ------------------------------------------------------------------------------------

// One block reduces the per-block bests (cost, then rank: the serial version's tie rule).
extern "C" __global__ void reduce_best_kernel(const COST_T* __restrict__ block_cost,
                                              const long long* __restrict__ block_rank,
                                              int count, COST_T* __restrict__ out_cost,
                                              long long* __restrict__ out_rank) {
    COST_T best = COST_MAX;
    long long best_g = NO_RANK;
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        COST_T v = block_cost[i];
        long long g = block_rank[i];
        if (v < best || (v == best && g < best_g)) { best = v; best_g = g; }
    }
    block_argmin(best, best_g, COST_MAX, NO_RANK);
    if (threadIdx.x == 0) {
        *out_cost = best;
        *out_rank = best_g;
    }
}

// ------------------------------------------------------------------------------------
// Held-Karp: the table layer by layer (subset size), then the tour walked back
// ------------------------------------------------------------------------------------

// dp[mask * m + j] (m = n - 1; bit j of mask is city j + 1) is the cheapest path that leaves
// 0, visits exactly the cities of mask and ends at city j + 1.  Layer s holds the masks of
// s cities and depends only on layer s - 1, so a layer is one launch.

// Layer 1: the paths 0 -> j + 1.
extern "C" __global__ void held_karp_init_kernel(COST_T* __restrict__ dp,
                                                 const COST_T* __restrict__ W, int n) {
    const int m = n - 1;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) dp[(1ull << j) * (unsigned long long)m + j] = W[j + 1];
}

// Layer s >= 2: one thread per (mask, end city) pair, count = C(m, s) * s of them.  Thread
// t takes the (t / s)-th mask of s bits in colexicographic order (unranked with the
// binomial table: consecutive threads get nearby masks, so the rows they read are close)
// and the (t % s)-th city of that mask as its end.
extern "C" __global__ void held_karp_layer_kernel(COST_T* __restrict__ dp,
                                                  const COST_T* __restrict__ W, int n,
                                                  const unsigned* __restrict__ binom, int s,
                                                  long long count) {
    __shared__ COST_T sW[HK_MAXN * HK_MAXN];
    __shared__ unsigned sB[HK_MAXN * HK_MAXN];   // sB[b * HK_MAXN + i] = C(b, i)
    for (int i = threadIdx.x; i < n * n; i += blockDim.x) sW[i] = W[i];
    for (int i = threadIdx.x; i < HK_MAXN * HK_MAXN; i += blockDim.x) sB[i] = binom[i];
    __syncthreads();

    const int m = n - 1;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < count; t += stride) {
        long long r64 = t / s;
        unsigned which = (unsigned)(t - r64 * s);
        unsigned r = (unsigned)r64;
        unsigned mask = 0u;
        int need = s;
        for (int b = m - 1; b >= 0 && need > 0; --b) {
            unsigned cb = sB[b * HK_MAXN + need];
            if (cb <= r) { r -= cb; mask |= 1u << b; --need; }
        }
        // exercise tsp.held_karp_layer: begin
        int j = nth_bit(mask, which);
        unsigned prev = mask & ~(1u << j);
        const COST_T* row = dp + (unsigned long long)prev * m;
        COST_T best = COST_MAX;
        for (unsigned bits = prev; bits; bits &= bits - 1u) {
            int kk = __ffs(bits) - 1;
            COST_T v = row[kk] + sW[(kk + 1) * n + j + 1];
            best = v < best ? v : best;
        }
        dp[(unsigned long long)mask * m + j] = best;
        // exercise tsp.held_karp_layer: end
    }
}

// Close the tour and walk it back, with one warp (lane = city - 1, m <= 32): the last city
// is the lowest one with the best closed cost; each predecessor is the lowest city whose
// value explains the current one, so no parent table is stored.
extern "C" __global__ void held_karp_backtrack_kernel(const COST_T* __restrict__ dp,
                                                      const COST_T* __restrict__ W, int n,
                                                      int* __restrict__ tour,
                                                      COST_T* __restrict__ length) {
    const int m = n - 1;
    const int lane = threadIdx.x & 31;
    const unsigned full = m >= 32 ? 0xffffffffu : ((1u << m) - 1u);
    COST_T v = COST_MAX;
    int j = lane;
    if (lane < m) v = dp[(unsigned long long)full * m + lane] + W[(lane + 1) * n];
    warp_argmin(v, j);
    if (lane == 0) { *length = v; tour[0] = 0; }
    unsigned mask = full;
    for (int pos = n - 1; pos >= 1; --pos) {
        if (lane == 0) tour[pos] = j + 1;
        unsigned prev = mask & ~(1u << j);
        if (prev == 0u) break;
        COST_T target = dp[(unsigned long long)mask * m + j];
        bool ok = lane < m && ((prev >> lane) & 1u) &&
                  dp[(unsigned long long)prev * m + lane] + W[(lane + 1) * n + j + 1] == target;
        unsigned votes = __ballot_sync(GPUALGO_FULL_MASK, ok);
        j = __ffs(votes) - 1;
        mask = prev;
    }
}
