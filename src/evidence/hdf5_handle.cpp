#include "evidence/hdf5_handle.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <vector>

#include "fhmoe/error.hpp"

namespace fhmoe::evidence::h5 {
namespace {

// Enough of a stack to say what failed and why; HDF5's full stacks run to a dozen frames
// of internal plumbing.
constexpr std::size_t kMaxReportedFrames = 4;

std::string message_of(hid_t message_id) {
    std::array<char, 256> text{};
    if (H5Eget_msg(message_id, nullptr, text.data(), text.size()) < 0) return {};
    return text.data();
}

herr_t collect_frame(unsigned, const H5E_error2_t* frame, void* frames_out) {
    auto& frames = *static_cast<std::vector<std::string>*>(frames_out);
    std::string text = std::string(frame->func_name ? frame->func_name : "?") + "(): ";
    text += frame->desc && frame->desc[0] ? frame->desc : message_of(frame->min_num);
    const std::string minor = message_of(frame->min_num);
    if (!minor.empty() && text.find(minor) == std::string::npos) text += " (" + minor + ")";
    // HDF5 embeds ctime() output, newline included, in some descriptions.
    std::replace(text.begin(), text.end(), '\n', ' ');
    frames.push_back(std::move(text));
    return 0;
}

}  // namespace

void silence_automatic_error_printing() {
    static std::once_flag once;
    std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

void throw_hdf5_error(const std::string& context) {
    std::vector<std::string> frames;
    const hid_t stack = H5Eget_current_stack();
    if (stack >= 0) {
        H5Ewalk2(stack, H5E_WALK_UPWARD, collect_frame, &frames);
        H5Eclose_stack(stack);
    }
    std::string message = context + ": HDF5: ";
    if (frames.empty()) message += "failed without an error message";
    for (std::size_t i = 0; i < frames.size() && i < kMaxReportedFrames; ++i) {
        if (i > 0) message += "; ";
        message += frames[i];
    }
    throw Error(message);
}

}  // namespace fhmoe::evidence::h5
