#include "fhmoe/family/candidate_id.hpp"

#include "fhmoe/error.hpp"
#include "fhmoe/family/name_grammar.hpp"

namespace fhmoe::family {

std::string candidate_key(const Candidate& candidate) { return to_candidate_id(candidate).key(); }

tuning::CandidateId to_candidate_id(const Candidate& candidate) {
    return tuning::CandidateId{candidate.block_m, format_stage1_name(candidate.stage1),
                               format_stage2_name(candidate.stage2)};
}

Candidate from_candidate_id(const tuning::CandidateId& id) {
    Candidate candidate;
    candidate.block_m = id.block_m;
    candidate.stage1 = parse_stage1_name(id.stage1);
    candidate.stage2 = parse_stage2_name(id.stage2);
    if (candidate.stage1.tile_m != id.block_m) {
        throw ParseError("candidate '" + id.key() + "': stage1 tile_m " +
                         std::to_string(candidate.stage1.tile_m) + " is not block_m " +
                         std::to_string(id.block_m));
    }
    return candidate;
}

}  // namespace fhmoe::family
