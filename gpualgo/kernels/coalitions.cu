// Dynamic programming for coalition structure generation (gpualgo.coalitions).
//
// f is the DP table of 2^n values indexed by coalition bitmask (agent i is bit i),
// initialised with the values v.  One launch (or one set of launches) per coalition
// size s, in increasing s, so that every subset of a coalition of size s is final when
// the coalition is evaluated:  f(C) = max(v(C), max over splits {X, C\X} of f(X) + f(C\X)).
// Several blocks may contribute to one f(C): they combine with atomic_max_value.
//
// VALUE_T is float (default) or double (-DVALUE_T=double).  The kernels come in groups:
// what every version shares, then one group per version (gpu_report, gpu_shared_splits,
// gpu_odp), then the rebuild of the partition.
#include "common.cuh"

#ifndef VALUE_T
#define VALUE_T float
#endif
typedef VALUE_T value_t;

// minus infinity from its bit pattern (NVRTC has no math headers); widens exactly to double
#define NEG_INF ((value_t)(-__int_as_float(0x7f800000)))

// ------------------------------------------------------------------------------------
// Every version: splits from a counter, atomic max on floats, the reduction into f
// ------------------------------------------------------------------------------------

// The report's initialSplit: deposit the bits of counter k into the set bits of mask
// (the lowest bit of k goes to the lowest agent of mask).
__device__ __forceinline__ unsigned scatter_bits(unsigned long long k, unsigned mask) {
    unsigned out = 0;
    while (mask && k) {
        unsigned low = mask & (0u - mask);
        if (k & 1ull) out |= low;
        k >>= 1;
        mask ^= low;
    }
    return out;
}

// The report's nextSplit: the next subset of mask in counter order, (x - mask) & mask.
__device__ __forceinline__ unsigned next_split(unsigned x, unsigned mask) {
    return (x - mask) & mask;
}

// Atomic max on a float or double of any sign.  Non-negative IEEE values order like
// their bit patterns read as signed integers; negative ones order in reverse as unsigned
// integers, and every negative pattern is above every non-negative one as unsigned.  So a
// signed max for v >= 0 and an unsigned min for v < 0 give the float max (no NaN here).
__device__ __forceinline__ void atomic_max_value(float* a, float v) {
    // exercise coalitions.atomic_max: begin
    if (v >= 0.0f) atomicMax(reinterpret_cast<int*>(a), __float_as_int(v));
    else atomicMin(reinterpret_cast<unsigned*>(a), __float_as_uint(v));
    // exercise coalitions.atomic_max: end
}

__device__ __forceinline__ void atomic_max_value(double* a, double v) {
    if (v >= 0.0) atomicMax(reinterpret_cast<long long*>(a), __double_as_longlong(v));
    else atomicMin(reinterpret_cast<unsigned long long*>(a),
                   static_cast<unsigned long long>(__double_as_longlong(v)));
}

__device__ __forceinline__ value_t vmax(value_t a, value_t b) { return b > a ? b : a; }

// Reduce over groups of g lanes (g a power of two <= 32) and let the group's first
// thread update f[c]: the report's thread -> warp shuffle -> block -> atomic chain.  A
// group of a whole block reduces through shared memory (block_max, common.cuh).
__device__ __forceinline__ void reduce_and_publish(value_t best, long long group, int rank,
                                                   value_t* f, unsigned c, bool valid) {
    if (group >= (long long)blockDim.x) {
        best = block_max(best, NEG_INF);
        if (threadIdx.x == 0 && valid && best > NEG_INF) atomic_max_value(&f[c], best);
        return;
    }
    if (group >= 32) {
        best = warp_max(best);
        if ((threadIdx.x & 31) == 0 && valid && best > NEG_INF) atomic_max_value(&f[c], best);
        return;
    }
    // exercise coalitions.warp_max: begin
    for (int o = 1; o < group; o <<= 1) best = vmax(best, __shfl_xor_sync(GPUALGO_FULL_MASK, best, o));
    if (rank == 0 && valid && best > NEG_INF) atomic_max_value(&f[c], best);
    // exercise coalitions.warp_max: end
}

// ------------------------------------------------------------------------------------
// Version gpu_report (the report's kernel): a group of threads per coalition
// ------------------------------------------------------------------------------------

// gpu_report: a group of `group` threads (a power of two) per coalition of size s, each
// thread a range of per_thread split counters; counter k is the split X = scatter(k, C
// without its top agent), Y = C \ X (Y keeps the top agent, so each pair comes once).
extern "C" __global__ void report_kernel(value_t* f, const unsigned* coal, long long count,
                                         int s, int per_thread, int group_log2) {
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long group = 1ll << group_log2;
    const long long ci = g >> group_log2;
    const int rank = (int)(g & (group - 1));
    const bool valid = ci < count;
    const unsigned c = valid ? coal[ci] : 0u;
    const unsigned cm = c & ~(1u << (31 - __clz(c | 1u)));
    const unsigned long long nsplit = 1ull << (s - 1);  // counters 0..nsplit-1; 0 is X = {}
    value_t best = NEG_INF;
    unsigned long long k = (unsigned long long)rank * per_thread;
    // exercise coalitions.splits: begin
    if (valid && k < nsplit) {
        unsigned x = scatter_bits(k, cm);
        for (int r = 0; r < per_thread && k < nsplit; ++r, ++k) {
            if (x) best = vmax(best, f[x] + f[c ^ x]);
            x = next_split(x, cm);
        }
    }
    // exercise coalitions.splits: end
    reduce_and_publish(best, group, rank, f, c, valid);
}

// ------------------------------------------------------------------------------------
// Version gpu_shared_splits: a thread reuses its reads across coalitions, in registers
// ------------------------------------------------------------------------------------

#ifndef SHARE_MAX
#define SHARE_MAX 8
#endif

// gpu_shared_splits: each group evaluates the same counters for `share` consecutive
// coalitions of the level (the report's collision reuse).  For one counter, a thread walks
// the coalitions in order and keeps the last subsets it read and their values in registers
// (px, fx for X; py, fy for its complement): when the next coalition's split X, or its
// complement, is the same subset, the value in the register is used instead of a second
// read from global memory.  Nothing is shared between threads: despite the name, the kernel
// uses no shared memory; what is shared are the splits of neighbouring coalitions, inside
// one thread.  The masks, splits and bests of the `share` coalitions are per-thread arrays
// of SHARE_MAX entries, fully unrolled so they stay in registers.  saved counts the reads
// avoided (one atomic per warp).
extern "C" __global__ void shared_splits_kernel(value_t* f, const unsigned* coal, long long count,
                                                int s, int per_thread, int group_log2, int share,
                                                unsigned long long* saved) {
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long group = 1ll << group_log2;
    const long long first = (g >> group_log2) * share;
    const int rank = (int)(g & (group - 1));
    const unsigned long long nsplit = 1ull << (s - 1);
    unsigned c[SHARE_MAX], cm[SHARE_MAX], x[SHARE_MAX];
    value_t best[SHARE_MAX];
    unsigned long long k = (unsigned long long)rank * per_thread;
#pragma unroll
    for (int j = 0; j < SHARE_MAX; ++j) {
        const bool ok = j < share && first + j < count;
        c[j] = ok ? coal[first + j] : 0u;
        cm[j] = c[j] & ~(1u << (31 - __clz(c[j] | 1u)));
        x[j] = k < nsplit ? scatter_bits(k, cm[j]) : 0u;
        best[j] = NEG_INF;
    }
    unsigned long long reused = 0;
    if (first < count && k < nsplit) {
        for (int r = 0; r < per_thread && k < nsplit; ++r, ++k) {
            unsigned px = 0xffffffffu, py = 0xffffffffu;
            value_t fx = 0, fy = 0;
#pragma unroll
            for (int j = 0; j < SHARE_MAX; ++j) {
                if (j < share && c[j]) {
                    const unsigned y = c[j] ^ x[j];
                    if (x[j] != px) { px = x[j]; fx = f[px]; } else ++reused;
                    if (y != py) { py = y; fy = f[py]; } else ++reused;
                    if (x[j]) best[j] = vmax(best[j], fx + fy);
                    x[j] = next_split(x[j], cm[j]);
                }
            }
        }
    }
#pragma unroll
    for (int j = 0; j < SHARE_MAX; ++j)
        if (j < share) reduce_and_publish(best[j], group, rank, f, c[j], c[j] != 0u);
    reused = warp_sum(reused);
    if ((threadIdx.x & 31) == 0 && reused) atomicAdd(saved, reused);
}

// ------------------------------------------------------------------------------------
// Version gpu_odp (beyond the report): the pruned DP on tiles of f in shared memory
// ------------------------------------------------------------------------------------

// gpu_odp: the pruned DP in shared-memory tiles.  Agents are split into `b` low bits and
// n - b high bits: C = Ch * 2^b + Cl.  For a high split Xh of Ch (Xh without the top
// agent of Ch, so each pair comes once), the values f(Xh * 2^b + Xl) and
// f((Ch ^ Xh) * 2^b + Yl) for all low parts are two contiguous segments of f: the block
// copies them into shared memory with coalesced reads, and then every coalition Cl of
// size t = s - |Ch| is split over all its low parts Xl from shared memory.  One launch
// per (s, h = |Ch|); block (ch_index, chunk) walks `tiles` consecutive Xh, keeps the best
// of each Cl in shared memory and publishes them with one atomic each at the end.
//
// ODP (odp != 0, s < n): a split into sizes x <= y is evaluated only when y <= n - s.  For a
// tile, |X| = |Xh| + j with j = |Xl|, so the allowed j form one range [jlo, jhi]; tiles
// with an empty range are skipped before loading anything.
//
// bypop: the 2^b low masks sorted by size; cnt_le[j]: how many have size <= j (so the
// coalitions Cl of size t are bypop[cnt_le[t-1] .. cnt_le[t]), and a tile needs only the
// first cnt_le[t] entries of each segment).  group: lanes that share one Cl (power of 2).
extern "C" __global__ void odp_tile_kernel(value_t* f, const unsigned* high_masks, int chunks,
                                           int tiles, int n, int b, int s, int h, int odp,
                                           const unsigned short* bypop, const int* cnt_le,
                                           int group) {
    extern __shared__ unsigned char smem_raw[];
    value_t* A = reinterpret_cast<value_t*>(smem_raw);
    value_t* B = A + (1 << b);
    value_t* acc = B + (1 << b);
    const int t = s - h;
    const int first_cl = t > 0 ? cnt_le[t - 1] : 0;
    const int m = cnt_le[t] - first_cl;
    const unsigned short* cls = bypop + first_cl;
    const int nload = cnt_le[t];
    const unsigned ch = high_masks[blockIdx.x / chunks];
    const long long chunk = blockIdx.x % chunks;
    const unsigned chm = h ? ch & ~(1u << (31 - __clz(ch))) : 0u;
    const unsigned long long nx = h ? (1ull << (h - 1)) : 1ull;
    unsigned long long k = (unsigned long long)chunk * tiles;
    const unsigned long long kend = min(nx, k + (unsigned long long)tiles);
    const int lim = n - s;
    const int slots = blockDim.x / group;
    const int per = (1 << t) / group;
    const int rank = threadIdx.x & (group - 1);
    const int m_round = (m + slots - 1) / slots * slots;

    for (int i = threadIdx.x; i < m; i += blockDim.x) acc[i] = NEG_INF;
    unsigned xh = scatter_bits(k, chm);
    for (; k < kend; ++k, xh = next_split(xh, chm)) {
        const int h1 = __popc(xh), h2 = h - h1;
        int jlo = 0, jhi = t;
        if (odp && s < n) {
            jlo = max(0, h2 + t - lim);
            jhi = min(t, lim - h1);
        }
        if (jlo > jhi) continue;                 // the same for the whole block
        __syncthreads();                         // the previous tile's readers are done
        const unsigned base_a = xh << b, base_b = (ch ^ xh) << b;
        for (int i = threadIdx.x; i < nload; i += blockDim.x) {
            const unsigned lm = bypop[i];
            // X = {} (xh = 0, Xl = 0) is no split; and then B's entries of size t are the
            // coalitions of this level themselves, which other blocks may be updating
            A[lm] = (xh == 0u && lm == 0u) ? NEG_INF : f[base_a + lm];
            B[lm] = (xh == 0u && i >= first_cl) ? (value_t)0 : f[base_b + lm];
        }
        __syncthreads();
        const bool every = jlo == 0 && jhi == t;
        const unsigned span = (unsigned)(jhi - jlo);
        for (int ci = threadIdx.x / group; ci < m_round; ci += slots) {
            value_t best = NEG_INF;
            if (ci < m) {
                const unsigned cl = cls[ci];
                unsigned xl = scatter_bits((unsigned long long)rank * per, cl);
                for (int r = 0; r < per; ++r) {
                    if (every || (unsigned)(__popc(xl) - jlo) <= span)
                        best = vmax(best, A[xl] + B[cl ^ xl]);
                    xl = next_split(xl, cl);
                }
            }
            for (int o = 1; o < group; o <<= 1)
                best = vmax(best, __shfl_xor_sync(GPUALGO_FULL_MASK, best, o));
            if (rank == 0 && ci < m) acc[ci] = vmax(acc[ci], best);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < m; i += blockDim.x)
        if (acc[i] > NEG_INF) atomic_max_value(&f[((unsigned)ch << b) | cls[i]], acc[i]);
}

// ------------------------------------------------------------------------------------
// Every version, the rebuild (Algorithm 2): a split adding up to f(C), on the device
// ------------------------------------------------------------------------------------

// Algorithm 2 on the device: the smallest counter k whose split X = scatter(k, cm) of
// c = cm + top agent has f(X) + f(c \ X) == target (the value the DP stored for c).
extern "C" __global__ void find_split_kernel(const value_t* f, unsigned c, unsigned cm,
                                             unsigned long long nsplit, value_t target,
                                             unsigned long long* found) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x + 1;
         k < nsplit; k += stride) {
        const unsigned x = scatter_bits(k, cm);
        if (f[x] + f[c ^ x] == target) atomicMin(found, k);
    }
}
