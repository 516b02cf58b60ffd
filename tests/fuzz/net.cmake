# The network functions (src/functions/ecm, src/functions/ncm): a hostile
# host's requests, alternates and transfers through the in-process host
# (POSIX builds).
if(COMPOSITE_POSIX)
  composite_fuzzer(fuzz_net SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_net.c RUNS 3000)
endif()
