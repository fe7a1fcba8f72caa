#include "fault_actions.hpp"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace fhmoe::worker {

void crash_with_invalid_write() {
    // The address comes through a volatile so the compiler cannot prove the write undefined
    // and drop it; page 0 is never mapped, so the write faults.
    volatile std::uintptr_t address = 16;
    *reinterpret_cast<volatile int*>(address) = 1;
    // Reached only if the write did not fault (it always does on Linux); never return.
    ::_exit(injected_exit_code + 100);
}

void exit_abruptly() { ::_exit(injected_exit_code); }

void hang_forever() {
    volatile std::uint64_t spins = 0;
    for (;;) spins = spins + 1;
}

void fail_allocation() {
    // 2^62 bytes exceeds any address space the allocator can map, with or without
    // overcommit, so the allocator really refuses; the refusal then surfaces as the
    // std::bad_alloc a failed new-expression throws. The nothrow form asks because under
    // AddressSanitizer the throwing form ends the process with a report instead of throwing
    // (the asan preset sets allocator_may_return_null=1 so that this returns null).
    volatile std::size_t absurd = std::size_t{1} << 62;
    void* memory = ::operator new(absurd, std::nothrow);
    if (memory == nullptr) throw std::bad_alloc();
    ::operator delete(memory);
}

}  // namespace fhmoe::worker
