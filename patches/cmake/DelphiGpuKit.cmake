# DelphiGpuKit.cmake: build DelPhi with delphi-gpu in place of its SOR routines (itit, nitit).
#
# In DelPhi's CMakeLists.txt (a Fortran project):
#
#   include(/path/to/delphi_kit/cmake/DelphiGpuKit.cmake)
#   add_executable(delphi ${DELPHI_SOURCES})
#   delphi_gpu_kit_apply(delphi)
#
# and configure with -DGPU=ON (and -Ddelphi_gpu_DIR=<prefix>/lib/cmake/delphi_gpu or
# CMAKE_PREFIX_PATH=<prefix> when delphi-gpu is not installed in a standard place).  With GPU
# OFF nothing changes.  With GPU ON, delphi_gpu_kit_apply
#   - removes DelPhi's SOR sources (itit4j.f, nitit.f) from the target,
#   - adds the kit's replacements dg_itit.f and dg_nitit.f (compiled with the target's own flags,
#     so a -fdefault-real-8 double-precision build gets the real*8 entry points),
#   - finds DelPhi's header(s) that declare the COMMON blocks /ival1/ /val1/ /log1/ (continuation
#     lines included) in HEADER_DIRS, and generates dg_delphi_common.inc, which includes them
#     (rewritten only when the list changes),
#   - links delphi_gpu::delphi_gpu_fortran (module delphi_gpu, library, C core), and with
#     RPATH_ORIGIN <dir> sets the run path to $ORIGIN/<dir> (a relocatable install of DelPhi
#     and delphi-gpu side by side, e.g. RPATH_ORIGIN ../lib),
#   - links delphi_gpu::delphi_gpu_start: when DelPhi starts on a busy machine, OpenMP's idle
#     threads wait passively (patches/README.md).
# The replacements are compiled with the target's own flags, so their REAL size is DelPhi's
# unless DelPhi sets per-source flags (the make fragment checks the COMMON sizes at link time).
#
# delphi_gpu_kit_apply(<target>
#     [ALWAYS]                     apply even when GPU is OFF
#     [HEADERS <file>...]          DelPhi's COMMON header(s); default DELPHI_GPU_COMMON_HEADERS,
#                                  or when that is empty the headers found in HEADER_DIRS
#     [HEADER_DIRS <dir>...]       where they are; default the current source directory and the
#                                  directories of the target's sources
#     [RPATH_ORIGIN <dir>]         run path $ORIGIN/<dir> instead of CMake's default
#     [SOR_FILES <name>...]        DelPhi sources to remove; default DELPHI_GPU_SOR_FILES
#     [FORTRAN_TARGET <target>])   default delphi_gpu::delphi_gpu_fortran (find_package'd)
include_guard(GLOBAL)

option(GPU "Use delphi-gpu for DelPhi's SOR iterations (replaces itit4j.f and nitit.f)" OFF)
set(DELPHI_GPU_COMMON_HEADERS "" CACHE STRING
    "DelPhi headers declaring the COMMON blocks ival1, val1, log1 (semicolon list; empty: find)")
if(DELPHI_GPU_COMMON_HEADERS STREQUAL "qdiffpar4.h;qlog.h")
  # The former default, left in caches of older builds: it does not compile with the 2010
  # release (qdiffpar4.h's Cray pointers take itit's argument names); find the headers instead.
  set_property(CACHE DELPHI_GPU_COMMON_HEADERS PROPERTY VALUE "")
endif()
set(DELPHI_GPU_SOR_FILES "itit4j.f;nitit.f" CACHE STRING
    "DelPhi source files that the delphi-gpu replacements take the place of")
set(DELPHI_GPU_KIT_DIR "${CMAKE_CURRENT_LIST_DIR}/.." CACHE INTERNAL "delphi-gpu kit")

function(delphi_gpu_kit_apply target)
  cmake_parse_arguments(KIT "ALWAYS" "FORTRAN_TARGET;RPATH_ORIGIN" "HEADERS;HEADER_DIRS;SOR_FILES"
                        ${ARGN})
  if(NOT GPU AND NOT KIT_ALWAYS)
    return()
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "delphi_gpu_kit_apply: ${target} is not a target")
  endif()
  if(NOT KIT_HEADERS)
    set(KIT_HEADERS ${DELPHI_GPU_COMMON_HEADERS})
  endif()
  if(NOT KIT_HEADER_DIRS)
    set(KIT_HEADER_DIRS ${CMAKE_CURRENT_SOURCE_DIR})
    get_target_property(all_sources ${target} SOURCES)
    foreach(source IN LISTS all_sources)
      get_filename_component(dir "${source}" DIRECTORY)
      if(dir)
        get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
        list(APPEND KIT_HEADER_DIRS ${dir})
      endif()
    endforeach()
    list(REMOVE_DUPLICATES KIT_HEADER_DIRS)
  endif()
  if(NOT KIT_HEADERS)
    # A header declares a block when, blanks and line breaks removed (so continuation lines
    # after a bare `common` count), its text holds /ival1/, /val1/ or /log1/.
    foreach(dir IN LISTS KIT_HEADER_DIRS)
      file(GLOB candidates "${dir}/*.h")
      foreach(candidate IN LISTS candidates)
        file(READ "${candidate}" text)
        string(TOLOWER "${text}" text)
        string(REGEX REPLACE "[ \t\r\n]" "" text "${text}")
        if(text MATCHES "/(ival1|val1|log1)/")
          get_filename_component(name "${candidate}" NAME)
          list(APPEND KIT_HEADERS ${name})
        endif()
      endforeach()
    endforeach()
    list(REMOVE_DUPLICATES KIT_HEADERS)
    if(NOT KIT_HEADERS)
      message(FATAL_ERROR "delphi_gpu_kit_apply: no header in ${KIT_HEADER_DIRS} declares the "
                          "COMMON blocks /ival1/ /val1/ /log1/; pass HEADERS or HEADER_DIRS")
    endif()
  endif()
  if(NOT KIT_SOR_FILES)
    set(KIT_SOR_FILES ${DELPHI_GPU_SOR_FILES})
  endif()
  if(NOT KIT_FORTRAN_TARGET)
    if(NOT TARGET delphi_gpu::delphi_gpu_fortran)
      find_package(delphi_gpu REQUIRED)
    endif()
    set(KIT_FORTRAN_TARGET delphi_gpu::delphi_gpu_fortran)
  endif()
  if(NOT TARGET ${KIT_FORTRAN_TARGET})
    message(FATAL_ERROR "delphi_gpu_kit_apply: ${KIT_FORTRAN_TARGET} is not a target (was "
                        "delphi-gpu built with its Fortran bridge?)")
  endif()

  # Take DelPhi's SOR sources out of the target.
  get_target_property(sources ${target} SOURCES)
  set(kept)
  set(removed)
  foreach(source IN LISTS sources)
    get_filename_component(name "${source}" NAME)
    if(name IN_LIST KIT_SOR_FILES)
      list(APPEND removed ${name})
    else()
      list(APPEND kept "${source}")
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${kept})

  # dg_delphi_common.inc: fixed-form INCLUDE lines for DelPhi's COMMON header(s).
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/delphi_gpu_kit/${target})
  set(lines "c     Generated by DelphiGpuKit.cmake: DelPhi's COMMON headers.\n")
  foreach(header IN LISTS KIT_HEADERS)
    string(APPEND lines "      include '${header}'\n")
  endforeach()
  file(CONFIGURE OUTPUT ${generated}/dg_delphi_common.inc CONTENT "${lines}")

  target_sources(${target} PRIVATE ${DELPHI_GPU_KIT_DIR}/src/dg_itit.f
                                   ${DELPHI_GPU_KIT_DIR}/src/dg_nitit.f)
  target_include_directories(${target} PRIVATE ${generated} ${DELPHI_GPU_KIT_DIR}/src
                                               ${KIT_HEADER_DIRS})
  target_link_libraries(${target} PRIVATE ${KIT_FORTRAN_TARGET})
  if(TARGET delphi_gpu::delphi_gpu_start)
    target_link_libraries(${target} PRIVATE delphi_gpu::delphi_gpu_start)
  else()
    message(WARNING "delphi-gpu kit: no delphi_gpu::delphi_gpu_start (an older delphi-gpu); "
                    "OpenMP's threads will spin even when DelPhi shares a busy machine")
  endif()
  if(KIT_RPATH_ORIGIN)
    set_target_properties(${target} PROPERTIES BUILD_WITH_INSTALL_RPATH OFF
                          INSTALL_RPATH "$ORIGIN/${KIT_RPATH_ORIGIN}")
  endif()
  list(JOIN removed ", " removed_text)
  if(NOT removed_text)
    message(WARNING "delphi-gpu kit: none of ${KIT_SOR_FILES} is a source of ${target}; "
                    "if DelPhi's own itit/nitit are linked in, the link fails with duplicates")
    set(removed_text "none")
  endif()
  message(STATUS "delphi-gpu kit: ${target} uses delphi-gpu for itit/nitit "
                 "(removed: ${removed_text}; COMMON headers: ${KIT_HEADERS})")
endfunction()
