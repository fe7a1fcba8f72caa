#pragma once

// Host-only: body(i) for every i in [0, n) on up to host_threads() threads, each index exactly
// once, each thread claiming the next unclaimed index as it finishes one. Callers give each
// index its own output, so results never depend on the split or the core count (the data
// generation, the CPU reference and the weight upload rely on it for bit-identical results
// across ranks). Claimed rather than dealt out in advance because a load shares its host with
// busy threads (an MPI rank polls its network on one core): with a fixed share per thread
// the one on the busy core finishes last and the whole loop waits for it.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace fhmoe::kernels {

inline constexpr int kMostHostThreads = 64;

namespace detail {
// 0: the host's cores. Set only through ScopedHostThreads.
inline std::atomic<int> host_threads_override{0};
}  // namespace detail

// The thread count of the host loops (parallel_for, the reference's pool): the host's cores,
// at most kMostHostThreads, unless a ScopedHostThreads says otherwise.
inline int host_threads() {
    const int chosen = detail::host_threads_override.load(std::memory_order_relaxed);
    const int count = chosen > 0 ? chosen : static_cast<int>(std::thread::hardware_concurrency());
    return std::clamp(count, 1, kMostHostThreads);
}

// Pins host_threads() while it lives, so a test can show that 1 and N threads give the same
// bits on one machine (what every rank's digest relies on), and the bench can show scaling.
// Not for concurrent use: the count is process-wide.
class ScopedHostThreads {
public:
    explicit ScopedHostThreads(int threads)
        : previous_(detail::host_threads_override.exchange(threads)) {}
    ~ScopedHostThreads() { detail::host_threads_override.store(previous_); }
    ScopedHostThreads(const ScopedHostThreads&) = delete;
    ScopedHostThreads& operator=(const ScopedHostThreads&) = delete;

private:
    int previous_;
};

template <typename Body>
void parallel_for(std::int64_t n, const Body& body) {
    const auto workers = std::min<std::int64_t>(n, host_threads());
    if (workers <= 1) {
        for (std::int64_t i = 0; i < n; ++i) body(i);
        return;
    }
    std::atomic<std::int64_t> next{0};
    const auto claim_and_run = [&] {
        for (std::int64_t i = next.fetch_add(1, std::memory_order_relaxed); i < n;
             i = next.fetch_add(1, std::memory_order_relaxed)) {
            body(i);
        }
    };
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(workers - 1));
    for (std::int64_t w = 1; w < workers; ++w) threads.emplace_back(claim_and_run);
    claim_and_run();  // the calling thread takes its part too
    for (std::thread& thread : threads) thread.join();
}

}  // namespace fhmoe::kernels
