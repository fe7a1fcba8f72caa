#include "evidence/evidence_compare.hpp"

#include <cmath>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "fhmoe/record_fields.hpp"

namespace fhmoe::evidence {
namespace {

class Differences {
public:
    explicit Differences(std::size_t limit) : limit_(limit) {}

    template <typename Value>
    void compare(const std::string& field, const Value& expected, const Value& actual) {
        if (equal(expected, actual)) return;
        std::ostringstream text;
        text << field << ": " << printable(expected) << " != " << printable(actual);
        add(text.str());
    }

    void add(std::string difference) {
        if (found_.size() < limit_) found_.push_back(std::move(difference));
    }
    std::vector<std::string> take() { return std::move(found_); }

private:
    template <typename Value>
    static bool equal(const Value& a, const Value& b) {
        if constexpr (std::is_floating_point_v<Value>) {
            return (std::isnan(a) && std::isnan(b)) || a == b;
        } else {
            return a == b;
        }
    }
    template <typename Value>
    static auto printable(const Value& value) {
        if constexpr (std::is_enum_v<Value>) {
            return static_cast<long long>(value);
        } else if constexpr (std::is_same_v<Value, std::string>) {
            return "'" + value + "'";
        } else {
            return value;
        }
    }

    std::size_t limit_;
    std::vector<std::string> found_;
};

template <typename Record, typename CompareOne>
void compare_table(Differences& out, const std::string& table, const std::vector<Record>& expected,
                   const std::vector<Record>& actual, CompareOne compare_one) {
    if (expected.size() != actual.size()) {
        out.add(table + ": " + std::to_string(expected.size()) +
                " rows != " + std::to_string(actual.size()) + " rows");
        return;
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
        compare_one(table + "[" + std::to_string(i) + "].", expected[i], actual[i]);
    }
}

// Field by field through the record's field list, nested records as "timing.mean_us"; the
// candidate by its key, as the evidence names it.
template <typename Record>
void compare_record(Differences& out, const std::string& p, const Record& x, const Record& y) {
    for_each_field_pair(x, y, [&](std::string_view name, const auto& a, const auto& b) {
        using Field = std::remove_cvref_t<decltype(a)>;
        const std::string field = p + std::string(name);
        if constexpr (std::is_same_v<Field, tuning::CandidateId>) {
            out.compare(field, a.key(), b.key());
        } else if constexpr (HasFields<Field>) {
            compare_record(out, field + ".", a, b);
        } else {
            out.compare(field, a, b);
        }
    });
}

void compare_provenance(Differences& out, const Provenance& e, const Provenance& a) {
    out.compare("provenance.tool_version", e.tool_version, a.tool_version);
    out.compare("provenance.git_revision", e.git_revision, a.git_revision);
    if (e.command_line != a.command_line) out.add("provenance.command_line differs");
    out.compare("provenance.backend", e.backend, a.backend);
    out.compare("provenance.seed", e.seed, a.seed);
    out.compare("provenance.started_unix", e.started_unix, a.started_unix);
    out.compare("provenance.finished_unix", e.finished_unix, a.finished_unix);
    out.compare("provenance.exit_status", e.exit_status, a.exit_status);
    out.compare("provenance.complete", e.complete, a.complete);
    compare_table(out, "provenance.policy", e.policy, a.policy,
                  [&](const std::string& p, const PolicyValue& x, const PolicyValue& y) {
                      compare_record(out, p, x, y);
                  });
    compare_table(out, "provenance.ranks", e.ranks, a.ranks,
                  [&](const std::string& p, const RankInfo& x, const RankInfo& y) {
                      if (!(x == y)) out.add(p + " differs (rank " + std::to_string(x.rank) + ")");
                  });
}

}  // namespace

std::vector<std::string> evidence_differences(const RunEvidence& expected,
                                              const RunEvidence& actual, std::size_t limit) {
    Differences out(limit);
    compare_provenance(out, expected.provenance, actual.provenance);
    compare_table(out, "shapes", expected.shapes, actual.shapes,
                  [&](const std::string& p, const ShapeRecord& x, const ShapeRecord& y) {
                      out.compare(p + "shape_key", x.shape_key, y.shape_key);
                      if (!(x.device == y.device)) out.add(p + "device differs");
                      if (!(x.key == y.key)) out.add(p + "key differs");
                      out.compare(p + "candidate_count", x.candidate_count, y.candidate_count);
                  });
    compare_table(out, "candidates", expected.candidates, actual.candidates,
                  [&](const std::string& p, const CandidateRecord& x, const CandidateRecord& y) {
                      out.compare(p + "shape_id", x.shape_id, y.shape_id);
                      out.compare(p + "relative_to_incumbent", x.relative_to_incumbent,
                                  y.relative_to_incumbent);
                      out.compare(p + "ratio_basis", x.ratio_basis, y.ratio_basis);
                      compare_record(out, p + "result.", x.result, y.result);
                  });
    compare_table(out, "race", expected.race, actual.race,
                  [&](const std::string& p, const RaceSample& x, const RaceSample& y) {
                      compare_record(out, p, x, y);
                  });
    compare_table(out, "decisions", expected.decisions, actual.decisions,
                  [&](const std::string& p, const DecisionRecord& x, const DecisionRecord& y) {
                      compare_record(out, p, x, y);
                  });
    return out.take();
}

}  // namespace fhmoe::evidence
