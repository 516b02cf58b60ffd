# bench_msf: mass storage READ(10)/WRITE(10) through the in-process host
# against plain pread/pwrite of the same file (not a test: run it by hand,
# or `ctest -L bench`).
if(NOT COMPOSITE_POSIX)
  return()
endif()
add_executable(bench_msf ${CMAKE_CURRENT_LIST_DIR}/msf_bench.c)
target_link_libraries(bench_msf PRIVATE composite::composite composite_warnings)
set_target_properties(bench_msf PROPERTIES C_EXTENSIONS OFF)
add_test(NAME bench_msf COMMAND bench_msf)
set_tests_properties(bench_msf PROPERTIES LABELS bench TIMEOUT 600)
