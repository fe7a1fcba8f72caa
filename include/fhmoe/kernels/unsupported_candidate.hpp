#pragma once

#include "fhmoe/error.hpp"

namespace fhmoe::kernels {

// The candidate cannot run this shape on this backend (a tile that does not divide, a
// thread count above the limit...). The worker reports it as Status::unsupported.
class UnsupportedCandidate : public Error {
public:
    using Error::Error;
};

}  // namespace fhmoe::kernels
