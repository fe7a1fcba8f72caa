#pragma once

// --compare / --update_improved (aiter's _build_compare_update_plan, reference section
// 4.7): each shape is timed end to end as serving runs it, once before tuning (pre) and once
// with the newly tuned kernel (post); its new row is kept only if the tuned one is better.
// The decision for a shape is gate_against_incumbent(pre, post): the same function and the
// same bar as the search's gate, so the two can never disagree. With stderr 0 on both
// measurements (as aiter's single e2e timings) the bar is exactly min_improvement_pct.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fhmoe/tuning/gate.hpp"
#include "fhmoe/tuning/measured.hpp"
#include "fhmoe/tuning/policy.hpp"

namespace fhmoe::tuning {

enum class UpdateReason {
    threshold_met,  // both ok and post is faster by at least the bar
    no_baseline,    // post is ok, pre is missing or not ok: nothing to protect
    skip,           // post is missing or not ok, or the win is below the bar
};

std::string_view to_string(UpdateReason reason) noexcept;

struct CompareRow {
    std::string shape_key;  // the serving lookup key (get_padded_M), as everywhere else
    std::optional<Measured> pre;
    std::optional<Measured> post;
    double improvement_pct = 0.0;  // (pre - post) / pre * 100; NaN unless both are ok
    UpdateReason update_reason = UpdateReason::skip;
    bool update = false;  // update_reason != skip
    std::string detail;   // the gate's reason, or why it was not asked
};

// One row per key in either map, in key order. If either map is empty the plan is empty,
// as in aiter: a benchmark pass that returned nothing compares nothing. Throws
// fhmoe::InternalError for an ok measurement without a positive mean (check_measured).
std::vector<CompareRow> build_compare_plan(const std::map<std::string, Measured>& pre,
                                           const std::map<std::string, Measured>& post,
                                           const PromotionPolicy& policy);

}  // namespace fhmoe::tuning
