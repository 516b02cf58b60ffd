# Gadget schemes (src/scheme, composite::scheme): loading, errors with
# file and line, binding to the in-process host, export round trip.
if(TARGET composite_scheme)
  composite_unit_test(test_scheme SOURCES test_scheme.c LIBS composite::scheme)
endif()
