# The set of functions a gadget-side bridge serves, one per configuration
# linking its instance (src/functions/common/fn_set.h).
composite_unit_test(test_fn_set SOURCES test_fn_set.c)
