#pragma once

// The checks every backend makes before it accepts a candidate: no silent substitute tile
// (unlike aiter's runtime overrides, spec 6.5), K steps and output tiles in whole 1x32 MX
// scale blocks, stage1's gate mode the shape's, and bounded block and thread counts. A
// backend adds its own limits on top (threads per tile on the cpu, shared memory per
// workgroup on the gpu) through the same helpers, so every message has one form:
// "<backend> backend cannot run this candidate: <field> <value> ...".

#include <cstdint>
#include <string>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::kernels {

class CandidateRequirements {
public:
    explicit CandidateRequirements(std::string backend) : backend_(std::move(backend)) {}

    [[noreturn]] void fail(const std::string& reason) const;
    void between(const char* field, int value, int low, int high) const;
    void divides(const char* field, int value, const char* dimension, std::int64_t size) const;
    void whole_scale_blocks(const char* field, int value) const;

    // What no backend can honour: tiles that do not tile their dimension, partial scale
    // blocks, a k_waves split that does not fall on scale blocks, a foreign gate mode,
    // block_m or tile_m out of [1, max_block_m], waves or k_waves out of [1, max_waves].
    void check_shape_fit(const family::ShapeKey& shape, const family::Candidate& candidate,
                         int max_block_m, int max_waves) const;

private:
    std::string backend_;
};

}  // namespace fhmoe::kernels
