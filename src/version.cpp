#include "fhmoe/version.hpp"

namespace fhmoe {

std::string_view version() { return FHMOE_VERSION; }

std::string_view gpu_backend_compiled() {
#if defined(FHMOE_GPU_BACKEND_CUDA)
    return "CUDA";
#elif defined(FHMOE_GPU_BACKEND_HIP)
    return "HIP";
#else
    return "NONE";
#endif
}

}  // namespace fhmoe
