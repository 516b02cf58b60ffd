# composite-gadgetd (programs/gadgetd) with the shipped schemes, against
# the project's USB/IP client on 127.0.0.1.
if(NOT TARGET composite-gadgetd)
  return()
endif()
add_executable(test_gadgetd ${CMAKE_CURRENT_LIST_DIR}/test_gadgetd.c)
target_link_libraries(test_gadgetd PRIVATE usbip_test_support PkgConfig::USBIP_CMOCKA
                      composite_warnings)
set_target_properties(test_gadgetd PROPERTIES C_EXTENSIONS OFF)
add_test(NAME test_gadgetd
         COMMAND test_gadgetd $<TARGET_FILE:composite-gadgetd>
                 ${PROJECT_SOURCE_DIR}/programs/gadgetd/schemes)
set_tests_properties(test_gadgetd PROPERTIES LABELS integration TIMEOUT 120)
