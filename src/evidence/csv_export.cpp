#include "fhmoe/evidence/csv_export.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

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

void write_policy(const std::string& path, const Provenance& p) {
    CsvFile csv(path, {"name", "value"});
    for (const PolicyValue& value : p.policy) csv.text(value.name).number(value.value).end_row();
    csv.close();
}

void write_ranks(const std::string& path, const Provenance& p) {
    CsvFile csv(path, {"rank", "host", "device_index", "device_name", "device_uuid", "driver"});
    for (const RankInfo& r : p.ranks) {
        csv.number(r.rank).text(r.host).number(r.device_index).text(r.device_name);
        csv.text(r.device_uuid).text(r.driver).end_row();
    }
    csv.close();
}

void write_shapes(const std::string& path, const RunEvidence& evidence) {
    std::vector<std::string> header = {"shape_id",
                                       "shape_key",
                                       "gfx",
                                       "cu_num",
                                       "token",
                                       "padded_token",
                                       "model_dim",
                                       "inter_dim",
                                       "expert",
                                       "topk",
                                       "shared_expert_id",
                                       "act_type",
                                       "dtype",
                                       "q_dtype_a",
                                       "q_dtype_w",
                                       "q_type",
                                       "use_g1u1",
                                       "doweight_stage1",
                                       "hidden_pad",
                                       "intermediate_pad",
                                       "gate_mode",
                                       "candidate_count"};
    for (tuning::Status status : tuning::all_statuses) {
        header.push_back("n_" + std::string(tuning::to_string(status)));
    }
    header.push_back("decision");
    CsvFile csv(path, header);
    const std::vector<ShapeRollup> rollups = roll_up_shapes(evidence);
    for (std::size_t id = 0; id < evidence.shapes.size(); ++id) {
        const ShapeRecord& s = evidence.shapes[id];
        const family::ShapeKey& k = s.key;
        csv.number(id).text(s.shape_key).text(s.device.gfx).number(s.device.cu_num);
        csv.number(k.token).number(family::padded_token(k.token)).number(k.model_dim);
        csv.number(k.inter_dim).number(k.expert).number(k.topk).number(k.shared_expert_id);
        csv.text(family::to_aiter_string(k.act_type)).text(family::to_aiter_string(k.dtype));
        csv.text(family::to_aiter_string(k.q_dtype_a)).text(family::to_aiter_string(k.q_dtype_w));
        csv.text(family::to_aiter_string(k.q_type)).number(k.use_g1u1).number(k.doweight_stage1);
        csv.number(k.hidden_pad).number(k.intermediate_pad);
        csv.text(family::to_aiter_string(k.gate_mode)).number(s.candidate_count);
        for (tuning::Status status : tuning::all_statuses) {
            csv.number(rollups[id].status_counts[status]);
        }
        csv.text(to_string(rollups[id].decision)).end_row();
    }
    csv.close();
}

void write_candidates(const std::string& path, const RunEvidence& evidence) {
    CsvFile csv(path, {"shape_id",
                       "shape_key",
                       "candidate_key",
                       "block_m",
                       "stage1",
                       "stage2",
                       "status",
                       "detail",
                       "n_raw",
                       "n_kept",
                       "mean_us",
                       "median_us",
                       "stddev_us",
                       "stderr_us",
                       "min_us",
                       "max_us",
                       "sort_us",
                       "quant_us",
                       "stage1_us",
                       "stage2_us",
                       "reduce_us",
                       "mismatch_fraction",
                       "cosine_distance",
                       "max_abs_delta",
                       "catastrophic",
                       "relative_to_incumbent",
                       "ratio_basis",
                       "rank",
                       "host",
                       "device_index",
                       "device_name",
                       "device_uuid",
                       "worker_pid",
                       "chunk",
                       "attempt",
                       "fault_injected",
                       "started_unix_ns",
                       "finished_unix_ns"});
    for (const CandidateRecord& c : evidence.candidates) {
        const tuning::CandidateResult& r = c.result;
        csv.number(c.shape_id).text(r.shape_key).text(r.candidate.key());
        csv.number(r.candidate.block_m).text(r.candidate.stage1).text(r.candidate.stage2);
        csv.text(tuning::to_string(r.status)).text(r.detail);
        csv.number(r.timing.n_raw).number(r.timing.n_kept).number(r.timing.mean_us);
        csv.number(r.timing.median_us).number(r.timing.stddev_us).number(r.timing.stderr_us);
        csv.number(r.timing.min_us).number(r.timing.max_us);
        csv.number(r.stages.sort_us).number(r.stages.quant_us).number(r.stages.stage1_us);
        csv.number(r.stages.stage2_us).number(r.stages.reduce_us);
        csv.number(r.error.mismatch_fraction).number(r.error.cosine_distance);
        csv.number(r.error.max_abs_delta).flag(r.error.catastrophic);
        csv.number(c.relative_to_incumbent).text(to_string(c.ratio_basis));
        csv.number(r.where.rank).text(r.where.host).number(r.where.device_index);
        csv.text(r.where.device_name).text(r.where.device_uuid).number(r.where.worker_pid);
        csv.number(r.chunk).number(r.attempt).flag(r.fault_injected);
        csv.number(r.started_unix_ns).number(r.finished_unix_ns).end_row();
    }
    csv.close();
}

void write_race(const std::string& path, const RunEvidence& evidence) {
    CsvFile csv(path, {"shape_id", "candidate_key", "round", "time_us", "is_incumbent"});
    for (const RaceSample& s : evidence.race) {
        csv.number(s.shape_id).text(s.candidate_key).number(s.round).number(s.time_us);
        csv.flag(s.is_incumbent).end_row();
    }
    csv.close();
}

void write_decisions(const std::string& path, const RunEvidence& evidence) {
    CsvFile csv(path, {"shape_id", "decision", "incumbent_key", "incumbent_us",
                       "incumbent_stderr_us", "winner_key", "winner_us", "winner_stderr_us",
                       "margin_pct", "bar_pct", "noise_floor_pct", "published_key", "reason",
                       "race_rank", "race_host", "race_started_unix_ns", "race_finished_unix_ns"});
    for (const DecisionRecord& d : evidence.decisions) {
        csv.number(d.shape_id).text(to_string(d.decision)).text(d.incumbent_key);
        csv.number(d.incumbent_us).number(d.incumbent_stderr_us).text(d.winner_key);
        csv.number(d.winner_us).number(d.winner_stderr_us).number(d.margin_pct);
        csv.number(d.bar_pct).number(d.noise_floor_pct).text(published_key(d)).text(d.reason);
        csv.number(d.race_rank).text(d.race_host).number(d.race_started_unix_ns);
        csv.number(d.race_finished_unix_ns).end_row();
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
        {"policy.csv", [&](const std::string& p) { write_policy(p, evidence.provenance); }},
        {"ranks.csv", [&](const std::string& p) { write_ranks(p, evidence.provenance); }},
        {"shapes.csv", [&](const std::string& p) { write_shapes(p, evidence); }},
        {"candidates.csv", [&](const std::string& p) { write_candidates(p, evidence); }},
        {"race.csv", [&](const std::string& p) { write_race(p, evidence); }},
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
