#include "fhmoe/config/untuned_csv.hpp"

#include <map>
#include <utility>

#include "config/csv_reader.hpp"
#include "config/record_fields.hpp"
#include "fhmoe/config/lookup_key.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/family/shape_limits.hpp"

namespace fhmoe::config {
namespace {

// Rows without device columns are all for the tuner's device; an empty DeviceKey stands
// for it while detecting duplicates.
family::DeviceKey device_or_unset(const UntunedShape& shape) {
    return shape.device ? *shape.device : family::DeviceKey{};
}

}  // namespace

UntunedTable parse_untuned_csv(std::string path, std::string_view text) {
    const CsvTable csv = parse_csv(std::move(path), text);
    detail::check_columns(csv, kUntunedShapeColumns, kUntunedDeviceColumns);
    const bool has_gfx = detail::has_column_pair(csv, "gfx", "cu_num");

    // A header and nothing else is a truncated or wrongly generated file, not a request to
    // tune nothing: a run on it would rewrite the archive of the last real run with an empty one.
    if (csv.records.empty()) {
        throw InputError(csv.path, csv.header_line, 1, "(rows)",
                         "no shapes to tune: the file has a header but no rows");
    }

    UntunedTable table;
    table.path = csv.path;
    std::map<LookupKey, std::size_t> exact_line;    // raw token
    std::map<LookupKey, std::size_t> lookup_index;  // padded token -> index in shapes
    for (const CsvRecord& record : csv.records) {
        const detail::RecordFields fields(csv, record);
        UntunedShape shape;
        if (has_gfx) shape.device = fields.device_key();
        shape.shape = fields.shape_key();
        shape.line = record.line;
        // Found here, a shape the kernels cannot run costs nothing; found at data generation,
        // it costs the whole run's measurements before it.
        if (auto violation = family::shape_limit_violation(shape.shape)) {
            fields.fail(violation->field, violation->reason);
        }

        const family::DeviceKey device = device_or_unset(shape);
        const auto [exact, inserted] =
            exact_line.emplace(LookupKey{device, shape.shape}, record.line);
        if (!inserted) {
            fields.fail("token",
                        "duplicate row: the same shape as line " + std::to_string(exact->second));
        }
        const auto [same_lookup, new_lookup] =
            lookup_index.emplace(lookup_key(device, shape.shape), table.shapes.size());
        if (!new_lookup) {
            const UntunedShape& kept = table.shapes[same_lookup->second];
            const std::size_t token_column =
                record.fields[static_cast<std::size_t>(csv.column_index("token"))].column;
            table.warnings.push_back(
                InputError(csv.path, record.line, token_column, "token",
                           "token " + std::to_string(shape.shape.token) +
                               " looks up the same tuned row (token " +
                               std::to_string(family::padded_token(shape.shape.token)) +
                               ") as token " + std::to_string(kept.shape.token) + " on line " +
                               std::to_string(kept.line) + "; tuned once, as line " +
                               std::to_string(kept.line))
                    .what());
            continue;
        }
        table.shapes.push_back(std::move(shape));
    }
    return table;
}

UntunedTable read_untuned_csv(const std::string& path) {
    return parse_untuned_csv(path, read_text_file(path));
}

}  // namespace fhmoe::config
