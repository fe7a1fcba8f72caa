#pragma once

// Owners of device memory, streams and events. Releases ignore errors: after a device fault
// every call fails, and the process is about to be replaced anyway.

#include <cstddef>
#include <utility>
#include <vector>

#include "fhmoe/error.hpp"
#include "gpu/portability.hpp"

namespace fhmoe::kernels::gpu {

template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        if (count > 0) FHMOE_GPU_CHECK(hipMalloc(&data_, count * sizeof(T)));
    }
    ~DeviceBuffer() {
        if (data_ != nullptr) static_cast<void>(hipFree(data_));
    }
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* data() const { return data_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

    // A new buffer holding this one's elements (a device-to-device copy).
    DeviceBuffer copied() const {
        DeviceBuffer copy(count_);
        if (count_ > 0)
            FHMOE_GPU_CHECK(hipMemcpy(copy.data_, data_, bytes(), hipMemcpyDeviceToDevice));
        return copy;
    }

    void upload(const std::vector<T>& host) {
        if (host.size() != count_) throw InternalError("device upload of a mismatched size");
        if (count_ > 0)
            FHMOE_GPU_CHECK(hipMemcpy(data_, host.data(), bytes(), hipMemcpyHostToDevice));
    }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

class DeviceStream {
public:
    DeviceStream() { FHMOE_GPU_CHECK(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking)); }
    ~DeviceStream() { static_cast<void>(hipStreamDestroy(stream_)); }
    DeviceStream(const DeviceStream&) = delete;
    DeviceStream& operator=(const DeviceStream&) = delete;
    hipStream_t get() const { return stream_; }

private:
    hipStream_t stream_ = nullptr;
};

class DeviceEvent {
public:
    DeviceEvent() { FHMOE_GPU_CHECK(hipEventCreate(&event_)); }
    ~DeviceEvent() { static_cast<void>(hipEventDestroy(event_)); }
    DeviceEvent(const DeviceEvent&) = delete;
    DeviceEvent& operator=(const DeviceEvent&) = delete;
    hipEvent_t get() const { return event_; }

private:
    hipEvent_t event_ = nullptr;
};

}  // namespace fhmoe::kernels::gpu
