# Toolchain file for the rtosbench firmware: the GNU Arm Embedded toolchain
# (Debian: gcc-arm-none-eabi, binutils-arm-none-eabi, libnewlib-arm-none-eabi).
#
# The compiler is looked up on PATH, or under ARM_NONE_EABI_ROOT (environment
# or cache variable: the directory holding bin/arm-none-eabi-gcc) when set, so
# a pinned toolchain can be used without editing this file. The CPU and ABI
# flags are set by firmware/CMakeLists.txt (they depend on RB_FPU_CONTEXT).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(_rb_tc_hints "")
if(DEFINED ARM_NONE_EABI_ROOT)
  list(APPEND _rb_tc_hints "${ARM_NONE_EABI_ROOT}/bin")
elseif(DEFINED ENV{ARM_NONE_EABI_ROOT})
  list(APPEND _rb_tc_hints "$ENV{ARM_NONE_EABI_ROOT}/bin")
endif()

find_program(RB_ARM_GCC arm-none-eabi-gcc HINTS ${_rb_tc_hints})
if(NOT RB_ARM_GCC)
  message(FATAL_ERROR
    "arm-none-eabi-gcc not found on PATH (or under ARM_NONE_EABI_ROOT). "
    "On Debian: apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi "
    "(scripts/setup-deps.sh installs it).")
endif()
get_filename_component(_rb_tc_bin "${RB_ARM_GCC}" DIRECTORY)

set(CMAKE_C_COMPILER "${RB_ARM_GCC}")
set(CMAKE_ASM_COMPILER "${RB_ARM_GCC}")
find_program(CMAKE_OBJCOPY arm-none-eabi-objcopy HINTS "${_rb_tc_bin}" REQUIRED)
find_program(CMAKE_SIZE arm-none-eabi-size HINTS "${_rb_tc_bin}" REQUIRED)

# No host libraries or programs leak into the cross build; try_compile builds
# a static library because a bare-metal executable needs our startup code.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
