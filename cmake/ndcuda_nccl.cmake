# NCCL for the collectives of comm/ (include/ndcuda/comm.h), optional at build time.
#
# NDCUDA_WITH_NCCL: AUTO (default) uses NCCL when it is found, ON requires it, OFF leaves it
# out (every nd_comm_* function then returns ND_ERR_UNSUPPORTED). The search takes the first
# folder that holds both include/nccl.h and lib/libnccl.so* (or lib64/), so that header and
# library always come from one installation:
#   1. NDCUDA_NCCL_ROOT (CMake variable or environment variable), then NCCL_ROOT / NCCL_HOME;
#   2. the CUDA toolkit's own folders (NCCL ships there on some installations);
#   3. /usr and /usr/local (the libnccl-dev packages put the library under lib/<triplet>);
#   4. the nvidia-nccl wheel of the python3 on PATH (PyTorch's environment), found by importing
#      nvidia.nccl.
# Sets ND_NCCL_FOUND, ND_NCCL_INCLUDE_DIR and ND_NCCL_LIBRARY, and appends comm/ to
# NDCUDA_SOURCES either way.
set(NDCUDA_WITH_NCCL AUTO CACHE STRING "Build the NCCL collectives (comm.h): ON, OFF or AUTO")
set_property(CACHE NDCUDA_WITH_NCCL PROPERTY STRINGS AUTO ON OFF)
set(NDCUDA_NCCL_ROOT "$ENV{NDCUDA_NCCL_ROOT}" CACHE PATH
  "Folder holding include/nccl.h and lib/libnccl.so* (searched first)")

list(APPEND NDCUDA_SOURCES comm/comm.c comm/collectives.c)
set(ND_NCCL_FOUND FALSE)
set(ND_NCCL_INCLUDE_DIR "")
set(ND_NCCL_LIBRARY "")
set(ND_NCCL_PC_LIBS "") # for ndcuda.pc's Libs.private (static linking)

function(_nd_nccl_try root)
  if(ND_NCCL_FOUND OR NOT root OR NOT EXISTS "${root}/include/nccl.h")
    return()
  endif()
  foreach(libdir lib lib64 lib/x86_64-linux-gnu lib/aarch64-linux-gnu)
    # libnccl.so first; the wheels carry only the versioned libnccl.so.2.
    foreach(name libnccl.so libnccl.so.2)
      if(EXISTS "${root}/${libdir}/${name}")
        set(ND_NCCL_FOUND TRUE PARENT_SCOPE)
        set(ND_NCCL_INCLUDE_DIR "${root}/include" PARENT_SCOPE)
        set(ND_NCCL_LIBRARY "${root}/${libdir}/${name}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
endfunction()

if(NOT NDCUDA_WITH_NCCL STREQUAL "OFF")
  set(_nd_nccl_roots "${NDCUDA_NCCL_ROOT}" "$ENV{NCCL_ROOT}" "$ENV{NCCL_HOME}")
  if(CUDAToolkit_LIBRARY_ROOT)
    list(APPEND _nd_nccl_roots "${CUDAToolkit_LIBRARY_ROOT}")
  endif()
  foreach(_inc ${CUDAToolkit_INCLUDE_DIRS})
    get_filename_component(_up "${_inc}" DIRECTORY)
    list(APPEND _nd_nccl_roots "${_up}")
  endforeach()
  list(APPEND _nd_nccl_roots /usr /usr/local)
  foreach(_root ${_nd_nccl_roots})
    _nd_nccl_try("${_root}")
  endforeach()
  if(NOT ND_NCCL_FOUND)
    find_program(_nd_nccl_python NAMES python3)
    if(_nd_nccl_python)
      execute_process(
        COMMAND "${_nd_nccl_python}" -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
        OUTPUT_VARIABLE _nd_wheel OUTPUT_STRIP_TRAILING_WHITESPACE
        RESULT_VARIABLE _nd_wheel_rc ERROR_QUIET)
      if(_nd_wheel_rc EQUAL 0)
        _nd_nccl_try("${_nd_wheel}")
      endif()
    endif()
  endif()
  if(ND_NCCL_FOUND)
    file(STRINGS "${ND_NCCL_INCLUDE_DIR}/nccl.h" _nd_nccl_ver REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE "[^0-9;]*([0-9]+)[^;]*" "\\1." _nd_nccl_ver "${_nd_nccl_ver}")
    string(REPLACE ";" "" _nd_nccl_ver "${_nd_nccl_ver}")
    string(REGEX REPLACE "\\.$" "" _nd_nccl_ver "${_nd_nccl_ver}")
    message(STATUS "ndcuda: NCCL ${_nd_nccl_ver} found: ${ND_NCCL_LIBRARY} (collectives on)")
    get_filename_component(_nd_nccl_dir "${ND_NCCL_LIBRARY}" DIRECTORY)
    get_filename_component(_nd_nccl_name "${ND_NCCL_LIBRARY}" NAME)
    set(ND_NCCL_PC_LIBS "-L${_nd_nccl_dir} -l:${_nd_nccl_name}")
  elseif(NDCUDA_WITH_NCCL STREQUAL "ON")
    message(FATAL_ERROR "NDCUDA_WITH_NCCL=ON but NCCL was not found: pass -DNDCUDA_NCCL_ROOT=<folder "
      "holding include/nccl.h and lib/libnccl.so*> (pip's nvidia-nccl wheel folder works)")
  else()
    message(STATUS "ndcuda: NCCL not found, collectives (nd_comm_*) return ND_ERR_UNSUPPORTED "
      "(set NDCUDA_NCCL_ROOT to enable them)")
  endif()
endif()

if(NDCUDA_WITH_NCCL STREQUAL "OFF")
  message(STATUS "ndcuda: NCCL left out (NDCUDA_WITH_NCCL=OFF), collectives return ND_ERR_UNSUPPORTED")
endif()

# Only comm/ sees NCCL, so switching NCCL on or off recompiles two files.
if(ND_NCCL_FOUND)
  set_source_files_properties(comm/comm.c comm/collectives.c PROPERTIES
    COMPILE_DEFINITIONS ND_HAVE_NCCL=1
    INCLUDE_DIRECTORIES "${ND_NCCL_INCLUDE_DIR}")
endif()
