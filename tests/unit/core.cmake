# The core's unit tests (src/core), on the fake UDC backend in this folder.
set(core_fixture ${CMAKE_CURRENT_SOURCE_DIR}/fake_udc.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/test_core_fixture.c)

composite_unit_test(test_core_ep0 SOURCES test_core_ep0.c ${core_fixture})
composite_unit_test(test_core_composite SOURCES test_core_composite.c ${core_fixture})
composite_unit_test(test_core_ep SOURCES test_core_ep.c ${core_fixture})
composite_unit_test(test_core_ids SOURCES test_core_ids.c ${core_fixture})
composite_unit_test(test_core_os_desc SOURCES test_core_os_desc.c ${core_fixture})
# Comparisons with Linux's header need it (Linux build hosts).
include(CheckIncludeFile)
check_include_file(linux/usb/ch9.h CORE_HAVE_LINUX_USB_CH9_H)
if(CORE_HAVE_LINUX_USB_CH9_H)
  composite_unit_test(test_core_ch9 SOURCES test_core_ch9.c test_core_ch9_tab_linux.c
                      test_core_ch9_tab_own.c)
  composite_unit_test(test_core_headers_linux_first SOURCES test_core_headers_linux_first.c)
endif()
composite_unit_test(test_core_headers_own SOURCES test_core_headers_own.c)
composite_unit_test(test_core_kref SOURCES test_core_kref.c ${core_fixture})

# Portability: the core compiles as strict C11 with POSIX headers shadowed
# by #error stubs, so no POSIX can creep into src/core.
set(core_shadow ${CMAKE_CURRENT_BINARY_DIR}/core_posix_shadow)
foreach(h pthread.h unistd.h sys/socket.h fcntl.h signal.h sys/types.h sys/stat.h
          semaphore.h poll.h netinet/in.h arpa/inet.h dlfcn.h)
  file(WRITE ${core_shadow}/${h}
       "#error \"POSIX header <${h}> used in the portable core (src/core)\"\n")
endforeach()
file(GLOB core_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/core/*.c)
add_library(core_portability OBJECT ${core_sources})
target_include_directories(core_portability BEFORE PRIVATE ${core_shadow})
target_include_directories(core_portability PRIVATE ${PROJECT_SOURCE_DIR}/include
                           ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(core_portability PRIVATE COMPOSITE_BUILDING_CORE)
target_compile_options(core_portability PRIVATE -std=c11 -pedantic-errors
                       -Werror=implicit-function-declaration -U_GNU_SOURCE
                       -U_POSIX_C_SOURCE -U_DEFAULT_SOURCE)
target_link_libraries(core_portability PRIVATE composite_warnings)
set_target_properties(core_portability PROPERTIES C_EXTENSIONS OFF C_STANDARD 11)
# The stubs themselves work: a file including one fails to compile.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/core_posix_probe.c
     "#include <pthread.h>\nint main(void) { return 0; }\n")
add_test(NAME core_posix_shadow_works
         COMMAND ${CMAKE_C_COMPILER} -fsyntax-only -I${core_shadow}
                 ${CMAKE_CURRENT_BINARY_DIR}/core_posix_probe.c)
set_tests_properties(core_posix_shadow_works PROPERTIES LABELS unit WILL_FAIL TRUE)

# One door for backends: with COMPOSITE_BACKEND_ONLY (set for src/udc),
# composite.h and function.h stop the build; each case passes only if the
# header's own #error message is printed.
foreach(h composite function)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/core_backend_guard_${h}.c
       "#include \"composite/${h}.h\"\nint main(void) { return 0; }\n")
  add_test(NAME core_backend_guard_${h}
           COMMAND ${CMAKE_C_COMPILER} -fsyntax-only -DCOMPOSITE_BACKEND_ONLY
                   -I${PROJECT_SOURCE_DIR}/include
                   ${CMAKE_CURRENT_BINARY_DIR}/core_backend_guard_${h}.c)
  set_tests_properties(core_backend_guard_${h} PROPERTIES LABELS unit
                       PASS_REGULAR_EXPRESSION "${h}\\.h is not for backends")
endforeach()

# Private fields: a file outside src/core that reads one fails to compile
# (core_private_members); the same file builds as core code
# (core_private_members_in_core), so the first fails for that reason only.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/core_private_members.c
     "#include \"composite/composite.h\"\n"
     "int probe(struct usb_composite_dev *cdev);\n"
     "int probe(struct usb_composite_dev *cdev) { return list_empty(&cdev->configs); }\n")
add_test(NAME core_private_members
         COMMAND ${CMAKE_C_COMPILER} -fsyntax-only -I${PROJECT_SOURCE_DIR}/include
                 ${CMAKE_CURRENT_BINARY_DIR}/core_private_members.c)
set_tests_properties(core_private_members PROPERTIES LABELS unit
                     PASS_REGULAR_EXPRESSION "no member named")
add_test(NAME core_private_members_in_core
         COMMAND ${CMAKE_C_COMPILER} -fsyntax-only -DCOMPOSITE_BUILDING_CORE
                 -I${PROJECT_SOURCE_DIR}/include
                 ${CMAKE_CURRENT_BINARY_DIR}/core_private_members.c)
set_tests_properties(core_private_members_in_core PROPERTIES LABELS unit)

# Cross-thread setup_continue (the test, not the core, uses pthreads).
if(COMPOSITE_POSIX)
  composite_unit_test(test_core_threads SOURCES test_core_threads.c ${core_fixture}
                      LIBS Threads::Threads)
endif()

# The same transcripts through the in-process host, where it is built.
if(COMPOSITE_POSIX AND EXISTS ${PROJECT_SOURCE_DIR}/src/udc/inproc/CMakeLists.txt)
  composite_unit_test(test_core_inproc SOURCES test_core_inproc.c ${core_fixture})
endif()
