# fhmoe_add_library(<area> SOURCES <files...> [DEPS <targets...>] [PRIVATE_DEPS <targets...>])
#
# One static library per area (DESIGN.md section 6), named fhmoe_<area> with the alias
# fhmoe::<area>. The link graph is the dependency rule of the design: an area can only use
# what it names in DEPS, so "src/tuning knows nothing of MPI, files or GPUs" is enforced by
# the build, not by review.
set(FHMOE_AREA_LIBRARIES "" CACHE INTERNAL "")

function(fhmoe_add_library area)
  cmake_parse_arguments(L "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(target fhmoe_${area})
  add_library(${target} STATIC ${L_SOURCES})
  add_library(fhmoe::${area} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${area} POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target}
    PUBLIC
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/kernels>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${target} PUBLIC ${L_DEPS} PRIVATE ${L_PRIVATE_DEPS} $<BUILD_INTERFACE:fhmoe_warnings>)
  set(FHMOE_AREA_LIBRARIES ${FHMOE_AREA_LIBRARIES} ${target} CACHE INTERNAL "")
endfunction()
