#include "fhmoe/family/catalogue_sample.hpp"

#include <algorithm>
#include <numeric>

#include "family/deterministic_random.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/default_config.hpp"

namespace fhmoe::family {

std::vector<Candidate> sample_catalogue(const std::vector<Candidate>& catalogue, std::size_t n,
                                        std::uint64_t seed,
                                        const std::optional<Candidate>& always) {
    if (n >= catalogue.size()) return catalogue;
    std::vector<std::size_t> order(catalogue.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::size_t drawn = 0;
    if (always && n > 0) {
        const auto it = std::find(catalogue.begin(), catalogue.end(), *always);
        FHMOE_CHECK(it != catalogue.end(), "the always-sampled candidate is not in the catalogue");
        std::swap(order[0], order[static_cast<std::size_t>(it - catalogue.begin())]);
        drawn = 1;
    }
    SplitMix64 random(seed);
    for (; drawn < n; ++drawn) {
        const std::size_t pick = drawn + random.below(order.size() - drawn);
        std::swap(order[drawn], order[pick]);
    }
    order.resize(n);
    std::sort(order.begin(), order.end());
    std::vector<Candidate> sample;
    sample.reserve(n);
    for (std::size_t index : order) sample.push_back(catalogue[index]);
    return sample;
}

std::vector<Candidate> sample_shape_catalogue(const ShapeKey& shape, std::size_t n,
                                              std::uint64_t seed) {
    return sample_catalogue(build_catalogue(shape), n, seed, default_candidate(shape));
}

}  // namespace fhmoe::family
