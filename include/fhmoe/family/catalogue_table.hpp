#pragma once

// The fhmoe_catalogue tool's output, kept out of its main so it is tested.

#include <string>
#include <vector>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {

// One line per shape: token, padded token, candidates per block_m (blank where a block_m is
// not offered), total, and the default candidate's key. A shape the family cannot run gets
// its reason instead of counts.
std::string format_catalogue_table(const std::vector<ShapeKey>& shapes);

// One line per candidate: estimated device bytes and its key, marking the default.
std::string format_candidate_list(const ShapeKey& shape, const std::vector<Candidate>& candidates);

}  // namespace fhmoe::family
