#pragma once

// Every rank builds a shape's data and reference from the same seed, so every rank must
// report the same reference digest. If one does not (another library version, a broken
// node), its timings and accuracy verdicts are about a different problem, and rank 0
// refuses to compare the shape's results at all rather than guess which rank is right.

#include <cstdint>
#include <optional>
#include <string>

#include "fhmoe/tuning/result.hpp"

namespace fhmoe::cluster {

class DigestAgreement {
public:
    // Records one rank's digest. Returns the disagreement (naming both ranks and hosts) the
    // first time a digest differs from the first one reported; nullopt otherwise.
    std::optional<std::string> report(std::uint64_t digest, const tuning::MeasuredOn& where);

    bool disagrees() const { return disagreement_.has_value(); }
    const std::optional<std::string>& disagreement() const { return disagreement_; }

private:
    std::optional<std::uint64_t> first_digest_;
    tuning::MeasuredOn first_where_;
    std::optional<std::string> disagreement_;
};

}  // namespace fhmoe::cluster
