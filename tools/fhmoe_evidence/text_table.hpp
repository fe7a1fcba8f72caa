#pragma once

// A plain-text table with columns as wide as their widest cell, for terminal reports.

#include <ostream>
#include <string>
#include <vector>

namespace fhmoe::evidence::cli {

class TextTable {
public:
    explicit TextTable(std::vector<std::string> header);
    void add_row(std::vector<std::string> cells);
    void print(std::ostream& out) const;

private:
    std::vector<std::vector<std::string>> rows_;
};

// "12.345" for a present value, "-" for an absent (NaN) one.
std::string fixed_or_dash(double value, int decimals);

}  // namespace fhmoe::evidence::cli
