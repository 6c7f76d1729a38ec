// The auction algorithm (Bertsekas) for the assignment problem, one kernel per step.
//
// Units: benefits are stored as int32 `raw` (MISSING_EDGE for a missing edge) and used
// as raw * scale in 64-bit integers; prices are int64.  With scale = m + 1 and eps = 1
// the auction is exact for integer benefits (eps < 1/m in the original units), and
// every variant performs the same integer operations as the serial version.
//
// Rules shared with the serial code (gpualgo/assignment/auction/serial.py):
//  * a bidder's target is its best profit, ties to the lowest object index;
//  * its increment is g1 - g2 + eps, capped at `cap` (a person with a single edge has
//    no g2 and bids the cap: the report bids +inf there);
//  * an object goes to the largest increment; the deterministic kernels break ties
//    towards the lowest person index, the report's queue kernels towards whoever
//    comes first in the queue (an order set by atomics, so it varies from run to run).
//
// Two families:
//  1. the report's kernels: bid_kernel (2-D grid, two-stage top-2 reduction with the
//     last block found by an atomic counter), assign_kernel (one block per object),
//     rebuild_queue_kernel (the unassigned queue for the next round);
//  2. the fast kernels of eps-scaling: phase_start_kernel, bid_warp_kernel (a group of
//     warps per bidder, one warp to a whole block, coalesced int4 row scan, the winner
//     per object chosen with one 64-bit atomicMax), assign_winner_kernel (one thread per
//     object that got a bid), tail_rounds_kernel (once TAIL_MAX bidders or fewer
//     remain, a single block runs all the remaining rounds of the phase without going
//     back to the host), plus their CSR twins for sparse matrices.  Both bidding
//     kernels decide most bids from per-person bid caches instead of row scans.
//     With persistent=True, bulk_rounds_kernel (a cooperative launch) runs the rounds
//     of bid_warp_kernel and assign_winner_kernel itself, with grid barriers between them.
//
// Compile-time constants come from the host as defines (`defines()` in
// gpualgo/assignment/auction/gpu.py): TAIL_MAX, CACHE_K, KEY_BITS, TAIL_CLOCK (1: the tail
// kernel adds its time to `tail_clock`, below) and the slots of the
// int32 `counters` array every kernel shares: C_MATCHED (persons matched), C_ROUNDS
// (rounds), C_CACHE_HITS and C_TAIL_SCANS (bids of the tail kernel decided by a cache,
// and by a full scan), C_TAIL_SOLO (its rounds run by one warp alone); C_PERSONS0/1 and
// C_OBJECTS0/1 hold the lengths of the person and object queues of the two round
// parities.  The fallbacks below only let the file compile on its own (the compile
// test); the host's values win.
#include <cooperative_groups.h>
#include "common.cuh"

#ifndef TAIL_MAX
#define TAIL_MAX 12
#endif
#ifndef CACHE_K
#define CACHE_K 256
#endif
#ifndef TAIL_CLOCK
#define TAIL_CLOCK 0
#endif
#ifndef NARROW_SCANS
#define NARROW_SCANS 0
#endif
#ifndef C_MATCHED
#define C_PERSONS0 0
#define C_PERSONS1 1
#define C_OBJECTS0 2
#define C_OBJECTS1 3
#define C_MATCHED 4
#define C_ROUNDS 5
#define C_CACHE_HITS 6
#define C_TAIL_SCANS 7
#define C_TAIL_SOLO 8
#endif

#define MISSING_EDGE (-2147483647 - 1)
#define NEG_PROFIT (-(1LL << 62))
#define NO_INDEX 0x7fffffff
// bid key of the fast kernels: increment in the high 64 - KEY_BITS bits,
// (2^KEY_BITS - 1 - person) in the low ones
#ifndef KEY_BITS
#define KEY_BITS 24
#endif
#define KEY_MASK ((1ULL << KEY_BITS) - 1ULL)

// ------------------------------------------------------------------------------------
// Shared: a thread's top-2 fold (the report's kernels) and the bid increment (all)
// ------------------------------------------------------------------------------------

// Fold one profit into a thread's running (best, second, argmax).  Objects arrive in
// increasing index order within a thread, so a strict > keeps the lowest index.  (The
// scans of the eps-scaling kernels fold with Top2::push, below, which also keeps a third.)
__device__ __forceinline__ void top2_push(long long profit, int j, long long& best, long long& second, int& idx) {
    // exercise auction.top2: begin
    if (profit > best) {
        second = best;
        best = profit;
        idx = j;
    } else if (profit > second) {
        second = profit;
    }
    // exercise auction.top2: end
}

__device__ __forceinline__ long long bid_increment(long long best, long long second, long long eps, long long cap) {
    if (second == NEG_PROFIT) return cap;  // a single edge: no competitor to stay eps-close to
    long long inc = best - second + eps;
    return inc < cap ? inc : cap;
}

// ------------------------------------------------------------------------------------
// Versions gpu_v1, gpu_queues, gpu_deterministic, gpu_graph: the report's kernels
// ------------------------------------------------------------------------------------

// bid_kernel: one person per block row (blockIdx.y, grid-stride over the persons),
// its objects split over gridDim.x blocks.  Each block reduces its slice to a
// (best, second, argmax) triple and stores it in `part`; the last block to finish for
// that person (atomicInc on `done`, which wraps back to 0 for the next round) reduces
// the gridDim.x partials and publishes the bid.  Needs gridDim.x <= blockDim.x.
// queue == nullptr: every person is visited and assigned ones are skipped (gpu_v1).
// Otherwise the queue of unassigned persons holds *queue_len entries and the object
// that gets a bid is pushed (once) onto obj_queue.
extern "C" __global__ void bid_kernel(
    const int* __restrict__ raw, long long scale, const long long* __restrict__ price, int m, int n,
    const int* __restrict__ queue, const int* __restrict__ queue_len, const int* __restrict__ person_obj,
    long long eps, long long cap,
    long long* part_best, long long* part_second, int* part_idx, unsigned int* done,
    int* bid_obj, long long* bid_inc, int* obj_flag, int* obj_queue, int* obj_len,
    int* reset_len)
{
    __shared__ bool is_last;
    if (reset_len && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) *reset_len = 0;
    const int count = queue ? *queue_len : m;
    for (int k = blockIdx.y; k < count; k += gridDim.y) {
        const int i = queue ? queue[k] : k;
        if (person_obj[i] >= 0) {  // block-uniform branch: no bid from an assigned person
            if (blockIdx.x == 0 && threadIdx.x == 0) bid_obj[i] = -1;
            continue;
        }
        long long best = NEG_PROFIT, second = NEG_PROFIT;
        int idx = NO_INDEX;
        const int* row = raw + (size_t)i * n;
        for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
            const int a = row[j];
            if (a != MISSING_EDGE) top2_push((long long)a * scale - price[j], j, best, second, idx);
        }
        block_top2(best, second, idx, NEG_PROFIT, NO_INDEX);
        const size_t slot = (size_t)i * gridDim.x;
        if (threadIdx.x == 0) {
            part_best[slot + blockIdx.x] = best;
            part_second[slot + blockIdx.x] = second;
            part_idx[slot + blockIdx.x] = idx;
            __threadfence();  // partials visible before the counter says so
            is_last = atomicInc(&done[i], gridDim.x - 1) == gridDim.x - 1;
        }
        __syncthreads();
        if (is_last) {  // block-uniform
            __threadfence();
            best = NEG_PROFIT; second = NEG_PROFIT; idx = NO_INDEX;
            if (threadIdx.x < gridDim.x) {
                best = ((volatile long long*)part_best)[slot + threadIdx.x];
                second = ((volatile long long*)part_second)[slot + threadIdx.x];
                idx = ((volatile int*)part_idx)[slot + threadIdx.x];
            }
            block_top2(best, second, idx, NEG_PROFIT, NO_INDEX);
            if (threadIdx.x == 0) {
                bid_obj[i] = idx;
                bid_inc[i] = bid_increment(best, second, eps, cap);
                if (obj_queue) {
                    if (atomicExch(&obj_flag[idx], 1) == 0) obj_queue[atomicAdd(obj_len, 1)] = idx;
                } else {
                    obj_flag[idx] = 1;
                }
            }
        }
        __syncthreads();  // is_last is reused by the next person
    }
}

// assign_kernel: one block per object that got a bid (grid-stride over blockIdx.x).
// The block scans the bidders (every person for gpu_v1, the queue otherwise) for
// those who bid on this object and reduces (increment, candidate) to the maximum.
// The candidate is the person (deterministic: lowest person wins a tie) or the queue
// position (the report's version: the tie goes to whoever the atomics queued first).
// Thread 0 raises the price, moves the object, and queues the previous owner.
extern "C" __global__ void assign_kernel(
    const int* __restrict__ bid_obj, const long long* __restrict__ bid_inc, int m,
    const int* __restrict__ queue, const int* __restrict__ queue_len,
    int* obj_flag, const int* __restrict__ obj_queue, const int* __restrict__ obj_len, int n,
    long long* price, int* person_obj, int* obj_owner, int* counters,
    int* next_queue, int* next_len, int* reset_len, int deterministic)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (reset_len) *reset_len = 0;
    }
    const int nobj = obj_queue ? *obj_len : n;
    const int nbid = queue ? *queue_len : m;
    for (int k = blockIdx.x; k < nobj; k += gridDim.x) {
        const int j = obj_queue ? obj_queue[k] : k;
        if (!obj_flag[j]) continue;  // block-uniform (gpu_v1 visits every object)
        long long best = NEG_PROFIT;
        int cand = NO_INDEX;
        for (int t = threadIdx.x; t < nbid; t += blockDim.x) {
            const int i = queue ? queue[t] : t;
            if (bid_obj[i] == j) {
                const long long inc = bid_inc[i];
                const int c = (deterministic || !queue) ? i : t;
                if (inc > best || (inc == best && c < cand)) { best = inc; cand = c; }
            }
        }
        block_argmax(best, cand, NEG_PROFIT, NO_INDEX);
        if (threadIdx.x == 0) {
            const int winner = (deterministic || !queue) ? cand : queue[cand];
            const int prev = obj_owner[j];
            if (prev < 0) {
                atomicAdd(&counters[C_MATCHED], 1);
            } else {
                person_obj[prev] = -1;  // prev did not bid this round: no other block touches it
                if (next_queue) next_queue[atomicAdd(next_len, 1)] = prev;
            }
            price[j] += best;
            obj_owner[j] = winner;
            person_obj[winner] = j;
            obj_flag[j] = 0;
        }
        __syncthreads();
    }
}

// rebuild_queue_kernel: the bidders of this round who won nothing stay unassigned;
// append them to the next queue (the displaced owners are already there).  Also
// counts the round and clears the object queue for the next round.
extern "C" __global__ void rebuild_queue_kernel(
    const int* __restrict__ queue, const int* __restrict__ queue_len, const int* __restrict__ person_obj,
    int* bid_obj, int* next_queue, int* next_len, int* obj_len, int* counters)
{
    const int count = *queue_len;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
        const int i = queue[k];
        bid_obj[i] = -1;
        if (person_obj[i] < 0) next_queue[atomicAdd(next_len, 1)] = i;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (count > 0) counters[C_ROUNDS] += 1;
        *obj_len = 0;  // the assignment kernel, its only reader, has finished
    }
}

// ------------------------------------------------------------------------------------
// gpu_eps_scaling and gpu_sparse, step 1: a phase starts (prices kept)
// ------------------------------------------------------------------------------------

// phase_start_kernel: a new eps phase keeps the prices and unassigns everybody.
extern "C" __global__ void phase_start_kernel(int m, int n, int* person_obj, int* obj_owner,
                                              int* queue0, int* counters)
{
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += gridDim.x * blockDim.x) {
        if (t < m) { person_obj[t] = -1; queue0[t] = t; }
        obj_owner[t] = -1;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        counters[C_PERSONS0] = m; counters[C_PERSONS1] = 0; counters[C_OBJECTS0] = 0; counters[C_OBJECTS1] = 0;
        counters[C_MATCHED] = 0;
    }
}

// ------------------------------------------------------------------------------------
// gpu_eps_scaling and gpu_sparse, step 2: row scans (dense int4 groups, CSR rows)
// ------------------------------------------------------------------------------------

// A thread's running (best, second, argmax) of the profits it has seen, with the
// object and benefit of its best and of its second best (what a bid cache stores), and
// its third best profit (which bounds every other object the thread has seen).
// `price` is deliberately never __restrict__ in the scans below: the tail kernel writes
// prices between scans, so they must not go through the non-coherent read-only cache.
// `scale` is an int (the host checks that it fits): raw * scale is then one 32 x 32 ->
// 64-bit multiply instead of a 64 x 64 one.
#define NEG32 (-2147483647 - 1)  // the 32-bit fold's NEG_PROFIT (see DenseRows)
template <class P, long long NEG>
struct Fold2 {
    P best, second, third;
    int idx, val, idx2, val2;
    __device__ __forceinline__ void clear() {
        best = NEG; second = NEG; third = NEG; idx = NO_INDEX; val = 0; idx2 = NO_INDEX; val2 = 0;
    }
    // Written with selects, not branches: a scan folds every object of its row, so what it
    // costs is the instructions of one fold (with branches the compiler moved the whole
    // state between registers around each one).  c1 implies c2 (best >= second).
    __device__ __forceinline__ void push(P p, int j, int v) {
        const bool c1 = p > best, c2 = p > second, c3 = p > third;
        third = c2 ? second : (c3 ? p : third);
        idx2 = c1 ? idx : (c2 ? j : idx2);
        val2 = c1 ? val : (c2 ? v : val2);
        second = c1 ? best : (c2 ? p : second);
        best = c1 ? p : best;
        idx = c1 ? j : idx;
        val = c1 ? v : val;
    }
};
typedef Fold2<long long, NEG_PROFIT> Top2;

// raw * scale as a single 32 x 32 -> 64-bit multiply
__device__ __forceinline__ long long scaled(int a, int scale)
{
    long long r;
    asm("mul.wide.s32 %0, %1, %2;" : "=l"(r) : "r"(a), "r"(scale));
    return r;
}

// The profit of benefit a at price p; a missing edge gets NEG_PROFIT, which changes nothing
// when pushed (a select, not a branch: see Top2::push).  The int form is the 32-bit fold's
// (NARROW_SCANS), with NEG32.
__device__ __forceinline__ long long profit_of(int a, long long p, int scale)
{
    return a != MISSING_EDGE ? scaled(a, scale) - p : NEG_PROFIT;
}
__device__ __forceinline__ int profit_of(int a, int p, int scale)
{
    return a != MISSING_EDGE ? a * scale - p : NEG32;
}

__device__ __forceinline__ void fold4(int4 v, const longlong2* p2, int q, int scale, Top2& t)
{
    const longlong2 pa = p2[2 * q], pb = p2[2 * q + 1];
    const int j = q << 2;
    t.push(profit_of(v.x, pa.x, scale), j, v.x);
    t.push(profit_of(v.y, pa.y, scale), j + 1, v.y);
    t.push(profit_of(v.z, pb.x, scale), j + 2, v.z);
    t.push(profit_of(v.w, pb.y, scale), j + 3, v.w);
}

// The same fold in 32 bits (NEG32 for a missing edge and an empty slot): see DenseRows.
#define NARROW_PRICE (1u << 30)
struct Top2n : Fold2<int, NEG32> {
    __device__ __forceinline__ static long long wide(int p) { return p == NEG32 ? NEG_PROFIT : (long long)p; }
    __device__ __forceinline__ void widen(Top2& t) const {
        t.best = wide(best); t.second = wide(second); t.third = wide(third);
        t.idx = idx; t.val = val; t.idx2 = idx2; t.val2 = val2;
    }
};

// 32-bit profits of four objects folded; the prices' high and low words are or-ed into hi, lo.
__device__ __forceinline__ void fold4n(int4 v, const longlong2* p2, int q, int scale, Top2n& t, unsigned& hi,
                                       unsigned& lo)
{
    const longlong2 pa = p2[2 * q], pb = p2[2 * q + 1];
    const int j = q << 2;
    hi |= (unsigned)(pa.x >> 32) | (unsigned)(pa.y >> 32) | (unsigned)(pb.x >> 32) | (unsigned)(pb.y >> 32);
    lo |= (unsigned)pa.x | (unsigned)pa.y | (unsigned)pb.x | (unsigned)pb.y;
    t.push(profit_of(v.x, (int)pa.x, scale), j, v.x);
    t.push(profit_of(v.y, (int)pa.y, scale), j + 1, v.y);
    t.push(profit_of(v.z, (int)pb.x, scale), j + 2, v.z);
    t.push(profit_of(v.w, (int)pb.y, scale), j + 3, v.w);
}

// Set once a narrow scan has read a price of 2^30 or more (NARROW_SCANS): the run's bids are
// then no longer trusted, the kernels stop, and the host runs the whole solve again with
// 64-bit scans.  The host zeroes it before a run.
__device__ int narrow_abort;

// Dense rows: int32 benefits, row pitch ld (a multiple of 4, padded with MISSING_EDGE).
// A lane handles the int4 groups first, first + stride, ... in increasing order; it
// loads up to ROW_BATCH groups before folding any, so that their memory latencies
// overlap (the tail kernel's rounds are latency bound).
//   With NARROW_SCANS (the host compiles it when every |raw| * scale < 2^30) the profits
// raw * scale - price are folded in 32 bits: they cannot overflow while every price is in
// [0, 2^30), and then the values, their order and so the result are the same as in 64 bits,
// with half the instructions (a scan by one block, the tail's, is bound by them as much as
// by its loads).  Prices only rise, so a scan that reads a larger one returns false (the
// whole warp) and sets narrow_abort: see above.  One loop per build, not both: with both
// in one kernel the tail's registers spilled and its other rounds were slower.
#define ROW_BATCH 4
struct DenseRows {
    const int* raw;
    int ld;
    // t must be clear; called by whole warps; false: a narrow scan read a price too large
    __device__ __forceinline__ bool scan(int i, int scale, const long long* price, int first, int stride,
                                         Top2& t) const {
        const int4* row = reinterpret_cast<const int4*>(raw + (size_t)i * ld);
        const longlong2* p2 = reinterpret_cast<const longlong2*>(price);
        const int n4 = ld >> 2;
#if NARROW_SCANS
        Top2n u;
        u.clear();
        unsigned hi = 0, lo = 0;  // the bits of every price read, or-ed
#endif
        for (int q = first; q < n4; q += ROW_BATCH * stride) {
            int4 v[ROW_BATCH];
#pragma unroll
            for (int k = 0; k < ROW_BATCH; ++k)
                if (q + k * stride < n4) v[k] = __ldcs(row + q + k * stride);
#pragma unroll
            for (int k = 0; k < ROW_BATCH; ++k)
                if (q + k * stride < n4) {
#if NARROW_SCANS
                    fold4n(v[k], p2, q + k * stride, scale, u, hi, lo);
#else
                    fold4(v[k], p2, q + k * stride, scale, t);
#endif
                }
        }
#if NARROW_SCANS
        u.widen(t);
        if (__all_sync(GPUALGO_FULL_MASK, hi == 0 && lo < NARROW_PRICE)) return true;
        if ((threadIdx.x & 31) == 0) atomicExch(&narrow_abort, 1);
        return false;
#else
        return true;
#endif
    }
};

// CSR rows (columns ascending), so a lane meets its objects in increasing order and
// ties resolve as in the dense scan.
struct CsrRows {
    const long long* indptr;
    const int* cols;
    const int* vals;
    __device__ __forceinline__ bool scan(int i, int scale, const long long* price, int first, int stride,
                                         Top2& t) const {
        const long long end = indptr[i + 1];
        for (long long e = indptr[i] + first; e < end; e += stride) {
            const int j = __ldg(cols + e), v = __ldg(vals + e);
            t.push(scaled(v, scale) - price[j], j, v);
        }
        return true;
    }
};

// ------------------------------------------------------------------------------------
// gpu_eps_scaling and gpu_sparse, step 3: bid caches (a bid without a row scan)
// ------------------------------------------------------------------------------------

// Prices never fall, so a person's profit for any object never rises.
// After a full scan of person i, its cache keeps a few objects (with their benefits)
// and `thr`, a bound on the profit of every object not in the cache.  Later, if the
// best cached profit is above thr and the second best is not below it, no other object
// can change the bid: (object, increment) are exactly those of a full scan, ties
// included.  Otherwise the person scans its row again, which refills the cache: each
// thread of the scan keeps the best two of its own objects; `thr` is the largest
// thread-level third best, and the cache gets every thread-level best and second best
// above it (an object that is neither is below its thread's third best, so below thr).
// Offering two objects per thread lowers thr, so a cache stays decisive for more price
// rises; it also holds more entries, hence CACHE_K = 256.
// The slot counter is len[i] itself (reset to 0 on a miss); a count above CACHE_K
// means that the cache overflowed and holds nothing usable.
static_assert(CACHE_K % 64 == 0, "CACHE_K must be a multiple of 64");
struct BidCache {
    int2* entry;     // [person][CACHE_K]: (object, benefit)
    int* len;        // entries in use; 0 or > CACHE_K: no cache
    long long* thr;  // bound on the profit of every object outside the cache
};

// The largest (Max) or smallest of the S values a lane holds, reduced as a tree: log2(S)
// steps of independent comparisons instead of a chain of S - 1 (v is overwritten).
template <bool Max, int S, class T>
__device__ __forceinline__ T lane_tree(T (&v)[S]) {
#pragma unroll
    for (int w = 1; w < S; w <<= 1)
#pragma unroll
        for (int t = 0; t + w < S; t += 2 * w) v[t] = (Max ? v[t] > v[t + w] : v[t] < v[t + w]) ? v[t] : v[t + w];
    return v[0];
}

// The warp's top two of the S profits each lane holds (objects o, each object at most once,
// unused slots NEG_PROFIT), every lane getting the result: the best (ties to the lowest
// object), then the best of the rest.  One warp often runs alone (the tail), so what counts
// is the length of the chain of dependent steps: each lane reduces its slots as a tree,
// the warp with warp_max and warp_min (common.cuh: redux.sync where the GPU has it), not
// five shuffle rounds of top2_merge.
template <int S>
__device__ __forceinline__ void cached_best(const long long (&p)[S], const int (&o)[S], long long& best, int& idx)
{
    long long m[S];
    int k[S];
#pragma unroll
    for (int t = 0; t < S; ++t) m[t] = p[t];
    best = warp_max(lane_tree<true>(m));
#pragma unroll
    for (int t = 0; t < S; ++t) k[t] = p[t] == best ? o[t] : NO_INDEX;
    idx = warp_min(lane_tree<false>(k));
}
template <int S>
__device__ __forceinline__ long long cached_second(const long long (&p)[S], const int (&o)[S], long long best,
                                                   int idx)
{
    long long r[S];
#pragma unroll
    for (int t = 0; t < S; ++t) r[t] = p[t] == best && o[t] == idx ? NEG_PROFIT : p[t];
    return warp_max(lane_tree<true>(r));
}
template <int S>
__device__ __forceinline__ void cached_top2(const long long (&p)[S], const int (&o)[S], long long& best,
                                            long long& second, int& idx)
{
    cached_best<S>(p, o, best, idx);
    second = cached_second<S>(p, o, best, idx);
}

// Person i's cache as one warp holds it: the length, the bound and all CACHE_K slots,
// loaded before any is used (two slots per 16-byte load), so their latencies overlap.
struct CacheLoad {
    int len;
    long long thr;
    int4 e[CACHE_K / 64];
};
__device__ __forceinline__ CacheLoad cache_load(const BidCache c, int i)
{
    const int lane = threadIdx.x & 31;
    CacheLoad l;
    l.len = c.len[i];
    l.thr = c.thr[i];
    const int4* entry = reinterpret_cast<const int4*>(c.entry + (size_t)i * CACHE_K);
#pragma unroll
    for (int u = 0; u < CACHE_K / 64; ++u) l.e[u] = entry[u * 32 + lane];
    return l;
}

// The profits of a loaded cache against the current prices (unused slots NEG_PROFIT); false
// when the person has no cache.  Warp-uniform.
__device__ __forceinline__ bool cache_profits(const CacheLoad& l, int scale, const long long* price,
                                              long long (&p)[CACHE_K / 32], int (&o)[CACHE_K / 32])
{
    const int lane = threadIdx.x & 31;
    if (l.len <= 0 || l.len > CACHE_K) return false;
#pragma unroll
    for (int u = 0; u < CACHE_K / 64; ++u) {
        const int slot = 2 * (u * 32 + lane);
        o[2 * u] = l.e[u].x;
        o[2 * u + 1] = l.e[u].z;
        p[2 * u] = slot < l.len ? scaled(l.e[u].y, scale) - price[l.e[u].x] : NEG_PROFIT;
        p[2 * u + 1] = slot + 1 < l.len ? scaled(l.e[u].w, scale) - price[l.e[u].z] : NEG_PROFIT;
    }
    return true;
}

// Whether a cache's best and second best profits decide the bid: both above every object
// outside the cache (the second may tie the bound: ties go to objects in the cache).
__device__ __forceinline__ bool cache_decides(long long best, long long second, long long thr)
{
    return best > thr && second >= thr;
}

// A miss: lane 0 resets person i's cache for the refill, ordered before the refill's slot claims.
__device__ __forceinline__ void cache_reset(const BidCache c, int i)
{
    if ((threadIdx.x & 31) == 0) c.len[i] = 0;
    __syncwarp();
}

// One warp: person i's bid from its cache.  Returns false when the person has no cache
// or the cache cannot decide; then the cache is reset for the refill.  Entries are in no
// particular order, so ties are broken explicitly by the lowest object index.
__device__ __forceinline__ bool cached_bid(const BidCache c, int i, int scale, const long long* price,
                                           long long& best, long long& second, int& idx)
{
    const CacheLoad l = cache_load(c, i);
    long long p[CACHE_K / 32];
    int o[CACHE_K / 32];
    bool hit = false;
    if (cache_profits(l, scale, price, p, o)) {
        cached_top2<CACHE_K / 32>(p, o, best, second, idx);
        hit = cache_decides(best, second, l.thr);
    }
    if (!hit) cache_reset(c, i);
    else __syncwarp();
    return hit;
}

// A warp's offers for the refill after a scan of person i (every lane calls it): `mine` is
// a lane's own top two (profit, index, benefit), thr the largest thread-level third best of
// all threads that scanned the row; a lane offers each of its two above thr (none when
// `scanned` is false).  Ballots number the warp's offers; `count` is their number.
struct Offers {
    bool first, second;
    unsigned m1, m2;
    int count;
};
__device__ __forceinline__ Offers cache_offers(const Top2& mine, long long thr, bool scanned)
{
    Offers f;
    f.first = scanned && mine.idx != NO_INDEX && mine.best > thr;
    f.second = scanned && mine.idx2 != NO_INDEX && mine.second > thr;
    f.m1 = __ballot_sync(GPUALGO_FULL_MASK, f.first);
    f.m2 = __ballot_sync(GPUALGO_FULL_MASK, f.second);
    f.count = __popc(f.m1) + __popc(f.m2);
    return f;
}

// The warp's offers stored from slot `base` of person i's cache on (those beyond CACHE_K are
// dropped: the length, counted in full, then says that the cache overflowed).
__device__ __forceinline__ void cache_store(const BidCache c, int i, const Top2& mine, const Offers& f, int base)
{
    const unsigned below = (1u << (threadIdx.x & 31)) - 1u;
    int2* e = c.entry + (size_t)i * CACHE_K;
    const int s1 = base + __popc(f.m1 & below), s2 = base + __popc(f.m1) + __popc(f.m2 & below);
    if (f.first && s1 < CACHE_K) e[s1] = make_int2(mine.idx, mine.val);
    if (f.second && s2 < CACHE_K) e[s2] = make_int2(mine.idx2, mine.val2);
}

// The refill by the warps of several blocks (bid_groups): one atomicAdd per warp on the
// length claims the slots of all its offers.  The leader (one thread) stores thr.
__device__ __forceinline__ void cache_offer(const BidCache c, int i, const Top2& mine, long long thr, bool leader)
{
    const Offers f = cache_offers(mine, thr, true);
    if (f.count) {  // warp-uniform
        int base = 0;
        if ((threadIdx.x & 31) == 0) base = atomicAdd(&c.len[i], f.count);
        cache_store(c, i, mine, f, __shfl_sync(GPUALGO_FULL_MASK, base, 0));
    }
    if (leader) c.thr[i] = thr;
}

// ------------------------------------------------------------------------------------
// gpu_eps_scaling and gpu_sparse, step 4: bids by groups of warps, one atomicMax each
// ------------------------------------------------------------------------------------

// One group of g warps per entry of the current list, g = 1, 2, 4, ... up to the warps
// of a block, chosen from the list's length so that a short list still spreads over
// the GPU (one warp scanning a whole row alone is latency bound).  The group's first
// warp tries the person's cache; on a miss the whole group scans the row and refills
// the cache.  Entries whose person got assigned since they were queued are skipped
// (the list is compacted lazily; no __restrict__ on the list, its length and person_obj,
// which change within bulk_rounds_kernel: see assign_winners).  The bid goes into
// obj_key[j] with a single atomicMax
// on (increment << KEY_BITS | (2^KEY_BITS - 1 - person)): the largest increment wins,
// ties to the lowest person, independent of timing.  The first bidder of an object
// queues it; every bidder re-queues itself (a winner is skipped next round).
template <class Rows>
__device__ void bid_groups(const Rows rows, int scale, const long long* price,
                           const int* list, const int* list_len, const int* person_obj, long long eps, long long cap,
                           unsigned long long* obj_key, int* obj_queue, int* obj_len,
                           int* next_list, int* next_len, int* reset_len, const BidCache cache)
{
    __shared__ long long part_best[32], part_second[32], part_thr[32];
    __shared__ int part_idx[32];
    __shared__ bool group_hit[32];
    if (blockIdx.x == 0 && threadIdx.x == 0) *reset_len = 0;  // object queue of the previous round
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
    const int count = *list_len;
    int g = (gridDim.x * wpb) / (count > 0 ? count : 1);
    g = g < 1 ? 1 : (g > wpb ? wpb : g);
    while (g & (g - 1)) g &= g - 1;  // a power of two that divides wpb
    const int groups = wpb / g, grp = warp / g, part = warp % g, first = grp * g;
    // a block-uniform trip count, so the group steps may use __syncthreads()
    for (int base = blockIdx.x * groups; base < count; base += gridDim.x * groups) {
        int i = base + grp < count ? list[base + grp] : -1;
        if (i >= 0 && person_obj[i] >= 0) i = -1;  // group-uniform
        Top2 t;
        t.clear();
        bool hit = false;
        if (i >= 0 && part == 0) hit = cached_bid(cache, i, scale, price, t.best, t.second, t.idx);
        if (g > 1) {
            if (part == 0 && lane == 0) group_hit[grp] = hit;
            __syncthreads();
            hit = group_hit[grp];
        }
        const bool scan = i >= 0 && !hit;  // group-uniform
        if (scan) {
            t.clear();
            rows.scan(i, scale, price, part * 32 + lane, g * 32, t);
        }
        const Top2 mine = t;
        long long thr = NEG_PROFIT;
        if (scan) {  // warp-uniform
            thr = warp_max(t.third);
            warp_top2(t.best, t.second, t.idx);
        }
        if (g > 1) {
            if (lane == 0) { part_best[warp] = t.best; part_second[warp] = t.second; part_idx[warp] = t.idx; part_thr[warp] = thr; }
            __syncthreads();
            thr = warp_max(lane < g ? part_thr[first + lane] : NEG_PROFIT);
            if (part == 0 && scan) {
                t.best = lane < g ? part_best[first + lane] : NEG_PROFIT;
                t.second = lane < g ? part_second[first + lane] : NEG_PROFIT;
                t.idx = lane < g ? part_idx[first + lane] : NO_INDEX;
                warp_top2(t.best, t.second, t.idx);
            }
            __syncthreads();  // the partials are reused by the next entry
        }
        if (scan) cache_offer(cache, i, mine, thr, part == 0 && lane == 0);
        if (i >= 0 && part == 0 && lane == 0) {
            const int j = t.idx;
            // exercise auction.bid_key: begin
            const long long inc = bid_increment(t.best, t.second, eps, cap);
            const unsigned long long key = ((unsigned long long)inc << KEY_BITS) | (KEY_MASK - (unsigned long long)i);
            if (atomicMax(&obj_key[j], key) == 0ULL) obj_queue[atomicAdd(obj_len, 1)] = j;
            // exercise auction.bid_key: end
            next_list[atomicAdd(next_len, 1)] = i;
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024) bid_warp_kernel(
    const int* __restrict__ raw, int ld, int scale, const long long* price,
    const int* __restrict__ list, const int* __restrict__ list_len, const int* __restrict__ person_obj,
    long long eps, long long cap, unsigned long long* obj_key, int* obj_queue, int* obj_len,
    int* next_list, int* next_len, int* reset_len, int2* cache_entry, int* cache_len, long long* cache_thr)
{
    bid_groups(DenseRows{raw, ld}, scale, price, list, list_len, person_obj, eps, cap,
               obj_key, obj_queue, obj_len, next_list, next_len, reset_len,
               BidCache{cache_entry, cache_len, cache_thr});
}

extern "C" __global__ void __launch_bounds__(1024) bid_warp_csr_kernel(
    const long long* __restrict__ indptr, const int* __restrict__ cols, const int* __restrict__ vals,
    int scale, const long long* price,
    const int* __restrict__ list, const int* __restrict__ list_len, const int* __restrict__ person_obj,
    long long eps, long long cap, unsigned long long* obj_key, int* obj_queue, int* obj_len,
    int* next_list, int* next_len, int* reset_len, int2* cache_entry, int* cache_len, long long* cache_thr)
{
    bid_groups(CsrRows{indptr, cols, vals}, scale, price, list, list_len, person_obj, eps, cap,
               obj_key, obj_queue, obj_len, next_list, next_len, reset_len,
               BidCache{cache_entry, cache_len, cache_thr});
}

// ------------------------------------------------------------------------------------
// gpu_eps_scaling and gpu_sparse, step 5: each object with a bid goes to its winner
// ------------------------------------------------------------------------------------

// assign_winners (assign_winner_kernel, and bulk_rounds between its grid barriers): one
// thread per object that got a bid: decode the key, raise the price, move the object, queue
// the displaced owner.  Clears the key for the next round and the length of the list the
// bid step read (it becomes the next-next list).  No __restrict__ on what the bid step
// writes: in bulk_rounds it changes within the kernel, so it must not be read through the
// non-coherent cache (the kernel's own parameters may say __restrict__).
__device__ __forceinline__ void assign_winners(
    const int* obj_queue, const int* obj_len, unsigned long long* obj_key,
    long long* price, int* person_obj, int* obj_owner, int* counters,
    int* next_list, int* next_len, int* reset_len)
{
    const int count = *obj_len;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *reset_len = 0;
        if (count > 0) counters[C_ROUNDS] += 1;
    }
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
        // exercise auction.assign_winner: begin
        const int j = obj_queue[k];
        const unsigned long long key = obj_key[j];
        obj_key[j] = 0ULL;
        const int winner = (int)(KEY_MASK - (key & KEY_MASK));
        const int prev = obj_owner[j];
        if (prev < 0) {
            atomicAdd(&counters[C_MATCHED], 1);
        } else {
            person_obj[prev] = -1;
            next_list[atomicAdd(next_len, 1)] = prev;
        }
        price[j] += (long long)(key >> KEY_BITS);
        obj_owner[j] = winner;
        person_obj[winner] = j;
        // exercise auction.assign_winner: end
    }
}

extern "C" __global__ void assign_winner_kernel(
    const int* __restrict__ obj_queue, const int* __restrict__ obj_len, unsigned long long* obj_key,
    long long* price, int* person_obj, int* obj_owner, int* counters,
    int* next_list, int* next_len, int* reset_len)
{
    assign_winners(obj_queue, obj_len, obj_key, price, person_obj, obj_owner, counters, next_list, next_len,
                   reset_len);
}

// ------------------------------------------------------------------------------------
// gpu_eps_scaling and gpu_sparse with persistent=True: the bulk rounds in one launch
// ------------------------------------------------------------------------------------

// bulk_rounds_kernel: a cooperative launch (every block resident) that runs the rounds
// with more than TAIL_MAX bidders itself: the bid step (bid_groups), a grid barrier, the
// award (assign_winners), a grid barrier, where the CUDA graph of the default path puts a
// kernel boundary (two launches a round, and a copy to the host every rounds_per_check
// rounds).  Rounds go by pairs, so the lists end at parity 0 as the tail kernel expects;
// before each pair every thread reads the persons still unassigned (n_obj - C_MATCHED,
// read after a barrier, so the same for all): TAIL_MAX or fewer end the launch, and the
// tail kernel takes over.  Also ends after max_pairs pairs (the host then checks the
// round limit and launches again).  The rounds are those of the default path, in the
// same order: prices and assignments are equal.
template <class Rows>
__device__ void bulk_rounds(const Rows rows, int scale, long long* price, int n_obj, int* list0, int* list1,
                            int* objq0, int* objq1, int* person_obj, int* obj_owner, long long eps, long long cap,
                            unsigned long long* obj_key, int* counters, const BidCache cache, int max_pairs)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    for (int k = 0; k < max_pairs; ++k) {
        if (n_obj - *(volatile int*)&counters[C_MATCHED] <= TAIL_MAX) return;  // grid-uniform
        for (int p = 0; p < 2; ++p) {
            int* list = p ? list1 : list0;
            int* next = p ? list0 : list1;
            int* objq = p ? objq1 : objq0;
            int* len = counters + (p ? C_PERSONS1 : C_PERSONS0);
            int* next_len = counters + (p ? C_PERSONS0 : C_PERSONS1);
            int* obj_len = counters + (p ? C_OBJECTS1 : C_OBJECTS0);
            int* other_obj_len = counters + (p ? C_OBJECTS0 : C_OBJECTS1);
            bid_groups(rows, scale, price, list, len, person_obj, eps, cap, obj_key, objq, obj_len, next, next_len,
                       other_obj_len, cache);
            grid.sync();
            assign_winners(objq, obj_len, obj_key, price, person_obj, obj_owner, counters, next, next_len, len);
            grid.sync();
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024) bulk_rounds_kernel(
    const int* __restrict__ raw, int ld, int scale, long long* price, int n_obj, int* list0, int* list1,
    int* objq0, int* objq1, int* person_obj, int* obj_owner, long long eps, long long cap,
    unsigned long long* obj_key, int* counters, int2* cache_entry, int* cache_len, long long* cache_thr,
    int max_pairs)
{
    bulk_rounds(DenseRows{raw, ld}, scale, price, n_obj, list0, list1, objq0, objq1, person_obj, obj_owner, eps,
                cap, obj_key, counters, BidCache{cache_entry, cache_len, cache_thr}, max_pairs);
}

extern "C" __global__ void __launch_bounds__(1024) bulk_rounds_csr_kernel(
    const long long* __restrict__ indptr, const int* __restrict__ cols, const int* __restrict__ vals,
    int scale, long long* price, int n_obj, int* list0, int* list1,
    int* objq0, int* objq1, int* person_obj, int* obj_owner, long long eps, long long cap,
    unsigned long long* obj_key, int* counters, int2* cache_entry, int* cache_len, long long* cache_thr,
    int max_pairs)
{
    bulk_rounds(CsrRows{indptr, cols, vals}, scale, price, n_obj, list0, list1, objq0, objq1, person_obj,
                obj_owner, eps, cap, obj_key, counters, BidCache{cache_entry, cache_len, cache_thr}, max_pairs);
}

// ------------------------------------------------------------------------------------
// gpu_eps_scaling and gpu_sparse, step 6: one block runs the last rounds of a phase
// ------------------------------------------------------------------------------------

// tail_rounds_kernel: launched with ONE block of 1024 threads.  The number of bidders
// never grows within a phase (each round, every object that got a bid stays taken),
// and most rounds of a phase have a handful of bidders.  Once at most TAIL_MAX are
// left, this block runs all remaining rounds itself, with no kernel launch or host
// round trip per round.  A round (one device function each, below):
//   (a) tail_cache_bids: warp b tries bidder b's cache;                 __syncthreads()
//   (b) tail_scan_bids: if some bidders missed, the 32 warps are split over them
//       (32 / misses warps each), scan the rows, store per-warp partial results;
//                                                                       __syncthreads()
//       each bidder's warps refill its cache while warp 0 merges the partials into
//       the bids;
//   (c) tail_award: warp 0 decides the winners and updates prices, owners and the
//       bidder list;                                                    __syncthreads()
// Most rounds of a tail have a single bidder (a chain of displacements: the bidder wins,
// its object's owner bids next).  Those run in (d) tail_solo, warp 0 alone, one round
// after the other with no block barrier, for as long as the bidder's cache decides its
// bid; the first miss is handed to (b) with one barrier.
// With more than TAIL_MAX unassigned persons it returns without changing anything.
// With state_in_shared, the launch provides dynamic shared memory for the prices
// (n_price of them) and the owners (n_obj): they are copied in once, every round
// reads and writes them there, and they are copied back at the end.  Otherwise the
// rounds use global memory.

#if TAIL_CLOCK
// With TAIL_CLOCK: the ns the tail block spends in its rounds (from the first round's start to
// the last one's end) and in their row scans, and the rounds it runs; the host zeroes and
// reads them (stats tail_ms, tail_scan_ms, tail_rounds).  %globaltimer is the GPU's clock in ns.
__device__ unsigned long long tail_clock[3];
__device__ __forceinline__ unsigned long long clock_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#endif

// The block's shared state during the tail: the bidders of this round and the next, each
// bidder's target and increment, the bidders whose cache missed, the per-warp partial
// results of the scans, and the counters reported at the end.
struct TailState {
    int bidders[TAIL_MAX], tgt[TAIL_MAX], miss[TAIL_MAX];
    long long inc[TAIL_MAX];
    int nb, matched, hits, scans;
    int n_miss[2];  // by round parity: a round resets the next round's counter
    int solo, solo_left, solo_miss;  // the last tail_solo: its rounds, bidders left (0 or 1), a miss
    long long part_best[32], part_second[32], part_thr[32];
    int part_idx[32], part_offers[32];
    int abort;  // NARROW_SCANS: a scan read a price too large
};

// Gather the unassigned persons of the list into st.bidders (st.nb of them; more than
// TAIL_MAX are counted but not stored).  Called by every thread; ends with a barrier.
__device__ __forceinline__ void tail_gather(TailState& st, const int* __restrict__ list,
                                            const int* __restrict__ list_len, const int* person_obj)
{
    if (threadIdx.x == 0) {
        st.nb = 0; st.n_miss[0] = 0; st.n_miss[1] = 0; st.matched = 0; st.hits = 0; st.scans = 0;
#if NARROW_SCANS
        st.abort = 0;
#endif
        st.solo = 0; st.solo_left = 0; st.solo_miss = 0;
    }
    __syncthreads();
    const int count = *list_len;
    for (int k = threadIdx.x; k < count; k += blockDim.x) {
        const int i = list[k];
        if (person_obj[i] < 0) {
            const int s = atomicAdd(&st.nb, 1);
            if (s < TAIL_MAX) st.bidders[s] = i;
        }
    }
    __syncthreads();
}

// (a) Warp b < b_count takes bidder b's bid from its cache when the cache can still
// prove it; a bidder whose cache cannot is listed in st.miss for (b).
__device__ __forceinline__ void tail_cache_bids(TailState& st, const BidCache cache, int scale,
                                                const long long* P, long long eps, long long cap,
                                                int b_count, int parity)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (warp < b_count) {
        long long g1, g2;
        int x;
        const bool hit = cached_bid(cache, st.bidders[warp], scale, P, g1, g2, x);
        if (lane == 0) {
            if (hit) { st.tgt[warp] = x; st.inc[warp] = bid_increment(g1, g2, eps, cap); }
            else st.miss[atomicAdd(&st.n_miss[parity], 1)] = warp;
        }
    }
}

// (b) Full scans of the rows of the m_count bidders that missed: `per` warps per bidder
// (a power of two) each scan a part of its row; the bidder's warps refill its cache,
// and warp 0 merges each bidder's partial results into its bid.  Called by every thread
// (it holds a block barrier) when m_count > 0.
template <class Rows>
__device__ __forceinline__ void tail_scan_bids(TailState& st, const Rows& rows, const BidCache cache, int scale,
                                               const long long* P, long long eps, long long cap, int m_count)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int per = 32 / m_count;  // warps per bidder, a power of two
    while (per & (per - 1)) per &= per - 1;
    const int k = warp / per, part = warp % per;
    const int person = k < m_count ? st.bidders[st.miss[k]] : -1;
    Top2 t;
    t.clear();
#if NARROW_SCANS
    if (person >= 0 && !rows.scan(person, scale, P, part * 32 + lane, per * 32, t) && lane == 0)
        atomicOr(&st.abort, 1);
#else
    if (person >= 0) rows.scan(person, scale, P, part * 32 + lane, per * 32, t);
#endif
    const Top2 mine = t;
    const long long my_thr = warp_max(t.third);
    warp_top2(t.best, t.second, t.idx);
    if (lane == 0) {
        st.part_best[warp] = t.best; st.part_second[warp] = t.second; st.part_idx[warp] = t.idx;
        st.part_thr[warp] = my_thr;
    }
    __syncthreads();
    const long long thr = warp_max(lane < per && person >= 0 ? st.part_thr[k * per + lane] : NEG_PROFIT);
    // the refill, in the block: after a barrier each warp's first slot is the number of
    // offers of the warps before it in its segment (no atomic on the length in memory)
    const Offers f = cache_offers(mine, thr, person >= 0);
    if (lane == 0) st.part_offers[warp] = f.count;
    __syncthreads();
    if (person >= 0) {  // warp-uniform
        const int c = lane < per ? st.part_offers[k * per + lane] : 0;
        const int base = warp_sum(lane < part ? c : 0), total = warp_sum(c);
        cache_store(cache, person, mine, f, base);
        if (part == 0 && lane == 0) { cache.len[person] = total; cache.thr[person] = thr; }
    }
    if (warp == 0) {  // merge the partials of each bidder's segment of `per` warps
        long long g1 = st.part_best[lane], g2 = st.part_second[lane];
        int x = st.part_idx[lane];
        if (per == 32) warp_top2(g1, g2, x);  // one bidder: the whole warp, with redux.sync where the GPU has it
        else for (int o = 1; o < per; o <<= 1) {
            const long long ob = __shfl_xor_sync(GPUALGO_FULL_MASK, g1, o);
            const long long os = __shfl_xor_sync(GPUALGO_FULL_MASK, g2, o);
            const int oi = __shfl_xor_sync(GPUALGO_FULL_MASK, x, o);
            top2_merge(g1, g2, x, ob, os, oi);
        }
        if (lane % per == 0 && lane / per < m_count) {
            const int b = st.miss[lane / per];
            st.tgt[b] = x;
            st.inc[b] = bid_increment(g1, g2, eps, cap);
        }
    }
}

// Person i takes object j, whose price rises by inc; prev, j's owner until now (or -1), loses it.
// The stores of an award, in (c) and (d) alike.
__device__ __forceinline__ void tail_take(long long* P, int* O, int* person_obj, int i, int j, long long inc,
                                         int prev)
{
    P[j] += inc;
    O[j] = i;
    person_obj[i] = j;
    if (prev >= 0) person_obj[prev] = -1;
}

// (c) Warp 0 alone (no block barrier inside): lane t decides whether bidder t wins its
// target (the largest increment, ties to the lowest person), updates prices, owners and
// assignments, and the next round's bidders (the losers and the persons outbid) replace
// this round's, in lane order.  The bids go round the warp by shuffles and the next list
// is numbered by a ballot: the award is a chain of register steps, with no shared-memory
// atomics and no list copied through shared memory.
__device__ __forceinline__ void tail_award(TailState& st, long long* P, int* O, int* person_obj,
                                          int b_count, int m_count, int parity)
{
    const int lane = threadIdx.x & 31;
    __syncwarp();  // the bids that warp 0's lanes merged in tail_scan_bids are written
    const bool bidder = lane < b_count;
    const int i = bidder ? st.bidders[lane] : 0, j = bidder ? st.tgt[lane] : 0;
    const long long inc = bidder ? st.inc[lane] : 0;
    const int prev = bidder ? O[j] : -1;  // read before any award: an object has one winner
    bool wins = bidder;
    for (int v = 0; v < b_count; ++v) {
        const int jv = __shfl_sync(GPUALGO_FULL_MASK, j, v), iv = __shfl_sync(GPUALGO_FULL_MASK, i, v);
        const long long cv = __shfl_sync(GPUALGO_FULL_MASK, inc, v);
        if (v != lane && jv == j && (cv > inc || (cv == inc && iv < i))) wins = false;
    }
    // the next round's bidders: a loser, or the owner a winner displaced
    const bool stays = bidder && !(wins && prev < 0);
    const unsigned m_next = __ballot_sync(GPUALGO_FULL_MASK, stays);
    const unsigned m_free = __ballot_sync(GPUALGO_FULL_MASK, wins && prev < 0);
    __syncwarp();  // every lane has read its bid and its target's owner before the writes below
    if (stays) st.bidders[__popc(m_next & ((1u << lane) - 1u))] = wins ? prev : i;
    if (wins) tail_take(P, O, person_obj, i, j, inc, prev);
    __syncwarp();
    if (lane == 0) {
        st.matched += __popc(m_free); st.hits += b_count - m_count; st.scans += m_count; st.nb = __popc(m_next);
        st.n_miss[parity ^ 1] = 0; st.solo_miss = 0;
    }
}

// (d) Warp 0 alone, while st.nb == 1: rounds with one bidder.  With no other bid the
// bidder wins its target; the target's owner, if any, is the next round's only bidder.
// The rounds follow each other with no block barrier, as long as the bidder's cache
// decides its bid (the bid is then the one a full round would make).  Once a bid is
// known, so is the next bidder (the target's owner): its cache is loaded then, while the
// bid is checked and awarded, so that the next round waits less for it (only this warp
// writes caches here, and only its own bidder's, on a miss).  Ends with nobody
// left (the target was free) or at a cache miss: st.bidders[0] is then the bidder
// whose row must be scanned, with st.solo_miss set.  It reports in st.solo (rounds
// run) and st.solo_left, not st.nb: the other warps may still be reading st.nb.
__device__ __forceinline__ void tail_solo(TailState& st, const BidCache cache, int scale, long long* P, int* O,
                                         int* person_obj, long long eps, long long cap)
{
    const int lane = threadIdx.x & 31;
    int i = st.bidders[0], steps = 0, left = 1;
    bool miss = false;
    CacheLoad l = cache_load(cache, i);
    while (true) {
        long long p[CACHE_K / 32], g1, g2;
        int o[CACHE_K / 32], x;
        if (!cache_profits(l, scale, P, p, o)) {  // warp-uniform
            cache_reset(cache, i);
            miss = true;
            break;
        }
        // cached_top2 in its two halves (best and target, then the second best); the target
        // x gives the next bidder (its owner), whose cache is loaded before this bid is
        // checked and awarded.  (Loaded between the two halves, as soon as x is known, it kept
        // more registers live: with the 64 a thread of a 1024-thread block has, the compiler
        // spilled inside this loop, and the rounds were slower.)
        cached_best<CACHE_K / 32>(p, o, g1, x);
        const int prev = O[x];
        g2 = cached_second<CACHE_K / 32>(p, o, g1, x);
        const CacheLoad next = cache_load(cache, prev < 0 ? i : prev);
        if (!cache_decides(g1, g2, l.thr)) {
            cache_reset(cache, i);
            miss = true;
            break;
        }
        __syncwarp();  // every lane has read O[x] before lane 0 changes it
        if (lane == 0) tail_take(P, O, person_obj, i, x, bid_increment(g1, g2, eps, cap), prev);
        __syncwarp();  // the next bid reads the new price
        ++steps;
        if (prev < 0) {
            left = 0;
            break;
        }
        i = prev;
        l = next;
    }
    if (lane == 0) {
        st.bidders[0] = i; st.solo_left = left; st.solo = steps; st.solo_miss = miss;
        st.hits += steps; st.matched += 1 - left;
    }
}

template <class Rows>
__device__ void tail_rounds(const Rows rows, int scale, long long* price, int n_price, int n_obj,
                            const int* __restrict__ list, const int* __restrict__ list_len,
                            int* person_obj, int* obj_owner, long long eps, long long cap, int* counters,
                            const BidCache cache, int state_in_shared)
{
    extern __shared__ __align__(16) long long shared_state[];
    __shared__ TailState st;
#if NARROW_SCANS
    if (*(volatile int*)&narrow_abort) {  // the rounds before read a price too large: end the phase
        if (threadIdx.x == 0) counters[C_MATCHED] = n_obj;
        return;
    }
#endif
    tail_gather(st, list, list_len, person_obj);
    if (st.nb > TAIL_MAX || st.nb == 0) return;  // block-uniform: the multi-block rounds go on, or done
    long long* P = price;
    int* O = obj_owner;
    if (state_in_shared) {
        P = shared_state;
        O = reinterpret_cast<int*>(shared_state + n_price);
        for (int t = threadIdx.x; t < n_price; t += blockDim.x) P[t] = price[t];
        for (int t = threadIdx.x; t < n_obj; t += blockDim.x) O[t] = obj_owner[t];
        __syncthreads();
    }
#if TAIL_CLOCK
    const unsigned long long t_start = clock_ns();
    unsigned long long scan_ns = 0;
#endif
    int rounds = 0, parity = 0, solo_rounds = 0;
    while (st.nb > 0) {
        if (st.nb == 1) {  // block-uniform
            if ((threadIdx.x >> 5) == 0) tail_solo(st, cache, scale, P, O, person_obj, eps, cap);
            __syncthreads();
            rounds += st.solo;
            solo_rounds += st.solo;
            if (st.solo_left == 0) break;  // block-uniform; else st.bidders[0]'s cache missed
        }
        const int b_count = st.nb;
        if (!st.solo_miss) tail_cache_bids(st, cache, scale, P, eps, cap, b_count, parity);
        else if (threadIdx.x == 0) { st.miss[0] = 0; st.n_miss[parity] = 1; }
        __syncthreads();
        const int m_count = st.n_miss[parity];
        if (m_count > 0) {  // block-uniform
#if TAIL_CLOCK
            const unsigned long long t_scan = clock_ns();
#endif
            tail_scan_bids(st, rows, cache, scale, P, eps, cap, m_count);
#if TAIL_CLOCK
            scan_ns += clock_ns() - t_scan;
#endif
        }
        if ((threadIdx.x >> 5) == 0) tail_award(st, P, O, person_obj, b_count, m_count, parity);
        ++rounds;
        parity ^= 1;
        __syncthreads();
#if NARROW_SCANS
        if (st.abort) break;  // block-uniform
#endif
    }
#if TAIL_CLOCK
    if (threadIdx.x == 0) {
        atomicAdd(&tail_clock[0], clock_ns() - t_start);
        atomicAdd(&tail_clock[1], scan_ns);
        atomicAdd(&tail_clock[2], (unsigned long long)rounds);
    }
#endif
    if (state_in_shared) {
        for (int t = threadIdx.x; t < n_price; t += blockDim.x) price[t] = P[t];
        for (int t = threadIdx.x; t < n_obj; t += blockDim.x) obj_owner[t] = O[t];
    }
    if (threadIdx.x == 0) {
        counters[C_ROUNDS] += rounds;
#if NARROW_SCANS
        counters[C_MATCHED] = st.abort ? n_obj : counters[C_MATCHED] + st.matched;  // abort: the phase ends
#else
        counters[C_MATCHED] += st.matched;
#endif
        counters[C_CACHE_HITS] += st.hits;
        counters[C_TAIL_SCANS] += st.scans;
        counters[C_TAIL_SOLO] += solo_rounds;
    }
}

extern "C" __global__ void __launch_bounds__(1024, 1) tail_rounds_kernel(
    const int* __restrict__ raw, int ld, int scale, long long* price, int n_obj,
    const int* __restrict__ list, const int* __restrict__ list_len,
    int* person_obj, int* obj_owner, long long eps, long long cap, int* counters,
    int2* cache_entry, int* cache_len, long long* cache_thr, int state_in_shared)
{
    tail_rounds(DenseRows{raw, ld}, scale, price, ld, n_obj, list, list_len, person_obj, obj_owner, eps, cap,
                counters, BidCache{cache_entry, cache_len, cache_thr}, state_in_shared);
}

extern "C" __global__ void __launch_bounds__(1024, 1) tail_rounds_csr_kernel(
    const long long* __restrict__ indptr, const int* __restrict__ cols, const int* __restrict__ vals,
    int scale, long long* price, int n_obj, const int* __restrict__ list, const int* __restrict__ list_len,
    int* person_obj, int* obj_owner, long long eps, long long cap, int* counters,
    int2* cache_entry, int* cache_len, long long* cache_thr, int state_in_shared)
{
    tail_rounds(CsrRows{indptr, cols, vals}, scale, price, n_obj, n_obj, list, list_len, person_obj, obj_owner,
                eps, cap, counters, BidCache{cache_entry, cache_len, cache_thr}, state_in_shared);
}
