# The NCM function's NTB codec (src/functions/ncm/ntb.c): parser, builder,
# GET_NTB_PARAMETERS, byte for byte (portable: every build).
composite_unit_test(test_ncm_ntb SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ncm_ntb.c)
# The NCM function through the in-process host.
if(COMPOSITE_POSIX)
  composite_unit_test(test_ncm SOURCES test_ncm.c)
endif()
