/*
 * test_core_ch9.h - the list of chapter 9 structures, fields and constants
 * that test_core_ch9.c compares between Linux's <linux/usb/ch9.h> and the
 * library's ch9_own.h. Each table file expands the X-macros below with
 * one header only.
 */
#ifndef TEST_CORE_CH9_H
#define TEST_CORE_CH9_H

#include <stddef.h>

/* One macro of Linux's header (tests/unit/ch9_macros.cmake generates the
 * two tables): defined in this header or not, and its value. */
struct ch9_macro {
	const char *name;
	int defined;
	long long value;
};
extern const struct ch9_macro core_ch9_linux_macros[];
extern const struct ch9_macro core_ch9_own_macros[];

struct ch9_entry {
	const char *name;	/* "struct.field", "struct" or a constant */
	long long value;	/* offset, size or value */
};

#define CH9_STRUCTS(S, F) \
	S(usb_ctrlrequest) F(usb_ctrlrequest, bRequestType) F(usb_ctrlrequest, bRequest) \
	F(usb_ctrlrequest, wValue) F(usb_ctrlrequest, wIndex) F(usb_ctrlrequest, wLength) \
	S(usb_descriptor_header) F(usb_descriptor_header, bLength) \
	F(usb_descriptor_header, bDescriptorType) \
	S(usb_device_descriptor) F(usb_device_descriptor, bLength) \
	F(usb_device_descriptor, bDescriptorType) F(usb_device_descriptor, bcdUSB) \
	F(usb_device_descriptor, bDeviceClass) F(usb_device_descriptor, bDeviceSubClass) \
	F(usb_device_descriptor, bDeviceProtocol) F(usb_device_descriptor, bMaxPacketSize0) \
	F(usb_device_descriptor, idVendor) F(usb_device_descriptor, idProduct) \
	F(usb_device_descriptor, bcdDevice) F(usb_device_descriptor, iManufacturer) \
	F(usb_device_descriptor, iProduct) F(usb_device_descriptor, iSerialNumber) \
	F(usb_device_descriptor, bNumConfigurations) \
	S(usb_config_descriptor) F(usb_config_descriptor, bLength) \
	F(usb_config_descriptor, bDescriptorType) F(usb_config_descriptor, wTotalLength) \
	F(usb_config_descriptor, bNumInterfaces) F(usb_config_descriptor, bConfigurationValue) \
	F(usb_config_descriptor, iConfiguration) F(usb_config_descriptor, bmAttributes) \
	F(usb_config_descriptor, bMaxPower) \
	S(usb_string_descriptor) F(usb_string_descriptor, bLength) \
	F(usb_string_descriptor, bDescriptorType) F(usb_string_descriptor, wData) \
	S(usb_interface_descriptor) F(usb_interface_descriptor, bLength) \
	F(usb_interface_descriptor, bDescriptorType) F(usb_interface_descriptor, bInterfaceNumber) \
	F(usb_interface_descriptor, bAlternateSetting) F(usb_interface_descriptor, bNumEndpoints) \
	F(usb_interface_descriptor, bInterfaceClass) F(usb_interface_descriptor, bInterfaceSubClass) \
	F(usb_interface_descriptor, bInterfaceProtocol) F(usb_interface_descriptor, iInterface) \
	S(usb_endpoint_descriptor) F(usb_endpoint_descriptor, bLength) \
	F(usb_endpoint_descriptor, bDescriptorType) F(usb_endpoint_descriptor, bEndpointAddress) \
	F(usb_endpoint_descriptor, bmAttributes) F(usb_endpoint_descriptor, wMaxPacketSize) \
	F(usb_endpoint_descriptor, bInterval) F(usb_endpoint_descriptor, bRefresh) \
	F(usb_endpoint_descriptor, bSynchAddress) \
	S(usb_ss_ep_comp_descriptor) F(usb_ss_ep_comp_descriptor, bLength) \
	F(usb_ss_ep_comp_descriptor, bDescriptorType) F(usb_ss_ep_comp_descriptor, bMaxBurst) \
	F(usb_ss_ep_comp_descriptor, bmAttributes) F(usb_ss_ep_comp_descriptor, wBytesPerInterval) \
	S(usb_qualifier_descriptor) F(usb_qualifier_descriptor, bLength) \
	F(usb_qualifier_descriptor, bDescriptorType) F(usb_qualifier_descriptor, bcdUSB) \
	F(usb_qualifier_descriptor, bDeviceClass) F(usb_qualifier_descriptor, bDeviceSubClass) \
	F(usb_qualifier_descriptor, bDeviceProtocol) F(usb_qualifier_descriptor, bMaxPacketSize0) \
	F(usb_qualifier_descriptor, bNumConfigurations) F(usb_qualifier_descriptor, bRESERVED) \
	S(usb_otg_descriptor) F(usb_otg_descriptor, bLength) \
	F(usb_otg_descriptor, bDescriptorType) F(usb_otg_descriptor, bmAttributes) \
	S(usb_interface_assoc_descriptor) F(usb_interface_assoc_descriptor, bLength) \
	F(usb_interface_assoc_descriptor, bDescriptorType) \
	F(usb_interface_assoc_descriptor, bFirstInterface) \
	F(usb_interface_assoc_descriptor, bInterfaceCount) \
	F(usb_interface_assoc_descriptor, bFunctionClass) \
	F(usb_interface_assoc_descriptor, bFunctionSubClass) \
	F(usb_interface_assoc_descriptor, bFunctionProtocol) \
	F(usb_interface_assoc_descriptor, iFunction) \
	S(usb_bos_descriptor) F(usb_bos_descriptor, bLength) F(usb_bos_descriptor, bDescriptorType) \
	F(usb_bos_descriptor, wTotalLength) F(usb_bos_descriptor, bNumDeviceCaps) \
	S(usb_dev_cap_header) F(usb_dev_cap_header, bLength) F(usb_dev_cap_header, bDescriptorType) \
	F(usb_dev_cap_header, bDevCapabilityType) \
	S(usb_ext_cap_descriptor) F(usb_ext_cap_descriptor, bLength) \
	F(usb_ext_cap_descriptor, bDescriptorType) F(usb_ext_cap_descriptor, bDevCapabilityType) \
	F(usb_ext_cap_descriptor, bmAttributes) \
	S(usb_ss_cap_descriptor) F(usb_ss_cap_descriptor, bLength) \
	F(usb_ss_cap_descriptor, bDescriptorType) F(usb_ss_cap_descriptor, bDevCapabilityType) \
	F(usb_ss_cap_descriptor, bmAttributes) F(usb_ss_cap_descriptor, wSpeedSupported) \
	F(usb_ss_cap_descriptor, bFunctionalitySupport) F(usb_ss_cap_descriptor, bU1devExitLat) \
	F(usb_ss_cap_descriptor, bU2DevExitLat) \
	S(usb_set_sel_req) F(usb_set_sel_req, u1_sel) F(usb_set_sel_req, u1_pel) \
	F(usb_set_sel_req, u2_sel) F(usb_set_sel_req, u2_pel) \
	S(usb_ssp_isoc_ep_comp_descriptor) F(usb_ssp_isoc_ep_comp_descriptor, bLength) \
	F(usb_ssp_isoc_ep_comp_descriptor, bDescriptorType) \
	F(usb_ssp_isoc_ep_comp_descriptor, wReseved) \
	F(usb_ssp_isoc_ep_comp_descriptor, dwBytesPerInterval) \
	S(usb_otg20_descriptor) F(usb_otg20_descriptor, bLength) \
	F(usb_otg20_descriptor, bDescriptorType) F(usb_otg20_descriptor, bmAttributes) \
	F(usb_otg20_descriptor, bcdOTG) \
	S(usb_debug_descriptor) F(usb_debug_descriptor, bLength) \
	F(usb_debug_descriptor, bDescriptorType) F(usb_debug_descriptor, bDebugInEndpoint) \
	F(usb_debug_descriptor, bDebugOutEndpoint) \
	S(usb_security_descriptor) F(usb_security_descriptor, bLength) \
	F(usb_security_descriptor, bDescriptorType) F(usb_security_descriptor, wTotalLength) \
	F(usb_security_descriptor, bNumEncryptionTypes) \
	S(usb_key_descriptor) F(usb_key_descriptor, bLength) \
	F(usb_key_descriptor, bDescriptorType) F(usb_key_descriptor, tTKID) \
	F(usb_key_descriptor, bReserved) F(usb_key_descriptor, bKeyData) \
	S(usb_encryption_descriptor) F(usb_encryption_descriptor, bLength) \
	F(usb_encryption_descriptor, bDescriptorType) \
	F(usb_encryption_descriptor, bEncryptionType) \
	F(usb_encryption_descriptor, bEncryptionValue) \
	F(usb_encryption_descriptor, bAuthKeyIndex) \
	S(usb_handshake) F(usb_handshake, bMessageNumber) F(usb_handshake, bStatus) \
	F(usb_handshake, tTKID) F(usb_handshake, bReserved) F(usb_handshake, CDID) \
	F(usb_handshake, nonce) F(usb_handshake, MIC) \
	S(usb_connection_context) F(usb_connection_context, CHID) \
	F(usb_connection_context, CDID) F(usb_connection_context, CK) \
	S(usb_wireless_ep_comp_descriptor) F(usb_wireless_ep_comp_descriptor, bLength) \
	F(usb_wireless_ep_comp_descriptor, bDescriptorType) \
	F(usb_wireless_ep_comp_descriptor, bMaxBurst) \
	F(usb_wireless_ep_comp_descriptor, bMaxSequence) \
	F(usb_wireless_ep_comp_descriptor, wMaxStreamDelay) \
	F(usb_wireless_ep_comp_descriptor, wOverTheAirPacketSize) \
	F(usb_wireless_ep_comp_descriptor, bOverTheAirInterval) \
	F(usb_wireless_ep_comp_descriptor, bmCompAttributes) \
	S(usb_wireless_cap_descriptor) F(usb_wireless_cap_descriptor, bLength) \
	F(usb_wireless_cap_descriptor, bDescriptorType) \
	F(usb_wireless_cap_descriptor, bDevCapabilityType) \
	F(usb_wireless_cap_descriptor, bmAttributes) F(usb_wireless_cap_descriptor, wPHYRates) \
	F(usb_wireless_cap_descriptor, bmTFITXPowerInfo) \
	F(usb_wireless_cap_descriptor, bmFFITXPowerInfo) \
	F(usb_wireless_cap_descriptor, bmBandGroup) F(usb_wireless_cap_descriptor, bReserved) \
	S(usb_ss_container_id_descriptor) F(usb_ss_container_id_descriptor, bLength) \
	F(usb_ss_container_id_descriptor, bDescriptorType) \
	F(usb_ss_container_id_descriptor, bDevCapabilityType) \
	F(usb_ss_container_id_descriptor, bReserved) \
	F(usb_ss_container_id_descriptor, ContainerID) \
	S(usb_ssp_cap_descriptor) F(usb_ssp_cap_descriptor, bLength) \
	F(usb_ssp_cap_descriptor, bDescriptorType) \
	F(usb_ssp_cap_descriptor, bDevCapabilityType) F(usb_ssp_cap_descriptor, bReserved) \
	F(usb_ssp_cap_descriptor, bmAttributes) \
	F(usb_ssp_cap_descriptor, wFunctionalitySupport) F(usb_ssp_cap_descriptor, wReserved) \
	F(usb_ssp_cap_descriptor, bmSublinkSpeedAttr) \
	S(usb_ptm_cap_descriptor) F(usb_ptm_cap_descriptor, bLength) \
	F(usb_ptm_cap_descriptor, bDescriptorType) \
	F(usb_ptm_cap_descriptor, bDevCapabilityType) \
	S(usb_pd_cap_descriptor) F(usb_pd_cap_descriptor, bLength) \
	F(usb_pd_cap_descriptor, bDescriptorType) F(usb_pd_cap_descriptor, bDevCapabilityType) \
	F(usb_pd_cap_descriptor, bReserved) F(usb_pd_cap_descriptor, bmAttributes) \
	F(usb_pd_cap_descriptor, bmProviderPorts) F(usb_pd_cap_descriptor, bmConsumerPorts) \
	F(usb_pd_cap_descriptor, bcdBCVersion) F(usb_pd_cap_descriptor, bcdPDVersion) \
	F(usb_pd_cap_descriptor, bcdUSBTypeCVersion) \
	S(usb_pd_cap_battery_info_descriptor) F(usb_pd_cap_battery_info_descriptor, bLength) \
	F(usb_pd_cap_battery_info_descriptor, bDescriptorType) \
	F(usb_pd_cap_battery_info_descriptor, bDevCapabilityType) \
	F(usb_pd_cap_battery_info_descriptor, iBattery) \
	F(usb_pd_cap_battery_info_descriptor, iSerial) \
	F(usb_pd_cap_battery_info_descriptor, iManufacturer) \
	F(usb_pd_cap_battery_info_descriptor, bBatteryId) \
	F(usb_pd_cap_battery_info_descriptor, bReserved) \
	F(usb_pd_cap_battery_info_descriptor, dwChargedThreshold) \
	F(usb_pd_cap_battery_info_descriptor, dwWeakThreshold) \
	F(usb_pd_cap_battery_info_descriptor, dwBatteryDesignCapacity) \
	F(usb_pd_cap_battery_info_descriptor, dwBatteryLastFullchargeCapacity) \
	S(usb_pd_cap_consumer_port_descriptor) F(usb_pd_cap_consumer_port_descriptor, bLength) \
	F(usb_pd_cap_consumer_port_descriptor, bDescriptorType) \
	F(usb_pd_cap_consumer_port_descriptor, bDevCapabilityType) \
	F(usb_pd_cap_consumer_port_descriptor, bReserved) \
	F(usb_pd_cap_consumer_port_descriptor, bmCapabilities) \
	F(usb_pd_cap_consumer_port_descriptor, wMinVoltage) \
	F(usb_pd_cap_consumer_port_descriptor, wMaxVoltage) \
	F(usb_pd_cap_consumer_port_descriptor, wReserved) \
	F(usb_pd_cap_consumer_port_descriptor, dwMaxOperatingPower) \
	F(usb_pd_cap_consumer_port_descriptor, dwMaxPeakPower) \
	F(usb_pd_cap_consumer_port_descriptor, dwMaxPeakPowerTime) \
	S(usb_pd_cap_provider_port_descriptor) F(usb_pd_cap_provider_port_descriptor, bLength) \
	F(usb_pd_cap_provider_port_descriptor, bDescriptorType) \
	F(usb_pd_cap_provider_port_descriptor, bDevCapabilityType) \
	F(usb_pd_cap_provider_port_descriptor, bReserved1) \
	F(usb_pd_cap_provider_port_descriptor, bmCapabilities) \
	F(usb_pd_cap_provider_port_descriptor, bNumOfPDObjects) \
	F(usb_pd_cap_provider_port_descriptor, bReserved2) \
	F(usb_pd_cap_provider_port_descriptor, wPowerDataObject)

#define CH9_CONSTANTS(C) \
	C(USB_DIR_OUT) C(USB_DIR_IN) C(USB_TYPE_MASK) C(USB_TYPE_STANDARD) C(USB_TYPE_CLASS) \
	C(USB_TYPE_VENDOR) C(USB_TYPE_RESERVED) C(USB_RECIP_MASK) C(USB_RECIP_DEVICE) \
	C(USB_RECIP_INTERFACE) C(USB_RECIP_ENDPOINT) C(USB_RECIP_OTHER) C(USB_RECIP_PORT) \
	C(USB_RECIP_RPIPE) C(USB_REQ_GET_STATUS) C(USB_REQ_CLEAR_FEATURE) C(USB_REQ_SET_FEATURE) \
	C(USB_REQ_SET_ADDRESS) C(USB_REQ_GET_DESCRIPTOR) C(USB_REQ_SET_DESCRIPTOR) \
	C(USB_REQ_GET_CONFIGURATION) C(USB_REQ_SET_CONFIGURATION) C(USB_REQ_GET_INTERFACE) \
	C(USB_REQ_SET_INTERFACE) C(USB_REQ_SYNCH_FRAME) C(USB_REQ_SET_SEL) \
	C(USB_REQ_SET_ISOCH_DELAY) C(USB_DEVICE_SELF_POWERED) C(USB_DEVICE_REMOTE_WAKEUP) \
	C(USB_DEVICE_TEST_MODE) C(USB_DEVICE_BATTERY) C(USB_DEVICE_B_HNP_ENABLE) \
	C(USB_DEVICE_WUSB_DEVICE) C(USB_DEVICE_A_HNP_SUPPORT) C(USB_DEVICE_A_ALT_HNP_SUPPORT) \
	C(USB_DEVICE_DEBUG_MODE) C(USB_TEST_J) C(USB_TEST_K) C(USB_TEST_SE0_NAK) \
	C(USB_TEST_PACKET) C(USB_TEST_FORCE_ENABLE) C(USB_DEVICE_U1_ENABLE) \
	C(USB_DEVICE_U2_ENABLE) C(USB_DEVICE_LTM_ENABLE) C(USB_INTRF_FUNC_SUSPEND) \
	C(USB_INTR_FUNC_SUSPEND_OPT_MASK) C(USB_INTRF_FUNC_SUSPEND_LP) \
	C(USB_INTRF_FUNC_SUSPEND_RW) C(USB_INTRF_STAT_FUNC_RW_CAP) C(USB_INTRF_STAT_FUNC_RW) \
	C(USB_ENDPOINT_HALT) C(USB_DEV_STAT_U1_ENABLED) C(USB_DEV_STAT_U2_ENABLED) \
	C(USB_DEV_STAT_LTM_ENABLED) C(USB_DT_DEVICE) C(USB_DT_CONFIG) C(USB_DT_STRING) \
	C(USB_DT_INTERFACE) C(USB_DT_ENDPOINT) C(USB_DT_DEVICE_QUALIFIER) \
	C(USB_DT_OTHER_SPEED_CONFIG) C(USB_DT_INTERFACE_POWER) C(USB_DT_OTG) C(USB_DT_DEBUG) \
	C(USB_DT_INTERFACE_ASSOCIATION) C(USB_DT_SECURITY) C(USB_DT_KEY) \
	C(USB_DT_ENCRYPTION_TYPE) C(USB_DT_BOS) C(USB_DT_DEVICE_CAPABILITY) \
	C(USB_DT_WIRELESS_ENDPOINT_COMP) C(USB_DT_WIRE_ADAPTER) C(USB_DT_RPIPE) \
	C(USB_DT_CS_RADIO_CONTROL) C(USB_DT_PIPE_USAGE) C(USB_DT_SS_ENDPOINT_COMP) \
	C(USB_DT_SSP_ISOC_ENDPOINT_COMP) C(USB_DT_CS_DEVICE) C(USB_DT_CS_CONFIG) \
	C(USB_DT_CS_STRING) C(USB_DT_CS_INTERFACE) C(USB_DT_CS_ENDPOINT) C(USB_DT_DEVICE_SIZE) \
	C(USB_CLASS_PER_INTERFACE) C(USB_CLASS_AUDIO) C(USB_CLASS_COMM) C(USB_CLASS_HID) \
	C(USB_CLASS_PHYSICAL) C(USB_CLASS_STILL_IMAGE) C(USB_CLASS_PRINTER) \
	C(USB_CLASS_MASS_STORAGE) C(USB_CLASS_HUB) C(USB_CLASS_CDC_DATA) C(USB_CLASS_CSCID) \
	C(USB_CLASS_CONTENT_SEC) C(USB_CLASS_VIDEO) C(USB_CLASS_WIRELESS_CONTROLLER) \
	C(USB_CLASS_PERSONAL_HEALTHCARE) C(USB_CLASS_AUDIO_VIDEO) C(USB_CLASS_BILLBOARD) \
	C(USB_CLASS_USB_TYPE_C_BRIDGE) C(USB_CLASS_MISC) C(USB_CLASS_APP_SPEC) \
	C(USB_CLASS_VENDOR_SPEC) C(USB_SUBCLASS_VENDOR_SPEC) C(USB_DT_CONFIG_SIZE) \
	C(USB_CONFIG_ATT_ONE) C(USB_CONFIG_ATT_SELFPOWER) C(USB_CONFIG_ATT_WAKEUP) \
	C(USB_CONFIG_ATT_BATTERY) C(USB_MAX_STRING_LEN) C(USB_DT_INTERFACE_SIZE) \
	C(USB_DT_ENDPOINT_SIZE) C(USB_DT_ENDPOINT_AUDIO_SIZE) C(USB_ENDPOINT_NUMBER_MASK) \
	C(USB_ENDPOINT_DIR_MASK) C(USB_ENDPOINT_XFERTYPE_MASK) C(USB_ENDPOINT_XFER_CONTROL) \
	C(USB_ENDPOINT_XFER_ISOC) C(USB_ENDPOINT_XFER_BULK) C(USB_ENDPOINT_XFER_INT) \
	C(USB_ENDPOINT_MAX_ADJUSTABLE) C(USB_ENDPOINT_MAXP_MASK) C(USB_EP_MAXP_MULT_SHIFT) \
	C(USB_EP_MAXP_MULT_MASK) C(USB_ENDPOINT_INTRTYPE) C(USB_ENDPOINT_INTR_PERIODIC) \
	C(USB_ENDPOINT_INTR_NOTIFICATION) C(USB_ENDPOINT_SYNCTYPE) C(USB_ENDPOINT_SYNC_NONE) \
	C(USB_ENDPOINT_SYNC_ASYNC) C(USB_ENDPOINT_SYNC_ADAPTIVE) C(USB_ENDPOINT_SYNC_SYNC) \
	C(USB_ENDPOINT_USAGE_MASK) C(USB_ENDPOINT_USAGE_DATA) C(USB_ENDPOINT_USAGE_FEEDBACK) \
	C(USB_ENDPOINT_USAGE_IMPLICIT_FB) C(USB_DT_SS_EP_COMP_SIZE) \
	C(USB_DT_INTERFACE_ASSOCIATION_SIZE) C(USB_DT_BOS_SIZE) C(USB_CAP_TYPE_EXT) \
	C(USB_LPM_SUPPORT) C(USB_BESL_SUPPORT) C(USB_DT_USB_EXT_CAP_SIZE) C(USB_SS_CAP_TYPE) \
	C(USB_LTM_SUPPORT) C(USB_LOW_SPEED_OPERATION) C(USB_FULL_SPEED_OPERATION) \
	C(USB_HIGH_SPEED_OPERATION) C(USB_5GBPS_OPERATION) C(USB_DT_USB_SS_CAP_SIZE) \
	C(USB_SPEED_UNKNOWN) C(USB_SPEED_LOW) C(USB_SPEED_FULL) C(USB_SPEED_HIGH) \
	C(USB_SPEED_WIRELESS) C(USB_SPEED_SUPER) C(USB_SPEED_SUPER_PLUS) \
	C(USB_STATE_NOTATTACHED) C(USB_STATE_ATTACHED) C(USB_STATE_POWERED) \
	C(USB_STATE_RECONNECTING) C(USB_STATE_UNAUTHENTICATED) C(USB_STATE_DEFAULT) \
	C(USB_STATE_ADDRESS) C(USB_STATE_CONFIGURED) C(USB_STATE_SUSPENDED)

#define CH9_S(s) { #s, (long long)sizeof(struct s) },
#define CH9_F(s, f) { #s "." #f, (long long)offsetof(struct s, f) },
#define CH9_C(c) { #c, (long long)(c) },

#define CH9_TABLE(name) \
	const struct ch9_entry name[] = { CH9_STRUCTS(CH9_S, CH9_F) CH9_CONSTANTS(CH9_C) \
					  { NULL, 0 } }

extern const struct ch9_entry core_ch9_linux[];
extern const struct ch9_entry core_ch9_own[];

#endif /* TEST_CORE_CH9_H */
