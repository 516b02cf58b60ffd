# The gadgetfs backend's refusals without gadgetfs (src/udc/gadgetfs):
# bad arguments, and no gadgetfs to mount or no controller, each a clear
# error with a message. The backend itself is tested against the kernel in
# tests/linux-host (gadgetfs.gfs, msf_basic.gfs). Linux only.
if(COMPOSITE_POSIX AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  composite_unit_test(test_gadgetfs_udc SOURCES test_gadgetfs_udc.c)
endif()
