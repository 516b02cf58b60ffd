# The core's control endpoint (src/core/ep0.c and what it calls), on the
# fake UDC and test functions of tests/unit. The core's sources are
# compiled into the target itself so that they get the fuzzer's coverage
# instrumentation (libcomposite.a is built without it); the archive's
# copies are then never pulled in.
file(GLOB fuzz_core_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/core/*.c)
composite_fuzzer(fuzz_ep0 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_ep0.c
                 ${PROJECT_SOURCE_DIR}/tests/unit/fake_udc.c
                 ${PROJECT_SOURCE_DIR}/tests/unit/test_core_fixture.c
                 ${fuzz_core_sources}
                 RUNS 200000)
target_include_directories(fuzz_ep0 PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit
                           ${PROJECT_SOURCE_DIR}/src/core)
# The core's diagnostics (an extra setup_continue...) would flood stderr.
target_compile_definitions(fuzz_ep0 PRIVATE COMPOSITE_NO_STDIO)
