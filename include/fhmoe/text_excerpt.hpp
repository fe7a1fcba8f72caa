#pragma once

// A user's value as an error message or a log line quotes it. A field or a flag value can be
// megabytes long (a pasted file, a runaway script); echoing it whole buries the message that
// names it, so a long value is cut and says how long it was.

#include <cstddef>
#include <string>
#include <string_view>

namespace fhmoe {

inline constexpr std::size_t kExcerptChars = 120;
// Paths are longer than values yet still worth quoting whole: a file's name is at its end.
inline constexpr std::size_t kPathExcerptChars = 1024;

// `text` itself when it has at most `limit` bytes; otherwise its first bytes, an ellipsis and
// its length: "abcabc... (2097152 bytes)". Never longer than about `limit` + 24 bytes.
std::string excerpt(std::string_view text, std::size_t limit = kExcerptChars);

}  // namespace fhmoe
