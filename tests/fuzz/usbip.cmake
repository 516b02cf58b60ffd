# USB/IP PDU decoders (src/udc/usbip/usbip_codec.c).
composite_fuzzer(fuzz_usbip_pdu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_usbip_pdu.c)
