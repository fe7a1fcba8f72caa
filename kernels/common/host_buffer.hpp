#pragma once

// Host-only: sizing the large host tensors of a shape load (DSV4: 1.6 GB of routed weights,
// and as much again for the gpu backend's rearranged copy). std::vector zero-fills on one
// thread, and that thread also takes every page fault, in which the kernel clears the page:
// on 4 KiB pages most of a load on the build machine's VM (perf: memset and the hypervisor's
// fault path, 67 % of a DSV4 token-1 load's samples), and serial seconds on a 16-core host.
// So the storage is advised for transparent huge pages (512 times fewer faults) and faulted in
// by every core (MADV_POPULATE_WRITE over a range per core) before the zero-fill, which then
// writes resident memory. The bytes are the same either way; where the kernel refuses the
// advice (not Linux, an older kernel) the vector simply fills as before.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/host_parallel.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fhmoe::kernels {

// Below this a buffer keeps the allocator's pages (the advice needs whole 2 MiB spans).
inline constexpr std::size_t kHugePageAdviceBytes = std::size_t{8} << 20;
// The span one work item faults in: whole huge pages, a few per core for a DSV4 tensor.
inline constexpr std::uintptr_t kPopulateSpanBytes = std::uintptr_t{32} << 20;

// `values` becomes `count` value-initialized elements (zeros), replacing its contents.
template <typename T>
void assign_zeroed(std::vector<T>& values, std::size_t count) {
    values.clear();
    values.shrink_to_fit();
    values.reserve(count);  // allocated, not yet touched: the advice applies to every page
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MADV_POPULATE_WRITE)
    const std::size_t bytes = count * sizeof(T);
    if (bytes >= kHugePageAdviceBytes) {
        constexpr std::uintptr_t page = 4096;
        const auto begin = reinterpret_cast<std::uintptr_t>(values.data());
        const std::uintptr_t first = (begin + page - 1) & ~(page - 1);
        const std::uintptr_t last = (begin + bytes) & ~(page - 1);
        if (last > first) {
            // Advice only: a refusal leaves 4 KiB pages that the fill below faults in.
            ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
            const auto spans = static_cast<std::int64_t>((last - first + kPopulateSpanBytes - 1) /
                                                         kPopulateSpanBytes);
            parallel_for(spans, [&](std::int64_t span) {
                const std::uintptr_t from =
                    first + static_cast<std::uintptr_t>(span) * kPopulateSpanBytes;
                const std::uintptr_t to = std::min(last, from + kPopulateSpanBytes);
                ::madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
            });
        }
    }
#endif
    values.resize(count);
}

}  // namespace fhmoe::kernels
