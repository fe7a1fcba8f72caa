#include "fhmoe/config/tuned_csv_update.hpp"

#include <optional>

#include "config/posix_file.hpp"
#include "config/tuned_merge.hpp"
#include "fhmoe/config/atomic_file.hpp"
#include "fhmoe/config/file_lock.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {

TunedCsvUpdate update_tuned_csv(const std::string& path, std::span<const TunedRow> decided,
                                std::chrono::milliseconds lock_timeout) {
    // Before the lock: a bug in the caller should not make other tuners wait.
    validate_decided_rows(decided);

    FileLock lock = FileLock::acquire(path, lock_timeout);
    const std::optional<std::string> current_text = detail::read_file_if_exists(path);
    TunedTable current;
    current.path = path;
    if (current_text) current = parse_tuned_csv(path, *current_text);

    const MergeOutcome merged = merge_tuned_rows(current, decided);
    const std::string merged_text = render_tuned_csv(merged.table);
    try {
        parse_tuned_csv(path, merged_text);
    } catch (const InputError& error) {
        throw InternalError(std::string("the merged tuned CSV does not read back: ") +
                            error.what());
    }

    TunedCsvUpdate update{merged.replaced, merged.added, merged.kept, false};
    if (current_text != merged_text) {
        write_file_atomically(path, merged_text, [&lock] { lock.verify_held(); });
        update.written = true;
    }
    lock.release();
    return update;
}

}  // namespace fhmoe::config
