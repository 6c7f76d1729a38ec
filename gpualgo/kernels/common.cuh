// Warp and block reductions shared by the kernels of gpualgo.
//
// Conventions:
//  * Warp functions must be called by all 32 lanes of a warp (full mask); afterwards
//    every lane holds the result (xor butterfly, so no broadcast is needed).
//  * Block functions must be called by every thread of the block, with blockDim.x a
//    multiple of 32 (at most 1024); afterwards every thread holds the result.  They
//    contain __syncthreads(), so never call them under a condition that differs
//    between threads of a block.
//  * Arg-reductions break ties towards the LOWEST index, so results are deterministic
//    and match a serial left-to-right scan.
//  * Block functions take the identity of the reduction (for example -1e300 for a
//    max, or LLONG_MAX for a min) because only the caller knows its sentinel values.
//  * Types: T is int, unsigned, long long, unsigned long long, float or double (what
//    __shfl_xor_sync accepts); I is int or long long.
//  * One mechanism for every type: xor-butterfly shuffles, five rounds.  Integer maxima,
//    minima and 32-bit sums (and warp_top2 on 64-bit keys with int indices) take the
//    hardware's warp reduction instead, redux.sync, on compute capability 8.0 and newer: one
//    instruction for 32 bits, two for 64 (the high words, then the low words of the lanes
//    holding the winning high word).  Older GPUs, and a build with -DGPUALGO_NO_REDUX, take
//    the shuffles; both give the same results.
#pragma once

#define GPUALGO_FULL_MASK 0xffffffffu
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(GPUALGO_NO_REDUX)
#define GPUALGO_REDUX 1
#else
#define GPUALGO_REDUX 0
#endif

template <class T>
__device__ __forceinline__ T warp_max(T v) {
    for (int o = 16; o > 0; o >>= 1) {
        T w = __shfl_xor_sync(GPUALGO_FULL_MASK, v, o);
        v = w > v ? w : v;
    }
    return v;
}

template <class T>
__device__ __forceinline__ T warp_min(T v) {
    for (int o = 16; o > 0; o >>= 1) {
        T w = __shfl_xor_sync(GPUALGO_FULL_MASK, v, o);
        v = w < v ? w : v;
    }
    return v;
}

template <class T>
__device__ __forceinline__ T warp_sum(T v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(GPUALGO_FULL_MASK, v, o);
    return v;
}

// The integer overloads (an exact match, so they win over the templates above).
__device__ __forceinline__ int warp_max(int v) {
#if GPUALGO_REDUX
    return __reduce_max_sync(GPUALGO_FULL_MASK, v);
#else
    return warp_max<int>(v);
#endif
}
__device__ __forceinline__ unsigned warp_max(unsigned v) {
#if GPUALGO_REDUX
    return __reduce_max_sync(GPUALGO_FULL_MASK, v);
#else
    return warp_max<unsigned>(v);
#endif
}
__device__ __forceinline__ int warp_min(int v) {
#if GPUALGO_REDUX
    return __reduce_min_sync(GPUALGO_FULL_MASK, v);
#else
    return warp_min<int>(v);
#endif
}
__device__ __forceinline__ unsigned warp_min(unsigned v) {
#if GPUALGO_REDUX
    return __reduce_min_sync(GPUALGO_FULL_MASK, v);
#else
    return warp_min<unsigned>(v);
#endif
}
__device__ __forceinline__ int warp_sum(int v) {
#if GPUALGO_REDUX
    return __reduce_add_sync(GPUALGO_FULL_MASK, v);
#else
    return warp_sum<int>(v);
#endif
}
__device__ __forceinline__ unsigned warp_sum(unsigned v) {
#if GPUALGO_REDUX
    return __reduce_add_sync(GPUALGO_FULL_MASK, v);
#else
    return warp_sum<unsigned>(v);
#endif
}
// 64 bits: the high words decide (H: int for long long, unsigned for unsigned long long), then
// the low words (unsigned) of the lanes that hold the winning high word; the other lanes offer
// the low words' identity.
template <bool Max, class H, class T>
__device__ __forceinline__ T warp_extreme64(T v) {
#if GPUALGO_REDUX
    const H hi = Max ? warp_max((H)(v >> 32)) : warp_min((H)(v >> 32));
    const unsigned mine = (H)(v >> 32) == hi ? (unsigned)v : (Max ? 0u : 0xffffffffu);
    const unsigned lo = Max ? warp_max(mine) : warp_min(mine);
    return (T)(((unsigned long long)(unsigned)hi << 32) | lo);
#else
    return Max ? warp_max<T>(v) : warp_min<T>(v);
#endif
}
__device__ __forceinline__ long long warp_max(long long v) { return warp_extreme64<true, int>(v); }
__device__ __forceinline__ unsigned long long warp_max(unsigned long long v) { return warp_extreme64<true, unsigned>(v); }
__device__ __forceinline__ long long warp_min(long long v) { return warp_extreme64<false, int>(v); }
__device__ __forceinline__ unsigned long long warp_min(unsigned long long v) { return warp_extreme64<false, unsigned>(v); }

// (v, idx) <- the largest (Max) or smallest v, ties to the lowest idx.
template <bool Max, class T, class I>
__device__ __forceinline__ void warp_arg_extreme(T& v, I& idx) {
    for (int o = 16; o > 0; o >>= 1) {
        T w = __shfl_xor_sync(GPUALGO_FULL_MASK, v, o);
        I j = __shfl_xor_sync(GPUALGO_FULL_MASK, idx, o);
        if ((Max ? w > v : w < v) || (w == v && j < idx)) { v = w; idx = j; }
    }
}

template <class T, class I>
__device__ __forceinline__ void warp_argmin(T& v, I& idx) { warp_arg_extreme<false>(v, idx); }

template <class T, class I>
__device__ __forceinline__ void warp_argmax(T& v, I& idx) { warp_arg_extreme<true>(v, idx); }

// Merge two (best, second, idx) triples, best >= second in each.  The merged second
// is the second largest of the multiset, so a value equal to the best held elsewhere
// becomes the second: that is what the auction's bid g1 - g2 needs (a tie bids zero).
template <class T, class I>
__device__ __forceinline__ void top2_merge(T& best, T& second, I& idx, T b2, T s2, I i2) {
    if (b2 > best || (b2 == best && i2 < idx)) {
        second = best > s2 ? best : s2;
        best = b2;
        idx = i2;
    } else {
        second = second > b2 ? second : b2;
    }
}

// Every lane holds (best, second, idx) of its own elements; afterwards every lane
// holds the warp's (max, second max, argmax).
template <class T, class I>
__device__ __forceinline__ void warp_top2(T& best, T& second, I& idx) {
    for (int o = 16; o > 0; o >>= 1) {
        T b = __shfl_xor_sync(GPUALGO_FULL_MASK, best, o);
        T s = __shfl_xor_sync(GPUALGO_FULL_MASK, second, o);
        I j = __shfl_xor_sync(GPUALGO_FULL_MASK, idx, o);
        top2_merge(best, second, idx, b, s, j);
    }
}

// 64-bit keys and int indices (the auction's profits and objects) as three reductions: the
// largest best; the lowest index among the lanes holding it; the largest of the other lanes'
// bests and of the winning lane's second.  The same result as the merges above when each
// index is held by one lane at most (a lane that holds nothing holds the identity and an
// index above every real one).
__device__ __forceinline__ void warp_top2(long long& best, long long& second, int& idx) {
#if GPUALGO_REDUX
    const long long g1 = warp_max(best);
    const int x = warp_min(best == g1 ? idx : 0x7fffffff);
    second = warp_max(best == g1 && idx == x ? second : best);
    best = g1;
    idx = x;
#else
    warp_top2<long long, int>(best, second, idx);
#endif
}

template <class T>
__device__ T block_max(T v, T identity) {
    __shared__ T sv[32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_max(v);
    __syncthreads();  // a previous call's readers are done with sv
    if (lane == 0) sv[wid] = v;
    __syncthreads();
    if (wid == 0) {
        v = lane < nw ? sv[lane] : identity;
        v = warp_max(v);
        if (lane == 0) sv[0] = v;
    }
    __syncthreads();
    return sv[0];
}

template <class T>
__device__ T block_sum(T v) {
    __shared__ T sv[32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) sv[wid] = v;
    __syncthreads();
    if (wid == 0) {
        v = lane < nw ? sv[lane] : T(0);
        v = warp_sum(v);
        if (lane == 0) sv[0] = v;
    }
    __syncthreads();
    return sv[0];
}

template <bool Max, class T, class I>
__device__ void block_arg_extreme(T& v, I& idx, T identity, I no_index) {
    // exercise tsp.block_argmin: begin
    __shared__ T sv[32];
    __shared__ I si[32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    warp_arg_extreme<Max>(v, idx);
    __syncthreads();
    if (lane == 0) { sv[wid] = v; si[wid] = idx; }
    __syncthreads();
    if (wid == 0) {
        v = lane < nw ? sv[lane] : identity;
        idx = lane < nw ? si[lane] : no_index;
        warp_arg_extreme<Max>(v, idx);
        if (lane == 0) { sv[0] = v; si[0] = idx; }
    }
    __syncthreads();
    v = sv[0];
    idx = si[0];
    // exercise tsp.block_argmin: end
}

template <class T, class I>
__device__ void block_argmin(T& v, I& idx, T identity, I no_index) { block_arg_extreme<false>(v, idx, identity, no_index); }

template <class T, class I>
__device__ void block_argmax(T& v, I& idx, T identity, I no_index) { block_arg_extreme<true>(v, idx, identity, no_index); }

// identity: a value below every real one (used for both best and second of the
// missing warps); no_index: an index above every real one.
template <class T, class I>
__device__ void block_top2(T& best, T& second, I& idx, T identity, I no_index) {
    __shared__ T sb[32];
    __shared__ T ss[32];
    __shared__ I si[32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    warp_top2(best, second, idx);
    __syncthreads();
    if (lane == 0) { sb[wid] = best; ss[wid] = second; si[wid] = idx; }
    __syncthreads();
    if (wid == 0) {
        best = lane < nw ? sb[lane] : identity;
        second = lane < nw ? ss[lane] : identity;
        idx = lane < nw ? si[lane] : no_index;
        warp_top2(best, second, idx);
        if (lane == 0) { sb[0] = best; ss[0] = second; si[0] = idx; }
    }
    __syncthreads();
    best = sb[0];
    second = ss[0];
    idx = si[0];
}
