// fhmoe_catalogue: how many candidates each shape offers (per block_m and in total), or the
// candidates of one shape (`--list --token N`, optionally `--candidate-sample N --seed S`).
// Without dimension flags it uses the built-in DSV4 I384 shapes.

#include <cxxopts.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/exit_code.hpp"
#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/catalogue_sample.hpp"
#include "fhmoe/family/catalogue_table.hpp"
#include "fhmoe/family/legality.hpp"
#include "fhmoe/version.hpp"

namespace {

using fhmoe::family::ShapeKey;

ShapeKey shape_from_flags(const cxxopts::ParseResult& args, std::int64_t token) {
    std::string gate = args["gate_mode"].as<std::string>();
    if (gate.find('.') == std::string::npos) gate = "GateMode." + gate;
    ShapeKey shape = fhmoe::family::dsv4_i384_shape(token, fhmoe::family::parse_gate_mode(gate));
    shape.model_dim = args["model_dim"].as<std::int64_t>();
    shape.inter_dim = args["inter_dim"].as<std::int64_t>();
    shape.expert = args["expert"].as<std::int64_t>();
    shape.topk = args["topk"].as<std::int64_t>();
    shape.shared_expert_id = shape.expert - 1;
    return shape;
}

int run(int argc, char** argv) {
    const ShapeKey dsv4 = fhmoe::family::dsv4_i384_shape(1);
    cxxopts::Options options("fhmoe_catalogue",
                             "FHMoE candidate catalogue sizes per shape, or one shape's list");
    options.add_options()  //
        ("tokens", "tokens of the shapes in the table",
         cxxopts::value<std::vector<std::int64_t>>()->default_value(
             "1,2,4,8,16,32,64,128,256,512,1024,2048"))  //
        ("model_dim", "H",
         cxxopts::value<std::int64_t>()->default_value(std::to_string(dsv4.model_dim)))  //
        ("inter_dim", "I",
         cxxopts::value<std::int64_t>()->default_value(std::to_string(dsv4.inter_dim)))  //
        ("expert", "E (routed experts + the shared expert's dummy row)",
         cxxopts::value<std::int64_t>()->default_value(std::to_string(dsv4.expert)))  //
        ("topk", "routed slots + 1",
         cxxopts::value<std::int64_t>()->default_value(std::to_string(dsv4.topk)))  //
        ("gate_mode", "INTERLEAVE or SEPARATED",
         cxxopts::value<std::string>()->default_value("INTERLEAVE"))      //
        ("list", "list the candidates of the shape at --token")           //
        ("token", "the token of --list", cxxopts::value<std::int64_t>())  //
        ("candidate-sample", "with --list: a seeded sample of this many candidates",
         cxxopts::value<std::size_t>())  //
        ("seed", "seed of --candidate-sample",
         cxxopts::value<std::uint64_t>()->default_value("0"))  //
        ("h,help", "print this help")                          //
        ("version", "print the version and exit");
    const cxxopts::ParseResult args = options.parse(argc, argv);
    if (!args.unmatched().empty()) {
        throw fhmoe::ParseError("unexpected argument '" + args.unmatched().front() + "'");
    }
    if (args.count("version") != 0) {
        std::printf("%s\n", fhmoe::version_line("fhmoe_catalogue").c_str());
        return fhmoe::to_int(fhmoe::ExitCode::all_decided);
    }
    if (args.count("help") != 0) {
        std::fputs(options.help().c_str(), stdout);
        return fhmoe::to_int(fhmoe::ExitCode::all_decided);
    }
    if (args.count("list") != 0) {
        if (args.count("token") == 0) throw fhmoe::ParseError("--list needs --token N");
        const ShapeKey shape = shape_from_flags(args, args["token"].as<std::int64_t>());
        const auto candidates = args.count("candidate-sample") != 0
                                    ? fhmoe::family::sample_shape_catalogue(
                                          shape, args["candidate-sample"].as<std::size_t>(),
                                          args["seed"].as<std::uint64_t>())
                                    : fhmoe::family::build_catalogue(shape);
        std::fputs(fhmoe::family::format_candidate_list(shape, candidates).c_str(), stdout);
        return fhmoe::to_int(fhmoe::ExitCode::all_decided);
    }
    std::vector<ShapeKey> shapes;
    for (std::int64_t token : args["tokens"].as<std::vector<std::int64_t>>()) {
        shapes.push_back(shape_from_flags(args, token));
    }
    std::fputs(fhmoe::family::format_catalogue_table(shapes).c_str(), stdout);
    return fhmoe::to_int(fhmoe::ExitCode::all_decided);
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const cxxopts::exceptions::exception& error) {
        std::fprintf(stderr, "fhmoe_catalogue: %s\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::bad_input);
    } catch (const fhmoe::ParseError& error) {
        std::fprintf(stderr, "fhmoe_catalogue: %s\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::bad_input);
    } catch (const fhmoe::family::UnsupportedShape& error) {
        std::fprintf(stderr, "fhmoe_catalogue: %s\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::bad_input);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "fhmoe_catalogue: internal error: %s\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::internal_error);
    }
}
