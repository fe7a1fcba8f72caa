#include "cluster/device_binding.hpp"

#include <array>
#include <cstdlib>

namespace fhmoe::cluster {
namespace {

// In the order a launcher sets them: ROCm honours ROCR_ first, then HIP_; NVIDIA CUDA_.
constexpr std::array<const char*, 3> kVisibilityVariables = {
    "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"};

std::size_t count_listed_devices(const std::string& value) {
    if (value.empty()) return 0;
    std::size_t count = 1;
    for (char c : value) count += (c == ',') ? 1 : 0;
    return count;
}

}  // namespace

EnvLookup process_environment() {
    return [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        if (value == nullptr) return std::nullopt;
        return std::string(value);
    };
}

DeviceBinding choose_device(const EnvLookup& env, int local_rank, int device_count) {
    DeviceBinding binding;
    binding.local_rank = local_rank;
    for (const char* variable : kVisibilityVariables) {
        auto value = env(variable);
        if (!value) continue;
        binding.visible_from = variable;
        binding.visible_value = *value;
        if (count_listed_devices(*value) == 1) {
            // The launcher gave this rank exactly one device: it is ordinal 0 of what we see.
            binding.device_index = device_count > 0 ? 0 : -1;
            binding.reason = std::string(variable) + "=" + *value + " names one device";
            return binding;
        }
        break;  // several devices listed: fall through to the local-rank rule
    }
    if (device_count <= 0) {
        binding.device_index = -1;
        if (binding.visible_from.empty()) binding.visible_from = "none";
        binding.reason = "no device visible to this backend";
        return binding;
    }
    binding.device_index = local_rank % device_count;
    if (binding.visible_from.empty()) binding.visible_from = "local_rank";
    binding.reason = "local rank " + std::to_string(local_rank) + " modulo " +
                     std::to_string(device_count) + " devices";
    return binding;
}

}  // namespace fhmoe::cluster
