# bench_gpu_paper: the paper's GPU kernels (Figures 11 and 12), built only
# with a CUDA compiler.  Included from bench/CMakeLists.txt and, under
# HL_GPU_ONLY too: it needs nothing but the library and the
# CUDA toolkit (no cmocka, libpng or Random123), so scripts/gpu-check.sh
# builds it on a bare GPU machine.
if(CMAKE_CUDA_COMPILER)
  add_executable(bench_gpu_paper
    ${PROJECT_SOURCE_DIR}/bench/gpu_paper.c
    ${PROJECT_SOURCE_DIR}/bench/gpu_paper_report.c
    ${PROJECT_SOURCE_DIR}/bench/gpu_paper_kernels.cu
    ${PROJECT_SOURCE_DIR}/bench/gpu_paper_gate.cu)
  set_target_properties(bench_gpu_paper PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  # -pedantic would reject the line directives of nvcc's own generated code.
  target_compile_options(bench_gpu_paper PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings -Xcompiler=-Wall -Xcompiler=-Wextra
    -Xcompiler=-Wshadow -Xcompiler=-Werror>)
  target_link_libraries(bench_gpu_paper PRIVATE bench_harness hyperlayout_static CUDA::cudart hl_warnings m)
endif()
