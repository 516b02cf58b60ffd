# The USB/IP server with USBIP_MAX_DEVICES devices (DEVLIST, the last
# one's import) and its accept loop out of descriptors.
if(NOT TARGET usbip_test_support)
  return()
endif()
add_executable(test_usbip_scale ${CMAKE_CURRENT_LIST_DIR}/test_usbip_scale.c)
target_link_libraries(test_usbip_scale PRIVATE usbip_test_support PkgConfig::USBIP_CMOCKA
                      composite_warnings)
set_target_properties(test_usbip_scale PROPERTIES C_EXTENSIONS OFF)
add_test(NAME test_usbip_scale COMMAND test_usbip_scale)
set_tests_properties(test_usbip_scale PROPERTIES LABELS integration TIMEOUT 60)
