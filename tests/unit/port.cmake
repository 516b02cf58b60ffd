# The bare-metal port support (src/port): the static pool that
# COMPOSITE_NO_HEAP builds allocate from, tested on the host.
composite_unit_test(test_port_pool SOURCES test_port_pool.c)
