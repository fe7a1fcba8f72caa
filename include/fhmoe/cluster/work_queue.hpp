#pragma once

// Work waiting for a rank, handed out on demand with shape affinity (DESIGN.md section 1,
// step 2): a DSV4 shape's data is ~1.7 GB to generate, so a rank that asks for work gets
// more of the shape its worker already holds when there is any.

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <variant>

#include "fhmoe/supervisor/chunk.hpp"

namespace fhmoe::cluster {

struct WorkItem {
    std::variant<supervisor::Chunk, supervisor::Race> work;
    std::string shape_key;  // family::shape_key_string of the shape (raw token)

    std::int64_t id() const;
    bool is_race() const { return std::holds_alternative<supervisor::Race>(work); }
};

class WorkQueue {
public:
    void add(WorkItem item);

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

    std::size_t size() const { return items_.size(); }
    bool empty() const { return items_.empty(); }
    std::size_t count_for(const std::string& shape_key) const;

private:
    std::optional<WorkItem> take_at(std::size_t position);
    std::deque<WorkItem> items_;
};

}  // namespace fhmoe::cluster
