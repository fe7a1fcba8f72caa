#include "fhmoe/family/catalogue_table.hpp"

#include <string>

#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/default_config.hpp"
#include "fhmoe/family/legality.hpp"
#include "fhmoe/family/memory_estimate.hpp"

namespace fhmoe::family {
namespace {

std::string pad_left(const std::string& text, std::size_t width) {
    return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string pad_right(const std::string& text, std::size_t width) {
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

constexpr std::size_t kNumberWidth = 8;
constexpr std::size_t kShapeWidth = 34;
constexpr std::size_t kBytesWidth = 14;

}  // namespace

std::string format_catalogue_table(const std::vector<ShapeKey>& shapes) {
    std::string table = pad_right("shape", kShapeWidth) + pad_left("token", kNumberWidth) +
                        pad_left("padded", kNumberWidth);
    for (int block_m : kBlockMAxis) {
        table += pad_left("bm" + std::to_string(block_m), kNumberWidth);
    }
    table += pad_left("total", kNumberWidth) + "  default\n";
    for (const ShapeKey& shape : shapes) {
        table += pad_right(shape_key_string(shape), kShapeWidth) +
                 pad_left(std::to_string(shape.token), kNumberWidth) +
                 pad_left(std::to_string(padded_token(shape.token)), kNumberWidth);
        if (auto reason = why_shape_unsupported(shape)) {
            table += "  unsupported: " + *reason + "\n";
            continue;
        }
        const std::vector<CatalogueCount> counts = count_catalogue(shape);
        std::size_t total = 0;
        for (int block_m : kBlockMAxis) {
            std::string cell = "-";
            for (const CatalogueCount& count : counts) {
                if (count.block_m != block_m) continue;
                cell = std::to_string(count.candidates);
                total += count.candidates;
            }
            table += pad_left(cell, kNumberWidth);
        }
        table += pad_left(std::to_string(total), kNumberWidth);
        table += total == 0 ? "  (no tile fits)\n"
                            : "  " + candidate_key(default_candidate(shape)) + "\n";
    }
    return table;
}

std::string format_candidate_list(const ShapeKey& shape, const std::vector<Candidate>& candidates) {
    const Candidate untuned_default = default_candidate(shape);
    std::string list;
    for (const Candidate& candidate : candidates) {
        list += pad_left(std::to_string(estimate_device_bytes(shape, candidate)), kBytesWidth) +
                " B  " + candidate_key(candidate) +
                (candidate == untuned_default ? "  (default)" : "") + "\n";
    }
    return list;
}

}  // namespace fhmoe::family
