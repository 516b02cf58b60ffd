# The core's unit tests (src/core), on the fake UDC backend in this folder.
set(core_fixture ${CMAKE_CURRENT_SOURCE_DIR}/fake_udc.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/test_core_fixture.c)

composite_unit_test(test_core_ep0 SOURCES test_core_ep0.c ${core_fixture})
composite_unit_test(test_core_composite SOURCES test_core_composite.c ${core_fixture})
composite_unit_test(test_core_ep SOURCES test_core_ep.c ${core_fixture})
