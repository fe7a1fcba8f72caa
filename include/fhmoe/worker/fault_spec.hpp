#pragma once

// Fault injection, asked for on the worker's command line (`--inject-fault`). Off unless
// asked for. Grammar (comma-separated entries):
//
//   entry  := kind ["!"] "@" ["race:"] [shape_key ":"] index
//   kind   := crash | exit | hang | oom | wrong | unsupported | oom_preflight | genfail
//
//   crash@3                       candidate with planned index 3 gets a real SIGSEGV
//   hang@t3_h512_i128_e17_k5_gui:7  only on that shape (family::shape_key_string)
//   genfail!@0                    every load attempt for index 0 fails, not only the first
//   crash@race:3                  index 3 crashes when it is raced as a finalist (its chunk
//                                 measurement is clean); the race's first worker life only
//
// index is the candidate's position in its shape's planned list (stable across chunking).
// A fault fires only on attempt 0 of its candidate (or load) unless marked "!".
// genfail@k fails the shape load of the worker life that is about to run candidate k.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fhmoe::worker {

enum class FaultKind : std::uint8_t {
    crash,          // write through an invalid pointer: a real SIGSEGV
    exit,           // _exit(nonzero) mid-candidate
    hang,           // loop forever mid-candidate
    oom,            // an allocation that really fails -> oom_runtime
    wrong,          // perturb the checked output -> mismatch
    unsupported,    // report unsupported
    oom_preflight,  // report oom_preflight
    genfail,        // the shape load (data generation) fails
};

std::string_view to_string(FaultKind kind) noexcept;

struct FaultEntry {
    FaultKind kind = FaultKind::crash;
    std::int64_t index = 0;
    std::optional<std::string> shape_key;  // nullopt: any shape
    bool every_attempt = false;            // "!"
    bool race_only = false;                // "race:": fires in a race, never in a chunk
    std::string text() const;              // the entry as written, canonical
};

class FaultPlan {
public:
    FaultPlan() = default;
    explicit FaultPlan(std::vector<FaultEntry> entries) : entries_(std::move(entries)) {}

    // Throws fhmoe::ParseError naming the bad entry and the grammar.
    static FaultPlan parse(std::string_view spec);

    // The fault for one candidate (any kind but genfail), if one applies.
    std::optional<FaultEntry> for_candidate(std::string_view shape_key, std::int64_t index,
                                            std::uint32_t attempt) const;
    // The fault for one contender's run in a race: the entries for_candidate applies, and the
    // "race:" ones. `attempt` counts the race's lost worker lives.
    std::optional<FaultEntry> for_race_contender(std::string_view shape_key, std::int64_t index,
                                                 std::uint32_t attempt) const;
    // The genfail entry for a load whose worker life starts at `next_index`, if one applies.
    std::optional<FaultEntry> for_load(std::string_view shape_key, std::int64_t next_index,
                                       std::uint32_t attempt) const;

    bool empty() const { return entries_.empty(); }
    const std::vector<FaultEntry>& entries() const { return entries_; }

private:
    std::optional<FaultEntry> find(bool load, bool racing, std::string_view shape_key,
                                   std::int64_t index, std::uint32_t attempt) const;
    std::vector<FaultEntry> entries_;
};

}  // namespace fhmoe::worker
