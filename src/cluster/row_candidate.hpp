#pragma once

// The candidate a tuned row names, as serving would run it: our own canonical names, or
// aiter's shipped names imported (family/aiter_import.hpp, every dropped token logged).

#include <string>

#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::cluster {

// Throws fhmoe::InputError naming path:line and kernelName1 when neither reading applies.
family::Candidate candidate_of_row(const config::TunedRecord& record, const family::ShapeKey& shape,
                                   const std::string& path);

}  // namespace fhmoe::cluster
