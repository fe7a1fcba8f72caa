#include "fhmoe_evidence/diff_report.hpp"

#include "fhmoe_evidence/text_table.hpp"

namespace fhmoe::evidence::cli {

void print_diff(const std::vector<Change>& changes, std::ostream& out) {
    if (changes.empty()) {
        out << "no changes\n";
        return;
    }
    TextTable table({"change", "shape", "candidate", "old", "new", "detail"});
    for (const Change& change : changes) {
        const auto or_dash = [](const std::string& text) { return text.empty() ? "-" : text; };
        table.add_row({std::string(to_string(change.kind)), change.shape, or_dash(change.candidate),
                       or_dash(change.old_value), or_dash(change.new_value),
                       or_dash(change.detail)});
    }
    table.print(out);
    out << '\n' << changes.size() << (changes.size() == 1 ? " change\n" : " changes\n");
}

}  // namespace fhmoe::evidence::cli
