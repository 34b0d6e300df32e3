# The bare port: no kernel, our own minimal scheduler (rbp_bare.c). It needs
# no RB_KERNEL_SOURCE.
set(RB_PORT_SOURCES "${RB_PORT_DIR}/rbp_bare.c")
set(RB_PORT_INCLUDE_DIRS "${RB_PORT_DIR}")
