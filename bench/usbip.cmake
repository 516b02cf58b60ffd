# bench_usbip: USB/IP backend throughput against plain TCP on 127.0.0.1
# (not a test: run it by hand, or `ctest -L bench`).
if(NOT COMPOSITE_POSIX OR NOT TARGET usbip_test_support)
  return()
endif()
add_executable(bench_usbip ${CMAKE_CURRENT_LIST_DIR}/usbip_bench.c)
target_link_libraries(bench_usbip PRIVATE usbip_test_support composite_warnings)
set_target_properties(bench_usbip PROPERTIES C_EXTENSIONS OFF)
add_test(NAME bench_usbip COMMAND bench_usbip)
set_tests_properties(bench_usbip PROPERTIES LABELS bench TIMEOUT 300)
