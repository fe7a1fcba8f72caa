// Reading a journal back: intact records, a torn tail tolerated, corruption refused.

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "fhmoe/evidence/journal_reader.hpp"
#include "fhmoe/wire/bytes.hpp"
#include "fhmoe/wire/frame.hpp"

namespace fhmoe::evidence {
namespace {

[[noreturn]] void fail(const std::string& path, std::size_t offset, const std::string& reason) {
    throw InputError(path, 0, 0, "journal", "at byte " + std::to_string(offset) + ": " + reason);
}

bool readable_version(std::uint16_t version) {
    return version >= oldest_readable_journal_format_version && version <= journal_format_version;
}

// The journal file, read one frame at a time: a night's journal is 80+ MB, and holding it
// whole (and every record decoded from it) was most of rank 0's peak memory (issue #12).
class FrameStream {
public:
    explicit FrameStream(const std::string& path) : in_(path, std::ios::binary) {
        if (!in_) {
            throw InputError(path, 0, 0, "journal",
                             std::string("cannot open the journal: ") + std::strerror(errno));
        }
        in_.seekg(0, std::ios::end);
        size_ = static_cast<std::size_t>(in_.tellg());
        in_.seekg(0, std::ios::beg);
    }

    std::size_t size() const { return size_; }

    // Where the frame at `offset` would end, from its length field alone (the rest is not
    // validated): it tells a torn tail from a corrupt middle. Past the end when cut short.
    std::size_t frame_end(std::size_t offset) {
        if (size_ - offset < wire::frame_header_bytes) return size_ + 1;
        read_at(offset, wire::frame_header_bytes);
        wire::ByteReader header(buffer_);
        header.u32();  // magic
        header.u16();  // version
        header.u16();  // type
        const std::uint32_t length = header.u32();
        return offset + wire::frame_header_bytes + length;
    }

    // The magic, version and type of the frame at `offset` (which must be whole): what a
    // frame whose payload is skipped is checked by.
    struct FrameHead {
        std::uint32_t magic = 0;
        std::uint16_t version = 0;
        std::uint16_t type = 0;
    };
    FrameHead frame_head(std::size_t offset) {
        read_at(offset, wire::frame_header_bytes);
        wire::ByteReader header(buffer_);
        FrameHead head;
        head.magic = header.u32();
        head.version = header.u16();
        head.type = header.u16();
        return head;
    }

    // The bytes [offset, end): valid until the next call.
    std::span<const std::uint8_t> bytes(std::size_t offset, std::size_t end) {
        read_at(offset, end - offset);
        return buffer_;
    }

private:
    // A frame larger than this (the run header: 86 MB for a night of two million candidates)
    // is not kept as the buffer of the small frames that follow it.
    static constexpr std::size_t kKeptBufferBytes = std::size_t{1} << 20;

    void read_at(std::size_t offset, std::size_t count) {
        if (count <= kKeptBufferBytes && buffer_.capacity() > kKeptBufferBytes) {
            std::vector<std::uint8_t>().swap(buffer_);
        }
        buffer_.resize(count);
        in_.seekg(static_cast<std::streamoff>(offset));
        in_.read(reinterpret_cast<char*>(buffer_.data()), static_cast<std::streamsize>(count));
        if (static_cast<std::size_t>(in_.gcount()) != count) {
            throw InputError("", 0, 0, "journal", "cannot read the journal");
        }
    }

    std::ifstream in_;
    std::size_t size_ = 0;
    std::vector<std::uint8_t> buffer_;
};

}  // namespace

JournalTail for_each_journal_record(const std::string& path,
                                    const std::function<void(RunHeader&&)>& on_header,
                                    const std::function<void(JournalRecord&&)>& on_record) {
    FrameStream stream(path);
    JournalTail tail;
    bool have_header = false;
    std::size_t offset = 0;
    while (offset < stream.size()) {
        const std::size_t end = stream.frame_end(offset);
        const bool reaches_end = end >= stream.size();
        try {
            if (end > stream.size()) {
                throw wire::FrameError(wire::FrameErrorKind::truncated,
                                       "record cut short at the end of the file");
            }
            if (!have_header && !on_header) {
                // The caller holds the plan: the header (86 MB for a night of two million
                // candidates) is neither read nor decoded, only known to be one.
                const auto head = stream.frame_head(offset);
                if (head.magic != wire::frame_magic || !readable_version(head.version) ||
                    head.type != static_cast<std::uint16_t>(JournalRecordType::run_header)) {
                    fail(path, offset, "the first record is not a run header");
                }
                have_header = true;
                offset = end;
                tail.valid_bytes = offset;
                continue;
            }
            // Each frame in its own version (a resumed older run appends today's).
            const wire::Frame frame =
                wire::decode_frame(stream.bytes(offset, end),
                                   oldest_readable_journal_format_version, journal_format_version);
            JournalRecord record = decode_journal_record(frame.type, frame.payload, frame.version);
            if (!have_header) {
                if (!std::holds_alternative<RunHeader>(record)) {
                    fail(path, offset, "the first record is not a run header");
                }
                have_header = true;
                on_header(std::get<RunHeader>(std::move(record)));
            } else {
                if (std::holds_alternative<RunHeader>(record)) {
                    fail(path, offset, "a second run header");
                }
                on_record(std::move(record));
            }
        } catch (const wire::WireError& error) {
            const auto* frame_error = dynamic_cast<const wire::FrameError*>(&error);
            const bool version_problem =
                frame_error != nullptr && frame_error->kind() == wire::FrameErrorKind::bad_version;
            if (reaches_end && have_header && !version_problem) {
                // The writer died while writing this record: everything before it is intact.
                tail.torn_tail_bytes = stream.size() - offset;
                tail.torn_tail_reason = error.what();
                break;
            }
            fail(path, offset, std::string("corrupt record: ") + error.what());
        }
        offset = end;
        tail.valid_bytes = offset;
    }
    if (!have_header) fail(path, 0, "no run header (an empty or foreign file)");
    return tail;
}

JournalContents read_journal(const std::string& path) {
    JournalContents contents;
    const JournalTail tail = for_each_journal_record(
        path, [&](RunHeader&& header) { contents.header = std::move(header); },
        [&](JournalRecord&& record) { contents.records.push_back(std::move(record)); });
    contents.valid_bytes = tail.valid_bytes;
    contents.torn_tail_bytes = tail.torn_tail_bytes;
    contents.torn_tail_reason = tail.torn_tail_reason;
    return contents;
}

}  // namespace fhmoe::evidence
