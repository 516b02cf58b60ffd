# arm-none-eabi.cmake - the common part of the bare-metal Arm toolchain files
# (Debian's gcc-arm-none-eabi 12 and libnewlib-arm-none-eabi). A core's own
# file sets COMPOSITE_ARM_CPU_FLAGS (-mcpu=... -mthumb, float ABI) and
# includes this one; see cortex-m4f.cmake and cortex-m0plus.cmake, and
# docs/firmware.md for another core (copy one, change the flags).
#
# What it sets: a Generic system (no PIC, static libraries only), the
# compiler, the flags every object and image gets (-Os through the preset's
# Release build type, sections for --gc-sections), newlib-nano and nosys for
# images, and a try_compile that links a static library (no start-up code
# is needed to configure).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(COMPOSITE_ARM_PREFIX arm-none-eabi- CACHE STRING "Cross tool name prefix")
set(CMAKE_C_COMPILER ${COMPOSITE_ARM_PREFIX}gcc)
set(CMAKE_ASM_COMPILER ${COMPOSITE_ARM_PREFIX}gcc)
set(CMAKE_AR ${COMPOSITE_ARM_PREFIX}ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${COMPOSITE_ARM_PREFIX}ranlib CACHE FILEPATH "")
set(CMAKE_OBJCOPY ${COMPOSITE_ARM_PREFIX}objcopy CACHE FILEPATH "")
set(CMAKE_SIZE ${COMPOSITE_ARM_PREFIX}size CACHE FILEPATH "")
set(CMAKE_NM ${COMPOSITE_ARM_PREFIX}nm CACHE FILEPATH "")

set(CMAKE_C_FLAGS_INIT "${COMPOSITE_ARM_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "${COMPOSITE_ARM_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "${COMPOSITE_ARM_CPU_FLAGS} -specs=nano.specs -specs=nosys.specs -Wl,--gc-sections")
# Release is -Os here: the _INIT variables only come before CMake's own
# "-O3 -DNDEBUG", which would win, so the cache entries are set directly.
# Three GCC 12 options that -Os leaves on cost bytes here (measured on the
# library in the firmware scenario image, docs/firmware.md): inlining every
# static function called once makes the big dispatchers (SCSI, chapter 9,
# the BOT state machine) keep more registers on the stack; jump tables for
# switches; and post-reload scheduling, which buys nothing on an in-order
# Cortex-M. An existing build folder keeps its cached flags: configure it
# with --fresh.
set(COMPOSITE_ARM_SIZE_FLAGS
    "-Os -fno-inline-functions-called-once -fno-jump-tables -fno-schedule-insns2")
set(CMAKE_C_FLAGS_RELEASE "${COMPOSITE_ARM_SIZE_FLAGS} -DNDEBUG" CACHE STRING
    "Release flags (size)")
set(CMAKE_C_FLAGS_MINSIZEREL "${COMPOSITE_ARM_SIZE_FLAGS} -DNDEBUG" CACHE STRING
    "MinSizeRel flags")

# Headers and libraries of the target only; programs of the host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
