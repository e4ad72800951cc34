# Test driver for the kit's make fragment: copy the stand-in "DelPhi" directory, build it with
# make GPU=ON against the build tree, run it.  Called by ctest with -D variables (see
# patches/CMakeLists.txt).
file(REMOVE_RECURSE ${WORK_DIR})
file(COPY ${STANDIN_DIR}/ DESTINATION ${WORK_DIR})
execute_process(
  COMMAND ${MAKE} GPU=ON KIT_DIR=${KIT_DIR} FC=${FC} FFLAGS=${FFLAGS}
          DELPHI_GPU_MODDIR=${MODDIR} DELPHI_GPU_LIBDIR=${LIBDIR}
          "DELPHI_GPU_EXTRA_LIBS=-L${CORE_LIBDIR} -Wl,-rpath,${CORE_LIBDIR}"
          DELPHI_GPU_HEADERS=standin_common.h
          STANDIN_MODDIR=${SUPPORT_MODDIR} STANDIN_LIB=${SUPPORT_LIB}
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE built)
if(NOT built EQUAL 0)
  message(FATAL_ERROR "make with the delphi-gpu fragment failed (${built})")
endif()
execute_process(COMMAND ${WORK_DIR}/standin_delphi WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE ran)
if(NOT ran EQUAL 0)
  message(FATAL_ERROR "the stand-in DelPhi built with make failed (${ran})")
endif()
