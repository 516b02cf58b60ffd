# The Mass Storage Function (src/functions/msf) through the in-process host
# (src/udc/inproc, POSIX builds): BOT, SCSI and the worker's exceptions
# as a hostile host drives them.
if(COMPOSITE_POSIX)
  composite_fuzzer(fuzz_msf SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_msf.c RUNS 3000)
endif()

# The module parameters (src/functions/msf/params.c): argument vectors.
composite_fuzzer(fuzz_msf_params SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_msf_params.c
                 RUNS 50000)

# The thread-free MSF (fsg_config.polled) through the null UDC, driven by
# fsg_common_poll() as firmware does (portable: every build).
composite_fuzzer(fuzz_msf_polled SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_msf_polled.c
                 ${PROJECT_SOURCE_DIR}/tests/firmware/busy_disk.c RUNS 3000)
target_include_directories(fuzz_msf_polled PRIVATE ${PROJECT_SOURCE_DIR}/tests/firmware)
