#include "fhmoe/version.hpp"

#include <string>

namespace fhmoe {

std::string_view version() {
    static const std::string text =
        std::string(FHMOE_VERSION) + (detail::git_revision_at_build().empty()
                                          ? std::string()
                                          : "+g" + std::string(detail::git_revision_at_build()));
    return text;
}

std::string_view git_revision_of(std::string_view version_text) {
    const auto marker = version_text.find("+g");
    return marker == std::string_view::npos ? std::string_view() : version_text.substr(marker + 2);
}

std::string_view gpu_backend_compiled() {
#if defined(FHMOE_GPU_BACKEND_CUDA)
    return "CUDA";
#elif defined(FHMOE_GPU_BACKEND_HIP)
    return "HIP";
#else
    return "NONE";
#endif
}

std::string version_line(std::string_view program) {
    return std::string(program) + " " + std::string(version()) + " (gpu backend " +
           std::string(gpu_backend_compiled()) + ")";
}

}  // namespace fhmoe
