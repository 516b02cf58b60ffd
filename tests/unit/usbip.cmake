# USB/IP backend: the PDU codec (byte-exact encode/decode, malformed input).
composite_unit_test(test_usbip_codec SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_usbip_codec.c)
# The transfer engine's isochronous transfers, which ISO URBs map onto.
composite_unit_test(test_usbip_xfer_iso SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_usbip_xfer_iso.c)
# The usbmon pcap record encoder of the USB/IP capture (portable C).
composite_unit_test(test_usbmon_pcap SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_usbmon_pcap.c)
# The capture's file, written behind by its writer thread (POSIX).
if(COMPOSITE_POSIX)
  composite_unit_test(test_usbip_capture_file SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_usbip_capture_file.c)
endif()
