// Every field of every record survives every sink: each record is filled through its field
// list with distinct non-default values, sent through each codec that carries it (the wire
// codecs, the worker protocol, the MPI message encodings, the journal, the HDF5 archive and
// the CSV export) and compared field by field. A field a sink forgets fails here, named.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "cluster/mpi_transport/mpi_messages.hpp"
#include "evidence/evidence_compare.hpp"
#include "evidence/scratch_dir.hpp"
#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/config/untuned_csv.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/csv_export.hpp"
#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/record_fields.hpp"
#include "fhmoe/tuning/result_order.hpp"
#include "fhmoe/wire/codecs.hpp"
#include "fhmoe/wire/frame.hpp"
#include "fhmoe/wire/record_codec.hpp"
#include "fhmoe/worker/protocol.hpp"

namespace fhmoe {
namespace {

// The container traits the record codec dispatches on (one definition, wire/record_codec.hpp).
using wire::detail::IsMap;
using wire::detail::IsOptional;
using wire::detail::IsPair;
using wire::detail::IsVector;

template <typename T>
concept HasLastEnumerator = requires(T value) {
    last_enumerator(value);
};

// Gives every field a value no other field has and no default has.
class Filler {
public:
    template <typename T>
    void fill(T& value) {
        if constexpr (std::is_same_v<T, bool>) {
            value = !value;
        } else if constexpr (std::is_enum_v<T>) {
            if constexpr (HasLastEnumerator<T>) {  // the next value (an enum of one value stays)
                const int count = static_cast<int>(last_enumerator(T{})) + 1;
                value = static_cast<T>((static_cast<int>(value) + 1) % count);
            }
        } else if constexpr (std::is_integral_v<T>) {
            value = static_cast<T>(next_++);
        } else if constexpr (std::is_floating_point_v<T>) {
            value = static_cast<T>(next_++) + 0.25;
        } else if constexpr (std::is_same_v<T, std::string>) {
            value = "text " + std::to_string(next_++);
        } else if constexpr (IsVector<T>::value) {
            value.resize(2);
            for (auto& element : value) fill(element);
        } else if constexpr (IsOptional<T>::value) {
            fill(value.emplace());
        } else if constexpr (IsPair<T>::value) {
            fill(value.first);
            fill(value.second);
        } else if constexpr (IsMap<T>::value) {
            for (int i = 0; i < 2; ++i) fill(value["key " + std::to_string(next_++)]);
        } else {
            static_assert(HasFields<T>, "the filler cannot fill this type");
            fields([this](std::string_view, auto& member) { fill(member); }, value);
        }
    }

private:
    int next_ = 1;
};

template <typename T>
T filled() {
    T value{};
    Filler().fill(value);
    return value;
}

// Field by field, naming the first path that differs.
template <typename T>
void expect_same(const T& expected, const T& actual, const std::string& path) {
    if constexpr (IsVector<T>::value) {
        ASSERT_EQ(expected.size(), actual.size()) << path;
        for (std::size_t i = 0; i < expected.size(); ++i) {
            expect_same(expected[i], actual[i], path + "[" + std::to_string(i) + "]");
        }
    } else if constexpr (IsOptional<T>::value) {
        ASSERT_EQ(expected.has_value(), actual.has_value()) << path;
        if (expected) expect_same(*expected, *actual, path);
    } else if constexpr (IsPair<T>::value) {
        expect_same(expected.first, actual.first, path + ".first");
        expect_same(expected.second, actual.second, path + ".second");
    } else if constexpr (IsMap<T>::value) {
        EXPECT_EQ(expected, actual) << path;
    } else if constexpr (HasFields<T>) {
        for_each_field_pair(expected, actual,
                            [&](std::string_view name, const auto& e, const auto& a) {
                                expect_same(e, a, path + "." + std::string(name));
                            });
    } else if constexpr (std::is_enum_v<T>) {
        EXPECT_EQ(static_cast<int>(expected), static_cast<int>(actual)) << path;
    } else {
        EXPECT_EQ(expected, actual) << path;
    }
}

// Every field list names every member of its struct (static_asserts check the others at
// compile time; std::map is no constexpr type, so RunHeader is checked here).
TEST(RecordFieldsTest, RunHeaderListsEveryMember) {
    EXPECT_EQ(field_count<evidence::RunHeader>(), aggregate_arity<evidence::RunHeader>());
}

// ---- the wire codecs

template <typename T, typename Decode>
void expect_wire_round_trip(Decode decode) {
    const T expected = filled<T>();
    wire::ByteWriter out;
    wire::encode(out, expected);
    wire::ByteReader in(out.bytes());
    const T actual = decode(in);
    in.expect_end();
    expect_same(expected, actual, "");
}

TEST(RecordFieldsTest, EveryWireRecordRoundTrips) {
    expect_wire_round_trip<family::ShapeKey>(wire::decode_shape);
    expect_wire_round_trip<family::Candidate>(wire::decode_candidate);
    expect_wire_round_trip<tuning::CandidateId>(wire::decode_candidate_id);
    expect_wire_round_trip<tuning::TimingStats>(wire::decode_timing);
    expect_wire_round_trip<tuning::StageSplit>(wire::decode_stages);
    expect_wire_round_trip<tuning::ErrorMetrics>(wire::decode_error_metrics);
    expect_wire_round_trip<tuning::MeasuredOn>(wire::decode_measured_on);
    expect_wire_round_trip<tuning::CandidateResult>(wire::decode_candidate_result);
    expect_wire_round_trip<wire::MeasurementSettings>(wire::decode_measurement_settings);
}

// ---- the worker protocol

template <typename Variant, std::size_t I = 0, typename Use>
void for_each_alternative(Use&& use) {
    if constexpr (I < std::variant_size_v<Variant>) {
        use(filled<std::variant_alternative_t<I, Variant>>());
        for_each_alternative<Variant, I + 1>(use);
    }
}

TEST(RecordFieldsTest, EveryWorkerCommandRoundTrips) {
    for_each_alternative<worker::Command>([](const auto& expected) {
        using Message = std::decay_t<decltype(expected)>;
        const auto bytes = worker::encode_command(expected);
        const worker::Command decoded =
            worker::decode_command(wire::decode_frame(bytes, worker::protocol_version));
        ASSERT_TRUE(std::holds_alternative<Message>(decoded));
        expect_same(expected, std::get<Message>(decoded), "command");
    });
}

TEST(RecordFieldsTest, EveryWorkerReplyRoundTrips) {
    for_each_alternative<worker::Reply>([](const auto& expected) {
        using Message = std::decay_t<decltype(expected)>;
        const auto bytes = worker::encode_reply(expected);
        const worker::Reply decoded =
            worker::decode_reply(wire::decode_frame(bytes, worker::protocol_version));
        ASSERT_TRUE(std::holds_alternative<Message>(decoded));
        expect_same(expected, std::get<Message>(decoded), "reply");
    });
}

// ---- the MPI messages (their encodings only: no mpiexec)

TEST(RecordFieldsTest, EverySupervisorEventRoundTripsAsAnMpiMessage) {
    for_each_alternative<supervisor::Event>([](const auto& expected) {
        using Event = std::decay_t<decltype(expected)>;
        const supervisor::Event event = expected;
        const supervisor::Event decoded =
            cluster::decode_event(cluster::tag_of(event), cluster::encode_event(event));
        ASSERT_TRUE(std::holds_alternative<Event>(decoded));
        expect_same(expected, std::get<Event>(decoded), "event");
    });
}

TEST(RecordFieldsTest, EveryMpiMessageRoundTrips) {
    const auto hello = filled<cluster::HelloMessage>();
    expect_same(hello, cluster::decode_hello(cluster::encode_hello(hello)), "hello");
    const auto stop = filled<cluster::StopMessage>();
    expect_same(stop, cluster::decode_stop(cluster::encode_stop(stop)), "stop");
    const auto failed = filled<cluster::RankFailedMessage>();
    expect_same(failed, cluster::decode_rank_failed(cluster::encode_rank_failed(failed)),
                "rank_failed");
}

// A chunk's or race's candidates cross MPI without their attempt count (the rank that takes
// them counts worker lives from 0): every other field arrives.
TEST(RecordFieldsTest, ChunksAndRacesRoundTripAsMpiMessagesWithoutAttempts) {
    auto chunk = filled<supervisor::Chunk>();
    auto race = filled<supervisor::Race>();
    const supervisor::Chunk chunk_back = cluster::decode_chunk(cluster::encode_chunk(chunk));
    const supervisor::Race race_back = cluster::decode_race(cluster::encode_race(race));
    for (auto& planned : chunk.candidates) planned.attempt = 0;
    for (auto& planned : race.contenders) planned.attempt = 0;
    expect_same(chunk, chunk_back, "chunk");
    expect_same(race, race_back, "race");
}

// ---- the journal

TEST(RecordFieldsTest, EveryJournalRecordRoundTrips) {
    for_each_alternative<evidence::JournalRecord>([](const auto& expected) {
        using Record = std::decay_t<decltype(expected)>;
        const auto bytes = evidence::encode_journal_record(expected);
        const wire::Frame frame = wire::decode_frame(bytes, evidence::journal_format_version);
        const evidence::JournalRecord decoded =
            evidence::decode_journal_record(frame.type, frame.payload);
        ASSERT_TRUE(std::holds_alternative<Record>(decoded));
        expect_same(expected, std::get<Record>(decoded), "journal");
    });
}

// ---- the HDF5 archive and the CSV export

evidence::RunEvidence filled_evidence() {
    evidence::RunEvidence run;
    run.provenance.tool_version = "test";
    run.provenance.backend = "sim";
    evidence::ShapeRecord shape;
    shape.device = filled<family::DeviceKey>();
    shape.key = filled<family::ShapeKey>();
    shape.shape_key = family::shape_key_string(shape.key);
    evidence::CandidateRecord candidate;
    candidate.result = filled<tuning::CandidateResult>();
    candidate.result.shape_key = shape.shape_key;
    candidate.relative_to_incumbent = 0.75;
    candidate.ratio_basis = evidence::RatioBasis::other_chunks_incumbent;
    shape.candidate_count = 1;
    run.shapes.push_back(shape);
    run.candidates.push_back(candidate);
    run.provenance.policy = filled<std::vector<evidence::PolicyValue>>();
    run.provenance.ranks = filled<std::vector<evidence::RankInfo>>();
    run.race = filled<std::vector<evidence::RaceSample>>();
    for (auto& sample : run.race) sample.shape_id = 0;
    evidence::DecisionRecord decision = filled<evidence::DecisionRecord>();
    decision.shape_id = 0;
    decision.decision = evidence::Decision::promote;
    run.decisions.push_back(decision);
    return run;
}

TEST(RecordFieldsTest, ShapesAndResultsRoundTripThroughTheArchive) {
    const evidence::testing::ScratchDir dir;
    const evidence::RunEvidence expected = filled_evidence();
    const std::string path = dir.file("evidence.h5");
    evidence::write_archive(path, expected);
    const evidence::RunEvidence actual = evidence::read_archive(path);
    ASSERT_EQ(actual.shapes.size(), 1u);
    ASSERT_EQ(actual.candidates.size(), 1u);
    expect_same(expected.shapes[0].device, actual.shapes[0].device, "shapes[0].device");
    expect_same(expected.shapes[0].key, actual.shapes[0].key, "shapes[0].key");
    EXPECT_EQ(expected.shapes[0].shape_key, actual.shapes[0].shape_key);
    EXPECT_EQ(expected.shapes[0].candidate_count, actual.shapes[0].candidate_count);
    expect_same(expected.candidates[0].result, actual.candidates[0].result, "candidates[0]");
    EXPECT_EQ(actual.candidates[0].relative_to_incumbent, 0.75);
    EXPECT_EQ(actual.candidates[0].ratio_basis, evidence::RatioBasis::other_chunks_incumbent);
    expect_same(expected.provenance.policy, actual.provenance.policy, "policy");
    expect_same(expected.provenance.ranks, actual.provenance.ranks, "ranks");
    expect_same(expected.race, actual.race, "race");
    expect_same(expected.decisions, actual.decisions, "decisions");
    EXPECT_TRUE(evidence::evidence_differences(expected, actual, 10).empty());
}

std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> cells(1);
    for (char c : line) {
        if (c == ',') {
            cells.emplace_back();
        } else {
            cells.back() += c;
        }
    }
    return cells;
}

// Each leaf of a candidate result has a column of its name in candidates.csv holding its value.
TEST(RecordFieldsTest, EveryResultFieldHasItsCandidatesCsvColumn) {
    const evidence::testing::ScratchDir dir;
    const evidence::RunEvidence run = filled_evidence();
    evidence::export_csv(run, dir.path().string());
    std::ifstream in(dir.file("candidates.csv"));
    std::string header_line;
    std::string row_line;
    ASSERT_TRUE(std::getline(in, header_line));
    ASSERT_TRUE(std::getline(in, row_line));
    const auto header = split_csv_line(header_line);
    const auto row = split_csv_line(row_line);
    ASSERT_EQ(header.size(), row.size());
    std::map<std::string, std::string> cell;
    for (std::size_t i = 0; i < header.size(); ++i) cell[header[i]] = row[i];
    std::size_t leaves = 0;
    for_each_leaf(run.candidates[0].result, [&](std::string_view name, const auto& value) {
        ++leaves;
        using Field = std::remove_cvref_t<decltype(value)>;
        const std::string column(name);
        ASSERT_EQ(cell.count(column), 1u) << column;
        std::ostringstream text;
        if constexpr (std::is_same_v<Field, bool>) {
            text << (value ? "true" : "false");
        } else if constexpr (std::is_same_v<Field, tuning::Status>) {
            text << tuning::to_string(value);
        } else if constexpr (std::is_arithmetic_v<Field> && !std::is_floating_point_v<Field>) {
            text << +value;
        } else if constexpr (std::is_floating_point_v<Field>) {
            text << value;
        } else {
            text << value;
        }
        EXPECT_EQ(cell[column], text.str()) << column;
    });
    // shape_id, candidate_key, relative_to_incumbent and ratio_basis besides the result's.
    EXPECT_EQ(header.size(), leaves + 4);
}

// The /shapes columns and shapes.csv carry the ShapeKey's fields by their names.
TEST(RecordFieldsTest, EveryShapeKeyFieldHasItsShapesCsvColumn) {
    const evidence::testing::ScratchDir dir;
    const evidence::RunEvidence run = filled_evidence();
    evidence::export_csv(run, dir.path().string());
    std::ifstream in(dir.file("shapes.csv"));
    std::string header_line;
    std::string row_line;
    ASSERT_TRUE(std::getline(in, header_line));
    ASSERT_TRUE(std::getline(in, row_line));
    const auto header = split_csv_line(header_line);
    const auto row = split_csv_line(row_line);
    ASSERT_EQ(header.size(), row.size());
    std::map<std::string, std::string> cell;
    for (std::size_t i = 0; i < header.size(); ++i) cell[header[i]] = row[i];
    for_each_leaf(run.shapes[0].key, [&](std::string_view name, const auto& value) {
        using Field = std::remove_cvref_t<decltype(value)>;
        const std::string column(name);
        ASSERT_EQ(cell.count(column), 1u) << column;
        if constexpr (std::is_enum_v<Field>) {
            EXPECT_EQ(cell[column], family::to_aiter_string(value)) << column;
        } else {
            EXPECT_EQ(cell[column], std::to_string(value)) << column;
        }
    });
}

// ---- the comparisons: a difference in any one field is seen

TEST(RecordFieldsTest, EveryResultFieldTakesPartInTheMergeOrderAndTheEvidenceComparison) {
    const evidence::RunEvidence base = filled_evidence();
    std::size_t leaves = 0;
    for_each_leaf(base.candidates[0].result, [&](std::string_view, const auto&) { ++leaves; });
    for (std::size_t leaf = 0; leaf < leaves; ++leaf) {
        evidence::RunEvidence changed = base;
        std::size_t index = 0;
        std::string name_changed;
        for_each_leaf(changed.candidates[0].result, [&](std::string_view name, auto& value) {
            if (index++ != leaf) return;
            name_changed = name;
            using Field = std::remove_cvref_t<decltype(value)>;
            if constexpr (std::is_same_v<Field, bool>) {
                value = !value;
            } else if constexpr (std::is_same_v<Field, std::string>) {
                value += " changed";
            } else if constexpr (std::is_enum_v<Field>) {
                value = value == tuning::Status::ok ? tuning::Status::crash : tuning::Status::ok;
            } else {
                value = static_cast<Field>(value + 1);
            }
        });
        EXPECT_NE(
            tuning::compare_for_merge(base.candidates[0].result, changed.candidates[0].result),
            std::strong_ordering::equal)
            << name_changed;
        EXPECT_FALSE(evidence::evidence_differences(base, changed, 10).empty()) << name_changed;
    }
}

// Changing any one field of a race sample, a decision or a policy value is a difference.
template <typename Record, typename Pick>
void expect_every_field_compared(Pick pick) {
    const evidence::RunEvidence base = filled_evidence();
    std::size_t leaves = 0;
    for_each_leaf(pick(base), [&](std::string_view, const auto&) { ++leaves; });
    for (std::size_t leaf = 0; leaf < leaves; ++leaf) {
        evidence::RunEvidence changed = base;
        std::size_t index = 0;
        std::string name_changed;
        for_each_leaf(pick(changed), [&](std::string_view name, auto& value) {
            if (index++ != leaf) return;
            name_changed = name;
            using Field = std::remove_cvref_t<decltype(value)>;
            if constexpr (std::is_same_v<Field, bool>) {
                value = !value;
            } else if constexpr (std::is_same_v<Field, std::string>) {
                value += " changed";
            } else if constexpr (std::is_same_v<Field, evidence::Decision>) {
                value = evidence::Decision::retain;
            } else {
                value = static_cast<Field>(value + 1);
            }
        });
        EXPECT_FALSE(evidence::evidence_differences(base, changed, 10).empty()) << name_changed;
    }
}

TEST(RecordFieldsTest, EveryEvidenceFieldTakesPartInTheEvidenceComparison) {
    expect_every_field_compared<evidence::RaceSample>(
        [](auto& run) -> auto& { return run.race[0]; });
    expect_every_field_compared<evidence::DecisionRecord>(
        [](auto& run) -> auto& { return run.decisions[0]; });
    expect_every_field_compared<evidence::PolicyValue>(
        [](auto& run) -> auto& { return run.provenance.policy[0]; });
}

// ---- the tuned CSV's key columns come from the device and shape key field lists

TEST(RecordFieldsTest, TunedCsvKeyColumnsAreTheKeyFieldLists) {
    std::vector<std::string_view> expected(family::kDeviceKeyColumns.begin(),
                                           family::kDeviceKeyColumns.end());
    expected.insert(expected.end(), family::kShapeKeyColumns.begin(),
                    family::kShapeKeyColumns.end());
    for (std::string_view extra : {"block_m", "ksplit", "kernelName1", "kernelName2"}) {
        expected.push_back(extra);
    }
    EXPECT_EQ(std::vector<std::string_view>(config::kAiterTunedColumns.begin(),
                                            config::kAiterTunedColumns.end()),
              expected);
    EXPECT_EQ(config::kTunedColumns.size(), expected.size() + 2);
    EXPECT_EQ(config::kUntunedShapeColumns.size(), field_count<family::ShapeKey>());
}

}  // namespace
}  // namespace fhmoe
