# Test driver for the kit's make fragment: copy the stand-in "DelPhi" directory (object lists in
# OBJ1/OBJ2, flags in FLAGS, no libraries variable), build it with make GPU=ON against the build
# tree, run it, check that `make clean` removes what the fragment generated.  With
# EXPECT_REAL_MISMATCH, the replacements get KIT_FFLAGS (another REAL size) and the link must
# be refused with the fragment's message.  Called by ctest (see patches/CMakeLists.txt).
file(REMOVE_RECURSE ${WORK_DIR})
file(COPY ${STANDIN_DIR}/ DESTINATION ${WORK_DIR})
set(kit_flags)
if(DEFINED KIT_FFLAGS)
  set(kit_flags DELPHI_GPU_FFLAGS=${KIT_FFLAGS})
endif()
execute_process(
  COMMAND ${MAKE} GPU=ON KIT_DIR=${KIT_DIR} FC=${FC} FLAGS=${FFLAGS} ${kit_flags}
          DELPHI_GPU_MODDIR=${MODDIR} DELPHI_GPU_LIBDIR=${LIBDIR}
          DELPHI_GPU_EXTRA_LIBDIRS=${CORE_LIBDIR}
          STANDIN_MODDIR=${SUPPORT_MODDIR} STANDIN_LIB=${SUPPORT_LIB}
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE built OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(EXPECT_REAL_MISMATCH)
  if(built EQUAL 0)
    message(FATAL_ERROR "make linked replacements of another REAL size; it must refuse")
  endif()
  if(NOT err MATCHES "another REAL size")
    message(FATAL_ERROR "make failed, but without the fragment's REAL-size message")
  endif()
  return()
endif()
if(NOT built EQUAL 0)
  message(FATAL_ERROR "make with the delphi-gpu fragment failed (${built})")
endif()
if(NOT out MATCHES "object list\\(s\\) OBJ2; flags [$][(]FLAGS[)]; COMMON header\\(s\\) standin_common.h")
  message(FATAL_ERROR "the fragment did not find OBJ2, FLAGS and standin_common.h itself")
endif()
execute_process(COMMAND ${WORK_DIR}/standin_delphi WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE ran)
if(NOT ran EQUAL 0)
  message(FATAL_ERROR "the stand-in DelPhi built with make failed (${ran})")
endif()
# The start-up (libdelphi_gpu_start.a) is linked in, and a passive choice it recorded is noted
# once in the log.
find_program(NM nm)
if(NM)
  execute_process(COMMAND ${NM} ${WORK_DIR}/standin_delphi OUTPUT_VARIABLE symbols)
  if(NOT symbols MATCHES "dg_wait_start_entry")
    message(FATAL_ERROR "the stand-in DelPhi built with make lacks dg_wait_start_entry")
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env "DELPHI_GPU_WAIT_POLICY_CHOSEN=passive 5 2.00"
                        OMP_WAIT_POLICY=passive DELPHI_GPU_BACKEND=cpu ${WORK_DIR}/standin_delphi
                WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE ran OUTPUT_VARIABLE log)
string(REGEX MATCHALL "wait passively \\(DelPhi started beside other work: 5 runnable tasks, load 2\\.00"
       notes "${log}")
list(LENGTH notes note_count)
if(NOT ran EQUAL 0 OR NOT note_count EQUAL 1)
  message(FATAL_ERROR "the passive choice was noted ${note_count} times, not once (${ran}):\n${log}")
endif()
execute_process(COMMAND ${MAKE} clean KIT_DIR=${KIT_DIR} WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE cleaned)
foreach(generated dg_delphi_common.inc dg_kit_link.ld dg_itit.o)
  if(EXISTS ${WORK_DIR}/${generated} OR NOT cleaned EQUAL 0)
    message(FATAL_ERROR "make clean left ${generated} (or failed: ${cleaned})")
  endif()
endforeach()
