#pragma once

// What a decision needs to know about one measurement: did it run cleanly, and how fast,
// how precisely. The gate, the race and --compare all reason about this and nothing more.

#include <string_view>

#include "fhmoe/tuning/result.hpp"
#include "fhmoe/tuning/status.hpp"

namespace fhmoe::tuning {

struct Measured {
    Status status = Status::not_run;
    double mean_us = 0.0;    // meaningful when status == ok
    double stderr_us = 0.0;  // standard error of mean_us; 0 when unknown
};

// The status and the mean/stderr of the result's timing.
Measured measured_from(const CandidateResult& result);

// An ok measurement must have a finite mean above 0 and a finite, non-negative stderr:
// timing that produced anything else is a bug upstream. Throws fhmoe::InternalError naming
// `role` ("incumbent", "challenger", ...). Measurements that are not ok are not checked.
void check_measured(const Measured& measured, std::string_view role);

}  // namespace fhmoe::tuning
