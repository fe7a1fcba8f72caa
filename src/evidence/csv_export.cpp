#include "fhmoe/evidence/csv_export.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string_view>
#include <type_traits>

#include "evidence/archive_columns.hpp"

#include "fhmoe/error.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/shape_rollup.hpp"

namespace fhmoe::evidence {
namespace {

class CsvFile {
public:
    CsvFile(const std::string& path, const std::vector<std::string>& header)
        : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
        if (!out_) throw Error("cannot write '" + path + "'");
        for (const std::string& name : header) text(name);
        end_row();
    }

    CsvFile& text(const std::string& value) {
        separate();
        if (value.find_first_of(",\"\r\n") == std::string::npos) {
            out_ << value;
            return *this;
        }
        out_ << '"';
        for (char c : value) {
            if (c == '"') out_ << '"';
            out_ << c;
        }
        out_ << '"';
        return *this;
    }
    CsvFile& text(std::string_view value) { return text(std::string(value)); }

    template <typename Integer>
    requires std::is_integral_v<Integer> CsvFile& number(Integer value) {
        separate();
        out_ << +value;
        return *this;
    }

    // Shortest text that reads back as the same double; absent (NaN) as an empty field.
    CsvFile& number(double value) {
        separate();
        if (std::isnan(value)) return *this;
        char buffer[32];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
        out_.write(buffer, result.ptr - buffer);
        return *this;
    }

    CsvFile& flag(bool value) { return text(std::string(value ? "true" : "false")); }

    void end_row() {
        out_ << '\n';
        first_ = true;
    }

    void close() {
        out_.close();
        if (!out_) throw Error("cannot write '" + path_ + "'");
    }

private:
    void separate() {
        if (!first_) out_ << ',';
        first_ = false;
    }
    std::string path_;
    std::ofstream out_;
    bool first_ = true;
};

std::string joined(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
    return text;
}

void write_provenance(const std::string& path, const Provenance& p) {
    CsvFile csv(path, {"name", "value"});
    const auto row = [&](const char* name, const std::string& value) {
        csv.text(std::string(name)).text(value).end_row();
    };
    row("schema_version", std::to_string(kSchemaVersion));
    row("tool_version", p.tool_version);
    row("git_revision", p.git_revision);
    row("command_line", joined(p.command_line));
    row("backend", p.backend);
    row("seed", std::to_string(p.seed));
    row("started_unix", std::to_string(p.started_unix));
    row("finished_unix", std::to_string(p.finished_unix));
    row("exit_status", std::to_string(p.exit_status));
    row("complete", p.complete ? "true" : "false");
    csv.close();
}

// The header of a table: its column names, from a walk over a default record.
template <typename Walk>
std::vector<std::string> column_names(Walk walk) {
    std::vector<std::string> names;
    walk([&names](std::string_view name, const auto&) { names.emplace_back(name); });
    return names;
}

// Writes one row's values, one column per visit (archive_columns.hpp), as the archive's
// columns read in text: enums by name, flags as true/false, absent doubles empty.
class CsvRow {
public:
    explicit CsvRow(CsvFile& csv) : csv_(csv) {}

    template <typename T>
    void operator()(std::string_view, const T& value) {
        if constexpr (std::is_same_v<T, std::string>) {
            csv_.text(value);
        } else if constexpr (std::is_same_v<T, bool>) {
            csv_.flag(value);
        } else if constexpr (std::is_same_v<T, tuning::Status>) {
            csv_.text(tuning::to_string(value));
        } else if constexpr (is_archive_enum<T>) {
            csv_.text(to_string(value));
        } else if constexpr (std::is_enum_v<T>) {
            csv_.text(family::to_aiter_string(value));
        } else {
            csv_.number(value);
        }
    }

    template <typename T>
    void operator()(std::string_view name, const Derived<T>& derived) {
        (*this)(name, derived.value);
    }

private:
    CsvFile& csv_;
};

void write_shapes(const std::string& path, const RunEvidence& evidence) {
    CsvFile csv(path, column_names([](auto&& visit) {
                    const ShapeRecord shape;
                    shape_columns(visit, 0, shape, ShapeRollup{});
                }));
    const std::vector<ShapeRollup> rollups = roll_up_shapes(evidence);
    for (std::size_t id = 0; id < evidence.shapes.size(); ++id) {
        shape_columns(CsvRow(csv), static_cast<std::uint32_t>(id), evidence.shapes[id],
                      rollups[id]);
        csv.end_row();
    }
    csv.close();
}

void write_candidates(const std::string& path, const RunEvidence& evidence) {
    CsvFile csv(path, column_names([](auto&& visit) {
                    const CandidateRecord record;
                    candidate_columns(visit, record);
                }));
    for (const CandidateRecord& c : evidence.candidates) {
        candidate_columns(CsvRow(csv), c);
        csv.end_row();
    }
    csv.close();
}

// A table of one column per field of Record.
template <typename Record>
void write_records(const std::string& path, const std::vector<Record>& records) {
    CsvFile csv(path, column_names([](auto&& visit) {
                    const Record record;
                    for_each_leaf(record, visit);
                }));
    for (const Record& record : records) {
        for_each_leaf(record, CsvRow(csv));
        csv.end_row();
    }
    csv.close();
}

void write_decisions(const std::string& path, const RunEvidence& evidence) {
    CsvFile csv(path, column_names([](auto&& visit) {
                    const DecisionRecord record;
                    decision_columns(visit, record);
                }));
    for (const DecisionRecord& d : evidence.decisions) {
        decision_columns(CsvRow(csv), d);
        csv.end_row();
    }
    csv.close();
}

}  // namespace

std::vector<std::string> export_csv(const RunEvidence& evidence, const std::string& directory) {
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    if (error) throw Error("cannot create directory '" + directory + "': " + error.message());
    using Writer = std::function<void(const std::string&)>;
    const std::vector<std::pair<std::string, Writer>> tables = {
        {"provenance.csv", [&](const std::string& p) { write_provenance(p, evidence.provenance); }},
        {"policy.csv", [&](const std::string& p) { write_records(p, evidence.provenance.policy); }},
        {"ranks.csv", [&](const std::string& p) { write_records(p, evidence.provenance.ranks); }},
        {"shapes.csv", [&](const std::string& p) { write_shapes(p, evidence); }},
        {"candidates.csv", [&](const std::string& p) { write_candidates(p, evidence); }},
        {"race.csv", [&](const std::string& p) { write_records(p, evidence.race); }},
        {"decisions.csv", [&](const std::string& p) { write_decisions(p, evidence); }},
    };
    std::vector<std::string> written;
    for (const auto& [name, write] : tables) {
        const std::string path = (std::filesystem::path(directory) / name).string();
        write(path);
        written.push_back(path);
    }
    return written;
}

}  // namespace fhmoe::evidence
