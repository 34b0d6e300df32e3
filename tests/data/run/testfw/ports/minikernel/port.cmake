# Test firmware port standing in for a kernel port without any kernel
# source: a "kernel" compiled as the rb_kernel object library (as
# firmware/CMakeLists.txt compiles a real kernel's sources) and port glue
# linked into the image, so the map file has both owners and a run records a
# kernel-alone footprint (build.footprint_kernel) against the bare image.
set(TESTFW_MODE normal)
set(TESTFW_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/minikernel.c)
set(TESTFW_GLUE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/glue.c)
