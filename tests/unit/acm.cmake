# The CDC ACM function (src/functions/acm) through the in-process host,
# its registry instance and the pty bridge.
if(COMPOSITE_POSIX)
  composite_unit_test(test_acm SOURCES test_acm.c)
endif()
