#include "fhmoe/tuning/result.hpp"

namespace fhmoe::tuning {

std::string CandidateId::key() const {
    return "bm" + std::to_string(block_m) + "|" + stage1 + "|" + stage2;
}

}  // namespace fhmoe::tuning
