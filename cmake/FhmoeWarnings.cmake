# Warnings live in one INTERFACE target that every project target links privately, so
# consumers of the installed library never inherit them. CI turns them into errors.
option(FHMOE_WERROR "Treat compiler warnings as errors (CI sets this)" OFF)
add_library(fhmoe_warnings INTERFACE)
target_compile_options(fhmoe_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough>
  $<$<AND:$<BOOL:${FHMOE_WERROR}>,$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>>:-Werror>)

