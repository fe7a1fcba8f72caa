#include "fhmoe/tuning/measured.hpp"

#include <cmath>
#include <string>

#include "fhmoe/error.hpp"

namespace fhmoe::tuning {

Measured measured_from(const CandidateResult& result) {
    return Measured{result.status, result.timing.mean_us, result.timing.stderr_us};
}

void check_measured(const Measured& measured, std::string_view role) {
    if (measured.status != Status::ok) return;
    FHMOE_CHECK(
        std::isfinite(measured.mean_us) && measured.mean_us > 0.0,
        std::string(role) + " is ok but its mean is " + std::to_string(measured.mean_us) + " us");
    FHMOE_CHECK(std::isfinite(measured.stderr_us) && measured.stderr_us >= 0.0,
                std::string(role) + " is ok but its standard error is " +
                    std::to_string(measured.stderr_us) + " us");
}

}  // namespace fhmoe::tuning
