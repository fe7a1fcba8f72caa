#pragma once

// Work waiting for a rank, handed out on demand with shape affinity (DESIGN.md section 1,
// step 2): a DSV4 shape's data is ~1.7 GB to generate, so a rank that asks for work gets
// more of the shape its worker already holds when there is any.

#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "fhmoe/supervisor/chunk.hpp"

namespace fhmoe::cluster {

struct WorkItem {
    std::variant<supervisor::Chunk, supervisor::Race> work;
    std::string shape_key;  // family::shape_key_string of the shape (raw token)

    std::int64_t id() const;
    bool is_race() const { return std::holds_alternative<supervisor::Race>(work); }
};

// The chunks of one shape, planned only when the first of them is taken (issue #12, item 9):
// until then the queue holds their number, not their candidates, so rank 0 holds the
// candidates of the shapes being measured rather than of the whole night. They stand in the
// queue exactly where the planned chunks would, and count as `count` chunks of the shape.
struct DeferredChunks {
    std::string shape_key;
    std::size_t count = 0;
    std::function<std::vector<WorkItem>()> plan;  // makes the `count` chunks, in order
};

class WorkQueue {
public:
    void add(WorkItem item);
    void add(DeferredChunks chunks);

    // The next item for a rank whose worker last loaded `loaded_shape` (empty: none), in this
    // order: a race of that shape, a chunk of that shape, the oldest race (a race decides a
    // shape, and decisions are what a checkpoint publishes), then a chunk of the shape with
    // the most chunks left (spreading ranks over shapes so each keeps its shape longer).
    std::optional<WorkItem> take_for(const std::string& loaded_shape);

    // The race of `loaded_shape` if one waits, else the oldest race; none when no race waits.
    std::optional<WorkItem> take_race_for(const std::string& loaded_shape);
    bool has_race() const;

    // Removes every item of a shape (its results can no longer be compared); returns how many.
    std::size_t drop_shape(const std::string& shape_key);

    std::size_t size() const { return size_; }  // deferred chunks counted one by one
    bool empty() const { return items_.empty(); }
    std::size_t count_for(const std::string& shape_key) const;

private:
    using Entry = std::variant<WorkItem, DeferredChunks>;
    static const std::string& shape_of(const Entry& entry);
    static bool is_race(const Entry& entry);
    static std::size_t items_in(const Entry& entry);

    std::optional<WorkItem> take_at(std::size_t position);
    std::deque<Entry> items_;
    std::size_t size_ = 0;
};

}  // namespace fhmoe::cluster
