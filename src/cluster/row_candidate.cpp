#include "cluster/row_candidate.hpp"

#include <spdlog/spdlog.h>

#include "fhmoe/error.hpp"
#include "fhmoe/family/aiter_import.hpp"
#include "fhmoe/family/candidate_id.hpp"

namespace fhmoe::cluster {

family::Candidate candidate_of_row(const config::TunedRecord& record, const family::ShapeKey& shape,
                                   const std::string& path) {
    const config::TunedRow& row = record.row;
    try {
        return family::from_candidate_id(
            tuning::CandidateId{row.block_m, row.kernel_name1, row.kernel_name2});
    } catch (const ParseError&) {
        // Not our grammar: aiter's shipped names are the other kind a tuned file holds.
    }
    try {
        family::ImportedCandidate imported = family::import_aiter_kernel_names(
            row.kernel_name1, row.kernel_name2, shape, row.block_m);
        for (const auto& note : imported.notes) {
            spdlog::debug("{}:{}: {}: {}", path, record.line, family::shape_key_string(shape),
                          note.to_string());
        }
        return imported.candidate;
    } catch (const ParseError& error) {
        throw InputError(path, record.line, 0, "kernelName1",
                         std::string("cannot run this row's kernels: ") + error.what());
    }
}

}  // namespace fhmoe::cluster
