# The CDC ACM function (src/functions/acm): class requests and the byte
# stream through the in-process host (POSIX builds).
if(COMPOSITE_POSIX)
  composite_fuzzer(fuzz_acm SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_acm.c RUNS 5000)
endif()
