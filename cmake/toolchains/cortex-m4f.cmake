# cortex-m4f.cmake - Cortex-M4 with its single-precision FPU (hard-float
# ABI), e.g. STM32F4, nRF52, the mps2-an386 board qemu runs in the
# firmware tests. The M4 has LDREX/STREX: C11 atomics are inline.
set(COMPOSITE_ARM_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
