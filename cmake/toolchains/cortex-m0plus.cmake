# cortex-m0plus.cmake - Cortex-M0+ (ARMv6-M, no FPU), e.g. RP2040, SAMD21,
# STM32G0. ARMv6-M has no atomic read-modify-write: the library's atomics
# go through critical-section hooks there (include/composite/port.h,
# docs/firmware.md), which the firmware supplies.
set(COMPOSITE_ARM_CPU_FLAGS "-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
