# fhmoe_run_shape: one shape's candidates through one supervised worker (issue #5). Its
# command is a library (tools/fhmoe_run_shape) so the tests drive it with argv vectors; the
# executable is only the main.
add_library(fhmoe_run_shape_cli STATIC
  ${PROJECT_SOURCE_DIR}/tools/fhmoe_run_shape/run_shape_cli.cpp)
target_include_directories(fhmoe_run_shape_cli PUBLIC ${PROJECT_SOURCE_DIR}/tools)
target_link_libraries(fhmoe_run_shape_cli PUBLIC fhmoe_base
                      PRIVATE fhmoe_supervisor fhmoe_worker_protocol fhmoe_config fhmoe_family
                      fhmoe_tuning cxxopts::cxxopts fhmoe_warnings)

add_executable(fhmoe_run_shape ${CMAKE_CURRENT_LIST_DIR}/fhmoe_run_shape_main.cpp)
target_link_libraries(fhmoe_run_shape PRIVATE fhmoe_run_shape_cli fhmoe_warnings)
add_dependencies(fhmoe_run_shape fhmoe_worker)  # it starts fhmoe_worker from its own directory
install(TARGETS fhmoe_run_shape RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
