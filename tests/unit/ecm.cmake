# The CDC ECM function (src/functions/ecm, src/functions/net) through the
# in-process host, and its registry instance.
if(COMPOSITE_POSIX)
  composite_unit_test(test_ecm SOURCES test_ecm.c)
endif()
