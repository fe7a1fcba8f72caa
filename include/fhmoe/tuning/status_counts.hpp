#pragma once

// How many candidates of a shape ended in each status: the coverage line of the summary.

#include <array>
#include <cstddef>

#include "fhmoe/tuning/status.hpp"

namespace fhmoe::tuning {

class StatusCounts {
public:
    void add(Status status) noexcept { ++counts_[static_cast<std::size_t>(status)]; }
    std::size_t operator[](Status status) const noexcept {
        return counts_[static_cast<std::size_t>(status)];
    }
    std::size_t total() const noexcept {
        std::size_t sum = 0;
        for (std::size_t count : counts_) sum += count;
        return sum;
    }
    bool operator==(const StatusCounts&) const = default;

private:
    std::array<std::size_t, all_statuses.size()> counts_{};
};

}  // namespace fhmoe::tuning
