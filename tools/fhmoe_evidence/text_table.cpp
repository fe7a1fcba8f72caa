#include "fhmoe_evidence/text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fhmoe/error.hpp"

namespace fhmoe::evidence::cli {

TextTable::TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void TextTable::add_row(std::vector<std::string> cells) {
    FHMOE_CHECK(cells.size() == rows_.front().size(), "a table row has as many cells as columns");
    // A detail text with line breaks would tear the table apart.
    for (std::string& cell : cells) std::replace(cell.begin(), cell.end(), '\n', ' ');
    rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out) const {
    std::vector<std::size_t> widths(rows_.front().size(), 0);
    for (const auto& row : rows_) {
        for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    }
    for (const auto& row : rows_) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            // The last column is left unpadded so lines carry no trailing blanks.
            if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
        }
        out << line << '\n';
    }
}

std::string fixed_or_dash(double value, int decimals) {
    if (std::isnan(value)) return "-";
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

}  // namespace fhmoe::evidence::cli
