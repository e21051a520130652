# The CUDA tests: built only with nvcc, none of them needs cmocka, the apps
# or anything outside the library and the CUDA toolkit.  Included from
# tests/CMakeLists.txt in every configuration, HL_GPU_ONLY's included.

# kindex.h compiled as CUDA and run on a GPU; skipped (exit 77) without one.
if(CMAKE_CUDA_COMPILER)
  add_executable(test_kindex_cuda kindex_cuda.cu)
  target_include_directories(test_kindex_cuda PRIVATE ${PROJECT_SOURCE_DIR}/include)
  add_test(NAME test_kindex_cuda COMMAND test_kindex_cuda)
  set_tests_properties(test_kindex_cuda PROPERTIES LABELS cuda SKIP_RETURN_CODE 77 TIMEOUT 120)
  # hl_execute_cuda against hl_execute on >= 1,000 random plans; skipped
  # (exit 77) without a device.
  add_executable(test_cuda_exec test_cuda_exec.cu)
  set_target_properties(test_cuda_exec PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_link_libraries(test_cuda_exec PRIVATE hyperlayout hl_cuda_sanitize)
  target_include_directories(test_cuda_exec PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  add_test(NAME test_cuda_exec COMMAND test_cuda_exec)
  set_tests_properties(test_cuda_exec PROPERTIES LABELS cuda SKIP_RETURN_CODE 77 TIMEOUT 600)
  if(HL_SANITIZE)
    # the CUDA driver maps memory where ASan's shadow gap would be
    set_tests_properties(test_cuda_exec PROPERTIES ENVIRONMENT "ASAN_OPTIONS=protect_shadow_gap=0")
  endif()
endif()

# The public headers as CUDA C++ against the shared libhyperlayout (host code
# only, runs without a GPU); cxx_link, in tests/CMakeLists.txt, is its C++ twin.
if(CMAKE_CUDA_COMPILER)
  add_executable(cuda_link cuda_link.cu)
  set_target_properties(cuda_link PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  # -pedantic would reject the line directives of nvcc's own generated code.
  target_compile_options(cuda_link PRIVATE --Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror)
  target_link_libraries(cuda_link PRIVATE hyperlayout hl_cuda_sanitize)
  add_test(NAME cuda_link COMMAND cuda_link)
  set_tests_properties(cuda_link PROPERTIES LABELS "link;cuda" TIMEOUT 60)
endif()

# bench_gpu_paper --quick: every kernel checked against hl_execute on small
# shapes and on the smoke run's meshes (it stops with exit 2 on a difference);
# skipped (exit 77) without a device.
if(TARGET bench_gpu_paper)
  add_test(NAME bench_gpu_paper_quick COMMAND bench_gpu_paper --quick)
  set_tests_properties(bench_gpu_paper_quick PROPERTIES LABELS "bench;cuda" SKIP_RETURN_CODE 77
    TIMEOUT 300)
endif()

# bench_gpu_transforms --quick: every op of the benchmark's table checked on
# the device against hl_execute (2^20 elements, out of place and in place;
# exit 1 on a difference); skipped (exit 77) without a device.
if(TARGET bench_gpu_transforms)
  add_test(NAME bench_gpu_transforms_quick COMMAND bench_gpu_transforms --quick --reps 1)
  set_tests_properties(bench_gpu_transforms_quick PROPERTIES LABELS "bench;cuda"
    SKIP_RETURN_CODE 77 TIMEOUT 300)
  if(HL_SANITIZE)
    # the CUDA driver maps memory where ASan's shadow gap would be
    set_tests_properties(bench_gpu_transforms_quick PROPERTIES
      ENVIRONMENT "ASAN_OPTIONS=protect_shadow_gap=0")
  endif()
endif()

# bench_gpu_chains --quick: every chain of bench_chains' list on small
# arrays, fused, op by op and fused in place, checked on the device against
# hl_execute (exit 2 on a difference); skipped (exit 77) without a device.
if(TARGET bench_gpu_chains)
  add_test(NAME bench_gpu_chains_quick COMMAND bench_gpu_chains --quick --reps 1)
  set_tests_properties(bench_gpu_chains_quick PROPERTIES LABELS "bench;cuda"
    SKIP_RETURN_CODE 77 TIMEOUT 300)
  if(HL_SANITIZE)
    # the CUDA driver maps memory where ASan's shadow gap would be
    set_tests_properties(bench_gpu_chains_quick PROPERTIES
      ENVIRONMENT "ASAN_OPTIONS=protect_shadow_gap=0")
  endif()
endif()

# LibreTT's plans on the transpose rows of the quick run (bench_gpu_librett,
# built only where LibreTT is staged: scripts/peer-librett.sh), each checked
# against hl_execute (exit 1 on a difference, which would mean the
# transposition handed to LibreTT is wrong); skipped (exit 77) without a device.
if(TARGET bench_gpu_librett)
  add_test(NAME bench_gpu_librett_quick COMMAND bench_gpu_librett --quick --reps 1)
  set_tests_properties(bench_gpu_librett_quick PROPERTIES LABELS "bench;cuda"
    SKIP_RETURN_CODE 77 TIMEOUT 300)
  if(HL_SANITIZE)
    set_tests_properties(bench_gpu_librett_quick PROPERTIES
      ENVIRONMENT "ASAN_OPTIONS=protect_shadow_gap=0")
  endif()
endif()

# The Ising model on the GPU against the CPU, bit for bit (plain C over the
# ising library, built with or without nvcc); exit 77 without a device or
# without CUDA.  An HL_GPU_ONLY build given no Random123 has no ising
# library: the test then says so and reports Skipped, which gpu-check.sh
# counts as a failure where a GPU is present.
if(TARGET ising)
  add_executable(test_ising_cuda ising_cuda.c)
  target_link_libraries(test_ising_cuda PRIVATE ising hl_warnings)
  add_test(NAME test_ising_cuda COMMAND test_ising_cuda)
else()
  add_test(NAME test_ising_cuda COMMAND sh -c
    "echo 'SKIP: test_ising_cuda not built: no Random123 (configure with -DHL_RANDOM123_INCLUDE_DIR=DIR)'; exit 77")
endif()
set_tests_properties(test_ising_cuda PROPERTIES LABELS cuda SKIP_RETURN_CODE 77 TIMEOUT 600)
if(HL_SANITIZE)
  set_tests_properties(test_ising_cuda PROPERTIES ENVIRONMENT "ASAN_OPTIONS=protect_shadow_gap=0")
endif()

# The stencil of seed 004 on the GPU (thread blocks as workers, shared memory
# as the scratchpad) against the CPU reference loop, bit for bit; plain C over
# the stencil library (built with or without nvcc, by HL_GPU_ONLY too).
# Exit 77 without CUDA or a device (the argument checks run first anyway).
if(TARGET stencil)
  add_executable(test_stencil_cuda stencil_cuda.c)
  target_link_libraries(test_stencil_cuda PRIVATE stencil hl_warnings)
  add_test(NAME test_stencil_cuda COMMAND test_stencil_cuda)
  set_tests_properties(test_stencil_cuda PROPERTIES LABELS cuda SKIP_RETURN_CODE 77 TIMEOUT 300)
  if(HL_SANITIZE)
    set_tests_properties(test_stencil_cuda PROPERTIES ENVIRONMENT "ASAN_OPTIONS=protect_shadow_gap=0")
  endif()
endif()

# hl.Plan and the functions on CuPy arrays (and PyTorch CUDA tensors where
# torch imports) against the NumPy path; skipped (exit 77) without CuPy or
# a device.  The python3 on PATH: on the GPU machine the one with CuPy.
if(CMAKE_CUDA_COMPILER)
  find_program(HL_DEVICE_PYTHON NAMES python3)
  if(HL_DEVICE_PYTHON)
    add_test(NAME python_device COMMAND ${HL_DEVICE_PYTHON}
      ${CMAKE_CURRENT_SOURCE_DIR}/python_device.py)
    set_tests_properties(python_device PROPERTIES LABELS "python;cuda" SKIP_RETURN_CODE 77
      TIMEOUT 300 ENVIRONMENT "HYPERLAYOUT_LIBRARY=$<TARGET_FILE:hyperlayout>")
  endif()
endif()
