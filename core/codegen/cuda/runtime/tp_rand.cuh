// T.rng_init / T.rng_rand: a per-thread Philox4x32-10 counter-based generator (Salmon et al.,
// "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11), with the state layout of cuRAND's
// curandStatePhilox4_32_10_t: key = the 64-bit seed, a 128-bit counter whose upper half is the
// subsequence and lower half offset / 4, and outputs taken from each 4-word block in order
// starting at word offset % 4. The CPU interpreter's generator (interp/compile_call.cpp) is the
// same algorithm, so GPU and interpreter runs draw the same numbers.
#pragma once

#include "tp_common.cuh"

namespace tp {

struct Philox4x32 {
    unsigned key[2];
    unsigned ctr[4];
    unsigned out[4];
    int pos;

    static __device__ __forceinline__ void round(unsigned (&c)[4], const unsigned (&k)[2]) {
        const unsigned hi0 = __umulhi(0xD2511F53u, c[0]), lo0 = 0xD2511F53u * c[0];
        const unsigned hi1 = __umulhi(0xCD9E8D57u, c[2]), lo1 = 0xCD9E8D57u * c[2];
        const unsigned n0 = hi1 ^ c[1] ^ k[0], n2 = hi0 ^ c[3] ^ k[1];
        c[0] = n0, c[1] = lo1, c[2] = n2, c[3] = lo0;
    }
    __device__ __forceinline__ void block() {
        unsigned c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
        unsigned k[2] = {key[0], key[1]};
#pragma unroll
        for (int r = 0; r < 10; ++r) {
            if (r) k[0] += 0x9E3779B9u, k[1] += 0xBB67AE85u;
            round(c, k);
        }
        out[0] = c[0], out[1] = c[1], out[2] = c[2], out[3] = c[3];
    }
    __device__ __forceinline__ void add_counter(unsigned long long lo_add, unsigned long long hi_add) {
        unsigned long long lo = (static_cast<unsigned long long>(ctr[1]) << 32 | ctr[0]) + lo_add;
        const unsigned long long carry = lo < lo_add ? 1ull : 0ull;
        unsigned long long hi = (static_cast<unsigned long long>(ctr[3]) << 32 | ctr[2]) + hi_add + carry;
        ctr[0] = static_cast<unsigned>(lo), ctr[1] = static_cast<unsigned>(lo >> 32);
        ctr[2] = static_cast<unsigned>(hi), ctr[3] = static_cast<unsigned>(hi >> 32);
    }
    __device__ __forceinline__ void init(unsigned long long seed, unsigned long long seq, unsigned long long off) {
        key[0] = static_cast<unsigned>(seed), key[1] = static_cast<unsigned>(seed >> 32);
        ctr[0] = ctr[1] = ctr[2] = ctr[3] = 0;
        add_counter(off / 4, seq);
        pos = static_cast<int>(off % 4);
        block();
    }
    __device__ __forceinline__ unsigned next() {
        const unsigned v = out[pos];
        if (++pos == 4) {
            pos = 0;
            add_counter(1, 0);
            block();
        }
        return v;
    }
};

}  // namespace tp
