#pragma once

// `--candidate-sample N --seed S`: a seeded subset of a catalogue that is the same on every
// machine and compiler (own PRNG, no std:: distributions), so every rank of a run, and a
// resumed run, plans the same candidates.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {

// n distinct members of `catalogue`, returned in catalogue order. n >= size returns the
// whole catalogue; n == 0 returns nothing. When `always` is given (it must be a member),
// it is one of the n: a sampled tune then always measures what serving runs untuned, so its
// published candidate is never worse than the default. Draws are a partial Fisher-Yates
// shuffle, so a larger n with the same seed only adds candidates.
std::vector<Candidate> sample_catalogue(const std::vector<Candidate>& catalogue, std::size_t n,
                                        std::uint64_t seed,
                                        const std::optional<Candidate>& always = std::nullopt);

// The tuner's sample of a shape: sample_catalogue(build_catalogue(shape), n, seed,
// default_candidate(shape)).
std::vector<Candidate> sample_shape_catalogue(const ShapeKey& shape, std::size_t n,
                                              std::uint64_t seed);

}  // namespace fhmoe::family
