# The function registry's attributes (src/functions/registry and the
# instances of each function): names and values as text.
composite_fuzzer(fuzz_registry_attrs SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_registry_attrs.c
                 RUNS 50000)
