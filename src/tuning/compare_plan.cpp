#include "fhmoe/tuning/compare_plan.hpp"

#include <limits>
#include <set>

#include "fhmoe/tuning/statistics.hpp"

namespace fhmoe::tuning {

std::string_view to_string(UpdateReason reason) noexcept {
    switch (reason) {
        case UpdateReason::threshold_met: return "threshold_met";
        case UpdateReason::no_baseline: return "no_baseline";
        case UpdateReason::skip: return "skip";
    }
    return "invalid";
}

namespace {

template <typename Map>
std::optional<Measured> find(const Map& measurements, const std::string& key) {
    const auto found = measurements.find(key);
    if (found == measurements.end()) return std::nullopt;
    return found->second;
}

double noise_of(const std::optional<Measured>& pre, const std::optional<Measured>& post,
                const PromotionPolicy& policy) {
    if (!pre || !post || pre->status != Status::ok || post->status != Status::ok) return 0.0;
    // Two independent measurements of many iterations each: a one-sided normal critical
    // value at the policy's false-promotion rate. (One shape per comparison: no finalists
    // to correct for.)
    return noise_floor_pct(pre->mean_us, pre->stderr_us, post->stderr_us,
                           normal_quantile(1.0 - policy.false_promotion_rate));
}

CompareRow plan_row(const std::string& key, const std::optional<Measured>& pre,
                    const std::optional<Measured>& post, const PromotionPolicy& policy) {
    CompareRow row;
    row.shape_key = key;
    row.pre = pre;
    row.post = post;
    row.improvement_pct = std::numeric_limits<double>::quiet_NaN();
    if (!post) {
        row.update_reason = UpdateReason::skip;
        row.detail = "no post-tune measurement";
        return row;
    }
    // Checked here, before the noise floor divides by pre's mean, to name the shape.
    if (pre) check_measured(*pre, "pre-tune measurement of " + key);
    check_measured(*post, "post-tune measurement of " + key);
    const GateDecision decision =
        gate_against_incumbent(pre, *post, policy, noise_of(pre, post, policy));
    row.improvement_pct = decision.margin_pct.value_or(row.improvement_pct);
    row.detail = decision.reason;
    if (decision.verdict == Verdict::retain) {
        row.update_reason = UpdateReason::skip;
    } else if (decision.margin_pct) {
        row.update_reason = UpdateReason::threshold_met;
    } else {
        row.update_reason = UpdateReason::no_baseline;
    }
    row.update = row.update_reason != UpdateReason::skip;
    return row;
}

}  // namespace

std::vector<CompareRow> build_compare_plan(const std::map<std::string, Measured>& pre,
                                           const std::map<std::string, Measured>& post,
                                           const PromotionPolicy& policy) {
    std::vector<CompareRow> plan;
    if (pre.empty() || post.empty()) return plan;
    std::set<std::string> keys;
    for (const auto& entry : pre) keys.insert(entry.first);
    for (const auto& entry : post) keys.insert(entry.first);
    for (const std::string& key : keys) {
        plan.push_back(plan_row(key, find(pre, key), find(post, key), policy));
    }
    return plan;
}

}  // namespace fhmoe::tuning
