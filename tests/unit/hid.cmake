# The HID function (src/functions/hid) through the in-process host, its
# registry instance and the hidg pipes.
if(COMPOSITE_POSIX)
  composite_unit_test(test_hid SOURCES test_hid.c)
endif()
