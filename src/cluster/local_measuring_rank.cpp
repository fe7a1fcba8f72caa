#include "cluster/local_measuring_rank.hpp"

#include <utility>

namespace fhmoe::cluster {

void LocalMeasuringRank::start_chunk(supervisor::Chunk chunk) {
    supervisor_.start_chunk(std::move(chunk));
}

void LocalMeasuringRank::start_race(supervisor::Race race) {
    supervisor_.start_race(std::move(race));
}

std::vector<RankReport> LocalMeasuringRank::take_reports() {
    std::vector<RankReport> reports;
    for (auto& event : supervisor_.poll(0)) reports.emplace_back(std::move(event));
    return reports;
}

}  // namespace fhmoe::cluster
