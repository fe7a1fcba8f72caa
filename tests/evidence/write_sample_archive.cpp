// Writes a generated archive and a JSON sidecar of what it holds, for the tests that read
// the archive without project code (h5py, the plot script):
//   write_sample_archive ARCHIVE SIDECAR_JSON [SEED] [SHAPES]

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "evidence/evidence_generator.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/shape_rollup.hpp"

namespace {

using namespace fhmoe::evidence;

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string json_number(double value) {
    if (std::isnan(value)) return "null";
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

void write_sidecar(const std::string& path, const RunEvidence& evidence) {
    std::ofstream out(path);
    const Provenance& p = evidence.provenance;
    out << "{\n  \"rows\": {\"shapes\": " << evidence.shapes.size()
        << ", \"candidates\": " << evidence.candidates.size()
        << ", \"race\": " << evidence.race.size()
        << ", \"decisions\": " << evidence.decisions.size() << ", \"policy\": " << p.policy.size()
        << ", \"ranks\": " << p.ranks.size() << "},\n";
    out << "  \"provenance\": {\"tool_version\": " << json_string(p.tool_version)
        << ", \"backend\": " << json_string(p.backend) << ", \"seed\": " << p.seed
        << ", \"exit_status\": " << p.exit_status << ", \"command_line\": [";
    for (std::size_t i = 0; i < p.command_line.size(); ++i) {
        out << (i ? ", " : "") << json_string(p.command_line[i]);
    }
    out << "]},\n  \"policy\": {";
    for (std::size_t i = 0; i < p.policy.size(); ++i) {
        out << (i ? ", " : "") << json_string(p.policy[i].name) << ": "
            << json_number(p.policy[i].value);
    }
    const auto rollups = roll_up_shapes(evidence);
    out << "},\n  \"shapes\": [";
    for (std::size_t i = 0; i < evidence.shapes.size(); ++i) {
        out << (i ? ",\n    " : "\n    ")
            << "{\"shape_key\": " << json_string(evidence.shapes[i].shape_key)
            << ", \"n_ok\": " << rollups[i].status_counts[fhmoe::tuning::Status::ok]
            << ", \"decision\": " << json_string(std::string(to_string(rollups[i].decision)))
            << "}";
    }
    out << "],\n  \"candidates\": [";
    for (std::size_t i = 0; i < evidence.candidates.size(); ++i) {
        const auto& c = evidence.candidates[i];
        out << (i ? ",\n    " : "\n    ") << "{\"shape_id\": " << c.shape_id
            << ", \"candidate_key\": " << json_string(c.result.candidate.key()) << ", \"status\": "
            << json_string(std::string(fhmoe::tuning::to_string(c.result.status)))
            << ", \"mean_us\": " << json_number(c.result.timing.mean_us)
            << ", \"relative_to_incumbent\": " << json_number(c.relative_to_incumbent)
            << ", \"catastrophic\": " << (c.result.error.catastrophic ? "true" : "false")
            << ", \"detail\": " << json_string(c.result.detail) << "}";
    }
    out << "],\n  \"decisions\": [";
    for (std::size_t i = 0; i < evidence.decisions.size(); ++i) {
        const auto& d = evidence.decisions[i];
        out << (i ? ",\n    " : "\n    ") << "{\"shape_id\": " << d.shape_id
            << ", \"decision\": " << json_string(std::string(to_string(d.decision)))
            << ", \"best_challenger_key\": " << json_string(d.best_challenger_key)
            << ", \"published_key\": " << json_string(published_key(d))
            << ", \"margin_pct\": " << json_number(d.margin_pct) << "}";
    }
    out << "]\n}\n";
    if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3 || argc > 5) {
        std::cerr << "usage: write_sample_archive ARCHIVE SIDECAR_JSON [SEED] [SHAPES]\n";
        return 2;
    }
    fhmoe::evidence::testing::GeneratorOptions options;
    if (argc > 3) options.seed = std::stoull(argv[3]);
    if (argc > 4) options.shapes = std::stoi(argv[4]);
    const RunEvidence evidence = fhmoe::evidence::testing::generate_evidence(options);
    write_archive(argv[1], evidence);
    write_sidecar(argv[2], evidence);
    return 0;
}
