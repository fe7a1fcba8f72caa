#pragma once

#include <string>

namespace fhmoe::config::detail {

// 128 random bits from the kernel as 32 hex digits: unique names for temporary files and
// lock nonces, unpredictable across processes and hosts (no pid or clock involved).
std::string random_hex_token();

}  // namespace fhmoe::config::detail
