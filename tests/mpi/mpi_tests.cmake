# The MPI tests: each program run through CTest under mpirun with 1 to 4
# processes (--oversubscribe: the machine may have fewer cores), as root too
# (CI runs as root: Open MPI refuses without its two variables), every one
# with a timeout so that an error can never become a hang.
if(TARGET hyperlayout_mpi)
  set(HL_MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
  if(HL_SANITIZE)
    # Open MPI keeps allocations from MPI_Init to exit: not ours to report
    list(APPEND HL_MPI_ENV "ASAN_OPTIONS=detect_leaks=0")
  endif()
  # dist_oracle: darray's types against the local layouts; darray_halo: the
  # halo exchange against the global array, and errors agreed on everywhere;
  # darray_halo_dims: the dimension-by-dimension exchange on every process
  # grid, star and box, widths 1-2, periodic or not; darray_npy: collective .npy files against the serial reader; redist:
  # redistribution between random distributions; redist_transform:
  # distributed transforms and relabelling against the single-process plan
  foreach(prog dist_oracle darray_halo darray_halo_dims darray_npy redist redist_transform)
    add_executable(mpi_${prog} ${CMAKE_CURRENT_LIST_DIR}/${prog}.c)
    target_link_libraries(mpi_${prog} PRIVATE hyperlayout_mpi hl_warnings)
    foreach(np 1 2 3 4)
      add_test(NAME mpi_${prog}_np${np}
        COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} --oversubscribe
                ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpi_${prog}> ${MPIEXEC_POSTFLAGS})
      set_tests_properties(mpi_${prog}_np${np} PROPERTIES LABELS mpi TIMEOUT 120
        ENVIRONMENT "${HL_MPI_ENV}")
    endforeach()
  endforeach()
  # darray_h5: collective HDF5 datasets for every kind of distribution,
  # against the serial reader, read back under other distributions (parallel
  # HDF5); darray_h5_procs: written on 3 processes, read on 1, 2 and 4
  if(HDF5_FOUND AND HDF5_IS_PARALLEL)
    add_executable(mpi_darray_h5 ${CMAKE_CURRENT_LIST_DIR}/darray_h5.c)
    target_link_libraries(mpi_darray_h5 PRIVATE hyperlayout_mpi hl_warnings)
    foreach(np 1 2 3 4)
      add_test(NAME mpi_darray_h5_np${np}
        COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} --oversubscribe
                ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpi_darray_h5> ${MPIEXEC_POSTFLAGS})
      set_tests_properties(mpi_darray_h5_np${np} PROPERTIES LABELS "mpi;hdf5" TIMEOUT 120
        ENVIRONMENT "${HL_MPI_ENV}")
    endforeach()
    add_test(NAME mpi_darray_h5_procs COMMAND sh -c
      "d=$(mktemp -d) && ${MPIEXEC_EXECUTABLE} -np 3 --oversubscribe $<TARGET_FILE:mpi_darray_h5> write $d && for p in 1 2 4; do ${MPIEXEC_EXECUTABLE} -np $p --oversubscribe $<TARGET_FILE:mpi_darray_h5> read $d || exit 1; done; rm -rf $d")
    set_tests_properties(mpi_darray_h5_procs PROPERTIES LABELS "mpi;hdf5" TIMEOUT 120
      ENVIRONMENT "${HL_MPI_ENV}")
  endif()
  # issue 33's case: the 256^3 transpose on 2 processes, planned from boxes,
  # against the cell by cell planner's placement (its planning takes seconds
  # and about 1 GB: a smaller cube under the sanitizers)
  if(HL_SANITIZE)
    set(hl_cube 96)
  else()
    set(hl_cube 256)
  endif()
  add_test(NAME mpi_redist_cube_np2
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --oversubscribe
            ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpi_redist_transform> --cube ${hl_cube}
            ${MPIEXEC_POSTFLAGS})
  set_tests_properties(mpi_redist_cube_np2 PROPERTIES LABELS mpi TIMEOUT 300
    ENVIRONMENT "${HL_MPI_ENV}")
  # transform --procs: the CLI across processes against the single-process CLI
  if(TARGET hyperlayout-cli)
    add_test(NAME mpi_cli_procs COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli_procs.sh
      ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:hyperlayout-cli>)
    set_tests_properties(mpi_cli_procs PROPERTIES LABELS mpi TIMEOUT 300
      ENVIRONMENT "${HL_MPI_ENV}")
  endif()
  # transform --procs with HDF5 datasets as IN and OUT (parallel HDF5)
  if(TARGET hyperlayout-cli AND HDF5_FOUND AND HDF5_IS_PARALLEL)
    add_test(NAME mpi_cli_procs_h5 COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli_procs_h5.sh
      ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:hyperlayout-cli>)
    set_tests_properties(mpi_cli_procs_h5 PROPERTIES LABELS "mpi;hdf5;cli" TIMEOUT 300
      ENVIRONMENT "${HL_MPI_ENV}")
  endif()
  # ising: the Ising model across processes against one process, bit for bit
  # (apps/ising/ising_mpi.h)
  if(TARGET ising_mpi)
    add_executable(mpi_ising ${CMAKE_CURRENT_LIST_DIR}/ising.c)
    target_link_libraries(mpi_ising PRIVATE ising_mpi hl_warnings)
    foreach(np 1 2 3 4)
      add_test(NAME mpi_ising_np${np}
        COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} --oversubscribe
                ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpi_ising> ${MPIEXEC_POSTFLAGS})
      set_tests_properties(mpi_ising_np${np} PROPERTIES LABELS mpi TIMEOUT 120
        ENVIRONMENT "${HL_MPI_ENV};OMP_NUM_THREADS=1")
    endforeach()
  endif()
  # `mpirun -np P hyperlayout ising --procs GRID` against one process, bit for
  # bit; resume on another process count; bad input on every process
  if(TARGET ising_mpi AND TARGET hyperlayout-cli)
    add_test(NAME mpi_ising_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/ising_cli.sh
      ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:hyperlayout-cli>)
    set_tests_properties(mpi_ising_cli PROPERTIES LABELS "mpi;cli" TIMEOUT 300
      ENVIRONMENT "${HL_MPI_ENV};OMP_NUM_THREADS=1")
  endif()
  if(HL_NUMPY_VERSION)
    add_test(NAME mpi_darray_npy_numpy COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/darray_npy.sh
      ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:mpi_darray_npy> ${Python3_EXECUTABLE})
    set_tests_properties(mpi_darray_npy_numpy PROPERTIES LABELS "mpi;numpy" TIMEOUT 120
      ENVIRONMENT "${HL_MPI_ENV}")
  endif()
endif()
