# Transfer engine (src/udc/common), loopback host and null backends.
composite_unit_test(test_loopback_xfer SOURCES test_loopback_xfer.c)
composite_unit_test(test_xfer_zero_copy SOURCES test_xfer_zero_copy.c)
if(COMPOSITE_POSIX)
  composite_unit_test(test_loopback_host SOURCES test_loopback_host.c)
endif()
composite_unit_test(test_loopback_null SOURCES test_loopback_null.c)
