// Uses the installed library the way an outside project would.
#include <cstdio>

#include "fhmoe/family/shape.hpp"
#include "fhmoe/tuning/status.hpp"
#include "fhmoe/version.hpp"

int main() {
    const auto status = fhmoe::tuning::status_from_string("oom_preflight");
    const bool ok =
        fhmoe::family::padded_token(3) == 4 && fhmoe::tuning::to_string(status) == "oom_preflight";
    std::printf("consumer of fhmoe %s: %s\n", std::string(fhmoe::version()).c_str(),
                ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
