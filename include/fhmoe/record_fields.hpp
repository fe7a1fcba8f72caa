#pragma once

// One field list per record. Next to each record's definition stands
//
//     template <typename Visitor, RecordOf<Thing> Record>
//     constexpr void fields(Visitor&& visit, Record& record) {
//         visit("name", record.name);  // one line per member, in wire and column order
//         ...
//     }
//
// and every sink (the wire codecs, the HDF5 columns, the CSV export, comparisons) walks it
// instead of spelling the members out again, so adding a member is one edit to the record and
// one to its field list. `Record` is the record or the const record: one list serves writers
// (which read the members) and readers (which assign them). A member that is itself a record
// with a field list is visited as one field; sinks that want its members recurse.
//
// Each field list is checked against its struct: a static_assert beside it compares
// field_count with aggregate_arity, so a member the list forgets is a compile error.

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fhmoe {

// `Record` is `T` or `const T`.
template <typename Record, typename T>
concept RecordOf = std::same_as<std::remove_const_t<Record>, T>;

namespace detail {

struct IgnoreFields {
    template <typename... Any>
    constexpr void operator()(Any&&...) const noexcept {}
};

struct CountFields {
    std::size_t* count;
    template <typename Field>
    constexpr void operator()(std::string_view, Field&) const noexcept {
        ++*count;
    }
};

// Converts to any member type; only ever named in unevaluated aggregate initializations.
struct AnyMember {
    template <typename T>
    operator T() const;  // NOLINT(google-explicit-constructor)
};

template <typename T, std::size_t... I>
constexpr bool initializable_from(std::index_sequence<I...>) {
    return requires { T{(static_cast<void>(I), AnyMember{})...}; };
}

}  // namespace detail

// Whether `fields(visitor, record)` exists for T (found by argument-dependent lookup).
template <typename T>
concept HasFields = requires(T& record) {
    fields(detail::IgnoreFields{}, record);
};

// How many fields T's field list names.
template <HasFields T>
constexpr std::size_t field_count() {
    std::size_t count = 0;
    T record{};
    fields(detail::CountFields{&count}, record);
    return count;
}

// The names of T's fields, in list order (column headers, for instance).
template <HasFields T>
constexpr std::array<std::string_view, field_count<T>()> field_names() {
    std::array<std::string_view, field_count<T>()> names{};
    std::size_t next = 0;
    T record{};
    fields([&](std::string_view name, auto&) { names[next++] = name; }, record);
    return names;
}

// Arrays of names joined end to end, in order.
template <std::size_t... N>
constexpr auto joined_names(const std::array<std::string_view, N>&... parts) {
    std::array<std::string_view, (N + ...)> names{};
    std::size_t next = 0;
    ((std::copy(parts.begin(), parts.end(), names.begin() + next), next += N), ...);
    return names;
}

// How many members the aggregate T has (the most initializers T{...} accepts).
template <typename T, std::size_t N = 0>
constexpr std::size_t aggregate_arity() {
    static_assert(std::is_aggregate_v<T>);
    if constexpr (detail::initializable_from<T>(std::make_index_sequence<N + 1>{})) {
        return aggregate_arity<T, N + 1>();
    } else {
        return N;
    }
}

// The check that stands beside each field list.
template <typename T>
constexpr bool lists_every_member() {
    return field_count<T>() == aggregate_arity<T>();
}

// Calls visit(name, member) for every field of `record`, descending into members that have
// field lists themselves: the flat column view of a record (an HDF5 row, a CSV line).
template <typename Record, typename Visitor>
constexpr void for_each_leaf(Record& record, Visitor&& visit) {
    fields(
        [&visit](std::string_view name, auto& member) {
            if constexpr (HasFields<
                              std::remove_const_t<std::remove_reference_t<decltype(member)>>>) {
                for_each_leaf(member, visit);
            } else {
                visit(name, member);
            }
        },
        record);
}

// Calls visit(name, member_of_a, member_of_b) for every field of two records of one type (for
// comparisons and sums). The member of `b` is found at the offset the member of `a` has.
template <typename RecordA, typename RecordB, typename Visitor>
requires std::same_as<std::remove_const_t<RecordA>, std::remove_const_t<RecordB>>
void for_each_field_pair(RecordA& a, RecordB& b, Visitor&& visit) {
    using BBytes = std::conditional_t<std::is_const_v<RecordB>, const char, char>;
    fields(
        [&](std::string_view name, auto& member_of_a) {
            using Member = std::remove_const_t<std::remove_reference_t<decltype(member_of_a)>>;
            using BMember = std::conditional_t<std::is_const_v<RecordB>, const Member, Member>;
            const auto offset = reinterpret_cast<const char*>(std::addressof(member_of_a)) -
                                reinterpret_cast<const char*>(std::addressof(a));
            auto* member_of_b =
                reinterpret_cast<BMember*>(reinterpret_cast<BBytes*>(std::addressof(b)) + offset);
            visit(name, member_of_a, *member_of_b);
        },
        a);
}

}  // namespace fhmoe
