# Cross building for 64-bit ARM (aarch64) with Debian's cross compiler, the
# programs run under qemu-user (docs/install.md, "Cross building for
# aarch64"; scripts/cross-check.sh does it all):
#
#   scripts/deps.sh --cross aarch64
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
#   cmake --build build-aarch64 && ctest --test-dir build-aarch64 -L core
#
# Libraries come from Debian's arm64 architecture (libcmocka-dev:arm64,
# libpng-dev:arm64, zlib1g-dev:arm64: /usr/lib/aarch64-linux-gnu), the C
# library and OpenMP's runtime for linking from the cross toolchain's
# packages (/usr/aarch64-linux-gnu).  A cross build leaves MPI, HDF5 and CUDA out
# (the host's would be x86-64 libraries) and the Python tests (the host's
# Python cannot load an aarch64 library).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(HL_CROSS_TRIPLET aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${HL_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${HL_CROSS_TRIPLET}-g++)

# CTest runs the test programs (and CMake any program it must run) under
# qemu-user.  The programs are linked against the cross toolchain's C
# library (/usr/aarch64-linux-gnu) and run with Debian's arm64 one
# (libc6:arm64, libgomp1:arm64: the same glibc 2.36 ABI), which
# scripts/deps.sh --cross aarch64 installs: `-L /` turns qemu's prefix off,
# so the emulated loader is /lib/ld-linux-aarch64.so.1.  With the cross
# toolchain's own loader (-L /usr/aarch64-linux-gnu, libc6-arm64-cross
# 2.36-8cross1) under Debian 12's qemu-user 7.2, a forked child and every
# thread a program starts hang (a ten-line fork() or `omp parallel`
# program does); that prefix is only the fallback where Debian's arm64 C
# library is missing.  Without qemu the build still works; the tests then
# cannot run here.
find_program(HL_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(HL_QEMU_AARCH64)
  if(EXISTS /lib/ld-linux-aarch64.so.1)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${HL_QEMU_AARCH64} -L /)
  else()
    set(CMAKE_CROSSCOMPILING_EMULATOR ${HL_QEMU_AARCH64} -L /usr/${HL_CROSS_TRIPLET})
  endif()
endif()

# Headers and libraries: the target's only (the multiarch directories of
# the arm64 packages and the cross toolchain's tree); programs: the host's.
set(CMAKE_LIBRARY_ARCHITECTURE ${HL_CROSS_TRIPLET})
set(CMAKE_FIND_ROOT_PATH /usr/${HL_CROSS_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config reads the arm64 packages' .pc files, never the host's
# (cmocka's -L/-l must name the arm64 library).
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${HL_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
