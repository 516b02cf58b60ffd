# USB/IP PDU decoders (src/udc/usbip/usbip_codec.c).
composite_fuzzer(fuzz_usbip_pdu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_usbip_pdu.c)

# The USB/IP server over TCP against the test gadget of tests/integration
# (POSIX builds: usbip_test_support).
if(TARGET usbip_test_support)
  composite_fuzzer(fuzz_usbip_server SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_usbip_server.c
                   RUNS 3000)
  target_link_libraries(fuzz_usbip_server PRIVATE usbip_test_support)
endif()
