#include "cluster/run_state/digest_agreement.hpp"

#include <cstdio>

namespace fhmoe::cluster {
namespace {

std::string describe(std::uint64_t digest, const tuning::MeasuredOn& where) {
    char hex[24];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(digest));
    return "rank " + std::to_string(where.rank) + " on " + where.host + " (worker pid " +
           std::to_string(where.worker_pid) + ") computed reference digest " + hex;
}

}  // namespace

std::optional<std::string> DigestAgreement::report(std::uint64_t digest,
                                                   const tuning::MeasuredOn& where) {
    if (!first_digest_) {
        first_digest_ = digest;
        first_where_ = where;
        return std::nullopt;
    }
    if (digest == *first_digest_ || disagreement_) return std::nullopt;
    disagreement_ = "reference digests disagree: " + describe(digest, where) + ", but " +
                    describe(*first_digest_, first_where_);
    return disagreement_;
}

}  // namespace fhmoe::cluster
