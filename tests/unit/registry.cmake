# The function registry: names, attributes, instances shared by
# configurations, usb_gstrings_attach(); through the in-process host.
if(COMPOSITE_POSIX)
  composite_unit_test(test_registry SOURCES test_registry.c)
endif()
