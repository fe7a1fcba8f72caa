# fhmoe_evidence: the offline evidence tool (tools/fhmoe_evidence). Its commands are a
# library so the tests drive them with argv vectors; the executable is only the main.
# The target is fhmoe_evidence_tool because fhmoe_evidence is the library of src/evidence;
# the program is still called fhmoe_evidence.
add_library(fhmoe_evidence_cli STATIC
  ${PROJECT_SOURCE_DIR}/tools/fhmoe_evidence/evidence_cli.cpp
  ${PROJECT_SOURCE_DIR}/tools/fhmoe_evidence/summary_report.cpp
  ${PROJECT_SOURCE_DIR}/tools/fhmoe_evidence/diff_report.cpp
  ${PROJECT_SOURCE_DIR}/tools/fhmoe_evidence/text_table.cpp)
target_include_directories(fhmoe_evidence_cli PUBLIC ${PROJECT_SOURCE_DIR}/tools)
# fhmoe_run_state, not fhmoe_cluster: `rebuild` folds a journal exactly as the tuner does,
# without linking MPI.
target_link_libraries(fhmoe_evidence_cli PUBLIC fhmoe_evidence PRIVATE fhmoe_run_state
                      fhmoe_journal cxxopts::cxxopts fhmoe_warnings)

add_executable(fhmoe_evidence_tool fhmoe_evidence_main.cpp)
set_target_properties(fhmoe_evidence_tool PROPERTIES OUTPUT_NAME fhmoe_evidence)
target_link_libraries(fhmoe_evidence_tool PRIVATE fhmoe_evidence_cli fhmoe_warnings)
install(TARGETS fhmoe_evidence_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
