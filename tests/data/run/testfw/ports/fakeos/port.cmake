# Test firmware port standing in for a kernel with an upstream source: the
# build fails unless RB_KERNEL_SOURCE names a checkout holding fakeos.h.
if(NOT EXISTS "${RB_KERNEL_SOURCE}/fakeos.h")
  message(FATAL_ERROR "fakeos: RB_KERNEL_SOURCE='${RB_KERNEL_SOURCE}' has no fakeos.h")
endif()
set(TESTFW_MODE normal)
