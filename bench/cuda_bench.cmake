# The GPU benchmarks: built only with a CUDA compiler, from the library and
# the CUDA toolkit alone (no apps, cmocka or Debian packages), so that
# -DHL_GPU_ONLY=ON (scripts/gpu-check.sh) builds them too.  Each exits 77
# without a device.
if(CMAKE_CUDA_COMPILER)
  add_executable(bench_gpu_transforms gpu_transforms.cu)
  set_target_properties(bench_gpu_transforms PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_compile_options(bench_gpu_transforms PRIVATE --Werror=all-warnings
    -Xcompiler=-Wall,-Wextra)
  target_link_libraries(bench_gpu_transforms PRIVATE bench_harness hyperlayout_static hl_cuda_sanitize)
  # The chains of bench_chains (bench/chains_list.h) on the device: fused
  # against op by op and k device-to-device copies, checked against hl_execute.
  add_executable(bench_gpu_chains gpu_chains.cu)
  set_target_properties(bench_gpu_chains PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_compile_options(bench_gpu_chains PRIVATE --Werror=all-warnings -Xcompiler=-Wall,-Wextra)
  target_link_libraries(bench_gpu_chains PRIVATE bench_harness hyperlayout_static hl_cuda_sanitize)

  # bench_gpu_librett: LibreTT (cuTT's successor) on bench_gpu_transforms'
  # transpose rows, for bench/gpu_vs_cupy.py's LibreTT column.  Only with a
  # LibreTT built beside the project (scripts/peer-librett.sh: lib/librett.a,
  # include/librett/librett.h), named by -DHL_LIBRETT_DIR or found in
  # .gpu-deps/librett; never downloaded or vendored.  Without one, nothing
  # changes.
  option(HL_LIBRETT "Build bench_gpu_librett where a built LibreTT is found" ON)
  set(HL_LIBRETT_DIR "" CACHE PATH
    "A LibreTT built by scripts/peer-librett.sh (lib/librett.a, include/librett/librett.h)")
  set(hl_librett_dir "${HL_LIBRETT_DIR}")
  if(NOT hl_librett_dir AND EXISTS "${PROJECT_SOURCE_DIR}/.gpu-deps/librett/lib/librett.a")
    set(hl_librett_dir "${PROJECT_SOURCE_DIR}/.gpu-deps/librett")
  endif()
  if(HL_LIBRETT AND hl_librett_dir)
    if(EXISTS "${hl_librett_dir}/lib/librett.a"
       AND EXISTS "${hl_librett_dir}/include/librett/librett.h")
      add_executable(bench_gpu_librett gpu_librett.cu)
      set_target_properties(bench_gpu_librett PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
      target_compile_options(bench_gpu_librett PRIVATE --Werror=all-warnings
        -Xcompiler=-Wall,-Wextra)
      target_compile_definitions(bench_gpu_librett PRIVATE LIBRETT_USES_CUDA)
      target_include_directories(bench_gpu_librett SYSTEM PRIVATE "${hl_librett_dir}/include")
      target_link_libraries(bench_gpu_librett PRIVATE bench_harness hyperlayout_static "${hl_librett_dir}/lib/librett.a"
        hl_cuda_sanitize)
      message(STATUS "bench_gpu_librett: LibreTT in ${hl_librett_dir}")
    else()
      message(WARNING "HL_LIBRETT_DIR=${hl_librett_dir} has no lib/librett.a and "
        "include/librett/librett.h: build it there with scripts/peer-librett.sh; no bench_gpu_librett")
    endif()
  else()
    message(STATUS "bench_gpu_librett: not built (no LibreTT: scripts/peer-librett.sh stages one)")
  endif()
endif()

# bench_gpu_stencil: the stencil of seed 004 with thread blocks as workers and
# shared memory as the scratchpad (apps/stencil/stencil_gpu.cu), cached and
# direct, against a device-to-device copy; checked against the CPU reference.
if(CMAKE_CUDA_COMPILER AND TARGET stencil)
  add_executable(bench_gpu_stencil gpu_stencil.cu)
  set_target_properties(bench_gpu_stencil PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_compile_options(bench_gpu_stencil PRIVATE --Werror=all-warnings -Xcompiler=-Wall,-Wextra)
  target_link_libraries(bench_gpu_stencil PRIVATE bench_harness stencil hl_cuda_sanitize)
endif()
