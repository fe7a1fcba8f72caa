#include "fhmoe/cluster/work_queue.hpp"

#include <map>

namespace fhmoe::cluster {

std::int64_t WorkItem::id() const {
    if (const auto* chunk = std::get_if<supervisor::Chunk>(&work)) return chunk->chunk_id;
    return std::get<supervisor::Race>(work).race_id;
}

void WorkQueue::add(WorkItem item) { items_.push_back(std::move(item)); }

std::optional<WorkItem> WorkQueue::take_at(std::size_t position) {
    WorkItem item = std::move(items_[position]);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(position));
    return item;
}

std::optional<WorkItem> WorkQueue::take_for(const std::string& loaded_shape) {
    if (items_.empty()) return std::nullopt;
    if (!loaded_shape.empty()) {
        for (bool race : {true, false}) {
            for (std::size_t i = 0; i < items_.size(); ++i) {
                if (items_[i].shape_key == loaded_shape && items_[i].is_race() == race) {
                    return take_at(i);
                }
            }
        }
    }
    for (std::size_t i = 0; i < items_.size(); ++i) {
        if (items_[i].is_race()) return take_at(i);
    }
    std::map<std::string, std::size_t> chunks_left;
    for (const auto& item : items_) ++chunks_left[item.shape_key];
    std::size_t best = 0;
    for (std::size_t i = 1; i < items_.size(); ++i) {
        if (chunks_left[items_[i].shape_key] > chunks_left[items_[best].shape_key]) best = i;
    }
    return take_at(best);
}

std::optional<WorkItem> WorkQueue::take_race_for(const std::string& loaded_shape) {
    std::optional<std::size_t> oldest;
    for (std::size_t i = 0; i < items_.size(); ++i) {
        if (!items_[i].is_race()) continue;
        if (items_[i].shape_key == loaded_shape) return take_at(i);
        if (!oldest) oldest = i;
    }
    if (!oldest) return std::nullopt;
    return take_at(*oldest);
}

bool WorkQueue::has_race() const {
    for (const auto& item : items_) {
        if (item.is_race()) return true;
    }
    return false;
}

std::size_t WorkQueue::drop_shape(const std::string& shape_key) {
    const std::size_t before = items_.size();
    std::erase_if(items_, [&](const WorkItem& item) { return item.shape_key == shape_key; });
    return before - items_.size();
}

std::size_t WorkQueue::count_for(const std::string& shape_key) const {
    std::size_t count = 0;
    for (const auto& item : items_) count += item.shape_key == shape_key ? 1 : 0;
    return count;
}

}  // namespace fhmoe::cluster
