# The gadget scheme loader (src/scheme): scheme text, bound to the
# in-process host and exported when it loads.
if(TARGET composite_scheme)
  composite_fuzzer(fuzz_scheme SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_scheme.c
                   RUNS 5000)
  target_link_libraries(fuzz_scheme PRIVATE composite::scheme)
endif()
if(TEST fuzz_scheme)
  set_tests_properties(fuzz_scheme PROPERTIES ENVIRONMENT
    "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/fuzz_scheme.supp")
endif()
