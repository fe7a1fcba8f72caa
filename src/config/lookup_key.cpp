#include "fhmoe/config/lookup_key.hpp"

namespace fhmoe::config {

LookupKey lookup_key(const family::DeviceKey& device, const family::ShapeKey& shape) {
    return LookupKey{device, family::with_padded_token(shape)};
}

LookupKey lookup_key(const TunedRow& row) { return lookup_key(row.device, row.shape); }

std::string lookup_key_string(const LookupKey& key) {
    return key.device.gfx + "/" + std::to_string(key.device.cu_num) + "/" +
           family::shape_key_string(key.shape);
}

family::DeviceKey device_for(const UntunedShape& shape, const family::DeviceKey& tuning_device) {
    return shape.device ? *shape.device : tuning_device;
}

TunedIndex::TunedIndex(const TunedTable& table) : table_(table) {
    for (std::size_t i = 0; i < table.records.size(); ++i) {
        position_.emplace(lookup_key(table.records[i].row), i);
    }
}

const TunedRecord* TunedIndex::find(const family::DeviceKey& device,
                                    const family::ShapeKey& shape) const {
    const auto found = position_.find(lookup_key(device, shape));
    return found == position_.end() ? nullptr : &table_.records[found->second];
}

ShapeSelection select_shapes_to_tune(const UntunedTable& untuned, const TunedTable& tuned,
                                     const family::DeviceKey& tuning_device, bool retune_all) {
    const TunedIndex index(tuned);
    ShapeSelection selection;
    for (const UntunedShape& shape : untuned.shapes) {
        if (device_for(shape, tuning_device) != tuning_device) {
            selection.other_device.push_back(shape);
        } else if (!retune_all && index.is_tuned(tuning_device, shape.shape)) {
            selection.already_tuned.push_back(shape);
        } else {
            selection.to_tune.push_back(shape);
        }
    }
    return selection;
}

}  // namespace fhmoe::config
