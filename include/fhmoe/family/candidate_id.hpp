#pragma once

// The bridge between family::Candidate (what runs) and tuning::CandidateId (what records,
// sorts and shards): block_m plus the two canonical kernel names.

#include <string>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/tuning/result.hpp"

namespace fhmoe::family {

// "bm{block_m}|{stage1 name}|{stage2 name}", identical to to_candidate_id(c).key().
std::string candidate_key(const Candidate& candidate);

tuning::CandidateId to_candidate_id(const Candidate& candidate);

// Parses both names (fhmoe::ParseError on a malformed one, or when the stage1 tile_m is not
// block_m: a candidate's stage1 tile is its sort block by definition).
Candidate from_candidate_id(const tuning::CandidateId& id);

}  // namespace fhmoe::family
