# Install and export: find_package(fhmoe_tune) from an install prefix gives fhmoe::core
# (everything without MPI/HDF5), fhmoe::<area> for each area, with dependencies found again.
include(CMakePackageConfigHelpers)
set_target_properties(fhmoe_warnings PROPERTIES EXPORT_NAME warnings)
install(TARGETS fhmoe_core fhmoe_warnings ${FHMOE_AREA_LIBRARIES}
  EXPORT fhmoe_tuneTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/fhmoe DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY kernels/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
install(EXPORT fhmoe_tuneTargets NAMESPACE fhmoe::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fhmoe_tune)
configure_package_config_file(cmake/fhmoe_tuneConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/fhmoe_tuneConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fhmoe_tune)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/fhmoe_tuneConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fhmoe_tuneConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/fhmoe_tuneConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fhmoe_tune)
install(DIRECTORY configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fhmoe_tune/configs)
