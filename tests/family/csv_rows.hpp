#pragma once

// A minimal reader for the family tests' CSV fixtures (the project's real reader lives in
// src/config): plain comma-separated cells, no quoting, first line the header.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fhmoe/family/shape.hpp"

namespace fhmoe::family::test {

struct CsvTable {
    std::vector<std::string> header;
    std::vector<std::map<std::string, std::string>> rows;
};

inline std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    for (char c : line) {
        if (c == ',') {
            cells.push_back(cell);
            cell.clear();
        } else if (c != '\r') {
            cell += c;
        }
    }
    cells.push_back(cell);
    return cells;
}

inline CsvTable read_csv(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << "cannot open " << path;
    CsvTable table;
    std::string line;
    if (!std::getline(in, line)) return table;
    table.header = split_csv_line(line);
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const std::vector<std::string> cells = split_csv_line(line);
        EXPECT_EQ(cells.size(), table.header.size()) << path << ": " << line;
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < cells.size() && i < table.header.size(); ++i) {
            row[table.header[i]] = cells[i];
        }
        table.rows.push_back(row);
    }
    return table;
}

// The shape key of a row, with every field parsed by shape.hpp's parsers.
inline ShapeKey shape_of_row(const std::map<std::string, std::string>& row) {
    const auto integer = [&](const char* column) { return std::stoll(row.at(column)); };
    ShapeKey shape;
    shape.token = integer("token");
    shape.model_dim = integer("model_dim");
    shape.inter_dim = integer("inter_dim");
    shape.expert = integer("expert");
    shape.topk = integer("topk");
    shape.shared_expert_id = integer("shared_expert_id");
    shape.act_type = parse_act_type(row.at("act_type"));
    shape.dtype = parse_dtype(row.at("dtype"));
    shape.q_dtype_a = parse_qdtype(row.at("q_dtype_a"));
    shape.q_dtype_w = parse_qdtype(row.at("q_dtype_w"));
    shape.q_type = parse_qtype(row.at("q_type"));
    shape.use_g1u1 = static_cast<int>(integer("use_g1u1"));
    shape.doweight_stage1 = static_cast<int>(integer("doweight_stage1"));
    shape.hidden_pad = integer("hidden_pad");
    shape.intermediate_pad = integer("intermediate_pad");
    shape.gate_mode = parse_gate_mode(row.at("gate_mode"));
    return shape;
}

inline std::string source_path(const std::string& relative) {
    return std::string(FHMOE_SOURCE_DIR) + "/" + relative;
}

inline std::vector<ShapeKey> shipped_shapes() {
    std::vector<ShapeKey> shapes;
    for (const char* file : {"configs/untuned_fhmoe.csv", "configs/untuned_fhmoe_small.csv"}) {
        for (const auto& row : read_csv(source_path(file)).rows) {
            shapes.push_back(shape_of_row(row));
        }
    }
    return shapes;
}

}  // namespace fhmoe::family::test
