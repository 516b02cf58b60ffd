# Installation: the library, its headers (FILE_SET), an exported CMake
# package (find_package(composite) -> composite::composite) with a version
# file, and a relocatable pkg-config file.
# Everything here is the "dev" component: the libcomposite-dev package
# (cmake/package.cmake); programs install as their own components.
include(CMakePackageConfigHelpers)
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME dev)

install(TARGETS composite
  EXPORT compositeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET composite_module)
  install(TARGETS composite_module
    EXPORT compositeTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

install(EXPORT compositeTargets
  NAMESPACE composite::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/composite)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/compositeConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/compositeConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/composite)
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/compositeConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/compositeConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/compositeConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/composite)

# pkg-config: paths relative to the .pc file's own folder, so a prefix
# moved after `cmake --install` still works (absolute GNUInstallDirs
# values stay absolute).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(COMPOSITE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH pc_up /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  string(REGEX REPLACE "/$" "" pc_up "${pc_up}")
  set(COMPOSITE_PC_PREFIX "\${pcfiledir}/${pc_up}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(COMPOSITE_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(COMPOSITE_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(COMPOSITE_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(COMPOSITE_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
if(COMPOSITE_POSIX)
  set(COMPOSITE_PC_LIBS_PRIVATE "-pthread")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/composite.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/composite.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/composite.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(TARGET composite_module)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/composite-module.pc.in
                 ${CMAKE_CURRENT_BINARY_DIR}/composite-module.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/composite-module.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
