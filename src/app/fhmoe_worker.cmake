# fhmoe_worker: the measurement process (src/worker); the supervisor finds it next to itself.
add_executable(fhmoe_worker ${CMAKE_CURRENT_LIST_DIR}/fhmoe_worker_main.cpp)
target_link_libraries(fhmoe_worker PRIVATE fhmoe_worker_runtime fhmoe_warnings)
install(TARGETS fhmoe_worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
