#include "gpu/gpu_test_environment.hpp"

#include <cstdlib>

#include "gpu/gpu_device.hpp"

namespace fhmoe::kernels::testing {

std::string source_dir() {
    const char* from_environment = std::getenv("FHMOE_SOURCE_DIR");
    return from_environment != nullptr ? from_environment : FHMOE_SOURCE_DIR;
}

void bind_test_device() {
    static const bool bound = [] {
        gpu::bind_gpu_device(0);
        return true;
    }();
    static_cast<void>(bound);
}

}  // namespace fhmoe::kernels::testing
