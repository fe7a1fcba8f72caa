#pragma once

// A fixed set of worker threads, created once per op and reused by every run, so a timed
// run pays a wake-up, never a thread creation. run() hands a task to the first
// `participants` workers (index 0 is the calling thread) and returns when all are done;
// it allocates nothing.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fhmoe::kernels {

class ThreadPool {
public:
    // `size` participants in all: the caller plus size - 1 threads.
    explicit ThreadPool(int size);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return size_; }

    // Calls task(index) for every index in [0, participants) concurrently, index 0 on the
    // calling thread; rethrows the first exception a task threw.
    template <typename Task>
    void run(int participants, Task& task) {
        run_erased(
            participants, [](void* context, int index) { (*static_cast<Task*>(context))(index); },
            &task);
    }

private:
    using ErasedTask = void (*)(void*, int);
    void run_erased(int participants, ErasedTask task, void* context);
    void worker_loop(int index);
    void run_guarded(int index);

    int size_;
    std::mutex mutex_;
    std::condition_variable start_;
    std::condition_variable done_;
    std::uint64_t generation_ = 0;
    int participants_ = 0;
    int pending_ = 0;
    bool stopping_ = false;
    ErasedTask task_ = nullptr;
    void* context_ = nullptr;
    std::exception_ptr error_;
    std::vector<std::thread> threads_;
};

}  // namespace fhmoe::kernels
