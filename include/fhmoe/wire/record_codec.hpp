#pragma once

// The wire layout of any record with a field list (record_fields.hpp): its fields in list
// order, each as bytes.hpp writes its type. bool and enums are one byte (an enum past its
// last_enumerator is a WireError), int32/int64/uint32/uint64/double little-endian, strings
// and vector<double> a u32 count then the contents, other vectors and maps a u32 count then
// each element (a pair: first, second), records their fields. An optional is a presence
// byte, then for a number the value or 0 (always 8 bytes), for anything else the value only
// when present. The bytes are those the hand-written codecs wrote before
// (the pinned journal digests and stored journals check that).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "fhmoe/record_fields.hpp"
#include "fhmoe/wire/bytes.hpp"

namespace fhmoe::wire {

namespace detail {

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <typename T>
struct IsPair : std::false_type {};
template <typename First, typename Second>
struct IsPair<std::pair<First, Second>> : std::true_type {};

template <typename T>
struct IsMap : std::false_type {};
template <typename Key, typename Value>
struct IsMap<std::map<Key, Value>> : std::true_type {};

template <typename T>
inline constexpr bool kNoEncoding = false;

// The names from the decoded record down to a field, joined only for an error message.
struct FieldPath {
    const FieldPath* parent = nullptr;
    std::string_view name;

    std::string text() const {
        if (parent == nullptr || parent->name.empty()) return std::string(name);
        return parent->text() + " " + std::string(name);
    }
};

}  // namespace detail

// The fewest bytes a value of T takes on the wire: a decoder checks a list's count against it
// before allocating, so a corrupt count cannot ask for a huge allocation.
template <typename T>
constexpr std::size_t min_wire_bytes() {
    if constexpr (std::is_same_v<T, bool> || std::is_enum_v<T>) {
        return 1;
    } else if constexpr (std::is_arithmetic_v<T>) {
        return sizeof(T);
    } else if constexpr (std::is_same_v<T, std::string> || detail::IsVector<T>::value ||
                         detail::IsMap<T>::value) {
        return 4;
    } else if constexpr (detail::IsOptional<T>::value) {
        using Value = typename T::value_type;
        return 1 + (std::is_arithmetic_v<Value> ? sizeof(Value) : 0);
    } else if constexpr (detail::IsPair<T>::value) {
        return min_wire_bytes<std::remove_const_t<typename T::first_type>>() +
               min_wire_bytes<typename T::second_type>();
    } else if constexpr (HasFields<T>) {
        std::size_t bytes = 0;
        T record{};
        fields(
            [&bytes](std::string_view, auto& member) {
                bytes += min_wire_bytes<std::remove_cvref_t<decltype(member)>>();
            },
            record);
        return bytes;
    } else {
        static_assert(detail::kNoEncoding<T>, "no wire encoding for this type");
    }
}

template <typename T>
void put(ByteWriter& out, const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
        out.boolean(value);
    } else if constexpr (std::is_enum_v<T>) {
        out.u8(static_cast<std::uint8_t>(value));
    } else if constexpr (std::is_same_v<T, std::int32_t>) {
        out.i32(value);
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
        out.i64(value);
    } else if constexpr (std::is_same_v<T, std::uint32_t>) {
        out.u32(value);
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
        out.u64(value);
    } else if constexpr (std::is_same_v<T, double>) {
        out.f64(value);
    } else if constexpr (std::is_same_v<T, std::string>) {
        out.string(value);
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
        out.f64_vector(value);
    } else if constexpr (detail::IsVector<T>::value || detail::IsMap<T>::value) {
        out.u32(static_cast<std::uint32_t>(value.size()));
        for (const auto& element : value) put(out, element);
    } else if constexpr (detail::IsPair<T>::value) {
        put(out, value.first);
        put(out, value.second);
    } else if constexpr (detail::IsOptional<T>::value) {
        using Value = typename T::value_type;
        out.boolean(value.has_value());
        if constexpr (std::is_arithmetic_v<Value>) {
            put(out, value.value_or(Value{}));
        } else if (value) {
            put(out, *value);
        }
    } else if constexpr (HasFields<T>) {
        fields([&out](std::string_view, const auto& member) { put(out, member); }, value);
    } else {
        static_assert(detail::kNoEncoding<T>, "no wire encoding for this type");
    }
}

// Reads what put wrote into `value`; errors name the field by its path ("stage1 gate_mode").
template <typename T>
void get(ByteReader& in, T& value, const detail::FieldPath& path = {}) {
    if constexpr (std::is_same_v<T, bool>) {
        value = in.boolean();
    } else if constexpr (std::is_enum_v<T>) {
        const std::uint8_t raw = in.u8();
        if (raw > static_cast<std::uint8_t>(last_enumerator(T{}))) {
            throw WireError("bad " + path.text() + " value " + std::to_string(raw));
        }
        value = static_cast<T>(raw);
    } else if constexpr (std::is_same_v<T, std::int32_t>) {
        value = in.i32();
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
        value = in.i64();
    } else if constexpr (std::is_same_v<T, std::uint32_t>) {
        value = in.u32();
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
        value = in.u64();
    } else if constexpr (std::is_same_v<T, double>) {
        value = in.f64();
    } else if constexpr (std::is_same_v<T, std::string>) {
        value = in.string();
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
        value = in.f64_vector();
    } else if constexpr (detail::IsVector<T>::value) {
        using Element = typename T::value_type;
        value.clear();
        // An older layout's elements may be smaller than today's least: check the count
        // against one byte per element then.
        value.resize(in.count(in.has_absent_members() ? 1 : min_wire_bytes<Element>()));
        for (Element& element : value) get(in, element, path);
    } else if constexpr (detail::IsMap<T>::value) {
        using Key = typename T::key_type;
        using Mapped = typename T::mapped_type;
        value.clear();
        const std::uint32_t count = in.count(min_wire_bytes<Key>() + min_wire_bytes<Mapped>());
        for (std::uint32_t i = 0; i < count; ++i) {
            Key key{};
            get(in, key, path);
            get(in, value[std::move(key)], path);
        }
    } else if constexpr (detail::IsPair<T>::value) {
        get(in, value.first, path);
        get(in, value.second, path);
    } else if constexpr (detail::IsOptional<T>::value) {
        using Value = typename T::value_type;
        const bool present = in.boolean();
        if constexpr (std::is_arithmetic_v<Value>) {
            Value stored{};
            get(in, stored, path);
            value = present ? std::optional<Value>(stored) : std::nullopt;
        } else if (present) {
            get(in, value.emplace(), path);
        } else {
            value.reset();
        }
    } else if constexpr (HasFields<T>) {
        fields(
            [&in, &path](std::string_view name, auto& member) {
                if (in.is_absent(name)) return;  // not in the layout being read: the default
                get(in, member, detail::FieldPath{&path, name});
            },
            value);
    } else {
        static_assert(detail::kNoEncoding<T>, "no wire encoding for this type");
    }
}

template <typename T>
T get(ByteReader& in) {
    T value{};
    get(in, value);
    return value;
}

}  // namespace fhmoe::wire
