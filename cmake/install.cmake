# Install rules (included by the top-level CMakeLists.txt when HL_INSTALL is
# on): the libraries and headers, pkg-config and CMake packages, the CLI and
# its man page, the benchmarks, the Python module, the docs.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(HL_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hyperlayout CACHE STRING
  "Where the CMake package (hyperlayoutConfig.cmake) is installed, relative to the prefix")
# Debian's layout, on Python's path when the prefix is /usr; other prefixes
# put this directory on PYTHONPATH (docs/install.md).
set(HL_PYTHON_INSTALL_DIR lib/python3/dist-packages CACHE STRING
  "Where the Python package hyperlayout is installed, relative to the prefix")
# Benchmark programs are not commands of their own: beside the CLI they go
# in libexec, off PATH, under the project's name.
set(HL_BENCH_INSTALL_DIR ${CMAKE_INSTALL_LIBEXECDIR}/hyperlayout)

if(CMAKE_CUDA_COMPILER)
  set(HL_WITH_CUDA 1)
else()
  set(HL_WITH_CUDA 0)
endif()
set(HL_WITH_MPI 0)
if(TARGET hyperlayout_mpi)
  set(HL_WITH_MPI 1)
endif()
set(HL_WITH_ZLIB 0)
if(ZLIB_FOUND)
  set(HL_WITH_ZLIB 1)
endif()

# ---- the library --------------------------------------------------------------
install(TARGETS hyperlayout hyperlayout_static EXPORT hyperlayoutTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT library
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET hyperlayout_mpi)
  install(TARGETS hyperlayout_mpi EXPORT hyperlayoutTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library)
endif()
# The source tree's config.h holds defaults; the installed one, this build's
# choices.
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT library
  PATTERN config.h EXCLUDE)
configure_file(cmake/config.h.in ${PROJECT_BINARY_DIR}/generated/hyperlayout/config.h @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/generated/hyperlayout/config.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hyperlayout COMPONENT library)

# ---- pkg-config ---------------------------------------------------------------
# The prefix is found from the .pc file's own place, so `cmake --install
# --prefix ANY` (and make install PREFIX=ANY) install a correct file.
file(RELATIVE_PATH HL_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" HL_PC_TO_PREFIX "${HL_PC_TO_PREFIX}")
set(HL_PC_LIBS_PRIVATE "${OpenMP_C_FLAGS} -lm")
if(ZLIB_FOUND)
  string(APPEND HL_PC_LIBS_PRIVATE " -lz")
endif()
if(CMAKE_CUDA_COMPILER)
  string(APPEND HL_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart -lstdc++")
endif()
# HDF5 (h5.h): its shared libraries as -L/-l (the static library needs them)
if(HDF5_FOUND)
  foreach(lib ${HDF5_C_LIBRARIES})
    if(lib MATCHES "^(.*)/lib(hdf5[^/]*)\\.so$")
      string(APPEND HL_PC_LIBS_PRIVATE " -L${CMAKE_MATCH_1} -l${CMAKE_MATCH_2}")
    endif()
  endforeach()
endif()
configure_file(cmake/hyperlayout.pc.in ${PROJECT_BINARY_DIR}/generated/hyperlayout.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/generated/hyperlayout.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT library)

# ---- CMake package ------------------------------------------------------------
install(EXPORT hyperlayoutTargets NAMESPACE hyperlayout:: DESTINATION ${HL_CMAKE_INSTALL_DIR}
  COMPONENT library)
configure_package_config_file(cmake/hyperlayoutConfig.cmake.in
  ${PROJECT_BINARY_DIR}/generated/hyperlayoutConfig.cmake
  INSTALL_DESTINATION ${HL_CMAKE_INSTALL_DIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/generated/hyperlayoutConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/generated/hyperlayoutConfig.cmake
  ${PROJECT_BINARY_DIR}/generated/hyperlayoutConfigVersion.cmake
  DESTINATION ${HL_CMAKE_INSTALL_DIR} COMPONENT library)

# ---- the CLI, its man page, the benchmarks ------------------------------------
if(TARGET hyperlayout-cli AND HL_BUILD_APPS)
  install(TARGETS hyperlayout-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
  # The man page is the CLI's --help texts (scripts/manpage.sh), made when
  # the CLI is: one source for both, no converter to install.  A cross
  # build runs the CLI under its emulator (CMAKE_CROSSCOMPILING_EMULATOR);
  # without one there is no man page.
  set(hl_man ${PROJECT_BINARY_DIR}/man/hyperlayout.1)
  if(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
    message(STATUS "Man page: not made (a cross build without CMAKE_CROSSCOMPILING_EMULATOR "
                   "cannot run the CLI for its --help texts) and not installed")
  else()
    set(hl_man_runner "")
    if(CMAKE_CROSSCOMPILING)
      set(hl_man_runner ${CMAKE_CROSSCOMPILING_EMULATOR})
    endif()
    add_custom_command(OUTPUT ${hl_man}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND sh ${PROJECT_SOURCE_DIR}/scripts/manpage.sh $<TARGET_FILE:hyperlayout-cli> ${hl_man}
        ${hl_man_runner}
      DEPENDS hyperlayout-cli ${PROJECT_SOURCE_DIR}/scripts/manpage.sh
      COMMENT "Writing the man page hyperlayout.1 from the --help texts" VERBATIM)
    add_custom_target(manpage ALL DEPENDS ${hl_man})
    install(FILES ${hl_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli)
  endif()
endif()
foreach(b bench_kindex bench_transforms bench_paper bench_walker bench_ising bench_ab_engine
    bench_gpu_paper bench_gpu_transforms)
  if(TARGET ${b})
    # bench_gpu_transforms links the shared library: found from where both lie
    set_property(TARGET ${b} APPEND PROPERTY INSTALL_RPATH "$ORIGIN/../../${CMAKE_INSTALL_LIBDIR}")
    install(TARGETS ${b} RUNTIME DESTINATION ${HL_BENCH_INSTALL_DIR} COMPONENT bench)
  endif()
endforeach()

# ---- Python -------------------------------------------------------------------
install(DIRECTORY python/hyperlayout DESTINATION ${HL_PYTHON_INSTALL_DIR} COMPONENT python
  PATTERN __pycache__ EXCLUDE PATTERN *.pyc EXCLUDE)
# The installed module finds the installed library through this file,
# written at install time: the prefix may be chosen then (--prefix).
install(CODE "
  set(hl_py \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${HL_PYTHON_INSTALL_DIR}/hyperlayout/_libpath.py\")
  file(WRITE \"\${hl_py}\" \"# Written by cmake --install: where libhyperlayout was installed.\\nLIBDIR = '\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}'\\n\")
  message(STATUS \"Installing: \${hl_py}\")" COMPONENT python)

# ---- docs -----------------------------------------------------------------------
install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs COMPONENT doc)
