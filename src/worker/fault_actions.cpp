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
    // overcommit, so this is a real allocation failure, not a thrown-by-hand bad_alloc.
    volatile std::size_t absurd = std::size_t{1} << 62;
    void* memory = ::operator new(absurd);
    ::operator delete(memory);
}

}  // namespace fhmoe::worker
