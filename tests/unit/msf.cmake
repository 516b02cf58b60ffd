# Mass Storage Function (src/functions/msf) through the in-process host.
if(COMPOSITE_POSIX)
  set(msf_fixture ${CMAKE_CURRENT_SOURCE_DIR}/test_msf_fixture.c)
  foreach(t scsi bot lun params signal window file)
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_msf_${t}.c)
      composite_unit_test(test_msf_${t} SOURCES test_msf_${t}.c ${msf_fixture})
    endif()
  endforeach()
endif()
