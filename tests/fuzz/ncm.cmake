# The NCM NTB codec (src/functions/ncm/ntb.c): arbitrary bytes to the
# parser in both formats, and build -> parse round trips (portable).
composite_fuzzer(fuzz_ncm_ntb SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_ncm_ntb.c)
