#include "fhmoe_evidence/evidence_cli.hpp"

#include <cxxopts.hpp>

#include <optional>

#include "fhmoe/cluster/run_evidence_builder.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/csv_export.hpp"
#include "fhmoe/evidence/evidence_diff.hpp"
#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/exit_code.hpp"
#include "fhmoe/version.hpp"
#include "fhmoe_evidence/diff_report.hpp"
#include "fhmoe_evidence/summary_report.hpp"

namespace fhmoe::evidence::cli {
namespace {

constexpr const char* kUsage =
    "usage: fhmoe_evidence <command> ... (fhmoe_evidence <command> --help: that command's "
    "flags;\n"
    "       fhmoe_evidence --version)\n"
    "  summary FILE                   per-shape table: status counts, decision, margin, what is\n"
    "                                 published, incumbent and best challenger\n"
    "  show FILE --shape KEY          every candidate of one shape (KEY: shape_key or\n"
    "                                 gfx/cu_num/shape_key)\n"
    "  diff OLD NEW [--min-pct P] [--sigmas S]\n"
    "                                 night-to-night changes; exit 0 none, 1 some\n"
    "  export FILE --csv DIR          one CSV per table into DIR\n"
    "  rebuild JOURNAL --out FILE     the archive from a run journal alone (after a crash, or\n"
    "                                 to check an archive); a torn last record is ignored\n";

// A command line the user got wrong: exit 2 with the message and the usage.
class UsageError : public Error {
public:
    using Error::Error;
};

// A command's own flags, with the help every command has. `synopsis` is the usage line's
// arguments, `description` what the command does.
cxxopts::Options command_options(const std::string& command, const std::string& synopsis,
                                 const std::string& description) {
    cxxopts::Options options("fhmoe_evidence " + command, description);
    options.custom_help("").positional_help(synopsis);
    options.add_options()("h,help", "print this command's help");
    return options;
}

// The command's parsed flags, or nullopt after printing its help (--help anywhere wins over a
// missing argument, as a user asking how to call it has not called it yet).
std::optional<cxxopts::ParseResult> parse(const std::string& command,
                                          const std::vector<std::string>& args,
                                          cxxopts::Options& options,
                                          const std::vector<std::string>& positional,
                                          std::ostream& out) {
    options.parse_positional(positional);
    std::vector<std::string> argv_text = {"fhmoe_evidence " + command};
    argv_text.insert(argv_text.end(), args.begin() + 1, args.end());
    std::vector<char*> argv;
    for (std::string& text : argv_text) argv.push_back(text.data());
    cxxopts::ParseResult result = options.parse(static_cast<int>(argv.size()), argv.data());
    if (result.count("help") != 0) {
        out << options.help();
        return std::nullopt;
    }
    if (!result.unmatched().empty()) {
        throw UsageError(command + ": unexpected argument '" + result.unmatched().front() + "'");
    }
    for (const std::string& name : positional) {
        if (result.count(name) == 0) throw UsageError(command + ": missing " + name);
    }
    return result;
}

int summary(const std::vector<std::string>& args, std::ostream& out) {
    cxxopts::Options options = command_options(
        "summary", "FILE",
        "Per shape of the archive FILE: status counts, decision, margin and bar, the "
        "incumbent's and the best challenger's race times, which one is published.");
    options.add_options()("file", "archive", cxxopts::value<std::string>());
    const auto parsed = parse("summary", args, options, {"file"}, out);
    if (!parsed) return to_int(ExitCode::all_decided);
    print_summary(read_archive((*parsed)["file"].as<std::string>()), out);
    return to_int(ExitCode::all_decided);
}

int show(const std::vector<std::string>& args, std::ostream& out) {
    cxxopts::Options options = command_options(
        "show", "FILE --shape KEY",
        "One shape of the archive FILE: its decision, what is published, the race times of the "
        "incumbent and the best challenger, and every candidate's screening time.");
    options.add_options()("file", "archive", cxxopts::value<std::string>())(
        "shape", "shape_key or gfx/cu_num/shape_key (fhmoe_evidence summary lists them)",
        cxxopts::value<std::string>());
    const auto parsed = parse("show", args, options, {"file"}, out);
    if (!parsed) return to_int(ExitCode::all_decided);
    if (parsed->count("shape") == 0) throw UsageError("show: missing --shape KEY");
    const std::string file = (*parsed)["file"].as<std::string>();
    const std::string shape = (*parsed)["shape"].as<std::string>();
    if (!print_shape(read_archive(file), shape, out)) {
        throw UsageError("show: no shape '" + shape + "' in '" + file +
                         "' (fhmoe_evidence summary lists them)");
    }
    return to_int(ExitCode::all_decided);
}

int diff(const std::vector<std::string>& args, std::ostream& out) {
    const DiffOptions defaults;
    cxxopts::Options options = command_options(
        "diff", "OLD NEW [--min-pct P] [--sigmas S]",
        "Night-to-night changes from archive OLD to NEW, one line each: shapes added or "
        "removed, decisions, the published candidate and its time, the best challenger, new "
        "failures. Exit status 0: no change, 1: changes.");
    options.add_options()("old", "last night's archive", cxxopts::value<std::string>())(
        "new", "tonight's archive", cxxopts::value<std::string>())(
        "min-pct", "smallest published time change reported, percent",
        cxxopts::value<double>()->default_value(std::to_string(defaults.min_pct)))(
        "sigmas", "combined standard errors a time change must exceed",
        cxxopts::value<double>()->default_value(std::to_string(defaults.sigmas)));
    const auto parsed = parse("diff", args, options, {"old", "new"}, out);
    if (!parsed) return to_int(ExitCode::all_decided);
    DiffOptions diff_options;
    diff_options.min_pct = (*parsed)["min-pct"].as<double>();
    diff_options.sigmas = (*parsed)["sigmas"].as<double>();
    if (!(diff_options.min_pct >= 0.0) || !(diff_options.sigmas >= 0.0)) {
        throw UsageError("diff: --min-pct and --sigmas must be non-negative numbers");
    }
    const RunEvidence old_run = read_archive((*parsed)["old"].as<std::string>());
    const RunEvidence new_run = read_archive((*parsed)["new"].as<std::string>());
    const std::vector<Change> changes = diff_evidence(old_run, new_run, diff_options);
    print_diff(changes, out);
    return changes.empty() ? 0 : 1;
}

int export_tables(const std::vector<std::string>& args, std::ostream& out) {
    cxxopts::Options options = command_options(
        "export", "FILE --csv DIR",
        "Every table of the archive FILE as one CSV file in DIR (provenance, policy, ranks, "
        "shapes, candidates, race, decisions), enums by name.");
    options.add_options()("file", "archive", cxxopts::value<std::string>())(
        "csv", "output directory", cxxopts::value<std::string>());
    const auto parsed = parse("export", args, options, {"file"}, out);
    if (!parsed) return to_int(ExitCode::all_decided);
    if (parsed->count("csv") == 0) throw UsageError("export: missing --csv DIR");
    const RunEvidence evidence = read_archive((*parsed)["file"].as<std::string>());
    for (const std::string& path : export_csv(evidence, (*parsed)["csv"].as<std::string>())) {
        out << path << '\n';
    }
    return to_int(ExitCode::all_decided);
}

// The tuner writes its archive with the same fold of its journal (run_evidence_builder.hpp),
// so a rebuild of a finished run's journal equals the archive written at its end, and a
// rebuild of a killed run's journal is the evidence the run had journaled when it died.
int rebuild(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    cxxopts::Options options = command_options(
        "rebuild", "JOURNAL --out FILE",
        "The evidence archive of the run recorded in JOURNAL (fhmoe_tune_mpi --journal), from "
        "the journal alone; a torn last record is ignored with a warning.");
    options.add_options()("journal", "run journal", cxxopts::value<std::string>())(
        "out", "archive to write", cxxopts::value<std::string>());
    const auto parsed = parse("rebuild", args, options, {"journal"}, out);
    if (!parsed) return to_int(ExitCode::all_decided);
    if (parsed->count("out") == 0) throw UsageError("rebuild: missing --out FILE");
    const std::string journal_path = (*parsed)["journal"].as<std::string>();
    const JournalContents journal = read_journal(journal_path);
    if (journal.torn_tail_bytes > 0) {
        err << "fhmoe_evidence: " << journal_path << ": ignoring a torn last record ("
            << journal.torn_tail_bytes << " bytes: " << journal.torn_tail_reason << ")\n";
    }
    const RunEvidence evidence = cluster::build_run_evidence(journal);
    const std::string archive = (*parsed)["out"].as<std::string>();
    write_archive(archive, evidence);
    out << archive << ": " << evidence.shapes.size() << " shapes, " << evidence.candidates.size()
        << " candidates, " << evidence.race.size() << " race samples, " << evidence.decisions.size()
        << " decisions" << (evidence.provenance.complete ? "" : " (the run did not finish)")
        << '\n';
    return to_int(ExitCode::all_decided);
}

}  // namespace

int run_evidence_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    try {
        if (args.empty()) throw UsageError("no command given");
        const std::string& command = args.front();
        if (command == "-h" || command == "--help") {
            out << kUsage;
            return to_int(ExitCode::all_decided);
        }
        if (command == "--version") {
            out << version_line("fhmoe_evidence") << '\n';
            return to_int(ExitCode::all_decided);
        }
        // `help COMMAND` is `COMMAND --help`; a bare `help` the overview.
        if (command == "help") {
            if (args.size() == 1) {
                out << kUsage;
                return to_int(ExitCode::all_decided);
            }
            return run_evidence_cli({args[1], "--help"}, out, err);
        }
        if (command == "summary") return summary(args, out);
        if (command == "show") return show(args, out);
        if (command == "diff") return diff(args, out);
        if (command == "export") return export_tables(args, out);
        if (command == "rebuild") return rebuild(args, out, err);
        throw UsageError("unknown command '" + command + "'");
    } catch (const UsageError& error) {
        err << "fhmoe_evidence: " << error.what() << '\n' << kUsage;
        return to_int(ExitCode::bad_input);
    } catch (const cxxopts::exceptions::exception& error) {
        err << "fhmoe_evidence: " << error.what() << '\n' << kUsage;
        return to_int(ExitCode::bad_input);
    } catch (const InternalError& error) {
        err << "fhmoe_evidence: internal error: " << error.what() << '\n';
        return to_int(ExitCode::internal_error);
    } catch (const Error& error) {
        // Archives are the user's input: a missing, damaged or foreign file is bad input.
        err << "fhmoe_evidence: " << error.what() << '\n';
        return to_int(ExitCode::bad_input);
    }
}

}  // namespace fhmoe::evidence::cli
