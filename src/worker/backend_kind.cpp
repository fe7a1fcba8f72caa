#include "fhmoe/worker/backend_kind.hpp"

#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/text_excerpt.hpp"

namespace fhmoe::worker {

BackendKind parse_backend_kind(std::string_view name, std::string_view flag) {
    for (const BackendKind kind : {BackendKind::cpu, BackendKind::gpu, BackendKind::sim}) {
        if (name == backend_name(kind)) return kind;
    }
    throw InputError("", 0, 0, std::string(flag),
                     "must be cpu, gpu or sim, not '" + excerpt(name) + "'");
}

std::string_view backend_name(BackendKind kind) {
    switch (kind) {
        case BackendKind::cpu: return "cpu";
        case BackendKind::sim: return "sim";
        case BackendKind::gpu: return "gpu";
    }
    throw InternalError("backend kind " + std::to_string(static_cast<int>(kind)));
}

}  // namespace fhmoe::worker
