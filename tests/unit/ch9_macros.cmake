# test_core_ch9_macros: every macro of the system's <linux/usb/ch9.h>
# exists in the library's own ch9 with the same value. The list is read
# from Linux's header at configure time, so a name Linux adds later shows
# up as a failure here rather than as a port that does not compile.
include(CheckIncludeFile)
check_include_file(linux/usb/ch9.h CORE_HAVE_LINUX_USB_CH9_H)
if(NOT CORE_HAVE_LINUX_USB_CH9_H)
  return()
endif()
find_file(CORE_LINUX_USB_CH9_H linux/usb/ch9.h
          PATHS ${CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES} /usr/include NO_DEFAULT_PATH)
file(STRINGS ${CORE_LINUX_USB_CH9_H} ch9_defines REGEX "^#define[ \t]+[A-Za-z_][A-Za-z0-9_]*")
set(ch9_linux_rows "")
set(ch9_own_rows "")
foreach(line IN LISTS ch9_defines)
  string(REGEX MATCH "^#define[ \t]+([A-Za-z_][A-Za-z0-9_]*)(\\()?" _ "${line}")
  set(name ${CMAKE_MATCH_1})
  if(name STREQUAL "__LINUX_USB_CH9_H")
    continue()
  endif()
  # A function-like macro is compared on one argument with scattered bits.
  if(CMAKE_MATCH_2)
    set(expr "${name}(0x5a5a)")
  else()
    set(expr "${name}")
  endif()
  string(APPEND ch9_linux_rows "\t{ \"${name}\", 1, (long long)(${expr}) },\n")
  string(APPEND ch9_own_rows
         "#ifdef ${name}\n\t{ \"${name}\", 1, (long long)(${expr}) },\n#else\n"
         "\t{ \"${name}\", 0, 0 },\n#endif\n")
endforeach()
set(ch9_gen ${CMAKE_CURRENT_BINARY_DIR}/ch9_macros)
file(WRITE ${ch9_gen}/tab_linux.c
     "#include <linux/usb/ch9.h>\n#include \"test_core_ch9.h\"\n"
     "const struct ch9_macro core_ch9_linux_macros[] = {\n${ch9_linux_rows}\t{ 0, 0, 0 }\n};\n")
file(WRITE ${ch9_gen}/tab_own.c
     "#include \"composite/ch9.h\"\n#include \"test_core_ch9.h\"\n"
     "#ifndef COMPOSITE_CH9_OWN_H\n#error \"own ch9 expected\"\n#endif\n"
     "const struct ch9_macro core_ch9_own_macros[] = {\n${ch9_own_rows}\t{ 0, 0, 0 }\n};\n")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CORE_LINUX_USB_CH9_H})
composite_unit_test(test_core_ch9_macros SOURCES test_core_ch9_macros.c
                    ${ch9_gen}/tab_linux.c ${ch9_gen}/tab_own.c)
