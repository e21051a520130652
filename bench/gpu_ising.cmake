# bench_gpu_ising: the Ising sweep on the GPU (plain C over the ising
# library).  Included by bench/CMakeLists.txt, -DHL_GPU_ONLY=ON builds too;
# absent where the ising library is (no Random123 given to an HL_GPU_ONLY
# build).
if(TARGET ising)
  add_executable(bench_gpu_ising ${CMAKE_CURRENT_LIST_DIR}/gpu_ising.c)
  target_link_libraries(bench_gpu_ising PRIVATE bench_harness ising hl_warnings)
endif()
