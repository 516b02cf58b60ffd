# Public headers compile in strict C11, warnings as errors, with gcc and
# clang where present: beside <sys/queue.h>, and with Linux's
# <linux/usb/ch9.h> before or after them (test_core_headers_linux_first and
# test_core_headers_own run those two orders as programs as well).
set(hdr_flags -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only
              -I${PROJECT_SOURCE_DIR}/include)
if(COMPOSITE_POSIX)
  list(APPEND hdr_flags -DHEADERS_POSIX)
endif()
find_program(HDR_CLANG clang)
find_program(HDR_GCC gcc)
set(hdr_compilers ${HDR_GCC} ${HDR_CLANG})
if(NOT hdr_compilers)
  set(hdr_compilers ${CMAKE_C_COMPILER})
endif()
set(hdr_dir ${CMAKE_CURRENT_BINARY_DIR}/header_orders)
file(WRITE ${hdr_dir}/ours_first.c
     "#include \"composite/composite.h\"\n#include \"composite/function.h\"\n"
     "#include \"composite/linux/types.h\"\n#include <linux/usb/ch9.h>\n"
     "int main(void) { __le16 w = cpu_to_le16(USB_DT_DEVICE); LIST_HEAD(l);\n"
     "  struct usb_otg20_descriptor o = { .bmAttributes = USB_OTG_HNP };\n"
     "  return (int)w + (int)list_empty(&l) + o.bmAttributes; }\n")
file(WRITE ${hdr_dir}/linux_first.c
     "#include <linux/usb/ch9.h>\n#include \"composite/linux/types.h\"\n"
     "#include \"composite/composite.h\"\n#include \"composite/function.h\"\n"
     "int main(void) { __le16 w = cpu_to_le16(USB_DT_DEVICE);\n"
     "  struct usb_otg20_descriptor o = { .bmAttributes = USB_OTG_HNP };\n"
     "  return (int)w + o.bmAttributes; }\n")
foreach(cc ${hdr_compilers})
  get_filename_component(cc_name ${cc} NAME_WE)
  add_test(NAME core_headers_sys_queue_${cc_name}
           COMMAND ${cc} ${hdr_flags} ${CMAKE_CURRENT_SOURCE_DIR}/test_core_headers_sys_queue.c)
  set_tests_properties(core_headers_sys_queue_${cc_name} PROPERTIES LABELS unit)
  if(EXISTS /usr/include/linux/usb/ch9.h)
    foreach(order ours_first linux_first)
      add_test(NAME core_headers_${order}_${cc_name}
               COMMAND ${cc} ${hdr_flags} ${hdr_dir}/${order}.c)
      set_tests_properties(core_headers_${order}_${cc_name} PROPERTIES LABELS unit)
    endforeach()
  endif()
endforeach()
