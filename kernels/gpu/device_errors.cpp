// The device runtime's errors as the project's typed exceptions, with the call, file:line and
// the runtime's own name and text (Ginkgo style).

#include <cstdio>
#include <string>

#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/portability.hpp"

namespace fhmoe::kernels::gpu {

void throw_gpu_error(hipError_t error, const char* call, const char* file, int line) {
    // An allocation failure is also left behind as the thread's last error; clear it, or the
    // next launch check would report it as that launch's failure.
    if (error == hipErrorOutOfMemory) static_cast<void>(hipGetLastError());
    const std::string message = "device error " + std::to_string(static_cast<int>(error)) + " (" +
                                hipGetErrorName(error) + ": " + hipGetErrorString(error) + ") in " +
                                call + " at " + file + ":" + std::to_string(line);
    if (error == hipErrorOutOfMemory) throw GpuOutOfMemory(message);
    throw GpuRuntimeError(static_cast<int>(error), message);
}

std::string device_identity(const hipDeviceProp_t& properties) {
#if defined(FHMOE_GPU_VENDOR_AMD)
    char text[32];
    std::snprintf(text, sizeof text, "pci-%04x:%02x:%02x", properties.pciDomainID,
                  properties.pciBusID, properties.pciDeviceID);
    return text;
#else
    static constexpr char kHex[] = "0123456789abcdef";
    std::string text = "GPU-";
    for (int i = 0; i < 16; ++i) {
        const auto byte = static_cast<unsigned char>(properties.uuid.bytes[i]);
        if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
        text += kHex[byte >> 4];
        text += kHex[byte & 0x0F];
    }
    return text;
#endif
}

}  // namespace fhmoe::kernels::gpu
