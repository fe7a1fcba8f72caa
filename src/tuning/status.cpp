#include "fhmoe/tuning/status.hpp"

#include <string>

#include "fhmoe/error.hpp"

namespace fhmoe::tuning {

std::string_view to_string(Status status) noexcept {
    switch (status) {
        case Status::ok: return "ok";
        case Status::mismatch: return "mismatch";
        case Status::unsupported: return "unsupported";
        case Status::crash: return "crash";
        case Status::timeout: return "timeout";
        case Status::oom_runtime: return "oom_runtime";
        case Status::oom_preflight: return "oom_preflight";
        case Status::not_run: return "not_run";
    }
    return "invalid";
}

Status status_from_string(std::string_view text) {
    for (Status status : all_statuses) {
        if (to_string(status) == text) return status;
    }
    std::string valid;
    for (Status status : all_statuses) {
        if (!valid.empty()) valid += ", ";
        valid += to_string(status);
    }
    throw ParseError("unknown status '" + std::string(text) + "' (valid: " + valid + ")");
}

}  // namespace fhmoe::tuning
