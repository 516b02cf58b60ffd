# The core's control endpoint (src/core/ep0.c and what it calls), on the
# fake UDC and test functions of tests/unit. (With COMPOSITE_BUILD_FUZZERS
# the whole library carries coverage instrumentation: see CMakeLists.txt.)
composite_fuzzer(fuzz_ep0 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_ep0.c
                 ${PROJECT_SOURCE_DIR}/tests/unit/fake_udc.c
                 ${PROJECT_SOURCE_DIR}/tests/unit/test_core_fixture.c
                 RUNS 200000)
target_include_directories(fuzz_ep0 PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit
                           ${PROJECT_SOURCE_DIR}/src/core)
