#pragma once

// The rows two racing writers publish: distinct keys per writer (inter_dim) and per
// iteration (model_dim), kernel names that say who wrote them.

#include <string>

#include "fhmoe/config/tuned_csv.hpp"

namespace fhmoe::config::testing {

inline TunedRow race_row(int writer, int iteration) {
    TunedRow row;
    row.device = family::DeviceKey{"gfx950", 256};
    row.shape.token = 64;
    row.shape.model_dim = 32 * (iteration + 1);
    row.shape.inter_dim = 32 * (writer + 1);
    row.shape.expert = 9;
    row.shape.topk = 3;
    row.shape.shared_expert_id = 8;
    row.block_m = 32;
    row.kernel_name1 =
        "stage1_writer" + std::to_string(writer) + "_row" + std::to_string(iteration);
    row.kernel_name2 =
        "stage2_writer" + std::to_string(writer) + "_row" + std::to_string(iteration);
    row.us = 10.0 + iteration;
    row.err = 0.0;
    return row;
}

}  // namespace fhmoe::config::testing
