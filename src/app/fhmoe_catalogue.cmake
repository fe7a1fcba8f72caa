# fhmoe_catalogue: prints catalogue sizes per shape and lists one shape's candidates.
add_executable(fhmoe_catalogue ${CMAKE_CURRENT_LIST_DIR}/fhmoe_catalogue_main.cpp)
target_link_libraries(fhmoe_catalogue PRIVATE fhmoe_family cxxopts::cxxopts fhmoe_warnings)
install(TARGETS fhmoe_catalogue RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
