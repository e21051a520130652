# The GPU benchmarks: built only with a CUDA compiler, from the library and
# the CUDA toolkit alone (no apps, cmocka or Debian packages), so that
# -DHL_GPU_ONLY=ON (scripts/gpu-check.sh) builds them too.  Each exits 77
# without a device.
if(CMAKE_CUDA_COMPILER)
  add_executable(bench_gpu_transforms gpu_transforms.cu)
  set_target_properties(bench_gpu_transforms PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_compile_options(bench_gpu_transforms PRIVATE --Werror=all-warnings
    -Xcompiler=-Wall,-Wextra)
  target_link_libraries(bench_gpu_transforms PRIVATE hyperlayout hl_cuda_sanitize)
  # The chains of bench_chains (bench/chains_list.h) on the device: fused
  # against op by op and k device-to-device copies, checked against hl_execute.
  add_executable(bench_gpu_chains gpu_chains.cu)
  set_target_properties(bench_gpu_chains PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_compile_options(bench_gpu_chains PRIVATE --Werror=all-warnings -Xcompiler=-Wall,-Wextra)
  target_link_libraries(bench_gpu_chains PRIVATE hyperlayout hl_cuda_sanitize)
endif()

# bench_gpu_stencil: the stencil of seed 004 with thread blocks as workers and
# shared memory as the scratchpad (apps/stencil/stencil_gpu.cu), cached and
# direct, against a device-to-device copy; checked against the CPU reference.
if(CMAKE_CUDA_COMPILER AND TARGET stencil)
  add_executable(bench_gpu_stencil gpu_stencil.cu)
  set_target_properties(bench_gpu_stencil PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_compile_options(bench_gpu_stencil PRIVATE --Werror=all-warnings -Xcompiler=-Wall,-Wextra)
  target_link_libraries(bench_gpu_stencil PRIVATE stencil hl_cuda_sanitize)
endif()
