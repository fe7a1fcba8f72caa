#pragma once

// A grid-wide barrier for the persistent one-launch kernels of tools/gpu/bench: every
// workgroup of the grid must be resident (one per multiprocessor, the grid no larger). The
// counter only grows: each arrival's ticket says which round it is, so graph replays need no
// reset between launches; all launches that share a counter must use the same grid size.

__device__ inline void grid_barrier(unsigned* counter) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        const unsigned ticket = atomicAdd(counter, 1u);
        const unsigned everyone = (ticket / gridDim.x + 1) * gridDim.x;
        while (static_cast<int>(*reinterpret_cast<volatile unsigned*>(counter) - everyone) < 0) {
            __nanosleep(32);
        }
        __threadfence();
    }
    __syncthreads();
}
