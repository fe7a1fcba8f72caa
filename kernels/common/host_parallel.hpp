#pragma once

// Host-only: body(i) for every i in [0, n) on up to the host's cores (at most 64 threads),
// each index exactly once, worker w taking w, w + workers, ... Callers give each index its
// own output, so results never depend on the split or the core count (the data generation,
// the CPU reference and the weight upload rely on it for bit-identical results across ranks).

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace fhmoe::kernels {

template <typename Body>
void parallel_for(std::int64_t n, const Body& body) {
    const auto workers = std::min<std::int64_t>(
        n, std::clamp<std::int64_t>(std::thread::hardware_concurrency(), 1, 64));
    if (workers <= 1) {
        for (std::int64_t i = 0; i < n; ++i) body(i);
        return;
    }
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(workers));
    for (std::int64_t w = 0; w < workers; ++w) {
        threads.emplace_back([&, w] {
            for (std::int64_t i = w; i < n; i += workers) body(i);
        });
    }
    for (std::thread& thread : threads) thread.join();
}

}  // namespace fhmoe::kernels
