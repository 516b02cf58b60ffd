# Gadget Zero functions (SourceSink, Loopback) through the core, on the
# scripted fake backend of fake_udc.c (tests/unit, shared with the core's
# tests).
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fake_udc.c)
  composite_unit_test(test_sourcesink SOURCES test_sourcesink.c
                      test_sourcesink_fixture.c fake_udc.c)
  composite_unit_test(test_f_loopback SOURCES test_f_loopback.c
                      test_sourcesink_fixture.c fake_udc.c)
endif()
# Both functions as examples/gadget_zero composes them, through the
# in-process host (real packet semantics).
if(COMPOSITE_POSIX)
  composite_unit_test(test_sourcesink_inproc SOURCES test_sourcesink_inproc.c)
endif()
