# Debian packages with CPack (`cpack -G DEB` in a build tree, or the
# `package` target): one per install component.
# - libcomposite-dev ("dev", cmake/install.cmake): headers, the static
#   libraries, the CMake package and the pkg-config files.
# - composite-gadgetd ("gadgetd", when the daemon is built): the daemon,
#   its CLI, the systemd unit and the example schemes.
# Packages install under /usr; the .pc and CMake files are relocatable.
set(CPACK_PACKAGE_NAME libcomposite)
set(CPACK_PACKAGE_VENDOR "libcomposite developers")
set(CPACK_PACKAGE_CONTACT "libcomposite developers <libcomposite@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "USB gadgets from reusable functions, in the shape of Linux's composite framework")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)

set(CPACK_COMPONENTS_ALL dev)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libcomposite-dev)
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "libcomposite: static library, headers, CMake package and pkg-config files\n\
A portable C11 library for USB devices (gadgets) built from reusable\n\
functions (mass storage, CDC ACM, HID, CDC ECM/NCM, Gadget Zero), served\n\
over USB/IP or driven by a firmware's own controller backend.")
if(COMPOSITE_POSIX)
  # What the POSIX adapters link: -pthread comes with libc6.
  set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libc6-dev")
endif()

if(TARGET composite-gadgetd)
  list(APPEND CPACK_COMPONENTS_ALL gadgetd)
  set(CPACK_DEBIAN_GADGETD_PACKAGE_NAME composite-gadgetd)
  set(CPACK_DEBIAN_GADGETD_PACKAGE_SECTION net)
  set(CPACK_DEBIAN_GADGETD_PACKAGE_SHLIBDEPS ON)
  set(CPACK_COMPONENT_GADGETD_DESCRIPTION
      "composite-gadgetd: USB gadgets from libusbgx gadget schemes over USB/IP\n\
Serves gadgets composed at run time from gadget schemes (libusbgx's\n\
format) to USB/IP hosts, with a control socket and its CLI.")
endif()
include(CPack)
