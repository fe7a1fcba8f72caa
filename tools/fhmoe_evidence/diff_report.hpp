#pragma once

// The night-to-night report of `fhmoe_evidence diff`.

#include <ostream>
#include <vector>

#include "fhmoe/evidence/evidence_diff.hpp"

namespace fhmoe::evidence::cli {

// One line per change ("<kind>  <shape>  [<candidate>]  <old> -> <new>  (<detail>)") and a
// closing count; "no changes" when `changes` is empty.
void print_diff(const std::vector<Change>& changes, std::ostream& out);

}  // namespace fhmoe::evidence::cli
