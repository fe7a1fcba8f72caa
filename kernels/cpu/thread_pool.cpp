#include "cpu/thread_pool.hpp"

#include <string>

#include "fhmoe/error.hpp"

namespace fhmoe::kernels {

ThreadPool::ThreadPool(int size) : size_(size) {
    if (size < 1) throw Error("thread pool size " + std::to_string(size) + " must be >= 1");
    threads_.reserve(static_cast<std::size_t>(size - 1));
    for (int index = 1; index < size; ++index) {
        threads_.emplace_back([this, index] { worker_loop(index); });
    }
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    start_.notify_all();
    for (std::thread& thread : threads_) thread.join();
}

void ThreadPool::run_guarded(int index) {
    try {
        task_(context_, index);
    } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
    }
}

void ThreadPool::run_erased(int participants, ErasedTask task, void* context) {
    if (participants < 1 || participants > size_) {
        throw InternalError("thread pool of " + std::to_string(size_) + " asked for " +
                            std::to_string(participants) + " participants");
    }
    {
        std::lock_guard lock(mutex_);
        task_ = task;
        context_ = context;
        participants_ = participants;
        pending_ = participants - 1;
        error_ = nullptr;
        ++generation_;
    }
    if (participants > 1) start_.notify_all();
    run_guarded(0);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    if (error_) std::rethrow_exception(error_);
}

void ThreadPool::worker_loop(int index) {
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    while (true) {
        start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        if (index >= participants_) continue;
        lock.unlock();
        run_guarded(index);
        lock.lock();
        if (--pending_ == 0) done_.notify_one();
    }
}

}  // namespace fhmoe::kernels
