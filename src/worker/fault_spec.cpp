#include "fhmoe/worker/fault_spec.hpp"

#include <array>
#include <charconv>

#include "fhmoe/error.hpp"
#include "fhmoe/text_excerpt.hpp"

namespace fhmoe::worker {
namespace {

constexpr std::array<FaultKind, 8> all_kinds = {
    FaultKind::crash, FaultKind::exit,        FaultKind::hang,          FaultKind::oom,
    FaultKind::wrong, FaultKind::unsupported, FaultKind::oom_preflight, FaultKind::genfail};

constexpr std::string_view grammar =
    "kind[!]@[race:][shape_key:]index, kind one of crash exit hang oom wrong unsupported "
    "oom_preflight genfail";

[[noreturn]] void bad_entry(std::string_view entry, const std::string& why) {
    throw ParseError("--inject-fault entry '" + excerpt(entry) + "': " + why +
                     " (grammar: " + std::string(grammar) + ")");
}

FaultEntry parse_entry(std::string_view entry) {
    const std::size_t at = entry.find('@');
    if (at == std::string_view::npos) bad_entry(entry, "missing '@'");
    std::string_view kind_text = entry.substr(0, at);
    FaultEntry fault;
    if (!kind_text.empty() && kind_text.back() == '!') {
        fault.every_attempt = true;
        kind_text.remove_suffix(1);
    }
    bool known = false;
    for (FaultKind kind : all_kinds) {
        if (to_string(kind) == kind_text) {
            fault.kind = kind;
            known = true;
        }
    }
    if (!known) bad_entry(entry, "unknown fault kind '" + excerpt(kind_text) + "'");

    std::string_view target = entry.substr(at + 1);
    constexpr std::string_view race_scope = "race:";
    if (target.substr(0, race_scope.size()) == race_scope) {
        if (fault.kind == FaultKind::genfail) bad_entry(entry, "a shape load is never raced");
        fault.race_only = true;
        target.remove_prefix(race_scope.size());
    }
    const std::size_t colon = target.rfind(':');
    if (colon != std::string_view::npos) {
        if (colon == 0) bad_entry(entry, "empty shape key before ':'");
        fault.shape_key = std::string(target.substr(0, colon));
        target = target.substr(colon + 1);
    }
    const char* end = target.data() + target.size();
    auto [next, error] = std::from_chars(target.data(), end, fault.index);
    if (target.empty() || error != std::errc() || next != end || fault.index < 0) {
        bad_entry(entry, "index '" + std::string(target) + "' is not a non-negative integer");
    }
    return fault;
}

}  // namespace

std::string_view to_string(FaultKind kind) noexcept {
    switch (kind) {
        case FaultKind::crash: return "crash";
        case FaultKind::exit: return "exit";
        case FaultKind::hang: return "hang";
        case FaultKind::oom: return "oom";
        case FaultKind::wrong: return "wrong";
        case FaultKind::unsupported: return "unsupported";
        case FaultKind::oom_preflight: return "oom_preflight";
        case FaultKind::genfail: return "genfail";
    }
    return "unknown";
}

std::string FaultEntry::text() const {
    std::string text(to_string(kind));
    if (every_attempt) text += "!";
    text += "@";
    if (race_only) text += "race:";
    if (shape_key) text += *shape_key + ":";
    return text + std::to_string(index);
}

FaultPlan FaultPlan::parse(std::string_view spec) {
    std::vector<FaultEntry> entries;
    while (!spec.empty()) {
        const std::size_t comma = spec.find(',');
        std::string_view entry = spec.substr(0, comma);
        if (entry.empty()) bad_entry(entry, "empty entry");
        entries.push_back(parse_entry(entry));
        if (comma == std::string_view::npos) break;
        spec.remove_prefix(comma + 1);
        if (spec.empty()) bad_entry(spec, "trailing ','");
    }
    return FaultPlan(std::move(entries));
}

std::optional<FaultEntry> FaultPlan::find(bool load, bool racing, std::string_view shape_key,
                                          std::int64_t index, std::uint32_t attempt) const {
    for (const FaultEntry& fault : entries_) {
        if ((fault.kind == FaultKind::genfail) != load) continue;
        if (fault.race_only && !racing) continue;
        if (fault.index != index) continue;
        if (fault.shape_key && *fault.shape_key != shape_key) continue;
        if (attempt != 0 && !fault.every_attempt) continue;
        return fault;
    }
    return std::nullopt;
}

std::optional<FaultEntry> FaultPlan::for_candidate(std::string_view shape_key, std::int64_t index,
                                                   std::uint32_t attempt) const {
    return find(false, false, shape_key, index, attempt);
}

std::optional<FaultEntry> FaultPlan::for_race_contender(std::string_view shape_key,
                                                        std::int64_t index,
                                                        std::uint32_t attempt) const {
    return find(false, true, shape_key, index, attempt);
}

std::optional<FaultEntry> FaultPlan::for_load(std::string_view shape_key, std::int64_t next_index,
                                              std::uint32_t attempt) const {
    return find(true, false, shape_key, next_index, attempt);
}

}  // namespace fhmoe::worker
