# The HID function (src/functions/hid): requests to the interface and the
# report queue through the in-process host (POSIX builds).
if(COMPOSITE_POSIX)
  composite_fuzzer(fuzz_hid SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_hid.c RUNS 5000)
endif()
