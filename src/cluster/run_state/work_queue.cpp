#include "cluster/run_state/work_queue.hpp"

#include <map>

#include "fhmoe/error.hpp"

namespace fhmoe::cluster {

std::int64_t WorkItem::id() const {
    if (const auto* chunk = std::get_if<supervisor::Chunk>(&work)) return chunk->chunk_id;
    return std::get<supervisor::Race>(work).race_id;
}

const std::string& WorkQueue::shape_of(const Entry& entry) {
    if (const auto* item = std::get_if<WorkItem>(&entry)) return item->shape_key;
    return std::get<DeferredChunks>(entry).shape_key;
}

bool WorkQueue::is_race(const Entry& entry) {
    const auto* item = std::get_if<WorkItem>(&entry);
    return item != nullptr && item->is_race();
}

std::size_t WorkQueue::items_in(const Entry& entry) {
    if (const auto* deferred = std::get_if<DeferredChunks>(&entry)) return deferred->count;
    return 1;
}

void WorkQueue::add(WorkItem item) {
    items_.emplace_back(std::move(item));
    ++size_;
}

void WorkQueue::add(DeferredChunks chunks) {
    if (chunks.count == 0) return;
    size_ += chunks.count;
    items_.emplace_back(std::move(chunks));
}

std::optional<WorkItem> WorkQueue::take_at(std::size_t position) {
    if (auto* deferred = std::get_if<DeferredChunks>(&items_[position])) {
        // The planned chunks take the group's place, in order: the queue is then what it
        // would have been had they been planned when the group was added.
        std::vector<WorkItem> planned = deferred->plan();
        FHMOE_CHECK(planned.size() == deferred->count,
                    "shape " + deferred->shape_key + ": " + std::to_string(planned.size()) +
                        " chunks planned where " + std::to_string(deferred->count) +
                        " were reserved");
        items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(position));
        items_.insert(items_.begin() + static_cast<std::ptrdiff_t>(position),
                      std::make_move_iterator(planned.begin()),
                      std::make_move_iterator(planned.end()));
    }
    WorkItem item = std::move(std::get<WorkItem>(items_[position]));
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(position));
    --size_;
    return item;
}

std::optional<WorkItem> WorkQueue::take_for(const std::string& loaded_shape) {
    if (items_.empty()) return std::nullopt;
    if (!loaded_shape.empty()) {
        for (bool race : {true, false}) {
            for (std::size_t i = 0; i < items_.size(); ++i) {
                if (shape_of(items_[i]) == loaded_shape && is_race(items_[i]) == race) {
                    return take_at(i);
                }
            }
        }
    }
    for (std::size_t i = 0; i < items_.size(); ++i) {
        if (is_race(items_[i])) return take_at(i);
    }
    std::map<std::string, std::size_t> chunks_left;
    for (const auto& entry : items_) chunks_left[shape_of(entry)] += items_in(entry);
    std::size_t best = 0;
    for (std::size_t i = 1; i < items_.size(); ++i) {
        if (chunks_left[shape_of(items_[i])] > chunks_left[shape_of(items_[best])]) best = i;
    }
    return take_at(best);
}

std::optional<WorkItem> WorkQueue::take_race_for(const std::string& loaded_shape) {
    std::optional<std::size_t> oldest;
    for (std::size_t i = 0; i < items_.size(); ++i) {
        if (!is_race(items_[i])) continue;
        if (shape_of(items_[i]) == loaded_shape) return take_at(i);
        if (!oldest) oldest = i;
    }
    if (!oldest) return std::nullopt;
    return take_at(*oldest);
}

bool WorkQueue::has_race() const {
    for (const auto& entry : items_) {
        if (is_race(entry)) return true;
    }
    return false;
}

std::size_t WorkQueue::drop_shape(const std::string& shape_key) {
    std::size_t dropped = 0;
    std::erase_if(items_, [&](const Entry& entry) {
        if (shape_of(entry) != shape_key) return false;
        dropped += items_in(entry);
        return true;
    });
    size_ -= dropped;
    return dropped;
}

std::size_t WorkQueue::count_for(const std::string& shape_key) const {
    std::size_t count = 0;
    for (const auto& entry : items_) count += shape_of(entry) == shape_key ? items_in(entry) : 0;
    return count;
}

}  // namespace fhmoe::cluster
