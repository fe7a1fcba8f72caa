#pragma once

// Reading aiter's shipped tuned_fhmoe.csv rows as incumbents. aiter's names
// (`flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui_kw4_fp8`,
// `flydsl_moe2_afp8_wfp4_bf16_t32x256x128_reduce_bnt2_persist`) carry tokens that mean
// something here (t, w, kw, gui, fp8, atomic, reduce, persist, sbm) and tokens that do not
// (bnt, xcd) or that aiter's runtime overrides (spec 6.5). The import maps the first kind,
// and reports every other one as a note instead of dropping it silently.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {

struct ImportNote {
    enum class Kind : std::uint8_t {
        ignored,   // the token has no effect in our backends; dropped
        remapped,  // the token maps to something that is not literally what it says
    };
    Kind kind = Kind::ignored;
    std::string token;   // e.g. "bnt0", "xcd4", "w4", "t32x256x256"
    std::string reason;  // why, in one line

    std::string to_string() const;  // "ignored bnt0: ..." / "remapped w4: ..."
};

struct ImportedCandidate {
    Candidate candidate;
    std::vector<ImportNote> notes;  // stage1 notes, then stage2 notes
};

// Maps an aiter (kernelName1, kernelName2) pair to a Candidate for `shape`. block_m is the
// stage1 tile_m (aiter's rule); when the row's block_m column is given it must agree.
// Throws fhmoe::ParseError naming the token for what cannot be mapped: another dtype family
// (a4w4...), split-K (`kb`), gate-only (`go`), fp4 output, an unknown or duplicated token, a
// tile that neither divides its dimension nor has an aiter runtime fallback, or a result
// that legality.hpp rejects for the shape.
ImportedCandidate import_aiter_kernel_names(std::string_view name1, std::string_view name2,
                                            const ShapeKey& shape,
                                            std::optional<int> block_m = std::nullopt);

}  // namespace fhmoe::family
