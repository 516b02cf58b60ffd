# bench_scale: 256 mass-storage gadgets in composite-gadgetd, each
# imported by the project's USB/IP client, idle and all reading at once
# (not a test: run it by hand, or `ctest -L bench`).
if(NOT COMPOSITE_POSIX OR NOT TARGET usbip_test_support OR NOT TARGET composite-gadgetd)
  return()
endif()
add_executable(bench_scale ${CMAKE_CURRENT_LIST_DIR}/scale_bench.c)
target_link_libraries(bench_scale PRIVATE usbip_test_support composite_warnings)
set_target_properties(bench_scale PROPERTIES C_EXTENSIONS OFF)
add_test(NAME bench_scale COMMAND bench_scale $<TARGET_FILE:composite-gadgetd>)
set_tests_properties(bench_scale PROPERTIES LABELS bench TIMEOUT 300)
