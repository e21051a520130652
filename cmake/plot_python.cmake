# HL_PLOT_PYTHON: the Python 3 that draws the project's plots (bench/plot.py,
# apps/ising/plot.py and the plot test).  The first of these that can import
# numpy and matplotlib: Debian's /usr/bin/python3 (python3-matplotlib, which
# scripts/deps.sh installs), then each python3 on PATH (e.g. pyenv's, which
# often lacks them); where none can, the first found, so that the plots come
# once python3-matplotlib is installed (each plot looks for matplotlib itself
# when it runs: no reconfigure needed).  -DHL_PLOT_PYTHON=... names another.
# A cached choice that cannot import matplotlib is looked up anew at each
# configure, so that installing it later into another Python is found too.
function(hl_python_has_plots py out)
  execute_process(COMMAND ${py} -c "import numpy, matplotlib"
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

set(hl_plot_python_ok FALSE)
if(HL_PLOT_PYTHON)
  hl_python_has_plots(${HL_PLOT_PYTHON} hl_plot_python_ok)
endif()
if(NOT hl_plot_python_ok)
  set(hl_candidates "")
  if(EXISTS /usr/bin/python3)
    list(APPEND hl_candidates /usr/bin/python3)
  endif()
  find_program(hl_path_python3 NAMES python3 NO_CACHE)
  if(hl_path_python3)
    list(APPEND hl_candidates ${hl_path_python3})
  endif()
  if(EXISTS /usr/local/bin/python3)
    list(APPEND hl_candidates /usr/local/bin/python3)
  endif()
  list(REMOVE_DUPLICATES hl_candidates)
  set(hl_first "")
  set(hl_chosen "")
  foreach(py IN LISTS hl_candidates)
    if(NOT hl_first)
      set(hl_first ${py})
    endif()
    hl_python_has_plots(${py} hl_ok)
    if(hl_ok)
      set(hl_chosen ${py})
      set(hl_plot_python_ok TRUE)
      break()
    endif()
  endforeach()
  if(NOT hl_chosen)
    set(hl_chosen ${hl_first})
  endif()
  if(hl_chosen OR NOT HL_PLOT_PYTHON)
    set(HL_PLOT_PYTHON "${hl_chosen}" CACHE FILEPATH
        "Python 3 that draws the plots (needs numpy and matplotlib when it runs)" FORCE)
  endif()
endif()
if(HL_PLOT_PYTHON AND hl_plot_python_ok)
  message(STATUS "Plots: ${HL_PLOT_PYTHON}, with numpy and matplotlib")
elseif(HL_PLOT_PYTHON)
  message(STATUS "Plots: ${HL_PLOT_PYTHON}, which lacks numpy or matplotlib for now "
                 "(install python3-matplotlib: make deps)")
else()
  message(STATUS "Plots: no python3 found (pass -DHL_PLOT_PYTHON=...)")
endif()
