#pragma once

// A seeded generator of realistic RunEvidence built from the project's real types: many
// shapes, every status, race samples and every decision kind, with detail texts that need
// CSV quoting and UTF-8. Same seed, same evidence.

#include <cstdint>

#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::evidence::testing {

struct GeneratorOptions {
    std::uint64_t seed = 7;
    int shapes = 25;  // at least 5 so every decision kind appears (shape i gets kind i % 5)
    int ranks = 4;
};

RunEvidence generate_evidence(const GeneratorOptions& options);

}  // namespace fhmoe::evidence::testing
