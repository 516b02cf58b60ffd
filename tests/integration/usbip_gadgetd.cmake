# composite-gadgetd (programs/gadgetd) with the shipped schemes, against
# the project's USB/IP client on 127.0.0.1.
if(NOT TARGET composite-gadgetd)
  return()
endif()
add_executable(test_gadgetd ${CMAKE_CURRENT_LIST_DIR}/test_gadgetd.c
               ${CMAKE_CURRENT_LIST_DIR}/test_gadgetd_control.c
               ${CMAKE_CURRENT_LIST_DIR}/test_gadgetd_ends.c
               ${CMAKE_CURRENT_LIST_DIR}/test_gadgetd_gadgetfs.c)
target_link_libraries(test_gadgetd PRIVATE usbip_test_support PkgConfig::USBIP_CMOCKA
                      composite_warnings)
set_target_properties(test_gadgetd PROPERTIES C_EXTENSIONS OFF)
add_test(NAME test_gadgetd
         COMMAND test_gadgetd $<TARGET_FILE:composite-gadgetd>
                 ${PROJECT_SOURCE_DIR}/programs/gadgetd/schemes
                 $<TARGET_FILE:composite-gadgetctl>)
set_tests_properties(test_gadgetd PROPERTIES LABELS integration TIMEOUT 120)
# The same under valgrind, the daemon and the CLI included (children
# traced; rm and sh are not ours).
find_program(GADGETD_VALGRIND valgrind)
if(GADGETD_VALGRIND AND NOT COMPOSITE_SANITIZE)
  add_test(NAME test_gadgetd_valgrind
           COMMAND ${GADGETD_VALGRIND} --quiet --error-exitcode=97 --leak-check=full
                   --errors-for-leak-kinds=definite,indirect --track-fds=no
                   --trace-children=yes --trace-children-skip=*/rm,*/sh
                   $<TARGET_FILE:test_gadgetd> $<TARGET_FILE:composite-gadgetd>
                   ${PROJECT_SOURCE_DIR}/programs/gadgetd/schemes
                   $<TARGET_FILE:composite-gadgetctl>)
  set_tests_properties(test_gadgetd_valgrind PROPERTIES LABELS valgrind TIMEOUT 600
                       ENVIRONMENT "COMPOSITE_UNDER_VALGRIND=1")
endif()
