# Install and export: find_package(fhmoe_tune) from an install prefix gives fhmoe::core
# (everything without MPI/HDF5), fhmoe::<area> for each area, with dependencies found again.
include(CMakePackageConfigHelpers)
set_target_properties(fhmoe_warnings PROPERTIES EXPORT_NAME warnings)
install(TARGETS fhmoe_core fhmoe_warnings ${FHMOE_AREA_LIBRARIES}
  EXPORT fhmoe_tuneTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Only include/fhmoe: the kernels' own headers (kernels/common, cpu, gpu, ...) are private to
# the libraries, and no public header includes them.
install(DIRECTORY include/fhmoe DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT fhmoe_tuneTargets NAMESPACE fhmoe::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fhmoe_tune)
# The serial HDF5 found for this build, for the config (it cannot run FindHDF5: see there).
set(FHMOE_HDF5_INCLUDE_DIRS ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
list(REMOVE_DUPLICATES FHMOE_HDF5_INCLUDE_DIRS)
set(FHMOE_HDF5_LIBRARIES ${HDF5_C_LIBRARIES})
string(REGEX REPLACE "(^|;)-D" "\\1" FHMOE_HDF5_DEFINITIONS "${HDF5_C_DEFINITIONS}")
configure_package_config_file(cmake/fhmoe_tuneConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/fhmoe_tuneConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fhmoe_tune)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/fhmoe_tuneConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fhmoe_tuneConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/fhmoe_tuneConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fhmoe_tune)
install(DIRECTORY configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fhmoe_tune/configs)
# The Slurm scripts where docs/operations.md runs them (<prefix>/slurm/nightly_retune.sbatch;
# they find the programs on PATH or through FHMOE_BIN_DIR), and the plotting tool beside the
# programs.
install(PROGRAMS slurm/fhmoe_tune.sbatch slurm/nightly_retune.sbatch slurm/submit.sh
  DESTINATION slurm)
install(PROGRAMS tools/plot_evidence.py tools/evidence_frames.py DESTINATION ${CMAKE_INSTALL_BINDIR})
