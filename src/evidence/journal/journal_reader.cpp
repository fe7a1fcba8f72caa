// Reading a journal back: intact records, a torn tail tolerated, corruption refused.

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/wire/bytes.hpp"
#include "fhmoe/wire/frame.hpp"

namespace fhmoe::evidence {
namespace {

[[noreturn]] void fail(const std::string& path, std::size_t offset, const std::string& reason) {
    throw InputError(path, 0, 0, "journal", "at byte " + std::to_string(offset) + ": " + reason);
}

// The length field of the frame header at `offset`, read without validating anything else:
// it tells where the record would end, which decides "torn tail" against "corrupt middle".
std::size_t frame_end(std::span<const std::uint8_t> bytes, std::size_t offset) {
    if (bytes.size() - offset < wire::frame_header_bytes) return bytes.size() + 1;
    wire::ByteReader header(bytes.subspan(offset, wire::frame_header_bytes));
    header.u32();  // magic
    header.u16();  // version
    header.u16();  // type
    const std::uint32_t length = header.u32();
    return offset + wire::frame_header_bytes + length;
}

std::vector<std::uint8_t> read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw InputError(path, 0, 0, "journal",
                         std::string("cannot open the journal: ") + std::strerror(errno));
    }
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError(path, 0, 0, "journal", "cannot read the journal");
    return bytes;
}

}  // namespace

JournalContents read_journal(const std::string& path) {
    const std::vector<std::uint8_t> file = read_whole_file(path);
    const std::span<const std::uint8_t> bytes(file);
    JournalContents contents;
    bool have_header = false;
    std::size_t offset = 0;
    while (offset < bytes.size()) {
        const std::size_t end = frame_end(bytes, offset);
        const bool reaches_end = end >= bytes.size();
        try {
            if (end > bytes.size()) {
                throw wire::FrameError(wire::FrameErrorKind::truncated,
                                       "record cut short at the end of the file");
            }
            const wire::Frame frame =
                wire::decode_frame(bytes.subspan(offset, end - offset), journal_format_version);
            JournalRecord record = decode_journal_record(frame.type, frame.payload);
            if (!have_header) {
                if (!std::holds_alternative<RunHeader>(record)) {
                    fail(path, offset, "the first record is not a run header");
                }
                contents.header = std::get<RunHeader>(std::move(record));
                have_header = true;
            } else {
                if (std::holds_alternative<RunHeader>(record)) {
                    fail(path, offset, "a second run header");
                }
                contents.records.push_back(std::move(record));
            }
        } catch (const wire::WireError& error) {
            const auto* frame_error = dynamic_cast<const wire::FrameError*>(&error);
            const bool version_problem =
                frame_error != nullptr && frame_error->kind() == wire::FrameErrorKind::bad_version;
            if (reaches_end && have_header && !version_problem) {
                // The writer died while writing this record: everything before it is intact.
                contents.torn_tail_bytes = bytes.size() - offset;
                contents.torn_tail_reason = error.what();
                break;
            }
            fail(path, offset, std::string("corrupt record: ") + error.what());
        }
        offset = end;
        contents.valid_bytes = offset;
    }
    if (!have_header) fail(path, 0, "no run header (an empty or foreign file)");
    return contents;
}

}  // namespace fhmoe::evidence
