# Transfer engine (src/udc/common), in-process host and null backends.
composite_unit_test(test_xfer SOURCES test_xfer.c)
composite_unit_test(test_xfer_zero_copy SOURCES test_xfer_zero_copy.c)
composite_unit_test(test_xfer_pace SOURCES test_xfer_pace.c)
if(COMPOSITE_POSIX)
  composite_unit_test(test_inproc_host SOURCES test_inproc_host.c)
endif()
composite_unit_test(test_null_udc SOURCES test_null_udc.c)
