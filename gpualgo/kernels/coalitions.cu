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
// gpu_odp), then the rebuild of the partition.  -DPHASE_CLOCKS builds the report's two
// kernels with clock checkpoints (the report's Figs. 2-3; see "Phase clocks" below); without
// it nothing of them is compiled.
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
// Phase clocks (-DPHASE_CLOCKS): cycles of each phase of the report's kernels
// ------------------------------------------------------------------------------------

// Phases, as the report's checkpoints group them: SETUP (read the coalition, scatter the
// first split: checkpoints 1-3), FETCH (generate the splits and read their values:
// checkpoint 4), EVALUATE (the sums and the running max), REDUCE (warp/block reduction and
// the atomic: checkpoints 5-7); TOTAL is each thread's whole time, so that what the phases
// leave out (loop control, the clock reads themselves) shows as TOTAL minus their sum.
#define PHASE_SETUP 0
#define PHASE_FETCH 1
#define PHASE_EVALUATE 2
#define PHASE_REDUCE 3
#define PHASE_TOTAL 4
#define PHASE_SLOTS 5
#ifndef PHASE_BATCH
#define PHASE_BATCH 8
#endif
#ifndef SHARE_MAX
#define SHARE_MAX 8
#endif

#ifdef PHASE_CLOCKS
// How the clocks are read, and what that changes.  Each thread adds the clock64() cycles of
// each phase to its own counters; at its end a warp sums them (warp_sum) and one lane adds
// them to phase_cycles with one 64-bit atomic per slot, so the counting costs a few atomics
// per warp, not per split.  A load is issued and its value arrives later, so a clock read
// placed after a load in the source could run before the value is there, and the compiler
// may move loads across a plain clock read.  So:
//  * a phase starts with clock_now(): asm volatile with a "memory" clobber, so the compiler
//    moves no load or store of the source across it;
//  * a phase that loads ends with clock_after(dep): dep is computed from every value the
//    phase loaded (their bits xor-ed, a few integer operations), and the clock is read by an
//    instruction predicated on a test of dep, so it cannot issue before the last of those
//    values has arrived (both outcomes of the test read the clock).
// The measurement perturbs the kernel: to separate fetching from evaluating, the report
// kernel reads PHASE_BATCH splits into registers, then evaluates them (the default build
// interleaves both and lets the compiler overlap them), shared splits reads the splits of one
// counter for its `share` coalitions, then evaluates them; and the clock reads and the xor
// add instructions.  The shares are those of the instrumented kernel: read them as where a
// thread waits, not as a profile of the default build.
__device__ unsigned long long phase_cycles[PHASE_SLOTS];

__device__ __forceinline__ long long clock_now() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
    return t;
}

__device__ __forceinline__ long long clock_after(unsigned dep) {
    long long t;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t@p mov.u64 %0, %%clock64;\n\t"
                 "@!p mov.u64 %0, %%clock64;\n\t}" : "=l"(t) : "r"(dep) : "memory");
    return t;
}

__device__ __forceinline__ unsigned bits_of(float v) { return __float_as_uint(v); }

__device__ __forceinline__ unsigned bits_of(double v) {
    const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(v));
    return static_cast<unsigned>(b ^ (b >> 32));
}

// Each warp's counters into phase_cycles (called by every lane, at the kernel's end).
__device__ __forceinline__ void publish_phase_cycles(const unsigned long long* acc) {
#pragma unroll
    for (int p = 0; p < PHASE_SLOTS; ++p) {
        const unsigned long long sum = warp_sum(acc[p]);
        if ((threadIdx.x & 31) == 0 && sum) atomicAdd(&phase_cycles[p], sum);
    }
}

// report_kernel's split loop, timed: batches of PHASE_BATCH splits, each read into registers
// (FETCH: split generation and the loads) and then reduced into best (EVALUATE).  The same
// splits as the default loop, from x = scatter(k, cm); counter 0 (X = {}) reads nothing.
__device__ value_t report_splits_clocked(const value_t* f, unsigned c, unsigned cm, unsigned x,
                                         unsigned long long k, unsigned long long nsplit, int per_thread,
                                         unsigned long long* acc) {
    value_t best = NEG_INF;
    for (int r = 0; r < per_thread && k < nsplit; r += PHASE_BATCH, k += PHASE_BATCH) {
        value_t a[PHASE_BATCH], b[PHASE_BATCH];
        const long long t0 = clock_now();
        unsigned dep = 0;
#pragma unroll
        for (int i = 0; i < PHASE_BATCH; ++i) {
            a[i] = NEG_INF;
            b[i] = 0;
            if (r + i < per_thread && k + i < nsplit) {
                if (x) { a[i] = f[x]; b[i] = f[c ^ x]; }
                x = next_split(x, cm);
            }
            dep ^= bits_of(a[i]) ^ bits_of(b[i]);
        }
        const long long t1 = clock_after(dep);
#pragma unroll
        for (int i = 0; i < PHASE_BATCH; ++i) best = vmax(best, a[i] + b[i]);
        const long long t2 = clock_after(bits_of(best));
        acc[PHASE_FETCH] += t1 - t0;
        acc[PHASE_EVALUATE] += t2 - t1;
    }
    return best;
}

// shared_splits_kernel's loop over its counters, timed: for each counter, the splits of the
// `share` coalitions and the values they need are read into registers (FETCH, with the same
// reuse of px/fx and py/fy as the default loop), then the bests are raised (EVALUATE).
// Returns the reads avoided.
__device__ unsigned long long shared_splits_clocked(const value_t* f, const unsigned* c, const unsigned* cm,
                                                    unsigned* x, value_t* best, unsigned long long k,
                                                    unsigned long long nsplit, int per_thread, int share,
                                                    unsigned long long* acc) {
    unsigned long long reused = 0;
    for (int r = 0; r < per_thread && k < nsplit; ++r, ++k) {
        value_t a[SHARE_MAX], b[SHARE_MAX];
        const long long t0 = clock_now();
        unsigned px = 0xffffffffu, py = 0xffffffffu, dep = 0;
        value_t fx = 0, fy = 0;
#pragma unroll
        for (int j = 0; j < SHARE_MAX; ++j) {
            a[j] = NEG_INF;
            b[j] = 0;
            if (j < share && c[j]) {
                const unsigned y = c[j] ^ x[j];
                if (x[j] != px) { px = x[j]; fx = f[px]; } else ++reused;
                if (y != py) { py = y; fy = f[py]; } else ++reused;
                if (x[j]) { a[j] = fx; b[j] = fy; }
                x[j] = next_split(x[j], cm[j]);
            }
            dep ^= bits_of(a[j]) ^ bits_of(b[j]);
        }
        const long long t1 = clock_after(dep);
        unsigned dep2 = 0;
#pragma unroll
        for (int j = 0; j < SHARE_MAX; ++j) {
            best[j] = vmax(best[j], a[j] + b[j]);
            dep2 ^= bits_of(best[j]);
        }
        const long long t2 = clock_after(dep2);
        acc[PHASE_FETCH] += t1 - t0;
        acc[PHASE_EVALUATE] += t2 - t1;
    }
    return reused;
}
#endif

// ------------------------------------------------------------------------------------
// Version gpu_report (the report's kernel): a group of threads per coalition
// ------------------------------------------------------------------------------------

// gpu_report: a group of `group` threads (a power of two) per coalition of size s, each
// thread a range of per_thread split counters; counter k is the split X = scatter(k, C
// without its top agent), Y = C \ X (Y keeps the top agent, so each pair comes once).  A group
// visits `visits` consecutive coalitions in turn, with the same counters (the report's
// coalitions per block: a group spans whole blocks from s = log2(block * per_thread) + 1 on).
// The loop runs as often in every thread of a block, so the reductions' barriers match.
extern "C" __global__ void report_kernel(value_t* f, const unsigned* coal, long long count,
                                         int s, int per_thread, int group_log2, int visits) {
#ifdef PHASE_CLOCKS
    unsigned long long acc[PHASE_SLOTS] = {0, 0, 0, 0, 0};
    const long long t_start = clock_now();
#endif
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long group = 1ll << group_log2;
    const long long first = (g >> group_log2) * visits;
    const int rank = (int)(g & (group - 1));
    const unsigned long long nsplit = 1ull << (s - 1);  // counters 0..nsplit-1; 0 is X = {}
    // one coalition's splits and their reduction
    auto visit = [&](long long ci) {
#ifdef PHASE_CLOCKS
        const long long t0 = clock_now();
#endif
        const bool valid = ci < count;
        const unsigned c = valid ? coal[ci] : 0u;
        const unsigned cm = c & ~(1u << (31 - __clz(c | 1u)));
        value_t best = NEG_INF;
        unsigned long long k = (unsigned long long)rank * per_thread;
#ifdef PHASE_CLOCKS
        const unsigned x0 = valid && k < nsplit ? scatter_bits(k, cm) : 0u;
        acc[PHASE_SETUP] += clock_after(c ^ x0) - t0;
        if (valid && k < nsplit) best = report_splits_clocked(f, c, cm, x0, k, nsplit, per_thread, acc);
        const long long t1 = clock_now();
#else
        // exercise coalitions.splits: begin
        if (valid && k < nsplit) {
            unsigned x = scatter_bits(k, cm);
            for (int r = 0; r < per_thread && k < nsplit; ++r, ++k) {
                if (x) best = vmax(best, f[x] + f[c ^ x]);
                x = next_split(x, cm);
            }
        }
        // exercise coalitions.splits: end
#endif
        reduce_and_publish(best, group, rank, f, c, valid);
#ifdef PHASE_CLOCKS
        acc[PHASE_REDUCE] += clock_now() - t1;
#endif
    };
    // one coalition (gpu_report's default) without the loop around it: with the loop, one
    // coalition a group took half as long again at 16 splits a thread (H100, n = 24: 1582-1590
    // ms against 1042)
    if (visits == 1)
        visit(first);
    else
        for (int w = 0; w < visits; ++w) visit(first + w);
#ifdef PHASE_CLOCKS
    acc[PHASE_TOTAL] = clock_now() - t_start;
    publish_phase_cycles(acc);
#endif
}

// ------------------------------------------------------------------------------------
// Version gpu_shared_splits: a thread reuses its reads across coalitions, in registers
// ------------------------------------------------------------------------------------

// gpu_shared_splits: each group evaluates the same counters for `share` consecutive
// coalitions of the level (the report's collision reuse).  For one counter, a thread walks
// the coalitions in order and keeps the last subsets it read and their values in registers
// (px, fx for X; py, fy for its complement): when the next coalition's split X, or its
// complement, is the same subset, the value in the register is used instead of a second
// read from global memory.  Nothing is shared between threads: despite the name, the kernel
// uses no shared memory; what is shared are the splits of neighbouring coalitions, inside
// one thread.  The masks, splits and bests of the `share` coalitions are per-thread arrays
// of SHARE_MAX entries, fully unrolled so they stay in registers.  A group visits `visits`
// consecutive coalitions, `share` at a time (the report: 8 at a time, 32 in all).  saved
// counts the reads avoided (one atomic per warp).
extern "C" __global__ void shared_splits_kernel(value_t* f, const unsigned* coal, long long count,
                                                int s, int per_thread, int group_log2, int share,
                                                int visits, unsigned long long* saved) {
#ifdef PHASE_CLOCKS
    unsigned long long acc[PHASE_SLOTS] = {0, 0, 0, 0, 0};
    const long long t_start = clock_now();
#endif
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long group = 1ll << group_log2;
    const long long base = (g >> group_log2) * visits;
    const int rank = (int)(g & (group - 1));
    const unsigned long long nsplit = 1ull << (s - 1);
    unsigned long long reused = 0;
    for (int w = 0; w < visits; w += share) {
#ifdef PHASE_CLOCKS
        const long long t0 = clock_now();
#endif
        const long long first = base + w;
        unsigned c[SHARE_MAX], cm[SHARE_MAX], x[SHARE_MAX];
        value_t best[SHARE_MAX];
        unsigned long long k = (unsigned long long)rank * per_thread;
#pragma unroll
        for (int j = 0; j < SHARE_MAX; ++j) {
            const bool ok = j < share && w + j < visits && first + j < count;
            c[j] = ok ? coal[first + j] : 0u;
            cm[j] = c[j] & ~(1u << (31 - __clz(c[j] | 1u)));
            x[j] = k < nsplit ? scatter_bits(k, cm[j]) : 0u;
            best[j] = NEG_INF;
        }
#ifdef PHASE_CLOCKS
        unsigned dep = 0;
#pragma unroll
        for (int j = 0; j < SHARE_MAX; ++j) dep ^= c[j] ^ x[j];
        acc[PHASE_SETUP] += clock_after(dep) - t0;
        if (first < count && k < nsplit) reused += shared_splits_clocked(f, c, cm, x, best, k, nsplit, per_thread,
                                                                         share, acc);
        const long long t1 = clock_now();
#else
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
#endif
#pragma unroll
        for (int j = 0; j < SHARE_MAX; ++j)
            if (j < share) reduce_and_publish(best[j], group, rank, f, c[j], c[j] != 0u);
#ifdef PHASE_CLOCKS
        acc[PHASE_REDUCE] += clock_now() - t1;
#endif
    }
    reused = warp_sum(reused);
    if ((threadIdx.x & 31) == 0 && reused) atomicAdd(saved, reused);
#ifdef PHASE_CLOCKS
    acc[PHASE_TOTAL] = clock_now() - t_start;
    publish_phase_cycles(acc);
#endif
}

// ------------------------------------------------------------------------------------
// Version gpu_odp (beyond the report): the pruned DP on tiles of f in shared memory
// ------------------------------------------------------------------------------------

// The two tiles are interleaved: entry i of both, A's and B's, is one pair (8 bytes for float,
// 16 for double), read with one shared-memory load, since the walk below always reads A and B
// at the same place.  Pair i sits at swizzle(i): its bank group (i mod 16 for float pairs,
// i mod 8 for double ones) mixed with higher bits of i (two shifts of them), so that the lanes
// of a warp, each walking the subsets of its own coalitions, read from more banks at once
// (neighbouring coalitions of one size share their low agents). A bijection on [0, 2^b) and
// linear over XOR.
struct __align__(2 * sizeof(value_t)) tile_pair {
    value_t a, b;
};
#define SWZ_BITS (sizeof(value_t) == 8 ? 3u : 4u)
__device__ __forceinline__ unsigned swizzle(unsigned i) {
    return i ^ (((i >> SWZ_BITS) ^ (i >> (SWZ_BITS + 2u))) & ((1u << SWZ_BITS) - 1u));
}
// an offset into the pairs, in bytes
#define VSHIFT (sizeof(value_t) == 8 ? 4 : 3)
__device__ __forceinline__ tile_pair at(const tile_pair* base, unsigned byte_offset) {
    return *reinterpret_cast<const tile_pair*>(reinterpret_cast<const char*>(base) + byte_offset);
}
// max as one instruction (fmaxf / fmax: the values are never NaN)
__device__ __forceinline__ float fmax_value(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double fmax_value(double a, double b) { return fmax(a, b); }

// low coalitions a lane evaluates together, and a task's row (see odp_tile_kernel)
#ifndef EXTRAS
#define EXTRAS 4
#endif
#define TASK_ROW (2 + 2 * EXTRAS)

// Agents of a task's core that odp_tile_kernel walks in unrolled Gray-code order: 2^INNER parts
// from one counter step. gray_flip(q): the agent that step q (q >= 1) of the Gray code flips
// (its lowest set bit; q is a constant once the loop is unrolled).
#ifndef INNER
#define INNER 2
#endif
__device__ __forceinline__ int gray_flip(int q) {
    return (q & 1) ? 0 : (q & 2) ? 1 : (q & 4) ? 2 : (q & 8) ? 3 : (q & 16) ? 4 : 5;
}

// A lane's walk over the parts x of its task's core (odp_tile_kernel): xr the parts' agents set
// by the lane's rank, then for each step of a counter on the agents `rest`, the 2^inner parts of
// the inner agents (swizzled offsets o) in Gray-code order. EVERY: the tile allows every size
// (both splits of each read pair count); otherwise a part is read only when the size of one of
// its two splits lies in [jlo, jlo + span].  The two cases keep their own loops: one loop whose
// splits are NEG_INF when not allowed (selects instead of predicated maxima) made the kernel
// 15% slower on the H100 (n = 27: 1080.8 ms against 937.5 ms of kernel time, same run).
template <bool EVERY>
__device__ __forceinline__ void walk_parts(const tile_pair* T, value_t* best, const unsigned* ca_s,
                                           const unsigned* o, int ne, unsigned xr, unsigned rest,
                                           int ninner, int nouter, int t, int jlo, unsigned span) {
    const unsigned rest_low = rest & (0u - rest);
    unsigned xo = 0;
    for (int r = 0; r < nouter; ++r, xo = ((xo | ~rest) + rest_low) & rest) {
        const unsigned xb = xr | xo;
        const int jb = __popc(xb);
        unsigned xs = swizzle(xb) << VSHIFT;
#pragma unroll
        for (int q = 0; q < (1 << INNER); ++q) {
            if (q >= ninner) break;
            if (q) xs ^= o[gray_flip(q)];
            if (EVERY) {
                const tile_pair px = at(T, xs);
#pragma unroll
                for (int e = 0; e < EXTRAS; ++e)
                    if (e < ne) {
                        const tile_pair py = at(T, xs ^ ca_s[e]);
                        best[e] = fmax_value(best[e], fmax_value(px.a + py.b, py.a + px.b));
                    }
            } else {
                const int jx = jb + __popc(q ^ (q >> 1));
                const bool use_x = (unsigned)(jx - jlo) <= span, use_y = (unsigned)(t - jx - jlo) <= span;
                if (use_x || use_y) {
                    const tile_pair px = at(T, xs);
#pragma unroll
                    for (int e = 0; e < EXTRAS; ++e)
                        if (e < ne) {
                            const tile_pair py = at(T, xs ^ ca_s[e]);
                            if (use_x) best[e] = fmax_value(best[e], px.a + py.b);
                            if (use_y) best[e] = fmax_value(best[e], py.a + px.b);
                        }
                }
            }
        }
    }
}

// gpu_odp: the pruned DP in shared-memory tiles.  Agents are split into `b` low bits and
// n - b high bits: C = Ch * 2^b + Cl.  For a high split Xh of Ch (Xh without the top
// agent of Ch, so each pair comes once), the values f(Xh * 2^b + Xl) and
// f((Ch ^ Xh) * 2^b + Yl) for all low parts are two contiguous segments of f: the block
// copies them into shared memory with coalesced reads, and then every coalition Cl of
// size t = s - |Ch| is split over all its low parts Xl from shared memory, in pairs
// {Xl, Cl \ Xl} (one step of the enumeration, two splits).  One launch
// per (s, h = |Ch|); block (ch_index, chunk) walks `tiles` consecutive Xh, keeps the best
// of each Cl in shared memory and publishes them with one atomic each at the end.
//
// ODP (odp != 0, s < n): a split into sizes x <= y is evaluated only when y <= n - s.  For a
// tile, |X| = |Xh| + j with j = |Xl|, so the allowed j form one range [jlo, jhi]; tiles
// with an empty range are skipped before loading anything.
//
// bypop: the 2^b low masks sorted by size; cnt_le[j]: how many have size <= j (so the
// coalitions Cl of size t are bypop[cnt_le[t-1] .. cnt_le[t]), and a tile needs only the
// first cnt_le[t] entries of each segment).
//
// Tasks: the Cl of size t come in groups of up to EXTRAS that share a core c of t - 1 agents,
// Cl = c + {a} for each extra agent a (gpu.low_tasks builds them on the host).  The splits of
// c + {a} in pairs are {x, (c \ x) + {a}} for every x in c, so a lane reads f(x) of both
// segments once for all its extras and two values per extra: 2 + 2e reads for 2e splits,
// where one coalition alone takes 4 for 2.  task rows: core, count e, the e extras' masks,
// their coalitions' places among the Cl (for acc); task_off[t]: the first row of size t.
// group: lanes that share one task (power of 2), taking its parts in turn.
extern "C" __global__ void odp_tile_kernel(value_t* f, const unsigned* high_masks, int chunks,
                                           int tiles, int n, int b, int s, int h, int odp,
                                           const unsigned short* bypop, const int* cnt_le,
                                           const unsigned short* tasks, const int* task_off,
                                           int group) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    tile_pair* T = reinterpret_cast<tile_pair*>(smem_raw);
    value_t* acc = reinterpret_cast<value_t*>(T + (1 << b));
    const int t = s - h;
    const int first_cl = t > 0 ? cnt_le[t - 1] : 0;
    const int m = cnt_le[t] - first_cl;
    const unsigned short* cls = bypop + first_cl;
    const int nload = cnt_le[t];
    // a tile needs the first nload entries of bypop; when they are most of the 2^b, every entry
    // is loaded in order instead (coalesced reads, and stores spread over the banks)
    const bool dense = 2 * nload > (1 << b);
    const int nl = dense ? 1 << b : nload;
    const unsigned ch = high_masks[blockIdx.x / chunks];
    const long long chunk = blockIdx.x % chunks;
    const unsigned chm = h ? ch & ~(1u << (31 - __clz(ch))) : 0u;
    const unsigned long long nx = h ? (1ull << (h - 1)) : 1ull;
    unsigned long long k = (unsigned long long)chunk * tiles;
    const unsigned long long kend = min(nx, k + (unsigned long long)tiles);
    const int lim = n - s;
    const int slots = blockDim.x / group;
    const int per = (t ? 1 << (t - 1) : 1) / group;     // parts of the core per lane
    const int rank = threadIdx.x & (group - 1);
    const unsigned short* task = tasks + (size_t)task_off[t] * TASK_ROW;
    const int ntask = task_off[t + 1] - task_off[t];
    const int task_round = (ntask + slots - 1) / slots * slots;

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
        for (int i = threadIdx.x; i < nl; i += blockDim.x) {
            const unsigned lm = dense ? (unsigned)i : bypop[i];
            // X = {} (xh = 0, Xl = 0) is no split; and then B's entries of size t are the
            // coalitions of this level themselves, which other blocks may be updating (entries
            // above size t, loaded only by a dense tile, are never read)
            const bool level = dense ? __popc(lm) >= t : i >= first_cl;
            T[swizzle(lm)] = tile_pair{(xh == 0u && lm == 0u) ? NEG_INF : f[base_a + lm],
                                       (xh == 0u && level) ? (value_t)0 : f[base_b + lm]};
        }
        __syncthreads();
        const bool every = jlo == 0 && jhi == t;
        const unsigned span = (unsigned)(jhi - jlo);
        for (int ti = threadIdx.x / group; ti < task_round; ti += slots) {
            value_t best[EXTRAS];
#pragma unroll
            for (int e = 0; e < EXTRAS; ++e) best[e] = NEG_INF;
            const unsigned short* row = task + (size_t)min(ti, ntask - 1) * TASK_ROW;
            const int ne = ti < ntask ? row[1] : 0;
            if (ne) {
                // the swizzle is linear over XOR (disjoint masks: OR is XOR), so every read is placed by
                // XORs of swizzled masks; all are byte offsets into A and B. ca_s[e]: the core and the
                // extra, so that the part c \ x + {a} of the part x sits at xs ^ ca_s[e]
                const unsigned c = row[0];
                const unsigned c_s = swizzle(c) << VSHIFT;
                unsigned ca_s[EXTRAS];
#pragma unroll
                for (int e = 0; e < EXTRAS; ++e) ca_s[e] = c_s ^ (swizzle(row[2 + e]) << VSHIFT);
                // A lane's parts x of the core: the core's lowest log2(group) agents are set by the lane's
                // rank (so that at each step the lanes of a task read parts that differ in those agents
                // alone), its next INNER agents run in Gray-code order in unrolled code (one XOR a part,
                // the part's size known to the compiler), and the agents left by a counter on them
                const unsigned xr = scatter_bits((unsigned long long)rank, c);
                unsigned rest = c;
                for (int g = 1; g < group; g <<= 1) rest &= rest - 1;
                const int inner = min(INNER, __popc(rest));
                unsigned o[INNER];
#pragma unroll
                for (int i = 0; i < INNER; ++i) {
                    const unsigned low = rest & (0u - rest);
                    o[i] = swizzle(low) << VSHIFT;
                    rest ^= low;
                }
                const int ninner = 1 << inner, nouter = per >> inner;
                if (every) walk_parts<true>(T, best, ca_s, o, ne, xr, rest, ninner, nouter, t, 0, 0u);
                else walk_parts<false>(T, best, ca_s, o, ne, xr, rest, ninner, nouter, t, jlo, span);
            }
#pragma unroll
            for (int e = 0; e < EXTRAS; ++e) {
                value_t v = best[e];
                for (int o = 1; o < group; o <<= 1)
                    v = fmax_value(v, __shfl_xor_sync(GPUALGO_FULL_MASK, v, o));
                if (rank == 0 && e < ne) {
                    const int ci = row[2 + EXTRAS + e];
                    acc[ci] = fmax_value(acc[ci], v);
                }
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < m; i += blockDim.x)
        if (acc[i] > NEG_INF) atomic_max_value(&f[((unsigned)ch << b) | cls[i]], acc[i]);
}

// ------------------------------------------------------------------------------------
// Version gpu_odp, its bound: the top levels' coalitions no optimal partition needs
// ------------------------------------------------------------------------------------

// Under ODP a coalition of more than n/2 agents is read only by the grand coalition's split
// {C, N \ C}, whose other part has fewer than n/2 agents and so its final value.  If even an
// upper bound of f(C) added to f(N \ C) falls short of a split already found, C is left
// alone (gpu.odp_bound says how the three kernels below are used).

// size_max_kernel: m[k] = the largest f(C) over the coalitions C of k agents (m starts at
// NEG_INF).  A block per high mask H of the table (C = H * 2^b + L), the low masks by size
// as odp_tile_kernel takes them (bypop, cnt_le).
extern "C" __global__ void size_max_kernel(const value_t* f, int b, const unsigned short* bypop,
                                           const int* cnt_le, value_t* m) {
    const unsigned long long base = (unsigned long long)blockIdx.x << b;
    const int hp = __popc(blockIdx.x);
    for (int t = 0; t <= b; ++t) {
        value_t best = NEG_INF;
        for (int i = (t ? cnt_le[t - 1] : 0) + threadIdx.x; i < cnt_le[t]; i += blockDim.x)
            best = vmax(best, f[base | bypop[i]]);
        best = block_max(best, NEG_INF);
        if (threadIdx.x == 0 && best > NEG_INF) atomic_max_value(&m[hp + t], best);
    }
}

// split_max_kernel: *lb = the best split {C, N \ C} of the grand coalition with the table as
// it is (a lower bound of the optimum: every f is the value of a partition); *lb starts at
// NEG_INF.  C runs over the non-empty coalitions without agent n - 1, so each split comes once.
extern "C" __global__ void split_max_kernel(const value_t* f, int n, value_t* lb) {
    const unsigned full = (1u << n) - 1u;
    const unsigned long long half = 1ull << (n - 1), stride = (unsigned long long)gridDim.x * blockDim.x;
    value_t best = NEG_INF;
    for (unsigned long long c = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x + 1; c < half; c += stride)
        best = vmax(best, f[c] + f[full ^ (unsigned)c]);
    best = block_max(best, NEG_INF);
    if (threadIdx.x == 0 && best > NEG_INF) atomic_max_value(lb, best);
}

// keep_kernel: the coalitions C of s agents that an optimal partition may still need,
// ub + f(N \ C) >= *lb - tol (ub: an upper bound of f(C) for every C of s agents; tol covers
// the rounding of the sums).  The first cap of them go to keep, in no particular order;
// *count counts them all.
extern "C" __global__ void keep_kernel(const value_t* f, int n, int s, value_t ub, const value_t* lb,
                                       value_t tol, unsigned* keep, unsigned long long cap,
                                       unsigned long long* count) {
    const unsigned full = (1u << n) - 1u;
    const unsigned long long end = 1ull << n, stride = (unsigned long long)gridDim.x * blockDim.x;
    const value_t bar = *lb - tol;
    for (unsigned long long c = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; c < end; c += stride) {
        if (__popcll(c) != s || ub + f[full ^ (unsigned)c] < bar) continue;
        const unsigned long long slot = atomicAdd(count, 1ull);
        if (slot < cap) keep[slot] = (unsigned)c;
    }
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
