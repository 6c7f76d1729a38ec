// Push-relabel maximum flow on the GPU: the three parallel versions of the source report.
//
// All versions run Hong's lock-free push-relabel: every active vertex (excess > 0,
// height < n) looks at its residual arcs, and either pushes to its lowest neighbour when
// that one is lower than itself, or relabels to one above it.  Only the owner of vertex x
// ever decreases x's excess or the residual capacity of x's arcs, so with atomic additions
// a push never moves more than is there, whatever the interleaving.  Heights read from
// neighbours may be stale; that costs extra work, never correctness.  Excess that can no
// longer reach the sink is left where it is (height n): the result is a maximum preflow,
// whose value is the sink's excess.
//
//   (a) matrix_push_relabel_kernel: residual capacities in an n x n matrix, a thread per
//       vertex, `cycle` sweeps separated by grid syncs; the host does the global relabel.
//   (b) bcsr_push_relabel_kernel: the same on the BCSR arcs (the arcs of a vertex, in and
//       out, stored together, with the index of each reverse arc); with relabel="gpu" the
//       host launches bcsr_global_relabel_kernel (the BFS of (c)) between its launches instead.
//   (c) vertex_centric_kernel: one cooperative kernel runs the whole algorithm: a global
//       relabel as a BFS from the sink (several levels a block between grid barriers, by
//       levels, or asynchronous on a work list), then
//       sweeps that gather the active vertices into a queue and give each one a tile of
//       TILE threads to find its lowest residual neighbour.  Nothing returns to the host
//       until the flow is maximum.  It is written as __device__ functions, one step each:
//       the global relabel without levels (1a), by levels (1b) or with several levels a block
//       between grid barriers (1c), gathering the active vertices (2), discharging a vertex
//       with its tile (3), the test that ends the sweeps (4).
//
// Compile-time options: CAP_T (int or long long: capacities and excesses), TILE (threads
// per active vertex in (c), a power of two <= 32), REV_SEARCH (how (b) finds the reverse arc
// of the arc it pushes along: 0 the stored index, 1 a linear scan, 2 a binary search),
// LEVEL_CLOCK (1: the BFS of (c) times its grid steps: its levels, or in step 1c its steps of
// several levels).
#include <cooperative_groups.h>
#include "common.cuh"

namespace cg = cooperative_groups;

#ifndef CAP_T
#define CAP_T int
#endif
#ifndef TILE
#define TILE 8
#endif
#ifndef VC_BLOCK
#define VC_BLOCK 1024
#endif
#ifndef REV_SEARCH
#define REV_SEARCH 0
#endif
// LEVEL_CLOCK 1: the BFS by levels of version (c) writes, for each level the whole grid runs,
// the frontier it expanded and the ns from the barrier before it to the barrier after it
// (level_clock, below): what one level costs against how wide it is.
#ifndef LEVEL_CLOCK
#define LEVEL_CLOCK 0
#endif
// The slots of the statistics array (unsigned long long) every kernel adds to: 0 pushes,
// 1 relabels, 2 sweeps, 3 global relabels, 4 BFS levels, 5 ns in global relabels, 6 ns in
// push-relabel sweeps, 7 status (0 done, 1 step limit reached), 8 vertices expanded by the
// asynchronous BFS (1a) or by the BFS of several levels a block (1c), 9 BFS levels run by the
// first block alone (block_bfs). Passed as defines by
// gpualgo/maxflow/gpu.py (STATS); these fallbacks agree.
#ifndef ST_PUSH
#define ST_PUSH 0
#define ST_RELABEL 1
#define ST_SWEEP 2
#define ST_GR 3
#define ST_LEVEL 4
#define ST_GR_NS 5
#define ST_PR_NS 6
#define ST_STATUS 7
#define ST_ITEMS 8
#define ST_SOLO 9
#endif

typedef CAP_T cap_t;

// ------------------------------------------------------------------------------------
// Shared by the three versions: atomics on capacities, loads from L2, the push or the
// relabel, the counters read after a grid barrier, queue slots
// ------------------------------------------------------------------------------------
__device__ __forceinline__ void cap_add(int* p, int v) { atomicAdd(p, v); }
__device__ __forceinline__ void cap_add(long long* p, long long v) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

// Values other threads change during a sweep are read from L2 (__ldcg): the L1 of
// another SM could hold a stale copy.
__device__ __forceinline__ cap_t ld_cap(const cap_t* p) { return __ldcg(p); }
__device__ __forceinline__ int ld_int(const int* p) { return __ldcg(p); }

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// The push or the relabel of active vertex x, given its lowest residual neighbour
// (height hmin through arc a, or hmin >= n when none). Returns 1 for a push, 0 for a relabel.
__device__ __forceinline__ int push_or_relabel(int x, int n, cap_t* excess, int* height,
                                               cap_t* res_xy, cap_t* res_yx, int y,
                                               int hx, int hmin) {
    // exercise maxflow.push_relabel: begin
    if (hmin < hx) {
        cap_t e = ld_cap(excess + x);
        cap_t r = ld_cap(res_xy);
        cap_t d = e < r ? e : r;
        cap_add(res_xy, -d);
        cap_add(res_yx, d);
        cap_add(excess + x, -d);
        cap_add(excess + y, d);
        return 1;
    }
    height[x] = hmin + 1 < n ? hmin + 1 : n;
    return 0;
    // exercise maxflow.push_relabel: end
}

// Three slots per counter, indexed by the sweep number k: slot k%3 is accumulated during
// sweep k and read by every thread after the grid sync that ends it; slot (k+2)%3 is reset
// then, because its readers all passed that sync and its writers come after the next one.
__device__ __forceinline__ int ring_read(const int* ring, int k) {
    return *(volatile const int*)(ring + k % 3);
}

// Slot k % 3 of `count` (<= 3) consecutive counters (ring, ring + 3, ...) as every thread
// needs them after a grid barrier: one thread a block reads them and hands them on through
// shared memory, for a read by every warp would queue a thousand loads of the same words at
// one L2 slice after every barrier. The whole block calls it, after a grid barrier (which
// also ends the previous call's reads of the shared copy).
__device__ __forceinline__ void ring_read_block(const int* ring, int k, int count, int* out) {
    __shared__ int seen[3];
    if (threadIdx.x == 0)
        for (int c = 0; c < count; ++c) seen[c] = ring_read(ring + 3 * c, k);
    __syncthreads();
    for (int c = 0; c < count; ++c) out[c] = seen[c];
}

// The end of sweep k of versions (a) and (b): the thread's count of active vertices joins the
// sweep's ring slot, the grid waits at the barrier, and every thread reads the same total, so
// all leave the launch together. Returns true when the sweep found no active vertex.
__device__ __forceinline__ bool sweep_end(cg::grid_group& grid, int* ring, int k, int active,
                                          unsigned long long& sweeps) {
    if (active) atomicAdd(ring + k % 3, active);
    grid.sync();
    ++sweeps;
    int total;
    ring_read_block(ring, k, 1, &total);
    if (grid.thread_rank() == 0) ring[(k + 2) % 3] = 0;
    return total == 0;
}

// The counters of a launch of (a) or (b), added once per thread (the sweeps once per grid).
__device__ __forceinline__ void add_counts(cg::grid_group& grid, unsigned long long* stats,
                                           unsigned long long pushes, unsigned long long relabels,
                                           unsigned long long sweeps) {
    atomicAdd(stats + ST_PUSH, pushes);
    atomicAdd(stats + ST_RELABEL, relabels);
    if (grid.thread_rank() == 0) atomicAdd(stats + ST_SWEEP, sweeps);
}

// A slot in a queue whose length is *counter.  The counter is one hot address that every
// thread adding a vertex hits; the threads that enqueue together (the coalesced group:
// those of a warp inside the same branch) take their slots with one atomic, made by one of
// them, instead of one atomic each waiting in line at the L2.
__device__ __forceinline__ int queue_slot(int* counter) {
    // exercise maxflow.queue_slot: begin
    cg::coalesced_group g = cg::coalesced_threads();
    int base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(counter, (int)g.size());
    return g.shfl(base, 0) + (int)g.thread_rank();
    // exercise maxflow.queue_slot: end
}

// ------------------------------------------------------------------------------------
// Version (a): the adjacency matrix, a thread per vertex, `cycle` sweeps per launch
// ------------------------------------------------------------------------------------
extern "C" __global__ void matrix_push_relabel_kernel(
        int n, int s, int t, cap_t* __restrict__ res, cap_t* __restrict__ excess,
        int* __restrict__ height, int cycle, int* __restrict__ ring,
        unsigned long long* __restrict__ stats) {
    cg::grid_group grid = cg::this_grid();
    const int stride = gridDim.x * blockDim.x;
    unsigned long long pushes = 0, relabels = 0, sweeps = 0;
    for (int k = 0; k < cycle; ++k) {
        int active = 0;
        for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < n; x += stride) {
            int hx = ld_int(height + x);
            if (x == s || x == t || hx >= n || ld_cap(excess + x) <= 0) continue;
            ++active;
            int hmin = n, ymin = -1;
            const cap_t* row = res + (size_t)x * n;
            for (int y = 0; y < n; ++y) {
                if (ld_cap(row + y) > 0) {
                    int hy = ld_int(height + y);
                    if (hy < hmin) { hmin = hy; ymin = y; }
                }
            }
            if (ymin < 0) { height[x] = n; ++relabels; continue; }
            int pushed = push_or_relabel(x, n, excess, height, res + (size_t)x * n + ymin,
                                         res + (size_t)ymin * n + x, ymin, hx, hmin);
            pushes += pushed;
            relabels += 1 - pushed;
        }
        if (sweep_end(grid, ring, k, active, sweeps)) break;
    }
    add_counts(grid, stats, pushes, relabels, sweeps);
}

// Residual capacities of the BCSR arcs, gathered from the matrix for the host's BFS.
extern "C" __global__ void matrix_gather_kernel(int n, const int* __restrict__ offsets,
                                                const int* __restrict__ heads,
                                                const cap_t* __restrict__ res,
                                                cap_t* __restrict__ out) {
    // exercise maxflow.gather: begin
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < n; x += gridDim.x * blockDim.x)
        for (int a = offsets[x]; a < offsets[x + 1]; ++a) out[a] = res[(size_t)x * n + heads[a]];
    // exercise maxflow.gather: end
}

// ------------------------------------------------------------------------------------
// Version (b): the BCSR arcs, a thread per vertex, `cycle` sweeps per launch
// ------------------------------------------------------------------------------------
// The reverse arc (y -> x) of arc a = x -> y. REV_SEARCH 0: the index stored with the
// network (rev), one read. The report searched y's arcs for the one whose head is x: first
// by a linear scan (1, its Listing 3), then by a binary search, y's arcs being sorted by
// head (2, its Listing 4). The host checks that every vertex's heads increase strictly, so
// each search finds exactly rev[a].
__device__ __forceinline__ int reverse_arc(int a, int x, int y, const int* __restrict__ offsets,
                                           const int* __restrict__ heads, const int* __restrict__ rev) {
#if REV_SEARCH == 1
    for (int j = __ldg(offsets + y), end = __ldg(offsets + y + 1); j < end; ++j)
        if (__ldg(heads + j) == x) return j;
    return __ldg(rev + a);      // not reached on a checked network
#elif REV_SEARCH == 2
    int lo = __ldg(offsets + y), hi = __ldg(offsets + y + 1) - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, h = __ldg(heads + mid);
        if (h == x) return mid;
        if (h < x) lo = mid + 1; else hi = mid - 1;
    }
    return __ldg(rev + a);      // not reached on a checked network
#else
    return __ldg(rev + a);
#endif
}

extern "C" __global__ void bcsr_push_relabel_kernel(
        int n, int s, int t, const int* __restrict__ offsets, const int* __restrict__ heads,
        const int* __restrict__ rev, cap_t* __restrict__ res, cap_t* __restrict__ excess,
        int* __restrict__ height, int cycle, int* __restrict__ ring,
        unsigned long long* __restrict__ stats) {
    cg::grid_group grid = cg::this_grid();
    const int stride = gridDim.x * blockDim.x;
    unsigned long long pushes = 0, relabels = 0, sweeps = 0;
    for (int k = 0; k < cycle; ++k) {
        int active = 0;
        for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < n; x += stride) {
            int hx = ld_int(height + x);
            if (x == s || x == t || hx >= n || ld_cap(excess + x) <= 0) continue;
            ++active;
            int hmin = n, amin = -1;
            for (int a = __ldg(offsets + x), end = __ldg(offsets + x + 1); a < end; ++a) {
                if (ld_cap(res + a) > 0) {
                    int hy = ld_int(height + __ldg(heads + a));
                    if (hy < hmin) { hmin = hy; amin = a; }
                }
            }
            if (amin < 0) { height[x] = n; ++relabels; continue; }
            int y = __ldg(heads + amin);
            // the reverse arc is looked up for a push only: a relabel does not touch it
            int ra = hmin < hx ? reverse_arc(amin, x, y, offsets, heads, rev) : amin;
            int pushed = push_or_relabel(x, n, excess, height, res + amin, res + ra, y, hx, hmin);
            pushes += pushed;
            relabels += 1 - pushed;
        }
        if (sweep_end(grid, ring, k, active, sweeps)) break;
    }
    add_counts(grid, stats, pushes, relabels, sweeps);
}

// ------------------------------------------------------------------------------------
// Version (c), its bookkeeping: the counters every thread reads after a grid barrier
// ------------------------------------------------------------------------------------
// ring: 3 counters x 3 slots: [0..2] active vertices / next BFS frontier size,
// [3..5] relabels, [6..8] vertices with excess (counted, then found by the BFS) or, in the
// sweeps, the leader's vote for a global relabel.  stats: the ST_* slots (top of the file).

struct Stepper {
    int k;          // grid syncs so far: the ring slot index
    int rel, aux;   // the relabel and the auxiliary counters of the step just ended
    // End a step: grid barrier, read the step's three counters (the first is returned),
    // recycle the slots of the step before.
    __device__ int sync(cg::grid_group& grid, int* ring) {
        grid.sync();
        return read(grid, ring);
    }
    // The second half of sync, for a caller that issues its own loads between the barrier
    // and this one, so that they overlap. The whole block calls it (ring_read_block).
    __device__ int read(cg::grid_group& grid, int* ring) {
        int counters[3];
        ring_read_block(ring, k, 3, counters);
        const int v = counters[0];
        rel = counters[1];
        aux = counters[2];
        if (grid.thread_rank() == 0)
            for (int c = 0; c < 9; c += 3) ring[c + (k + 2) % 3] = 0;
        ++k;
        return v;
    }
};

typedef cg::thread_block_tile<TILE> tile_t;

// The rank of this thread's tile in the order queued vertices are handed out: the first
// entries of a queue go to one tile of every block, then to one tile of every warp, and
// only then to a second tile of a warp, so that a short queue (most sweeps and BFS levels on
// genrmf hold a few hundred vertices) is spread over every SM instead of filling the
// first few blocks, whose load units would then serve all its scattered reads. (Measured:
// it shortens the sweeps; a BFS level costs the same either way.)
__device__ __forceinline__ int tile_rank() {
    constexpr int per_warp = 32 / TILE;
    const int warps = blockDim.x / 32, local = threadIdx.x / TILE;
    const int j = (local % per_warp) * warps + local / per_warp;
    return j * gridDim.x + blockIdx.x;
}

// ------------------------------------------------------------------------------------
// Version (c), step 1a: the global relabel without levels (async_bfs), on a work list
// ------------------------------------------------------------------------------------
enum { WL_HEAD, WL_TAIL, WL_PENDING };   // the asynchronous BFS's work-list counters

// The global relabel without levels (async_bfs).  The level-synchronous BFS needs one grid
// barrier per level, and on genrmf a BFS has thousands of levels, each only a few dependent
// memory reads long: most of the time goes to waiting.  Here every tile instead takes the
// next vertex x from one shared work list (a ticket from `head`), lowers each residual
// in-neighbour y to height(x) + 1 with atomicMin, and appends y to the list when that
// lowered it.  Vertices from different levels are expanded at the same time, so a vertex
// can first get a height that is too high; the smaller one comes later, lowers it again and
// queues it again.  When no vertex is queued or being expanded, every residual arc y -> x
// has height(y) <= height(x) + 1 and every height is the length of a path: the heights are
// the exact BFS distances (a label-correcting shortest path computation).
//   pending counts the vertices queued or being expanded: a tile adds the vertices it
// appends before writing them and takes x off once x is expanded, so pending is 0 only
// when the work is done.  A tile whose ticket has no vertex yet waits for one, or for 0.
//   The list holds `cap` entries; a vertex queued more often than that allows is dropped
// and counted in *overflow, and the caller then runs the level-synchronous BFS instead.
template <typename Tile>
__device__ int async_relabel(Tile& tile, int n, int s, const int* __restrict__ offsets,
                             const int* __restrict__ heads, const int* __restrict__ rev,
                             const cap_t* __restrict__ res, int* __restrict__ height,
                             int* __restrict__ wq, int cap, int* __restrict__ wl, int* overflow) {
    const int lane = tile.thread_rank();
    int expanded = 0;
    while (true) {
        int x = -1;
        if (lane == 0) {
            int i = atomicAdd(wl + WL_HEAD, 1);
            while (true) {
                if (i < cap && (x = *(volatile int*)(wq + i)) >= 0) break;
                __threadfence();                  // read the slot before pending
                if (*(volatile int*)(wl + WL_PENDING) == 0) { x = -1; break; }
                __nanosleep(64);                  // leave the L2 to the tiles at work
            }
        }
        x = tile.shfl(x, 0);
        if (x < 0) return expanded;
        ++expanded;
        const int hy_new = ld_int(height + x) + 1;
        for (int a0 = __ldg(offsets + x), end = __ldg(offsets + x + 1); a0 < end; a0 += TILE) {
            int a = a0 + lane, y = -1;
            if (a < end) {
                y = __ldg(heads + a);
                // y -> x is residual when the reverse arc of x -> y has capacity left
                if (y == s || ld_int(height + y) <= hy_new || ld_cap(res + __ldg(rev + a)) <= 0 ||
                    atomicMin(height + y, hy_new) <= hy_new)
                    y = -1;
            }
            unsigned lowered = tile.ballot(y >= 0);
            if (!lowered) continue;
            int base = 0, k = __popc(lowered);
            if (lane == 0) {
                atomicAdd(wl + WL_PENDING, k);    // counted before they can be taken
                base = atomicAdd(wl + WL_TAIL, k);
                __threadfence();
            }
            base = tile.shfl(base, 0);
            if (y >= 0) {
                int slot = base + __popc(lowered & ((1u << lane) - 1));
                if (slot < cap) {
                    *(volatile int*)(wq + slot) = y;
                } else {
                    atomicAdd(wl + WL_PENDING, -1);
                    ++*overflow;
                }
            }
        }
        tile.sync();
        if (lane == 0) { __threadfence(); atomicAdd(wl + WL_PENDING, -1); }   // x done
    }
}

// Step 1a as the kernel runs it: every height reset (the sink 0, the others n) and the work
// list holding the sink alone, a grid barrier, async_relabel, a grid barrier.  The second
// barrier's auxiliary counter holds the vertices the list dropped: returns true when it
// overflowed, the heights are then not exact and the BFS by levels (step 1b) must run.
__device__ __forceinline__ bool async_global_relabel(
        cg::grid_group& grid, tile_t& tile, Stepper& st, int n, int s, int t,
        const int* __restrict__ offsets, const int* __restrict__ heads, const int* __restrict__ rev,
        cap_t* __restrict__ res, int* __restrict__ height, int* __restrict__ ring,
        unsigned long long* __restrict__ stats, int* __restrict__ wq, int wq_cap, int* __restrict__ wl) {
    const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const bool leader = grid.thread_rank() == 0;
    for (int v = gtid; v < n; v += stride) height[v] = v == t ? 0 : n;
    for (int i = gtid; i < wq_cap; i += stride) wq[i] = i == 0 ? t : -1;
    if (leader) { wl[WL_HEAD] = 0; wl[WL_TAIL] = 1; wl[WL_PENDING] = 1; }
    st.sync(grid, ring);
    int overflow = 0;
    int expanded = async_relabel(tile, n, s, offsets, heads, rev, res, height, wq, wq_cap, wl, &overflow);
    if (tile.thread_rank() == 0 && expanded) atomicAdd(stats + ST_ITEMS, (unsigned long long)expanded);
    if (overflow) atomicAdd(ring + 6 + st.k % 3, overflow);
    st.sync(grid, ring);
    return st.aux > 0;    // the list overflowed: heights not exact, BFS by levels
}

// ------------------------------------------------------------------------------------
// Version (c), step 1b's narrow levels: the first block alone (block_bfs)
// ------------------------------------------------------------------------------------
// Most levels of a deep BFS are narrow: on genrmf they hold a wave crossing one frame, a few
// hundred vertices or fewer, and a level's grid barrier then costs more than its work.  With
// block_bfs > 0, while the frontier holds at most block_bfs vertices the first block expands
// it alone, a thread per vertex, level after level with block barriers, and the other blocks
// wait at one grid barrier for all those levels.  The frontier lives in shared memory; every
// entry also goes to the global queue, which the grid reads once the frontier widens.  A
// thread reads the arcs of its vertex SOLO_BATCH at a time, every load of a batch issued
// before its first label is attempted, so a level costs about one chain of dependent reads.
// A thread per vertex suits vertices of a few arcs only: a frontier holding a vertex of more
// than SOLO_DEGREE arcs (the sink of a vision grid, a hub) is left to the grid.  The labels and
// the early stop are those of the grid's levels.  The whole block calls it; it returns the
// levels it ran, times 2, plus 1 when the next frontier holds such a vertex (or the first one
// did: nothing ran); frontier and found (marked vertices labelled) are updated.
#ifndef SOLO_CAP
#define SOLO_CAP 1024         // entries of each shared frontier buffer: block_bfs <= SOLO_CAP
#endif
#ifndef SOLO_BATCH
#define SOLO_BATCH 4
#endif
#ifndef SOLO_DEGREE
#define SOLO_DEGREE 32
#endif
__device__ __forceinline__ int solo_levels(
        int n, int s, int level, int& frontier, int& found, int marked_left, int early_stop,
        const int* __restrict__ offsets, const int* __restrict__ heads, const int* __restrict__ rev,
        const cap_t* __restrict__ res, int* __restrict__ height, int* __restrict__ qa, int* __restrict__ qb,
        int block_bfs) {
    __shared__ int2 sq[2][SOLO_CAP];
    __shared__ int cnt[3], fnd[3], wide[3];   // by level mod 3: next frontier, marked found, a wide vertex
    if (threadIdx.x < 3) cnt[threadIdx.x] = fnd[threadIdx.x] = wide[threadIdx.x] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < frontier; i += blockDim.x) {
        const int2 e = __ldcg(reinterpret_cast<const int2*>(qa) + i);
        if (e.y - e.x > SOLO_DEGREE) wide[2] = 1;
    }
    __syncthreads();
    if (wide[2]) return 1;
    int levels = 0;
    found = 0;
    while (true) {
        const int lv = level + levels + 1, slot3 = levels % 3;
        const int2* from_g = reinterpret_cast<const int2*>(qa);       // the first level only
        int2* to_g = reinterpret_cast<int2*>(levels & 1 ? qa : qb);
        const int2* from_s = sq[(levels + 1) & 1];
        int2* to_s = sq[levels & 1];
        int mine = 0;
        for (int i = threadIdx.x; i < frontier; i += blockDim.x) {
            const int2 e = levels == 0 ? __ldcg(from_g + i) : from_s[i];
            for (int a0 = e.x; a0 < e.y; a0 += SOLO_BATCH) {
                int y[SOLO_BATCH], hy[SOLO_BATCH], y0[SOLO_BATCH], y1[SOLO_BATCH];
                cap_t r[SOLO_BATCH];
#pragma unroll
                for (int j = 0; j < SOLO_BATCH; ++j) {
                    y[j] = -1;
                    if (a0 + j < e.y) {
                        y[j] = __ldg(heads + a0 + j);
                        r[j] = ld_cap(res + __ldg(rev + a0 + j));   // y -> x residual: x -> y's reverse
                        hy[j] = ld_int(height + y[j]);
                        y0[j] = __ldg(offsets + y[j]);
                        y1[j] = __ldg(offsets + y[j] + 1);
                    }
                }
#pragma unroll
                for (int j = 0; j < SOLO_BATCH; ++j) {
                    if (y[j] >= 0 && y[j] != s && hy[j] >= n && r[j] > 0 &&
                        atomicCAS(height + y[j], hy[j], lv) == hy[j]) {
                        const int slot = atomicAdd(&cnt[slot3], 1);
                        to_g[slot] = make_int2(y0[j], y1[j]);
                        if (slot < SOLO_CAP) to_s[slot] = make_int2(y0[j], y1[j]);
                        if (y1[j] - y0[j] > SOLO_DEGREE) wide[slot3] = 1;
                        mine += hy[j] == n + 1;
                    }
                }
            }
        }
        if (mine) atomicAdd(&fnd[slot3], mine);
        __syncthreads();
        frontier = cnt[slot3];
        found += fnd[slot3];
        const int hub = wide[slot3];
        if (threadIdx.x == 0) cnt[(levels + 2) % 3] = fnd[(levels + 2) % 3] = wide[(levels + 2) % 3] = 0;
        ++levels;
        if (hub || frontier == 0 || frontier > block_bfs || (early_stop && marked_left > 0 && found == marked_left))
            return 2 * levels + hub;
    }
}
#if LEVEL_CLOCK
// With LEVEL_CLOCK: one (frontier, ns) pair per level the grid ran, in the order they ran, as
// long as LEVEL_CAP pairs last; level_count counts every level, kept or not (the host zeroes it).
#ifndef LEVEL_CAP
#define LEVEL_CAP 1048576
#endif
__device__ unsigned long long level_clock[2 * LEVEL_CAP];
__device__ unsigned long long level_count;

// The grid's leader (rank 0) records a step that started from `frontier` and ended now, and
// starts the next step's time.
__device__ __forceinline__ void clock_step(const cg::grid_group& grid, int frontier, unsigned long long& t_level) {
    if (grid.thread_rank() != 0) return;
    const unsigned long long now = global_ns(), i = level_count++;
    if (i < LEVEL_CAP) { level_clock[2 * i] = frontier; level_clock[2 * i + 1] = now - t_level; }
    t_level = now;
}
#endif

// One arc a = x -> y of a frontier vertex x, in the BFS by levels (below): y gets `level` when
// it has none yet and y -> x is residual (the reverse arc of x -> y has capacity left).
// atomicCAS claims it, and a queue slot is reserved at the same time (a loser leaves an empty
// range). Returns 1 when y was marked (height n + 1: it holds excess).
__device__ __forceinline__ int bfs_arc(int a, int n, int s, int level, const int* __restrict__ offsets,
                                       const int* __restrict__ heads, const int* __restrict__ rev,
                                       const cap_t* __restrict__ res, int* __restrict__ height,
                                       int2* __restrict__ fb, int* counter) {
    const int y = __ldg(heads + a);
    const cap_t r = ld_cap(res + __ldg(rev + a));
    const int hy = ld_int(height + y);
    const int y0 = __ldg(offsets + y), y1 = __ldg(offsets + y + 1);
    if (y == s || hy < n || r <= 0) return 0;
    const bool won = atomicCAS(height + y, hy, level) == hy;
    fb[queue_slot(counter)] = won ? make_int2(y0, y1) : make_int2(0, 0);
    return won && hy == n + 1;
}

// The start of a global relabel (steps 1b and 1c): every height reset, the sink's to 0, the
// others' to n, or to n + 1 with `mark` for a vertex that holds excess and was below n (it may
// still reach the sink: the early stop waits for these). Their count joins the step's auxiliary
// counter, read after the next grid barrier.
__device__ __forceinline__ void reset_heights(const Stepper& st, int n, int s, int t, const cap_t* __restrict__ excess,
                                              int* __restrict__ height, int* __restrict__ ring, bool mark) {
    int marked = 0;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        const bool m = mark && v != s && v != t && ld_int(height + v) < n && ld_cap(excess + v) > 0;
        height[v] = v == t ? 0 : (m ? n + 1 : n);
        marked += m;
    }
    if (marked) atomicAdd(ring + 6 + st.k % 3, marked);
}

// ------------------------------------------------------------------------------------
// Version (c), step 1b: the global relabel by levels, one grid barrier per level
// ------------------------------------------------------------------------------------
// Exact distances to the sink by a BFS on residual arcs, a tile per frontier vertex; a
// vertex is claimed for the next level by atomicCAS on its height, so two tiles never both
// label it.  Returns the number of levels.
//   early_stop (without async_bfs): the vertices that hold excess and were below n (so may
// still reach the sink) are marked n + 1; once the BFS has found them all, the rest of it
// cannot matter (a vertex left at height >= n gets no push and holds no excess), so it
// stops.  The BFS that ends the run always completes: it finds no vertex with excess.
//   The BFS queue holds for each vertex of the frontier the range of its arcs (int2:
// first, end), read from offsets when the vertex is labelled, in parallel with its
// height: the next level then goes straight to the arcs.  Each level is a chain of
// dependent memory accesses (queue entry, arcs, heights and reverse residuals, the
// label), so every access taken off it counts: the first entry of each tile is loaded
// right after the barrier together with the frontier's size, and a slot is reserved
// for every candidate at the same time as its label is attempted (a candidate that
// another tile labelled first leaves an empty range, skipped at the next level).
// qa and qb are swapped after every level: the caller's queues follow.
__device__ __forceinline__ int bfs_by_levels(
        cg::grid_group& grid, tile_t& tile, Stepper& st, int n, int s, int t,
        const int* __restrict__ offsets, const int* __restrict__ heads, const int* __restrict__ rev,
        cap_t* __restrict__ res, cap_t* __restrict__ excess, int* __restrict__ height,
        int* __restrict__& qa, int* __restrict__& qb, int* __restrict__ ring, int early_stop, int async_bfs,
        int block_bfs, int& solo) {
    const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const int tile_id = tile_rank(), tiles = stride / TILE, lane = tile.thread_rank();
    reset_heights(st, n, s, t, excess, height, ring, early_stop && !async_bfs);
    if (gtid == 0) reinterpret_cast<int2*>(qa)[0] = make_int2(__ldg(offsets + t), __ldg(offsets + t + 1));
    int frontier = 0, level = 0, marked_total = 0, marked_found = 0;
    int2 first = make_int2(0, 0);
    grid.sync();
    if (tile_id < n) first = __ldcg(reinterpret_cast<const int2*>(qa) + tile_id);
    st.read(grid, ring);
    frontier = 1;
    marked_total = st.aux;
#if LEVEL_CLOCK
    unsigned long long t_level = grid.thread_rank() == 0 ? global_ns() : 0;
#endif
    bool solo_ok = true;     // false: the frontier holds a vertex too wide for one thread
    while (frontier > 0) {
        if (solo_ok && frontier <= block_bfs) {     // narrow: the first block runs levels alone
            if (blockIdx.x == 0) {
                int found = 0;
                int ran = solo_levels(n, s, level, frontier, found, marked_total - marked_found,
                                      early_stop && !async_bfs, offsets, heads, rev, res, height, qa, qb, block_bfs);
                if (threadIdx.x == 0) {
                    atomicAdd(ring + st.k % 3, frontier);
                    atomicAdd(ring + 3 + st.k % 3, ran);
                    if (found) atomicAdd(ring + 6 + st.k % 3, found);
                }
            }
            grid.sync();
            frontier = st.read(grid, ring);
            const int ran = st.rel >> 1;
            solo_ok = !(st.rel & 1);
            level += ran;
            solo += ran;
            marked_found += st.aux;
            if (ran & 1) { int* tmp = qa; qa = qb; qb = tmp; }     // where its last level went
#if LEVEL_CLOCK
            if (grid.thread_rank() == 0) t_level = global_ns();    // the first block's levels are not timed
#endif
            if (tile_id < n) first = __ldcg(reinterpret_cast<const int2*>(qa) + tile_id);
            if (early_stop && marked_total > 0 && marked_found == marked_total) break;
            continue;
        }
        solo_ok = true;
        ++level;
        int found = 0;
        const int2* fa = reinterpret_cast<const int2*>(qa);
        int2* fb = reinterpret_cast<int2*>(qb);
        if (level == 1) {    // the sink alone: an arc a thread (a vision grid's has 10^5 and more)
            for (int a = __ldg(offsets + t) + gtid, end = __ldg(offsets + t + 1); a < end; a += stride)
                found += bfs_arc(a, n, s, level, offsets, heads, rev, res, height, fb, ring + st.k % 3);
        } else {
            for (int i = tile_id; i < frontier; i += tiles) {
                int2 e = i == tile_id ? first : __ldcg(fa + i);
                for (int a = e.x + lane; a < e.y; a += TILE)
                    found += bfs_arc(a, n, s, level, offsets, heads, rev, res, height, fb, ring + st.k % 3);
            }
        }
        if (found) atomicAdd(ring + 6 + st.k % 3, found);
        grid.sync();
        if (tile_id < n) first = __ldcg(fb + tile_id);
#if LEVEL_CLOCK
        clock_step(grid, frontier, t_level);
#endif
        frontier = st.read(grid, ring);
        marked_found += st.aux;
        int* tmp = qa; qa = qb; qb = tmp;
        if (early_stop && marked_total > 0 && marked_found == marked_total) break;
    }
    return level;
}

// ------------------------------------------------------------------------------------
// Version (c), step 1c: the global relabel with several levels between grid barriers
// ------------------------------------------------------------------------------------
#ifndef LOCAL_CAP
#define LOCAL_CAP 256         // entries of each shared frontier buffer of a block in step 1c
#endif
#define LOCAL_LOST (1 << 30)  // in the step counter: an entry did not fit in the global queue

// The arcs of one frontier entry e = (first arc, end, vertex x, label), by the lanes of its
// tile: every y with y -> x residual (y not the source) is lowered to label + 1 when that is
// below its height (atomicMin), and each lane that lowered one calls emit(y, y's first arc,
// y's end, label + 1, y's old height). With `fresh`, x's height is read again beside the arcs,
// and an x lowered since it was queued is skipped (the one that lowered it queued it).
template <typename Emit>
__device__ __forceinline__ void relax_entry(const int4& e, int lane, bool fresh, int s,
                                            const int* __restrict__ offsets, const int* __restrict__ heads,
                                            const cap_t* __restrict__ rres, int* __restrict__ height, Emit&& emit) {
    for (int a = e.x + lane; a < e.y; a += TILE) {
        const int y = __ldg(heads + a);
        const cap_t r = ld_cap(rres + a);
        const int now = fresh ? ld_int(height + e.z) : e.w;
        if (now < e.w || y == s || r <= 0) continue;
        const int label = e.w + 1;
        const int y0 = __ldg(offsets + y), y1 = __ldg(offsets + y + 1);
        const int old = atomicMin(height + y, label);
        if (old > label) emit(y, y0, y1, label, old);
    }
}

// A level of step 1b costs a grid barrier and a chain of about five dependent accesses, for a
// frontier that on genrmf holds a few hundred to a few thousand vertices: the grid mostly
// waits. Here (local_levels = K > 1) a grid step runs up to K levels: the tiles of the grid
// expand the global frontier, as in 1b, and then every block goes on alone, from the vertices
// it labelled, with a frontier in shared memory and a block barrier per level, for K - 1
// levels; what its last level labels goes to the global queue, and the grid barrier ends the
// step.
//   A level inside a block costs two dependent accesses: the arc (its head, and the residual of
// its reverse from rres, a copy beside the arc that the sweeps update with every push:
// rres[a] = res[rev[a]]), then the label (atomicMin on the head's height, the head's arc range
// read beside it), and a block barrier.
//   The blocks do not wait for each other between their levels, so a block may reach a vertex
// first by a longer path than another block's. Labels are therefore lowered with atomicMin, as
// in the asynchronous BFS (1a), and a vertex whose label was lowered is expanded again, by the
// block that lowered it: when a grid step ends with an empty global queue every label is the
// length of a shortest residual path (a label-correcting computation). Each entry carries its
// label; a lane expanding an entry whose vertex has been lowered since labels nothing new (the
// one that lowered it queued it). A frontier wider than the grid's tiles runs one level a step
// (all to the global queue), and a block whose shared frontier is full queues the rest globally.
//   The early stop of 1b applies: once every marked vertex has been labelled the BFS stops,
// and a label not yet corrected is then an upper bound of the distance, which the sweeps
// tolerate as they tolerate stale heights. The BFS that ends the run finds no marked vertex and
// runs until its queue is empty: exact. The global queue holds vertices (their label is their
// height): when it would overflow, which the capacity makes unlikely, `lost` is returned and the
// caller runs step 1b instead. Returns the levels run (per grid step, the most a block ran).
__device__ __forceinline__ int bfs_local(
        cg::grid_group& grid, tile_t& tile, Stepper& st, int n, int s, int t,
        const int* __restrict__ offsets, const int* __restrict__ heads, const cap_t* __restrict__ rres,
        const cap_t* __restrict__ excess, int* __restrict__ height, int* __restrict__ qa, int* __restrict__ qb,
        int qcap, int* __restrict__ ring, unsigned long long* __restrict__ stats, int early_stop, int local_levels,
        bool& lost_any) {
    __shared__ int4 lq[2][LOCAL_CAP];
    __shared__ int lcnt[3];
    const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const int tile_id = tile_rank(), tiles = stride / TILE, lane = tile.thread_rank();
    const int ltile = threadIdx.x / TILE, ltiles = blockDim.x / TILE;
    reset_heights(st, n, s, t, excess, height, ring, early_stop);
    st.sync(grid, ring);
    const int marked_total = st.aux;
    int found = 0, found_total = 0, expanded = 0;
    bool lost = false;
    // to the global queue (the frontier of the next grid step), a slot per coalesced group
    auto to_global = [&](int y, int, int, int, int old) {
        const int q = queue_slot(ring + st.k % 3);
        if (q < qcap) qb[q] = y; else lost = true;
        found += old == n + 1;
    };
    // level 1: the sink's arcs, TILE to a tile over the grid (a vision grid's sink has 10^5 and more)
    const int t0 = __ldg(offsets + t), t1 = __ldg(offsets + t + 1);
    for (int a0 = t0 + gtid - lane; a0 < t1; a0 += stride)
        relax_entry(make_int4(a0, min(a0 + TILE, t1), t, 0), lane, false, s, offsets, heads, rres, height, to_global);
    if (found) atomicAdd(ring + 6 + st.k % 3, found);
    if (__syncthreads_or(lost) && threadIdx.x == 0) atomicMax(ring + 3 + st.k % 3, LOCAL_LOST);
    int frontier = st.sync(grid, ring), level = 1;
    found = 0;
    found_total = st.aux;
    lost_any = st.rel & LOCAL_LOST;
#if LEVEL_CLOCK
    unsigned long long t_level = grid.thread_rank() == 0 ? global_ns() : 0;
#endif
    while (frontier > 0 && !lost_any && !(early_stop && marked_total > 0 && found_total == marked_total)) {
        { int* tmp = qa; qa = qb; qb = tmp; }
        const int levels = frontier <= tiles ? local_levels : 1;
        if (threadIdx.x == 0) lcnt[0] = lcnt[1] = 0;
        __syncthreads();
        // the entries a block's level j labels go to lq[j & 1], counted in lcnt[j % 3]; those of
        // the step's last level, and those a full lq cannot take, to the global queue
        int j = 0;
        auto emit = [&](int y, int y0, int y1, int label, int old) {
            const int slot = j + 1 < levels ? atomicAdd(lcnt + j % 3, 1) : LOCAL_CAP;
            if (slot < LOCAL_CAP) {
                lq[j & 1][slot] = make_int4(y0, y1, y, label);
                found += old == n + 1;
            } else {
                to_global(y, y0, y1, label, old);
            }
        };
        // the first level of the step: the global frontier, a tile an entry over the grid
        for (int i = tile_id; i < frontier; i += tiles) {
            const int x = __ldcg(qa + i);
            const int4 e = make_int4(__ldg(offsets + x), __ldg(offsets + x + 1), x, ld_int(height + x));
            expanded += lane == 0;
            relax_entry(e, lane, false, s, offsets, heads, rres, height, emit);
        }
        // the block's own levels, from what it labelled
        int ran = 1;
        for (j = 1; j < levels; ++j) {
            __syncthreads();
            const int count = min(lcnt[(j - 1) % 3], LOCAL_CAP);
            if (count == 0) break;
            if (threadIdx.x == 0) lcnt[(j + 1) % 3] = 0;
            ++ran;
            const int4* from = lq[(j - 1) & 1];
            for (int i = ltile; i < count; i += ltiles) {
                const int4 e = from[i];
                expanded += lane == 0;
                relax_entry(e, lane, true, s, offsets, heads, rres, height, emit);
            }
        }
        if (found) { atomicAdd(ring + 6 + st.k % 3, found); found = 0; }
        const bool block_lost = __syncthreads_or(lost);
        if (threadIdx.x == 0) atomicMax(ring + 3 + st.k % 3, ran | (block_lost ? LOCAL_LOST : 0));
        const int queued = st.sync(grid, ring);
#if LEVEL_CLOCK
        clock_step(grid, frontier, t_level);   // one (frontier, ns) pair per grid step
#endif
        frontier = min(queued, qcap);
        lost_any = st.rel & LOCAL_LOST;
        level += st.rel & (LOCAL_LOST - 1);
        found_total += st.aux;
    }
    if (tile.thread_rank() == 0 && expanded) atomicAdd(stats + ST_ITEMS, (unsigned long long)expanded);
    return level;
}

// ------------------------------------------------------------------------------------
// Version (b) with relabel="gpu": its global relabel on the GPU, the BFS of step 1b
// ------------------------------------------------------------------------------------
// The BFS by levels of version (c) (without the early stop: every height exact) as a kernel
// of its own, launched by the host between the sweeps of (b), which run unchanged: the
// residuals then never go back to the host. After the BFS it counts the vertices still
// active into *active (zeroed before the BFS's first barrier), which the host reads to decide
// whether to sweep again. ring: 9 ints, zeroed by the host before every launch.
extern "C" __global__ void __launch_bounds__(1024, 1) bcsr_global_relabel_kernel(
        int n, int s, int t, const int* __restrict__ offsets, const int* __restrict__ heads,
        const int* __restrict__ rev, cap_t* __restrict__ res, cap_t* __restrict__ excess,
        int* __restrict__ height, int* __restrict__ qa, int* __restrict__ qb, int* __restrict__ ring,
        unsigned long long* __restrict__ stats, int* __restrict__ active) {
    cg::grid_group grid = cg::this_grid();
    tile_t tile = cg::tiled_partition<TILE>(cg::this_thread_block());
    Stepper st{0, 0, 0};
    if (grid.thread_rank() == 0) *active = 0;
    int solo = 0;
    int level = bfs_by_levels(grid, tile, st, n, s, t, offsets, heads, rev, res, excess, height, qa, qb, ring,
                              0, 0, 0, solo);
    int mine = 0;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x)
        mine += v != s && v != t && ld_int(height + v) < n && ld_cap(excess + v) > 0;
    if (mine) atomicAdd(active, mine);
    if (grid.thread_rank() == 0) {
        stats[ST_GR] += 1;
        stats[ST_LEVEL] += level;
    }
}

// ------------------------------------------------------------------------------------
// Version (c), step 2: gather the active vertices into the queue
// ------------------------------------------------------------------------------------
// Every vertex with excess below height n is appended to qa (queue_slot: one atomic per
// coalesced group on the step's counter); the grid barrier that ends the step makes the
// queue whole, and its counter, read by every thread after it, is returned: the queue's length.
__device__ __forceinline__ int gather_active(
        cg::grid_group& grid, Stepper& st, int n, int s, int t, cap_t* __restrict__ excess,
        int* __restrict__ height, int* __restrict__ qa, int* __restrict__ ring) {
    const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    for (int v = gtid; v < n; v += stride) {
        if (v != s && v != t && ld_int(height + v) < n && ld_cap(excess + v) > 0)
            qa[queue_slot(ring + st.k % 3)] = v;
    }
    return st.sync(grid, ring);
}

// ------------------------------------------------------------------------------------
// Version (c), step 3: discharge one queued vertex with its tile of TILE threads
// ------------------------------------------------------------------------------------
// The vertices a tile will queue for the next sweep (step 3, below), one held by each lane:
// every lane that holds one claims it with its stamp and takes a slot, all lanes at once,
// and holds none after.
__device__ __forceinline__ void flush_held(int& held, int k, int* __restrict__ qb, int* __restrict__ stamp,
                                           int* __restrict__ ring) {
    if (held >= 0 && atomicExch(stamp + held, k) != k)
        qb[queue_slot(ring + k % 3)] = held;
    held = -1;
}

// v joins the vertices the tile holds (the whole tile calls it with the same v): the next lane
// holds it, after a flush when every lane holds one already.
__device__ __forceinline__ void hold(int v, int lane, int& held, int& nheld, int k, int* __restrict__ qb,
                                     int* __restrict__ stamp, int* __restrict__ ring) {
    if (nheld == TILE) { flush_held(held, k, qb, stamp, ring); nheld = 0; }
    if (lane == nheld) held = v;
    ++nheld;
}

// Up to max_ops rounds of (lowest residual neighbour, then push or relabel), a bounded
// discharge, so fewer sweeps are needed.  The tile's lanes scan x's arcs side by side and
// reduce (height, arc) with shuffles; lane 0 alone pushes or relabels, so x's excess and
// the residuals of x's arcs only ever decrease by its hand (Hong's rule, as in (a) and (b)).
// incremental: the next queue (qb) is built here, the vertices that received excess and x
// itself when excess is left, each vertex once per sweep k thanks to its stamp.
// pushes and relabels count lane 0's work.
//   A sweep lasts as long as its longest discharge, a chain of dependent memory accesses
// op after op, so the ops carry as few as they can: each lane reads the head and reverse
// arc of its first arc once (they never change), so its residual and the head's height are
// read side by side; lane 0 reads x's excess meanwhile and keeps x's height in a register
// (only x's tile writes it during the sweeps); lane 0 pushes what the lane that read the
// chosen arc saw, handed over by a shuffle, instead of reading it again (a lower bound: see
// the push); and a push's target is not queued at once (an exchange on its stamp, then a
// slot, two round trips) but handed to a lane, and the lanes queue what they hold together,
// once TILE are held and at the end (flush_held).
__device__ __forceinline__ void discharge(
        tile_t& tile, int x, int k, int n, int t, const int* __restrict__ offsets,
        const int* __restrict__ heads, const int* __restrict__ rev, cap_t* __restrict__ res,
        cap_t* __restrict__ rres, cap_t* __restrict__ excess, int* __restrict__ height, int* __restrict__ qb,
        int* __restrict__ stamp, int* __restrict__ ring, int max_ops, int incremental, bool mirror,
        unsigned long long& pushes, int& relabels) {
    const int lane = tile.thread_rank();
    const int a0 = __ldg(offsets + x), a1 = __ldg(offsets + x + 1);
    const int my_a = a0 + lane;       // the lane's first arc, its head and its reverse arc,
    int my_y = 0, my_b = 0;           // which no op changes
    if (my_a < a1) { my_y = __ldg(heads + my_a); my_b = __ldg(rev + my_a); }
    unsigned emptied = 0;       // bit i: the lane's arc my_a + i TILE was emptied by a push of this discharge
    int hx = 0;                 // lane 0: x's height (during the sweeps only x's tile writes it)
    int held = -1, nheld = 0;   // the vertex this lane will queue; how many the tile holds
    int again = 0;
    for (int op = 0; op < max_ops; ++op) {
        // lane 0 reads x's excess (and at first its height) while the lanes read the arcs
        cap_t e = 0;
        if (lane == 0) {
            e = ld_cap(excess + x);
            if (op == 0) hx = ld_int(height + x);
        }
        int hmin = n, amin = -1, ymin = 0;
        cap_t rmin = 0;
        int i = 0;
        for (int a = my_a; a < a1; a += TILE, ++i) {
            const int y = a == my_a ? my_y : __ldg(heads + a);
            cap_t r = ld_cap(res + a);
            const int hy = ld_int(height + y);
            if (i < 32 && (emptied >> i & 1u)) r = 0;   // this read may predate the push that emptied it
            if (r > 0 && hy < hmin) { hmin = hy; amin = a; rmin = r; ymin = y; }
        }
        for (int o = TILE / 2; o > 0; o >>= 1) {   // (height, arc) min, ties to the lower arc
            int h2 = tile.shfl_xor(hmin, o), a2 = tile.shfl_xor(amin, o);
            if (h2 < hmin || (h2 == hmin && (unsigned)a2 < (unsigned)amin)) { hmin = h2; amin = a2; }
        }
        // the chosen arc's residual, head and reverse arc, from the lane that read them
        const int owner = amin >= 0 ? (amin - a0) % TILE : 0, slot = amin >= 0 ? (amin - a0) / TILE : 0;
        const cap_t r_seen = tile.shfl(rmin, owner);
        const int y_seen = tile.shfl(ymin, owner), b_first = tile.shfl(my_b, owner);
        int pushed = -1, gone = -1;
        again = 0;
        if (lane == 0) {
            if (op == 0 && !(e > 0 && hx < n)) {
                // not active (any more): nothing to do
            } else if (amin < 0) {
                height[x] = hx = n;
                ++relabels;
            } else if (hmin < hx) {
                // Only this lane decreases the residuals of x's arcs, and others only increase
                // them, so the value a lane read is a lower bound, once the arcs this discharge
                // emptied count as empty: push that much (an arc past a lane's 32nd is read again)
                const cap_t r = slot < 32 ? r_seen : ld_cap(res + amin);
                const int y = y_seen, b = slot == 0 ? b_first : __ldg(rev + amin);
                const cap_t d = e < r ? e : r;
                cap_add(res + amin, -d);
                cap_add(res + b, d);
                if (mirror) {   // each arc's copy of its reverse's residual (step 1c): rres[a] = res[rev[a]]
                    cap_add(rres + b, -d);
                    cap_add(rres + amin, d);
                }
                cap_add(excess + x, -d);
                cap_add(excess + y, d);
                ++pushes;
                if (incremental && y != t) pushed = y;
                if (d == r) gone = amin;
                again = e > d;            // excess left: look for the next arc
            } else {
                hx = hmin + 1 < n ? hmin + 1 : n;
                height[x] = hx;
                ++relabels;
                again = hmin + 1 < n;     // now above its lowest neighbour: push next
            }
        }
        gone = tile.shfl(gone, 0);
        if (gone >= 0 && (gone - a0) % TILE == lane && (gone - a0) / TILE < 32) emptied |= 1u << ((gone - a0) / TILE);
        pushed = tile.shfl(pushed, 0);
        if (pushed >= 0) hold(pushed, lane, held, nheld, k, qb, stamp, ring);
        again = tile.shfl(again, 0);
        if (!again) break;
    }
    // the ops ran out with excess left: x queues itself (a vertex that receives excess is
    // queued by its pusher)
    if (incremental && again) hold(x, lane, held, nheld, k, qb, stamp, ring);
    if (nheld) flush_held(held, k, qb, stamp, ring);
}

// ------------------------------------------------------------------------------------
// Version (c), step 4: after a sweep's barrier, the test that ends the sweeps
// ------------------------------------------------------------------------------------
// Every thread reads the same counters after the barrier, so all take the same decision.
// Returns true when the sweeps stop: enough relabels since the global relabel
// (relabel_limit), max_sweeps_between sweeps, or the leader's gr_balance vote (the
// auxiliary counter) call for a fresh one; past max_steps grid syncs the run gives up
// (*done, status 1), a guard: a hang would be worse.
__device__ __forceinline__ bool sweeps_end(
        const Stepper& st, bool leader, int sweep, long long& relabels_since,
        unsigned long long* __restrict__ stats, int relabel_limit, int max_sweeps_between,
        long long max_steps, bool& done) {
    relabels_since += st.rel;
    if (leader) stats[ST_SWEEP] += 1;
    if (st.k > max_steps) { done = true; if (leader) stats[ST_STATUS] = 1; return true; }
    return relabels_since > relabel_limit || sweep + 1 >= max_sweeps_between || st.aux;
}

// ------------------------------------------------------------------------------------
// Version (c): the one cooperative kernel that runs the whole algorithm, steps 1 to 4
// ------------------------------------------------------------------------------------
// A global relabel (step 1a, 1b or 1c), then sweeps (step 2 when the queue is rebuilt from
// scratch, step 3 for every queued vertex, a grid barrier, step 4) until the heights are
// loose again, and again, until a fresh global relabel leaves no active vertex: the preflow
// is then maximum.  Nothing returns to the host in between.
extern "C" __global__ void __launch_bounds__(VC_BLOCK, 1) vertex_centric_kernel(
        int n, int s, int t, const int* __restrict__ offsets, const int* __restrict__ heads,
        const int* __restrict__ rev, cap_t* __restrict__ res, cap_t* __restrict__ excess,
        int* __restrict__ height, int* __restrict__ qa, int* __restrict__ qb,
        int* __restrict__ stamp, int* __restrict__ ring, unsigned long long* __restrict__ stats,
        int* __restrict__ wq, int wq_cap, int* __restrict__ wl, cap_t* __restrict__ rres,
        int relabel_limit, int max_sweeps_between, int max_ops, int incremental, int early_stop,
        int async_bfs, float gr_balance, long long max_steps, int block_bfs, int local_levels, int qcap) {
    cg::grid_group grid = cg::this_grid();
    tile_t tile = cg::tiled_partition<TILE>(cg::this_thread_block());
    const int stride = gridDim.x * blockDim.x;
    const int tile_id = tile_rank(), tiles = stride / TILE;
    const bool leader = grid.thread_rank() == 0;
    unsigned long long pushes = 0, relabels = 0, t0 = 0, gr_last = 0;   // times: leader only
    Stepper st{0, 0, 0};
    bool done = false;
    while (!done) {
        // ---- step 1: the global relabel, asynchronous (1a), then, unless that finished, with
        // several levels a block between grid barriers (1c, local_levels > 1) or by levels (1b,
        // also when the global queue of 1c overflowed)
        if (leader) t0 = global_ns();
        bool levels = !async_bfs;
        if (async_bfs)
            levels = async_global_relabel(grid, tile, st, n, s, t, offsets, heads, rev, res, height, ring,
                                          stats, wq, wq_cap, wl);
        // step 1b writes the queue qa, so it runs only when needed: after step 1a the
        // sweeps' gather may already be writing the queue, with no barrier in between
        int level = 0, solo = 0;
        if (levels && local_levels > 1) {
            bool lost = false;
            level = bfs_local(grid, tile, st, n, s, t, offsets, heads, rres, excess, height, qa, qb, qcap, ring, stats,
                              early_stop && !async_bfs, local_levels, lost);
            if (lost)    // the global queue was full: the BFS by levels, to the end (no early stop)
                level += bfs_by_levels(grid, tile, st, n, s, t, offsets, heads, rev, res, excess, height, qa, qb,
                                       ring, 0, async_bfs, 0, solo);
        } else if (levels) {
            level = bfs_by_levels(grid, tile, st, n, s, t, offsets, heads, rev, res, excess, height, qa, qb,
                                  ring, early_stop, async_bfs, block_bfs, solo);
        }
        if (leader) {
            stats[ST_GR] += 1;
            stats[ST_LEVEL] += level;
            stats[ST_SOLO] += solo;
            unsigned long long t1 = global_ns();
            gr_last = t1 - t0;
            stats[ST_GR_NS] += gr_last;
            t0 = t1;
        }
        // ---- sweeps until enough relabels have made the heights loose again
        long long relabels_since = 0;
        int active = 0;
        for (int sweep = 0;; ++sweep) {
            if (sweep == 0 || !incremental)
                active = gather_active(grid, st, n, s, t, excess, height, qa, ring);      // step 2
            if (active == 0) { done = sweep == 0; break; }   // after a fresh relabel: maximum
            const int k = st.k;
            int my_relabels = 0;
            for (int i = tile_id; i < active; i += tiles)                                  // step 3
                discharge(tile, qa[i], k, n, t, offsets, heads, rev, res, rres, excess, height, qb, stamp, ring,
                          max_ops, incremental, local_levels > 1, pushes, my_relabels);
            if (my_relabels) atomicAdd(ring + 3 + k % 3, my_relabels);
            relabels += my_relabels;
            // gr_balance: time decides when the heights are worth refreshing.  Once these
            // sweeps have taken gr_balance times as long as the last global relabel, the
            // leader votes (in the auxiliary counter) and, after the barrier, all stop
            // together: a deep BFS (genrmf) is then run less often than a shallow one.
            if (leader && gr_balance > 0.0f && (float)(global_ns() - t0) > gr_balance * (float)gr_last)
                atomicAdd(ring + 6 + k % 3, 1);
            int queued = st.sync(grid, ring);
            if (incremental) { active = queued; int* tmp = qa; qa = qb; qb = tmp; }
            if (sweeps_end(st, leader, sweep, relabels_since, stats, relabel_limit, max_sweeps_between,
                           max_steps, done))                                               // step 4
                break;
        }
        if (leader) stats[ST_PR_NS] += global_ns() - t0;
    }
    atomicAdd(stats + ST_PUSH, pushes);
    atomicAdd(stats + ST_RELABEL, relabels);
}
