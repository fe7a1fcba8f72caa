#pragma once

// The injected faults that really happen (DESIGN.md section 5: real faults, not mocks).

namespace fhmoe::worker {

// Writes through an invalid pointer: the kernel delivers a real SIGSEGV.
[[noreturn]] void crash_with_invalid_write();
// Leaves mid-candidate with a nonzero status, skipping destructors and atexit handlers, as a
// library calling exit() from deep inside a kernel launch would.
[[noreturn]] void exit_abruptly();
// Spins forever: only a deadline gets the worker back.
[[noreturn]] void hang_forever();
// Asks the allocator for an absurd amount so that it really fails: throws std::bad_alloc.
void fail_allocation();

// The exit status exit_abruptly() uses.
inline constexpr int injected_exit_code = 3;

}  // namespace fhmoe::worker
