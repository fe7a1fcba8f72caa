#include "fhmoe/evidence/run_evidence.hpp"

#include <string>

#include "fhmoe/error.hpp"

namespace fhmoe::evidence {

std::string_view to_string(Decision decision) noexcept {
    switch (decision) {
        case Decision::promote: return "promote";
        case Decision::retain: return "retain";
        case Decision::incomplete: return "incomplete";
        case Decision::all_failed: return "all_failed";
        case Decision::pending: return "pending";
    }
    return "invalid";
}

Decision decision_from_string(std::string_view text) {
    std::string valid;
    for (Decision decision : all_decisions) {
        if (to_string(decision) == text) return decision;
        valid += valid.empty() ? "" : ", ";
        valid += to_string(decision);
    }
    throw ParseError("unknown decision '" + std::string(text) + "' (valid: " + valid + ")");
}

std::string_view to_string(RatioBasis basis) noexcept {
    switch (basis) {
        case RatioBasis::none: return "none";
        case RatioBasis::same_chunk_incumbent: return "same_chunk_incumbent";
        case RatioBasis::other_chunks_incumbent: return "other_chunks_incumbent";
    }
    return "invalid";
}

PublishedRole published_role(const DecisionRecord& decision) noexcept {
    switch (decision.decision) {
        case Decision::promote: return PublishedRole::best_challenger;
        case Decision::retain: return PublishedRole::incumbent;
        default: return PublishedRole::none;
    }
}

std::string_view to_string(PublishedRole role) noexcept {
    switch (role) {
        case PublishedRole::none: return "-";
        case PublishedRole::incumbent: return "incumbent";
        case PublishedRole::best_challenger: return "best_challenger";
    }
    return "invalid";
}

std::string published_key(const DecisionRecord& decision) {
    switch (published_role(decision)) {
        case PublishedRole::best_challenger: return decision.best_challenger_key;
        case PublishedRole::incumbent: return decision.incumbent_key;
        case PublishedRole::none: break;
    }
    return {};
}

double published_us(const DecisionRecord& decision) {
    switch (published_role(decision)) {
        case PublishedRole::best_challenger: return decision.best_challenger_us;
        case PublishedRole::incumbent: return decision.incumbent_us;
        case PublishedRole::none: break;
    }
    return kAbsent;
}

double published_stderr_us(const DecisionRecord& decision) {
    switch (published_role(decision)) {
        case PublishedRole::best_challenger: return decision.best_challenger_stderr_us;
        case PublishedRole::incumbent: return decision.incumbent_stderr_us;
        case PublishedRole::none: break;
    }
    return kAbsent;
}

}  // namespace fhmoe::evidence
