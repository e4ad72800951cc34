# Test driver: install this build into a scratch prefix, then build and run a DelPhi-like
# program against the installed tree with the kit's CMake module (find_package) and with its
# make fragment.  Called by ctest with -D variables (see patches/CMakeLists.txt).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(kit ${prefix}/share/delphi_gpu/delphi_kit)
function(run what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
endfunction()
file(MAKE_DIRECTORY ${WORK_DIR})
run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run("configure the CMake consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/cmake
    -DGPU=ON -DCMAKE_PREFIX_PATH=${prefix} -DKIT_DIR=${kit} -DSTANDIN_DIR=${STANDIN_DIR}
    -DCMAKE_Fortran_COMPILER=${FC} -DCMAKE_C_COMPILER=${CC})
run("build the CMake consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/cmake)
run("run the CMake consumer" ${WORK_DIR}/cmake/tiny)
# Both consumers carry the start-up that chooses OpenMP's waiting (libdelphi_gpu_start.a).
function(check_start exe)
  find_program(NM nm)
  if(NM)
    execute_process(COMMAND ${NM} ${exe} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR NOT symbols MATCHES "dg_wait_start_entry")
      message(FATAL_ERROR "${exe} lacks libdelphi_gpu_start.a's start-up (dg_wait_start_entry)")
    endif()
  endif()
endfunction()
check_start(${WORK_DIR}/cmake/tiny)
file(COPY ${CONSUMER_DIR}/tiny_main.f ${CONSUMER_DIR}/Makefile ${STANDIN_DIR}/standin_common.h
     DESTINATION ${WORK_DIR}/make)
run("build the make consumer" ${MAKE} -C ${WORK_DIR}/make GPU=ON DELPHI_GPU_PREFIX=${prefix}
    KIT_DIR=${kit} STANDIN_DIR=${STANDIN_DIR} FC=${FC} DELPHI_GPU_HEADERS=standin_common.h)
run("run the make consumer" ${WORK_DIR}/make/tiny)
check_start(${WORK_DIR}/make/tiny)
