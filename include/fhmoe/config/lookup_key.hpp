#pragma once

// The serving lookup key: serving finds a tuned row by (gfx, cu_num, the shape with token
// replaced by get_padded_M(M)). Everything that matches untuned shapes to tuned rows —
// writing a result (a result for raw token 3 is written at token 4), skipping shapes that
// are already tuned, the run summary, --compare — goes through this one key, so a
// non-power-of-two token can never be tuned, written, and then reported as still untuned
// (aiter's weakness 10.11c).

#include <compare>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/config/untuned_csv.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::config {

// Ordered by gfx, cu_num, then the shape-key columns in CSV order (numerically, enums in
// declaration order): the order the tuned CSV is written in.
struct LookupKey {
    family::DeviceKey device;
    family::ShapeKey shape;  // token already padded

    auto operator<=>(const LookupKey&) const = default;
};

LookupKey lookup_key(const family::DeviceKey& device, const family::ShapeKey& shape);
LookupKey lookup_key(const TunedRow& row);

// "gfx950/256/t4_h7168_i384_e385_k7_gui": readable, for messages and logs.
std::string lookup_key_string(const LookupKey& key);

// The device an untuned shape is tuned for: its own gfx/cu_num columns when the file has
// them, otherwise the device the tuner runs on.
family::DeviceKey device_for(const UntunedShape& shape, const family::DeviceKey& tuning_device);

// Finds tuned rows by lookup key. Holds a reference to the table: keep it alive.
class TunedIndex {
public:
    explicit TunedIndex(const TunedTable& table);

    // The row serving would use for `shape` (raw token) on `device`, or nullptr.
    const TunedRecord* find(const family::DeviceKey& device, const family::ShapeKey& shape) const;
    bool is_tuned(const family::DeviceKey& device, const family::ShapeKey& shape) const {
        return find(device, shape) != nullptr;
    }

private:
    const TunedTable& table_;
    std::map<LookupKey, std::size_t> position_;
};

// The untuned shapes split by what a run on `tuning_device` does with them.
struct ShapeSelection {
    std::vector<UntunedShape> to_tune;
    std::vector<UntunedShape> already_tuned;  // skipped: a row with their lookup key exists
    std::vector<UntunedShape> other_device;   // their gfx/cu_num columns name another device
};

// aiter's pre_process skip: a shape is tuned unless a row with its lookup key exists for
// the device. With `retune_all` (aiter's --all) every shape of the device is tuned again;
// the incumbent row stays until a decision replaces it.
ShapeSelection select_shapes_to_tune(const UntunedTable& untuned, const TunedTable& tuned,
                                     const family::DeviceKey& tuning_device, bool retune_all);

}  // namespace fhmoe::config
