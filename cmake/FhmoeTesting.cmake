# fhmoe_add_test(<name> SOURCES <files...> [MPI_SIZE <n>] [LABELS <labels...>]
#                [LIBS <targets...>] [TIMEOUT <seconds>] [ARGS <args...>])
#
# One way to add a test. Without MPI_SIZE the GoogleTest cases are discovered one by one
# (gtest_main). With MPI_SIZE n the binary links the project's MPI GoogleTest main and runs
# under `mpiexec -n n --oversubscribe` (root-safe); it is one ctest test.
# Labels in use: unit, mpi, faults, slurm, gpu. Every test gets a timeout (default 120 s).
include(GoogleTest)

# Sanitized builds run several times slower: their preset scales every test's timeout here
# rather than each test being given a looser one (tests/cluster's tuner tests use it too).
set(FHMOE_TEST_TIMEOUT_SCALE 1 CACHE STRING
  "Multiplier for every test's timeout (the asan preset sets 3)")

# fhmoe_scaled_timeout(<out_var> <seconds>): <seconds> times FHMOE_TEST_TIMEOUT_SCALE.
function(fhmoe_scaled_timeout out_var seconds)
  math(EXPR scaled "${seconds} * ${FHMOE_TEST_TIMEOUT_SCALE}")
  set(${out_var} ${scaled} PARENT_SCOPE)
endfunction()

set(FHMOE_TEST_ENVIRONMENT
  "OMPI_ALLOW_RUN_AS_ROOT=1"
  "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  "OMPI_MCA_rmaps_base_oversubscribe=1"
  "FHMOE_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
  "FHMOE_BINARY_DIR=${PROJECT_BINARY_DIR}")

function(fhmoe_add_test name)
  cmake_parse_arguments(T "" "MPI_SIZE;TIMEOUT" "SOURCES;LABELS;LIBS;ARGS" ${ARGN})
  if(NOT T_SOURCES)
    message(FATAL_ERROR "fhmoe_add_test(${name}): SOURCES is required")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  fhmoe_scaled_timeout(T_TIMEOUT ${T_TIMEOUT})
  fhmoe_scaled_timeout(discovery_timeout 60)
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE fhmoe_base ${T_LIBS} GTest::gtest GTest::gmock fhmoe_warnings)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE
    FHMOE_SOURCE_DIR="${PROJECT_SOURCE_DIR}" FHMOE_BINARY_DIR="${PROJECT_BINARY_DIR}")

  if(T_MPI_SIZE)
    target_link_libraries(${name} PRIVATE fhmoe_mpi_gtest_main MPI::MPI_CXX)
    add_test(NAME ${name}
      COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_MPI_SIZE} --oversubscribe
              --allow-run-as-root ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS}
              ${T_ARGS})
    set_tests_properties(${name} PROPERTIES
      LABELS "mpi;${T_LABELS}" TIMEOUT ${T_TIMEOUT}
      ENVIRONMENT "${FHMOE_TEST_ENVIRONMENT}" PROCESSORS ${T_MPI_SIZE})
  else()
    target_link_libraries(${name} PRIVATE GTest::gtest_main)
    if(NOT T_LABELS)
      set(T_LABELS unit)
    endif()
    gtest_discover_tests(${name}
      EXTRA_ARGS ${T_ARGS}
      DISCOVERY_TIMEOUT ${discovery_timeout}
      PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
                 ENVIRONMENT "${FHMOE_TEST_ENVIRONMENT}")
  endif()
endfunction()
