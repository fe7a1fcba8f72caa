# FHMOE_GPU_BACKEND: which device backend is compiled in, besides the always-present
# cpu and sim backends. A validated cache enum (AMReX/Kokkos style): a typo is a
# configure error, never a silent CPU-only build.
set(FHMOE_GPU_BACKEND_VALUES NONE CUDA HIP)
set(FHMOE_GPU_BACKEND "NONE" CACHE STRING
    "Device backend compiled in besides cpu and sim: one of ${FHMOE_GPU_BACKEND_VALUES}")
set_property(CACHE FHMOE_GPU_BACKEND PROPERTY STRINGS ${FHMOE_GPU_BACKEND_VALUES})
if(NOT FHMOE_GPU_BACKEND IN_LIST FHMOE_GPU_BACKEND_VALUES)
  list(JOIN FHMOE_GPU_BACKEND_VALUES "|" _fhmoe_allowed)
  message(FATAL_ERROR
    "FHMOE_GPU_BACKEND='${FHMOE_GPU_BACKEND}' is not valid; allowed values: ${_fhmoe_allowed}")
endif()
message(STATUS "fhmoe: FHMOE_GPU_BACKEND=${FHMOE_GPU_BACKEND}")
if(FHMOE_GPU_BACKEND STREQUAL "CUDA")
  enable_language(CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # 90a: the warpgroup matrix instruction (wgmma) of stage1's K loop exists only there.
    set(CMAKE_CUDA_ARCHITECTURES 90a)
  endif()
  # CMake 3.25 predates nvcc 13 and knows no flag for its C++20 dialect, so it would refuse
  # (or silently not request) C++20 for the device sources: tell it.
  foreach(_fhmoe_std 17 20)
    if(NOT CMAKE_CUDA${_fhmoe_std}_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA${_fhmoe_std}_STANDARD_COMPILE_OPTION "-std=c++${_fhmoe_std}")
      set(CMAKE_CUDA${_fhmoe_std}_EXTENSION_COMPILE_OPTION "-std=c++${_fhmoe_std}")
    endif()
  endforeach()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
elseif(FHMOE_GPU_BACKEND STREQUAL "HIP")
  enable_language(HIP)
endif()
