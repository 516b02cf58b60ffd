# USB/IP server backend over real sockets on 127.0.0.1, with the test
# client (usbip_client.c) and Debian's usbip tool where installed.
if(NOT COMPOSITE_POSIX)
  return()
endif()
find_package(PkgConfig REQUIRED)
pkg_check_modules(USBIP_CMOCKA REQUIRED IMPORTED_TARGET cmocka)

# The client and the test gadget, shared with bench/usbip.cmake.
add_library(usbip_test_support STATIC
  ${CMAKE_CURRENT_LIST_DIR}/usbip_client.c
  ${CMAKE_CURRENT_LIST_DIR}/usbip_test_gadget.c)
target_include_directories(usbip_test_support PUBLIC
  ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(usbip_test_support PUBLIC composite::composite
                      PRIVATE composite_warnings)
set_target_properties(usbip_test_support PROPERTIES C_EXTENSIONS OFF)

add_executable(test_usbip_server ${CMAKE_CURRENT_LIST_DIR}/test_usbip_server.c)
target_link_libraries(test_usbip_server PRIVATE usbip_test_support PkgConfig::USBIP_CMOCKA
                      composite_warnings)
set_target_properties(test_usbip_server PROPERTIES C_EXTENSIONS OFF)
add_test(NAME test_usbip_server COMMAND test_usbip_server)
set_tests_properties(test_usbip_server PROPERTIES LABELS integration TIMEOUT 180)

# The mass_storage example under Debian's `usbip list` (skipped, exit 77,
# when the usbip binary is missing).
if(TARGET mass_storage)
  add_test(NAME usbip_example_mass_storage_list
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/usbip_example_list.sh $<TARGET_FILE:mass_storage>)
  set_tests_properties(usbip_example_mass_storage_list PROPERTIES
                       LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77)
  # Its control= FIFO: what it refuses, creates, reuses and removes.
  add_test(NAME usbip_example_mass_storage_control
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/usbip_example_control.sh $<TARGET_FILE:mass_storage>)
  set_tests_properties(usbip_example_mass_storage_control PROPERTIES
                       LABELS integration TIMEOUT 120)
  # file= that cannot serve: the file and the reason are named (issue #15).
  add_test(NAME usbip_example_mass_storage_bad_file
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/usbip_example_bad_file.sh $<TARGET_FILE:mass_storage>)
  set_tests_properties(usbip_example_mass_storage_bad_file PROPERTIES
                       LABELS integration TIMEOUT 120)
  # capture=: a path that cannot be created, and DIR/usbip-1-1.pcap.
  add_test(NAME usbip_example_mass_storage_capture
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/usbip_example_capture.sh $<TARGET_FILE:mass_storage>)
  set_tests_properties(usbip_example_mass_storage_capture PROPERTIES
                       LABELS integration TIMEOUT 120)
endif()

# The Mass Storage Function over USB/IP, Bulk-Only from the client.
add_executable(test_usbip_msf ${CMAKE_CURRENT_LIST_DIR}/test_usbip_msf.c)
target_link_libraries(test_usbip_msf PRIVATE usbip_test_support PkgConfig::USBIP_CMOCKA
                      composite_warnings)
set_target_properties(test_usbip_msf PROPERTIES C_EXTENSIONS OFF)
add_test(NAME test_usbip_msf COMMAND test_usbip_msf)
set_tests_properties(test_usbip_msf PROPERTIES LABELS integration TIMEOUT 180)

# The server's defences (issue #21): address warnings, floods, reconnects.
add_executable(test_usbip_limits ${CMAKE_CURRENT_LIST_DIR}/test_usbip_limits.c)
target_link_libraries(test_usbip_limits PRIVATE usbip_test_support PkgConfig::USBIP_CMOCKA
                      composite_warnings)
set_target_properties(test_usbip_limits PROPERTIES C_EXTENSIONS OFF)
add_test(NAME test_usbip_limits COMMAND test_usbip_limits)
set_tests_properties(test_usbip_limits PROPERTIES LABELS integration TIMEOUT 180)

# The C suites again under valgrind memcheck (label "valgrind" only, the
# stage scripts/test.sh runs on its own).
find_program(USBIP_VALGRIND valgrind)
if(USBIP_VALGRIND AND NOT COMPOSITE_SANITIZE)
  foreach(t test_usbip_server test_usbip_msf test_usbip_limits)
    add_test(NAME ${t}_valgrind
             COMMAND ${USBIP_VALGRIND} --quiet --error-exitcode=97 --leak-check=full
                     --errors-for-leak-kinds=definite,indirect --track-fds=no
                     $<TARGET_FILE:${t}>)
    set_tests_properties(${t}_valgrind PROPERTIES LABELS valgrind TIMEOUT 900
                         ENVIRONMENT "COMPOSITE_UNDER_VALGRIND=1")
  endforeach()
endif()
